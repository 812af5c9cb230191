"""Help on the phone: each game's page of the documentation, served by the app.

The source is the docs site's own Markdown (``docs/<page>.md``), not a copy:
from a checkout it is read from ``docs/``, from an installed copy from the
``leafpile_docs`` package, so help works with no internet. Rendering for a
phone drops what only makes sense on the docs site: pictures (not served
here), links to pages that are not help pages (their text stays), and
everything after a ``<!-- help: stop -->`` line (pointers for programmers).
Programmers' material has pages of its own (``solitaire-solver.md``,
``autumn-ash-referee.md``, ``api.md`` ...) that the phone never serves.

The rulings are written once, on ``docs/rulings.md``: a game's page names
the ones it relies on (``{{ rulings P1-P9 }}``) and :mod:`.help_rulings`
writes them out there, folded; ``/help/rulings`` serves the whole page.
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

from . import help_rulings

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
# Each game's part of the Rulings, as served on a phone (/help/rulings/<part>).
RULINGS_PART = {
    "scorepad": "score-pad",
    "pairs": "pairs",
    "venture": "venture",
    "autumn_leaves": "autumn-leaves",
    "leaf": "leaf",
    "north_wind": "the-north-wind",
    "autumn_ash": "autumn-ash",
    "solitaire": "solitaire",
}
TABLE_GUIDE = "table.md"  # the help index: how any table works
RULINGS = help_rulings.RULINGS_PAGE  # every ruling, written out for players
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
        for item in root.iter("li"):  # a ruling can be linked to: /help/rulings#p1
            name = item.find("strong")
            words = (name.text or "") if name is not None and not (item.text or "").strip() else ""
            ruling = help_rulings.ID.match(words)
            if ruling and item.get("id") is None:
                item.set("id", help_rulings.anchor(ruling.group(0)))
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


# The Rulings page is one page on the docs site; on a phone it is served in
# parts, so that no help page outgrows a phone (tests/web/test_help.py's budget):
# its opening with the rulings for every table, then one part a game.
RULINGS_FRONT = ("every-table", "elsewhere")


@functools.lru_cache(maxsize=64)
def _render(
    path: Path, part: str, links: tuple[tuple[str, str], ...], changed: tuple[float, float]
) -> tuple[str, Markup]:
    del changed  # a cache key only: an edited page or ruling is rendered again
    text = path.read_text(encoding="utf-8").split(STOP, 1)[0]
    if part:
        text = _rulings_part(text, part, dict(links)[RULINGS])
    expand = help_rulings.RulingsExtension(docs=str(path.parent), link=dict(links)[RULINGS])
    md = markdown.Markdown(extensions=["tables", "toc", "md_in_html", expand])
    md.treeprocessors.register(_ForThePhone(md, dict(links)), "leafpile_for_the_phone", 1)
    html = md.convert(text)
    title_match = re.match(r"#\s+(.+)", text)
    title = title_match.group(1).strip() if title_match else path.stem
    return title, Markup(html)  # our own Markdown, shipped with the package


def rulings_sections(text: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """The Rulings page's opening and its ``## `` sections: slug → (heading, Markdown)."""
    opening, *rest = re.split(r"^## ", text, flags=re.M)
    sections = {}
    for chunk in rest:
        heading, _, body = chunk.partition("\n")
        sections[_slug(heading)] = (heading.strip(), body)
    return opening, sections


def _slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.strip().lower()).strip("-")


def _rulings_part(text: str, part: str, link: str) -> str:
    """The Markdown of one part of the Rulings page: ``front`` or a section's slug."""
    opening, sections = rulings_sections(text)
    if part == "front":
        games_list = [
            f"- [{heading}]({link}/{slug})"
            for slug, (heading, _) in sections.items()
            if slug not in RULINGS_FRONT
        ]
        front = [f"## {sections[slug][0]}\n{sections[slug][1]}" for slug in RULINGS_FRONT]
        return "\n".join([opening, front[0], "## Each game\n", *games_list, "", *front[1:]])
    heading, body = sections[part]
    return f"# Rulings: {heading}\n\n{body}\n[Every ruling]({link})\n"


def render_page(filename: str, part: str = "") -> tuple[str, Markup]:
    """(title, HTML) of one docs page, rendered for the phone (``part``: of the Rulings)."""
    links = {page: url_for("help.game", game=key) for key, page in HELP_PAGES.items()}
    links[TABLE_GUIDE] = url_for("help.index")
    links[RULINGS] = url_for("help.rulings")
    folder = docs_folder()
    path = folder / filename
    if not path.is_file():
        abort(404)
    changed = (path.stat().st_mtime, (folder / RULINGS).stat().st_mtime)
    return _render(path, part, tuple(sorted(links.items())), changed)


def rulings_parts() -> list[str]:
    """The slugs of the Rulings page's parts served one a page (a game each)."""
    text = (docs_folder() / RULINGS).read_text(encoding="utf-8").split(STOP, 1)[0]
    return [slug for slug in rulings_sections(text)[1] if slug not in RULINGS_FRONT]


@bp.get("/")
def index() -> str:
    title, body = render_page(TABLE_GUIDE)
    return render_template("help/page.html", title=title, body=body, game=None)


@bp.get("/rulings")
def rulings() -> str:
    title, body = render_page(RULINGS, "front")
    return render_template("help/page.html", title=title, body=body, game=None)


@bp.get("/rulings/<part>")
def rulings_part(part: str) -> str:
    if part not in rulings_parts():
        abort(404)
    title, body = render_page(RULINGS, part)
    return render_template("help/page.html", title=title, body=body, game=None)


@bp.get("/<game>")
def game(game: str) -> str:
    filename = HELP_PAGES.get(game)
    if filename is None or game not in games.GAMES:
        abort(404)
    title, body = render_page(filename)
    return render_template(
        "help/page.html",
        title=title,
        body=body,
        game=games.GAMES[game],
        rulings_part=RULINGS_PART[game],
    )
