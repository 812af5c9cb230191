"""Keeping one gettext domain's catalogs with pybabel: extract, update,
compile, check.

Both catalogs use it: the app's shared ``messages`` (:mod:`companion.i18n`)
and the print kit's own ``printables`` (:mod:`printables.catalogs`). Each
passes its folder, domain and keywords; what a catalog must hold is checked
here the same way for both. It imports no Flask and nothing of the app, so
the print kit stays free of the web app when it uses it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

#: The checkout: extraction runs there, so the catalogs' ``#:`` references
#: are paths relative to it.
ROOT = Path(__file__).resolve().parent.parent

#: A named placeholder, whose name a translation must keep.
PLACEHOLDER = re.compile(r"%\(([a-z_0-9]+)\)[sdg]")


def catalog_paths(
    translations: Path, domain: str, languages: Iterable[str], source: str
) -> Iterator[tuple[str, Path]]:
    """Each translated language and its ``<domain>.po`` (the source language
    has none)."""
    for code in languages:
        if code != source:
            yield code, translations / code / "LC_MESSAGES" / f"{domain}.po"


def pybabel(args: Sequence[str]) -> None:
    """Run one ``pybabel`` command quietly, in this process."""
    from babel.messages.frontend import CommandLineInterface

    CommandLineInterface().run(["pybabel", "-q", *args])  # type: ignore[no-untyped-call]


def extract(config: str, keywords: Iterable[str], output: Path, *options: str) -> Path:
    """Every string the checkout marks with ``keywords`` (in the files
    ``config``, a babel.cfg relative to the checkout, names) into ``output``."""
    keyword_args = [arg for word in keywords for arg in ("-k", word)]
    with contextlib.chdir(ROOT):  # paths in the catalogs relative to the checkout
        pybabel(
            [
                "extract",
                "-F",
                config,
                *keyword_args,
                "--no-default-keywords",
                "--sort-by-file",
                "--no-wrap",
                *options,
                "--project=Leafpile",
                "-o",
                str(output),
                ".",  # the checkout; the config's patterns say which files of it
            ]
        )
    return output


def update(translations: Path, domain: str, catalogs: Iterable[tuple[str, Path]]) -> None:
    """Bring every language's catalog up to ``<domain>.pot`` (a new language
    gets a catalog of its own with ``init``)."""
    for code, po in catalogs:
        command = "update" if po.exists() else "init"
        pybabel(
            [
                command,
                "-D",
                domain,
                "-i",
                str(translations / f"{domain}.pot"),
                "-d",
                str(translations),
                "-l",
                code,
                "--no-wrap",
                *(["--ignore-obsolete", "--no-fuzzy-matching"] if command == "update" else []),
            ]
        )


def compile_catalogs(translations: Path, domain: str) -> None:
    """Every ``<domain>.po`` to its ``<domain>.mo``."""
    pybabel(["compile", "-D", domain, "-d", str(translations), "--statistics"])


def command_line(
    args: Sequence[str],
    usage: str,
    commands: Mapping[str, Callable[[], object]],
    check: Callable[[], list[str]],
    complete: str,
) -> int:
    """Run the command ``args`` names: one of ``commands``, or ``check``,
    which prints what it found (or ``complete``) and fails if it found
    anything. Anything else prints ``usage``. Returns the exit status."""
    command = args[0] if args else ""
    if command == "check":
        found = check()
        print("\n".join(found) or complete)
        return 1 if found else 0
    if command not in commands:
        print(usage)
        return 2
    commands[command]()
    return 0


def problems(po: Path, english_only: frozenset[str] = frozenset()) -> list[str]:
    """What is wrong with one catalog: an untranslated or fuzzy entry, or a
    translation whose placeholders differ from the English (Babel's checks,
    and the same set of named placeholders, none lost but those in
    ``english_only``, which only English needs)."""
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle)
    found: list[str] = []
    for message in catalog:
        if not message.id:
            continue
        where = f"{po.parent.parent.name}: {message.id!r}"
        if message.context:
            where += f" ({message.context})"
        if message.fuzzy:
            found.append(f"{where} is fuzzy")
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            found.append(f"{where} is not translated")
            continue
        found += [f"{where}: {error}" for error in message.check(catalog)]
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        wanted = set(PLACEHOLDER.findall(str(ids[-1])))
        for string in strings:
            if set(PLACEHOLDER.findall(str(string))) | english_only != wanted | english_only:
                found.append(f"{where}: placeholders {sorted(wanted)} differ in {string!r}")
    return found
