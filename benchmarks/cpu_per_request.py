"""Where the CPU goes: in-process CPU time per request kind, through the app.

    python benchmarks/cpu_per_request.py

Runs each kind of request a few hundred times through Flask's test client
(no network, no server: the app's own cost) on a score pad with some rounds
and prints CPU ms per request, as JSON. A server adds its own HTTP parsing
and, behind nginx, the proxy's share (see docs/deploying.md).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import create_app  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "DATABASE_URL": f"sqlite:///{folder}/cpu.sqlite3",
                "INSTANCE_PATH": folder,
                "SECRET_KEY": "benchmark",
                "LEAFPILE_RATE_LIMITS": False,
            }
        )
        store = app.extensions["leafpile_store"]
        table = store.create_table("scorepad", ["Ana", "Ben", "Cy", "Di"], {}, seed=1)
        for n in range(20):
            store.act(table.token, n, {"type": "AddRound", "scores": [n, 1, 2, 3]})
        client = app.test_client()
        page = client.get("/").get_data(as_text=True)
        csrf = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        htmx = {"HX-Request": "true"}
        version = [store.version(table.token)]

        def act() -> None:
            form = {"csrf_token": csrf, "version": str(version[0]), "action": "add-round"}
            form |= {f"score{i}": "1" for i in range(4)}
            response = client.post(f"/t/{table.token}/act", data=form, headers=htmx)
            assert response.status_code == 200, response.status_code
            version[0] += 1

        kinds = {
            "healthz (trivial)": lambda: client.get("/healthz"),
            "poll, nothing new (204)": lambda: client.get(
                f"/t/{table.token}/poll?v={version[0]}", headers=htmx
            ),
            "poll, a fresh board (200)": lambda: client.get(
                f"/t/{table.token}/poll?v=0", headers=htmx
            ),
            "entry (POST act)": act,
            "table page": lambda: client.get(f"/t/{table.token}"),
            "start page": lambda: client.get("/"),
        }
        if "healthz" not in [r.endpoint for r in app.url_map.iter_rules()]:

            @app.get("/healthz")
            def healthz() -> str:
                return "ok\n"

        figures = {}
        for name, call in kinds.items():
            for _ in range(20):
                call()
            runs = 300
            started = time.process_time()
            for _ in range(runs):
                call()
            figures[name] = round((time.process_time() - started) / runs * 1000, 3)
        store.engine.dispose()
    print(
        json.dumps(
            {"cpu_ms_per_request": figures, "load_average": [round(x, 2) for x in os.getloadavg()]},
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
