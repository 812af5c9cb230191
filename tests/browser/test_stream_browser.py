"""Push in real browsers (issue 21): several phones (one Chromium context
each) at one table, with the fallback poll set to an hour, so only the stream
can bring a change. A tap on one phone shows on the others; a phone taken
offline misses the change and catches up the moment it is back online.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTLE = 10_000  # ms: a bound for a broken app on a busy machine, not a timing


@pytest.fixture
def table_phones(live_server, new_phone):
    live_server.app.config["LEAFPILE_FALLBACK_POLL_SECONDS"] = 3600  # no timer poll runs
    table = live_server.store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    url = f"{live_server.url}/t/{table.token}"
    phones = []
    for index in range(3):
        page = new_phone(color_scheme="dark" if index % 2 else "light")
        polls: list[str] = []
        page.on("request", lambda r, polls=polls: polls.append(r.url) if "/poll" in r.url else None)
        page.goto(url)
        expect(page.locator("#board .poller")).to_have_attribute("hx-trigger", "every 3600s, wake")
        phones.append((page, polls))
    for page, _ in phones:  # every stream is open before anyone taps
        expect(page.locator("html")).to_have_attribute("data-stream", "open", timeout=SETTLE)
    return table, phones


def _add_round(page, first: int, second: int) -> None:
    page.fill("#score0", str(first))
    page.fill("#score1", str(second))
    page.get_by_role("button", name="Add the round").click()


def test_a_tap_shows_on_every_other_phone_without_a_poll(live_server, table_phones):
    table, phones = table_phones
    (tapper, _), *others = phones
    _add_round(tapper, 7, 3)
    expect(tapper.locator("#board")).to_have_attribute("data-version", "1", timeout=SETTLE)
    for page, polls in others:
        expect(page.locator("#board")).to_have_attribute("data-version", "1", timeout=SETTLE)
        expect(page.locator("tfoot")).to_contain_text("7")
        # One fetch, on the nudge; the hour-long timer never ran.
        assert len(polls) == 1 and polls[0].endswith("/poll?v=0"), polls
    # and again from another phone: each nudge brings exactly its change
    _add_round(others[0][0], 1, 2)
    for page, _ in phones:
        expect(page.locator("#board")).to_have_attribute("data-version", "2", timeout=SETTLE)


def test_a_phone_back_from_offline_catches_up_at_once(live_server, table_phones):
    table, phones = table_phones
    (tapper, _), (sleeper, polls), _ = phones
    sleeper.context.set_offline(True)
    sleeper.evaluate("() => window.dispatchEvent(new Event('offline'))")
    live_server.store.act(table.token, 0, {"type": "AddRound", "scores": [5, 6]})
    expect(tapper.locator("#board")).to_have_attribute("data-version", "1", timeout=SETTLE)
    sleeper.wait_for_timeout(500)  # anything the nudge could bring has come by now
    assert sleeper.locator("#board").get_attribute("data-version") == "0"  # it was offline
    sleeper.context.set_offline(False)  # fires "online" in the page
    expect(sleeper.locator("#board")).to_have_attribute("data-version", "1", timeout=SETTLE)
    expect(sleeper.locator("tfoot")).to_contain_text("6")


def _timer_polls(live_server, new_phone, table, *, heartbeat: float) -> tuple[object, list[str]]:
    """A phone at ``table`` whose fallback timer fires every second."""
    live_server.app.config["LEAFPILE_FALLBACK_POLL_SECONDS"] = 1
    live_server.app.config["LEAFPILE_STREAM_HEARTBEAT"] = heartbeat
    page = new_phone()
    polls: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if "/poll" in r.url else None)
    page.goto(f"{live_server.url}/t/{table.token}")
    expect(page.locator("html")).to_have_attribute("data-stream", "open", timeout=SETTLE)
    polls.clear()  # the timer may have run before the stream was open
    return page, polls


def test_while_the_stream_talks_the_fallback_poll_is_not_sent(live_server, new_phone):
    """An idle phone whose stream sends its heartbeats costs no request: the
    timer's poll is skipped. Without that, 5 s would bring about 5 polls; a
    heartbeat more than 2 s late (a very busy machine) could let one through."""
    table = live_server.store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    page, polls = _timer_polls(live_server, new_phone, table, heartbeat=0.3)
    expect(page.locator("#board .poller")).to_have_attribute("hx-trigger", "every 1s, wake")
    page.wait_for_timeout(5000)
    assert len(polls) <= 1, polls
    live_server.store.act(table.token, 0, {"type": "AddRound", "scores": [5, 6]})
    expect(page.locator("#board")).to_have_attribute("data-version", "1", timeout=SETTLE)


def test_a_stream_that_went_silent_leaves_the_fallback_poll_on(live_server, new_phone):
    """A stream that stays open but says nothing (iOS Safari's, after the app
    was switched away) is not trusted: past one and a half heartbeats (and
    2 s) of silence the timer polls again and brings what the stream missed."""
    table = live_server.store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    # The stream opens with an hour between heartbeats; the boards the phone
    # fetches from now on say 0.3 s, so to the phone the stream has gone silent.
    page, polls = _timer_polls(live_server, new_phone, table, heartbeat=3600)
    live_server.app.config["LEAFPILE_STREAM_HEARTBEAT"] = 0.3
    live_server.store.act(table.token, 0, {"type": "AddRound", "scores": [5, 6]})
    expect(page.locator("#board")).to_have_attribute("data-version", "1", timeout=SETTLE)
    expect(page.locator("#board .poller")).to_have_attribute("data-heartbeat", "0.3")
    fetched = len(polls)
    waited = 0
    while len(polls) == fetched and waited < SETTLE:  # 2.45 s of silence, then the 1 s timer
        page.wait_for_timeout(100)
        waited += 100
    assert len(polls) > fetched, "the timer's poll never ran on a silent stream"
