"""A tap that does nothing says why (issue 20), in headless Chromium at 390x844.

Burnt ash, the other side's piece and an empty square on the Autumn Ash
board, a solitaire card that cannot move, an Autumn Leaves pile that is not
lit, a greyed-out key and a refused Undo: each tap shows its reason on
screen (the dock at the foot of the screen) and reads it out (the live
region), and nothing is entered.
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from companion.rules import actions, solitaire
from companion.rules.solitaire_solver import solve
from tests.conftest import take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEAL = 20
EIGHT = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal"]


def seat(page, url: str, name: str) -> None:
    page.goto(url)
    if page.locator(".who-names").count():
        take_seat(page, name)


def says_why(page, words: str) -> None:
    """The reason is on screen and in the live region."""
    why = page.locator(".tap-dock-why")
    expect(why).to_contain_text(words)
    expect(why).to_be_in_viewport(ratio=1)
    expect(page.locator("#announcer")).to_contain_text(words)
    if os.environ.get("LEAFPILE_SCREENSHOTS"):  # a picture to look at
        name = os.environ.get("PYTEST_CURRENT_TEST", "shot").split("::")[-1].split(" ")[0]
        page.screenshot(path=f"{os.environ['LEAFPILE_SCREENSHOTS']}/{name}-{len(words)}.png")
    why.get_by_role("button", name="OK").click()
    expect(why).to_have_count(0)


# Rainbow (Ana) to move; a burnt-ash black drone on A6, Xeno's white queen on E6.
ASH = (
    "black2,.,.,.,white3/.,cyan1,.,.,yellow1/.,cyan2,.,.,./"
    "orange2,.,cyan3,red3+cyan1+red1,yellow2/.,.,.,.,./yellow3,.,.,yellow3,. rainbow 0-5 standard"
)


def test_idle_squares_of_the_ash_board_say_why_a_tap_does_nothing(live_server, new_phone):
    store = live_server.store
    options = {"rainbow": "Ana", "mode": "board", "position": ASH}
    table = store.create_table("autumn_ash", ["Ana", "Ben"], options, "Ash board")
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    square = lambda name: page.locator(f'.ash-board [aria-label^="{name}:"]')  # noqa: E731
    square("A6").tap()
    says_why(page, "is burnt ash: it never moves again.")
    square("E6").tap()
    says_why(page, "is Xeno's: it is Rainbow's turn.")
    square("C2").tap()
    says_why(page, "C2 is empty: tap one of your pieces first")
    # With a piece picked, a square out of its reach says so too.
    square("A1").tap()
    page.locator('.ash-sel[aria-label^="A1:"]').wait_for()
    square("E1").tap()
    says_why(page, "a piece moves one or two orthogonal steps.")
    assert "(X7)" not in page.locator("#announcer").inner_text()  # no ruling ids
    # On the other player's turn the board only follows: a tap says whose turn it is.
    ben = new_phone(color_scheme="dark")
    seat(ben, f"{live_server.url}/t/{table.token}", "Ben")
    ben.locator('.ash-board [aria-label^="A1:"]').tap()
    says_why(ben, "It is Ana's turn: this phone is Ben's")
    assert store.version(table.token) == 0


def test_a_solitaire_card_that_cannot_move_says_why(live_server, new_phone):
    """Deal 20, played along a winning line until a face-up card is stuck
    under cards that are not its run."""
    store = live_server.store
    table = store.create_table("solitaire", ["Solo"], {"deal": DEAL}, "Solitaire #20")
    found = solve(solitaire.new_game(DEAL), budget=10, max_nodes=20_000)
    for move in found.moves:
        state = store.snapshot(table.token).state
        if any(
            cv.face_up and cv.pick is None
            for i in range(state.layout.piles)
            for cv in state.pile_view(i)
        ):
            break
        store.act(table.token, store.version(table.token), actions.to_dict(move))
    before = store.version(table.token)
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    page.locator(".sol-fixed").first.tap(position={"x": 20, "y": 4})  # its uncovered edge
    says_why(page, "cannot move: the cards on it are not a run of its suit")
    page.locator(".sol-back").first.tap(position={"x": 20, "y": 4})
    says_why(page, "A face-down card cannot move until it is turned up.")
    assert store.version(table.token) == before


def test_an_autumn_leaves_pile_that_is_not_lit_says_why(live_server, new_phone):
    six = EIGHT[:6]
    store = live_server.store
    table = store.create_table("autumn_leaves", six, {}, seed=3)
    for cards in ([1, 3, 5, 7, 9, 10], [8, 10, 10, 10, 10, 10]):
        store.act(
            table.token,
            store.version(table.token),
            {"type": "Reveal", "cards": [[p, c] for p, c in zip(six, cards, strict=True)]},
        )
    before = store.version(table.token)
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    expect(page.locator("button.al-pile-fits")).to_have_count(2)
    page.locator("div.al-pile", has_text="Ben").tap()
    says_why(page, "Ben's pile is not lit: its top card is 3, and Ana's 8 goes only on")
    assert store.version(table.token) == before


def test_a_greyed_out_key_says_why_when_tapped(live_server, new_phone):
    store = live_server.store
    table = store.create_table("venture", EIGHT, {"drafting": False})
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [1, 2, 3, 4, 5, 6, 7]})
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Hal")
    key = page.get_by_role("button", name="Your bid, Hal: 1", exact=True)
    expect(key).to_be_disabled()
    key.tap(force=True)  # a thumb on the grey key
    says_why(page, "Every 1 is already face up: there is no 1 left to bid.")
    assert store.version(table.token) == 1


def test_a_refused_undo_says_why_when_tapped(live_server, new_phone):
    store = live_server.store
    table = store.create_table("venture", ["Ana", "Ben", "Cleo"], {"drafting": False})
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [1, 2, 3, 4]})
    ben = new_phone()
    seat(ben, f"{live_server.url}/t/{table.token}", "Ben")
    ben.get_by_role("button", name="Your bid, Ben: 9", exact=True).click()
    expect(ben.locator(".venture-bids .status")).to_contain_text("You have bid")
    ana = new_phone()
    seat(ana, f"{live_server.url}/t/{table.token}", "Ana")
    undo = ana.get_by_role("button", name="↶ Undo")
    expect(undo).to_be_disabled()
    undo.tap(force=True)
    says_why(ana, "only the phone that entered it can take it back")
    ana.get_by_role("button", name="Redo ↷").tap(force=True)
    says_why(ana, "Nothing to redo")
    assert store.version(table.token) == 2
