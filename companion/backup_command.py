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


class CommandError(Exception):
    """A failure said in one line (the command's name, then this), with an exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def _first_line(error: BaseException) -> str:
    """What went wrong in one line: the driver's first line, not a traceback."""
    cause: BaseException = error
    while getattr(cause, "orig", None) is not None:  # SQLAlchemy's wrapper: the driver's words
        cause = cause.orig  # type: ignore[attr-defined]
    text = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    return text[:200]


def _shown_url(url: str) -> str:
    """The database URL without its password, for a message."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "the database URL"


def _engine(url: str) -> Any:
    """The database at ``url`` (the Store creates the schema and SQLite's
    settings), or :class:`CommandError` saying in one line why not."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    from .tables.store import Store

    try:
        return Store(url).engine
    except (NoSuchModuleError, ModuleNotFoundError) as exc:  # before ArgumentError, its base
        raise CommandError(
            f"no driver for {_shown_url(url)} ({_first_line(exc)}): install this database's "
            "driver (for PostgreSQL: pip install 'leafpile[postgres]')"
        ) from None
    except (ArgumentError, ValueError):
        raise CommandError(
            f"{_shown_url(url)!r} is not a database URL (e.g. sqlite:////path/leafpile.sqlite3 "
            "or postgresql+psycopg://user@host/leafpile)"
        ) from None
    except (SQLAlchemyError, OSError) as exc:
        shown = _shown_url(url)
        raise CommandError(f"cannot open the database {shown}: {_first_line(exc)}") from None


def _must_exist(url: str) -> None:
    """A backup of a named SQLite file that is not there is a mistyped path:
    say so, rather than make an empty database and back that up. (The
    instance folder's own file is made by the first start, or by this.)"""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:
        return  # _engine says what is wrong with it
    path = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or path in ("", ":memory:"):
        return
    if not path.startswith("file:") and not Path(path).is_file():
        raise CommandError(f"there is no database at {path}")


def _run(name: str, command: Any, args: argparse.Namespace) -> int:
    """Run a command; any failure it foresees is one line on standard error."""
    try:
        return int(command(args))
    except CommandError as exc:
        print(f"leafpile {name}: {exc}", file=sys.stderr)
        return exc.code


def _backup(args: argparse.Namespace) -> int:
    return _run("backup", _write, args)


def _restore(args: argparse.Namespace) -> int:
    return _run("restore", _read, args)


def _write(args: argparse.Namespace) -> int:
    import json

    from .tables.backup import backup, write_backup

    target = None if args.file == "-" else Path(args.file)
    if target is not None and not target.parent.is_dir():
        raise CommandError(f"cannot write {args.file}: there is no folder {str(target.parent)!r}")
    url = args.database or os.environ.get("LEAFPILE_DATABASE_URL")
    if url:
        _must_exist(url)  # a named database: a missing file is a mistyped path
    data = backup(_engine(url or database_url()))
    if target is None:
        sys.stdout.write(json.dumps(data, ensure_ascii=False))
        return 0
    try:
        write_backup(data, target)
    except OSError as exc:
        raise CommandError(f"cannot write {args.file}: {exc.strerror or exc}") from None
    tables = len(data["tables"].get("tables", {}).get("rows", []))
    print(f"leafpile backup: {tables} tables written to {args.file}", file=sys.stderr)
    return 0


def _read(args: argparse.Namespace) -> int:
    from .tables.backup import BackupError, read_backup, restore

    try:
        raw = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    try:
        data = read_backup(raw)
        counts = restore(_engine(args.database or database_url()), data)
    except BackupError as exc:
        raise CommandError(str(exc), code=1) from None
    summary = ", ".join(f"{n} {name}" for name, n in counts.items() if n)
    print(f"leafpile restore: restored {summary or 'an empty backup'}", file=sys.stderr)
    return 0
