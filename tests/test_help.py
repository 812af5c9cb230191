"""Help on the phone: every game's table links to a page the app serves from
the docs site's own Markdown, readable with no internet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.tables.games import GAME_MODULES
from companion.web import help as help_pages

DOCS = Path(__file__).resolve().parent.parent / "docs"

# A table of each game, as its new-table form would make it.
TABLES = {
    "scorepad": (["Ana", "Ben"], {"lowest_wins": False}),
    "pairs": (["Ana", "Ben", "Cy"], {}),
    "venture": (["Ana", "Ben", "Cy"], {}),
    "autumn_leaves": (["Ana", "Ben", "Cy"], {}),
    "leaf": (["Ana", "Ben"], {}),
    "north_wind": (["Ana"], {"difficulty": "normal"}),
    "autumn_ash": (["Ana", "Ben"], {"rainbow": "Ana"}),
    "solitaire": (["Solo"], {"deal": 7}),
}


def test_every_game_has_a_help_page_and_a_table_to_try_it_on():
    assert sorted(help_pages.HELP_PAGES) == sorted(GAME_MODULES) == sorted(TABLES)


@pytest.mark.parametrize("game", GAME_MODULES)
def test_every_table_page_links_to_its_games_help(client, make_table, game):
    players, options = TABLES[game]
    table = make_table(game, players, options)
    page = client.get(f"/t/{table.token}").get_data(as_text=True)
    assert f'href="/help/{game}">How to play</a>' in page
    response = client.get(f"/help/{game}")
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    assert "<h1" in body and 'class="panel help-page"' in body


@pytest.mark.parametrize("game", ["pairs", "venture", "autumn_leaves", "north_wind"])
def test_help_is_the_docs_page_itself_not_a_copy(client, game):
    source = (DOCS / help_pages.HELP_PAGES[game]).read_text(encoding="utf-8")
    body = client.get(f"/help/{game}").get_data(as_text=True)
    title = re.match(r"# (.+)", source).group(1)
    assert f">{title}</h1>" in body
    # Each ruling's bold name on the docs page is on the phone too.
    for ruling in re.findall(r"^- \*\*(.+?)\*\*", source.split("<!-- help: stop -->")[0], re.M):
        assert f"<strong>{ruling}</strong>" in body, ruling
    assert "Rulings the companion applies" in body


def test_help_leaves_out_pictures_programmers_notes_and_dead_links(client):
    body = client.get("/help/north_wind").get_data(as_text=True)
    assert "<img" not in body.split('class="panel help-page"')[1]
    assert "Python library" not in body  # after the help: stop marker
    assert ".md" not in body  # every docs link became a help link or plain words
    assert "<table" not in body  # the table held only pictures
    leaf = client.get("/help/leaf").get_data(as_text=True)
    assert 'href="/help/north_wind">its own table</a>' in leaf  # a help page to a help page


def test_the_help_index_is_the_table_guide_with_links_to_every_game(client):
    body = client.get("/help/").get_data(as_text=True)
    assert ">Using it at the table</h1>" in body
    for game in GAME_MODULES:
        assert f'href="/help/{game}"' in body, game


@pytest.mark.parametrize("path", ["/help/nope", "/help/..%2Fapi", "/help/api"])
def test_an_unknown_help_page_is_a_friendly_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "There is nothing here" in response.get_data(as_text=True)


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_thumb_reaches_help_from_the_table_and_reads_it_without_scrolling_sideways(
    live_server, new_phone, scheme
):
    table = live_server.store.create_table("venture", ["Ana", "Ben", "Cy"], {})
    page = new_phone(scheme)
    page.goto(f"{live_server.url}/t/{table.token}")
    page.get_by_role("link", name="How to play").click()
    page.get_by_role("heading", name="Venture", level=1).wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for link in page.locator("nav a:visible").all():
        box = link.bounding_box()
        assert box and box["height"] >= 44, link.inner_text()
