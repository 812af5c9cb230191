"""Leaf and the North Wind in the pseudo-locale on a 360x740 phone (issue 45).

The pseudo-locale (companion/i18n.py) accents every marked string, makes it
40 % longer and puts it between ⟦ ⟧: a word of these boards outside the
markers was never marked, and a board wider than the phone breaks when the
words grow as German ones do. One phone walks a North Wind game through its
steps (set up, the human's turn, the draw, the placement, each colour's
action, the season, a Frost tie, the final count, the achievements and
their page) and a
Leaf score sheet (a refused count, the final breakdown); on each: no word
outside the markers (texts and the labels a screen reader says), nothing
wider than the phone, the step's main action on the first screen, and after
a tap the answer in view. The end screen's frame is helper "words"'s and is
checked by its own tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from companion.i18n import PSEUDO_CLOSE, PSEUDO_OPEN
from tests.conftest import SMALL_PHONE as PHONE
from tests.conftest import serving

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Innermost first: a sentence's marked values (a leaf's name) sit inside it.
MARKED = re.compile(re.escape(PSEUDO_OPEN) + r"[^⟦⟧]*" + re.escape(PSEUDO_CLOSE))
NAMES = {"Ana", "Ben"}
EMPTY_MAT = [None, None, None, None, None]
# The game's own words on the board: everything but the end screen's frame.
GAME_TEXT = """() => {
    const parts = Array.from(document.querySelectorAll('#board > :not(.end):not(.poller)'));
    const labels = Array.from(document.querySelectorAll(
        '#board > :not(.end) :is([aria-label], [title], [placeholder], [data-why])'))
        .flatMap(el => ['aria-label', 'title', 'placeholder', 'data-why']
            .map(name => el.getAttribute(name) || ''));
    return parts.map(el => el.innerText).concat(labels).join('\\n');
}"""


@pytest.fixture(scope="module")
def pseudo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """One server for the module: the pseudo-locale's catalog is made once."""
    with serving(tmp_path_factory.mktemp("pseudo-leaf"), pseudo=True) as live:
        yield live.url, live.store


@pytest.fixture
def page(new_pseudo_phone, pseudo) -> Any:
    url, _store = pseudo
    return new_pseudo_phone(url)


def unmarked(text: str) -> set[str]:
    """The words outside the markers, less the players' names."""
    while True:
        stripped = MARKED.sub(" ", text)
        if stripped == text:
            break
        text = stripped
    return set(re.findall(r"[^\W\d_]{2,}", text)) - NAMES


def check_board(page: Any, step: str, main: str | None) -> None:
    """No unmarked word, nothing wider than the phone, the main action
    (a selector) wholly on the first screen."""
    page.locator("#board").wait_for()
    assert not unmarked(page.evaluate(GAME_TEXT)), step
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{step}: the page is {width}px wide"
    if main is not None:
        page.evaluate("window.scrollTo(0, 0)")
        box = page.locator(main).first.bounding_box()
        assert box is not None, f"{step}: no {main}"
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (step, main, box)


def in_view(page: Any, selector: str) -> None:
    """The answer's top line is on the screen, below the sticky top bar."""
    answer = page.locator(selector).first
    answer.wait_for()
    page.wait_for_function(
        """(el) => {
            const bar = document.querySelector('.topbar').getBoundingClientRect().bottom;
            const box = el.getBoundingClientRect();
            return box.top >= bar - 1 && box.top + Math.min(box.height, 40) <= innerHeight;
        }""",
        arg=answer.element_handle(),
        timeout=5_000,
    )
    assert not unmarked(answer.inner_text()), selector


NW_STEPS: list[tuple[str, dict[str, Any] | None, str]] = [
    # (the step, the action entered before it, its main action)
    ("draw", {"type": "EndHumanTurn"}, "#draw-form .btn-primary"),
    ("place", {"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"},
     "button[form=place-form]"),
    ("red", {"type": "Place", "tips": {"red": 1, "orange": 1, "brown": 1}},
     ".nw-now .tile-choice"),
    ("orange", {"type": "Red", "outcome": "baby"}, "#orange-form .btn-primary"),
    ("brown", {"type": "Orange", "mat": EMPTY_MAT, "drawn": ["raven", False]},
     "#brown-form .btn-primary"),
    ("season", {"type": "Brown", "move": "up", "fork": True, "acorns": 1, "sun": 2,
                "leaf_cards": 0, "animals": 0}, ".nw-now .pad-key"),
    # A tie at the Frost: its first step is entering the mat (the types' buttons follow it).
    ("frost tie", {"type": "Season", "acorns": 1, "crossed": "frost"}, "#frost-form select"),
]  # fmt: skip


def test_the_north_wind_in_the_pseudo_locale(pseudo, page):
    url, store = pseudo
    # Named by a name: a table's default name is stored English (docs/languages.md).
    table = store.create_table("north_wind", ["Ana"], {"difficulty": "hard"}, title="Ana")
    board = f"{url}/t/{table.token}"
    page.goto(board)
    check_board(page, "setup", ".nw-now .btn-primary")
    for number, animal in enumerate(("fox", "owl", "frog"), start=1):
        page.select_option(f"#a{number}", animal)
    page.locator(".nw-now .btn-primary").click()  # a tap: its answer leads, in view
    page.locator(".nw-now .nw-last").wait_for()
    in_view(page, ".nw-now .nw-last")
    check_board(page, "the human's turn", ".nw-now .btn-primary")

    for step, action, main in NW_STEPS:
        store.act(table.token, store.version(table.token), action)
        page.goto(board)
        check_board(page, step, main)

    # The Frost tie (fox, owl, frog: one each), then Winter and the final count.
    for action in (
        {"type": "Hibernate", "animal": "fox", "mat": EMPTY_MAT},
        *({"type": "PileEmptied", "leaf": leaf} for leaf in ("ginkgo", "sassafras", "sweetgum")),
        {"type": "EndHumanTurn"},
        {"type": "Draw", "leaf": "tulip-poplar", "colour": "yellow", "arrow": "top-left"},
        {"type": "Place", "tips": {"yellow": 1, "green": 1}},
        {"type": "Done"},
        {"type": "Done"},
    ):
        store.act(table.token, store.version(table.token), action)
    page.goto(board)
    check_board(page, "the last Frost", "#frost-form select")
    store.act(table.token, store.version(table.token), {"type": "Hibernate", "animal": "owl",
                                                        "mat": EMPTY_MAT})  # fmt: skip
    page.goto(board)
    check_board(page, "final scoring", "#final-form .btn-primary")
    tally = {"den": {"fox": 4, "owl": 3}, "mushroom_groups": [3, 3], "tree": 9, "sun": 2,
             "leaf_cards": 1, "acorn_tokens": 20, "minus_three": 0, "forest": 0}  # fmt: skip
    store.act(table.token, store.version(table.token),
              {"type": "FinalScore", "human": tally, "north_wind_groups": []})  # fmt: skip
    page.goto(board)
    check_board(page, "the achievements", None)  # below the end screen, which leads
    page.locator("#ach-form input[value='sun-2']").check()
    page.locator("#ach-form .btn-primary").click()
    in_view(page, "#nw-ach-done")
    check_board(page, "achievements ticked", None)

    page.goto(f"{url}/achievements")  # every achievement, and the one just ticked
    assert not unmarked(page.locator("main").inner_text())
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_leaf_sheet_in_the_pseudo_locale(pseudo, page):
    url, store = pseudo
    table = store.create_table("leaf", ["Ana", "Ben"], {})
    page.goto(f"{url}/t/{table.token}")
    page.locator(".who-names button", has_text="Ana").first.click()
    count = page.locator("#tally-1")
    count.wait_for()
    check_board(page, "the count", "#tally-1 .form-dock .btn-primary")
    page.fill("#p1-groups", "x")  # not a group size: refused, in view
    page.locator("#tally-1 .form-dock .btn-primary").click()
    in_view(page, "#board > .notice-error")
    check_board(page, "a refused count", None)
    for player in ("Ana", "Ben"):
        store.act(table.token, store.version(table.token), {
            "type": "EnterTally", "player": player,
            "tally": {"den": {"fox": 2}, "tree": 3 if player == "Ana" else 1, "sun": 1},
        })  # fmt: skip
    page.goto(f"{url}/t/{table.token}")
    check_board(page, "the breakdown", None)
