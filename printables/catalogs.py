"""Keeping the print kit's catalog (domain ``printables``), from a checkout::

    python -m printables.catalogs extract   # printables/ + the Print page -> printables.pot
    python -m printables.catalogs update    # printables.pot -> each language's printables.po
    python -m printables.catalogs compile   # each printables.po -> printables.mo
    python -m printables.catalogs check     # complete, not fuzzy, placeholders kept

Extraction reads ``printables/babel.cfg`` with the kit's own keywords
(:data:`KEYWORDS`), none of which the app's shared catalog uses.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from .i18n import DOMAIN, LANGUAGES, SOURCE, TRANSLATIONS

ROOT = Path(__file__).resolve().parent.parent
BABEL_CFG = Path(__file__).resolve().parent / "babel.cfg"
KEYWORDS = ("tr", "n:1,2", "N_", "kit", "KitError")
"""``tr("...")`` and ``tr.n(singular, plural, count)`` in the kit,
``N_("...")`` for words defined before a language is known, ``kit("...")``
in the Print page's template."""


def catalog_paths() -> Iterator[tuple[str, Path]]:
    """Each translated language and its ``printables.po`` (English has none)."""
    for code in LANGUAGES:
        if code != SOURCE:
            yield code, TRANSLATIONS / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def _pybabel(args: Sequence[str]) -> None:
    from babel.messages.frontend import CommandLineInterface

    CommandLineInterface().run(["pybabel", "-q", *args])  # type: ignore[no-untyped-call]


def extract(output: Path | None = None) -> Path:
    """Every marked word of the kit and the Print page into ``printables.pot``
    (or ``output``)."""
    target = output or TRANSLATIONS / f"{DOMAIN}.pot"
    keywords = [arg for word in KEYWORDS for arg in ("-k", word)]
    with contextlib.chdir(ROOT):
        _pybabel(
            [
                "extract",
                "-F",
                str(BABEL_CFG.relative_to(ROOT)),
                *keywords,
                "--no-default-keywords",
                "--sort-by-file",
                "--no-wrap",
                "--omit-header",
                "--project=Leafpile",
                "-o",
                str(target),
                ".",
            ]
        )
    return target


def update() -> None:
    """Bring every language's catalog up to ``printables.pot``."""
    for code, po in catalog_paths():
        command = "update" if po.exists() else "init"
        _pybabel(
            [
                command,
                "-D",
                DOMAIN,
                "-i",
                str(TRANSLATIONS / f"{DOMAIN}.pot"),
                "-d",
                str(TRANSLATIONS),
                "-l",
                code,
                "--no-wrap",
                *(["--ignore-obsolete", "--no-fuzzy-matching"] if command == "update" else []),
            ]
        )


def compile_catalogs() -> None:
    """Every ``printables.po`` to its ``printables.mo``."""
    _pybabel(["compile", "-D", DOMAIN, "-d", str(TRANSLATIONS), "--statistics"])


_PLACEHOLDER = re.compile(r"%\(([a-z_0-9]+)\)[sdg]")


def problems(po: Path) -> list[str]:
    """What is wrong with one catalog: an untranslated or fuzzy entry, or a
    translation whose placeholders differ from the English (Babel's checks,
    and the same set of named placeholders)."""
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle)
    found: list[str] = []
    for message in catalog:
        if not message.id:
            continue
        where = f"{po.parent.parent.name}: {message.id!r}"
        if message.fuzzy:
            found.append(f"{where} is fuzzy")
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            found.append(f"{where} is not translated")
            continue
        found += [f"{where}: {error}" for error in message.check(catalog)]
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        wanted = set(_PLACEHOLDER.findall(str(ids[-1])))
        for string in strings:
            if set(_PLACEHOLDER.findall(str(string))) != wanted:
                found.append(f"{where}: placeholders {sorted(wanted)} differ in {string!r}")
    return found


def check() -> list[str]:
    """Every catalog's :func:`problems`."""
    return [problem for _, po in catalog_paths() for problem in problems(po)]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args else ""
    if command == "extract":
        extract()
    elif command == "update":
        update()
    elif command == "compile":
        compile_catalogs()
    elif command == "check":
        found = check()
        print("\n".join(found) or "every catalog of the kit is complete")
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
