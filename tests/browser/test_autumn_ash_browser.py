"""An Autumn Ash race to 21 on a real phone-sized Chromium (390x844)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import assert_thumb_sized, in_each_scheme

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("LEAFPILE_SCREENSHOTS")  # a folder to save screenshots in, if set


def bag(page, player: str, index: int, fields: list[str]) -> None:
    """Open the player's bag form, tap the pyramids, score the bag."""
    form = page.locator(f"#ash-bag-{index}")
    first = form.locator(f'label.ash-piece:has(input[name="{fields[0]}"])')
    for _ in range(3):  # the board may still be settling after a swap: look again
        if first.is_visible():
            break
        form.locator("summary").tap()
        page.wait_for_timeout(300)
    for field in fields:
        toggle = form.locator(f'label.ash-piece:has(input[name="{field}"])')
        toggle.tap()
        assert toggle.locator("input").is_checked()
    form.get_by_role("button", name=f"Score {player}'s bag").tap()


def totals(page) -> tuple[str, str]:
    return (
        page.locator('.ash-total[data-player="Ana"]').inner_text(),
        page.locator('.ash-total[data-player="Ben"]').inner_text(),
    )


def test_a_race_to_21_played_by_thumb(live_server, new_phone):
    table = live_server.store.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"}, "Ash")
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    # The colour progressions and bonuses are on screen from the start.
    reference = page.locator(".ash-reference")
    assert "green" in reference.inner_text() and "+12" in reference.inner_text()

    bag(page, "Ana", 0, ["black-3-0", "black-3-1", "black-2-0"])
    page.locator("#board").get_by_text("Last bag: Ana +20").wait_for()
    assert page.get_by_text("8 pips + black 12 = 20").first.is_visible()
    assert totals(page) == ("20", "0")

    # A mistake, taken back with undo.
    bag(page, "Ben", 1, ["cyan-1-0", "cyan-1-1", "cyan-2-0"])
    page.locator("#board").get_by_text("Last bag: Ben +10").wait_for()
    page.get_by_role("button", name="↶ Undo").tap()
    page.locator('#board[data-version="3"]').wait_for()
    page.locator("#ash-bag-1[open]").wait_for()  # an open bag form stays open across a refresh
    assert totals(page) == ("20", "0")

    bag(page, "Ben", 1, ["purple-1-0", "purple-1-1", "purple-2-0"])
    page.locator("#board").get_by_text("Last bag: Ben +16").wait_for()
    assert totals(page) == ("20", "16")

    for _ in in_each_scheme(page):  # the race ends in the dark
        assert_thumb_sized(page, "#board button:visible, #board label.ash-piece:visible")

    bag(page, "Ana", 0, ["red-1-0", "red-2-0", "red-3-0"])
    page.locator(".end-headline").get_by_text("Ana reached 29 first").wait_for()
    assert totals(page) == ("29", "16")
    assert page.locator(".ash-bag").count() == 0  # the race is over: no more bags
    for scheme in in_each_scheme(page):
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, f"autumn-ash-{scheme}.png"), full_page=True)
