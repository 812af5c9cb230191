"""One word for each game term: the glossary in docs/languages.md is what the
screens' catalog (companion/translations) and the print kit's own catalog
(printables/translations) say.

For each checked term and language, every entry of either catalog whose
English names the term must carry the glossary's word in its translation
(compared without accents, soft hyphens or case, so a plural or a compound
still counts: "Königinnen", "Eichelmarker"). A kit saying "Dame" where the
screens say "Königin" fails here, naming both entries.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from companion.i18n import LANGUAGES, SOURCE

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "languages.md"

#: The game terms checked, each as the glossary's English cell names it, and
#: how an English entry names it: the pieces and things of the games, which
#: mean one thing wherever they appear. ("queen" in lower case only: a card's
#: rank, "Queen", is a card name and not Autumn Ash's piece.)
TERMS = {
    "pawn": r"(?i)\bpawns?\b",
    "drone": r"(?i)\bdrones?\b",
    "queen": r"\bqueens?\b",
    "pip": r"(?i)\bpips?\b",
    "stash": r"(?i)\bstash\b",
    "acorn": r"(?i)\bacorns?\b",
    "acorn tokens": r'(?i)(\bacorn|-3"?) tokens?\b',
    "den": r"(?i)\bden\b",
    "mushroom": r"(?i)\bmushrooms?\b",
    "baby mushroom": r"(?i)\bbaby mushrooms?\b",
    "Forest": r"(?i)\bforest\b",
    "Frost": r"(?i)\bfrost\b",
    "squirrel": r"(?i)\bsquirrels?\b",
    "sun": r"(?i)\bsun\b",
    "fork": r"(?i)\bfork\b",
    "animal mat": r"(?i)\banimal mat\b",
    "animal deck": r"(?i)\banimal deck\b",
    "the North Wind": r"(?i)\bNorth Wind\b",
    "fox": r"(?i)\bfox(es)?\b",
    "turtle": r"(?i)\bturtles?\b",
    "frog": r"(?i)\bfrogs?\b",
    "owl": r"(?i)\bowls?\b",
    "hedgehog": r"(?i)\bhedgehogs?\b",
    "blackbird": r"(?i)\bblackbirds?\b",
    "raven": r"(?i)\bravens?\b",
    "Cold Snap": r"(?i)\bcold snap\b",
    "pool": r"(?i)\bpool\b",
    "slug": r"(?i)\bslug\b",
    "captured pile": r"(?i)\bcaptured piles?\b",
    "tie-break card": r"(?i)\btie-break card\b",
}
NAMED = {term: re.compile(pattern) for term, pattern in TERMS.items()}
#: Entries that keep an English word on purpose, and why: Autumn Ash's
#: notation is typed in English ("red drone") on every phone.
KEEPS_ENGLISH = ("is not a piece: write a colour and a size",)
#: Words too small to carry a term ("la", "de", "der"): a many-word glossary
#: entry is checked by its other words.
SMALL_WORDS = {
    "der", "die", "das", "den", "des", "dem", "le", "la", "les", "de", "du", "d'", "l'",
    "el", "los", "las", "del", "il", "lo", "gli", "della", "delle", "dei", "di", "het",
    "o", "a", "os", "as", "do", "da", "dos",
}  # fmt: skip
#: A glossary word whose forms change inside the word (Polish "las", "w lesie").
FORMS = {
    "las": r"l[ae]s",
    "żołądź": r"zo[lł][aeą]?d",
    "peão": r"pe(a|o)",
    "raaf": r"ra(af|ven)",
    "sol": r"so(l|is)",
}


def plain(text: str) -> str:
    """Lower case, no accents, no soft hyphens, one kind of apostrophe, no
    placeholders (a value's name is not a word of the sentence)."""
    text = re.sub(r"%\(\w+\)s", " ", text).replace("\xad", "").replace("’", "'").lower()
    decomposed = unicodedata.normalize("NFKD", text.replace("ł", "l"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@functools.cache
def word_pattern(glossary_word: str) -> re.Pattern[str]:
    """What a translation must hold for one glossary word: each of its words
    (the small ones aside) by its stem, the last two letters free for endings."""
    parts = []
    for word in glossary_word.split():
        if word.lower() in FORMS:
            parts.append(FORMS[word.lower()])
            continue
        bare = plain(word)
        for small in ("l'", "d'"):
            bare = bare.removeprefix(small)
        if bare in SMALL_WORDS:
            continue
        parts.append(re.escape(bare[: max(3, len(bare) - 2)]))
    return re.compile("".join(f"(?=.*{part})" for part in parts), re.S)


def glossary() -> dict[str, dict[str, str]]:
    """Each English term of the glossary's tables: its word in each language."""
    text = GLOSSARY.read_text(encoding="utf-8").split("## Glossary", 1)[1]
    names = {name.split()[0]: code for code, name in LANGUAGES.items() if code != SOURCE}
    terms: dict[str, dict[str, str]] = {}
    header: list[str] = []
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] == "English":
            header = [names.get(cell.split()[0], "") for cell in cells]
            continue
        if set(cells[0]) <= {"-"}:
            continue
        english = [t.strip() for t in re.sub(r"\(.*?\)", "", cells[0]).split(",")]
        for code, cell in zip(header[1:], cells[1:], strict=True):
            words = [t.strip() for t in cell.split(",")]
            if len(words) != len(english):
                continue  # "entered / not entered": not one word each
            for term, word in zip(english, words, strict=True):
                terms.setdefault(term, {})[code] = word
    return terms


@functools.cache
def entries(path: Path) -> tuple[tuple[str, str, str], ...]:
    """(English, translation, where) of each translated entry of a catalog."""
    with path.open("rb") as po:
        catalog = read_po(po)
    found = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        where = message.locations[0][0] if message.locations else "?"
        found += [(ids[0], string, where) for string in strings]
    return tuple(found)


CATALOGS = {
    "screens": "companion/translations/{code}/LC_MESSAGES/messages.po",
    "kit": "printables/translations/{code}/LC_MESSAGES/printables.po",
}
LANGUAGE_CODES = [code for code in LANGUAGES if code != SOURCE]


def disagreements(code: str, words: dict[str, dict[str, str]]) -> list[str]:
    found = []
    for kind, path in CATALOGS.items():
        for english, translated, where in entries(ROOT / path.format(code=code)):
            if any(keep in english for keep in KEEPS_ENGLISH):
                continue
            bare_english = re.sub(r"%\(\w+\)s", " ", english)
            said = plain(translated)
            for term, names_it in NAMED.items():
                word = words[term][code]
                if names_it.search(bare_english) and not word_pattern(word).search(said):
                    found.append(f"{kind} ({where}) {term!r} is {word!r}: {english!r} -> {said!r}")
    return found


def test_the_glossary_names_every_checked_term_in_every_language():
    words = glossary()
    missing = {term: set(LANGUAGE_CODES) - set(words.get(term, {})) for term in TERMS}
    assert {term: codes for term, codes in missing.items() if codes} == {}
    assert words["queen"]["de"] == "Königin" and words["den"]["fr"] == "tanière"


@pytest.mark.parametrize("code", LANGUAGE_CODES)
def test_the_screens_and_the_kit_say_the_glossarys_word(code):
    assert disagreements(code, glossary()) == []


def test_the_check_catches_a_kit_word_the_glossary_does_not_use(tmp_path, monkeypatch):
    """The kit's old German queen ("Dame") and French den ("terrier") fail."""
    kit = (ROOT / CATALOGS["kit"].format(code="de")).read_text(encoding="utf-8")
    (tmp_path / "kit.po").write_text(kit.replace("Königin", "Dame"), encoding="utf-8")
    monkeypatch.setitem(CATALOGS, "kit", str(tmp_path / "kit.po"))  # an absolute path
    found = disagreements("de", glossary())
    assert found and all("'queen' is 'Königin'" in line for line in found)
    assert any("dame = groß (3)" in line for line in found)
    assert word_pattern("tanière d'hiver").search(plain("Animaux de la tanière d’hiver"))
    assert not word_pattern("tanière").search(plain("Animaux du terrier d’hiver"))
