"""How fast the achievements and records pages read many finished tables.

    python benchmarks/records.py [--tables 10000] [--runs 20] [--database URL]

Fills an empty database (a temporary SQLite file unless ``--database`` names
one) with ``--tables`` finished North Wind tables and their result rows, one
in three won and one in ten with achievement ticks, plus as many four-player
score pads, written in bulk (playing 20,000 games would measure the games,
not the pages). Then times, over ``--runs`` runs each:

* ``collect``: what /achievements reads (the target: under 50 ms with
  10,000 tables), and the whole /achievements page through the test client;
* the /records page, which reads every result row (four per score pad).

Prints a Markdown table with the date and the machine load: wall-clock
figures depend on what else runs on the machine.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert  # noqa: E402

from companion import create_app  # noqa: E402
from companion.rules import north_wind as nw  # noqa: E402
from companion.tables.results import BackfillRow, ResultRow  # noqa: E402
from companion.tables.store import TableRow  # noqa: E402
from companion.web.achievements import collect  # noqa: E402


def fill(store, tables: int) -> None:
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    ids = [a.id for a in nw.ACHIEVEMENTS]
    with store.engine.begin() as conn:
        conn.execute(insert(BackfillRow), [{"id": 1}])  # nothing to backfill: rows are here
        for game, players in (("north_wind", ["Ana"]), ("scorepad", ["Ana", "Ben", "Cy", "Di"])):
            rows = [
                {
                    "token": secrets.token_urlsafe(24),
                    "view_token": secrets.token_urlsafe(24),
                    "game": game,
                    "title": f"{game} {i}",
                    "setup": {"players": players, "options": {}, "seed": i},
                    "version": 12,
                    "created_at": now,
                    "updated_at": now,
                }
                for i in range(tables)
            ]
            conn.execute(insert(TableRow), rows)
        table_ids = conn.execute(TableRow.__table__.select()).fetchall()
        results = []
        for row in table_ids:
            players = row.setup["players"]
            for seat, player in enumerate(players):
                won = (row.id + seat) % 3 == 0
                results.append(
                    {
                        "table_id": row.id,
                        "game": row.game,
                        "variant": "normal" if row.game == "north_wind" else "",
                        "player": player,
                        "player_key": player.casefold(),
                        "seat": seat,
                        "players": len(players),
                        "score": 20 + row.id % 17,
                        "place": 1 if won else 2,
                        "outcome": "won" if won else "lost",
                        "margin": 3,
                        "low_wins": 0,
                        "achievements": ",".join(ids[row.id % len(ids) :][:2])
                        if won and row.id % 10 == 0
                        else "",
                        "finished_at": now - datetime.timedelta(minutes=row.id),
                    }
                )
        conn.execute(insert(ResultRow), results)


def timed(run: Callable[[], object], runs: int) -> tuple[float, float]:
    """(median, worst) milliseconds over ``runs`` runs, after one warm-up."""
    run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--database", help="a database URL (default: a temporary SQLite file)")
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="leafpile-records-bench-")
    app = create_app(
        {
            "DATABASE_URL": args.database or f"sqlite:///{folder}/bench.sqlite3",
            "INSTANCE_PATH": folder,
            "SECRET_KEY": "benchmark",
            "LEAFPILE_RATE_LIMITS": False,
            "OPERATOR_TOKEN": "benchmark-operator-token",
        }
    )
    store = app.extensions["leafpile_store"]
    started = time.perf_counter()
    fill(store, args.tables)
    filled = time.perf_counter() - started
    client = app.test_client()
    # The pages read every table for the operator only (issue 23): sign the client in.
    from companion.web.groups import operator_mark as _operator_mark

    with client.session_transaction() as session:
        session["operator"] = _operator_mark("benchmark-operator-token")
    record = collect(store)
    assert record.games == args.tables, record.games
    figures = [
        ("achievements: collect()", *timed(lambda: collect(store), args.runs)),
        ("GET /achievements", *timed(lambda: client.get("/achievements"), args.runs)),
        ("GET /records", *timed(lambda: client.get("/records"), max(3, args.runs // 4))),
    ]
    print(f"{args.tables} North Wind tables and {args.tables} four-player score pads, finished")
    print(f"(filled in {filled:.1f} s; {record.wins} solo wins)\n")
    print("| what | median ms | worst ms |")
    print("|---|---:|---:|")
    for name, median, worst in figures:
        print(f"| {name} | {median:.1f} | {worst:.1f} |")
    load = os.getloadavg()
    print(
        f"\n{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"{os.cpu_count()} cores, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"{store.engine.dialect.name}"
    )
    store.engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
