"""Rulings written once, shown wherever a page relies on them.

Every ruling's text lives in one place, ``docs/rulings.md``, as a list item
``- **P1 Losing score.** Plain words ...`` (an id, a short name, the
ruling). A help page that relies on rulings names them on a line of its own::

    {{ rulings P1-P9 PR1-PR7 }}

and this Markdown extension puts their text there, folded under a
*Rulings* heading a player can open. The docs site (``mkdocs.yml`` loads the
extension) and the phone's help (``companion/web/help.py``) expand the same
line from the same file, so a ruling is never written twice. An id the
Rulings page does not write out stops the build (mkdocs) or the page (the
phone's help) with :class:`UnknownRuling`: a citation with nothing behind it
is a bug. No Flask here: mkdocs imports this module on its own.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

#: One ruling id: a family of one to three capitals and a number (P1, NX5, LT3).
ID = re.compile(r"\b([A-Z]{1,3})(\d{1,2})\b")
#: A ruling on the Rulings page: ``- **ID Name.** text`` and its indented lines.
RULING = re.compile(r"^- \*\*([A-Z]{1,3}\d{1,2}) ([^*]+?)\*\*[ \t]*(.*(?:\n[ \t]+\S.*)*)", re.M)
#: Where a page asks for its rulings.
MARKER = re.compile(r"^\{\{ rulings ((?:[A-Z]{1,3}\d{1,2}(?:-[A-Z]{1,3}\d{1,2})?\s*)+)\}\}\s*$")
RULINGS_PAGE = "rulings.md"


@dataclass(frozen=True)
class Labels:
    """The fold's own words, in English for the docs site; the phone's help
    hands in the same words in the phone's language (``help.py``)."""

    summary: str = "The rulings this page relies on (%(count)s: %(ids)s)"
    span: str = "%(first)s to %(last)s"
    every: str = "Every ruling, for every game:"
    rulings: str = "Rulings"


class UnknownRuling(LookupError):
    """A page cites a ruling the Rulings page does not write out."""


def anchor(ruling_id: str) -> str:
    """The ruling's anchor on the Rulings page: ``P1`` → ``p1``."""
    return ruling_id.lower()


@functools.lru_cache(maxsize=4)
def _read(path: Path, modified: float) -> dict[str, tuple[str, str]]:
    del modified  # part of the cache key only: an edited page is read again
    return read_rulings(path.read_text(encoding="utf-8"))


def read_rulings(text: str) -> dict[str, tuple[str, str]]:
    """id → (name, text) of every ruling a Rulings page writes out, in order.

    The name keeps its own punctuation ("Losing score." or "The lowest bid,"),
    since some rulings run on from their name into the text."""
    found: dict[str, tuple[str, str]] = {}
    for match in RULING.finditer(text):
        ruling_id, name, body = match.groups()
        if ruling_id in found:
            raise ValueError(f"ruling {ruling_id} is written out twice on the Rulings page")
        found[ruling_id] = (name, " ".join(body.split()))
    return found


def rulings(docs: Path) -> dict[str, tuple[str, str]]:
    """Every ruling of ``docs/rulings.md``: id → (name, text)."""
    path = docs / RULINGS_PAGE
    return _read(path, path.stat().st_mtime)


def expand(spec: str, known: dict[str, tuple[str, str]]) -> list[str]:
    """``"P1-P3 PR2"`` → ``["P1", "P2", "P3", "PR2"]``, each one the page writes out."""
    ids: list[str] = []
    for part in spec.split():
        first, _, last = part.partition("-")
        head, tail = ID.fullmatch(first), ID.fullmatch(last or first)
        if not head or not tail or head.group(1) != tail.group(1):
            raise UnknownRuling(f"{part!r} is not a ruling id or a range of one family")
        for n in range(int(head.group(2)), int(tail.group(2)) + 1):
            ids.append(f"{head.group(1)}{n}")
    missing = [i for i in ids if i not in known]
    if missing:
        raise UnknownRuling(f"the Rulings page does not write out {', '.join(missing)}")
    return ids


def folded(
    ids: list[str], known: dict[str, tuple[str, str]], link: str, labels: Labels = Labels()
) -> list[str]:
    """The Markdown lines of the folded list of rulings ``ids``."""
    span = labels.span % {"first": ids[0], "last": ids[-1]}
    label = " ".join(ids) if len(ids) <= 3 else span
    lines = [
        '<details class="rulings" markdown="1">',
        f"<summary>{labels.summary % {'count': len(ids), 'ids': label}}</summary>",
        "",
    ]
    for ruling_id in ids:
        name, text = known[ruling_id]
        lines.append(f"- **{ruling_id} {name}** {text}")
    lines += ["", f"{labels.every} [{labels.rulings}]({link}).", "", "</details>", ""]
    return lines


class _Expand(Preprocessor):
    def __init__(self, md: Markdown, docs: Path, link: str, labels: Labels) -> None:
        super().__init__(md)
        self.docs = docs
        self.link = link
        self.labels = labels

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        for line in lines:
            match = MARKER.match(line)
            if match is None:
                out.append(line)
                continue
            known = rulings(self.docs)
            out += folded(expand(match.group(1), known), known, self.link, self.labels)
        return out


class RulingsExtension(Extension):
    """``{{ rulings ... }}`` lines become the rulings' text from ``docs/rulings.md``."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "docs": ["docs", "the folder holding rulings.md"],
            "link": [RULINGS_PAGE, "where the Rulings page is linked"],
            "labels": [Labels(), "the fold's words (the phone's help: in its language)"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's name)
        md.registerExtension(self)
        docs = Path(self.getConfig("docs"))
        expand_it = _Expand(md, docs, self.getConfig("link"), self.getConfig("labels"))
        md.preprocessors.register(expand_it, "leafpile_rulings", 25)


def makeExtension(**kwargs: Any) -> RulingsExtension:  # noqa: N802 (Markdown's name)
    return RulingsExtension(**kwargs)


# --- The docs site's translated help pages -----------------------------------------------
# A translated page (docs/de/pairs.md) writes out the rulings of its own
# language's Rulings page (docs/de/rulings.md) under the fold's words from the
# app's catalog. The Markdown extension above cannot tell which page it reads,
# so mkdocs.yml loads this file as a hook too: it expands a translated page's
# markers itself, before the extension sees them.

TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"


def labels_in(language: str) -> Labels:
    """The fold's words in ``language``, from the app's catalog (Babel only)."""
    from babel.support import Translations

    catalog = Translations.load(str(TRANSLATIONS), [language])
    english = dataclasses.asdict(Labels())
    return Labels(**{field: catalog.gettext(words) for field, words in english.items()})


def expand_translated(text: str, folder: Path, language: str) -> str:
    """``text`` of a page in ``folder`` (``docs/<language>``) with its markers
    written out from that folder's Rulings page, in that language."""
    known = rulings(folder)
    labels = labels_in(language)
    out: list[str] = []
    for line in text.split("\n"):
        match = MARKER.match(line)
        out += (
            folded(expand(match.group(1), known), known, RULINGS_PAGE, labels) if match else [line]
        )
    return "\n".join(out)


def on_page_markdown(markdown: str, page: Any, config: Any, **_: Any) -> str:
    """mkdocs' hook: a page in a language folder with its own Rulings page."""
    language, _slash, name = page.file.src_uri.partition("/")
    folder = Path(config["docs_dir"]) / language
    if not name or "/" in name or not (folder / RULINGS_PAGE).is_file():
        return markdown
    return expand_translated(markdown, folder, language)
