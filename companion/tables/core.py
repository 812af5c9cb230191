"""The store's core: its engine and sessions, tables as a whole (create, look
up, list, delete), and a table's snapshot, rebuilt from the log and cached
per version.

:class:`StoreCore` is the base of the store's other parts (writes, seats,
import and export, expiry, join codes: one module each), which
:class:`companion.tables.store.Store` puts together.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from threading import Lock
from typing import Any

from sqlalchemy import create_engine, event, make_url, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session

from companion.rules.errors import RuleError

from . import log
from .checks import _check_token, _clip, check_player_names, plain_text
from .errors import NO_TABLE, NoSuchTable, TableError
from .games import load
from .log import Event, Snapshot, TableView, _view, extended, snapshot_of, walk_log
from .models import (
    MAX_TITLE_LENGTH,
    EventRow,
    JoinCodeRow,
    MemberRow,
    SeatRow,
    TableRow,
    _create_schema,
    _private_sqlite_file,
    _sqlite_pragmas,
)

#: Snapshots a process keeps, least recently used first out. Every table that
#: phones are playing at needs its newest one or two here: at 256, a club night
#: of 300 tables evicted snapshots before their phones fetched them, and each
#: fetch replayed its table's log (a sixth of a worker's time). A score pad's
#: snapshot of a few dozen rounds is some kilobytes.
SNAPSHOT_CACHE_SIZE = 2048


#: SQLite connections kept for the hot reads and the entries' plain writes
#: (``StoreCore._own_sqlite_connection``): neither waits for the event loop,
#: so one is in use at a time under gevent.
READERS_KEPT = 4


#: A pooled PostgreSQL connection that sat idle longer than this is pinged
#: before it is used, so a restarted database or a dropped connection is
#: found then and replaced, not met as an error. A connection in steady use
#: is not pinged: the ping is a round trip, and under gevent every round trip
#: waits for the event loop's next turn (SQLAlchemy's ``pool_pre_ping``
#: pinged before every request, half of a board fetch's round trips).
PING_AFTER_IDLE_SECONDS = 10.0

#: PostgreSQL connections one process keeps open (``LEAFPILE_DATABASE_POOL``).
#: Under gevent a request holds its connection from its first statement until
#: the event loop comes back to it after the last answer, so a busy worker
#: needs dozens at once. SQLAlchemy's default (5, and 10 more opened and closed
#: again for each burst) made PostgreSQL start a new backend every few
#: milliseconds at 200 tables (delivery p95 530 ms; 25 ms with 40 kept open).
#: No overflow beyond it: ``deploy/serve`` sizes it so that every process's
#: connections fit in a stock PostgreSQL's ``max_connections`` (100).
DEFAULT_POOL_SIZE = 40


def _ping_connections_left_idle(engine: Engine) -> None:
    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.pop("idle_since", None)
        if idle_since is None or time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("SELECT 1")
            finally:
                cursor.close()
            dbapi_connection.rollback()
        except Exception as exc:  # the pool replaces it with a new connection
            raise DisconnectionError(f"an idle connection had gone: {exc}") from exc


def _no_transaction_open(driver: Any) -> bool:
    """Whether a psycopg connection is outside any transaction (as the pool
    hands it out), so it may run a statement on its own."""
    from psycopg.pq import TransactionStatus

    return not driver.autocommit and driver.info.transaction_status == TransactionStatus.IDLE


#: Events read at a time when a table's whole log is read (:meth:`StoreCore._events_of`).
LOG_SLICE_ROWS = 512


@dataclass
class _Rebuild:
    """One table's snapshot being rebuilt: its lock, and how many requests
    hold it or wait for it (the last one out forgets it)."""

    lock: Lock = field(default_factory=Lock)
    requests: int = 0


class StoreCore:
    """The engine, sessions, tables and the snapshot cache; safe across threads."""

    def __init__(self, url: str, pool_size: int | None = None, *, make_schema: bool = True) -> None:
        """``make_schema=False``: the database's tables are known to exist (a
        job worker's store, a process beside the server), so none of the
        schema's checks run (on SQLite they take the one write lock)."""
        self.is_sqlite = make_url(url).get_backend_name() == "sqlite"
        # SQLite's connections are a file opened in this process: its default pool stays.
        pooling: dict[str, Any] = (
            {}
            if self.is_sqlite
            else {"pool_size": pool_size or DEFAULT_POOL_SIZE, "max_overflow": 0}
        )
        self.engine = create_engine(url, future=True, **pooling)
        if self.is_sqlite:
            _private_sqlite_file(self.engine.url.database)
            _sqlite_pragmas(self.engine)
        else:
            _ping_connections_left_idle(self.engine)
        if make_schema:
            _create_schema(self.engine)
        # Keyed by token, never by id: SQLite reuses the id of a deleted table
        # (a refused import deletes its table), and a cache keyed by id would
        # then show the new table the deleted one's state.
        self._cache: OrderedDict[tuple[str, int], Snapshot] = OrderedDict()
        self._newest: dict[str, int] = {}  # token -> newest cached version
        self._cache_lock = Lock()
        self._rebuilding: dict[str, _Rebuild] = {}  # token -> its rebuild under way
        # The driver's placeholder, for the statements sent straight to it
        # (the version here, the viewer facts in seats.py).
        self._marker = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(
            self.engine.dialect.paramstyle, "?"
        )
        self._version_sql = f"SELECT version FROM tables WHERE token = {self._marker}"
        # SQLite: the hot reads' own connections, out of the pool (see _fetch);
        # dropped with the pool's whenever the engine is disposed (after a
        # fork, when statements start being watched).
        self._readers: list[Any] = []
        self._readers_of = self.engine
        if self.is_sqlite:
            event.listen(self.engine, "engine_disposed", lambda _engine: self._drop_readers())

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

    def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """Rows of one plain SQL statement, straight to the driver.

        The hot reads (a board fetch, a poll, a stream opening) come here:
        SQLAlchemy's statement machinery, even ``exec_driver_sql``, cost
        several times these indexed queries on SQLite (80 us against 16).
        """
        if self.is_sqlite:
            return self._read_sqlite(sql, params)
        connection = self.engine.raw_connection()
        try:
            driver: Any = connection.driver_connection
            # PostgreSQL: one statement needs no transaction of its own, and a
            # transaction costs two more round trips (BEGIN, then the pool's
            # ROLLBACK), each waiting for the event loop's next turn under
            # gevent. SQLite's connections already run without one.
            alone = not self.is_sqlite and _no_transaction_open(driver)
            if alone:
                driver.autocommit = True
            try:
                return _all_rows(connection, sql, params)
            finally:
                if alone and not driver.closed:
                    driver.autocommit = False  # as the pool and the ORM expect it
        finally:
            connection.close()  # back to the pool, which ends any transaction

    def _read_sqlite(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """:meth:`_fetch` on SQLite, on one of the store's own connections
        (:meth:`_own_sqlite_connection`). A read in SQLite's autocommit mode
        (the store's connections run so: ``models._sqlite_pragmas``) leaves
        no transaction behind."""
        with self._own_sqlite_connection() as reader:
            return _all_rows(reader, sql, params)

    @contextmanager
    def _own_sqlite_connection(self) -> Iterator[Any]:
        """A SQLite driver connection of the store's own, for one caller at a time.

        The pool's checkout and checkin (its events, the reset's rollback)
        cost more than an indexed read itself, on each of a change's six
        reads (issue 41), and more than an entry's statements. So the hot
        reads and the plain writes take a connection from a short list of
        the store's own and put it back; one that failed is closed, never
        reused, and one left inside a transaction is rolled back. They are
        made by the pool (its connect hooks run) and then detached from it.
        """
        if self._readers_of is not self.engine:  # another engine (a test's outage)
            self._drop_readers()
            self._readers_of = self.engine
        try:
            connection = self._readers.pop()
        except IndexError:
            pooled = self.engine.raw_connection()
            pooled.detach()  # the pool never hands it out again
            connection = pooled.dbapi_connection
        try:
            yield connection
            if connection.in_transaction:  # never for a plain read or a committed write
                connection.rollback()
        except BaseException:
            connection.close()
            raise
        if len(self._readers) < READERS_KEPT:
            self._readers.append(connection)
        else:
            connection.close()

    def _drop_readers(self) -> None:
        while self._readers:
            with suppress(Exception):
                self._readers.pop().close()

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
        row, _ = new_table_row(game, players, options, title, seed)
        with self._write() as session:
            session.add(row)
            session.flush()
            view = _view(row)
        return view

    def table(self, token: str) -> TableView:
        with self._read() as session:
            return _view(self._row(session, token))

    def table_by_view_token(self, view_token: str) -> TableView:
        _check_token(view_token)
        with self._read() as session:
            row = session.scalar(select(TableRow).where(TableRow.view_token == view_token))
            if row is None or not secrets.compare_digest(row.view_token, view_token):
                raise NoSuchTable(NO_TABLE)
            return _view(row)

    def version(self, token: str) -> int:
        """The table's version: the cheap query every phone polls."""
        _check_token(token)
        # Straight to the driver: every phone's fallback poll asks.
        rows = self._fetch(self._version_sql, (token,))
        found = rows[0] if rows else None
        version = found[0] if found else None
        if version is None:
            raise NoSuchTable(NO_TABLE)
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
        with self._one_rebuild_at_a_time(token), self._read() as session:
            row = self._row(session, token)
            cached = self._cached(row.token, row.version)
            if cached is not None:
                return cached  # another request of this table rebuilt it meanwhile
            return self._rebuild(session, row, share_the_loop=True)

    def cached_snapshot(self, token: str, version: int) -> Snapshot | None:
        """The table at ``version`` if this process has it cached, else None:
        never a query, never a walk."""
        return self._cached(token, version)

    def snapshot_at(self, token: str, version: int) -> Snapshot:
        """The table at ``version`` when this process has it cached (a board
        fetch that just read the version: no further statement), else the
        table now."""
        cached = self._cached(token, version)
        return cached if cached is not None else self.snapshot(token)

    @contextmanager
    def _one_rebuild_at_a_time(self, token: str) -> Iterator[None]:
        """One request rebuilds a table's snapshot; the others of the same
        table wait for it and find it cached. A rebuild lets other requests
        run while it walks (``share_the_loop``), so without this each phone
        of a long table opened after a restart would walk it again."""
        with self._cache_lock:
            rebuild = self._rebuilding.setdefault(token, _Rebuild())
            rebuild.requests += 1
        try:
            with rebuild.lock:
                yield
        finally:
            with self._cache_lock:
                rebuild.requests -= 1
                if not rebuild.requests:
                    del self._rebuilding[token]

    def _warm(self, token: str) -> None:
        """Have this table's snapshot cached before a write needs it: a
        snapshot rebuilt inside a write would hold the write's locks, and
        the loop, for as long as the table takes to walk."""
        if token not in self._newest:
            with suppress(NoSuchTable):
                self.snapshot(token)

    def _rebuild(
        self, session: Session, row: TableRow, *, share_the_loop: bool = False
    ) -> Snapshot:
        snap = self._catch_up(session, row)
        if snap is not None:
            self._remember(snap)
            return snap
        events = self._events_of(session, row.id, share_the_loop=share_the_loop)
        view = _view(row)
        events, walk = walk_log(view, events, share_the_loop=share_the_loop)
        snap = snapshot_of(view, events, walk)
        self._remember(snap)
        return snap

    @staticmethod
    def _events_of(session: Session, table_id: int, *, share_the_loop: bool) -> list[Event]:
        """A table's whole log, read in slices; a reader's (``share_the_loop``)
        lets the server's other requests run between them. Plain columns,
        not ORM rows: 5,000 of those (a long import) cost 0.1 s and an
        identity map to take down again."""
        columns = (EventRow.seq, EventRow.kind, EventRow.payload, EventRow.seat)
        result = session.execute(
            select(*columns, EventRow.created_at, EventRow.device)
            .where(EventRow.table_id == table_id)
            .order_by(EventRow.seq)
        )
        events = []
        for rows in result.partitions(LOG_SLICE_ROWS):
            events += [
                Event(seq, kind, payload, seat, created_at, device=device)
                for seq, kind, payload, seat, created_at, device in rows
            ]
            if share_the_loop and len(rows) == LOG_SLICE_ROWS:
                log.let_others_run()
        return events

    def _catch_up(self, session: Session, row: TableRow) -> Snapshot | None:
        """The table from an older cached version plus the events since, if it can.

        With several workers, each caches what it served; when another worker
        wrote the last few versions, replaying the whole log here would cost
        more the longer the game. The cached walk is extended by the events
        since (an action costs one ``apply``, an undo or redo none), which
        gives the same snapshot as a full walk.
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
        added = [
            Event(e.seq, e.kind, e.payload, e.seat, e.created_at, device=e.device) for e in newer
        ]
        return extended(base, _view(row), added)

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
            while len(self._cache) > SNAPSHOT_CACHE_SIZE:
                (old_token, old_version), _ = self._cache.popitem(last=False)
                if self._newest.get(old_token) == old_version:
                    del self._newest[old_token]

    # helpers

    @staticmethod
    def _row(session: Session, token: str) -> TableRow:
        _check_token(token)
        row = session.scalar(select(TableRow).where(TableRow.token == token))
        # The indexed lookup finds the row; the constant-time compare keeps the
        # final check from leaking how much of a guessed token was right.
        if row is None or not secrets.compare_digest(row.token, token):
            raise NoSuchTable(NO_TABLE)
        return row


def new_table_row(
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
        raise TableError(exc.message) from exc
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


def _short_date() -> str:
    return datetime.now().strftime("%d %b %H:%M")


def _all_rows(connection: Any, sql: str, params: tuple[Any, ...]) -> list[Any]:
    """The rows of one statement on a driver connection, its cursor closed."""
    cursor = connection.cursor()
    try:
        cursor.execute(sql, params)
        return list(cursor.fetchall())
    finally:
        cursor.close()
