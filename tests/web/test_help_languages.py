"""Help in the phone's language: German, French and Spanish phones read their
own pages, any other language the English page with a note in its own words,
and a translation never drifts from its English source unnoticed."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import markdown
import pytest

from companion.web import help as help_pages
from companion.web import help_rulings
from tests.web.test_help import BUDGET, DEVELOPER_MARKS

DOCS = Path(__file__).resolve().parents[2] / "docs"
#: Every docs page a phone is served (each game's, the table guide, the Rulings).
PAGES = sorted({*help_pages.HELP_PAGES.values(), help_pages.TABLE_GUIDE, help_pages.RULINGS})
TRANSLATIONS = [(lang, page) for lang in help_pages.TRANSLATED for page in PAGES]
#: Languages the app speaks whose help is not translated yet.
UNTRANSLATED = {"it": "Italian", "nl": "Dutch", "pl": "Polish", "pt-BR": "Portuguese"}

LINK = re.compile(r"\]\(([^)\s]+)\)")
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
MARKER = re.compile(r"^\{\{ rulings .+\}\}$", re.M)


# --- A translation has its English page's shape ----------------------------------------------


def _root(path: Path) -> Path:
    """The docs folder a page belongs to: a translation's is its parent's."""
    folder = path.parent.resolve()
    return folder.parent if folder.name in help_pages.TRANSLATED else folder


def _link(path: Path, target: str) -> str:
    """Where a link goes: another help page in the page's own language, or
    a page of the (English) docs site, with its anchor."""
    page, _, anchor = target.partition("#")
    full = (path.parent / page).resolve()
    if full.parent == path.parent.resolve() and full.name in PAGES:
        return f"help page {full.name}#{anchor}"
    return f"docs page {full.relative_to(_root(path)).as_posix()}#{anchor}"


def shape(path: Path) -> dict[str, object]:
    """What a translation must share with its English page: the headings (level
    and anchor), the rulings it writes out, where its links go, its pictures."""
    text = path.read_text(encoding="utf-8").split(help_pages.STOP)[0]
    md = markdown.Markdown(extensions=["toc", "attr_list"])
    md.convert(text)
    headings: list[tuple[int, str]] = []

    def walk(tokens: list[dict]) -> None:
        for token in tokens:
            headings.append((token["level"], token["id"]))
            walk(token["children"])

    walk(md.toc_tokens)
    pictures = PICTURE.findall(text)
    links = LINK.findall(PICTURE.sub("", text))
    return {
        "headings": headings,
        "rulings markers": MARKER.findall(text),
        "rulings written out": list(help_rulings.read_rulings(text)),
        "links": sorted(_link(path, t) for t in links if not re.match(r"^[a-z]+:", t)),
        "pictures": [
            (path.parent / p).resolve().relative_to(_root(path)).as_posix() for p in pictures
        ],
        "table numbers": re.findall(r"(?<=\| )[\d-]+(?= \|)", text),
    }


def differences(english: Path, translated: Path) -> dict[str, tuple[object, object]]:
    ours, theirs = shape(english), shape(translated)
    return {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}


@pytest.mark.parametrize(("lang", "page"), TRANSLATIONS)
def test_each_translated_help_page_has_its_english_pages_sections(lang, page):
    translated = DOCS / lang / page
    assert translated.is_file(), f"docs/{lang}/{page} is missing: that phone reads English"
    assert differences(DOCS / page, translated) == {}, (
        f"docs/{lang}/{page} no longer matches docs/{page}: update the translation "
        "(docs/languages.md, 'Help pages in other languages')"
    )
    headings = re.findall(r"^#+ .*$", translated.read_text(encoding="utf-8"), re.M)
    assert all(help_pages.ANCHOR.search(h) for h in headings), "a heading without {#anchor}"


def test_the_check_catches_an_english_section_the_translation_lacks(tmp_path):
    """The staleness check can fail: English grows a section, a ruling and a link."""
    english = (DOCS / "pairs.md").read_text(encoding="utf-8")
    grown = english.replace("## Rulings", "## Scoring sheet\n\nSee [Leaf](leaf.md).\n\n## Rulings")
    (tmp_path / "pairs.md").write_text(grown, encoding="utf-8")
    found = differences(tmp_path / "pairs.md", DOCS / "de" / "pairs.md")
    assert {"headings", "links"} <= set(found)
    rulings = (DOCS / "rulings.md").read_text(encoding="utf-8")
    added = rulings.replace("## Elsewhere", "- **SP4 New.** A new one.\n\n## Elsewhere")
    (tmp_path / "rulings.md").write_text(added, encoding="utf-8")
    assert "rulings written out" in differences(tmp_path / "rulings.md", DOCS / "de" / "rulings.md")


# --- Each phone its language ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "title", "summary"),
    [
        ("de-DE,de;q=0.9", "Pairs und Fortlaufendes Pairs", "Die Entscheidungen, auf die sich"),
        ("fr-FR", "Pairs et Pairs continu", "Les décisions dont dépend cette page"),
        ("es", "Pairs y Pairs continuo", "Las decisiones en las que se basa"),
    ],
)
def test_a_german_french_or_spanish_phone_reads_its_own_help(client, accept, title, summary):
    body = client.get("/help/pairs", headers={"Accept-Language": accept}).get_data(as_text=True)
    lang = accept[:2]
    assert f'<html lang="{lang}">' in body
    assert f">{title}</h1>" in body
    assert summary in body  # the rulings' fold, written out from the translated Rulings
    name, _ = help_rulings.read_rulings((DOCS / lang / "rulings.md").read_text("utf-8"))["P1"]
    assert f"<strong>P1 {name}</strong>" in body and "Losing score" not in body
    assert 'role="note"' not in body  # no "not translated" note
    assert "At the table" not in body and "How any table works" not in body


@pytest.mark.parametrize("accept", UNTRANSLATED)
def test_another_language_reads_english_with_a_note_in_its_own_words(client, accept):
    response = client.get("/help/venture", headers={"Accept-Language": accept})
    body = response.get_data(as_text=True)
    note = re.search(r'<p class="panel help-untranslated" role="note">([^<]+)</p>', body)
    assert note, "no note that the page is English"
    assert "not translated" not in note.group(1)  # the note is in the phone's language
    assert '<article class="panel help-page" lang="en">' in body  # the words below are English
    assert ">At the table</h2>" in body and "The rulings this page relies on" in body
    assert f'<html lang="{accept}">' in body  # the buttons around it are the phone's


def test_an_italian_phone_reads_english_with_the_italian_note(client):
    body = client.get("/help/", headers={"Accept-Language": "it-IT"}).get_data(as_text=True)
    assert "Questa pagina non è ancora tradotta in italiano" in body
    assert ">Using it at the table</h1>" in body
    assert "Come funziona" not in body  # the guide itself has no game button
    assert ">Pagina iniziale</a>" in body  # the buttons are Italian


def test_an_english_phone_reads_english_without_a_note(client):
    body = client.get("/help/venture").get_data(as_text=True)
    assert 'role="note"' not in body and '<article class="panel help-page">' in body


def test_the_phones_own_choice_wins_over_its_browser(client):
    client.set_cookie("leafpile_lang", "fr")
    body = client.get("/help/leaf", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert ">Décompte de Leaf</h1>" in body


def test_switching_language_on_a_help_page_reopens_it_in_the_new_language(client):
    german = client.get("/help/venture", headers={"Accept-Language": "de"}).get_data(as_text=True)
    switch = re.search(r'href="(/language/es\?next=[^"]+)"', german)
    assert switch, "no switch to Spanish on the page"
    response = client.get(switch.group(1).replace("&amp;", "&"), follow_redirects=True)
    body = response.get_data(as_text=True)
    assert response.request.path == "/help/venture"
    assert ">En la mesa</h2>" in body and '<html lang="es">' in body


# --- Links between help pages stay in the phone's language ------------------------------------


@pytest.mark.parametrize("lang", help_pages.TRANSLATED)
def test_links_between_help_pages_keep_the_phones_language(client, lang):
    """From the table guide, every link to a help page opens that page in the
    same language; every help page served in it fits a phone's budget."""
    headers = {"Accept-Language": lang}
    served = {"/help/", "/help/rulings"}
    served |= {f"/help/rulings/{part}" for part in help_pages.rulings_parts()}
    served |= {f"/help/{game}" for game in help_pages.HELP_PAGES}
    followed: set[str] = set()
    for path in sorted(served):
        response = client.get(path, headers=headers)
        assert response.status_code == 200, path
        html = response.get_data()
        assert len(html) <= BUDGET, f"{path} in {lang}: {len(html):,} bytes"
        article = html.decode().split('class="panel help-page"')[1].split("</article>")[0]
        assert f'<html lang="{lang}">' in html.decode() and 'role="note"' not in html.decode()
        assert [mark for mark in DEVELOPER_MARKS if mark in article] == []
        assert ".md" not in article and "{#" not in article, path
        followed |= {href.split("#")[0] for href in re.findall(r'href="(/help/[^"]*)"', article)}
    assert followed <= served and len(followed) >= 10, sorted(followed - served)
    for path in sorted(followed):
        body = client.get(path, headers=headers).get_data(as_text=True)
        assert f'<html lang="{lang}">' in body and 'role="note"' not in body, path


def test_a_rulings_part_has_one_address_in_every_language(client):
    for accept, heading in [
        ("de", "Der Nordwind"),
        ("fr", "Le Vent du Nord"),
        ("en", "The North Wind"),
    ]:
        body = client.get(
            "/help/rulings/the-north-wind", headers={"Accept-Language": accept}
        ).get_data(as_text=True)
        assert heading in body, accept
        assert '<li id="nx5">' in body  # a ruling's anchor is its id, in every language


def test_the_docs_sites_translated_pages_write_out_their_own_languages_rulings():
    """mkdocs' hook: docs/de/pairs.md on the docs site folds the German rulings."""
    german = (DOCS / "de" / "pairs.md").read_text(encoding="utf-8")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="de/pairs.md"))
    built = help_rulings.on_page_markdown(german, page=page, config={"docs_dir": str(DOCS)})
    assert "{{ rulings" not in built
    assert "<summary>Die Entscheidungen, auf die sich diese Seite stützt (16: P1 bis PR7)" in built
    assert "- **P1 Verlustpunktzahl.**" in built
    english = (DOCS / "pairs.md").read_text(encoding="utf-8")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="pairs.md"))
    assert help_rulings.on_page_markdown(english, page=page, config={"docs_dir": str(DOCS)}) == (
        english  # the English pages are the extension's, as before
    )


def test_a_page_its_language_lacks_is_english_with_the_note(client, tmp_path, monkeypatch):
    """A German phone, a help page with no German translation (yet): English,
    with the note in German, and the rulings folded in English too."""
    for page in DOCS.glob("*.md"):
        (tmp_path / page.name).write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "de").mkdir()
    for name in ("table.md", "rulings.md"):  # German pages, but not Venture's
        (tmp_path / "de" / name).write_text((DOCS / "de" / name).read_text("utf-8"), "utf-8")
    monkeypatch.setattr(help_pages, "docs_folder", lambda: tmp_path)
    body = client.get("/help/venture", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Diese Seite gibt es noch nicht auf Deutsch" in body
    assert ">At the table</h2>" in body and "The rulings this page relies on" in body
    assert '<article class="panel help-page" lang="en">' in body
    guide = client.get("/help/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert ">Leafpile am Tisch</h1>" in guide and 'role="note"' not in guide
