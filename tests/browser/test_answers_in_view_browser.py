"""Every tap's answer lands in view, and a reveal's outcome is what every
phone sees first (issue 43), headless Chromium at 390x844 and 360x740.

The board is swapped whole (htmx outerHTML) and the page stays where it
was, so a tap made low on a long page left an answer drawn higher up above
the screen. Four taps lost their answer: the North Wind's *Which spot?* and
*Score the game*, ticking achievements, and *Finish the game* on the score
pad. The Venture reveal sat more than a screen below the next round's pad.
The end screen and a reveal are brought into view on every phone
(in_view.js); other answers are marked data-answer for app.js.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.end_games import act

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = [pytest.param((390, 844), id="390x844"), pytest.param((360, 740), id="360x740")]
EMPTY_MAT = [None, None, None, None, None]


def phone(new_phone, size, **kwargs):
    page = new_phone(**kwargs)
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    return page


def in_view(page, locator) -> None:
    """The answer's top line is on the screen, below the sticky top bar,
    and the page is not at some other place it was thrown to."""
    expect(locator).to_be_visible()
    page.wait_for_function(
        """(el) => {
            const bar = document.querySelector('.topbar').getBoundingClientRect().bottom;
            const box = el.getBoundingClientRect();
            return box.top >= bar - 1 && box.top + Math.min(box.height, 40) <= innerHeight;
        }""",
        arg=locator.element_handle(),
        timeout=5_000,
    )
    # Still there a moment later: no late jump (a smooth scroll, an anchor).
    page.wait_for_timeout(400)
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    assert box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= height, (
        box,
        page.evaluate("scrollY"),
    )


def bottom_of_page(page) -> None:
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")


# --- the North Wind ------------------------------------------------------------------


def north_wind(store, *, to_scoring: bool):
    table = store.create_table("north_wind", ["Ana"], {"difficulty": "hard"})
    steps = [
        {"type": "SetupAnimals", "animals": ["fox", "owl", "frog"]},
        {"type": "EndHumanTurn"},
        {"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"},
    ]
    if to_scoring:
        steps += [
            {"type": "Place", "tips": {"red": 1, "orange": 1, "brown": 1}},
            {"type": "Red", "outcome": "baby"},
            {"type": "Orange", "mat": EMPTY_MAT, "drawn": ["raven", False]},
            {
                "type": "Brown",
                "move": "up",
                "fork": False,
                "acorns": 0,
                "sun": 1,
                "leaf_cards": 0,
                "animals": 0,
            },  # fmt: skip
            {"type": "Season", "acorns": 1, "crossed": "frost"},
            {"type": "Hibernate", "animal": "fox", "mat": EMPTY_MAT},
        ]
        for _ in range(2):
            steps += [
                {"type": "EndHumanTurn"},
                {"type": "Draw", "leaf": "ginkgo", "colour": "yellow", "arrow": "bottom-right"},
                {"type": "Place", "tips": {"yellow": 2}},
                {"type": "Done"},
                {"type": "Done"},
            ]
        steps += [
            {"type": "Season", "acorns": 1, "crossed": "winter"},
            {"type": "Hibernate", "animal": "frog", "mat": []},
        ]
    for step in steps:
        act(store, table, step)
    return table


def fill_final_count(page, acorns: int) -> None:
    page.locator("#h_groups").fill("3 2")
    page.locator("#h_tree").fill("4")
    page.locator("#h_acorns").fill(str(acorns))
    if page.locator("#nw_groups").count():
        page.locator("#nw_groups").fill("1")


@pytest.mark.parametrize("size", SIZES)
def test_which_spot_answers_beside_the_spots(live_server, new_phone, size):
    table = north_wind(live_server.store, to_scoring=False)
    page = phone(new_phone, size)
    page.goto(f"{live_server.url}/t/{table.token}")
    page.locator("#nw-compare > summary").click()
    for spot, tips in ((0, "2"), (1, "1")):
        page.locator(f"#c{spot}_orange").fill(tips)
    which = page.get_by_role("button", name="Which spot?")
    which.scroll_into_view_if_needed()
    # No scroll anchoring on the board: none of its nodes survives a swap.
    assert page.locator("#board").evaluate("(b) => getComputedStyle(b).overflowAnchor") == "none"
    which.click()
    answer = page.locator("#nw-compare .notice")
    expect(answer).to_contain_text("The North Wind takes spot 1")
    in_view(page, answer)


@pytest.mark.parametrize("size", SIZES)
def test_score_the_game_shows_who_won_in_view(live_server, new_phone, size):
    table = north_wind(live_server.store, to_scoring=True)
    page = phone(new_phone, size)
    page.goto(f"{live_server.url}/t/{table.token}")
    expect(page.locator(".nw-now")).to_contain_text("Final scoring")
    fill_final_count(page, acorns=30)
    page.get_by_role("button", name="Score the game").click()
    in_view(page, page.locator(".end-headline"))
    expect(page.locator("#announcer")).to_contain_text("North Wind")


@pytest.mark.parametrize("size", SIZES)
def test_ticking_achievements_shows_them_in_view(live_server, new_phone, size):
    table = north_wind(live_server.store, to_scoring=True)
    page = phone(new_phone, size)
    page.goto(f"{live_server.url}/t/{table.token}")
    fill_final_count(page, acorns=30)
    page.get_by_role("button", name="Score the game").click()
    expect(page.locator(".end-headline")).to_contain_text("beat the North Wind")
    tick = page.get_by_role("button", name="Tick them")
    tick.scroll_into_view_if_needed()
    page.locator(".ach-group label.choice:not([data-why])").nth(1).click()
    bottom_of_page(page)
    tick.click()
    ticked = page.locator("#nw-ach-done")
    expect(ticked).to_contain_text("Ticked for this win")
    in_view(page, ticked)


# --- the score pad --------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_finish_the_game_shows_the_final_table_in_view(live_server, new_phone, size):
    store = live_server.store
    players = ["Ana", "Ben", "Cleo", "Dev"]
    table = store.create_table("scorepad", players, {"lowest_wins": False})
    for r in range(6):
        act(store, table, {"type": "AddRound", "scores": [r + i for i in range(len(players))]})
    page = phone(new_phone, size)
    page.goto(f"{live_server.url}/t/{table.token}")
    finish = page.get_by_role("button", name="Finish the game: the totals stand")
    finish.scroll_into_view_if_needed()
    finish.click()
    in_view(page, page.locator(".end-headline"))
    expect(page.locator("#announcer")).to_contain_text("wins")


# --- a reveal, on every phone ---------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_the_venture_reveal_is_what_every_phone_sees_first(live_server, new_phone, size):
    store = live_server.store
    players = ["Ana", "Ben", "Cy", "Dee", "Eve"]
    table = store.create_table("venture", players, {"drafting": False})
    act(store, table, {"type": "EnterSlug", "cards": [2, 5, 7, 9, 9]})
    for round_bids in ([3, 4, 6, 8, 10], [1, 2, 3, 4, 5]):
        for player, card in zip(players, round_bids, strict=True):
            act(store, table, {"type": "Bid", "player": player, "card": card})
    for player, card in zip(players[1:], [6, 8, 9, 10], strict=True):
        act(store, table, {"type": "Bid", "player": player, "card": card})
    url = f"{live_server.url}/t/{table.token}"
    ana = phone(new_phone, size, shared=False)
    ana.goto(url)
    ana.get_by_role("button", name="Ana", exact=True).click()
    watcher = phone(new_phone, size, color_scheme="dark")  # the shared phone
    watcher.goto(url)
    for page in (ana, watcher):
        page.evaluate("window.scrollTo(0, 0)")
        expect(page.locator("#venture-reveal-title")).to_have_text("Round 2 revealed")
    ana.get_by_role("button", name="Your bid, Ana: 7").click()
    for page in (ana, watcher):
        title = page.locator("#venture-reveal-title")
        expect(title).to_have_text("Round 3 revealed")
        in_view(page, title)
        # First: nothing of the next round above it on the screen.
        assert title.bounding_box()["y"] < 200


@pytest.mark.parametrize("size", SIZES)
def test_after_an_autumn_leaves_reveal_every_phone_sees_whose_turn_it_is(
    live_server, new_phone, size
):
    store = live_server.store
    players = ["Ana", "Ben", "Cy", "Dee", "Eve", "Fay"]  # six: the longest reveal pad
    table = store.create_table("autumn_leaves", players, {})
    first = [[p, c] for p, c in zip(players, [2, 4, 5, 6, 7, 7], strict=True)]
    act(store, table, {"type": "Reveal", "cards": first})
    url = f"{live_server.url}/t/{table.token}"
    shared = phone(new_phone, size)  # the phone passed around: enters every card
    watcher = phone(new_phone, size, color_scheme="dark")
    shared.goto(url)
    watcher.goto(url)
    expect(shared.locator("#al-reveal-h")).to_have_text("Round 2: reveal")
    for player, card in zip(players, [3, 8, 9, 9, 10, 10], strict=True):
        shared.get_by_label(f"{player}: reveals {card}", exact=True).check()
    reveal = shared.get_by_role("button", name="Reveal", exact=True)
    reveal.scroll_into_view_if_needed()
    reveal.click()
    for page in (shared, watcher):
        prompt = page.locator("#al-prompt")
        expect(prompt).to_contain_text("must go on a lit pile")
        in_view(page, prompt)
