"""Take the README's screenshots of the core screens at phone size (390x844).

    python docs/take_screenshots.py

Needs Debian's chromium. Writes docs/screenshots/{home,scorepad,join}.png.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from companion import create_app

OUT = Path(__file__).resolve().parent / "screenshots"


def main() -> None:
    folder = tempfile.mkdtemp()
    app = create_app(
        {"DATABASE_URL": f"sqlite:///{folder}/shots.sqlite3", "INSTANCE_PATH": folder}
    )
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
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        for name, path in [
            ("home", "/"),
            ("scorepad", f"/t/{table.token}"),
            ("join", f"/t/{table.token}/join"),
        ]:
            page.goto(url + path)
            page.screenshot(path=str(OUT / f"{name}.png"))
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
