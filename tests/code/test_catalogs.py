"""The translation catalogs (companion/translations, docs/languages.md).

Every offered language's catalog is complete, has no fuzzy entry and keeps
the English placeholders (Babel's own checks and ``python -m companion.i18n
check``); the template is what extraction finds in the code today; every
committed ``.mo`` says what its ``.po`` says, and the package ships them.
"""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from companion import i18n

ROOT = Path(__file__).resolve().parents[2]


def _entries(catalog) -> dict[tuple[str | None, object], object]:
    def flat(value: object) -> object:
        return tuple(value) if isinstance(value, list | tuple) else value

    return {(m.context, flat(m.id)): flat(m.string) for m in catalog if m.id}


def test_every_offered_language_has_a_catalog():
    found = {code for code, po in i18n.catalog_paths() if po.is_file()}
    assert found == set(i18n.LANGUAGES) - {i18n.SOURCE}


def test_every_catalog_is_complete_not_fuzzy_and_keeps_the_placeholders():
    assert i18n.check() == []


def test_the_check_finds_a_missing_a_fuzzy_and_a_wrong_placeholder(tmp_path):
    po = tmp_path / "xx" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
        'msgid "Keep it"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Drop"\nmsgstr "Weg"\n\n'
        '#, python-format\nmsgid "Player %(number)s"\nmsgstr "Spieler %(nummer)s"\n\n'
        '#, python-format\nmsgctxt "venture.bid.spent"\n'
        'msgid "%(player)s cannot bid %(article)s %(card)s"\n'
        'msgstr "%(player)s kann keine %(card)s bieten"\n',
        encoding="utf-8",
    )
    found = "\n".join(i18n.problems(po))
    assert "'Keep it' is not translated" in found
    assert "'Drop' is fuzzy" in found
    assert "Spieler %(nummer)s" in found
    assert "kann keine" not in found  # "article" is English only: left out, rightly


def test_the_template_holds_what_extraction_finds_today(tmp_path, monkeypatch):
    committed = read_po((i18n.TRANSLATIONS / "messages.pot").open("rb"))
    monkeypatch.setattr(i18n, "TRANSLATIONS", tmp_path)
    i18n.extract()
    fresh = read_po((tmp_path / "messages.pot").open("rb"))
    missing = set(_entries(fresh)) - set(_entries(committed))
    stale = set(_entries(committed)) - set(_entries(fresh))
    assert not missing, (
        f"marked but not in messages.pot (python -m companion.i18n extract): {missing}"
    )
    assert not stale, f"in messages.pot but no longer marked: {stale}"


@pytest.mark.parametrize("code", sorted(set(i18n.LANGUAGES) - {i18n.SOURCE}))
def test_each_catalog_holds_every_entry_of_the_template(code):
    template = read_po((i18n.TRANSLATIONS / "messages.pot").open("rb"))
    po = i18n.TRANSLATIONS / code / "LC_MESSAGES" / "messages.po"
    catalog = read_po(po.open("rb"))
    assert set(_entries(template)) <= set(_entries(catalog)), "python -m companion.i18n update"


@pytest.mark.parametrize("code", sorted(set(i18n.LANGUAGES) - {i18n.SOURCE}))
def test_each_compiled_catalog_says_what_its_po_says(code):
    folder = i18n.TRANSLATIONS / code / "LC_MESSAGES"
    source = read_po((folder / "messages.po").open("rb"))
    compiled = read_mo(io.BytesIO((folder / "messages.mo").read_bytes()))
    assert _entries(compiled) == {key: value for key, value in _entries(source).items() if value}, (
        "python -m companion.i18n compile"
    )


def test_the_package_ships_the_catalogs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = project["tool"]["setuptools"]["package-data"]["companion"]
    shipped = {
        path.relative_to(i18n.TRANSLATIONS.parent)
        for pattern in data
        for path in i18n.TRANSLATIONS.parent.glob(pattern)
        if path.is_file()
    }
    for code in set(i18n.LANGUAGES) - {i18n.SOURCE}:
        assert Path("translations", code, "LC_MESSAGES", "messages.mo") in shipped
    names = {dep.split(">")[0].split("=")[0].strip() for dep in project["project"]["dependencies"]}
    assert {"flask-babel", "babel"} <= names


def test_the_pseudo_locale_is_accented_longer_and_marked(tmp_path):
    from babel.support import Translations

    folder = i18n.write_pseudo(tmp_path)
    words = Translations.load(str(folder), [i18n.PSEUDO])
    shown = words.gettext("Keep this screen on")
    assert shown.startswith(i18n.PSEUDO_OPEN) and shown.endswith(i18n.PSEUDO_CLOSE)
    assert len(shown) >= 1.4 * len("Keep this screen on")
    assert "Kéép" in shown
    refusal = words.pgettext("venture.bid.twice", "%(player)s has already bid this round; "
                             "change that bid instead of bidding again")  # fmt: skip
    assert "%(player)s" in refusal and refusal.startswith(i18n.PSEUDO_OPEN)


@pytest.mark.parametrize("code", sorted(set(i18n.LANGUAGES) - {i18n.SOURCE}))
def test_every_translation_fills_in_as_python_does(code):
    """A translation is filled in with ``%``: a placeholder glued to letters
    ("%(rank)ser-Paar" is right, "%(rank)er-Paar" reads as a number format)
    or a lone "%" would fail on a phone, in the middle of a game."""
    with (i18n.TRANSLATIONS / code / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        catalog = read_po(handle)
    failed = []
    for message in catalog:
        if not message.id or "python-format" not in message.flags:
            continue
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        names = {n for text in ids for n in i18n._PLACEHOLDER.findall(str(text))}
        values = dict.fromkeys(names | i18n.ENGLISH_ONLY, "7")
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in strings:
            if not string:
                continue  # untranslated: the completeness check says so
            try:
                str(string) % values
            except (KeyError, ValueError, TypeError) as error:
                failed.append(f"{message.context or ''} {ids[0]!r} -> {string!r}: {error}")
    assert not failed, "\n".join(failed)
