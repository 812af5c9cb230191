"""The Pairs screen in a real phone-sized Chromium (390x844)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import assert_thumb_sized, in_each_scheme

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("LEAFPILE_SCREENSHOTS")  # a folder to save screenshots in, if set


def tap_card(page, label: str, rank: int) -> None:
    page.get_by_role("button", name=f"{label}: {rank}", exact=True).tap()


def test_a_round_played_by_thumb_on_a_phone(live_server, new_phone):
    table = live_server.store.create_table("pairs", ["Ana", "Ben"], {"continuous": True}, "Pairs")
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")

    tap_card(page, "Card dealt to Ana", 4)
    tap_card(page, "Card dealt to Ben", 6)
    page.locator("#board").get_by_text("Ana has the low card (4) and goes first").wait_for()
    page.get_by_text("Chance a hit pairs:").wait_for()
    assert page.locator(".pairs-odds-figure").inner_text() == "3 in 53 (6%)"

    tap_card(page, "Ana hits: which card?", 9)
    page.get_by_role("heading", name="Ben's turn").wait_for()
    # Continuous: every card in play has its own fold button, the lowest first
    folds = page.locator(".pairs-fold-choices button")
    assert folds.count() == 3
    assert folds.first.inner_text() == "Take Ana's 4 (4 points) · lowest"

    for scheme in in_each_scheme(page):  # the round ends in the dark
        assert_thumb_sized(page, "#board button:visible")
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, f"pairs-{scheme}.png"), full_page=True)

    folds.nth(2).tap()  # Ben takes Ana's 9
    page.locator("#board").get_by_text("Ben folded and takes Ana's 9 for 9 points").wait_for()
    assert page.locator(".pairs-player").nth(1).locator(".pairs-total").inner_text() == "9 / 31"
    page.get_by_role("heading", name="Ana's turn").wait_for()
