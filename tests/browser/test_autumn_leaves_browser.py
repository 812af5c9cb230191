"""A whole Autumn Leaves hand on two real phones (headless Chromium, 390x844).

Ben holds his own phone; the other phone is shared by the table (Ana and Cy).
They take turns entering what happens; every change made on one phone must
show on the other within 3 seconds (live refresh).

The hand (checked by the rules on every step): three rounds where nothing
fits (the piles start, then Cold Snaps), a round where Cy's 2 fits nowhere and
is discarded, Ben's 9 goes on Ana's 10 and Ana's 10 on her own 9, two more
Cold Snaps, and a last Cold Snap in which Ben plays his last card.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.conftest import take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LIVE = 3_000  # ms: the other phone must show a change this fast
PLAYERS = ("Ana", "Ben", "Cy")


# The thumb-size and label check of tests/browser/test_feel_browser.py, run mid-game.
FEEL_CHECK = "\n".join(
    line
    for line in (Path(__file__).parent / "feel_check.js").read_text().splitlines()
    if not line.startswith("//")
)


def board(page):
    return page.locator("#board")


def reveal_on_shared(page, cards: dict[str, int]) -> None:
    """The shared phone taps a card for each player, then Reveal."""
    for name, card in cards.items():
        page.get_by_role("radio", name=f"{name}: reveals {card}", exact=True).check()
    page.get_by_role("button", name="Reveal", exact=True).click()


def ben_reveals(page, card: int) -> None:
    page.get_by_role("button", name=f"Your card, Ben: {card}", exact=True).click()


def test_two_phones_play_a_whole_hand(live_server, new_phone):
    table = live_server.store.create_table("autumn_leaves", list(PLAYERS), {}, seed=3)
    url = f"{live_server.url}/t/{table.token}"
    shared, ben = new_phone(), new_phone(color_scheme="dark")
    shared.goto(url)
    ben.goto(url)
    # Round 1 from the shared phone: every card starts its owner's pile.
    reveal_on_shared(shared, {"Ana": 10, "Ben": 7, "Cy": 4})
    expect(board(shared)).to_contain_text("Round 2: reveal")
    expect(board(ben)).to_contain_text("Round 2: reveal", timeout=LIVE)
    # Then Ben's phone takes his seat: from now on only it enters Ben's card.
    take_seat(ben, "Ben")
    expect(ben.get_by_role("button", name="Your card, Ben: 7", exact=True)).to_be_visible()
    expect(ben.locator(".al-pile").nth(2)).to_contain_text("Cy")
    expect(ben.locator(".al-pile").nth(2).locator(".card").first).to_have_text("4")

    # Round 2: Ben enters his own card, the shared phone the others': Cold Snap.
    ben_reveals(ben, 7)
    expect(ben.get_by_text("Your card, Ben")).to_have_count(0)
    expect(shared.locator(".al-who")).to_contain_text("has revealed", timeout=LIVE)
    expect(shared.get_by_role("radio", name="Ben: reveals 7")).to_have_count(0)
    reveal_on_shared(shared, {"Ana": 10, "Cy": 4})
    expect(board(shared)).to_contain_text("Cold Snap!")
    expect(board(ben)).to_contain_text("Cold Snap!", timeout=LIVE)
    expect(board(ben)).to_contain_text("Round 3: reveal")

    # Round 3: another Cold Snap. Ben's seat is on his phone, so the shared
    # phone no longer offers his card.
    ben_reveals(ben, 7)
    expect(shared.locator(".al-who")).to_contain_text("has revealed", timeout=LIVE)
    reveal_on_shared(shared, {"Ana": 10, "Cy": 4})
    expect(board(shared)).to_contain_text("Round 4: reveal")
    expect(board(ben)).to_contain_text("Round 4: reveal", timeout=LIVE)

    # Round 4: cards that fit. The play order lowest first: Cy 2, Ben 9, Ana 10.
    ben_reveals(ben, 9)
    expect(shared.locator(".al-who")).to_contain_text("has revealed", timeout=LIVE)
    reveal_on_shared(shared, {"Ana": 10, "Cy": 2})
    expect(shared.locator(".al-order-name")).to_have_text(["Cy", "Ben", "Ana"])
    expect(ben.locator(".al-order-name")).to_have_text(["Cy", "Ben (you)", "Ana"], timeout=LIVE)
    expect(ben.get_by_test_id("prompt")).to_have_text(
        "Cy's 2 fits on no pile: take it back into hand, or discard it and draw a new card."
    )
    expect(ben.locator(".al-random")).to_have_count(0)

    # Ben's phone does it for Cy: discard and draw.
    ben.get_by_role("button", name="Discard and draw").click()
    expect(ben.get_by_test_id("prompt")).to_contain_text("Your turn: your 9 must go on a lit pile")
    expect(shared.get_by_test_id("prompt")).to_contain_text("Ben's turn: the 9", timeout=LIVE)
    expect(shared.get_by_test_id("deck")).to_have_text("33")

    # Only Ana's pile is lit; Ben taps it.
    lit = ben.locator("button.al-pile-fits")
    expect(lit).to_have_count(1)
    box = lit.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 300
    assert ben.evaluate(FEEL_CHECK) == []
    lit.click()
    expect(ben.get_by_test_id("prompt")).to_contain_text("Ana's turn: the 10")
    expect(shared.get_by_test_id("prompt")).to_contain_text("Ana's turn: the 10", timeout=LIVE)

    # The shared phone puts Ana's 10 on her own pile (its top is now Ben's 9).
    shared.get_by_role("button", name=re.compile(r"^Put Ana's 10 on their own pile")).click()
    expect(board(shared)).to_contain_text("Round 5: reveal")
    expect(board(ben)).to_contain_text("Round 5: reveal", timeout=LIVE)
    expect(board(ben)).to_contain_text("Ben: 9 onto Ana's pile")

    # Rounds 5-7: Cold Snaps; in the last one Ben plays his last card.
    ben_reveals(ben, 7)
    expect(shared.locator(".al-who")).to_contain_text("has revealed", timeout=LIVE)
    reveal_on_shared(shared, {"Ana": 10, "Cy": 4})
    expect(board(ben)).to_contain_text("Round 6: reveal", timeout=LIVE)
    ben_reveals(ben, 7)
    expect(shared.locator(".al-who")).to_contain_text("has revealed", timeout=LIVE)
    reveal_on_shared(shared, {"Ana": 10, "Cy": 1})
    expect(board(ben)).to_contain_text("Round 7: reveal", timeout=LIVE)
    ben_reveals(ben, 7)
    expect(shared.locator(".al-who")).to_contain_text("has revealed", timeout=LIVE)
    reveal_on_shared(shared, {"Ana": 10, "Cy": 10})
    expect(board(shared)).to_contain_text("Ben played their last card and wins the hand.")
    expect(board(ben)).to_contain_text(
        "Ben played their last card and wins the hand.", timeout=LIVE
    )

    # Ben's phone enters the others' highest cards (Ana can only hold her 10).
    ben.get_by_text("Enter for the others").click()
    expect(ben.get_by_role("radio", name="Ana: highest 9")).to_be_disabled()
    assert ben.evaluate(FEEL_CHECK) == []
    ben.get_by_role("radio", name="Ana: highest 10").check()
    ben.get_by_role("radio", name="Cy: highest 10").check()
    ben.get_by_role("button", name="Enter highest cards").click()
    expect(board(ben)).to_contain_text("Hand 2 of 6")
    expect(board(shared)).to_contain_text("Hand 2 of 6", timeout=LIVE)
    expect(shared.locator(".al-scores tbody tr").first).to_have_text(
        re.compile(r"1\s*3\s*-6\s*★\s*5")
    )
    expect(shared.locator(".al-scores tfoot .leader")).to_have_text("-6")
