"""Help on the phone: every game's table links to a page the app serves from
the docs site's own Markdown, readable with no internet."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from companion.rules import leaf
from companion.tables.games import GAME_MODULES
from companion.web import help as help_pages
from companion.web import help_rulings
from tests.conftest import in_each_scheme

DOCS = Path(__file__).resolve().parents[2] / "docs"

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
    # Each bold lead-in of the page's own text is on the phone too.
    for bold in re.findall(r"^\*\*(.+?)\*\*", source.split(help_pages.STOP)[0], re.M):
        assert f"<strong>{bold}</strong>" in body, bold
    assert '<details class="rulings">' in body


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
def test_a_thumb_reaches_help_from_the_table_and_reads_it_without_scrolling_sideways(
    live_server, new_phone
):
    table = live_server.store.create_table("venture", ["Ana", "Ben", "Cy"], {})
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    page.get_by_role("link", name="How to play").click()
    page.get_by_role("heading", name="Venture", level=1).wait_for()
    for _ in in_each_scheme(page):
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for link in page.locator("nav a:visible").all():
            box = link.bounding_box()
            assert box and box["height"] >= 44, link.inner_text()


# --- Pages for the table: a phone's budget, no programmers' material ----------------------

#: Bytes of HTML a help page may take: a few phone screens of words, not a notebook.
BUDGET = 16 * 1024
#: What only a programmer reads: code sessions, test and benchmark files, the
#: solver's research. None of it may reach a page the phone serves.
DEVELOPER_MARKS = [
    ">>>",
    "<pre",
    "pycon",
    "perft",
    "benchmarks/",
    "tests/",
    "companion/",
    ".py<",
    "pytest",
    "Python library",
    "positions a second",
    "superseded",
    "CPU",
    "mypyc",
]


def _served_help_pages():
    pages = ["/help/", "/help/rulings"]
    pages += [f"/help/{game}" for game in help_pages.HELP_PAGES]
    text = (DOCS / "rulings.md").read_text(encoding="utf-8").split(help_pages.STOP)[0]
    sections = help_pages.rulings_sections(text)[1]
    pages += [f"/help/rulings/{slug}" for slug in sections if slug not in help_pages.RULINGS_FRONT]
    return pages


SERVED = _served_help_pages()


@pytest.mark.parametrize("game", help_pages.HELP_PAGES)
def test_each_game_page_links_to_its_own_part_of_the_rulings(client, game):
    body = client.get(f"/help/{game}").get_data(as_text=True)
    part = f"/help/rulings/{help_pages.RULINGS_PART[game]}"
    assert f'href="{part}">This game\'s rulings</a>' in body
    assert part in SERVED
    assert 'href="/help/rulings">Every ruling</a>' in body


def test_the_rulings_are_served_in_parts_one_a_game():
    assert "/help/rulings/pairs" in SERVED and "/help/rulings/the-north-wind" in SERVED
    assert len(SERVED) == 2 + len(help_pages.HELP_PAGES) + 8  # a part a game


@pytest.mark.parametrize("path", SERVED)
def test_every_help_page_fits_a_phones_budget_and_holds_no_developer_section(client, path):
    response = client.get(path)
    assert response.status_code == 200
    html = response.get_data()
    assert len(html) <= BUDGET, f"{path} is {len(html):,} bytes of HTML, over {BUDGET:,}"
    page = html.decode().split('class="panel help-page"')[1]
    found = [mark for mark in DEVELOPER_MARKS if mark in page]
    assert found == [], f"{path} holds programmers' material: {found}"


def test_the_budget_test_would_catch_the_old_solitaire_notebook(client, tmp_path, monkeypatch):
    """The check can fail: the solitaire page as it was (the solver's lab notebook)."""
    import subprocess

    old = subprocess.run(
        ["git", "show", "db5d866:docs/solitaire.md"],
        cwd=DOCS.parent,
        capture_output=True,
        text=True,
    )
    if old.returncode:
        pytest.skip("the repository's history is not here")
    for page in DOCS.glob("*.md"):
        (tmp_path / page.name).write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "solitaire.md").write_text(old.stdout, encoding="utf-8")
    monkeypatch.setattr(help_pages, "docs_folder", lambda: tmp_path)
    html = client.get("/help/solitaire").get_data()
    assert len(html) > BUDGET and any(mark in html.decode() for mark in DEVELOPER_MARKS)


# --- Every ruling written out, once --------------------------------------------------------

ROOT = DOCS.parent
RULINGS = help_rulings.read_rulings((DOCS / "rulings.md").read_text(encoding="utf-8"))
#: A ruling id as the project cites it: a family and a number (P3, NX5, LT2).
CITED = re.compile(r"\b(PR|VX|AX|LX|NX|XA|LT|SX|SP|P|V|A|L|N|X|S)(\d{1,2})\b")
#: Tokens that look like ids but are not rulings, with where and why.
NOT_RULINGS = {
    ("printables/pyramids.py", "P0"): "a corner of a pyramid's net (P0..P4)",
}


def _cited_files():
    files = [*ROOT.glob("companion/**/*.py"), *ROOT.glob("companion/static/*.*")]
    files += [*ROOT.glob("templates/**/*.html"), *ROOT.glob("printables/**/*.py")]
    files += [DOCS / page for page in (*help_pages.HELP_PAGES.values(), help_pages.TABLE_GUIDE)]
    return [f for f in files if f.suffix in {".py", ".html", ".css", ".js", ".md"}]


def _citations():
    found: dict[str, list[str]] = {}
    for path in _cited_files():
        where = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in CITED.finditer(line):
                if (where, match.group(0)) not in NOT_RULINGS:
                    found.setdefault(match.group(0), []).append(f"{where}:{number}")
    return found


def test_every_ruling_cited_in_the_help_the_app_or_the_aids_is_written_out():
    cited = _citations()
    assert {"P1", "NX5", "LT3", "XA8", "LX3", "AX1", "VX1"} <= set(cited)  # the scan finds them
    missing = {ruling: places[:3] for ruling, places in cited.items() if ruling not in RULINGS}
    assert missing == {}, "rulings cited but not written out on docs/rulings.md"


def test_every_ruling_is_served_to_a_phone(client):
    served = "".join(client.get(path).get_data(as_text=True) for path in SERVED)
    for ruling, (name, text) in RULINGS.items():
        assert f'<li id="{ruling.lower()}"><strong>{ruling} {name}</strong>' in served, ruling
        assert len(text) >= 10, f"{ruling} has no words"


@pytest.mark.parametrize("game", help_pages.HELP_PAGES)
def test_each_game_page_writes_out_every_ruling_it_cites(client, game):
    source = (DOCS / help_pages.HELP_PAGES[game]).read_text(encoding="utf-8")
    text = source.split(help_pages.STOP)[0]
    marker = re.search(r"^\{\{ rulings (.+?) \}\}$", text, re.M)
    assert marker, f"{game}'s page names no rulings"
    listed = set(help_rulings.expand(marker.group(1), RULINGS))
    cited = {m.group(0) for m in CITED.finditer(text.replace(marker.group(0), ""))}
    squares = {f"{c}{r}" for c in "ABCDE" for r in range(1, 7)} if game == "autumn_ash" else set()
    assert cited - squares - listed == set(), "cited on the page, not written out there"
    body = client.get(f"/help/{game}").get_data(as_text=True)
    for ruling in listed:
        name, words = RULINGS[ruling]
        assert f"<strong>{ruling} {name}</strong>" in body, ruling
    assert "RULINGS.md" not in body  # no installed copy has the project's file


def test_a_page_citing_a_ruling_nobody_wrote_out_fails_loudly():
    with pytest.raises(help_rulings.UnknownRuling, match="does not write out P10"):
        help_rulings.expand("P8-P10", RULINGS)
    with pytest.raises(help_rulings.UnknownRuling, match="one family"):
        help_rulings.expand("P1-V3", RULINGS)
    assert help_rulings.expand("NX4-NX5 L2", RULINGS) == ["NX4", "NX5", "L2"]


def test_a_ruling_is_written_once():
    with pytest.raises(ValueError, match="P1 is written out twice"):
        help_rulings.read_rulings("- **P1 A.** one\n- **P1 B.** two\n")


# --- Leaf's scoring tables say what the referee computes ------------------------------------


def _table_rows(text: str, first_cell: str) -> list[list[str]]:
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|")
    ]
    for i, row in enumerate(rows):
        if row[0] == first_cell:
            return [row, rows[i + 2]]
    raise AssertionError(f"no table headed {first_cell!r}")


@pytest.mark.parametrize(
    ("heading", "acorns"),
    [("animals of one type", leaf.animal_acorns), ("adults in one group", leaf.mushroom_acorns)],
)
def test_leafs_scoring_tables_are_the_referees_L1_L2(heading, acorns):
    page = (DOCS / "leaf.md").read_text(encoding="utf-8")
    counts, scores = _table_rows(page, heading)
    assert len(counts) > 4
    for count, score in zip(counts[1:], scores[1:], strict=True):
        assert acorns(int(count)) == int(score), (heading, count)


def test_leafs_sun_and_tree_tables_are_the_referees_L3_L4():
    page = (DOCS / "leaf.md").read_text(encoding="utf-8")
    counts, scores = _table_rows(page, "sun + leaf cards")
    for span, score in zip(counts[1:], scores[1:], strict=True):
        low, high = map(int, span.split("-"))
        assert {leaf.leftover_acorns(n, 0) for n in range(low, high + 1)} == {int(score)}
        assert leaf.leftover_acorns(0, high) == int(score)  # sun and cards add up
    tree = re.search(r"^\| squirrel \| acorns \|\n\|---\|---\|\n((?:\|.*\n)+)", page, re.M)
    awards = [int(row.strip("|").split("|")[1]) for row in tree.group(1).splitlines()]
    assert awards == [6, 3, 0]
    assert leaf.tree_acorns({"A": 5, "B": 3, "C": 1, "D": 0}) == {"A": 6, "B": 3, "C": 0, "D": 0}


# --- On a phone: light and dark, a few screens each ------------------------------------------
# Set HELP_SHOTS_DIR to a folder to keep a full-page screenshot of each page
# (the review in docs/table.md was made from them).

SCREEN = 844
#: A game's How to play, or a part of the Rulings, fits this many phone screens.
MOST_SCREENS = 4


@pytest.mark.browser
def test_every_help_page_reads_on_a_phone(live_server, new_phone):
    page = new_phone()
    shots = os.environ.get("HELP_SHOTS_DIR")
    heights = {}
    for path in SERVED:
        page.emulate_media(color_scheme="light")
        page.goto(f"{live_server.url}{path}")
        page.locator("h1").first.wait_for()
        for scheme in in_each_scheme(page):
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, (path, scheme)
            height = page.evaluate("document.documentElement.scrollHeight")
            heights[path] = max(height, heights.get(path, 0))
            fold = page.locator("details.rulings > summary")
            if fold.count():
                box = fold.bounding_box()
                assert box and box["height"] >= 44 and box["width"] >= 300, (path, scheme)
                fold.click()
                first = page.locator("details.rulings li").first
                first.wait_for()
                assert first.is_visible()
                assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
                fold.click()  # folded again for the screenshot of the page as it opens
            if shots:
                page.evaluate("window.scrollTo(0, 0)")  # the fold's tap scrolled; as it opens
                name = path.strip("/").replace("/", "-") or "help"
                page.screenshot(path=str(Path(shots) / f"{name}-{scheme}.png"), full_page=True)
    assert min(heights.values()) >= SCREEN // 2  # the pages are measured, not empty
    too_long = {p: h for p, h in heights.items() if h > MOST_SCREENS * SCREEN}
    assert too_long == {}, f"over {MOST_SCREENS} screens of {SCREEN} px (all: {heights})"


#: Swap a fetched page's body into the open one (same head, so the same
#: style sheets) and measure it: one page load a language instead of one a page.
MEASURE_BODY = """html => {
    const fetched = new DOMParser().parseFromString(html, "text/html");
    document.body.replaceWith(document.adoptNode(fetched.body));
    return [fetched.documentElement.lang, document.documentElement.scrollHeight,
            document.documentElement.scrollWidth];
}"""


@pytest.mark.browser
def test_every_translated_help_page_keeps_the_english_pages_height_budget(live_server, new_phone):
    """German, French and Spanish run longer than English: each translated page
    keeps the same few screens. One phone opens the help once per language and
    lays out every other page's body (as served to it) in that page, the same
    style sheets; the scheme changes no height, so light only."""
    page = new_phone()
    heights: dict[str, int] = {}
    for lang in help_pages.TRANSLATED:
        page.goto(f"{live_server.url}/language/{lang}?next=/help/")
        page.locator("h1").first.wait_for()
        for path in SERVED:
            response = page.context.request.get(f"{live_server.url}{path}")
            html = response.text()
            assert response.ok and 'role="note"' not in html, f"{path} in {lang} is English"
            said, height, width = page.evaluate(MEASURE_BODY, html)
            assert said == lang and width <= 390, (lang, path, width)
            heights[f"{lang}{path}"] = height
    assert len(heights) == len(help_pages.TRANSLATED) * len(SERVED)
    assert min(heights.values()) >= SCREEN // 2  # measured, not empty
    too_long = {p: h for p, h in heights.items() if h > MOST_SCREENS * SCREEN}
    assert too_long == {}, f"over {MOST_SCREENS} screens of {SCREEN} px (all: {heights})"
