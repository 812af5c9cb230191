"""What Squib and nanDECK users expect: reprint a card or a range, a proof
sheet, cut lines to the page edge, a fold-in-half layout without duplex."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from companion.cli import main
from printables import Options, build, filename
from printables.deck import fold_layout, sheet_layout
from printables.proof import proof_decks
from printables.sheet import SAFE_EDGE_MM, parse_cards
from tests.printables.pdf_geometry import MM, built, geometry, read_geometry
from tests.printables.test_print_furniture import _assert_furniture_clear
from tests.printables.test_print_shop import _form_placements

# --- Reprint one card or a range ----------------------------------------------------


def test_one_card_reprints_on_one_sheet_and_its_back():
    options = Options(cards=(12,))  # the 12th card of the standard deck: Q of spades
    pages = geometry("standard-deck", options)
    assert len(pages) == 2
    assert "Standard deck, card 12 · faces 1 of 1" in pages[0].text
    corner = [run.text for run in pages[0].runs if not run.furniture]
    assert corner.count("Q") == 3 and "K" not in corner and "J" not in corner


def test_a_range_prints_those_cards_in_that_order():
    options = Options(cards=parse_cards("3-5, 56"))
    assert options.cards == (3, 4, 5, 56)
    face = geometry("deck", options)[0]
    assert "Pairs deck, cards 3-5, 56" in face.text
    assert "cut card" in face.text  # card 56
    big = [run.text for run in face.runs if run.size > 30]
    assert big == ["2", "3", "3"]  # cards 3, 4, 5 in deck order: one 2, then 3s
    assert filename("deck", options) == "leafpile-deck-a4-poker-cards-3-5-56.pdf"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3-", "not a choice of cards"),
        ("7-3", "not a range"),
        ("0", "not a range"),
        ("x", "not a choice of cards"),
    ],
)
def test_a_choice_that_is_not_numbers_and_ranges_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_cards(text)


def test_a_card_the_deck_does_not_have_is_refused_before_drawing(tmp_path, capsys, client):
    with pytest.raises(ValueError, match="has 52 cards: there is no card 53"):
        build("standard-deck", Options(cards=(53,)))
    target = tmp_path / "x.pdf"
    assert main(["print", "deck", "--cards", "57", "-o", str(target)]) == 2
    assert "has 56 cards" in capsys.readouterr().err and not target.exists()
    assert main(["print", "aids", "--cards", "1", "-o", str(target)]) == 2
    assert "only a deck's cards" in capsys.readouterr().err
    response = client.get("/print/deck.pdf?only_cards=57")
    assert response.status_code == 422 and "has 56 cards" in response.get_data(as_text=True)
    response = client.get("/print/deck.pdf?only_cards=3-7")
    assert response.status_code == 200
    assert len(PdfReader(io.BytesIO(response.data)).pages) == 2


# --- The proof sheet -----------------------------------------------------------------


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_proof_sheet_shows_every_card_of_each_deck_numbered_and_the_back(paper):
    pages = geometry("proof", Options(paper=paper))
    assert len(pages) == 2
    preferences = PdfReader(io.BytesIO(built("proof", Options(paper=paper)))).trailer["/Root"]
    assert preferences["/ViewerPreferences"]["/Duplex"] == "/Simplex"
    for page, (title, faces) in zip(pages, proof_decks(), strict=True):
        assert f"Proof: {title}, {len(faces)} cards" in page.text
        numbers = [run for run in page.runs if run.text.isdigit() and run.size == 7]
        labels = [run.text for run in numbers if not run.furniture]
        assert labels == [str(n) for n in range(1, len(faces) + 1)]
        assert "back" in [run.text for run in page.runs]
    _assert_furniture_clear(pages, f"proof {paper}")


# --- Cut lines to the page edge ------------------------------------------------------


@pytest.mark.parametrize(("paper", "bleed"), [("a4", False), ("letter", False), ("a4", True)])
def test_cut_lines_run_to_the_printable_edge_and_no_further(paper, bleed):
    options = Options(paper=paper, bleed=bleed, cut_to_edge=True)
    layout = sheet_layout(options)
    safe = SAFE_EDGE_MM * MM
    for x1, y1, x2, y2 in layout.crop_marks:
        ends = (x2, y2)
        assert any(
            abs(value - edge) < 0.01
            for value, edge in zip(ends, (safe, safe), strict=True)
            for edge in (safe, layout.page_w - safe, layout.page_h - safe)
        ), (x1, y1, x2, y2)
    short = sheet_layout(Options(paper=paper, bleed=bleed))
    assert sum(abs(m[3] - m[1]) + abs(m[2] - m[0]) for m in layout.crop_marks) > sum(
        abs(m[3] - m[1]) + abs(m[2] - m[0]) for m in short.crop_marks
    )
    pages = geometry("deck", options)[:2]
    _assert_furniture_clear(pages, f"cut lines {paper}")
    for page in pages:
        for path in page.paths:
            x0, y0, x1, y1 = path.ink_bbox()
            assert x0 >= safe - 0.3 and y0 >= safe - 0.3
            assert x1 <= page.width - safe + 0.3 and y1 <= page.height - safe + 0.3


# --- Fold in half -------------------------------------------------------------------


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_fold_layout_puts_each_back_behind_its_face_across_the_fold(paper):
    options = Options(paper=paper, fold=True)
    layout, backs, fold = fold_layout(options)
    assert fold == pytest.approx(layout.page_h / 2)
    for face, back in zip(layout.slots, backs, strict=True):
        assert back.x == pytest.approx(face.x) and back.w == pytest.approx(face.w)
        assert fold - back.top == pytest.approx(face.y - fold)  # mirror images in the fold
        assert back.y - fold + back.h == pytest.approx(-(face.top - fold) + face.h)
    pdf = built("deck", options)
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 19  # 56 cards, 3 a sheet, single-sided
    assert reader.trailer["/Root"]["/ViewerPreferences"]["/Duplex"] == "/Simplex"
    # Backs are turned half round: folded away behind, they stand as their faces do.
    placements = _form_placements(pdf, 0)
    assert len(placements) == 3
    for a, b, c, d, _, _ in placements:
        assert (round(a, 6), round(b, 6), round(c, 6), round(d, 6)) == (-1, 0, 0, -1)
    pages = read_geometry(pdf, first=2)
    _assert_furniture_clear(pages, f"fold {paper}")
    assert "fold here, printed sides out" in pages[0].text


def test_the_fold_layout_with_full_backs_keeps_clear_of_the_fold_and_edges():
    options = Options(fold=True, ink_saving=False, cut_to_edge=True)
    layout, backs, fold = fold_layout(options)
    pages = geometry("deck", options)[:1]
    _assert_furniture_clear(pages, "fold, full backs")
    grounds = [path for path in pages[0].paths if not path.furniture and path.op in ("f", "f*")]
    lowest_gap = min(fold - path.bbox()[3] for path in grounds if path.bbox()[3] < fold)
    assert lowest_gap > 3 * MM


def test_the_command_line_prints_a_fold_sheet_and_says_single_sided(tmp_path, capsys):
    target = tmp_path / "fold.pdf"
    assert main(["print", "standard-deck", "--fold", "--cut-lines", "-o", str(target)]) == 0
    assert "single-sided" in capsys.readouterr().out
    assert len(PdfReader(io.BytesIO(target.read_bytes())).pages) == 18  # 52 cards / 3
    assert main(["print", "deck", "--fold", "--bleed", "-o", str(target)]) == 2
    assert "fold-in-half layout has no bleed" in capsys.readouterr().err
