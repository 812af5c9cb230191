"""The tables' schema: the ORM rows of tables, events, seats, members, join
codes and archived tables, and creating or bringing up to date the database.

Every other module of ``companion.tables`` builds on :class:`Base` (results
and join codes add their own rows to it), so this module imports none of
them: that is what keeps the imports one way.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    event,
    inspect,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from companion.startup import database_wait

MAX_NAME_LENGTH = 24
MAX_TITLE_LENGTH = 60
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


def _use_wal(cursor: Any) -> None:
    """Put the file in WAL mode (it stays so). Switching takes the file's lock
    and SQLite does not wait for it there, so a worker booting beside another
    that is switching or creating the schema retries for up to 10 s."""
    for attempt in range(100):
        if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
            return
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if attempt == 99:
                raise
            time.sleep(0.1)  # cooperative under gevent


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" hook below issue BEGIN, so writers can ask
        # for BEGIN IMMEDIATE and queue for the lock instead of failing late.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # The wait first: switching a new file to WAL needs its lock, and a
        # worker booting beside one that is creating the schema must wait
        # for it, not fail with "database is locked".
        cursor.execute("PRAGMA busy_timeout=10000")
        _use_wal(cursor)
        cursor.execute("PRAGMA synchronous=NORMAL")
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

#: Backoff between tries while the database does not answer at start: doubled
#: from the first to the last, then every LAST seconds.
FIRST_RETRY_SECONDS, LAST_RETRY_SECONDS = 0.5, 10.0
_log = logging.getLogger("leafpile.database")


def _create_schema(engine: Engine) -> None:
    """Create the tables, waiting for a database server that does not answer
    yet (it is starting, or in recovery after a crash) as long as
    :func:`database_wait` says, with backoff, and saying so in the log."""
    give_up = time.monotonic() + (0.0 if engine.dialect.name == "sqlite" else database_wait())
    delay = FIRST_RETRY_SECONDS
    waited = False
    while True:
        try:
            _create_schema_once(engine)
        except OperationalError as exc:  # cannot connect, or refused while it recovers
            if time.monotonic() + delay > give_up:
                raise
            reason = str(exc.orig or exc).strip().splitlines()[0][:200]
            _log.warning(
                "leafpile: waiting for the database (%s); trying again in %g s", reason, delay
            )
            waited = True
            time.sleep(delay)  # cooperative under gevent
            delay = min(delay * 2, LAST_RETRY_SECONDS)
            continue
        if waited:
            _log.warning("leafpile: the database answers; starting")
        return


def _create_schema_once(engine: Engine) -> None:
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
