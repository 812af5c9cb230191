"""The main action of every screen is on the first screen or docked at its
foot (issue 43), headless Chromium at 390x844 and 360x740.

For every game, at the largest tables the games allow, on a seated phone
and on the shared phone: the control the phone came to tap is wholly
inside the viewport of the unscrolled page, and nothing lies on top of
it (a sticky dock counts where it is drawn). The cases the issue measured
off the screen: six-player Autumn Leaves' Reveal on the shared phone (now
docked as Leaf's and Autumn Ash's buttons are), Continuous Pairs' pad and
folds at 360x740 (the lowest fold docked), Autumn Ash's "Start with our
layout" at 360x740 (the why after the button), and the top card of a
24-card solitaire pile (the pile compressed to fit).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = [pytest.param((390, 844), id="390x844"), pytest.param((360, 740), id="360x740")]
EIGHT = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal"]
SIX = EIGHT[:6]
FOUR = EIGHT[:4]


def play(store, table, *actions: dict[str, Any]) -> None:
    for action in actions:
        store.act(table.token, store.version(table.token), action)


@dataclass(frozen=True)
class Case:
    """One screen: how to set its table up, which phone looks, what it taps."""

    make: Callable[[Any], Any]  # store -> table
    seat: str | None  # None: the shared phone
    actions: tuple[str, ...]  # CSS selectors (Playwright) of the main action(s)
    query: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def scorepad(store):
    table = store.create_table("scorepad", SIX, {"lowest_wins": False})
    play(store, table, {"type": "AddRound", "scores": [1, 2, 3, 4, 5, 6]})
    return table


PAIRS_DEAL = [
    {"type": "Deal", "player": p, "card": c} for p, c in zip(EIGHT, range(3, 11), strict=True)
]


def pairs(store, continuous: bool = False):
    table = store.create_table("pairs", EIGHT, {"continuous": continuous})
    play(store, table, *PAIRS_DEAL, {"type": "Hit", "player": "Ana", "card": 2})
    return table


def venture(store):
    table = store.create_table("venture", EIGHT, {"drafting": False})
    play(store, table, {"type": "EnterSlug", "cards": [1, 2, 3, 4, 5, 6, 7]})
    return table


def autumn_leaves(store, *, placing: bool = False):
    table = store.create_table("autumn_leaves", SIX, {}, seed=3)
    piles = [[p, c] for p, c in zip(SIX, [1, 3, 5, 7, 9, 10], strict=True)]
    play(store, table, {"type": "Reveal", "cards": piles})
    if placing:
        cards = [[p, c] for p, c in zip(SIX, [8, 10, 10, 10, 10, 10], strict=True)]
        play(store, table, {"type": "Reveal", "cards": cards})
    return table


def north_wind(store):
    table = store.create_table("north_wind", ["Ana"], {"difficulty": "hard"})
    play(
        store,
        table,
        {"type": "SetupAnimals", "animals": ["fox", "owl", "frog"]},
        {"type": "EndHumanTurn"},
        {"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"},
    )
    return table


# Mid-game on the board mirror (the phones pictures' position): Rainbow (Ana)
# to move, a three-high stack on D3, so the optional entry fold is offered.
ASH_POSITION = (
    ".,.,.,.,white3/.,cyan1,.,.,yellow1/.,cyan2,.,.,./"
    "orange2,.,cyan3,red3+cyan1+red1,yellow2/.,.,.,.,./yellow3,.,.,yellow3,. rainbow 0-5 standard"
)


def ash_board_play(store):
    options = {"rainbow": "Ana", "mode": "board", "position": ASH_POSITION}
    return store.create_table("autumn_ash", ["Ana", "Ben"], options)


def solitaire(store):
    """Deal 5 a hundred and three moves into a winning line: its third pile
    holds 24 cards, the run of hearts on top."""
    from companion.rules import solitaire as rules
    from companion.rules import solitaire_solver

    found = solitaire_solver.solve(rules.new_game(5), 10)
    assert found.result == solitaire_solver.WON
    table = store.create_table("solitaire", ["Solo"], {"deal": 5})
    play(store, table, *(rules_dict(m) for m in found.moves[:103]))
    assert max(len(p) for p in store.snapshot(table.token).state.piles) >= 24
    return table


def rules_dict(action: Any) -> dict[str, Any]:
    from companion.rules import actions

    return actions.to_dict(action)


CASES = {
    "scorepad": Case(scorepad, None, ("button:has-text('Add the round')",)),
    "pairs-seated": Case(pairs, "Ben", (".pairs-act .pad-grid", ".pairs-folds form >> nth=0")),
    "pairs-shared": Case(pairs, None, (".pairs-act .pad-grid", ".pairs-folds form >> nth=0")),
    "continuous-pairs-seated": Case(
        lambda s: pairs(s, True), "Ben", (".pairs-act .pad-grid", ".pairs-folds form >> nth=0")
    ),
    "continuous-pairs-shared": Case(
        lambda s: pairs(s, True), None, (".pairs-act .pad-grid", ".pairs-folds form >> nth=0")
    ),
    "venture-seated": Case(venture, "Hal", (".pad-form .pad-grid",)),
    "venture-shared": Case(venture, None, (".pad-form .pad-grid",)),
    "autumn-leaves-seated": Case(autumn_leaves, "Fay", (".pad-form .pad-grid",)),
    "autumn-leaves-shared": Case(autumn_leaves, None, (".al-many .form-dock button[type=submit]",)),
    "autumn-leaves-lit-piles": Case(
        lambda s: autumn_leaves(s, placing=True), "Ana", ("button.al-pile-fits",)
    ),
    "leaf-seated": Case(
        lambda s: s.create_table("leaf", FOUR, {}), "Ana", (".form-dock button >> nth=0",)
    ),
    "leaf-shared": Case(
        lambda s: s.create_table("leaf", FOUR, {}), None, (".form-dock button >> nth=0",)
    ),
    "north-wind": Case(north_wind, "Ana", ("button:has-text('The leaf is down')",)),
    "autumn-ash-seated": Case(
        lambda s: s.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"}),
        "Ben",
        (".form-dock button >> nth=0",),
    ),
    "autumn-ash-shared": Case(
        lambda s: s.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"}),
        None,
        (".form-dock button >> nth=0",),
    ),
    "autumn-ash-board-setup": Case(
        lambda s: s.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana", "mode": "board"}),
        None,
        ("button:has-text('Start with our layout')",),
    ),
    "autumn-ash-board-play": Case(ash_board_play, "Ana", (".ash-board",)),
    "solitaire-long-pile": Case(solitaire, "Solo", (".sol-stack.sol-long > :last-child",)),
}


def picture(page, name: str) -> None:
    """A screenshot to look at, when LEAFPILE_SCREENSHOTS names a folder."""
    folder = os.environ.get("LEAFPILE_SCREENSHOTS")
    if folder:
        page.screenshot(path=f"{folder}/main-action-{name}.png")


def wholly_in_view_and_on_top(page, locator) -> None:
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    viewport = page.viewport_size
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"] + 0.5, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5, box
    # Nothing drawn over its middle (the tap dock, the top bar, another dock).
    on_top = locator.evaluate(
        """(el) => {
            const r = el.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return !!hit && (el.contains(hit) || hit.contains(el));
        }"""
    )
    assert on_top, f"something lies on top of {box}"


@pytest.mark.parametrize("name", list(CASES))
def test_the_main_action_is_on_the_first_screen_or_docked(live_server, new_phone, name):
    """Each screen at both sizes, on one phone: the page is loaded again at
    the smaller size (a long pile is fitted when the board is drawn)."""
    case = CASES[name]
    table = case.make(live_server.store)
    page = new_phone(shared=case.seat is None)
    for size in SIZES:
        width, height = size.values[0]
        page.set_viewport_size({"width": width, "height": height})
        if size is SIZES[0]:
            page.goto(f"{live_server.url}/t/{table.token}{case.query}")
            if case.seat is not None and page.locator(".who-names").count():
                take_seat(page, case.seat)
        else:
            page.reload()
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(100)  # a long pile is fitted after the board is drawn
        assert page.evaluate("window.scrollY") == 0, size.id
        picture(page, f"{name}-{width}")
        for selector in case.actions:
            found = page.locator(selector)
            for index in range(found.count()):
                wholly_in_view_and_on_top(page, found.nth(index))
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, size.id


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("continuous", [False, True], ids=["pairs", "continuous-pairs"])
def test_the_docked_fold_hides_nothing_and_reads_on_one_line(
    live_server, new_phone, continuous, size
):
    """Eight players: the lowest fold docks at the foot with its "Or fold"
    heading, never over half of it, its words on one line; scrolled so the
    pad's foot meets the dock, the pad's last row is still whole."""
    table = pairs(live_server.store, continuous)
    page = new_phone(shared=True)
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{live_server.url}/t/{table.token}")
    fold = page.locator(".pairs-folds form >> nth=0").locator("button")
    heading = page.locator(".pairs-fold-heading")
    for scroll in (0, 120):
        page.evaluate(f"window.scrollTo(0, {scroll})")
        page.wait_for_timeout(100)
        picture(page, f"pairs-dock-{int(continuous)}-{width}-{scroll}")
        wholly_in_view_and_on_top(page, heading)
        wholly_in_view_and_on_top(page, fold)
        line = fold.evaluate("(b) => parseFloat(getComputedStyle(b).lineHeight) || 24")
        padding = fold.evaluate(
            "(b) => parseFloat(getComputedStyle(b).paddingTop)"
            " + parseFloat(getComputedStyle(b).paddingBottom)"
            " + parseFloat(getComputedStyle(b).borderTopWidth) * 2"
        )
        box = fold.bounding_box()
        assert box is not None and box["height"] <= max(48, line + padding) + 1, box


@pytest.mark.parametrize("size", SIZES)
def test_the_north_winds_tip_boxes_are_clear_of_the_dock(live_server, new_phone, size):
    """Placing the North Wind's leaf: the first row of tip boxes is on the
    first screen above the docked "The leaf is down", the compare fold keeps
    a gap from the tips' heading, and every box a thumb moves to is scrolled
    clear of the dock."""
    table = north_wind(live_server.store)
    page = new_phone()
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{live_server.url}/t/{table.token}")
    if page.locator(".who-names").count():
        take_seat(page, "Ana")
    page.evaluate("window.scrollTo(0, 0)")
    picture(page, f"north-wind-tips-{width}")
    wholly_in_view_and_on_top(page, page.locator("#tips_red"))
    wholly_in_view_and_on_top(page, page.locator("#tips_orange"))
    summary = page.locator("#nw-compare > summary").bounding_box()
    legend = page.locator("#place-form legend").bounding_box()
    assert summary is not None and legend is not None
    assert legend["y"] - (summary["y"] + summary["height"]) >= 8, (summary, legend)
    for box in page.locator("#place-form .tips-row input").all():
        box.focus()
        page.wait_for_timeout(50)
        wholly_in_view_and_on_top(page, box)


FOLDS = [
    pytest.param(scorepad, None, "Fix an earlier entry", id="scorepad"),
    pytest.param(autumn_leaves, "Fay", "Enter for the others", id="autumn-leaves"),
    pytest.param(north_wind, "Ana", "Not sure? Compare", id="north-wind"),
]


@pytest.mark.parametrize(("make", "seat", "words"), FOLDS)
def test_every_fold_shows_it_opens_and_is_a_thumbs_target(
    live_server, new_phone, make, seat, words
):
    """A fold's summary shows a closed (▸) or open (▾) marker, is drawn in
    the colour of a tap (not of a heading) and is at least 44 px tall."""
    table = make(live_server.store)
    page = new_phone(shared=seat is None)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/t/{table.token}")
    if seat is not None and page.locator(".who-names").count():
        take_seat(page, seat)
    summary = page.locator("details > summary", has_text=words).first
    summary.scroll_into_view_if_needed()

    def marker() -> str:
        return str(summary.evaluate("(s) => getComputedStyle(s, '::before').content"))

    assert marker() == '"▸"'
    box = summary.bounding_box()
    assert box is not None and box["height"] >= 44, box
    colours = summary.evaluate(
        """(s) => [getComputedStyle(s).color,
                   getComputedStyle(s.closest('section, details').parentElement).color]"""
    )
    assert colours[0] != colours[1], colours
    summary.click()
    expect(summary.locator("xpath=..")).to_have_attribute("open", "")
    assert marker() == '"▾"'
