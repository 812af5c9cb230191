"""The offline queue sends what the player meant (issue 43), headless Chromium.

Offline, Ana tapped bid 1 then 3: the phone said "2 taps not sent yet"
without saying which, sent both once back online, and the table refused the
3 as stale because of the phone's own 1. Now each waiting tap is named, a
later tap on the same pad replaces the earlier one before anything is sent,
and what is entered is exactly the last tap, said in the same words.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTLE = 10_000  # ms: generous, so a busy machine never fails a correct app
PLAYERS = ["Ana", "Ben", "Cy"]


def venture(store):
    """A Venture round one with the slug up: everybody still to bid."""
    table = store.create_table("venture", PLAYERS, {"drafting": False})
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [2, 5, 7, 9]})
    return table


def seated(new_phone, url: str, name: str, scheme: str = "light"):
    page = new_phone(scheme, shared=False)
    page.goto(url)
    take_seat(page, name)
    return page


@pytest.mark.parametrize("taps", [[1, 3], [1, 3, 6]], ids=["two-taps", "three-taps"])
def test_taps_on_one_pad_offline_enter_only_the_last(live_server, new_phone, taps):
    store = live_server.store
    table = venture(store)
    page = seated(new_phone, f"{live_server.url}/t/{table.token}", "Ana")
    before = store.version(table.token)
    page.context.set_offline(True)
    waiting = page.locator(".tap-dock-pending")
    for card in taps:
        page.get_by_role("button", name=f"Your bid, Ana: {card}", exact=True).click()
        # One tap waits, named: the last one; the earlier ones are gone.
        expect(waiting).to_contain_text("Not sent yet")
        expect(waiting).to_contain_text(f"Waiting: Your bid, Ana: {card}.")
    expect(waiting).not_to_contain_text("taps not sent")
    assert store.version(table.token) == before

    page.context.set_offline(False)
    sent = page.locator(".tap-dock-sent")
    expect(sent).to_contain_text(
        f"Sent when the table was back: Your bid, Ana: {taps[-1]}.", timeout=SETTLE
    )
    expect(waiting).to_have_count(0)
    expect(page.locator(".venture-bids .status")).to_contain_text("You have bid")
    page.locator("#venture-my-bid > summary").click()
    expect(page.locator("#venture-my-bid")).to_contain_text(f"Your bid: {taps[-1]}")
    page.wait_for_timeout(2_500)  # a poll later: nothing else is sent
    assert store.version(table.token) == before + 1
    assert store.snapshot(table.token).state.bid_of("Ana") == taps[-1]


def test_two_rounds_added_offline_are_sent_in_order_and_both_entered(live_server, new_phone):
    """Two different intents (a score pad adds a round each time, it sets
    nothing): both wait, in order, and both are entered. Each was made on
    the version the phone showed; the second is not refused as stale
    because of the first, which this phone made."""
    store = live_server.store
    table = store.create_table("scorepad", PLAYERS, {"lowest_wins": False})
    page = new_phone("dark")  # conftest answers "Passed around the table"
    page.goto(f"{live_server.url}/t/{table.token}")
    page.context.set_offline(True)
    waiting = page.locator(".tap-dock-pending")
    for scores in ((1, 2, 3), (4, 5, 6)):
        for column, points in enumerate(scores):
            page.locator(f"#score{column}").fill(str(points))
        page.get_by_role("button", name="Add the round").click()
    expect(waiting).to_contain_text("2 taps not sent yet")
    expect(waiting).to_contain_text(
        "In order: Add the round: Ana 1, Ben 2, Cy 3; Add the round: Ana 4, Ben 5, Cy 6."
    )
    assert store.version(table.token) == 0
    page.context.set_offline(False)
    expect(page.locator("table.scores tbody tr")).to_have_count(2, timeout=SETTLE)
    expect(waiting).to_have_count(0)
    expect(page.locator("#board .notice-error")).to_have_count(0)
    assert store.snapshot(table.token).state.rounds == ((1, 2, 3), (4, 5, 6))


def test_a_queued_tap_refused_after_another_change_says_which_tap_and_what_stands(
    live_server, new_phone
):
    """Ana bid 5, then, offline, changes it to 6; meanwhile Ben and Cy bid
    and the round is revealed with her 5. Back online the change is refused
    by name, with the reason, and the reveal shows the 5 that stands."""
    store = live_server.store
    table = venture(store)
    page = seated(new_phone, f"{live_server.url}/t/{table.token}", "Ana")
    page.get_by_role("button", name="Your bid, Ana: 5", exact=True).click()
    expect(page.locator(".venture-bids .status")).to_contain_text("You have bid")
    page.context.set_offline(True)
    page.locator("#venture-my-bid > summary").click()
    page.get_by_role("button", name="Change your bid to: 6", exact=True).click()
    expect(page.locator(".tap-dock-pending")).to_contain_text("Waiting: Change your bid to: 6.")
    for player, card in (("Ben", 3), ("Cy", 8)):
        store.act(
            table.token,
            store.version(table.token),
            {"type": "Bid", "player": player, "card": card},
        )
    page.context.set_offline(False)
    refusal = page.locator("#board > .notice-error")
    expect(refusal).to_contain_text(
        "Sent when the table was back, not entered: Change your bid to: 6.", timeout=SETTLE
    )
    expect(refusal).to_contain_text("someone changed the table")
    expect(page.locator("#venture-reveal-title")).to_have_text("Round 1 revealed")
    expect(page.locator(".venture-reveal")).to_contain_text("Ana")
    assert dict(store.snapshot(table.token).state.rounds[0].bids)["Ana"] == 5


def test_a_shared_phone_revealing_twice_offline_sends_only_the_second(live_server, new_phone):
    """Autumn Leaves' shared form (a grid per player, one Reveal) is a pad
    too: tapped twice offline, with one card changed, it sends the second."""
    store = live_server.store
    table = store.create_table("autumn_leaves", PLAYERS, {}, seed=3)
    page = new_phone()  # the shared phone
    page.goto(f"{live_server.url}/t/{table.token}")
    page.context.set_offline(True)
    for cards in ((4, 7, 2), (4, 8, 2)):
        for player, card in zip(PLAYERS, cards, strict=True):
            page.get_by_label(f"{player}: reveals {card}", exact=True).dispatch_event("click")
        page.get_by_role("button", name="Reveal", exact=True).click()
    waiting = page.locator(".tap-dock-pending")
    expect(waiting).to_contain_text(
        "Waiting: Reveal: Ana: reveals 4, Ben: reveals 8, Cy: reveals 2."
    )
    page.context.set_offline(False)
    expect(page.locator(".tap-dock-sent")).to_contain_text("Ben: reveals 8", timeout=SETTLE)
    assert store.version(table.token) == 1
    piles = store.snapshot(table.token).state.piles
    assert [pile[-1] for pile in piles] == [4, 8, 2]
