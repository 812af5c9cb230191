"""Two phones referee an Autumn Ash game on the board mirror (real Chromium, 390x844).

The game is seeded with a position taken from the text's scoring example (our
reconstruction, see docs/autumn-ash-referee.md) plus a few pieces, Xeno already at 5:
Ana (Rainbow) is refused a move blocked head on, caps a queen (undoing it once);
Ben (Xeno) then bags two rows at once, the stack on D3 drops, and he reaches 21.
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import assert_thumb_sized

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("LEAFPILE_SCREENSHOTS")  # a folder to save screenshots in, if set

SEED = (
    ".,.,.,.,white3/"  # row 6: a white queen on the corner E6
    ".,cyan1,.,.,yellow1/"  # row 5
    ".,cyan2,.,.,./"  # row 4
    "orange2,.,cyan3,red3+cyan1+red1,yellow2/"  # row 3: the stack on D3, bottom first
    ".,.,.,.,./"
    "yellow3,.,.,yellow3,. rainbow 0-5 standard"  # row 1; Rainbow to move, Xeno has 5
)


def square(page, name: str):
    return page.locator(f'.ash-board [aria-label^="{name}:"]')


def lit(page) -> set[str]:
    return {a.get_attribute("aria-label").split(":")[0] for a in page.locator(".ash-lit").all()}


def select(page, name: str) -> None:
    """Tap a piece and wait until the board shows it selected."""
    square(page, name).tap()
    page.locator(f'.ash-sel[aria-label^="{name}:"]').wait_for()


def choose(page, name: str):
    """Tap a lit square and wait for the size picker."""
    square(page, name).tap()
    picker = page.locator("#ash-sizes")
    picker.wait_for()
    return picker


def take_seat(page, name: str) -> None:
    page.locator(".who-bar summary").tap()  # "Change" who this phone is
    page.locator(".who-names").get_by_role("button", name=name, exact=True).tap()
    page.locator(".who-bar summary", has_text=f"You are {name}").wait_for()


def test_two_phones_play_the_board_to_21(live_server, new_phone):
    store = live_server.store
    options = {"rainbow": "Ana", "mode": "board", "position": SEED}
    table = store.create_table("autumn_ash", ["Ana", "Ben"], options, "Ash board")
    url = f"{live_server.url}/t/{table.token}"
    ana, ben = new_phone("light"), new_phone("dark")
    for page, name in ((ana, "Ana"), (ben, "Ben")):
        page.goto(url)
        take_seat(page, name)
    spectator = new_phone("light")
    spectator.goto(f"{live_server.url}/v/{table.view_token}")
    spectator.get_by_text("Ana (Rainbow) to move.").wait_for()
    ben.get_by_text("Ana's turn. This phone is Ben's: the board follows live.").wait_for()
    assert ben.locator("a.ash-sq").count() == 0  # nothing to tap on the other player's turn

    # A blocked move: the queen on A1 may not step to A2 head on towards the drone on A3.
    select(ana, "A1")
    assert lit(ana) == {"B1", "B2", "C1"}
    square(ana, "A2").tap()
    ana.get_by_text(
        "Not there: the yellow queen cannot enter A2: the orange drone at A3 blocks it head on."
    ).wait_for()
    ana.get_by_role("link", name="Why not? Say why the dark squares are dark").tap()
    reasons = ana.locator(".ash-reasons")
    reasons.wait_for()
    assert reasons.inner_text().splitlines() == [
        "A2: The yellow queen cannot enter A2: the orange drone at A3 blocks it head on.",
        "A3: The yellow queen cannot enter A2: the orange drone at A3 blocks it head on.",
    ]
    assert store.version(table.token) == 0  # nothing was entered

    # A capping move: the pawn on E5 caps the white queen on E6, only as a red pawn (X10).
    select(ana, "E5")
    picker = choose(ana, "E6")
    assert picker.get_by_role(
        "button", name="a red queen: a capping piece becomes a pawn"
    ).is_disabled()
    assert picker.get_by_role(
        "button", name="a red drone: a capping piece becomes a pawn"
    ).is_disabled()
    picker.get_by_role("button", name="a red pawn", exact=True).tap()
    ana.locator("#ash-last").get_by_text("capping the white queen").wait_for()
    assert square(ana, "E6").get_attribute("aria-label") == "E6: red pawn, on top of white queen"
    # Taken back and made again: undo restores the board exactly.
    ana.get_by_role("button", name="↶ Undo").tap()
    square(ana, "E6").and_(ana.locator('[aria-label="E6: white queen"]')).wait_for()
    select(ana, "E5")
    choose(ana, "E6").get_by_role("button", name="a red pawn", exact=True).tap()
    ana.locator("#ash-last").wait_for()

    # Ben's phone follows and now has the move: two rows at once, 16 points, 21 in all.
    ben.get_by_text("Ben (Xeno): tap one of your pieces.").wait_for()
    assert ben.locator(".ash-stash").count() == 2 and ben.locator(".ash-history li").count() == 1
    select(ben, "A3")
    choose(ben, "B3").get_by_role("button", name="a cyan queen", exact=True).tap()
    ben.locator(".end-headline").get_by_text("Ben reached 21 first and wins by").wait_for()
    last = ben.locator("#ash-last").inner_text()
    assert "bagged 5 cyan at B3, B4, B5, C3, D3: 10 pips + cyan 6 = 16" in last
    # The cyan pawn in the middle of D3 went to the stash; the red pawn dropped down.
    assert square(ben, "D3").get_attribute("aria-label") == "D3: red pawn, on top of red queen"
    assert ben.locator('.ash-total[data-player="Ben"]').inner_text() == "21"

    # Ana's phone and the spectator view follow.
    ana.locator(".end-headline").get_by_text("Ben reached 21 first").wait_for()
    spectator.locator(".end-headline").get_by_text("Ben reached 21 first").wait_for()  # polled
    assert spectator.locator("a.ash-sq, .ash-size-form").count() == 0

    for page in (ana, ben):
        assert_thumb_sized(page, "#board a.ash-sq:visible, #board button:visible")
    if SHOTS:
        ana.screenshot(path=os.path.join(SHOTS, "autumn-ash-board-light.png"), full_page=True)
        ben.screenshot(path=os.path.join(SHOTS, "autumn-ash-board-dark.png"), full_page=True)
