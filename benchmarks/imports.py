"""Import benchmark: a 40,000-event export (with thousands of undos and redos)
imported through the web route, timed; the figure goes in docs/deploying.md.

    python benchmarks/imports.py            # 40,000 events
    python benchmarks/imports.py --events 1200 --json

The export is a score pad whose log is the costly shape for a replay-per-event
import: rounds entered, then undone and redone over and over (each undo used
to re-fold the whole log). It stays under the 2 MB upload limit.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import create_app  # noqa: E402


def export_with_undos(events: int) -> dict:
    """``events`` events: a quarter rounds, then undo/redo pairs to the count."""
    rounds = max(1, events // 4)
    log = [
        {"kind": "action", "payload": {"type": "AddRound", "scores": [n % 7, n % 5]}}
        for n in range(rounds)
    ]
    while len(log) < events:
        log.append({"kind": "undo"})
        if len(log) < events:
            log.append({"kind": "redo"})
    return {
        "format": "leafpile-table",
        "format_version": 1,
        "game": "scorepad",
        "title": "Import benchmark",
        "setup": {"players": ["Ana", "Ben"], "options": {"lowest_wins": False}, "seed": 1},
        "events": log,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=40_000)
    parser.add_argument("--database", help="SQLAlchemy URL (default: a fresh SQLite file)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    body = json.dumps(export_with_undos(args.events), separators=(",", ":")).encode()
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "DATABASE_URL": args.database or f"sqlite:///{folder}/bench.sqlite3",
                "INSTANCE_PATH": folder,
                "SECRET_KEY": "benchmark",
                "WTF_CSRF_ENABLED": False,
                "LEAFPILE_RATE_LIMITS": False,
            }
        )
        client = app.test_client()
        started = time.perf_counter()
        response = client.post(
            "/import",
            data={"file": (io.BytesIO(body), "table.json")},
            content_type="multipart/form-data",
        )
        seconds = time.perf_counter() - started
        ok = response.status_code == 303
        token = re.sub(r".*/t/", "", response.headers.get("Location", ""))
        version = app.extensions["leafpile_store"].version(token) if ok else None
        app.extensions["leafpile_store"].engine.dispose()
    figures = {
        "events": args.events,
        "bytes": len(body),
        "status": response.status_code,
        "seconds": round(seconds, 3),
        "table_version": version,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>14}: {value}")
    return 0 if ok and version == args.events else 1


if __name__ == "__main__":
    sys.exit(main())
