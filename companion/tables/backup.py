"""A full backup of a Leafpile database in one file, and its restore.

The backup is JSON: every database table the app defines (tables, events,
seats, members, results, name merges, archived tables, …), each as its column
names and rows, read in primary-key order. It goes through the app's own
schema (``Base.metadata``), never through one database's dump format, so a
backup of the SQLite file restores into PostgreSQL and back. A table added
to the schema later is in the backup by itself.

* :func:`backup` reads it all (or one group: the tables one browser hosts,
  with what belongs to them) into a dict; :func:`write_backup` and
  :func:`read_backup` keep it in a file (gzip when the name ends in ``.gz``).
* :func:`restore` writes a backup into an **empty** database in one
  transaction: a refused backup leaves nothing behind, and a database that
  already has tables is never mixed with another's (the tokens would clash).

Values travel as JSON: datetimes as ISO text, JSON columns as they are.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Integer, Table, func, insert, select, text
from sqlalchemy.engine import Connection, Engine

from .store import Base, TableError, _create_schema

FORMAT = "leafpile-backup"
FORMAT_VERSION = 1
GZIP_MAGIC = b"\x1f\x8b"
#: Tables a group backup leaves out: they belong to the server, not to a group.
SERVER_ONLY = frozenset({"archived_tables", "results_backfill"})
#: Rows the app writes by itself when it opens a database: a restore replaces them.
REMADE_AT_START = frozenset({"results_backfill"})


class BackupError(TableError):
    """A file that is not a Leafpile backup, or a database it cannot go into."""


def _tables() -> list[Table]:
    """Every table of the schema, parents before children (foreign keys)."""
    # results.py and any later module register their tables on import.
    from . import results  # noqa: F401

    return list(Base.metadata.sorted_tables)


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


def backup(engine: Engine, *, table_ids: Iterable[int] | None = None) -> dict[str, Any]:
    """Everything in the database as a JSON-ready dict (one transaction).

    ``table_ids`` limits it to a group: those game tables, the rows that
    point at them (events, seats, members, results, rematches within the
    group, join codes) and the name merges of their players.
    """
    group = None if table_ids is None else set(table_ids)
    out: dict[str, Any] = {}
    with engine.connect() as conn:
        for table in _tables():
            if group is not None and table.name in SERVER_ONLY:
                continue
            query = select(table).order_by(*table.primary_key.columns)
            rows = [
                [_dump(v) for v in row]
                for row in conn.execute(query)
                if group is None or _in_group(table, row._mapping, group)
            ]
            out[table.name] = {"columns": [c.name for c in table.columns], "rows": rows}
        if group is not None:
            _keep_group_names(out)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "scope": "server" if group is None else "group",
        "created_at": datetime.now(UTC).replace(tzinfo=None).isoformat(),
        "source": engine.dialect.name,
        "tables": out,
    }


def _in_group(table: Table, row: Mapping[Any, Any], group: set[int]) -> bool:
    if table.name == "tables":
        return row["id"] in group
    ids = [row[c.name] for c in table.columns if c.foreign_keys and c.name.endswith("table_id")]
    return bool(ids) and all(i in group for i in ids)


def _keep_group_names(out: dict[str, Any]) -> None:
    """A group keeps only the name merges its own results use."""
    names = out.get("player_names")
    results = out.get("results")
    if names is None or results is None:
        return
    key_at = results["columns"].index("player_key")
    keys = {row[key_at] for row in results["rows"]}
    name_at = names["columns"].index("name")
    own_at = names["columns"].index("key")
    wanted = set(keys)
    for _ in range(8):  # merges may chain: follow them a few hops
        more = {_name_key(row[name_at]) for row in names["rows"] if row[own_at] in wanted} - wanted
        if not more:
            break
        wanted |= more
    names["rows"] = [row for row in names["rows"] if row[own_at] in wanted]


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
    unknown = sorted(set(tables) - set(known))
    if unknown:
        raise BackupError(
            f"this backup has a table this Leafpile does not know ({unknown[0][:40]!r}): "
            "restore it with the version that made it, or a newer one"
        )
    _create_schema(engine)
    counts: dict[str, int] = {}
    with engine.begin() as conn:
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
    """Write a backup file: gzip'd JSON when the name ends in ``.gz``."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    if path.name.endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    path.write_bytes(payload)


def read_backup(raw: bytes) -> Any:
    """A backup's data from a file's bytes (plain or gzip'd JSON)."""
    try:
        if raw[:2] == GZIP_MAGIC:
            raw = gzip.decompress(raw)
        return json.loads(raw)
    except (OSError, EOFError, ValueError) as exc:
        raise BackupError("this file is not a Leafpile backup (it is not JSON)") from exc
