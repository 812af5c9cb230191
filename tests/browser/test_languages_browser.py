"""Phones in the pseudo-locale and in real languages at 360x740 (headless Chromium).

The pseudo-locale (companion/i18n.py: every marked string accented, 40 %
longer and between ⟦ ⟧) shows at once a word that was never marked for
translation, and a layout that breaks when the words grow as German and
French ones do. A Venture table is started and joined in it; on every screen
marked so far (the start page, the new-table form, the join page, the
table's top bar, who-are-you question and bar, undo bar, links, the history) no
word shows outside the markers, nothing is wider than the phone, and the
language switch stays a 44 px target. Then two phones read one table in
German and Polish at once, and five phones in five languages bid at one
Venture table, each seeing its own bid and no other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from babel.dates import format_datetime
from playwright.sync_api import expect

from companion.i18n import PSEUDO, PSEUDO_CLOSE, PSEUDO_OPEN
from tests.conftest import SMALL_PHONE, LiveServer
from tests.end_games import finish_scorepad

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The innermost marked words first: a marked sentence may hold marked words.
MARKED = re.compile(
    re.escape(PSEUDO_OPEN) + "[^" + PSEUDO_OPEN + PSEUDO_CLOSE + "]*" + re.escape(PSEUDO_CLOSE)
)
# Words that are never translated: the brand, the games' names, the players'.
NAMES = {"Leafpile", "Venture", "Ana", "Ben", "Cy", "Friday", "EN"}


@pytest.fixture
def pseudo_server(pseudo_live: LiveServer) -> str:
    return pseudo_live.url


@pytest.fixture
def small_phone(new_phone) -> Callable[..., Any]:
    """Open a 360x740 phone reading ``locale``; the test answers "Who are you?"."""
    return lambda locale="en-US": new_phone(shared=False, viewport=SMALL_PHONE, locale=locale)


def unmarked(text: str, also: set[str] = frozenset()) -> set[str]:
    """The words of a screen's text outside the markers, less names."""
    while MARKED.search(text):
        text = MARKED.sub(" ", text)
    words = set(re.findall(r"[^\W\d_]{2,}", text))
    return words - NAMES - also


def assert_fits(page: Any) -> None:
    """Nothing is wider than the phone, and the switch is a thumb's target."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= SMALL_PHONE["width"], f"the page is {width}px wide at {page.url}"
    box = page.locator(".language-switch > summary").bounding_box()
    assert box and box["width"] >= 44 and box["height"] >= 44
    assert box["x"] + box["width"] <= SMALL_PHONE["width"]


def test_a_venture_table_in_the_pseudo_locale_shows_no_unmarked_word(
    pseudo_server, new_pseudo_phone
):
    page = new_pseudo_phone(pseudo_server)
    assert page.locator("html").get_attribute("lang") == PSEUDO.replace("_", "-")

    # The start page, the games' blurbs included (their names stay).
    assert_fits(page)
    games = {"Pairs", "Autumn", "Leaves", "Ash", "Solitaire", "Score", "pad", "North", "Wind"}
    games |= {"Leaf", "solitaire", "solo", "the", "scoring"}  # "Leaf solo: the North Wind": a name
    assert not unmarked(page.locator("body").inner_text(), games)

    page.goto(f"{pseudo_server}/new/venture")
    assert_fits(page)
    form = page.locator("form.new-table")
    # The game's own options (templates/venture/_options.html) are the board's.
    page.evaluate("document.querySelector('form.new-table fieldset + fieldset')?.remove()")
    assert not unmarked(form.inner_text())
    for number, name in enumerate(("Ana", "Ben", "Cy"), start=1):
        page.fill(f"#player{number}", name)
    # Named here, so the top bar holds no date (a default name is dated in the phone's format).
    page.fill("#title", "Venture Ana")
    page.locator("form.new-table button[type=submit]").click()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))

    # The phone that started the table is its shared phone: its bar says so.
    bar = page.locator(".who-bar summary")
    bar.wait_for()
    assert_fits(page)
    assert not unmarked(bar.inner_text())
    assert not unmarked(page.locator(".topbar").inner_text())
    assert not unmarked(page.locator(".table-links").inner_text())
    assert not unmarked(page.locator(".undo-bar").inner_text())

    # Another phone is asked who it is, then its bar says whom it plays.
    other = new_pseudo_phone(pseudo_server)
    other.goto(page.url)
    ask = other.locator(".who-ask")
    ask.wait_for()
    assert_fits(other)
    assert not unmarked(ask.inner_text())
    other.locator(".who-names button", has_text="Ben").click()
    other.locator(".who-bar summary", has_text="Ben").wait_for()
    assert not unmarked(other.locator(".who-bar summary").inner_text())

    page.locator(".topbar a.btn").click()  # Invite: the join page
    page.wait_for_url(re.compile(r"/join$"))
    assert_fits(page)
    text = page.locator("main").inner_text()
    code = page.locator(".join-code").inner_text()
    addresses = re.sub(r"https?://\S+", " ", text.replace(code, " "))
    assert not unmarked(addresses)

    page.go_back()
    page.locator(".table-links a").nth(1).click()  # the full history
    page.wait_for_url(re.compile(r"/history$"))
    assert not unmarked(page.locator("main").inner_text())


def test_two_phones_read_one_table_in_german_and_polish(pseudo_server, small_phone):
    german, polish = small_phone("de-DE"), small_phone("pl-PL")
    german.goto(f"{pseudo_server}/new/venture")
    assert german.locator("h1").inner_text() == "Neuer Tisch: Venture"
    for number, name in enumerate(("Ana", "Ben", "Cy"), start=1):
        german.fill(f"#player{number}", name)
    german.locator("form.new-table button[type=submit]").click()
    german.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    german.locator(".who-bar summary", has_text="Geteiltes Handy").wait_for()

    polish.goto(german.url)  # the German phone started the table: it is the shared one
    polish.locator("#who-ask-h", has_text="Kim jesteś?").wait_for()
    polish.locator(".who-names button", has_text="Ben").click()
    polish.locator(".who-bar summary", has_text="Jesteś: Ben").wait_for()
    assert_fits(polish)

    german.locator(".who-bar summary").click()  # Ändern
    german.locator(".who-names button", has_text="Ana").click()
    german.locator(".who-bar summary", has_text="Du bist Ana").wait_for()
    assert german.locator("html").get_attribute("lang") == "de"
    assert polish.locator("html").get_attribute("lang") == "pl"
    # The Polish phone switches to French in two taps; the German phone stays German.
    polish.locator(".language-switch > summary").click()
    polish.locator(".language-switch a[lang=fr]").click()
    polish.locator(".who-bar summary", has_text="Vous êtes Ben").wait_for()
    german.reload()
    german.locator(".who-bar summary", has_text="Du bist Ana").wait_for()
    assert_fits(german)


FIVE = {  # player: (browser language, the page's lang, "You are ..." in it)
    "Ana": ("en-US", "en", "You are Ana"),
    "Ben": ("de-DE", "de", "Du bist Ben"),
    "Cy": ("fr-FR", "fr", "Vous êtes Cy"),
    "Dan": ("pl-PL", "pl", "Jesteś: Dan"),
    "Eva": ("pt-BR", "pt-BR", "Você é Eva"),
}


def test_five_phones_at_one_venture_table_each_in_its_language_keep_their_bids(
    pseudo_server, small_phone
):
    """A club night: five phones, five languages, one table. Each reads its
    own language, and no phone sees a bid another phone made."""
    page = small_phone()
    page.goto(f"{pseudo_server}/new/venture")
    for number, name in enumerate(FIVE, start=1):
        page.fill(f"#player{number}", name)
    page.fill("#title", "Venture Ana")
    page.locator("form.new-table button[type=submit]").click()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    url = page.url
    for card in (10, 10, 9, 9, 8):  # the slug, on the phone that started the table
        page.get_by_role("button", name=f"Slug card {card}", exact=True).click()
    page.get_by_role("button", name=re.compile(r"^Turn up the slug: ")).click()
    page.locator(".venture-round").wait_for()

    phones = {}
    for name, (locale, lang, you_are) in FIVE.items():
        phone = small_phone(locale)
        phone.goto(url)
        phone.locator(".who-names button", has_text=name).first.click()
        phone.locator(".who-bar summary", has_text=you_are).wait_for()
        assert phone.locator("html").get_attribute("lang") == lang
        assert_fits(phone)
        phones[name] = phone

    for name, card in zip(["Ana", "Ben", "Cy", "Dan"], [7, 6, 5, 4], strict=True):
        # The pad's key by its value: its name is in the phone's language.
        phones[name].locator(f"button.pad-key[name=card][value='{card}']").first.click()
        phones[name].locator(".venture-bids .status").wait_for()
    # Eva has not bid: the round is open, and each phone shows its own bid only.
    own = {"Ana": "7", "Ben": "6", "Cy": "5", "Dan": "4"}
    for name, phone in phones.items():
        phone.reload()
        phone.locator(".who-bar summary", has_text=FIVE[name][2]).wait_for()
        cards = phone.locator(".venture-bids .card")
        shown = [cards.nth(i).evaluate("(el) => el.outerHTML") for i in range(cards.count())]
        assert len(shown) == (1 if name in own else 0), (name, shown)
        assert all(f">{own[name]}</span>" in card for card in shown), shown
        text = phone.locator(".venture-bids").inner_text()
        for other, card in zip(["Ana", "Ben", "Cy", "Dan"], ["7", "6", "5", "4"], strict=True):
            if other != name:
                assert f"{other}: {card}" not in text and f"bid a {card}" not in text


def _start_scorepad(page: Any, url: str) -> str:
    """A two-player score pad started on ``page`` (its shared phone); its token."""
    page.goto(f"{url}/new/scorepad")
    page.fill("#player1", "Ana")
    page.fill("#player2", "Ben")
    page.fill("#title", "Friday")
    page.locator("form.new-table button[type=submit]").click()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    page.locator("#score0").wait_for()
    return page.url.rsplit("/", 1)[-1]


def _add_round(page: Any, *scores: int) -> None:
    for column, points in enumerate(scores):
        page.locator(f"#score{column}").fill(str(points))
    page.locator("form:has(#score0) button[type=submit]").click()


def test_the_end_screen_records_and_the_scripts_notes_in_the_pseudo_locale(
    pseudo_live, new_pseudo_phone
):
    """The end screen, records pages, the offline dock and the wake lock's note:
    every word marked, nothing wider than a 360 px phone."""
    page = new_pseudo_phone(pseudo_live.url)
    token = _start_scorepad(page, pseudo_live.url)
    expect(page.locator("#awake-say")).to_contain_text(PSEUDO_OPEN)  # "On: ... stays awake"
    assert not unmarked(page.locator("#awake-say").inner_text())

    # Offline, a round waits in the dock; back online it is sent and said so.
    page.context.set_offline(True)
    _add_round(page, 3, 5)
    dock = page.locator("#tap-dock")
    expect(dock.locator(".tap-dock-pending")).to_be_visible()
    assert not unmarked(dock.inner_text())
    page.context.set_offline(False)
    sent = dock.locator(".tap-dock-sent")  # "Sent when the table was back: ..."
    expect(sent).to_be_visible(timeout=15_000)
    assert not unmarked(sent.inner_text())
    assert pseudo_live.store.version(token) == 1  # entered once

    finish_scorepad(pseudo_live.store, pseudo_live.store.table(token), rows=[[4, 1]])
    end = page.locator("section.end")
    end.wait_for(timeout=15_000)  # pushed to the phone
    assert_fits(page)
    assert not unmarked(end.inner_text(), {"Friday"})
    chart = page.locator("section.end figure.chart > svg")
    assert not unmarked(chart.get_attribute("aria-label") or "")
    assert not unmarked(" ".join(chart.locator("text").all_text_contents()))
    expect(page.locator("#awake-say")).not_to_contain_text("stays awake")
    assert not unmarked(page.locator("#awake-say").inner_text())  # the game is over

    month = {format_datetime(datetime.now(UTC), "MMM", locale="en")}  # a date's own word
    page.goto(f"{pseudo_live.url}/records")
    assert_fits(page)
    assert not unmarked(page.locator("main").inner_text(), {"Score", "pad", "Leafpile"})
    page.locator(".records-table a.tap-link", has_text="Ana").first.click()
    page.wait_for_url(re.compile(r"/records/player/"))
    assert_fits(page)
    assert not unmarked(page.locator("main").inner_text(), {"Score", "pad", "Friday"} | month)
    page.goto(f"{pseudo_live.url}/records/operator")
    assert_fits(page)
    assert not unmarked(page.locator("main").inner_text(), {"LEAFPILE_OPERATOR_TOKEN"})


def test_a_polish_phone_offline_counts_its_waiting_taps_in_polish(pseudo_live, small_phone):
    """The scripts' words in another language, plural forms included."""
    page = small_phone("pl-PL")
    _start_scorepad(page, pseudo_live.url)
    expect(page.locator("#awake-say")).to_have_text(
        "Włączone: ten ekran nie gaśnie, dopóki stół jest otwarty."
    )
    page.context.set_offline(True)
    _add_round(page, 1, 2)
    waiting = page.locator(".tap-dock-pending")
    expect(waiting).to_contain_text("Jeszcze nie wysłano — wyślę, gdy stół wróci. Czeka: ")
    expect(waiting.locator("button")).to_have_text("Anuluj")
    _add_round(page, 3, 4)
    expect(waiting).to_contain_text("2 stuknięcia jeszcze niewysłane — wyślę, gdy stół wróci.")
    expect(waiting).to_contain_text("Po kolei: ")
    page.context.set_offline(False)
    expect(page.locator(".tap-dock-sent")).to_contain_text(
        "Wysłane po powrocie stołu: ", timeout=15_000
    )
    expect(waiting).to_have_count(0)
