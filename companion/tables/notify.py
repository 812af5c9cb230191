"""Telling the phones at a table that it changed: a nudge, never the table.

A *nudge* is a table token and its new version (or :data:`MOVED`: the table
was deleted, or a rematch started from it). The phones that watch the table
fetch their own board when they get one, through the one projection
(:mod:`companion.web.viewer`), so nothing secret ever travels this way.

Fan-out has two layers:

* :class:`Notifier`, in process memory: the streams one process holds wait
  on it, and every commit made by this process announces to it at once.
* :class:`PostgresBridge`, across processes and machines: every commit also
  sends ``NOTIFY leafpile_tables, '<token> <version>'`` in its own
  transaction (so only committed changes are announced, and only once they
  are), and one listening connection per process hands what it hears to
  that process's notifier. Several gunicorn workers, or several app servers
  on one database, need no other moving part.
* :class:`SqliteBridge`, across the processes of one machine on one SQLite
  file (gunicorn's workers in deploy/serve's default setup): SQLite has no
  NOTIFY, but ``PRAGMA data_version`` tells a connection, for the price of
  reading a counter, that another connection committed. Each process asks
  40 times a second, and only when something was committed reads the
  events written since it last looked (every change of a version writes
  one), plus, every few seconds, the versions of every table its streams
  watch (deleted tables and rematches write no event).

What changed is found where every write of a table ends up: the ORM flush
(:func:`_collect`) sees a table row whose ``version`` moved, a deleted table
row, or a new rematch row. So the write path names no notifier, and a new
kind of write announces itself.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event, inspect, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from .models import TableRow

log = logging.getLogger(__name__)

CHANNEL = "leafpile_tables"
#: The "version" of a table that was deleted or that a rematch replaced: a
#: phone that gets it always fetches (and is sent on from there).
MOVED = -1


@dataclass(eq=False)
class Watch:
    """One stream's interest in one table: the newest version announced."""

    token: str
    version: int
    _wake: threading.Event = field(default_factory=lambda: threading.Event())

    def wait(self, timeout: float) -> bool:
        """Block until a nudge newer than the last one, or ``timeout``; True if nudged.

        A nudge that lands between the timeout and the clearing of the wake-up
        sets ``version`` yet reads as not nudged: what is news is decided by
        comparing ``version``, as the stream does, never by this answer."""
        nudged = self._wake.wait(timeout)
        self._wake.clear()
        return nudged


class Notifier:
    """The tables this process's streams watch, and a way to wake them.

    ``threading`` primitives, looked up when a notifier is made: under gevent
    (the servers that hold streams) they are gevent's, under threads they are
    the OS's, and the code is the same.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watches: dict[str, set[Watch]] = {}

    def watch(self, token: str, version: int) -> Watch:
        found = Watch(token, version)
        with self._lock:
            self._watches.setdefault(token, set()).add(found)
        return found

    def forget(self, watch: Watch) -> None:
        with self._lock:
            watches = self._watches.get(watch.token)
            if watches is not None:
                watches.discard(watch)
                if not watches:
                    del self._watches[watch.token]

    def publish(self, token: str, version: int) -> int:
        """Wake the streams of ``token`` that have not seen ``version`` yet; how many."""
        woken = 0
        with self._lock:
            for watch in self._watches.get(token, ()):
                if version == MOVED or version > watch.version:
                    watch.version = version
                    watch._wake.set()
                    woken += 1
        return woken

    def watched(self) -> list[str]:
        with self._lock:
            return list(self._watches)

    def watching(self) -> int:
        """How many streams wait (for the benchmark and the tests)."""
        with self._lock:
            return sum(len(w) for w in self._watches.values())


# --- finding what a commit changed ------------------------------------------------

_PENDING = "leafpile_nudges"


@dataclass
class _Target:
    notifier: Notifier
    postgres: bool


_TARGETS: weakref.WeakKeyDictionary[Engine, _Target] = weakref.WeakKeyDictionary()


def attach(engine: Engine, notifier: Notifier) -> None:
    """Announce every table change committed through ``engine`` to ``notifier``
    (and, on PostgreSQL, to every process listening on the database)."""
    _TARGETS[engine] = _Target(notifier, engine.dialect.name == "postgresql")


def _target(session: Session) -> tuple[_Target, Any] | None:
    try:
        connection = session.connection()
    except Exception:  # a session with nothing bound: not ours
        return None
    target = _TARGETS.get(connection.engine)
    return (target, connection) if target is not None else None


@event.listens_for(Session, "after_flush")
def _collect(session: Session, _context: Any) -> None:
    nudges: dict[str, int] = {}
    rematched: list[int] = []
    for obj in session.dirty:
        if isinstance(obj, TableRow) and inspect(obj).attrs.version.history.has_changes():
            nudges[obj.token] = obj.version
    for obj in session.deleted:
        if isinstance(obj, TableRow):
            nudges[obj.token] = MOVED
    for obj in session.new:
        if getattr(type(obj), "__tablename__", None) == "rematches":  # results.RematchRow
            rematched.append(obj.old_table_id)
    if not nudges and not rematched:
        return
    found = _target(session)
    if found is None:
        return
    target, connection = found
    if rematched:
        rows = connection.execute(select(TableRow.token).where(TableRow.id.in_(rematched)))
        nudges.update((token, MOVED) for (token,) in rows)
    _queue(session, target, connection, nudges)


def announce(session: Session, token: str, version: int) -> None:
    """Announce a table's new version when ``session`` commits: for a write
    made with plain statements, which the flush hook above never sees."""
    found = _target(session)
    if found is not None:
        _queue(session, *found, {token: version})


def publish(engine: Engine, token: str, version: int) -> None:
    """Announce a version committed through ``engine`` without a session (a
    plain write on SQLite, where no other process needs a NOTIFY)."""
    target = _TARGETS.get(engine)
    if target is not None:
        target.notifier.publish(token, version)


def _queue(session: Session, target: _Target, connection: Any, nudges: dict[str, int]) -> None:
    if target.postgres:
        # Transactional: PostgreSQL delivers it at commit, never on a rollback.
        for token, version in nudges.items():
            connection.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": CHANNEL, "payload": f"{token} {version}"},
            )
    session.info.setdefault(_PENDING, {}).update(nudges)
    session.info["leafpile_target"] = target


@event.listens_for(Session, "after_commit")
def _announce(session: Session) -> None:
    nudges = session.info.pop(_PENDING, None)
    target = session.info.pop("leafpile_target", None)
    if nudges and target is not None:
        for token, version in nudges.items():
            target.notifier.publish(token, version)


@event.listens_for(Session, "after_rollback")
def _drop(session: Session) -> None:
    session.info.pop(_PENDING, None)
    session.info.pop("leafpile_target", None)


# --- across processes: PostgreSQL LISTEN ------------------------------------------


def parse_payload(payload: str) -> tuple[str, int] | None:
    """``'<token> <version>'`` -> (token, version); None for anything else."""
    token, _, version = payload.partition(" ")
    try:
        number = int(version)
    except ValueError:
        return None
    if not token or (number < 0 and number != MOVED):
        return None
    return token, number


class PostgresBridge:
    """One listening connection for this process: what any process commits
    reaches the streams this one holds.

    Started by the first stream (never while the app is built, so a forked
    gunicorn worker opens its own). When the connection drops it reconnects
    with a growing pause, then asks the database for the version of every
    watched table, so a nudge lost meanwhile is made up for at once.
    """

    def __init__(self, engine: Engine, notifier: Notifier) -> None:
        self.engine = engine
        self.notifier = notifier
        self._started = False
        self._lock = threading.Lock()
        self.connected = threading.Event()

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, name="leafpile-listen", daemon=True).start()

    def _run(self) -> None:
        pause = 0.5
        while True:
            try:
                self._listen()
            except Exception as exc:  # the database went away: try again, slower
                log.warning("listening for table changes failed (%s); retrying", exc)
            self.connected.clear()
            time.sleep(pause * random.uniform(0.8, 1.2))
            pause = min(pause * 2, 30.0)

    def _listen(self) -> None:
        import psycopg  # the postgres extra; only imported when PostgreSQL is in use

        url = self.engine.url.set(drivername="postgresql")
        dsn = url.render_as_string(hide_password=False)
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            self.connected.set()
            self._catch_up(connection, self.notifier.watched())
            while True:
                for note in connection.notifies(timeout=30.0):
                    found = parse_payload(note.payload)
                    if found is not None:
                        self.notifier.publish(*found)
                connection.execute("SELECT 1")  # a dead connection shows here

    def _catch_up(self, connection: Any, tokens: Iterable[str]) -> None:
        tokens = list(tokens)
        if not tokens:
            return
        rows = dict(
            connection.execute(
                "SELECT token, version FROM tables WHERE token = ANY(%s)", (tokens,)
            ).fetchall()
        )
        for token in tokens:
            self.notifier.publish(token, int(rows[token]) if token in rows else MOVED)


# --- across the processes of one machine: SQLite ------------------------------------

#: How often each process asks SQLite whether another connection committed.
SQLITE_CHECK_SECONDS = 0.025  # a PRAGMA costs microseconds; a late nudge costs a player
#: How often, at most, it also reads the version of every watched table: the
#: events alone miss a deleted table and a rematch (see SqliteBridge).
SQLITE_FULL_CHECK_SECONDS = 2.0
_CHUNK = 500  # tokens a query (SQLite's older builds allow 999 parameters)


class SqliteBridge:
    """Changes committed by other processes on the same SQLite file reach the
    streams this process holds, within about ``SQLITE_CHECK_SECONDS``.

    One connection of its own, held for the process's life; started by the
    first stream, like :class:`PostgresBridge`.

    Every change of a table's version writes an event row, and SQLite has one
    writer at a time, so event ids grow in the order their writes commit:
    the events with an id above the last one seen are exactly the changes
    committed since (a few rows, read through the primary key). Reading every
    watched table's version instead, as each of 150 commits a second makes
    ``data_version`` move, took a tenth of the server's time. What writes no
    event (a deleted table, a rematch) or could slip past the ids (an id used
    again after the newest events were deleted with their table) is caught
    by the full read, made at most every ``SQLITE_FULL_CHECK_SECONDS`` when
    something was committed.
    """

    def __init__(self, engine: Engine, notifier: Notifier) -> None:
        self.engine = engine
        self.notifier = notifier
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, name="leafpile-sqlite-watch", daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                self._watch()
            except Exception as exc:  # a locked or vanished file: try again shortly
                log.warning("watching the database for changes failed (%s); retrying", exc)
            time.sleep(1.0)

    def _watch(self) -> None:
        connection = self.engine.raw_connection()
        try:
            last: int | None = None
            newest_event = -1  # none yet: the first full check, made at once, sets it
            full_check_due = 0.0  # at once: a stream may have missed a change meanwhile
            committed_since_full_check = True
            while True:
                time.sleep(SQLITE_CHECK_SECONDS)
                cursor = connection.cursor()
                try:
                    counter = cursor.execute("PRAGMA data_version").fetchone()[0]
                    if counter != last:
                        last = counter
                        committed_since_full_check = True
                        if newest_event >= 0:
                            newest_event = self._new_events(cursor, newest_event)
                    if committed_since_full_check and time.monotonic() >= full_check_due:
                        committed_since_full_check = False
                        full_check_due = time.monotonic() + SQLITE_FULL_CHECK_SECONDS
                        # Read before the versions: an event after it is the next
                        # look's. Also sets the mark back when deleted events
                        # let SQLite number new ones below it.
                        newest_event = self._newest_event(cursor)
                        # A stream opened later reads its table's version itself.
                        tokens = self.notifier.watched()
                        if tokens:
                            self._catch_up(cursor, tokens)
                finally:
                    cursor.close()
                connection.rollback()  # end the read: the next one sees new commits
        finally:
            connection.close()

    @staticmethod
    def _newest_event(cursor: Any) -> int:
        return int(cursor.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])

    def _new_events(self, cursor: Any, after: int) -> int:
        """Announce the versions the events after id ``after`` made; the newest id."""
        rows = cursor.execute(
            "SELECT e.id, t.token, e.seq FROM events e JOIN tables t ON t.id = e.table_id"
            " WHERE e.id > ? ORDER BY e.id",
            (after,),
        ).fetchall()
        if not rows:
            return after
        for _, token, version in rows:
            self.notifier.publish(token, int(version))
        return int(rows[-1][0])

    def _catch_up(self, cursor: Any, tokens: list[str]) -> None:
        for start in range(0, len(tokens), _CHUNK):
            chunk = tokens[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            found = dict(
                cursor.execute(
                    f"SELECT token, version FROM tables WHERE token IN ({marks})", chunk
                ).fetchall()
            )
            moved = {
                token
                for (token,) in cursor.execute(
                    "SELECT o.token FROM rematches r JOIN tables o ON o.id = r.old_table_id"
                    f" WHERE o.token IN ({marks})",
                    chunk,
                ).fetchall()
            }
            for token in chunk:
                if token in moved or token not in found:
                    self.notifier.publish(token, MOVED)
                else:
                    self.notifier.publish(token, int(found[token]))
