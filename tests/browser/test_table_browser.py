"""Two real phones (headless Chromium, 390x844) share one table live."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LIVE_REFRESH_SECONDS = 3


def test_a_round_entered_on_one_phone_shows_on_the_other_within_three_seconds(
    live_server, new_phone
):
    table = live_server.store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    host, guest = new_phone(), new_phone()
    host.goto(f"{live_server.url}/t/{table.token}")
    guest.goto(f"{live_server.url}/t/{table.token}")

    host.get_by_label("Ana").fill("7")
    host.get_by_label("Ben").fill("3")
    host.get_by_role("button", name="Add the round").click()

    total = guest.locator("table.scores tfoot td").first
    expect(total).to_have_text("7", timeout=LIVE_REFRESH_SECONDS * 1000)
    expect(host.locator("table.scores tfoot td").nth(1)).to_have_text("3")


def test_undo_on_one_phone_takes_the_round_back_on_both(live_server, new_phone):
    table = live_server.store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": True})
    live_server.store.act(table.token, 0, {"type": "AddRound", "scores": [4, 9]})
    host, guest = new_phone(), new_phone()
    host.goto(f"{live_server.url}/t/{table.token}")
    guest.goto(f"{live_server.url}/t/{table.token}")
    expect(guest.locator("table.scores tfoot td").first).to_have_text("4")

    host.get_by_role("button", name="Undo").click()

    expect(host.locator("table.scores tfoot td").first).to_have_text("0")
    expect(guest.locator("table.scores tfoot td").first).to_have_text(
        "0", timeout=LIVE_REFRESH_SECONDS * 1000
    )


def test_the_poll_does_not_wipe_a_half_typed_round(live_server, new_phone):
    table = live_server.store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    typing = new_phone()
    typing.goto(f"{live_server.url}/t/{table.token}")
    typing.get_by_label("Ana").fill("12")
    # Someone else changes the table meanwhile.
    live_server.store.act(table.token, 0, {"type": "AddRound", "scores": [1, 1]})
    typing.wait_for_timeout(2500)
    expect(typing.get_by_label("Ana")).to_have_value("12")
