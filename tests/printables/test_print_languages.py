"""The print kit in every language (issue 45): each word on the paper stays
in its box, type stays at the print standards' sizes, the embedded fonts
have every character a language uses, and the kit's catalogs are complete.

What is built here is kept small (CI time): the parts with words, once per
language on A4, and the deck sheets only through their widest label and a
few cards; everything else is measured with the font's own metrics against
the boxes the layout code reserves. Letter, the bleed layout and the other
pages are the same drawing code with the same words (their layout never
depends on the language: the note's span is the longest language's)."""

from __future__ import annotations

import functools
import math
import re

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from reportlab.pdfbase import pdfmetrics

import companion.i18n
from printables import Options, build, filename
from printables.aids import aid_boxes, all_aids, fitted_size
from printables.catalogs import catalog_paths, problems
from printables.deck import LABEL_SIZE, LABEL_SPAN_MM
from printables.i18n import LANGUAGES, TRANSLATIONS, language_of, words
from printables.sheet import SANS, SANS_BOLD, text_width

from .pdf_geometry import MM, Page, TextRun, read_geometry

WORDY = ("duplex-test", "aids", "scorepads", "board")
"""Parts read back from the PDF in every language (the decks' only words are
their labels and two lines on the cards, measured below)."""
HEAVY = ("proof", "pyramids")
"""Parts read back only in the languages with the longest words (thousands
of small shapes: seconds each); every language's words for them are measured
with the font's metrics against the room the layout gives them."""
LONGEST = ("de", "pl")
DECK_SAMPLE = (1, 2, 56)
"""Cards with each kind of words: a one-copy card, a many-copy card, the cut card."""
MIN_SIZE = 7.0
SAFE = 5 * MM


@functools.cache
def part_pages(language: str, part: str) -> list[Page]:
    """One part read back, once per test process."""
    if part == "deck":
        return read_geometry(build("deck", Options(language=language, cards=DECK_SAMPLE)))
    return read_geometry(build(part, Options(language=language)))


def pages(language: str) -> dict[str, list[Page]]:
    chosen = (*WORDY, "deck", *(HEAVY if language in LONGEST else ()))
    return {part: part_pages(language, part) for part in chosen}


# --- measuring -------------------------------------------------------------------------------

STROKES = {"S", "s", "B", "B*", "b", "b*"}
ASCENT, DESCENT = 0.905, -0.212
"""Liberation Sans's ascent and descent, in sizes (the tests' glyph box)."""


def _path_segments(path):
    for sub in path.subpaths:
        closed = [*sub, sub[0]] if len(sub) > 2 else sub
        yield from zip(closed, closed[1:], strict=False)


def _local(run: TextRun, point: tuple[float, float]) -> tuple[float, float]:
    """``point`` in the run's own frame: along its baseline, and up from it."""
    angle = math.radians(run.angle)
    dx, dy = point[0] - run.origin[0], point[1] - run.origin[1]
    return (
        dx * math.cos(angle) + dy * math.sin(angle),
        -dx * math.sin(angle) + dy * math.cos(angle),
    )


def _box(run: TextRun, slack: float = 0.3) -> tuple[float, float, float, float]:
    """The run's glyph box in its own frame, a hair smaller (0.3 pt) so that
    touching is not crossing."""
    return (slack, DESCENT * run.size + slack, run.width - slack, ASCENT * run.size - slack)


def _crosses(run: TextRun, a, b) -> bool:
    """Does the segment a-b pass through the run's glyph box?"""
    (x0, y0), (x1, y1) = _local(run, a), _local(run, b)
    left, low, right, high = _box(run)
    t0, t1 = 0.0, 1.0
    for p, q in (
        (-(x1 - x0), x0 - left),
        (x1 - x0, right - x0),
        (-(y1 - y0), y0 - low),
        (y1 - y0, high - y0),
    ):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def _overlap(one: TextRun, other: TextRun) -> bool:
    """Do two runs' glyph boxes overlap (each tested in the other's frame
    through its four edges and centre)?"""
    left, low, right, high = _box(other)
    corners = [(left, low), (right, low), (right, high), (left, high)]
    angle = math.radians(other.angle)
    points = [
        (
            other.origin[0] + u * math.cos(angle) - v * math.sin(angle),
            other.origin[1] + u * math.sin(angle) + v * math.cos(angle),
        )
        for u, v in corners
    ]
    edges = zip(points, points[1:] + points[:1], strict=True)
    middle = (
        sum(p[0] for p in points) / 4,
        sum(p[1] for p in points) / 4,
    )
    return any(_crosses(one, a, b) for a, b in edges) or _crosses(one, middle, middle)


NUMBER = re.compile(r"^[-+]?\d+( mm)?$")
"""A scale's or ruler's number: joined to its tick by design, in every language."""
FILLS = {"f", "F", "f*", "B", "B*", "b", "b*"}


def _ground(fills: list[tuple[int, tuple[float, ...]]], run: TextRun) -> int:
    """The paint order of the last filled shape under the whole of ``run``
    (a label's patch, a band): lines painted before it are hidden under it.
    ``fills``: the page's filled shapes, (order, bbox)."""
    x0, y0, x1, y1 = run.bbox
    under = [
        order
        for order, (bx0, by0, bx1, by1) in fills
        if order < run.order
        and bx0 <= x0 + 0.3
        and by0 <= y0 + 0.3
        and x1 - 0.3 <= bx1
        and y1 - 0.3 <= by1
    ]
    return max(under, default=-1)


def _meet(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def misplaced(page: Page) -> list[str]:
    """Every word on ``page`` that leaves its box: a run that a visible drawn
    line (a frame, a cell's rule, a fold, a cut line) passes through, a run
    that overlaps another, or one in the 5 mm a printer cannot reach."""
    runs = [run for run in page.runs if run.text.strip()]
    found = []
    # Clipped strokes are a shape's own hatching, cut to that shape's outline.
    segments = [
        (path.order, (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])), a, b)
        for path in page.paths
        if path.op in STROKES and path.visible and path.clip is None
        for a, b in _path_segments(path)
    ]
    fills = [(path.order, path.bbox()) for path in page.paths if path.op in FILLS and path.visible]
    top, right = page.height - SAFE + 0.5, page.width - SAFE + 0.5
    for index, run in enumerate(runs):
        x0, y0, x1, y1 = run.bbox
        if x0 < SAFE - 0.5 or y0 < SAFE - 0.5 or x1 > right or y1 > top:
            found.append(f"{run.text!r} runs into the edge the printer cannot reach")
        if not run.furniture and not NUMBER.match(run.text):
            near = [seg for seg in segments if _meet(seg[1], run.bbox)]
            if near:
                ground = _ground(fills, run)
                if any(_crosses(run, a, b) for order, _, a, b in near if order > ground):
                    found.append(f"{run.text!r} crosses a line of its box")
        for other in runs[index + 1 :]:
            if _meet(run.bbox, other.bbox) and (_overlap(run, other) or _overlap(other, run)):
                found.append(f"{run.text!r} overlaps {other.text!r}")
    return found


# --- the measures can fail ---------------------------------------------------------------------


def _run(text: str, x: float, y: float, size: float = 10.0, angle: float = 0.0) -> TextRun:
    width = pdfmetrics.stringWidth(text, SANS, size)
    return TextRun((x, y), text, SANS, size, width, (x, y, x + width, y + size), False, angle=angle)


def test_the_measure_sees_a_word_through_a_line_and_two_words_on_each_other():
    from .pdf_geometry import Path

    page = Page(595.0, 842.0)
    wide = _run("Gesamtfarbauftrag", 100, 100)
    page.runs = [wide, _run("Eichel", 100 + wide.width - 5, 102), _run("ok", 300, 300)]
    page.paths = [Path([[(140, 90), (140, 120)]], "S", [], None, 0.5)]
    found = misplaced(page)
    assert any("crosses a line" in line and "Gesamtfarbauftrag" in line for line in found)
    assert any("overlaps 'Eichel'" in line for line in found)
    assert not any("'ok'" in line for line in found)
    # A turned word is measured along its own baseline, not by its bounding box.
    turned = _run("turned", 200, 200, angle=90)
    assert not _crosses(turned, (195, 195), (170, 195))
    assert _crosses(turned, (190, 210), (210, 210))


# --- every language's kit --------------------------------------------------------------------


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_word_of_the_kit_stays_in_its_box_and_is_7_pt_or_more(language):
    bad = []
    for part, part_pages in pages(language).items():
        for number, page in enumerate(part_pages, start=1):
            bad += [f"{part} p{number}: {line}" for line in misplaced(page)]
            bad += [
                f"{part} p{number}: {run.text!r} at {run.size:.2f} pt"
                for run in page.runs
                if run.text.strip()
                and run.size < MIN_SIZE - 0.005
                # The proof sheet's miniatures are cards at 30 %; the sample
                # deck's label names its chosen cards (measured below, whole).
                and part != "proof"
                and not (part == "deck" and run.furniture)
            ]
    assert bad == [], "\n".join(bad)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_aid_fits_half_a_page_in_readable_type_on_both_papers(language):
    for aid in all_aids(language):
        for paper in ("a4", "letter"):
            for box in aid_boxes(Options(paper=paper)):
                assert fitted_size(aid, box) >= 7.5, (language, aid.game, paper)


def test_deck_labels_and_the_print_note_fit_their_margins_in_every_language():
    """The card sheets' label and note have fixed stretches of margin (the
    layout is the same in every language); the longest words must fit them
    at 7 pt, not shrink below it."""
    for code in LANGUAGES:
        tr = words(code)
        for deck in ("Pairs deck", "Standard deck"):
            label = tr(
                "%(deck)s · faces %(sheet)s of %(sheets)s · back on next page",
                deck=tr(deck),
                sheet=7,
                sheets=7,
            )
            assert text_width(label, False, LABEL_SIZE) <= LABEL_SPAN_MM * MM, (code, label)
            fold = tr(
                "%(deck)s · fold sheet %(sheet)s of %(sheets)s", deck=tr(deck), sheet=19, sheets=19
            )
            assert text_width(fold, False, LABEL_SIZE) <= LABEL_SPAN_MM * MM, (code, fold)


@pytest.mark.parametrize("language", ["de", "pl", "pt_BR"])
def test_the_kit_is_printed_in_the_chosen_language_and_named_so(language):
    tr = words(language)
    text = "\n".join(page.text for page in part_pages(language, "aids"))
    assert tr("Each round") != "Each round"
    assert tr("Each round").upper() in text and "EACH ROUND" not in text
    pads = "\n".join(page.text for page in part_pages(language, "scorepads"))
    assert tr("Final pool") in pads and "Final pool" not in pads
    assert filename("aids", Options(language=language)).endswith(
        f"-{language.replace('_', '-')}.pdf"
    )
    assert filename("aids", Options()) == "leafpile-aids-a4.pdf"


def test_an_unknown_language_is_refused_by_name_and_a_phone_s_variant_finds_its_own():
    with pytest.raises(ValueError, match="'sv'"):
        Options(language="sv")
    assert language_of("de-CH") == "de" and language_of("pt") == "pt_BR"
    assert language_of("en_US_POSIX") == "en"  # the pseudo-locale prints English


def name_fits(name: str, size_name: str) -> bool:
    """Does ``name`` (a colour's name in some language) fit on a face of the
    ``size_name`` pyramid, at the top of its patch, where the kit places it?"""
    from reportlab.pdfbase.pdfmetrics import getAscentDescent

    from printables.pyramids import _patch_width, name_place, name_room, net_dimensions

    dims = net_dimensions(size_name)
    label_y, _, size = name_place(name, dims)
    ascent, _ = getAscentDescent(SANS_BOLD, size)
    return name_room(dims, label_y + ascent + 0.4) >= _patch_width(name, size)


def test_every_colour_name_fits_the_faces_of_every_pyramid_size_in_every_language():
    from printables.i18n import COLOUR_NAMES, colour_name

    bad = [
        (code, colour_name(words(code), colour), size)
        for code in LANGUAGES
        for colour in COLOUR_NAMES
        for size in ("small", "medium", "large")
        if not name_fits(colour_name(words(code), colour), size)
    ]
    assert bad == []
    assert not name_fits("przezroczysty", "small")  # the measure can fail


def test_one_line_headings_of_the_proof_and_pyramid_sheets_fit_in_every_language():
    from printables.sheet import PAPERS

    room = min(width for width, _ in PAPERS.values()) * MM - 2 * (SAFE + 3 * MM)
    for code in LANGUAGES:
        tr = words(code)
        proof = tr(
            "Check every card before the cardstock goes in. To reprint one, give its number: "
            "--cards 12 (or 3-7), or the Print page's Only cards box."
        )
        assert text_width(proof, False, 8) <= room, (code, proof)
        title = tr("Autumn Ash pyramids")
        how = tr(
            "Cut on the solid lines, fold on the dashed ones (pips outside), "
            "glue the tab inside the first face. Open at the bottom."
        )
        assert text_width(title, True, 10) + 3 * MM + text_width(how, False, 7) <= room, code


# --- fonts -------------------------------------------------------------------------------------


def _catalog_characters() -> set[str]:
    found: set[str] = set()
    for _code, po in catalog_paths():
        with po.open("rb") as handle:
            for message in read_po(handle):
                strings = message.string if isinstance(message.string, tuple) else (message.string,)
                for string in strings:
                    found |= set(re.sub(r"<[^>]*>|&[a-z]+;", "", str(string or "")))
    return found


def test_the_embedded_fonts_have_a_glyph_for_every_character_the_kit_prints():
    wanted = _catalog_characters() | set("łżśćźńąęóŁŻŚĆãõçÇéèêàâîôûëïüöäßÄÖÜñ¡¿")
    for name in (SANS, SANS_BOLD):
        glyphs = pdfmetrics.getFont(name).face.charToGlyph
        missing = sorted(ch for ch in wanted if not ch.isspace() and ord(ch) not in glyphs)
        assert missing == [], (name, missing)
    # And what reached the paper decodes to those characters, not to boxes.
    printed = "".join(page.text for page in part_pages("pl", "aids") + part_pages("pt_BR", "aids"))
    assert {"ł", "ż", "ą", "ę", "ç", "ã"} <= set(printed)


# --- the catalogs ------------------------------------------------------------------------------


def test_the_kit_speaks_the_same_languages_as_the_app():
    assert list(LANGUAGES) == list(companion.i18n.LANGUAGES)


@pytest.mark.parametrize("code,po", list(catalog_paths()))
def test_each_catalog_is_complete_not_fuzzy_and_keeps_its_placeholders(code, po):
    assert problems(po) == []


def test_the_placeholder_check_can_fail(tmp_path):
    po = tmp_path / "printables.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Hand %(number)s"\nmsgstr "Durchgang"\n\n'
        '#, fuzzy\nmsgid "Total"\nmsgstr "Summe"\n\nmsgid "Move"\nmsgstr ""\n',
        encoding="utf-8",
    )
    found = "\n".join(problems(po))
    assert "placeholders" in found and "fuzzy" in found and "not translated" in found


@pytest.mark.parametrize("code,po", list(catalog_paths()))
def test_each_mo_says_exactly_what_its_po_says(code, po):
    def entries(catalog):
        def key(value):
            return tuple(value) if isinstance(value, list | tuple) else value

        return {key(m.id): key(m.string) for m in catalog if m.id}

    with po.open("rb") as handle:
        source = entries(read_po(handle))
    with po.with_suffix(".mo").open("rb") as handle:
        compiled = entries(read_mo(handle))
    assert compiled == source


def test_the_template_is_what_extraction_finds_today(tmp_path):
    from printables.catalogs import extract

    fresh = extract(tmp_path / "printables.pot")
    with fresh.open("rb") as handle:
        found = {m.id for m in read_po(handle) if m.id}
    with (TRANSLATIONS / "printables.pot").open("rb") as handle:
        committed = {m.id for m in read_po(handle) if m.id}
    assert found == committed
    # The kit's words stay out of the app's shared catalog (its own keywords).
    with (companion.i18n.TRANSLATIONS / "messages.pot").open("rb") as handle:
        shared = {m.id for m in read_po(handle) if m.id}
    assert not {"Player aids", "cut card", "Language of the printed kit"} & shared


# --- the Print page ----------------------------------------------------------------------------


def test_the_print_page_speaks_the_phone_s_language_and_offers_it_for_the_kit(client):
    html = client.get("/print/", headers={"Accept-Language": "pl-PL,pl;q=0.9"}).get_data(
        as_text=True
    )
    assert "Wydrukuj i graj" in html and "Print and play" not in html
    # The kit's language: every one offered by name, the phone's own chosen.
    for code, name in LANGUAGES.items():
        assert f'value="{code}"' in html and name in html
    assert re.search(r'value="pl" checked', html)
    assert not re.search(r'value="en" checked', html)
    # The warning about the address on the paper is in the phone's language too.
    assert 'id="qr-address-warning"' in html
    assert "is the computer a page is opened on" not in html
    assert "that address is a number" not in html
    # Values put into a translated sentence are escaped.
    hostile = client.get("/print/?url=http://x.example/<b>").get_data(as_text=True)
    assert "<b>" not in hostile.split('id="qr-address"')[1].split("</p>")[0]


def test_a_kit_downloaded_in_another_language_is_printed_and_named_in_it(client):
    english_phone = {"Accept-Language": "en"}
    response = client.get("/print/aids.pdf?language=de", headers=english_phone)
    assert response.status_code == 200
    assert 'filename="leafpile-aids-a4-de.pdf"' in response.headers["Content-Disposition"]
    text = read_geometry(response.data)[0].text
    assert "JEDE RUNDE" in text and "EACH ROUND" not in text
    # An unknown language is not an error: the phone's own is used.
    fallback = client.get("/print/aids.pdf?language=xx", headers={"Accept-Language": "fr"})
    assert 'filename="leafpile-aids-a4-fr.pdf"' in fallback.headers["Content-Disposition"]


def test_the_command_line_prints_in_the_language_asked_for(tmp_path):
    from companion.cli import main

    target = tmp_path / "board.pdf"
    assert main(["print", "board", "--language", "pt_BR", "-o", str(target)]) == 0
    assert "Tabuleiro de Autumn Ash" in read_geometry(target.read_bytes())[0].text
    with pytest.raises(SystemExit):
        main(["print", "board", "--language", "xx", "-o", str(target)])


def test_a_refused_option_is_explained_in_the_phone_s_language_and_english_stays_for_the_cli(
    client,
):
    german = {"Accept-Language": "de"}
    response = client.get("/print/deck.pdf?fold=1&bleed=1", headers=german)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Das Layout zum Falten hat keinen Beschnitt" in html
    cards = client.get("/print/deck.pdf?only_cards=60", headers=german).get_data(as_text=True)
    assert "Pairs-Kartenspiel hat 56 Karten: Es gibt keine Karte 60" in cards
    offset = client.get("/print/deck.pdf?offset_x=abc", headers=german).get_data(as_text=True)
    assert "muss eine Zahl in mm sein, nicht &#39;abc&#39;" in offset
    with pytest.raises(ValueError, match="the fold-in-half layout has no bleed"):
        Options(fold=True, bleed=True)


def test_card_images_carry_the_card_words_in_the_chosen_language():
    from printables.deck import cut_card_face
    from printables.images import _pdf_of, images_filename

    pdf = _pdf_of([(cut_card_face, False)], Options(language="de"))
    assert "Schnittkarte" in read_geometry(pdf)[0].text
    assert images_filename("deck", Options(language="pt_BR"), 300).endswith("-pt-BR-png.zip")
