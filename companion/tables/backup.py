"""A full backup of a Leafpile database in one file, and its restore.

The backup is JSON: every database table the app defines (tables, events,
seats, members, results, name merges, archived tables, …), each as its column
names and rows, read in primary-key order. It goes through the app's own
schema (``Base.metadata``), never through one database's dump format, so a
backup of the SQLite file restores into PostgreSQL and back. A table added
to the schema later is in the backup by itself.

* :func:`backup` reads it all (or one group: the tables one browser hosts,
  with what belongs to them, chosen by the database: one indexed query a
  table, never a read of the whole database) into a dict; :func:`write_backup`
  and :func:`read_backup` keep it in a file (gzip when the name ends in
  ``.gz``, readable by its owner only: it holds every table's address).
* :func:`restore` writes a backup into an **empty** database in one
  transaction: a refused backup leaves nothing behind, and a database that
  already has tables is never mixed with another's (the tokens would clash).

Values travel as JSON: datetimes as ISO text, JSON columns as they are.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Integer, Select, Table, and_, false, func, insert, select, text
from sqlalchemy.engine import Connection, Engine

from .store import Base, TableError, _create_schema

FORMAT = "leafpile-backup"
FORMAT_VERSION = 1
GZIP_MAGIC = b"\x1f\x8b"
#: Tables a group backup leaves out: they belong to the server, not to a group.
SERVER_ONLY = frozenset({"archived_tables", "results_backfill"})
#: Rows the app writes by itself when it opens a database: a restore replaces them.
REMADE_AT_START = frozenset({"results_backfill"})
#: The running server's counters (rate limits, wrong join codes): never in a
#: backup, skipped in one that has them (a web backup made before issue 42
#: did, which ``leafpile restore`` then refused), and emptied by a restore.
#: They are not data of anybody's, and a server that ran before the restore
#: has some already.
COUNTERS = frozenset({"rate_limits", "join_code_misses"})


class BackupError(TableError):
    """A file that is not a Leafpile backup, or a database it cannot go into."""


def _tables() -> list[Table]:
    """Every table of the schema a backup holds, parents before children (foreign
    keys): the same list in every process, whatever it imported."""
    # results.py and any later module register their tables on import.
    from . import results  # noqa: F401

    return [t for t in Base.metadata.sorted_tables if t.name not in COUNTERS]


def _dump(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _load(column_type: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(column_type, DateTime):
        if not isinstance(value, str):
            raise BackupError(f"a date in this backup is damaged: {str(value)[:40]!r}")
        try:
            return datetime.fromisoformat(value)
        except ValueError as exc:
            raise BackupError(f"a date in this backup is damaged: {value[:40]!r}") from exc
    return value


# --- reading ---------------------------------------------------------------------------


#: A group: the ids of its game tables, as a list or as a query of ids (the
#: web backup's "tables this browser hosts"), which the database then applies.
Group = Iterable[int] | Select[Any]


def backup(engine: Engine, *, table_ids: Group | None = None) -> dict[str, Any]:
    """Everything in the database as a JSON-ready dict (one transaction).

    ``table_ids`` limits it to a group: those game tables, the rows that
    point at them (events, seats, members, results, rematches within the
    group, join codes) and the name merges of their players. The database
    picks the group's rows (each table's ``table_id`` columns are indexed),
    so a stranger's empty backup costs a few empty lookups at any size of
    server, not a read of every row (issue 42: 4-10 s at 200,000 events).
    """
    group: Any = None
    if table_ids is not None:
        group = table_ids if isinstance(table_ids, Select) else sorted(set(table_ids))
    out: dict[str, Any] = {}
    with engine.connect() as conn:
        for table in _tables():
            if group is not None and table.name in SERVER_ONLY:
                continue
            query = select(table).order_by(*table.primary_key.columns)
            if group is not None:
                query = query.where(_in_group(table, group))
            rows = [[_dump(v) for v in row] for row in conn.execute(query)]
            out[table.name] = {"columns": [c.name for c in table.columns], "rows": rows}
        if group is not None:
            _add_group_names(conn, out)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "scope": "server" if group is None else "group",
        "created_at": datetime.now(UTC).replace(tzinfo=None).isoformat(),
        "source": engine.dialect.name,
        "tables": out,
    }


def _in_group(table: Table, group: Any) -> Any:
    """The condition that keeps a row of ``table`` in the group: a game table
    of it, or a row every one of whose table references points into it. A
    table that refers to no game table belongs to the server, not a group."""
    if table.name == "tables":
        return table.c.id.in_(group)
    refs = [c for c in table.columns if c.foreign_keys and c.name.endswith("table_id")]
    if not refs:
        return false()
    return and_(*(column.in_(group) for column in refs))


def _add_group_names(conn: Connection, out: dict[str, Any]) -> None:
    """The server-wide name merges the group's own results use (a few hops of
    merges followed), read by key rather than as a whole table."""
    names = out.get("player_names")
    results = out.get("results")
    if names is None or results is None:
        return
    table = next(t for t in _tables() if t.name == "player_names")
    key_at = results["columns"].index("player_key")
    wanted: set[str] = {row[key_at] for row in results["rows"]}
    found: dict[str, list[Any]] = {}
    asked: set[str] = set()
    for _ in range(8):  # merges may chain: follow them a few hops
        ask = sorted(wanted - asked)
        if not ask:
            break
        asked |= set(ask)
        for start in range(0, len(ask), 500):
            query = select(table).where(table.c.key.in_(ask[start : start + 500]))
            for row in conn.execute(query):
                found[row.key] = [_dump(v) for v in row]
                wanted.add(_name_key(row.name))
    names["rows"] = [found[key] for key in sorted(found)]


def _name_key(name: str) -> str:
    from .results import name_key

    return name_key(name)


# --- writing ---------------------------------------------------------------------------


def restore(engine: Engine, data: Any) -> dict[str, int]:
    """Write a backup into an empty database; the rows restored per table.

    Raises :class:`BackupError` (nothing written) for a file that is not a
    backup, a column this version does not know, a damaged value, or a
    database that already holds game tables.
    """
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise BackupError("this file is not a Leafpile backup")
    if data.get("format_version") != FORMAT_VERSION:
        raise BackupError(
            f"this backup has format version {str(data.get('format_version'))[:10]}; "
            f"this Leafpile reads version {FORMAT_VERSION}"
        )
    tables = data.get("tables")
    if not isinstance(tables, Mapping):
        raise BackupError("this backup has no tables")
    known = {t.name: t for t in _tables()}
    unknown = sorted(set(tables) - set(known) - COUNTERS)
    if unknown:
        raise BackupError(
            f"this backup has a table this Leafpile does not know ({unknown[0][:40]!r}): "
            "restore it with the version that made it, or a newer one"
        )
    _create_schema(engine)
    counts: dict[str, int] = {}
    with engine.begin() as conn:
        for table in Base.metadata.sorted_tables:
            if table.name in COUNTERS:
                conn.execute(table.delete())
        for table in _tables():
            if table.name in REMADE_AT_START:
                conn.execute(table.delete())
            elif conn.execute(select(func.count()).select_from(table)).scalar_one():
                raise BackupError(
                    f"this database already holds data ({table.name}): restore into a new, "
                    "empty database (another LEAFPILE_DATABASE_URL, or a new SQLite file)"
                )
        for table in _tables():
            part = tables.get(table.name)
            if part is None:
                continue
            rows = _rows(table, part)
            if rows:
                conn.execute(insert(table), rows)
            counts[table.name] = len(rows)
        if engine.dialect.name == "postgresql":
            _advance_sequences(conn)
    return counts


def _rows(table: Table, part: Any) -> list[dict[str, Any]]:
    if not isinstance(part, Mapping):
        raise BackupError(f"the backup's {table.name!r} table is damaged")
    columns, rows = part.get("columns"), part.get("rows")
    if not isinstance(columns, list) or not isinstance(rows, list):
        raise BackupError(f"the backup's {table.name!r} table is damaged")
    types = {c.name: c.type for c in table.columns}
    extra = [c for c in columns if c not in types]
    if extra:
        raise BackupError(
            f"the backup's {table.name!r} table has a column this Leafpile does not know "
            f"({str(extra[0])[:40]!r})"
        )
    out = []
    for row in rows:
        if not isinstance(row, list) or len(row) != len(columns):
            raise BackupError(f"a row of the backup's {table.name!r} table is damaged")
        out.append({c: _load(types[c], v) for c, v in zip(columns, row, strict=True)})
    return out


def _advance_sequences(conn: Connection) -> None:
    """PostgreSQL numbers new rows from a sequence: start it after the restored ids."""
    for table in _tables():
        keys = list(table.primary_key.columns)
        if len(keys) != 1 or not isinstance(keys[0].type, Integer):
            continue
        column = keys[0].name
        sequence = conn.execute(
            text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": table.name, "c": column}
        ).scalar()
        if sequence:
            conn.execute(
                text(
                    f"SELECT setval(:s, COALESCE((SELECT MAX({column}) FROM {table.name}), 0) + 1,"
                    " false)"
                ),
                {"s": sequence},
            )


# --- files ---------------------------------------------------------------------------------


def write_backup(data: Mapping[str, Any], path: Path) -> None:
    """Write a backup file: gzip'd JSON when the name ends in ``.gz``.

    The file is readable and writable by its owner only (0600): it holds
    every table's address, which is the table's key. It is written beside
    its final name and renamed into place, so a backup that fails half way
    (a full disk) never leaves half a file under the name of a good one.
    Raises :class:`OSError` when the folder cannot be written.
    """
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    if path.name.endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:  # mkstemp makes it 0600
            out.write(payload)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_backup(raw: bytes) -> Any:
    """A backup's data from a file's bytes (plain or gzip'd JSON)."""
    try:
        if raw[:2] == GZIP_MAGIC:
            raw = gzip.decompress(raw)
        return json.loads(raw)
    except (OSError, EOFError, ValueError) as exc:
        raise BackupError("this file is not a Leafpile backup (it is not JSON)") from exc
