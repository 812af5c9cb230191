"""Crash safety: SIGKILL the server between actions and in the middle of
requests, start it again, and nothing a phone was told was saved is gone.

The server runs as a real process (``leafpile``, and gunicorn with its
workers, alternately) on loopback against the test database. Phones keep
posting from several threads while the whole process group is killed; one
request is always left half-sent, so a kill lands inside a request for sure.
After each restart: every acknowledged action is in the log exactly once, the
log has no gaps, SQLite's own integrity check passes, and the state equals a
replay of the log.
"""

from __future__ import annotations

import http.client
import os
import random
import signal
import socket
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import pytest

from companion.tables.store import Event, Store, effective_actions, replay
from tests.operations.test_concurrency import (
    HttpPhone,
    board_version,
    serve,
    shown_totals,
)
from tests.operations.test_concurrency import db_url as db_url  # noqa: F401  (fixture)

CYCLES = 3
WRITERS = 4
# How long the test waits for the first acknowledged write before a kill. A
# condition, not a delay: on a quiet machine it comes in milliseconds; the
# bound only keeps a broken server from hanging the suite.
FIRST_WRITE_TIMEOUT = 120


def _marker(scores: list[int]) -> tuple[int, int]:
    return scores[0], scores[1]


class Writers:
    """Phones posting rounds as fast as they can until the server dies."""

    def __init__(self, url: str, token: str, cycle: int) -> None:
        self.url, self.token, self.cycle = url, token, cycle
        self.acknowledged: list[tuple[int, int]] = []
        self.attempted: list[tuple[int, int]] = []
        self.statuses: Counter[int] = Counter()
        self.lock = threading.Lock()
        self.first_acknowledged = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(w,)) for w in range(WRITERS)]

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def join(self) -> None:
        for t in self.threads:
            t.join(timeout=90)
        assert not any(t.is_alive() for t in self.threads)

    def _run(self, writer: int) -> None:
        try:
            phone = HttpPhone(self.url, timeout=60).open()
            version = board_version(phone.request("GET", f"/t/{self.token}/board").body)
        except (OSError, http.client.HTTPException):
            return  # killed before this phone got going
        for n in range(1000):  # bounded: the kill comes long before the end
            marker = (10_000 * self.cycle + 1000 * writer + n, 7)
            with self.lock:
                self.attempted.append(marker)
            form = {
                "action": "add-round",
                "version": str(version),
                "score0": str(marker[0]),
                "score1": str(marker[1]),
            }
            try:
                answer = phone.post(f"/t/{self.token}/act", form)
            except (OSError, http.client.HTTPException):
                return  # the server died mid-request: not acknowledged
            with self.lock:
                self.statuses[answer.status] += 1
                if answer.status == 200:
                    self.acknowledged.append(marker)
                    self.first_acknowledged.set()
            if answer.status not in (200, 409):
                return
            version = board_version(answer.body)


def _half_request(port: int, token: str) -> socket.socket:
    """A POST whose body never finishes: the server is inside it when killed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(
        f"POST /t/{token}/act HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n"
        "action=add-round&version=".encode()
    )
    return s


def _check_log(
    store: Store, token: str, acknowledged: list[tuple[int, int]], attempted: set[tuple[int, int]]
) -> list[Event]:
    export = store.export(token)
    events = export["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), "a gap in the log"
    assert store.version(token) == len(events)
    logged = Counter(_marker(e["payload"]["scores"]) for e in events if e["kind"] == "action")
    doubled = [m for m, n in logged.items() if n > 1]
    assert not doubled, f"entries logged twice: {doubled}"
    lost = set(acknowledged) - set(logged)
    assert not lost, f"acknowledged entries lost: {sorted(lost)}"
    assert set(logged) <= attempted, "the log holds an entry nobody sent"
    log = [Event(e["seq"], e["kind"], e["payload"], e["seat"], None) for e in events]  # type: ignore[arg-type]
    actions, _, _ = effective_actions(log)
    assert store.snapshot(token).state == replay(store.table(token), actions)
    return log


def _sqlite_is_intact(url: str) -> None:
    if not url.startswith("sqlite:///"):
        return
    db = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        db.close()


@pytest.mark.slow
def test_sigkill_between_and_during_actions_loses_no_acknowledged_entry(tmp_path: Path, db_url):
    rng = random.Random(7)
    setup = Store(db_url)
    table = setup.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False}, seed=1)
    setup.engine.dispose()
    token = table.token
    acknowledged: list[tuple[int, int]] = []
    attempted: set[tuple[int, int]] = set()
    for cycle in range(CYCLES):
        kind = "leafpile" if cycle % 2 == 0 else "gunicorn"
        served = serve(kind, tmp_path, db_url)
        try:
            # Between actions: acknowledged one at a time, then the kill.
            phone = HttpPhone(served.url).open()
            version = board_version(phone.request("GET", f"/t/{token}/board").body)
            for n in range(3):
                marker = (-(1000 * cycle + n) - 1, 99)
                attempted.add(marker)
                answer = phone.post(
                    f"/t/{token}/act",
                    {
                        "action": "add-round",
                        "version": str(version),
                        "score0": str(marker[0]),
                        "score1": str(marker[1]),
                    },
                )
                assert answer.status == 200, answer.body[:300]
                acknowledged.append(marker)
                version = board_version(answer.body)
            phone.close()
            if cycle == 0:
                served.stop(signal.SIGKILL)
                served = serve(kind, tmp_path, db_url)
                check = Store(db_url)
                _check_log(check, token, acknowledged, attempted)
                check.engine.dispose()

            # Mid-request: writers busy, one request half-sent, then the kill.
            writers = Writers(served.url, token, cycle)
            half = _half_request(served.port, token)
            writers.start()
            # Kill only once a write has been acknowledged (however busy the
            # machine), then a moment later, while the writers are still busy.
            acknowledged_in_time = writers.first_acknowledged.wait(FIRST_WRITE_TIMEOUT)
            assert acknowledged_in_time, served.log.read_text()[-2000:]
            threading.Event().wait(rng.uniform(0.0, 0.2))
            assert served.process.poll() is None, served.log.read_text()[-2000:]
            os.killpg(served.process.pid, signal.SIGKILL)
            served.process.wait(timeout=10)
            writers.join()
            half.close()
        finally:
            served.stop(signal.SIGKILL)
        acknowledged += writers.acknowledged
        attempted |= set(writers.attempted)
        assert writers.statuses[200] > 0, writers.statuses
        assert set(writers.statuses) <= {200, 409}, writers.statuses

        _sqlite_is_intact(db_url)
        check = Store(db_url)
        _check_log(check, token, acknowledged, attempted)
        check.engine.dispose()

    # After the last restart the table plays on, and shows the replayed state.
    served = serve("leafpile", tmp_path, db_url)
    try:
        phone = HttpPhone(served.url).open()
        board = phone.request("GET", f"/t/{token}/board").body
        answer = phone.post(
            f"/t/{token}/act",
            {
                "action": "add-round",
                "version": str(board_version(board)),
                "score0": "1",
                "score1": "1",
            },
        )
        assert answer.status == 200
        acknowledged.append((1, 1))
        attempted.add((1, 1))
        final = Store(db_url)
        log = _check_log(final, token, acknowledged, attempted)
        actions, _, _ = effective_actions(log)
        totals = replay(final.table(token), actions).totals()
        assert shown_totals(answer.body) == list(totals.values())
        final.engine.dispose()
        phone.close()
    finally:
        served.stop()
    _sqlite_is_intact(db_url)
    assert len(acknowledged) > 3 * CYCLES
