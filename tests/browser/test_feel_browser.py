"""Thumb-sized, labelled controls on every screen, at phone size, light and dark.

Each registered game gets a table with its fewest players, so new game
screens are checked as soon as they are registered.
"""

from pathlib import Path

import pytest

from companion.tables.games import load as load_games
from companion.web.games import load as load_screens
from tests.conftest import in_each_scheme

pytestmark = pytest.mark.browser

MIN_TAP = 44  # px, WCAG 2.5.5 / platform guidance

# Controls a thumb must hit. Radio and check boxes are hit through their label.
CHECK_CONTROLS = "\n".join(
    line
    for line in (Path(__file__).parent / "feel_check.js").read_text().splitlines()
    if not line.startswith("//")
)


def _pages(live_server):
    store = live_server.store
    pages = [("home", "/"), ("join a table", "/join")]
    for key, kind in load_games().items():
        if key not in load_screens():
            continue
        players = [f"Player {i}" for i in range(1, kind.min_players + 1)]
        try:
            table = store.create_table(key, players, {})
        except ValueError:
            continue  # a game whose options have no defaults: its own tests cover it
        pages += [
            (f"new {key}", f"/new/{key}"),
            (f"{key} table", f"/t/{table.token}"),
            (f"{key} spectator", f"/v/{table.view_token}"),
            (f"{key} history", f"/t/{table.token}/history"),
            (f"{key} join", f"/t/{table.token}/join"),
        ]
    return pages


def test_every_control_is_thumb_sized_and_labelled(live_server, new_phone):
    page = new_phone()
    problems = []
    for name, path in _pages(live_server):
        response = page.goto(live_server.url + path)
        assert response.status == 200, f"{name} answered {response.status}"
        for scheme in in_each_scheme(page):
            problems += [f"{name} ({scheme}): {p}" for p in page.evaluate(CHECK_CONTROLS)]
    assert problems == []


def test_the_pages_run_no_inline_script_and_load_nothing_from_outside(live_server, new_phone):
    page = new_phone()
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    violations = []
    page.on(
        "console",
        lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    for _, path in _pages(live_server)[:8]:
        page.goto(live_server.url + path)
    assert [url for url in requested if not url.startswith(live_server.url)] == []
    assert violations == []
