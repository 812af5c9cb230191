"""Tables: a game, its setup and an append-only event log, in SQL.

A table's state is never stored: it is ``fold(apply, effective actions)``
over the log, where undo, redo and seat takeovers are events too. Writes
carry the version the phone saw. A write made on an older version is checked
against the table as it is now: it is accepted when it is still legal and
nothing it depends on (the game's ``GameKind.depends_on``) changed since that
version, so secret bids and reveals from several phones never refuse each
other; otherwise it is refused as stale. A unique (table, seq) key means two
writers can never both append the same version, on SQLite or PostgreSQL alike.

Seats bind a player's name to one phone (a device id kept in its cookie);
members are the browsers that created or opened a table, which is all the
start page lists.
"""

from __future__ import annotations

import copy
import gc
import json
import logging
import os
import re
import secrets
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from threading import Lock
from typing import Any, cast

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    event,
    insert,
    inspect,
    select,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from companion.rules.errors import RuleError

from .games import GameKind, load

# Join codes avoid look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B) so they can be read
# across a table and typed on a phone without mistakes.
JOIN_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
JOIN_CODE_LENGTH = 5
MAX_NAME_LENGTH = 24
MAX_TITLE_LENGTH = 60
STALE_MESSAGE = (
    "your tap was not entered: someone changed the table at the same moment. "
    "This is the table as it is now; check it and tap again if you still want to"
)
# How long a device id stays linked to a table with no visit (the start page list).
MEMBER_ROLES = ("host", "guest")
# What a browser without a seat may say it is (see MemberRow.mode).
PHONE_MODES = ("shared", "watching")
TAP_ID_LENGTH = 40


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    view_token: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    game: Mapped[str] = mapped_column(String(32), index=True)
    title: Mapped[str] = mapped_column(String(MAX_TITLE_LENGTH * 4))
    setup: Mapped[dict[str, Any]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=_now, index=True)


class EventRow(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="one_event_per_version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # action | undo | redo
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    seat: Mapped[str | None] = mapped_column(String(MAX_NAME_LENGTH * 4), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=_now)
    # The phone (sha256 of its device id) that made the entry: a hidden entry
    # is shown back only to that phone (LT3). Never exported.
    device: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # The id the phone gave the tap, so a tap sent twice is entered once.
    tap: Mapped[str | None] = mapped_column(String(TAP_ID_LENGTH), nullable=True)


# A unique index, not a constraint: an index can be added to an existing database.
Index("one_event_per_tap", EventRow.table_id, EventRow.tap, unique=True)


class SeatRow(Base):
    """Which phone holds a player's seat at a table (at most one phone a seat)."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "seat", name="one_phone_per_seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4))
    device: Mapped[str] = mapped_column(String(64), index=True)  # sha256 of the device id
    claimed_at: Mapped[datetime] = mapped_column(DateTime, default=_now)


class MemberRow(Base):
    """A browser that created (host) or opened (guest) a table: its start page lists it."""

    __tablename__ = "members"
    __table_args__ = (UniqueConstraint("table_id", "device", name="one_member_row"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    device: Mapped[str] = mapped_column(String(64), index=True)
    role: Mapped[str] = mapped_column(String(8))
    seen_at: Mapped[datetime] = mapped_column(DateTime, default=_now)
    # What this browser said it is when it holds no seat: "shared" (passed
    # around the table), "watching", or None (not said yet: it enters nothing).
    mode: Mapped[str | None] = mapped_column(String(8), nullable=True)
    # The seat another phone took over from this browser, and the seat that
    # phone held before (None: it held none), until this browser chooses again.
    lost_seat: Mapped[str | None] = mapped_column(String(MAX_NAME_LENGTH * 4), nullable=True)
    lost_to: Mapped[str | None] = mapped_column(String(MAX_NAME_LENGTH * 4), nullable=True)


class JoinCodeRow(Base):
    __tablename__ = "join_codes"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime)


class ArchivedTableRow(Base):
    """An expired table's export, kept so nothing is lost silently (see expire_tables)."""

    __tablename__ = "archived_tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(64), index=True)
    game: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(MAX_TITLE_LENGTH * 4))
    last_played_at: Mapped[datetime] = mapped_column(DateTime)
    archived_at: Mapped[datetime] = mapped_column(DateTime, default=_now)
    export: Mapped[dict[str, Any]] = mapped_column(JSON)


# --- errors ---------------------------------------------------------------


class TableError(ValueError):
    """A request the table cannot take; the message is for the person."""


class NoSuchTable(TableError):
    pass


class StaleVersion(TableError):
    """The phone acted on an older version than the table has now."""


class NothingToUndo(TableError):
    pass


class SeatTaken(TableError):
    """The seat is held by another phone: taking it over must be asked for."""


class SeatHasEntry(SeatTaken):
    """The seat is free, but another phone entered its hidden entry: taking
    the seat takes that entry back, so it must be asked for too."""


class AlreadyEntered(TableError):
    """A tap whose id the log already holds: it was entered once, not again."""


class TapUnknown(TableError):
    """The database could not be asked whether a tap was entered."""


TAP_UNKNOWN_MESSAGE = (
    "the table could not be reached just now, so it is not known whether your tap was "
    "entered. Reload the table and look before you tap again: a tap sent again is never "
    "entered twice"
)
ALREADY_ENTERED_MESSAGE = (
    "That tap had already reached the table and was entered once; it was not entered again"
)
# A tap id: what a phone's script makes (a random UUID or similar).
TAP_ID = re.compile(r"[A-Za-z0-9_-]{8,40}")


# --- read models ----------------------------------------------------------


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    payload: dict[str, Any] | None
    seat: str | None
    created_at: datetime
    undone: bool = False  # an action later taken back (and not redone)
    device: str | None = None  # the phone that made it (a hash; never shown or exported)


@dataclass(frozen=True)
class TableView:
    """What the views and templates need to know about one table."""

    id: int
    token: str
    view_token: str
    game: str
    title: str
    players: tuple[str, ...]
    options: dict[str, Any]
    seed: int
    version: int
    created_at: datetime
    updated_at: datetime

    @property
    def kind(self) -> GameKind:
        return load()[self.game]


@dataclass(frozen=True)
class Snapshot:
    """A table at one version: its state and what undo/redo would do."""

    table: TableView
    state: Any
    actions: tuple[dict[str, Any], ...]  # the effective actions, in order
    events: tuple[Event, ...]
    can_undo: bool
    can_redo: bool


@dataclass(frozen=True)
class ViewerFacts:
    """What the database knows of one browser at one table."""

    seats: dict[str, str]  # player name -> device hash of the phone holding it
    role: str | None  # "host", "guest", or None (never opened the table)
    mode: str | None  # "shared", "watching", or None (see MemberRow.mode)
    lost_seat: str | None  # a seat another phone took from this one
    lost_to: str | None  # the seat that phone held before, if any


def entry_maker(snap: Snapshot, player: str) -> str | None:
    """The phone that made ``player``'s latest entry that still counts (a
    hidden bid or card, when the round is open), or None if unknown."""
    kind = snap.table.kind
    for ev in reversed(snap.events):
        counts = ev.kind == "action" and not ev.undone and ev.payload is not None
        if counts and player in kind.personal(ev.payload or {}):
            return ev.device
    return None


@dataclass(frozen=True)
class LogResolution:
    """What a log adds up to: the actions that count, the redo stack, the
    seqs of actions that do not count now, and how many of the counting
    actions can no longer be undone (they came before a seat takeover)."""

    actions: list[dict[str, Any]]
    redo: list[dict[str, Any]]
    undone: set[int]
    floor: int


def undo_size(payload: Mapping[str, Any] | None) -> int:
    """How many actions one undo event takes back: one, or every entry of
    the secret round it reopens (LT4)."""
    entries = (payload or {}).get("entries", 1)
    return (
        entries if isinstance(entries, int) and not isinstance(entries, bool) and entries > 0 else 1
    )


def resolve_log(events: Sequence[Event]) -> LogResolution:
    """Resolve undo, redo and seat takeovers over a table's log."""
    done: list[tuple[int, dict[str, Any]]] = []
    redo: list[list[tuple[int, dict[str, Any]]]] = []  # what each undo took back
    floor = 0
    for ev in events:
        if ev.kind == "action" and ev.payload is not None:
            done.append((ev.seq, ev.payload))
            redo.clear()
        elif ev.kind == "undo" and len(done) > floor:
            size = min(undo_size(ev.payload), len(done) - floor)
            redo.append(done[-size:])
            del done[-size:]
        elif ev.kind == "redo" and redo:
            done.extend(redo.pop())
        elif ev.kind == "seat":
            # A seat moved to another phone, taking back what the seat had
            # hidden. Nothing before it can be undone or redone: an undo
            # would hand the seat's old secret to the new phone.
            withdrawn = (ev.payload or {}).get("action")
            if isinstance(withdrawn, dict):
                done.append((ev.seq, withdrawn))
            redo.clear()
            floor = len(done)
    # Undone: every action that does not count now, whether it can still be
    # redone or a later action closed the redo stack. (Only the redo stack
    # used to count, so a fresh replay lost the mark that the writing
    # process kept, and two workers showed two different histories.)
    counting = {seq for seq, _ in done}
    undone = {
        ev.seq
        for ev in events
        if ev.kind == "action" and ev.payload is not None and ev.seq not in counting
    }
    redoable = [a for group in redo for _, a in reversed(group)]
    return LogResolution([a for _, a in done], redoable, undone, floor)


def reopened_round(snap: Snapshot) -> dict[str, Any] | None:
    """The payload of an undo made now: None to take back the last entry
    alone, or ``{"type": "ReopenRound", "entries": n}`` when the last entry
    completed a secret round (LT4).

    Undoing only the entry that revealed a round would let its maker see
    every bid and then bid again while the others' revealed bids stand. So
    the undo takes back every entry of that round, everyone enters again,
    and the log says so. A round a seat takeover cut in two cannot be
    reopened: its entries before the takeover cannot be undone (LT1).
    """
    kind = snap.table.kind
    if not snap.actions:
        return None
    states = [kind.new_state(snap.table.players, snap.table.options, snap.table.seed)]
    for action in snap.actions:
        states.append(kind.apply(states[-1], action))
    last = len(snap.actions) - 1
    key = kind.open_round(states[last])
    if key is None or kind.open_round(states[last + 1]) == key:
        return None
    floor = resolve_log(snap.events).floor
    start = last
    while start > 0 and kind.open_round(states[start - 1]) == key:
        start -= 1
    if start < floor:
        raise TableError(
            "that undo would reopen the round just revealed, but a seat moved to another "
            "phone during that round, so the round stays as it was revealed"
        )
    return {"type": "ReopenRound", "entries": last - start + 1}


def effective_actions(
    events: Sequence[Event],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[int]]:
    """Resolve undo/redo: (effective actions, redo stack, seqs of undone actions)."""
    resolved = resolve_log(events)
    return resolved.actions, resolved.redo, resolved.undone


# --- the store ------------------------------------------------------------


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" hook below issue BEGIN, so writers can ask
        # for BEGIN IMMEDIATE and queue for the lock instead of failing late.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql(connection.get_execution_options().get("sqlite_begin", "BEGIN"))


def _private_sqlite_file(database: str | None) -> None:
    """Create a new SQLite file (and a missing folder) readable by its owner only.

    The tables' addresses are their keys, so the database is as secret as the
    session key. SQLite gives its -wal and -shm files the database's mode.
    """
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


# Any fixed number: the PostgreSQL advisory lock that serialises creating the schema.
_SCHEMA_LOCK = 0x1EAF911E


def _create_schema(engine: Engine) -> None:
    """Create the tables once, even when several workers start at the same moment.

    Without a lock, two gunicorn workers booting together on an empty database
    both see no tables and both CREATE them; the second fails and its worker
    dies. One lock-holding transaction makes the later ones find the tables.
    """
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(sqlite_begin="BEGIN IMMEDIATE")
        with conn.begin():
            if engine.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_SCHEMA_LOCK})")
            Base.metadata.create_all(conn)
            _add_missing_columns(conn)


def _add_missing_columns(conn: Any) -> None:
    """Bring a database made by an earlier version up to this schema.

    Every column added since the first release is nullable, so adding it to
    an existing table is one ALTER TABLE; new indexes are created if absent.
    """
    inspector = inspect(conn)
    for table in Base.metadata.sorted_tables:
        if not inspector.has_table(table.name):
            continue
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in present:
                assert column.nullable, f"{table.name}.{column.name} must be nullable to add"
                kind = column.type.compile(dialect=conn.dialect)
                conn.exec_driver_sql(f"ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}")
        for index in table.indexes:
            index.create(conn, checkfirst=True)


class Store:
    """All reads and writes of tables. One per app; safe across threads."""

    def __init__(self, url: str) -> None:
        self.engine = create_engine(url, future=True, pool_pre_ping=not url.startswith("sqlite"))
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        if self.is_sqlite:
            _private_sqlite_file(self.engine.url.database)
            _sqlite_pragmas(self.engine)
        _create_schema(self.engine)
        # Keyed by token, never by id: SQLite reuses the id of a deleted table
        # (a refused import deletes its table), and a cache keyed by id would
        # then show the new table the deleted one's state.
        self._cache: OrderedDict[tuple[str, int], Snapshot] = OrderedDict()
        self._newest: dict[str, int] = {}  # token -> newest cached version
        self._cache_lock = Lock()
        marker = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(
            self.engine.dialect.paramstyle, "?"
        )
        self._version_sql = f"SELECT version FROM tables WHERE token = {marker}"
        # Every board render asks who holds which seat and what this browser
        # is: one indexed statement, straight to the driver like the version.
        self._viewer_sql = (
            "SELECT 'seat', s.seat, s.device, NULL, NULL, NULL FROM seats s"
            f" JOIN tables t ON t.id = s.table_id WHERE t.token = {marker}"
            " UNION ALL SELECT 'role', m.role, m.device, m.mode, m.lost_seat, m.lost_to"
            f" FROM members m JOIN tables t ON t.id = m.table_id"
            f" WHERE t.token = {marker} AND m.device = {marker}"
        )

    # sessions

    @contextmanager
    def _read(self) -> Iterator[Session]:
        with Session(self.engine) as session:
            yield session

    @contextmanager
    def _write(self) -> Iterator[Session]:
        with self.engine.connect() as conn:
            if self.is_sqlite:
                conn = conn.execution_options(sqlite_begin="BEGIN IMMEDIATE")
            with Session(bind=conn) as session, session.begin():
                yield session

    # tables

    def create_table(
        self,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        title: str = "",
        seed: int | None = None,
    ) -> TableView:
        """Create a table after checking the game accepts this setup."""
        row, _ = self._new_table_row(game, players, options, title, seed)
        with self._write() as session:
            session.add(row)
            session.flush()
            view = _view(row)
        return view

    @staticmethod
    def _new_table_row(
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None,
        title: str,
        seed: int | None,
    ) -> tuple[TableRow, Any]:
        """A checked, unsaved table row and the game's first state."""
        kind = load().get(game)
        if kind is None:
            raise TableError(f"there is no game called {_clip(game, 24)!r}")
        names = tuple(check_player_names(players, kind))
        options = dict(options or {})
        seed = secrets.randbelow(2**31) if seed is None else int(seed)
        try:
            state = kind.new_state(names, options, seed)
        except RuleError as exc:
            raise TableError(str(exc)) from exc
        title = plain_text(title)[:MAX_TITLE_LENGTH] or f"{kind.title}, {_short_date()}"
        row = TableRow(
            token=secrets.token_urlsafe(24),  # 192 bits: the table's URL is its key
            view_token=secrets.token_urlsafe(24),
            game=game,
            title=title,
            setup={"players": list(names), "options": options, "seed": seed},
            version=0,
        )
        return row, state

    def table(self, token: str) -> TableView:
        with self._read() as session:
            return _view(self._row(session, token))

    def table_by_view_token(self, view_token: str) -> TableView:
        _check_token(view_token)
        with self._read() as session:
            row = session.scalar(select(TableRow).where(TableRow.view_token == view_token))
            if row is None or not secrets.compare_digest(row.view_token, view_token):
                raise NoSuchTable("there is no table at this address")
            return _view(row)

    def version(self, token: str) -> int:
        """The table's version: the cheap query every phone polls."""
        _check_token(token)
        # Straight to the driver: SQLAlchemy's statement machinery cost more
        # than the indexed query itself, and every phone asks every 2 s.
        connection = self.engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(self._version_sql, (token,))
                found = cursor.fetchone()
            finally:
                cursor.close()
        finally:
            connection.close()  # back to the pool, which ends any transaction
        version = found[0] if found else None
        if version is None:
            raise NoSuchTable("there is no table at this address")
        return int(version)

    def tables(self, game: str | None = None, limit: int = 50) -> list[TableView]:
        """This server's tables, most recently played first."""
        query = select(TableRow).order_by(TableRow.updated_at.desc(), TableRow.id.desc())
        if game is not None:
            query = query.where(TableRow.game == game)
        with self._read() as session:
            return [_view(row) for row in session.scalars(query.limit(limit))]

    def delete_table(self, token: str) -> None:
        with self._write() as session:
            row = self._row(session, token)
            session.query(JoinCodeRow).filter_by(table_id=row.id).delete()
            session.query(SeatRow).filter_by(table_id=row.id).delete()
            session.query(MemberRow).filter_by(table_id=row.id).delete()
            session.query(EventRow).filter_by(table_id=row.id).delete()
            session.delete(row)

    # state

    def snapshot(self, token: str) -> Snapshot:
        """The table now: state rebuilt from the log (cached per version)."""
        # The common case (a poll, a write) finds this version in the cache:
        # one indexed version query, no ORM session, no JSON decoding.
        with suppress(NoSuchTable):
            cached = self._cached(token, self.version(token))
            if cached is not None:
                return cached
        with self._read() as session:
            row = self._row(session, token)
            cached = self._cached(row.token, row.version)
            if cached is not None:
                return cached
            return self._rebuild(session, row)

    def _rebuild(self, session: Session, row: TableRow) -> Snapshot:
        snap = self._catch_up(session, row)
        if snap is not None:
            self._remember(snap)
            return snap
        events = [
            Event(e.seq, e.kind, e.payload, e.seat, e.created_at, device=e.device)
            for e in session.scalars(
                select(EventRow).where(EventRow.table_id == row.id).order_by(EventRow.seq)
            )
        ]
        resolved = resolve_log(events)
        view = _view(row)
        state = replay(view, resolved.actions)
        events = [
            Event(
                e.seq, e.kind, e.payload, e.seat, e.created_at, e.seq in resolved.undone, e.device
            )
            for e in events
        ]
        snap = Snapshot(
            view,
            state,
            tuple(resolved.actions),
            tuple(events),
            len(resolved.actions) > resolved.floor,
            bool(resolved.redo),
        )
        self._remember(snap)
        return snap

    def _catch_up(self, session: Session, row: TableRow) -> Snapshot | None:
        """The table from an older cached version plus the actions since, if it can.

        With several workers, each caches what it served; when another worker
        wrote the last few versions, replaying the whole log here would cost
        more the longer the game. If only plain actions came since a version
        this process has, applying just those gives the same snapshot as a
        full replay. Undo or redo since then: None (replay it all).
        """
        base = self._latest_cached(row.token, below=row.version)
        if base is None:
            return None
        newer = list(
            session.scalars(
                select(EventRow)
                .where(EventRow.table_id == row.id, EventRow.seq > base.table.version)
                .order_by(EventRow.seq)
            )
        )
        if [e.seq for e in newer] != list(range(base.table.version + 1, row.version + 1)):
            return None
        payloads = [e.payload for e in newer if e.kind == "action"]
        if len(payloads) != len(newer) or any(p is None for p in payloads):
            return None  # an undo or redo came since: only a replay can say what counts
        plain = [p for p in payloads if p is not None]
        kind = load()[row.game]
        state = base.state
        for payload in plain:
            state = kind.apply(state, payload)
        added = tuple(
            Event(e.seq, e.kind, e.payload, e.seat, e.created_at, device=e.device) for e in newer
        )
        return Snapshot(
            _view(row),
            state,
            (*base.actions, *plain),
            (*base.events, *added),
            can_undo=True,
            can_redo=False,
        )

    def _latest_cached(self, token: str, below: int) -> Snapshot | None:
        with self._cache_lock:
            version = self._newest.get(token)
            if version is None or version >= below:
                return None
            return self._cache.get((token, version))

    def _cached(self, token: str, version: int) -> Snapshot | None:
        with self._cache_lock:
            snap = self._cache.get((token, version))
            if snap is not None:
                self._cache.move_to_end((token, version))
            return snap

    def _remember(self, snap: Snapshot) -> None:
        with self._cache_lock:
            self._cache[(snap.table.token, snap.table.version)] = snap
            token = snap.table.token
            if self._newest.get(token, -1) < snap.table.version:
                self._newest[token] = snap.table.version
            while len(self._cache) > 256:
                (old_token, old_version), _ = self._cache.popitem(last=False)
                if self._newest.get(old_token) == old_version:
                    del self._newest[old_token]

    # writes

    def act(
        self,
        token: str,
        expected_version: int,
        action: Mapping[str, Any],
        seat: str | None = None,
        *,
        device: str | None = None,
        tap: str | None = None,
    ) -> Snapshot:
        """Append one action if it is legal now; raise without writing if not."""
        try:
            # Apply exactly what the log will hold after a JSON round trip.
            payload = json.loads(json.dumps(dict(action)))
        except (TypeError, ValueError) as exc:
            raise TableError(f"this action cannot be recorded: {exc}") from exc
        return self._append(token, expected_version, "action", payload, seat, device, tap)

    def undo(
        self,
        token: str,
        expected_version: int,
        seat: str | None = None,
        *,
        device: str | None = None,
        tap: str | None = None,
    ) -> Snapshot:
        """Take back the last entry; an entry that revealed a secret round
        takes back the whole round instead (LT4: see :func:`reopened_round`)."""
        return self._append(token, expected_version, "undo", None, seat, device, tap)

    def redo(
        self,
        token: str,
        expected_version: int,
        seat: str | None = None,
        *,
        device: str | None = None,
        tap: str | None = None,
    ) -> Snapshot:
        return self._append(token, expected_version, "redo", None, seat, device, tap)

    def _append(
        self,
        token: str,
        expected_version: int,
        kind: str,
        payload: dict[str, Any] | None,
        seat: str | None,
        device: str | None = None,
        tap: str | None = None,
    ) -> Snapshot:
        tap = tap if tap and TAP_ID.fullmatch(tap) else None
        try:
            with self._write() as session:
                row = session.scalar(
                    select(TableRow).where(TableRow.token == token).with_for_update()
                )
                if row is None:
                    raise NoSuchTable("there is no table at this address")
                if tap is not None and session.scalar(
                    select(EventRow.seq).where(EventRow.table_id == row.id, EventRow.tap == tap)
                ):
                    raise AlreadyEntered(ALREADY_ENTERED_MESSAGE)
                before = self._cached(row.token, row.version) or self._rebuild(session, row)
                if row.version != expected_version and not self._commutes(
                    session, row, before, expected_version, kind, payload
                ):
                    raise StaleVersion(STALE_MESSAGE)
                state = None
                if kind == "action":
                    assert payload is not None
                    try:
                        state = load()[row.game].apply(before.state, payload)
                    except RuleError as exc:
                        raise TableError(str(exc)) from exc
                elif kind == "undo" and not before.can_undo:
                    raise NothingToUndo("there is nothing to undo")
                elif kind == "undo":
                    payload = reopened_round(before)
                elif kind == "redo" and not before.can_redo:
                    raise NothingToUndo("there is nothing to redo")
                row.version += 1
                row.updated_at = _now()
                new_event = EventRow(
                    table_id=row.id,
                    seq=row.version,
                    kind=kind,
                    payload=payload,
                    seat=(plain_text(seat)[: MAX_NAME_LENGTH * 4] or None) if seat else None,
                    created_at=_now(),
                    device=device,
                    tap=tap,
                )
                session.add(new_event)
                session.flush()
                if kind != "action":  # undo or redo: replay the log
                    after = self._rebuild(session, row)
                else:
                    assert payload is not None
                    # A plain action extends the previous snapshot: no replay needed.
                    after = Snapshot(
                        _view(row),
                        state,
                        (*before.actions, payload),
                        (
                            *before.events,
                            Event(
                                row.version,
                                kind,
                                payload,
                                new_event.seat,
                                new_event.created_at,
                                device=device,
                            ),
                        ),
                        can_undo=True,
                        can_redo=False,
                    )
                    self._remember(after)
                results.record(session, before, after)  # a finished game's rows (issue 13)
        except IntegrityError as exc:
            # Another writer got this version first; or the same tap arrived
            # twice at once and the other copy was entered (the unique index).
            if tap is not None and self._tap_entered(token, tap):
                raise AlreadyEntered(ALREADY_ENTERED_MESSAGE) from exc
            raise StaleVersion(STALE_MESSAGE) from exc
        except OperationalError as exc:
            # The lock was held too long (nothing was written), or the
            # database went away, perhaps after committing: with a tap id,
            # ask the log rather than guess.
            if tap is None:
                raise StaleVersion(STALE_MESSAGE) from exc
            try:
                entered = self._tap_entered(token, tap)
            except Exception:  # still unreachable: say that we do not know
                raise TapUnknown(TAP_UNKNOWN_MESSAGE) from exc
            if entered:
                raise AlreadyEntered(ALREADY_ENTERED_MESSAGE) from exc
            raise StaleVersion(STALE_MESSAGE) from exc
        return after

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
        return replay(_view(row), resolve_log(events).actions)

    # seats and members

    def seats(self, token: str) -> dict[str, str]:
        """The seats held by a phone: player name -> device hash."""
        with self._read() as session:
            row = self._row(session, token)
            return {
                s.seat: s.device
                for s in session.scalars(select(SeatRow).where(SeatRow.table_id == row.id))
            }

    def take_seat(
        self,
        token: str,
        seat: str,
        device: str,
        *,
        take_over: bool = False,
        withdraw: Any = None,
    ) -> bool:
        """Bind ``seat`` to ``device`` (a phone holds one seat a table).

        A seat held by another phone is refused with :class:`SeatTaken`
        unless ``take_over``; so is a free seat whose hidden entry another
        phone made (:class:`SeatHasEntry`: a shared phone entered it). Either
        claim is logged as a ``seat`` event that every phone sees, carrying
        the game action that takes back the seat's hidden entry
        (``withdraw(state, seat)``, None when there is none), so the new
        phone never learns it (LT1, LT3). The phone that lost the seat is
        told by whom, and the host role follows its seat (LT5). Returns True
        when the log changed.
        """
        withdraw = withdraw or (lambda state, player: None)
        with self._write() as session:
            row = session.scalar(select(TableRow).where(TableRow.token == token).with_for_update())
            if row is None or not secrets.compare_digest(row.token, token):
                raise NoSuchTable("there is no table at this address")
            if seat not in (row.setup or {}).get("players", ()):
                raise TableError(f"there is no player called {seat[:40]!r} at this table")
            held = session.scalar(
                select(SeatRow).where(SeatRow.table_id == row.id, SeatRow.seat == seat)
            )
            if held is not None and held.device == device:
                return False
            before = self._cached(row.token, row.version) or self._rebuild(session, row)
            action = withdraw(before.state, seat)
            if action is not None and entry_maker(before, seat) == device:
                action = None  # this phone made the seat's hidden entry itself
            if held is not None and not take_over:
                raise SeatTaken(f"{seat}'s seat is held by another phone")
            if held is None and action is not None and not take_over:
                raise SeatHasEntry(f"{seat}'s hidden entry was made on another phone")
            mine = session.scalar(
                select(SeatRow).where(SeatRow.table_id == row.id, SeatRow.device == device)
            )
            previous_seat = mine.seat if mine is not None else None
            if mine is not None:
                session.delete(mine)
                session.flush()
            claimer = self._member(session, row.id, device)
            claimer.mode, claimer.lost_seat, claimer.lost_to = None, None, None
            if held is None:
                session.add(SeatRow(table_id=row.id, seat=seat, device=device))
            else:
                loser = self._member(session, row.id, held.device)
                loser.lost_seat, loser.lost_to = seat, previous_seat
                if loser.role == "host":  # the host role follows the host's seat
                    loser.role, claimer.role = "guest", "host"
                held.device = device
                held.claimed_at = _now()
            if held is None and action is None:
                return False
            row.version += 1
            row.updated_at = _now()
            session.add(
                EventRow(
                    table_id=row.id,
                    seq=row.version,
                    kind="seat",
                    payload={"type": "SeatTakenOver", "seat": seat, "action": action},
                    seat=previous_seat,
                    created_at=_now(),
                    device=device,
                )
            )
            session.flush()
            self._rebuild(session, row)
            return True

    @staticmethod
    def _member(session: Session, table_id: int, device: str) -> MemberRow:
        member = session.scalar(
            select(MemberRow).where(MemberRow.table_id == table_id, MemberRow.device == device)
        )
        if member is None:
            member = MemberRow(table_id=table_id, device=device, role="guest")
            session.add(member)
        return member

    def carry_over(self, old_token: str, new_token: str) -> None:
        """A rematch keeps the table's phones: every seat a phone held and every
        browser that had the old table (its role and what it said it is) come
        to the new one."""
        with self._write() as session:
            old, new = self._row(session, old_token), self._row(session, new_token)
            players = set((new.setup or {}).get("players", ()))
            for seat in session.scalars(select(SeatRow).where(SeatRow.table_id == old.id)):
                if seat.seat in players:
                    session.add(SeatRow(table_id=new.id, seat=seat.seat, device=seat.device))
            for member in session.scalars(select(MemberRow).where(MemberRow.table_id == old.id)):
                session.add(
                    MemberRow(
                        table_id=new.id, device=member.device, role=member.role, mode=member.mode
                    )
                )

    def set_mode(self, token: str, device: str, mode: str) -> None:
        """This phone holds no seat and says what it is instead: passed around
        the table (``"shared"``) or ``"watching"``."""
        if mode not in PHONE_MODES:
            raise TableError(f"a phone is a player, shared or watching, not {_clip(mode, 20)!r}")
        with self._write() as session:
            row = self._row(session, token)
            session.query(SeatRow).filter_by(table_id=row.id, device=device).delete()
            member = self._member(session, row.id, device)
            member.mode, member.lost_seat, member.lost_to = mode, None, None

    def leave_seat(self, token: str, device: str) -> None:
        """This phone holds no seat at the table any more (a shared phone)."""
        self.set_mode(token, device, "shared")

    def hand_host(self, token: str, device: str, seat: str) -> None:
        """The host (``device``) makes the phone holding ``seat`` the host (LT5)."""
        with self._write() as session:
            row = self._row(session, token)
            me = self._member(session, row.id, device)
            if me.role != "host":
                raise TableError("only the host's phone can hand the host role on")
            holder = session.scalar(
                select(SeatRow).where(SeatRow.table_id == row.id, SeatRow.seat == seat)
            )
            if holder is None:
                raise TableError(f"{_clip(seat, 40)}'s seat is on no phone, so it cannot be host")
            if holder.device == device:
                return
            me.role = "guest"
            self._member(session, row.id, holder.device).role = "host"

    def remember_member(self, token: str, device: str, role: str = "guest") -> None:
        """Link a browser to a table it created or opened (idempotent). The
        browser that creates a table starts as the table's shared phone: it
        typed everyone's names and may enter for anybody without a phone."""
        assert role in MEMBER_ROLES
        with self._write() as session:
            row = self._row(session, token)
            member = session.scalar(
                select(MemberRow).where(MemberRow.table_id == row.id, MemberRow.device == device)
            )
            if member is None:
                mode = "shared" if role == "host" else None
                session.add(MemberRow(table_id=row.id, device=device, role=role, mode=mode))
            else:
                member.seen_at = _now()
                if role == "host":
                    member.role = "host"

    def viewer_facts(self, token: str, device: str | None) -> ViewerFacts:
        """Who holds which seat, and this browser's role, mode and lost seat,
        in one read (every board render asks).

        Straight to the driver: through the ORM these lookups cost more
        than rendering the board (about 1.8 ms against 20 us).
        """
        _check_token(token)
        connection = self.engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(self._viewer_sql, (token, token, device or ""))
                rows = cursor.fetchall()
            finally:
                cursor.close()
        finally:
            connection.close()
        seats = {row[1]: row[2] for row in rows if row[0] == "seat"}
        member = next((row for row in rows if row[0] == "role"), None)
        if member is None:
            return ViewerFacts(seats, None, None, None, None)
        return ViewerFacts(seats, member[1], member[3], member[4], member[5])

    def seats_and_role(self, token: str, device: str | None) -> tuple[dict[str, str], str | None]:
        """:meth:`seats` and :meth:`role_of` in one read."""
        facts = self.viewer_facts(token, device)
        return facts.seats, facts.role

    def role_of(self, token: str, device: str) -> str | None:
        """``"host"``, ``"guest"`` or None for a browser that never opened the table."""
        with self._read() as session:
            row = self._row(session, token)
            return session.scalar(
                select(MemberRow.role).where(
                    MemberRow.table_id == row.id, MemberRow.device == device
                )
            )

    def tables_of(self, device: str, limit: int = 50) -> list[TableView]:
        """The tables this browser created or opened, most recently played first."""
        query = (
            select(TableRow)
            .join(MemberRow, MemberRow.table_id == TableRow.id)
            .where(MemberRow.device == device)
            .order_by(TableRow.updated_at.desc(), TableRow.id.desc())
            .limit(limit)
        )
        with self._read() as session:
            return [_view(row) for row in session.scalars(query)]

    # import / export

    def export(
        self,
        token: str,
        *,
        events: Sequence[Event] | None = None,
        snapshot: Snapshot | None = None,
    ) -> dict[str, Any]:
        """The table as a JSON-ready dict; ``events`` replaces the log (the
        web layer passes the log as the person exporting may see it)."""
        snap = snapshot or self.snapshot(token)
        t = snap.table
        # A deep copy: the payloads are the cached snapshot's own objects, and a
        # caller editing the export must not change what the table shows.
        return copy.deepcopy(
            {
                "format": "leafpile-table",
                "format_version": 1,
                "game": t.game,
                "title": t.title,
                "setup": {"players": list(t.players), "options": t.options, "seed": t.seed},
                "created_at": t.created_at.isoformat() + "Z",
                "events": [
                    {
                        "seq": e.seq,
                        "kind": e.kind,
                        "payload": e.payload,
                        "seat": e.seat,
                        "at": e.created_at.isoformat() + "Z",
                    }
                    for e in (snap.events if events is None else events)
                ],
            }
        )

    def import_table(
        self,
        data: Any,
        check_options: Callable[[str, tuple[str, ...], Mapping[str, Any]], None] | None = None,
        *,
        max_events: int = 0,
        max_seconds: float = 0.0,
    ) -> TableView:
        """Create a new table (new addresses) from an export, checking every event.

        Linear in the log's length: the log is folded once with the game's
        ``apply``, keeping the state after each action that counts, so an undo
        pops a state and a redo pushes one back (replaying the log per event,
        as before, cost minutes for a few thousand undos). Then the table and
        all its events are written in one transaction, so a refused file
        leaves nothing behind. ``check_options(game, players, options)``
        checks the options as the new-table form would (the web layer knows
        the forms); it raises :class:`TableError`. ``max_events`` and
        ``max_seconds`` (0: the store's own ceiling, no time limit) bound what
        one import may cost: the web layer passes its limits (issue 23).
        """
        if not isinstance(data, Mapping) or data.get("format") != "leafpile-table":
            raise TableError("this file is not a Leafpile table export")
        setup = data.get("setup")
        events = data.get("events")
        if not isinstance(setup, Mapping) or not isinstance(events, list):
            raise TableError("this export has no setup or no events")
        most = min(max_events or MAX_IMPORT_EVENTS, MAX_IMPORT_EVENTS)
        if len(events) > most:
            raise TableError(f"this export has more than {most:,} events")
        game = data.get("game")
        players = setup.get("players")
        seed = setup.get("seed")
        options = setup.get("options", {})
        if not isinstance(game, str) or game not in load():
            raise TableError(f"there is no game called {_clip(game, 24)!r} on this server")
        if not isinstance(players, list) or not isinstance(options, Mapping):
            raise TableError("this export's setup is damaged")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise TableError(
                "this export's setup is damaged: its seed is not a whole number from 0 to 2⁵³"
            )
        if _depth(data) > MAX_IMPORT_DEPTH:
            raise TableError("this export is nested far deeper than any Leafpile table")
        title = data.get("title")
        row, state = self._new_table_row(
            game,
            [str(p)[:200] for p in players],
            options,
            title if isinstance(title, str) else "",
            seed,
        )
        if check_options is not None:
            check_options(game, tuple(row.setup["players"]), options)
        try:
            deadline = time.monotonic() + max_seconds if max_seconds else None
            state, records = _fold_import(load()[game], state, events, deadline)
        except _DamagedEvent:
            raise
        except TableError as exc:
            raise TableError(f"this export does not replay: {_clip(str(exc), 100)}") from exc
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
            # A file's actions are anybody's JSON: a game that meets a field of
            # the wrong type (null scores, say) may fail outside its rule checks.
            raise TableError("this export does not replay: it has a damaged action") from exc
        row.version = len(records)
        now = _now()
        with self._write() as session:
            session.add(row)
            session.flush()
            if records:  # one executemany through Core: the ORM's bulk path costs 5x
                session.execute(
                    insert(cast(Table, EventRow.__table__)),
                    [{**r, "table_id": row.id, "created_at": now} for r in records],
                )
            log = [Event(r["seq"], r["kind"], r["payload"], r["seat"], now) for r in records]
            resolved = resolve_log(log)
            snap = Snapshot(
                _view(row),
                state,
                tuple(resolved.actions),
                tuple(
                    Event(e.seq, e.kind, e.payload, e.seat, now, e.seq in resolved.undone)
                    for e in log
                ),
                len(resolved.actions) > resolved.floor,
                bool(resolved.redo),
            )
            results.record(session, None, snap)
        self._remember(snap)
        return snap.table

    # expiry

    def expire_tables(self, idle: timedelta, limit: int = 1000) -> list[str]:
        """Archive, then delete, tables nobody has played for ``idle``; their tokens.

        Each table's export goes into ``archived_tables`` first (see
        :meth:`archived`), so an expired table can still be imported again.
        """
        cutoff = _now() - idle
        with self._read() as session:
            tokens = list(
                session.scalars(
                    select(TableRow.token)
                    .where(TableRow.updated_at < cutoff)
                    .order_by(TableRow.updated_at)
                    .limit(limit)
                )
            )
        expired = []
        for token in tokens:
            try:
                export = self.export(token)
                with self._write() as session:
                    row = self._row(session, token)
                    if row.updated_at >= cutoff:
                        continue  # played again a moment ago
                    known = session.scalar(
                        select(ArchivedTableRow.id).where(ArchivedTableRow.token == token)
                    )
                    if known is None:
                        session.add(
                            ArchivedTableRow(
                                token=token,
                                game=row.game,
                                title=row.title,
                                last_played_at=row.updated_at,
                                export=export,
                            )
                        )
                self.delete_table(token)
            except NoSuchTable:
                continue  # deleted meanwhile
            except Exception:  # one table that cannot be exported must not stop the rest
                logging.getLogger(__name__).exception("table %s was not expired", token[:8])
                continue
            expired.append(token)
        return expired

    def archived(self, limit: int = 1000) -> list[dict[str, Any]]:
        """Archived tables, newest first: each an export that ``import_table`` takes."""
        with self._read() as session:
            rows = session.scalars(
                select(ArchivedTableRow).order_by(ArchivedTableRow.id.desc()).limit(limit)
            )
            return [
                {
                    "token": r.token,
                    "title": r.title,
                    "archived_at": r.archived_at,
                    "export": r.export,
                }
                for r in rows
            ]

    # join codes

    def join_code(
        self, token: str, minutes: int, length: int = JOIN_CODE_LENGTH
    ) -> tuple[str, datetime]:
        """A short code for the table, reused while it is valid, else a new one
        (see :mod:`companion.tables.join_codes`)."""
        with self._write() as session:
            return join_codes.issue(session, self._row(session, token), minutes, length)

    def table_for_code(self, code: str) -> TableView:
        """The table a typed code opens; a wrong code is :class:`NoSuchTable`, and a
        wrong secret for a live code counts against that code (issue 23)."""
        with self._write() as session:
            found = join_codes.find(session, code)
        if isinstance(found, str):
            raise NoSuchTable(found)
        return found

    # helpers

    @staticmethod
    def _row(session: Session, token: str) -> TableRow:
        _check_token(token)
        row = session.scalar(select(TableRow).where(TableRow.token == token))
        # The indexed lookup finds the row; the constant-time compare keeps the
        # final check from leaking how much of a guessed token was right.
        if row is None or not secrets.compare_digest(row.token, token):
            raise NoSuchTable("there is no table at this address")
        return row


_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")


def _check_token(token: object) -> None:
    """Refuse anything that cannot be a token before it reaches the database.

    A NUL byte or other junk from a URL would otherwise make PostgreSQL fail
    the query (a 500) instead of answering "no such table".
    """
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise NoSuchTable("there is no table at this address")


def replay(table: TableView, actions: Sequence[Mapping[str, Any]]) -> Any:
    """Fold the game's ``apply`` over the actions from the table's setup."""
    kind = table.kind
    state = kind.new_state(table.players, table.options, table.seed)
    for action in actions:
        state = kind.apply(state, action)
    return state


def plain_text(text: str) -> str:
    """Text as typed, without control characters, with runs of spaces made one.

    Control characters never belong in a name or a title, and PostgreSQL
    cannot store a NUL at all (it would fail the whole request).
    """
    kept = "".join(c for c in text if c.isspace() or unicodedata.category(c) != "Cc")
    return " ".join(kept.split())


def check_player_names(players: Sequence[str], kind: GameKind) -> list[str]:
    """Trimmed, distinct, non-empty names within the game's player count."""
    names = [plain_text(str(p)) for p in players]
    names = [n for n in names if n]
    for name in names:
        if len(name) > MAX_NAME_LENGTH:
            raise TableError(f"the name {name[:30]!r}… is too long (at most {MAX_NAME_LENGTH})")
    lowered = [n.casefold() for n in names]
    for name in names:
        if lowered.count(name.casefold()) > 1:
            raise TableError(f"two players are called {name!r}: give each a different name")
    if not kind.min_players <= len(names) <= kind.max_players:
        span = (
            f"{kind.min_players}"
            if kind.min_players == kind.max_players
            else f"{kind.min_players} to {kind.max_players}"
        )
        raise TableError(f"{kind.title} takes {span} players; you entered {len(names)}")
    return names


def _view(row: TableRow) -> TableView:
    setup = row.setup or {}
    return TableView(
        id=row.id,
        token=row.token,
        view_token=row.view_token,
        game=row.game,
        title=row.title,
        players=tuple(setup.get("players", ())),
        options=dict(setup.get("options", {})),
        seed=int(setup.get("seed", 0)),
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _short_date() -> str:
    return datetime.now().strftime("%d %b %H:%M")


# Last: results.py builds its tables on this module's Base.
# --- imports ----------------------------------------------------------------

MAX_IMPORT_EVENTS = 100_000  # the 2 MB upload limit allows about 40,000
MAX_IMPORT_DEPTH = 32  # no table's export nests deeper than a handful of levels
MAX_SEED = 2**53  # a whole number every JSON reader keeps exactly


class _DamagedEvent(TableError):
    """An event that is not an event at all (said as is, not as "does not replay")."""


def _clip(value: object, length: int) -> str:
    """At most ``length`` characters of a value from outside, for a message."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= length else text[:length] + "…"


def _depth(data: Any) -> int:
    """How deeply lists and dicts nest in ``data`` (without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)] if isinstance(data, dict | list) else []
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_IMPORT_DEPTH:
            return deepest
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return deepest


def _fold_import(
    kind: GameKind, state: Any, events: Sequence[Any], deadline: float | None = None
) -> tuple[Any, list[dict[str, Any]]]:
    """Check an export's events in one pass; the final state and the rows to write.

    Mirrors :func:`resolve_log` and ``_append``'s checks: an action must be
    legal where it stands, an undo needs an action after the last seat
    takeover, a redo needs something undone. The stacks hold the state after
    each action, so undo and redo cost nothing.
    """
    # The stacks hold tens of thousands of young objects: the cyclic garbage
    # collector would scan them again and again (it doubled the time). The
    # fold makes no cycles, so it runs with the collector paused.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _fold(kind, state, events, deadline)
    finally:
        if collecting:
            gc.enable()


def _fold(
    kind: GameKind, state: Any, events: Sequence[Any], deadline: float | None = None
) -> tuple[Any, list[dict[str, Any]]]:
    first = state
    done: list[Any] = []  # states after each action that counts
    redo: list[Any] = []
    floor = 0
    records: list[dict[str, Any]] = []
    for seq, ev in enumerate(events, start=1):
        if deadline is not None and seq % 64 == 0 and time.monotonic() > deadline:
            raise _DamagedEvent("this export takes too long to check on this server")
        if not isinstance(ev, Mapping) or ev.get("kind") not in ("action", "undo", "redo", "seat"):
            raise _DamagedEvent(f"this export has a damaged event (number {seq})")
        kind_of = ev["kind"]
        seat = ev.get("seat") if isinstance(ev.get("seat"), str) else None
        payload = ev.get("payload")
        now = done[-1] if done else first
        if kind_of == "action":
            if not isinstance(payload, Mapping):
                raise _DamagedEvent(f"this export has a damaged event (number {seq})")
            payload = json.loads(json.dumps(dict(payload)))
            done.append(_apply(kind, now, payload))
            redo.clear()
        elif kind_of == "seat":
            if not isinstance(payload, Mapping) or not isinstance(payload.get("seat"), str):
                raise _DamagedEvent(f"this export has a damaged event (number {seq})")
            payload = json.loads(json.dumps(dict(payload)))
            withdrawn = payload.get("action")
            if isinstance(withdrawn, dict):
                done.append(_apply(kind, now, withdrawn))
            redo.clear()
            floor = len(done)
        elif kind_of == "undo":
            if len(done) <= floor:
                raise TableError("there is nothing to undo")
            reopen = payload if isinstance(payload, Mapping) else None
            size = min(undo_size(reopen), len(done) - floor)
            redo.append(done[-size:])
            del done[-size:]
            payload = {"type": "ReopenRound", "entries": size} if reopen and size > 1 else None
        else:
            if not redo:
                raise TableError("there is nothing to redo")
            done.extend(redo.pop())
            payload = None
        records.append(
            {
                "seq": seq,
                "kind": kind_of,
                "payload": payload,
                "seat": (plain_text(seat)[: MAX_NAME_LENGTH * 4] or None) if seat else None,
            }
        )
    return (done[-1] if done else first), records


def _apply(kind: GameKind, state: Any, payload: Mapping[str, Any]) -> Any:
    try:
        return kind.apply(state, payload)
    except RuleError as exc:
        raise TableError(str(exc)) from exc


from . import join_codes, results  # noqa: E402
