"""The four boards in the pseudo-locale on a 360x740 phone (headless Chromium).

Issue 45: Autumn Leaves, Autumn Ash (the refereed board), the score pad and
solitaire, on one phone reading the pseudo-locale (every marked string
accented, 40 % longer, between ⟦ ⟧): no word of the board shows outside the
markers (a word never marked for translation), nothing is wider than the
phone, nothing is cut short (an ellipsis that truncates, a scroll box its
contents spill out of, a field too narrow for its example), the main action
is on the first screen, and after a tap the answer is in view. One browser
context, each board loaded once. Then the same phone in real languages
(issue 45): Autumn Ash's colour tags whole in all eight, the German start
page's join field, and 12-letter names in the final and records tables.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from companion.i18n import LANGUAGES, PSEUDO_CLOSE, PSEUDO_OPEN
from companion.rules.autumn_ash import COLOURS, OUR_LAYOUT
from companion.web.i18n import COOKIE
from tests.browser.test_answers_in_view_browser import in_view
from tests.browser.test_languages_browser import NAMES, assert_fits
from tests.conftest import SMALL_PHONE
from tests.end_games import finish_autumn_ash

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = {"Ana", "Ben", "Cy", "Solo"}
# A marked string with no marked string inside it: a board's sentences hold
# other messages (a piece's name in a reason), so the markers nest.
INNERMOST = re.compile(
    re.escape(PSEUDO_OPEN) + r"[^" + PSEUDO_OPEN + PSEUDO_CLOSE + r"]*" + re.escape(PSEUDO_CLOSE)
)


def unmarked(text: str, also: set[str] = frozenset()) -> set[str]:
    """The words of a screen's text outside the markers, less names."""
    while INNERMOST.search(text):
        text = INNERMOST.sub(" ", text)
    return set(re.findall(r"[^\W\d_]{2,}", text)) - NAMES - also


SIDES = {"Rainbow", "Xeno"}  # Autumn Ash's two sides: names, as the games' are


def play(store: Any, table: Any, *actions: dict[str, Any]) -> None:
    for action in actions:
        store.act(table.token, store.version(table.token), action)


def open_board(page: Any, url: str) -> Any:
    """The table's page on this phone, as its shared phone; the board."""
    page.goto(url)
    if page.locator("#who-ask-h").count():
        shared = page.locator(".who-ask button[name=mode][value=shared]")
        # One player: the only seat is this phone's.
        (shared if shared.count() else page.locator(".who-names button").first).click()
        page.locator("#who-ask-h").wait_for(state="detached")
    board = page.locator("#board")
    board.wait_for()
    return board


def first_screen(page: Any, locator: Any) -> None:
    """The main action is wholly on the unscrolled 360x740 screen."""
    box = locator.bounding_box()
    assert box is not None, locator
    assert box["y"] >= 0 and box["y"] + box["height"] <= SMALL_PHONE["height"], box
    assert box["x"] >= 0 and box["x"] + box["width"] <= SMALL_PHONE["width"], box


# What reaches past the phone's right edge: elements, and words overflowing theirs.
WIDER = """() => {
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    while (walker.nextNode()) {
        const text = walker.currentNode;
        if (!text.textContent.trim() || text.parentElement.closest('.visually-hidden')) continue;
        range.selectNodeContents(text);
        const right = Math.max(0, ...[...range.getClientRects()].map(r => r.right));
        if (right > innerWidth + 0.5) {
            const el = text.parentElement;
            found.push(el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ': '
                       + text.textContent.trim().slice(0, 40));
        }
    }
    for (const el of document.querySelectorAll('body *'))
        if (el.getBoundingClientRect().right > innerWidth + 0.5)
            found.push(el.tagName.toLowerCase() + '.' + [...el.classList].join('.'));
    return found;
}"""


# What is cut short: text an ellipsis truncates, a scroll box its contents
# spill out of (a table 3 px too wide), a text field too narrow for its example
# or value. The argument: a selector whose ellipses are not looked at.
CUT = """(skip) => {
    const found = [];
    const name = el => el.tagName.toLowerCase() + '.' + [...el.classList].join('.');
    for (const el of document.querySelectorAll('body *')) {
        if (el.closest('.visually-hidden') || !el.getClientRects().length) continue;
        const style = getComputedStyle(el);
        const clips = style.overflowX !== 'visible';
        if (clips && style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth
            && !(skip && el.matches(skip)))
            found.push('ellipsis ' + name(el) + ': ' + el.textContent.trim().slice(0, 40));
        else if (['auto', 'scroll'].includes(style.overflowX)
                 && el.scrollWidth > el.clientWidth + 1)
            found.push('spills ' + (el.scrollWidth - el.clientWidth) + 'px ' + name(el));
        if (el.matches('input:not([type]), input[type=text], input[type=search]')) {
            const text = el.value || el.placeholder;
            const pen = document.createElement('canvas').getContext('2d');
            pen.font = style.font;
            const room = el.clientWidth - parseFloat(style.paddingLeft)
                         - parseFloat(style.paddingRight);
            if (text && pen.measureText(text).width > room + 0.5)
                found.push('field ' + name(el) + '#' + el.id + ': ' + text);
        }
    }
    return found;
}"""


def check_nothing_cut(page: Any, skip: str = "") -> None:
    cut = page.evaluate(CUT, skip)
    assert not cut, f"cut short at {page.url}: {cut}"


def check_words_and_width(page: Any, board: Any) -> None:
    assert not unmarked(board.inner_text(), PLAYERS | SIDES)
    wider = page.evaluate(WIDER)
    assert not wider, f"wider than the phone at {page.url}: {wider}"
    # A tag's short colour is the catalog's own short form (autumn_ash/_tags.html):
    # the pseudo-locale's is 40 % longer than any; the real ones are measured below.
    check_nothing_cut(page, skip=".ash-tag")
    assert_fits(page)


# Every Autumn Ash piece on the board once, so each colour's tag is measured
# at the widest size letter of each language.
PIECES = [f"{colour}{size}" for colour in COLOURS for size in (3, 2, 1)]
EVERY_PIECE = "/".join(",".join(PIECES[i : i + 5]) for i in range(0, 30, 5)) + " rainbow 0-0"
SWAP_BOARD = """async (address) => {
    const answer = await fetch(address, {headers: {'HX-Request': 'true'}});
    document.querySelector('#board').outerHTML = await answer.text();
}"""
LONG_NAMES = ["Bartholomäus", "Konstantinos"]  # 12 letters: the tables' hardest case


def test_the_four_boards_in_the_pseudo_locale_on_a_small_phone(pseudo_live, new_pseudo_phone):
    url, store = pseudo_live.url, pseudo_live.store
    page = new_pseudo_phone(url)

    # Autumn Leaves, in the play order: Ana's 3 fits no pile.
    leaves = store.create_table("autumn_leaves", ["Ana", "Ben", "Cy"], {})
    play(
        store,
        leaves,
        {"type": "Reveal", "cards": [["Ana", 5], ["Ben", 6], ["Cy", 9]]},
        {"type": "Reveal", "cards": [["Ana", 3], ["Ben", 3], ["Cy", 8]]},
    )
    board = open_board(page, f"{url}/t/{leaves.token}")
    check_words_and_width(page, board)
    take_back = page.locator(".al-move .btn-primary")
    first_screen(page, take_back)
    take_back.click()
    prompt = page.locator("#al-prompt")
    page.wait_for_function("() => document.querySelector('#board').dataset.version === '3'")
    in_view(page, prompt)
    assert not unmarked(prompt.inner_text(), PLAYERS)

    # Autumn Ash, refereed: a piece picked, then a lit square: the sizes answer.
    ash = store.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana", "mode": "board"})
    play(store, ash, {"type": "SetUp", "placements": [list(p) for p in OUR_LAYOUT],
                      "first": "Ana"})  # fmt: skip
    board = open_board(page, f"{url}/t/{ash.token}")
    check_words_and_width(page, board)
    piece = page.locator("a.ash-can").first
    first_screen(page, piece)
    piece.click()
    page.locator("a.ash-lit").first.click()
    in_view(page, page.locator("#ash-sizes"))
    check_words_and_width(page, board)

    # The score pad: a score too long to be one is refused, in view.
    pad = store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    play(store, pad, {"type": "AddRound", "scores": [3, 4]})
    board = open_board(page, f"{url}/t/{pad.token}")
    check_words_and_width(page, board)
    add = page.locator("form.round-form button[type=submit]")
    first_screen(page, add)
    page.fill("#score0", "1234567")
    page.fill("#score1", "2")
    add.click()
    in_view(page, page.locator(".notice-error"))
    check_words_and_width(page, board)

    # Solitaire: the Deal button, then a card put where it cannot go.
    deal = store.create_table("solitaire", ["Solo"], {"deal": 20})
    board = open_board(page, f"{url}/t/{deal.token}")
    check_words_and_width(page, board)
    first_screen(page, page.locator(".sol-deal button"))
    card = page.locator(".sol-card[data-pick]").first
    pile = card.get_attribute("data-pick").split(":")[0]
    card.click()
    page.locator(f".sol-pile[data-pile='{pile}'] .sol-drop").click()  # its own pile
    in_view(page, page.locator(".notice-error"))
    check_words_and_width(page, board)

    # Real languages, the same phone (issue 45). Autumn Ash's colour tags, whole
    # in all eight: every piece is on this board. German loads the page; each
    # other language's board is swapped in as a tap's answer is (no new page).
    board_options = {"rainbow": "Ana", "mode": "board", "position": EVERY_PIECE}
    every = store.create_table("autumn_ash", ["Ana", "Ben"], board_options)
    open_board(page, f"{url}/language/de?next=/t/{every.token}")
    for language in LANGUAGES:
        if language != "de":
            page.context.add_cookies([{"name": COOKIE, "value": language, "url": url}])
            page.evaluate(SWAP_BOARD, f"{url}/t/{every.token}/board")
        assert page.locator(".ash-board .ash-tag").count() == 30
        check_nothing_cut(page)

    # The German start page: the join code's example whole beside "Dazukommen".
    page.goto(f"{url}/language/de?next=/")
    check_nothing_cut(page)

    # 12-letter names: the final table in Dutch ("Uitslag"), then the records
    # in French ("Parties", "Gagnées"), where they spilled by 6 to 12 px.
    race = store.create_table("autumn_ash", LONG_NAMES, {"rainbow": LONG_NAMES[0]})
    finish_autumn_ash(store, race)
    open_board(page, f"{url}/language/nl?next=/t/{race.token}")
    check_nothing_cut(page)
    assert not page.evaluate(WIDER)
    page.goto(f"{url}/language/fr?next=/records")
    assert page.locator(".records-table th", has_text=LONG_NAMES[1]).count()
    check_nothing_cut(page)
