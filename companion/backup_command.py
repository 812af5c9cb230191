"""``leafpile backup`` and ``leafpile restore``: the whole server in one file.

``leafpile backup FILE`` writes every table, result and record of the
database the server uses (``LEAFPILE_DATABASE_URL``, else the SQLite file in
the instance folder) to FILE (gzip'd when FILE ends in ``.gz``; ``-`` for
standard output). ``leafpile restore FILE --database URL`` writes it into an
empty database, which may be another kind (SQLite to PostgreSQL and back).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def database_url() -> str:
    """The database the server would open: the same rule as ``create_app``."""
    url = os.environ.get("LEAFPILE_DATABASE_URL")
    if url:
        return url
    from .app import default_instance_folder

    instance = os.environ.get("LEAFPILE_INSTANCE") or default_instance_folder()
    return f"sqlite:///{Path(instance).expanduser().resolve() / 'leafpile.sqlite3'}"


def register(commands: Any) -> None:
    """Add the ``backup`` and ``restore`` subcommands to the ``leafpile`` subparsers."""
    save = commands.add_parser(
        "backup",
        help="write every table, result and record to one file",
        description="Write a full backup of the server's database to FILE (JSON; gzip'd "
        "when FILE ends in .gz; - writes to standard output). It restores on any machine, "
        "into SQLite or PostgreSQL, with `leafpile restore`.",
    )
    save.add_argument("file", metavar="FILE", help="where to write the backup")
    save.add_argument(
        "--database", default=None, help="the database to back up (default: the server's own)"
    )
    save.set_defaults(handler=_backup)

    load = commands.add_parser(
        "restore",
        help="write a backup into a new, empty database",
        description="Restore a backup made by `leafpile backup` (or downloaded from the records "
        "page) into an empty database: the server's own by default, or --database URL "
        "(e.g. postgresql+psycopg://user@host/leafpile). A database that already holds "
        "tables is refused, so nothing is ever mixed or overwritten.",
    )
    load.add_argument("file", metavar="FILE", help="the backup file (- reads standard input)")
    load.add_argument(
        "--database", default=None, help="the database to restore into (default: the server's own)"
    )
    load.set_defaults(handler=_restore)


def _engine(url: str) -> Any:
    from .tables.store import Store

    return Store(url).engine  # the Store creates the schema and SQLite's settings


def _backup(args: argparse.Namespace) -> int:
    import json

    from .tables.backup import backup, write_backup

    data = backup(_engine(args.database or database_url()))
    if args.file == "-":
        sys.stdout.write(json.dumps(data, ensure_ascii=False))
        return 0
    write_backup(data, Path(args.file))
    tables = len(data["tables"].get("tables", {}).get("rows", []))
    print(f"leafpile backup: {tables} tables written to {args.file}", file=sys.stderr)
    return 0


def _restore(args: argparse.Namespace) -> int:
    from .tables.backup import BackupError, read_backup, restore

    try:
        raw = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        print(f"leafpile restore: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        counts = restore(_engine(args.database or database_url()), read_backup(raw))
    except BackupError as exc:
        print(f"leafpile restore: {exc}", file=sys.stderr)
        return 1
    summary = ", ".join(f"{n} {name}" for name, n in counts.items() if n)
    print(f"leafpile restore: restored {summary or 'an empty backup'}", file=sys.stderr)
    return 0
