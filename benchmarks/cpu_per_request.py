"""Where the CPU goes: in-process CPU time and SQL statements per request kind.

    python benchmarks/cpu_per_request.py
    python benchmarks/cpu_per_request.py --database-url postgresql+psycopg://...

Runs each kind of request a few hundred times through Flask's test client
(no network, no server: the app's own cost) on a score pad with some rounds
and prints, as JSON, CPU ms and SQL statements per request. Six phones (each
its own cookie: four seated players and two watching) sit at the table, as
in ``push.py``: "a change, then every phone's board" is one entry by a
player followed by the other five phones fetching the new version, which is
what a table costs for each tap. A server adds its own HTTP parsing and,
behind nginx, the proxy's share (see docs/deploying.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from companion import create_app  # noqa: E402
from companion.tables.statements import watch_statements  # noqa: E402

PLAYERS = ["Ana", "Ben", "Cy", "Di"]
HTMX = {"HX-Request": "true"}


def _csrf(html: str) -> str:
    return html.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("LEAFPILE_BENCH_DATABASE_URL", ""),
        help="an empty database to use instead of a fresh SQLite file",
    )
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "DATABASE_URL": args.database_url or f"sqlite:///{folder}/cpu.sqlite3",
                "INSTANCE_PATH": folder,
                "SECRET_KEY": "benchmark",
                "LEAFPILE_RATE_LIMITS": False,
            }
        )
        if "healthz" not in [r.endpoint for r in app.url_map.iter_rules()]:

            @app.get("/healthz")
            def healthz() -> str:
                return "ok\n"

        store = app.extensions["leafpile_store"]
        statements = [0]
        watch_statements(store, lambda _sql: statements.__setitem__(0, statements[0] + 1))
        table = store.create_table("scorepad", PLAYERS, {}, seed=1)
        for n in range(20):
            store.act(table.token, n, {"type": "AddRound", "scores": [n, 1, 2, 3]})
        token = table.token
        phones = []
        for n in range(6):
            client = app.test_client()
            csrf = _csrf(client.get(f"/t/{token}").get_data(as_text=True))
            form: dict[str, str] = {"csrf_token": csrf}
            form |= {"seat": PLAYERS[n]} if n < len(PLAYERS) else {"mode": "watching"}
            assert client.post(f"/t/{token}/me", data=form, headers=HTMX).status_code == 200
            phones.append((client, csrf))
        version = [store.version(token)]
        player, csrf = phones[0]

        def act() -> Any:
            form = {"csrf_token": csrf, "version": str(version[0]), "action": "add-round"}
            form |= {f"score{i}": "1" for i in range(4)}
            response = player.post(f"/t/{token}/act", data=form, headers=HTMX)
            assert response.status_code == 200, response.status_code
            version[0] += 1
            return response

        def others_fetch() -> None:
            for client, _ in phones[1:]:
                response = client.get(f"/t/{token}/poll?v={version[0] - 1}", headers=HTMX)
                assert response.status_code == 200, response.status_code

        def change_then_boards() -> None:
            act()
            others_fetch()

        kinds: dict[str, tuple[Callable[[], Any], int]] = {
            "healthz (trivial)": (lambda: player.get("/healthz"), 1),
            "poll, nothing new (204)": (
                lambda: player.get(f"/t/{token}/poll?v={version[0]}", headers=HTMX),
                1,
            ),
            "poll, a board another phone already fetched (200)": (
                lambda: player.get(f"/t/{token}/poll?v=0", headers=HTMX),
                1,
            ),
            "entry (POST act)": (act, 1),
            "a change, then every phone's board (1 entry + 5 fetches), per request": (
                change_then_boards,
                6,
            ),
            "table page": (lambda: player.get(f"/t/{token}"), 1),
            "start page": (lambda: player.get("/"), 1),
        }
        cpu: dict[str, float] = {}
        sql: dict[str, float] = {}
        for name, (call, requests) in kinds.items():
            for _ in range(20):
                call()
            statements[0] = 0
            started = time.process_time()
            for _ in range(args.runs):
                call()
            used = time.process_time() - started
            cpu[name] = round(used / args.runs / requests * 1000, 3)
            sql[name] = round(statements[0] / args.runs / requests, 2)
        store.engine.dispose()
    print(
        json.dumps(
            {
                "database": "postgresql" if args.database_url else "sqlite",
                "cpu_ms_per_request": cpu,
                "sql_statements_per_request": sql,
                "load_average": [round(x, 2) for x in os.getloadavg()],
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
