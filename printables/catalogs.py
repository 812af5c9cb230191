"""Keeping the print kit's catalog (domain ``printables``), from a checkout::

    python -m printables.catalogs extract   # printables/ + the Print page -> printables.pot
    python -m printables.catalogs update    # printables.pot -> each language's printables.po
    python -m printables.catalogs compile   # each printables.po -> printables.mo
    python -m printables.catalogs check     # complete, not fuzzy, placeholders kept

Extraction reads ``printables/babel.cfg`` with the kit's own keywords
(:data:`KEYWORDS`), none of which the app's shared catalog uses.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from companion import catalog_tools

from .i18n import DOMAIN, LANGUAGES, SOURCE, TRANSLATIONS

BABEL_CFG = Path(__file__).resolve().parent / "babel.cfg"
KEYWORDS = ("tr", "n:1,2", "N_", "kit", "KitError")
"""``tr("...")`` and ``tr.n(singular, plural, count)`` in the kit,
``N_("...")`` for words defined before a language is known, ``kit("...")``
in the Print page's template."""


def catalog_paths() -> Iterator[tuple[str, Path]]:
    """Each translated language and its ``printables.po`` (English has none)."""
    return catalog_tools.catalog_paths(TRANSLATIONS, DOMAIN, LANGUAGES, SOURCE)


def extract(output: Path | None = None) -> Path:
    """Every marked word of the kit and the Print page into ``printables.pot``
    (or ``output``)."""
    return catalog_tools.extract(
        str(BABEL_CFG.relative_to(catalog_tools.ROOT)),
        KEYWORDS,
        output or TRANSLATIONS / f"{DOMAIN}.pot",
        "--omit-header",
    )


def update() -> None:
    """Bring every language's catalog up to ``printables.pot``."""
    catalog_tools.update(TRANSLATIONS, DOMAIN, catalog_paths())


def compile_catalogs() -> None:
    """Every ``printables.po`` to its ``printables.mo``."""
    catalog_tools.compile_catalogs(TRANSLATIONS, DOMAIN)


def problems(po: Path) -> list[str]:
    """What is wrong with one catalog (:func:`companion.catalog_tools.problems`)."""
    return catalog_tools.problems(po)


def check() -> list[str]:
    """Every catalog's :func:`problems`."""
    return [problem for _, po in catalog_paths() for problem in problems(po)]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    commands: dict[str, Callable[[], object]] = {
        "extract": extract,
        "update": update,
        "compile": compile_catalogs,
    }
    return catalog_tools.command_line(
        args, __doc__ or "", commands, check, "every catalog of the kit is complete"
    )


if __name__ == "__main__":
    raise SystemExit(main())
