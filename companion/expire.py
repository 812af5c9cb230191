"""Expire abandoned tables: ``python -m companion.expire [--days 90]``.

A table nobody has played (no entry, undo or seat change) for ``--days``
(default ``LEAFPILE_EXPIRE_DAYS``, else 90) is archived, then deleted: its
export goes into the ``archived_tables`` table first, so nothing a host
wanted is lost silently. ``--dump FOLDER`` writes every archived table as a
``.json`` export that the start page's Import takes back. ``deploy/serve``
runs the expiry at start and once a day.

Configuration comes from the environment, as for the server
(``LEAFPILE_DATABASE_URL``, ``LEAFPILE_INSTANCE``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import timedelta
from pathlib import Path

DEFAULT_DAYS = 90


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.expire", description=__doc__)
    parser.add_argument(
        "--days",
        type=float,
        default=float(os.environ.get("LEAFPILE_EXPIRE_DAYS") or DEFAULT_DAYS),
        help=f"archive tables idle this many days (default {DEFAULT_DAYS})",
    )
    parser.add_argument("--dump", metavar="FOLDER", help="write archived tables as exports")
    args = parser.parse_args(argv)
    if args.days <= 0:
        parser.error("--days must be more than 0")

    from companion import create_app

    app = create_app()
    store = app.extensions["leafpile_store"]
    try:
        expired = store.expire_tables(timedelta(days=args.days))
        print(f"Archived and removed {len(expired)} table(s) idle for {args.days:g} days or more.")
        if args.dump:
            folder = Path(args.dump)
            folder.mkdir(parents=True, exist_ok=True)
            archived = store.archived(limit=100_000)
            for entry in archived:
                name = re.sub(r"[^A-Za-z0-9_-]+", "-", entry["title"])[:40].strip("-") or "table"
                path = folder / f"{name}-{entry['token'][:8]}.json"
                path.write_text(json.dumps(entry["export"], indent=1), encoding="utf-8")
            print(f"Wrote {len(archived)} archived table(s) to {folder}.")
    finally:
        store.engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
