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

A phone reads help in its own language where a translation exists:
``docs/<language>/<page>.md`` (German, French, Spanish so far), the same
file names, the same headings with the English anchors (``{#at-the-table}``),
the same links. Links between help pages are the same addresses in every
language, so they stay in the phone's language. A page with no translation is
the English one, with a note in the phone's language saying so. The rulings
a translated page relies on come from the translated Rulings page.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import NamedTuple

import markdown
from flask import Blueprint, abort, render_template, url_for
from markdown.treeprocessors import Treeprocessor
from markupsafe import Markup

from companion.i18n import SOURCE
from companion.tables import games

from . import help_rulings
from .i18n import gettext, language

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
#: Languages with help pages of their own, in ``docs/<language>/``; a phone
#: in another language reads the English page with a note.
TRANSLATED = ("de", "fr", "es")
#: An explicit anchor after a heading: a translation keeps the English one.
ANCHOR = re.compile(r"\s*\{#([a-z0-9-]+)\}\s*$")


class HelpPage(NamedTuple):
    """One page as a phone gets it."""

    title: str
    body: Markup
    language: str  # the language its words are in ("en" when not translated)
    untranslated: bool  # English, while the phone reads another language


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


class PartWords(NamedTuple):
    """The words the Rulings page's parts add around its own text."""

    each_game: str = "Each game"
    part_title: str = "Rulings: %(part)s"
    every_ruling: str = "Every ruling"


@functools.lru_cache(maxsize=128)  # each page in each language with a translation
def _render(
    path: Path,
    part: str,
    links: tuple[tuple[str, str], ...],
    changed: tuple[float, float],
    rulings_from: Path,
    words: tuple[help_rulings.Labels, PartWords],
) -> tuple[str, Markup]:
    del changed  # a cache key only: an edited page or ruling is rendered again
    labels, part_words = words
    text = path.read_text(encoding="utf-8").split(STOP, 1)[0]
    if part:
        text = _rulings_part(text, part, dict(links)[RULINGS], part_words, _english_slugs())
    expand = help_rulings.RulingsExtension(
        docs=str(rulings_from), link=dict(links)[RULINGS], labels=labels
    )
    md = markdown.Markdown(extensions=["tables", "toc", "attr_list", "md_in_html", expand])
    md.treeprocessors.register(_ForThePhone(md, dict(links)), "leafpile_for_the_phone", 1)
    html = md.convert(text)
    title_match = re.match(r"#\s+(.+)", text)
    title = ANCHOR.sub("", title_match.group(1)).strip() if title_match else path.stem
    return title, Markup(html)  # our own Markdown, shipped with the package


def rulings_sections(text: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """The Rulings page's opening and its ``## `` sections: slug → (heading, Markdown)."""
    opening, *rest = re.split(r"^## ", text, flags=re.M)
    sections = {}
    for chunk in rest:
        heading, _, body = chunk.partition("\n")
        heading = ANCHOR.sub("", heading).strip()
        sections[_slug(heading)] = (heading, body)
    return opening, sections


def _slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.strip().lower()).strip("-")


def _english_slugs() -> tuple[str, ...]:
    """The parts' slugs, from the English page: every language's addresses."""
    text = (docs_folder() / RULINGS).read_text(encoding="utf-8").split(STOP, 1)[0]
    return tuple(rulings_sections(text)[1])


def _rulings_part(text: str, part: str, link: str, words: PartWords, slugs: tuple[str, ...]) -> str:
    """The Markdown of one part of the Rulings page: ``front`` or a section's slug.

    A translation's sections are the English ones in the same order (a test
    pins that), so a part has the same address in every language."""
    opening, found = rulings_sections(text)
    sections = dict(zip(slugs, found.values(), strict=True))
    if part == "front":
        games_list = [
            f"- [{heading}]({link}/{slug})"
            for slug, (heading, _) in sections.items()
            if slug not in RULINGS_FRONT
        ]
        front = [f"## {sections[slug][0]}\n{sections[slug][1]}" for slug in RULINGS_FRONT]
        each = words.each_game
        return "\n".join([opening, front[0], f"## {each}\n", *games_list, "", *front[1:]])
    heading, body = sections[part]
    title = words.part_title % {"part": heading}
    return f"# {title}\n\n{body}\n[{words.every_ruling}]({link})\n"


def _words_here() -> tuple[help_rulings.Labels, PartWords]:
    """The words help adds to a page, in this phone's language."""
    labels = help_rulings.Labels(
        summary=gettext("The rulings this page relies on (%(count)s: %(ids)s)"),
        span=gettext("%(first)s to %(last)s"),
        every=gettext("Every ruling, for every game:"),
        rulings=gettext("Rulings"),
    )
    part_words = PartWords(
        each_game=gettext("Each game"),
        part_title=gettext("Rulings: %(part)s"),
        every_ruling=gettext("Every ruling"),
    )
    return labels, part_words


def page_source(folder: Path, filename: str, wanted: str) -> tuple[Path, str]:
    """The file a phone in ``wanted`` reads, and its language: the page's
    translation when there is one, else the English page."""
    main = wanted.split("_")[0]
    if main in TRANSLATED and (folder / main / filename).is_file():
        return folder / main / filename, main
    return folder / filename, SOURCE


def render_page(filename: str, part: str = "") -> HelpPage:
    """One docs page, rendered for this phone (``part``: of the Rulings)."""
    links = {page: url_for("help.game", game=key) for key, page in HELP_PAGES.items()}
    links[TABLE_GUIDE] = url_for("help.index")
    links[RULINGS] = url_for("help.rulings")
    folder = docs_folder()
    if not (folder / filename).is_file():
        abort(404)
    wanted = language()
    path, written_in = page_source(folder, filename, wanted)
    rulings_from = path.parent if (path.parent / RULINGS).is_file() else folder
    changed = (path.stat().st_mtime, (rulings_from / RULINGS).stat().st_mtime)
    # The words help adds inside a page are in the page's language, so an
    # English page reads as one (its note and buttons are the phone's).
    words = _words_here() if written_in != SOURCE else (help_rulings.Labels(), PartWords())
    title, body = _render(path, part, tuple(sorted(links.items())), changed, rulings_from, words)
    untranslated = written_in == SOURCE and wanted != SOURCE
    return HelpPage(title, body, written_in, untranslated)


def rulings_parts() -> list[str]:
    """The slugs of the Rulings page's parts served one a page (a game each)."""
    return [slug for slug in _english_slugs() if slug not in RULINGS_FRONT]


@bp.get("/")
def index() -> str:
    return render_template("help/page.html", page=render_page(TABLE_GUIDE), game=None)


@bp.get("/rulings")
def rulings() -> str:
    return render_template("help/page.html", page=render_page(RULINGS, "front"), game=None)


@bp.get("/rulings/<part>")
def rulings_part(part: str) -> str:
    if part not in rulings_parts():
        abort(404)
    return render_template("help/page.html", page=render_page(RULINGS, part), game=None)


@bp.get("/<game>")
def game(game: str) -> str:
    filename = HELP_PAGES.get(game)
    if filename is None or game not in games.GAMES:
        abort(404)
    return render_template(
        "help/page.html",
        page=render_page(filename),
        game=games.GAMES[game],
        rulings_part=RULINGS_PART[game],
    )
