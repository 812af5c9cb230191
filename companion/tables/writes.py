"""Writing to a table's log: actions, undo and redo, with the version checks
that let independent writes from several phones through and refuse stale
ones.

Writes carry the version the phone saw. A write made on an older version is
checked against the table as it is now: it is accepted when it is still
legal and nothing it depends on (the game's ``GameKind.depends_on``) changed
since that version, so secret bids and reveals from several phones never
refuse each other; otherwise it is refused as stale. A unique (table, seq)
key means two writers can never both append the same version, on SQLite or
PostgreSQL alike. A finished game's result rows are written in the same
transaction (:func:`companion.tables.results.record`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session

from companion.rules.errors import RuleError

from . import notify, results
from .checks import TAP_ID, plain_text
from .core import StoreCore
from .errors import (
    ALREADY_ENTERED_MESSAGE,
    NO_TABLE,
    NOTHING_TO_REDO,
    NOTHING_TO_UNDO,
    STALE_MESSAGE,
    TAP_UNKNOWN_MESSAGE,
    AlreadyEntered,
    NoSuchTable,
    NothingToUndo,
    StaleVersion,
    TableError,
    TapUnknown,
)
from .games import load, logged
from .log import Event, Snapshot, _view, reopened_round, snapshot_of, walk_log
from .models import MAX_NAME_LENGTH, EventRow, TableRow, _now


@dataclass(frozen=True)
class _WriteStatements:
    """An entry's statements in the driver's own dialect, sent straight to it.

    Through the ORM an entry cost about 0.7 ms of CPU (its unit of work, the
    row's identity map), the largest part of a change's work on the server;
    these three cost a fraction of that, and the lock and the tap check
    are one round trip on PostgreSQL.
    """

    lock: str  # the table's id and version, and the seq of an entry with this tap id
    bump: str  # the table's new version
    append: str  # the entry
    postgres: bool

    @classmethod
    def for_store(cls, marker: str, postgres: bool) -> _WriteStatements:
        m = marker
        return cls(
            lock=(
                f"SELECT t.id, t.version, (SELECT e.seq FROM events e"
                f" WHERE e.table_id = t.id AND e.tap = {m}) FROM tables t WHERE t.token = {m}"
                # SQLite's BEGIN IMMEDIATE already holds the whole file.
                + (" FOR UPDATE OF t" if postgres else "")
            ),
            bump=f"UPDATE tables SET version = {m}, updated_at = {m} WHERE id = {m}",
            append=(
                "INSERT INTO events (table_id, seq, kind, payload, seat, created_at, device, tap)"
                f" VALUES ({m}, {m}, {m}, {m}{'::json' if postgres else ''}, {m}, {m}, {m}, {m})"
            ),
            postgres=postgres,
        )

    def timestamp(self, moment: datetime) -> Any:
        """``moment`` as SQLAlchemy's DateTime stores it: the driver's own on
        PostgreSQL, SQLAlchemy's fixed text format on SQLite."""
        return moment if self.postgres else moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def _driver_cursor(session: Session) -> Any:
    """A cursor of the driver connection under ``session``'s transaction
    (begun here: on SQLite that is the writer's BEGIN IMMEDIATE)."""
    return session.connection().connection.driver_connection.cursor()  # type: ignore[union-attr]


def _table_row(session: Session, table_id: int) -> TableRow:
    """The table's row as it is now in this transaction, for the rarer writes
    that replay its log (undo, redo, a stale phone, a snapshot not cached)."""
    row = session.get(TableRow, table_id, populate_existing=True)
    assert row is not None  # locked by this transaction
    return row


@dataclass(frozen=True)
class _Entry:
    """One write asked for: an action, an undo or a redo."""

    token: str
    expected_version: int
    kind: str
    payload: dict[str, Any] | None
    seat: str | None
    device: str | None
    tap: str | None
    follows: Sequence[str]


class _NeedsTheSession(Exception):
    """A step of a plain write that only the ORM's way takes (see
    ``WritesMixin._plain_transaction``)."""


@dataclass
class _Writing:
    """One write's transaction: the driver cursor its statements go through
    and, on the ORM's way, the session its rarer steps need."""

    cursor: Any
    orm: Session | None
    versions: dict[str, int] = field(default_factory=dict)

    @property
    def session(self) -> Session:
        if self.orm is None:
            raise _NeedsTheSession
        return self.orm

    def announce(self, token: str, version: int) -> None:
        """Nudge the table's phones once this transaction commits."""
        if self.orm is not None:
            notify.announce(self.orm, token, version)
        else:
            self.versions[token] = version

    def committed(self, engine: Engine) -> None:
        """A plain transaction committed: the nudges it announced go out."""
        for token, version in self.versions.items():
            notify.publish(engine, token, version)


class WritesMixin(StoreCore):
    """Appending actions, undos and redos to a table's log."""

    @cached_property
    def _writing(self) -> _WriteStatements:
        return _WriteStatements.for_store(self._marker, postgres=not self.is_sqlite)

    @contextmanager
    def _pipelined(self, cursor: Any) -> Iterator[None]:
        """On PostgreSQL, the block's statements go out without waiting for
        each answer (psycopg's pipeline mode): BEGIN with the lock, then the
        writes with the nudge, so an entry is three round trips with COMMIT,
        not six. Under gevent each also waits for the event loop's next turn.
        Plain driver statements only: the ORM cannot read a pipeline's rows."""
        if not self._writing.postgres:
            yield
            return
        dbapi = self.engine.dialect.loaded_dbapi
        try:
            with cursor.connection.pipeline():
                yield
        except dbapi.Error as exc:  # a write refused when the pipeline's answers came
            raise DBAPIError.instance("(pipeline)", None, exc, dbapi.Error) from exc

    def _plain(self, cursor: Any, sql: str, params: tuple[Any, ...]) -> Any:
        """Run one statement on the driver's cursor; its errors come out as
        SQLAlchemy's (IntegrityError, OperationalError), as the ORM's would."""
        dbapi = self.engine.dialect.loaded_dbapi
        try:
            cursor.execute(sql, params)
        except dbapi.Error as exc:
            raise DBAPIError.instance(sql, params, exc, dbapi.Error) from exc
        return cursor

    def act(
        self,
        token: str,
        expected_version: int,
        action: Any,
        seat: str | None = None,
        *,
        device: str | None = None,
        tap: str | None = None,
        follows: Sequence[str] = (),
    ) -> Snapshot:
        """Append one action if it is legal now; raise without writing if not.

        ``action`` is a rules action (a ``companion.rules`` dataclass) or the
        log's JSON for one; it is written as :func:`logged` makes it.
        ``follows``: the tap ids of the taps this phone queued before this
        one (offline), sent first: their entries are no conflict with it.
        """
        try:
            # Apply exactly what the log will hold after a JSON round trip.
            payload = json.loads(json.dumps(logged(action)))
        except (TypeError, ValueError) as exc:
            raise TableError(f"this action cannot be recorded: {exc}") from exc
        return self._append(token, expected_version, "action", payload, seat, device, tap, follows)

    def undo(
        self,
        token: str,
        expected_version: int,
        seat: str | None = None,
        *,
        device: str | None = None,
        tap: str | None = None,
        follows: Sequence[str] = (),
    ) -> Snapshot:
        """Take back the last entry; an entry that revealed a secret round
        takes back the whole round instead (LT4: see :func:`reopened_round`)."""
        return self._append(token, expected_version, "undo", None, seat, device, tap, follows)

    def redo(
        self,
        token: str,
        expected_version: int,
        seat: str | None = None,
        *,
        device: str | None = None,
        tap: str | None = None,
        follows: Sequence[str] = (),
    ) -> Snapshot:
        return self._append(token, expected_version, "redo", None, seat, device, tap, follows)

    def _append(
        self,
        token: str,
        expected_version: int,
        kind: str,
        payload: dict[str, Any] | None,
        seat: str | None,
        device: str | None = None,
        tap: str | None = None,
        follows: Sequence[str] = (),
    ) -> Snapshot:
        tap = tap if tap and TAP_ID.fullmatch(tap) else None
        self._warm(token)
        entry = _Entry(token, expected_version, kind, payload, seat, device, tap, follows)
        try:
            if self.is_sqlite:
                try:
                    with self._plain_transaction() as writing:
                        return self._append_in(writing, entry)
                except _NeedsTheSession:
                    pass  # rolled back, nothing written: the ORM's way below
            with self._write() as session, closing(_driver_cursor(session)) as cursor:
                return self._append_in(_Writing(cursor, session), entry)
        except IntegrityError as exc:
            # Another writer got this version first; or the same tap arrived
            # twice at once and the other copy was entered (the unique index).
            if tap is not None and self._tap_entered(token, tap):
                raise AlreadyEntered(ALREADY_ENTERED_MESSAGE) from exc
            raise StaleVersion(STALE_MESSAGE) from exc
        except OperationalError as exc:
            # The lock was held too long (nothing was written), or the
            # database went away, perhaps after committing: with a tap id,
            # ask the log rather than guess. Without one nothing can be
            # asked: the database's own error goes up and the phone is told
            # to wait and send it again (503), never that the table changed.
            if tap is None:
                raise
            try:
                entered = self._tap_entered(token, tap)
            except Exception:  # still unreachable: say that we do not know
                raise TapUnknown(TAP_UNKNOWN_MESSAGE) from exc
            if entered:
                raise AlreadyEntered(ALREADY_ENTERED_MESSAGE) from exc
            raise StaleVersion(STALE_MESSAGE) from exc

    def _append_in(self, writing: _Writing, entry: _Entry) -> Snapshot:
        """Append ``entry`` in ``writing``'s transaction; the snapshot after it."""
        token, kind, payload, cursor = entry.token, entry.kind, entry.payload, writing.cursor
        expected_version = entry.expected_version
        with self._pipelined(cursor):  # with BEGIN
            self._plain(cursor, self._writing.lock, (entry.tap, token))
        found = cursor.fetchone()
        if found is None:
            raise NoSuchTable(NO_TABLE)
        table_id, version, tap_seq = found
        if tap_seq is not None:
            raise AlreadyEntered(ALREADY_ENTERED_MESSAGE)
        before = self._cached(token, version) or self._rebuild(
            writing.session, _table_row(writing.session, table_id)
        )
        if version != expected_version and entry.follows:
            expected_version = _past_own_taps(
                writing.session, table_id, expected_version, entry.follows
            )
        if version != expected_version and not self._commutes(
            writing.session,
            _table_row(writing.session, table_id),
            before,
            expected_version,
            kind,
            payload,
        ):
            raise StaleVersion(STALE_MESSAGE)
        if kind == "undo" and not before.can_undo:
            raise NothingToUndo(NOTHING_TO_UNDO)
        if kind == "undo":
            payload = reopened_round(before)
        elif kind == "redo" and not before.can_redo:
            raise NothingToUndo(NOTHING_TO_REDO)
        version += 1
        now = _now()
        seat = entry.seat
        seat = (plain_text(seat)[: MAX_NAME_LENGTH * 4] or None) if seat else None
        event = Event(version, kind, payload, seat, now, device=entry.device)
        # The snapshot is extended by this one event: an action costs
        # one apply (which also checks it), an undo or redo none.
        try:
            walk = before.walk.then(event, strict=True)
        except RuleError as exc:
            raise TableError(exc.message) from exc
        stamp = self._writing.timestamp(now)
        with self._pipelined(cursor):
            self._plain(
                cursor,
                self._writing.append,
                (table_id, version, kind, json.dumps(payload), seat, stamp)
                + (entry.device, entry.tap),
            )
            self._plain(cursor, self._writing.bump, (version, stamp, table_id))
            writing.announce(token, version)
        after = snapshot_of(
            replace(before.table, version=version, updated_at=now),
            (*before.events, event),
            walk,
        )
        if results.rewrites(before, after):  # a finished game's rows (issue 13)
            results.record(writing.session, before, after)
        self._remember(after)
        return after

    @contextmanager
    def _plain_transaction(self) -> Iterator[_Writing]:
        """SQLite's write transaction on one of the store's own connections
        (``_own_sqlite_connection``), without SQLAlchemy: its engine
        connection, session, transaction and pool checkout cost an entry
        about 0.15 ms of the server's CPU, twice the statements and the
        commit together (issue 41). A step that needs the ORM (a log to
        replay, a stale phone's check, a finished game's result rows) raises
        :class:`_NeedsTheSession`: all is rolled back and the write goes
        the ORM's way."""
        refused: Exception | None = None
        with self._own_sqlite_connection() as connection:
            cursor = connection.cursor()
            try:
                writing = _Writing(cursor, None)
                self._plain(cursor, "BEGIN IMMEDIATE", ())
                try:
                    yield writing
                except (TableError, _NeedsTheSession) as exc:  # the connection is sound
                    connection.rollback()
                    refused = exc
                else:
                    self._plain(cursor, "COMMIT", ())
            finally:
                cursor.close()
        if refused is not None:
            raise refused
        writing.committed(self.engine)

    def _tap_entered(self, token: str, tap: str) -> bool:
        with self._read() as session:
            row = self._row(session, token)
            found = session.scalar(
                select(EventRow.seq).where(EventRow.table_id == row.id, EventRow.tap == tap)
            )
            return found is not None

    def tap_entered(self, token: str, tap: str) -> bool:
        """Whether a tap with this id is in the table's log (a retry's truthful answer)."""
        if not TAP_ID.fullmatch(tap or ""):
            return False
        return self._tap_entered(token, tap)

    def _commutes(
        self,
        session: Session,
        row: TableRow,
        now: Snapshot,
        seen_version: int,
        kind: str,
        payload: dict[str, Any] | None,
    ) -> bool:
        """Whether an action made on an older version may still be entered now.

        It may when the game says what the action depends on and that is the
        same now as in the version the phone saw: the other writes since
        then were independent of it (another player's secret bid, say).
        Undo, redo and every action of a game that names no dependency
        conflict with any change.
        """
        depends_on = load()[row.game].depends_on
        if kind != "action" or payload is None or depends_on is None:
            return False
        if not 0 <= seen_version < row.version:
            return False
        then = self._state_at(session, row, seen_version)
        try:
            key = depends_on(then, payload)
            return key is not None and bool(key == depends_on(now.state, payload))
        except Exception:  # a malformed action depends on everything; apply() says why
            return False

    def _state_at(self, session: Session, row: TableRow, version: int) -> Any:
        """The game state as it was at ``version`` of the table's log."""
        cached = self._cached(row.token, version)
        if cached is not None:
            return cached.state
        events = [
            Event(e.seq, e.kind, e.payload, e.seat, e.created_at, device=e.device)
            for e in session.scalars(
                select(EventRow)
                .where(EventRow.table_id == row.id, EventRow.seq <= version)
                .order_by(EventRow.seq)
            )
        ]
        return walk_log(_view(row), events)[1].state


def _past_own_taps(session: Session, table_id: int, seen: int, follows: Sequence[str]) -> int:
    """The version a queued tap was made on, moved past the entries of the
    taps the same phone queued before it (issue 43).

    Taps made offline are sent in order once the phone is back, each with
    the version it was made on. The entries of the ones sent first are that
    phone's own intent, not somebody else's change: the next tap is checked
    as if made after them. Only entries right after ``seen`` made by those
    taps count; the first entry of anybody else's stops the walk, so a real
    clash with another phone is still refused.
    """
    taps = {t for t in follows[:MAX_FOLLOWS] if TAP_ID.fullmatch(t)}
    if not taps:
        return seen
    rows = session.execute(
        select(EventRow.seq, EventRow.tap)
        .where(EventRow.table_id == table_id, EventRow.seq > seen)
        .order_by(EventRow.seq)
    )
    for seq, tap in rows:
        if tap not in taps:
            break
        seen = seq
    return seen


#: The most queued taps a tap may follow (a phone's offline queue is short).
MAX_FOLLOWS = 20
