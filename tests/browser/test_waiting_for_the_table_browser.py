"""A tap the table answers 503 (its database restarting) is kept on the phone,
said to be "waiting for the table", and sent again by its tap id once the
table answers: entered exactly once. One phone (one browser context) in
headless Chromium at 390x844.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect
from sqlalchemy import create_engine

from tests.conftest import take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTLE = 10_000  # ms: generous, so a busy machine never fails a correct app
EIGHT = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal"]

# What the app itself answers an outage with (companion/web/__init__.py).
OUTAGE_FRAGMENT = (
    '<div id="board" class="board"><p class="notice notice-error" role="alert">'
    "Waiting for the table: the host's database is not answering just now.</p></div>"
)


def venture_round(store):
    """An 8-player Venture table with a slug on the table: a bid to make."""
    table = store.create_table("venture", EIGHT, {"drafting": False})
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [1, 2, 3, 4, 5, 6, 7]})
    return table


def seated(new_phone, url: str, name: str):
    page = new_phone()
    page.goto(url)
    take_seat(page, name)
    return page


def test_a_tap_answered_503_waits_for_the_table_and_is_entered_once_when_it_answers(
    live_server, new_phone
):
    store = live_server.store
    table = venture_round(store)
    page = seated(new_phone, f"{live_server.url}/t/{table.token}", "Hal")
    before = store.version(table.token)
    outage = [True]
    refused = []

    def table_waits(route):
        if outage[0]:
            refused.append(time.monotonic())
            route.fulfill(
                status=503,
                headers={"Retry-After": "1", "Content-Type": "text/html; charset=utf-8"},
                body=OUTAGE_FRAGMENT,
            )
        else:
            route.continue_()

    page.route("**/act", table_waits)
    page.get_by_role("button", name="Your bid, Hal: 8", exact=True).click()
    waiting = page.locator(".tap-dock-pending")
    expect(waiting).to_contain_text("Waiting for the table")
    expect(waiting).to_be_in_viewport()
    # The board stays (with its poller, so the phone keeps asking), no error in its place.
    expect(page.locator("#board .poller")).to_have_count(1)
    expect(page.locator("#board .notice-error")).to_have_count(0)
    # The outage lasts: the tap is sent again (three times, within 15 s even
    # on a busy machine), never in a loop. Meanwhile the board is asked for
    # every 200 ms (as pushes from other phones would), and every ask gets
    # through: still the tap waits out each Retry-After.
    deadline = time.monotonic() + 15
    while len(refused) < 3 and time.monotonic() < deadline:
        page.evaluate("htmx.trigger(document.querySelector('.poller'), 'wake')")
        page.wait_for_timeout(200)
    assert store.version(table.token) == before
    # Never two sends closer than the Retry-After (1 s; a loop would be ms;
    # half of it leaves room for a busy machine to run the route late).
    gaps = [later - earlier for earlier, later in zip(refused, refused[1:], strict=False)]
    assert len(refused) >= 3 and min(gaps) >= 0.5, gaps
    outage[0] = False
    expect(page.locator(".venture-bids .status")).to_contain_text("You have bid", timeout=SETTLE)
    expect(waiting).to_have_count(0)
    page.wait_for_timeout(2_500)  # a poll later: nothing is sent twice
    assert store.version(table.token) == before + 1
    assert store.snapshot(table.token).state.bid_of("Hal") == 8


def test_the_tables_own_503_keeps_the_board_and_the_tap_until_its_database_is_back(
    live_server, new_phone, tmp_path
):
    """The real thing: the live server's database goes away (its engine points
    at a file that cannot be opened), so the tap and the polls get the app's
    own 503; the database comes back and the tap goes in once."""
    store = live_server.store
    table = venture_round(store)
    page = seated(new_phone, f"{live_server.url}/t/{table.token}", "Hal")
    before = store.version(table.token)
    working = store.engine
    store.engine = create_engine(f"sqlite:///{tmp_path / 'gone' / 'x.sqlite3'}")
    try:
        page.get_by_role("button", name="Your bid, Hal: 8", exact=True).click()
        expect(page.locator(".tap-dock-pending")).to_contain_text("Waiting for the table")
        # A poll during the outage answers 503 as well: the board stays.
        page.evaluate("htmx.trigger(document.querySelector('.poller'), 'wake')")
        expect(page.locator(".tap-dock-waiting")).to_contain_text("Waiting for the table")
        expect(page.locator("#board .poller")).to_have_count(1)
        expect(page.get_by_role("button", name="Your bid, Hal: 8", exact=True)).to_be_visible()
    finally:
        dead, store.engine = store.engine, working
        dead.dispose()
    expect(page.locator(".venture-bids .status")).to_contain_text("You have bid", timeout=SETTLE)
    expect(page.locator(".tap-dock-pending")).to_have_count(0)
    expect(page.locator(".tap-dock-waiting")).to_have_count(0)
    page.wait_for_timeout(2_500)
    assert store.version(table.token) == before + 1
