"""Take the README's screenshots of the core screens at phone size (390x844).

    python docs/take_screenshots.py

Needs Debian's chromium. Writes docs/screenshots/{home,scorepad,join}.png and
a mid-game screen of Pairs, Venture and Autumn Leaves.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from companion import create_app

OUT = Path(__file__).resolve().parent / "screenshots"


TRIO = ["Ana", "Ben", "Cleo"]

# A few entries into each card game, so the screenshots show a game under way.
MID_GAME = [
    (
        "pairs",
        "pairs",
        TRIO,
        [
            {"type": "Deal", "player": "Ana", "card": 7},
            {"type": "Deal", "player": "Ben", "card": 4},
            {"type": "Deal", "player": "Cleo", "card": 9},
            {"type": "Hit", "player": "Ben", "card": 6},
            {"type": "Hit", "player": "Cleo", "card": 3},
        ],
    ),
    (
        "venture",
        "venture",
        TRIO,
        [
            {"type": "EnterSlug", "cards": [3, 7, 9, 10]},
            {"type": "Bid", "player": "Ana", "card": 5},
            {"type": "Bid", "player": "Ben", "card": 8},
            {"type": "Bid", "player": "Cleo", "card": 2},
        ],
    ),
    (
        "autumn-leaves",
        "autumn_leaves",
        TRIO,
        [
            {"type": "Reveal", "cards": [["Ana", 5], ["Ben", 7], ["Cleo", 3]]},
            {"type": "Reveal", "cards": [["Ana", 6], ["Ben", 4], ["Cleo", 8]]},
        ],
    ),
]


def main() -> None:
    folder = tempfile.mkdtemp()
    app = create_app({"DATABASE_URL": f"sqlite:///{folder}/shots.sqlite3", "INSTANCE_PATH": folder})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    app.config["PUBLIC_URL"] = "http://192.168.1.20:5000"
    store = app.extensions["leafpile_store"]
    table = store.create_table(
        "scorepad", ["Ana", "Ben", "Cleo"], {"lowest_wins": False}, title="Friday night"
    )
    store.act(table.token, 0, {"type": "AddRound", "scores": [5, 3, 8]})
    store.act(table.token, 1, {"type": "AddRound", "scores": [2, 9, 1]})
    shots = [
        ("home", "/"),
        ("scorepad", f"/t/{table.token}"),
        ("join", f"/t/{table.token}/join"),
        ("new-table", "/new/pairs"),
        ("history", f"/t/{table.token}/history"),
        ("spectator", f"/v/{table.view_token}"),
    ]
    for name, game, players, actions in MID_GAME:
        mid = store.create_table(game, players, {}, title="Game night")
        for action in actions:
            store.act(mid.token, store.version(mid.token), action)
        shots.append((name, f"/t/{mid.token}"))
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        for name, path in shots:
            page.goto(url + path)
            page.screenshot(path=str(OUT / f"{name}.png"))
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
