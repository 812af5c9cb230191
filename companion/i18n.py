"""The languages Leafpile speaks, and the tool that keeps their catalogs.

The catalogs are gettext files in ``companion/translations/``: one
``messages.pot`` (every marked string, extracted from the code and the
templates) and per language a ``<code>/LC_MESSAGES/messages.po`` (the
translations) beside its compiled ``messages.mo``. The ``.mo`` files are
committed, so a plain ``pip install .`` (or a wheel) has working languages
without a build step; ``tests/code/test_catalogs.py`` fails when a ``.mo`` is
older than its ``.po``.

Run from a checkout, with no ``leafpile`` command needed::

    python -m companion.i18n extract   # code + templates -> messages.pot
    python -m companion.i18n update    # messages.pot -> every messages.po (new, changed entries)
    python -m companion.i18n compile   # every messages.po -> messages.mo
    python -m companion.i18n check     # complete, not fuzzy, placeholders as in English
    python -m companion.i18n pseudo DIR  # the pseudo-locale's catalog into DIR (tests)

This module imports no Flask: the web app's side is ``companion/web/i18n.py``.
"""

from __future__ import annotations

import functools
import gettext
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from . import catalog_tools

#: Where the catalogs live, inside the package.
TRANSLATIONS = Path(__file__).resolve().parent / "translations"
DOMAIN = "messages"

#: The languages offered to phones, by Babel locale id, with their own names
#: (a language is chosen by someone who reads it). English is the source.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "it": "Italiano",
    "nl": "Nederlands",
    "pl": "Polski",
    "pt_BR": "Português (Brasil)",
}
SOURCE = "en"

#: The pseudo-locale: every string accented, 40 % longer and between markers,
#: so a test sees at a glance which words were never marked for translation.
#: Never offered to phones; an app accepts it only when configured to
#: (``I18N_PSEUDO_LOCALE``). Babel knows no ``en_XA``, so it borrows the
#: id of an English variant that no browser asks for.
PSEUDO = "en_US_POSIX"
PSEUDO_OPEN = "⟦"
PSEUDO_CLOSE = "⟧"

KEYWORDS = (
    "_",
    "gettext",
    "ngettext:1,2",
    "pgettext:1c,2",
    "npgettext:1c,2,3",
    "lazy_gettext",
    "refusal:1c,2",
    "refusal_n:1c,2,3",
    "named:1c,2",
    "marked",
)

_ACCENTED = str.maketrans(
    "AaCcEeIiNnOoSsUuYyZz",
    "ÀåÇçÉéÎîÑñÖöŠšÛüÝýŽž",
)
# What must pass through untouched: %-placeholders, Jinja's %(name)s, HTML
# tags and entities.
_KEEP = re.compile(r"%\([a-z_0-9]+\)[sd]|%[sd%]|<[^>]*>|&[a-z#0-9]+;")


def pseudo(text: str) -> str:
    """``text`` in the pseudo-locale: letters accented, 40 % longer (at least
    one more character), placeholders and markup untouched, between markers.

    >>> pseudo("Undo %(name)s's <b>bid</b>")
    "⟦Ûñdö %(name)s'š <b>bîd</b> ~~~~~~~~ ~~⟧"
    """
    pieces: list[str] = []
    last = 0
    for found in _KEEP.finditer(text):
        pieces.append(text[last : found.start()].translate(_ACCENTED))
        pieces.append(found.group(0))
        last = found.end()
    pieces.append(text[last:].translate(_ACCENTED))
    # The padding comes as words of up to 8 characters, as longer words
    # do, so it wraps where a real translation would.
    padding = "~" * max(1, round(len(text) * 0.4))
    words = " ".join(padding[i : i + 8] for i in range(0, len(padding), 8))
    return f"{PSEUDO_OPEN}{''.join(pieces)} {words}{PSEUDO_CLOSE}"


@functools.cache
def catalog(code: str) -> gettext.NullTranslations:
    """One offered language's compiled catalog, for words chosen outside a
    request's own language (every language's form of a name, a bare WSGI
    answer); English, the source, has none and reads as it is."""
    from babel.support import Translations

    return Translations.load(str(TRANSLATIONS), [code], DOMAIN)


def catalog_paths() -> Iterator[tuple[str, Path]]:
    """Each translated language and its ``messages.po`` (English has none)."""
    return catalog_tools.catalog_paths(TRANSLATIONS, DOMAIN, LANGUAGES, SOURCE)


def extract() -> None:
    """Every marked string of the code and templates into ``messages.pot``."""
    catalog_tools.extract(
        "babel.cfg",
        KEYWORDS,
        TRANSLATIONS / f"{DOMAIN}.pot",
        "--copyright-holder=Leafpile's authors",
    )


def update() -> None:
    """Bring every language's catalog up to ``messages.pot`` (a new language
    gets a catalog of its own with ``init``)."""
    catalog_tools.update(TRANSLATIONS, DOMAIN, catalog_paths())


def compile_catalogs() -> None:
    """Every ``messages.po`` to its ``messages.mo``."""
    catalog_tools.compile_catalogs(TRANSLATIONS, DOMAIN)


#: Placeholders only English needs, which a translation leaves out: the
#: article of a card ("a 7", "an 8", companion/rules/venture.py and pairs.py).
ENGLISH_ONLY = frozenset({"article", "article_low"})
_PLACEHOLDER = catalog_tools.PLACEHOLDER


def problems(po: Path) -> list[str]:
    """What is wrong with one catalog (:func:`companion.catalog_tools.problems`;
    the article placeholders may be left out)."""
    return catalog_tools.problems(po, ENGLISH_ONLY)


def check() -> list[str]:
    """Every catalog's :func:`problems`."""
    return [problem for _, po in catalog_paths() for problem in problems(po)]


def write_pseudo(directory: Path) -> Path:
    """The pseudo-locale's compiled catalog, made from ``messages.pot``, in
    ``directory/<PSEUDO>/LC_MESSAGES/``; returns ``directory``."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with (TRANSLATIONS / f"{DOMAIN}.pot").open("rb") as handle:
        catalog = read_po(handle, locale="en")
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            message.string = tuple(pseudo(str(form)) for form in message.id)
        else:
            message.string = pseudo(message.id)
    target = directory / PSEUDO / "LC_MESSAGES"
    target.mkdir(parents=True, exist_ok=True)
    with (target / f"{DOMAIN}.mo").open("wb") as out:
        write_mo(out, catalog)
    return directory


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["pseudo"] and len(args) == 2:
        print(write_pseudo(Path(args[1])))
        return 0
    commands: dict[str, Callable[[], object]] = {
        "extract": extract,
        "update": update,
        "compile": compile_catalogs,
    }
    return catalog_tools.command_line(
        args, __doc__ or "", commands, check, "every catalog is complete"
    )


if __name__ == "__main__":
    raise SystemExit(main())
