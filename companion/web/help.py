"""Help on the phone: each game's page of the documentation, served by the app.

The source is the docs site's own Markdown (``docs/<page>.md``), not a copy:
from a checkout it is read from ``docs/``, from an installed copy from the
``leafpile_docs`` package, so help works with no internet. Rendering for a
phone drops what only makes sense on the docs site: pictures (not served
here), links to pages that are not help pages (their text stays), and
everything after a ``<!-- help: stop -->`` line (pointers for programmers).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import xml.etree.ElementTree as etree
from pathlib import Path

import markdown
from flask import Blueprint, abort, render_template, url_for
from markdown.treeprocessors import Treeprocessor
from markupsafe import Markup

from companion.tables import games

bp = Blueprint("help", __name__, url_prefix="/help")

# Each game's help page: the docs page that explains it at the table.
HELP_PAGES = {
    "scorepad": "scorepad.md",
    "pairs": "pairs.md",
    "venture": "venture.md",
    "autumn_leaves": "autumn-leaves.md",
    "leaf": "leaf.md",
    "north_wind": "north-wind.md",
    "autumn_ash": "autumn-ash.md",
    "solitaire": "solitaire.md",
}
TABLE_GUIDE = "table.md"  # the help index: how any table works
STOP = "<!-- help: stop -->"


def docs_folder() -> Path:
    """``docs/`` beside the package in a checkout, else the installed copy."""
    checkout = Path(__file__).resolve().parents[2] / "docs"
    if (checkout / TABLE_GUIDE).is_file():
        return checkout
    spec = importlib.util.find_spec("leafpile_docs")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Leafpile's help pages are not installed; reinstall the package")
    return Path(next(iter(spec.submodule_search_locations)))


class _ForThePhone(Treeprocessor):
    """Pictures out, links to help pages kept, links to other docs pages as plain text."""

    def __init__(self, md: markdown.Markdown, links: dict[str, str]) -> None:
        super().__init__(md)
        self.links = links

    def run(self, root: etree.Element) -> None:
        for parent in list(root.iter()):
            for child in list(parent):
                if child.tag == "img":
                    parent.remove(child)
                elif child.tag == "a":
                    self._fix_link(child)
        self._drop_empty(root)

    def _fix_link(self, link: etree.Element) -> None:
        href = link.get("href", "")
        page, _, fragment = href.partition("#")
        if re.match(r"^[a-z][a-z0-9+.-]*:", href) or not page.endswith(".md"):
            return  # a web address or an anchor on this page
        target = self.links.get(page)
        if target:
            link.set("href", target + (f"#{fragment}" if fragment else ""))
        else:  # a page of the docs site that is not served here: keep the words
            link.tag = "span"
            link.attrib.clear()

    def _drop_empty(self, element: etree.Element) -> None:
        """Paragraphs and tables that held only pictures (a table's headings may remain)."""
        for child in list(element):
            self._drop_empty(child)
            only_pictures = (child.tag == "p" and not _text(child)) or (
                child.tag == "table" and not any(_text(cell) for cell in child.iter("td"))
            )
            if only_pictures:
                element.remove(child)


def _text(element: etree.Element) -> str:
    return "".join(element.itertext()).strip()


@functools.lru_cache(maxsize=32)
def _render(path: Path, modified: float, links: tuple[tuple[str, str], ...]) -> tuple[str, Markup]:
    text = path.read_text(encoding="utf-8").split(STOP, 1)[0]
    md = markdown.Markdown(extensions=["tables", "toc"])
    md.treeprocessors.register(_ForThePhone(md, dict(links)), "leafpile_for_the_phone", 1)
    html = md.convert(text)
    title_match = re.match(r"#\s+(.+)", text)
    title = title_match.group(1).strip() if title_match else path.stem
    return title, Markup(html)  # our own Markdown, shipped with the package


def render_page(filename: str) -> tuple[str, Markup]:
    """(title, HTML) of one docs page, rendered for the phone."""
    links = {page: url_for("help.game", game=key) for key, page in HELP_PAGES.items()}
    links[TABLE_GUIDE] = url_for("help.index")
    path = docs_folder() / filename
    if not path.is_file():
        abort(404)
    return _render(path, path.stat().st_mtime, tuple(sorted(links.items())))


@bp.get("/")
def index() -> str:
    title, body = render_page(TABLE_GUIDE)
    return render_template("help/page.html", title=title, body=body, game=None)


@bp.get("/<game>")
def game(game: str) -> str:
    filename = HELP_PAGES.get(game)
    if filename is None or game not in games.GAMES:
        abort(404)
    title, body = render_page(filename)
    return render_template("help/page.html", title=title, body=body, game=games.GAMES[game])
