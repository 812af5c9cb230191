"""The change stream (issue 21): what a commit announces, and what the stream says.

The notifier is in process memory; every write that moves a table's version
(or deletes it, or starts its rematch) must wake the streams that watch that
table and no other, and a stream carries nothing but the table's version.
"""

from __future__ import annotations

import threading
import time

import pytest

from companion.tables.notify import MOVED, Notifier, parse_payload
from companion.web.stream import _events as _stream_events
from companion.web.stream import nudge

# --- the notifier alone -----------------------------------------------------------


def test_a_publish_wakes_the_watches_of_its_table_only():
    notifier = Notifier()
    mine, other = notifier.watch("aaa", 3), notifier.watch("bbb", 3)
    assert notifier.publish("aaa", 4) == 1
    assert mine.wait(0) and mine.version == 4
    assert not other.wait(0)


def test_an_old_or_repeated_version_wakes_nobody():
    notifier = Notifier()
    watch = notifier.watch("aaa", 5)
    assert notifier.publish("aaa", 5) == 0
    assert notifier.publish("aaa", 2) == 0
    assert not watch.wait(0)


def test_moved_always_wakes():
    notifier = Notifier()
    watch = notifier.watch("aaa", 9)
    assert notifier.publish("aaa", MOVED) == 1
    assert watch.wait(0) and watch.version == MOVED


def test_a_forgotten_watch_is_gone():
    notifier = Notifier()
    watch = notifier.watch("aaa", 0)
    notifier.forget(watch)
    assert notifier.watching() == 0 and notifier.watched() == []
    assert notifier.publish("aaa", 1) == 0


def test_a_waiting_thread_is_woken_by_a_publish_from_another():
    notifier = Notifier()
    watch = notifier.watch("aaa", 0)
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(watch.wait(30)))
    waiter.start()
    time.sleep(0.05)
    notifier.publish("aaa", 1)
    waiter.join(10)
    assert woke == [True]


@pytest.mark.parametrize(
    ("payload", "parsed"),
    [
        ("tok 7", ("tok", 7)),
        ("tok -1", ("tok", MOVED)),
        ("tok -2", None),
        ("tok seven", None),
        (" 7", None),
        ("", None),
    ],
)
def test_notify_payloads(payload, parsed):
    assert parse_payload(payload) == parsed


def test_a_nudge_is_the_version_and_nothing_else():
    assert nudge(12) == b"id: 12\ndata: 12\n\n"
    assert nudge(MOVED) == b"id: moved\ndata: moved\n\n"


# --- commits announce themselves --------------------------------------------------


@pytest.fixture
def notifier(app) -> Notifier:
    return app.extensions["leafpile_notifier"]


def test_an_entry_a_seat_takeover_and_an_undo_each_announce_the_new_version(
    app, notifier, make_table, new_client_phone
):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    watch = notifier.watch(table.token, 0)
    ana = new_client_phone()
    assert ana.act(table, "add-round", score0="3", score1="4").status_code == 200
    assert watch.wait(0) and watch.version == 1
    assert ana.post(f"/t/{table.token}/undo", {"version": "1"}).status_code == 200
    assert watch.wait(0) and watch.version == 2


def test_a_refused_entry_announces_nothing(app, notifier, make_table, new_client_phone):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    watch = notifier.watch(table.token, 0)
    ana = new_client_phone()
    assert ana.act(table, "add-round", score0="x", score1="4").status_code == 422
    assert ana.act(table, "add-round", version=7, score0="1", score1="4").status_code == 409
    assert not watch.wait(0) and watch.version == 0


def test_deleting_a_table_announces_it_moved(app, store, notifier, make_table):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    watch = notifier.watch(table.token, 0)
    store.delete_table(table.token)
    assert watch.wait(0) and watch.version == MOVED


def test_a_write_to_another_table_wakes_nobody_here(app, notifier, make_table, phone):
    here = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    there = make_table("scorepad", ["Cy", "Di"], {"lowest_wins": False})
    watch = notifier.watch(here.token, 0)
    assert phone.act(there, "add-round", score0="1", score1="2").status_code == 200
    assert not watch.wait(0)


class _LateWake:
    """A wake-up whose wait times out just as a publish lands: the publish
    sets the version and the flag after the timeout, before the clear."""

    def __init__(self, notifier: Notifier, token: str, version: int) -> None:
        self.notifier, self.token, self.version = notifier, token, version
        self.flag = False

    def wait(self, timeout: float) -> bool:
        if self.version is not None:
            self.notifier.publish(self.token, self.version)  # too late for this wait
            self.version = None
            return False
        return self.flag

    def set(self) -> None:
        self.flag = True

    def clear(self) -> None:
        self.flag = False


@pytest.mark.parametrize("late", [4, MOVED])
def test_a_publish_that_lands_as_a_wait_times_out_is_still_sent(late):
    """The race a loaded machine found (s11): the wait times out, the
    publish sets the version and the wake-up, the wait clears it. The next
    event must carry the new version, not one more heartbeat of the old."""
    notifier = Notifier()
    watch = notifier.watch("aaa", 3)
    watch._wake = _LateWake(notifier, "aaa", late)
    events = _stream_events(notifier, watch, 3, heartbeat=0.01, lifetime=60)
    assert next(events) == b"retry: 2000\n" + nudge(3)
    assert next(events) == nudge(late)


# --- the stream over the test client ----------------------------------------------


def _events(response, count: int) -> list[str]:
    """The first ``count`` event blocks of a streamed response."""
    blocks: list[str] = []
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            blocks.append(block)
            if len(blocks) == count:
                return blocks
    return blocks


def test_the_stream_opens_with_the_version_then_says_each_change(
    app, store, make_table, new_client_phone
):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    watcher = app.test_client()
    response = watcher.get(f"/t/{table.token}/stream", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Accel-Buffering"] == "no"
    assert "Set-Cookie" not in response.headers  # no session opened
    ana = new_client_phone()
    writer = threading.Timer(0.2, lambda: ana.act(table, "add-round", score0="7", score1="4"))
    writer.start()
    first, second = _events(response, 2)
    writer.join()
    response.close()
    assert first == "retry: 2000\nid: 0\ndata: 0"
    assert second == "id: 1\ndata: 1"


def test_the_spectator_stream_follows_the_same_table(app, make_table, phone):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    phone.act(table, "add-round", score0="7", score1="4")
    response = app.test_client().get(f"/v/{table.view_token}/stream", buffered=False)
    assert _events(response, 1) == ["retry: 2000\nid: 1\ndata: 1"]
    response.close()


def test_a_quiet_stream_sends_heartbeats_that_the_phone_tells_from_a_change(app, make_table, phone):
    """A heartbeat is an event of its own type (EventSource never shows a
    comment to the page): stream.js notes it and skips its fallback poll.
    It repeats the version last sent, so it is never news."""
    app.config["LEAFPILE_STREAM_HEARTBEAT"] = 0.05
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    phone.act(table, "add-round", score0="7", score1="4")
    response = app.test_client().get(f"/t/{table.token}/stream", buffered=False)
    assert _events(response, 3)[1:] == ["event: beat\ndata: 1", "event: beat\ndata: 1"]
    response.close()


def test_a_stream_ends_after_its_lifetime_and_forgets_its_watch(app, notifier, make_table):
    app.config["LEAFPILE_STREAM_LIFETIME"] = 0.1
    app.config["LEAFPILE_STREAM_HEARTBEAT"] = 0.02
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    response = app.test_client().get(f"/t/{table.token}/stream")
    assert response.status_code == 200
    assert response.get_data(as_text=True).endswith("event: beat\ndata: 0\n\n")  # ends by itself
    assert notifier.watching() == 0


@pytest.mark.parametrize(
    "path",
    [
        "/t/nosuchtable/stream",
        "/v/nosuchtable/stream",
        "/t/%00/stream",
        "/t/" + "x" * 65 + "/stream",
    ],
)
def test_a_stream_of_no_table_is_a_plain_404(app, client, notifier, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.mimetype in ("text/plain", "text/html")
    assert notifier.watching() == 0


def test_a_stream_is_read_with_get_only(app, client, make_table):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    assert client.post(f"/t/{table.token}/stream").status_code == 405


def test_the_board_falls_back_to_a_slow_poll(app, phone, make_table):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    page = phone.get(f"/t/{table.token}").get_data(as_text=True)
    assert 'hx-trigger="every 60s, wake"' in page
    assert "/static/stream." in page
    app.config["LEAFPILE_FALLBACK_POLL_SECONDS"] = 3600
    page = phone.get(f"/t/{table.token}").get_data(as_text=True)
    assert 'hx-trigger="every 3600s, wake"' in page


# --- across processes: another app on the same database ---------------------------


def test_another_app_on_the_same_database_hears_every_commit(app, make_table, phone):
    """What a second worker (or server) sees: SQLite's data_version watch, or
    PostgreSQL's LISTEN, brings the first app's commits to its streams."""
    from companion import create_app

    keys = ("TESTING", "DATABASE_URL", "SECRET_KEY", "INSTANCE_PATH")
    other = create_app({key: app.config[key] for key in keys})
    notifier = other.extensions["leafpile_notifier"]
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    watch = notifier.watch(table.token, 0)
    bridge = other.extensions["leafpile_bridge"]
    bridge.start()
    if hasattr(bridge, "connected"):  # PostgreSQL: listening before the write
        assert bridge.connected.wait(30)
    # (SQLite's watch catches up on its first look whenever that comes.)
    assert phone.act(table, "add-round", score0="1", score1="2").status_code == 200
    assert watch.wait(30) and watch.version == 1
    app.extensions["leafpile_store"].delete_table(table.token)
    assert watch.wait(30) and watch.version == MOVED
    notifier.forget(watch)
    other.extensions["leafpile_store"].engine.dispose()


def test_on_sqlite_another_process_hears_a_change_from_its_event_alone(
    app, make_table, phone, monkeypatch
):
    """The SQLite watch reads the events written since it last looked, not
    every watched table's version on each commit: with the full read put off
    for an hour, an entry still reaches the other app's stream at once."""
    from companion import create_app
    from companion.tables import notify

    if not app.extensions["leafpile_store"].is_sqlite:
        pytest.skip("PostgreSQL processes hear each other through LISTEN")
    keys = ("TESTING", "DATABASE_URL", "SECRET_KEY", "INSTANCE_PATH")
    other = create_app({key: app.config[key] for key in keys})
    notifier = other.extensions["leafpile_notifier"]
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    watch = notifier.watch(table.token, 0)
    monkeypatch.setattr(notify, "SQLITE_FULL_CHECK_SECONDS", 3600.0)
    other.extensions["leafpile_bridge"].start()
    time.sleep(0.5)  # the watch's first look (its one full read) is done
    assert phone.act(table, "add-round", score0="1", score1="2").status_code == 200
    assert watch.wait(10) and watch.version == 1
    assert phone.act(table, "add-round", score0="3", score1="4").status_code == 200
    assert watch.wait(10) and watch.version == 2
    notifier.forget(watch)
    other.extensions["leafpile_store"].engine.dispose()


# --- secrets: the stream is the same whatever the hidden card ----------------------


def _stream_seen_by_ben(app, store, new_client_phone, card: int) -> list[str]:
    from tests.tables.test_live_table import seated_phones, slugged_venture

    table = slugged_venture(store)
    phones = seated_phones(new_client_phone, table, ["Ana", "Ben"])
    ben_stream = phones["Ben"].client.get(f"/t/{table.token}/stream", buffered=False)
    spectator_stream = app.test_client().get(f"/v/{table.view_token}/stream", buffered=False)
    assert phones["Ana"].act(table, "bid", player="Ana", card=str(card)).status_code == 200
    seen = _events(ben_stream, 2) + _events(spectator_stream, 2)
    ben_stream.close()
    spectator_stream.close()
    return seen


def test_the_stream_says_the_same_whatever_the_hidden_bid(app, store, new_client_phone):
    # Ana bids 7 at one table and 2 at another: Ben's stream and a spectator's
    # carry the same bytes (only the version), so a secret has no way out here.
    with_seven = _stream_seen_by_ben(app, store, new_client_phone, 7)
    with_two = _stream_seen_by_ben(app, store, new_client_phone, 2)
    assert (
        with_seven
        == with_two
        == [
            "retry: 2000\nid: 1\ndata: 1",
            "id: 2\ndata: 2",
            "retry: 2000\nid: 1\ndata: 1",
            "id: 2\ndata: 2",
        ]
    )
