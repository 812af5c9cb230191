"""The card sheets: Pairs deck and standard deck, read back from the real PDF."""

from __future__ import annotations

import io
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from companion.rules import cards
from printables import Options, parse_offset
from printables.deck import (
    cut_card_face,
    draw_cards,
    pairs_face,
    sheet_layout,
)
from printables.sheet import (
    BACK_BLEED_MM,
    BLEED_MM,
    CARD_SIZES,
    MAX_BACK_OFFSET_MM,
    SAFE_EDGE_MM,
    new_canvas,
)
from tests.printables.pdf_geometry import MM, built, read_geometry

PAPERS = ["a4", "letter"]
SIZES = ["poker", "ccg"]


def _card_rects(page, size_mm, *, op_filter=None):
    """Distinct rectangles of the given size drawn on a page (x, y, w, h in pt)."""
    w, h = size_mm
    found = set()
    for path in page.paths:
        if op_filter and path.op not in op_filter:
            continue
        for x, y, rw, rh in path.rects:
            if abs(rw - w * MM) < 2 * MM and abs(rh - h * MM) < 2 * MM:
                found.add((round(x, 2), round(y, 2), round(rw, 3), round(rh, 3)))
    return sorted(found)


@pytest.fixture(
    scope="module", params=[(p, s) for p in PAPERS for s in SIZES], ids=lambda ps: "-".join(ps)
)
def pairs_pdf(request):
    paper, size = request.param
    options = Options(ink_saving=False, paper=paper, card=size)
    return options, read_geometry(built("deck", options))


def _back_grounds(page, card_mm):
    """The backs' grounds: card-sized plus BACK_BLEED_MM all round."""
    w, h = (v + 2 * BACK_BLEED_MM for v in card_mm)
    return [
        rect
        for rect in _card_rects(page, (w, h), op_filter={"f", "f*"})
        if abs(rect[2] - w * MM) < 0.05 and abs(rect[3] - h * MM) < 0.05
    ]


def test_the_pairs_deck_is_7_face_sheets_each_followed_by_its_back_sheet(pairs_pdf):
    options, pages = pairs_pdf
    assert len(pages) == 14
    for number, page in enumerate(pages):
        if number % 2 == 0:
            assert f"faces {number // 2 + 1} of 7 · back on next page" in page.text
        else:
            assert page.text == ""  # nothing but the backs on a back page


def test_face_sheets_hold_9_cards_and_the_last_holds_the_2_left_over(pairs_pdf):
    # 55 faces + the cut card = 56 = 6 x 9 + 2.
    options, pages = pairs_pdf
    counts = [len(_card_rects(page, options.card_mm, op_filter={"S"})) for page in pages[::2]]
    assert counts == [9, 9, 9, 9, 9, 9, 2]
    backs = [len(_back_grounds(page, options.card_mm)) for page in pages[1::2]]
    assert backs == counts


def test_every_card_rectangle_is_within_0_2_mm_of_the_chosen_size(pairs_pdf):
    options, pages = pairs_pdf
    w, h = CARD_SIZES[options.card]
    rects = [rect for page in pages for rect in _card_rects(page, (w, h), op_filter={"S"})]
    assert len(rects) >= 56
    for _, _, rw, rh in rects:
        assert abs(rw / MM - w) <= 0.2
        assert abs(rh / MM - h) <= 0.2


def test_the_faces_carry_every_rank_as_often_as_the_deck_has_it(pairs_pdf):
    _, pages = pairs_pdf
    text = "\n".join(page.text for page in pages[::2])
    for rank in cards.RANKS:
        noun = "copy" if rank == 1 else "copies"
        assert text.count(f"{rank} {noun} in the deck") == cards.copies(rank)
    assert text.count("cut card") == 1


def test_the_cards_sit_edge_to_edge_3_by_3_centred_on_the_sheet(pairs_pdf):
    options, pages = pairs_pdf
    page = pages[0]
    rects = _card_rects(page, options.card_mm, op_filter={"S"})
    xs = sorted({x for x, _, _, _ in rects})
    ys = sorted({y for _, y, _, _ in rects})
    w, h = (v * MM for v in options.card_mm)
    assert xs == pytest.approx([xs[0], xs[0] + w, xs[0] + 2 * w], abs=0.01)
    assert ys == pytest.approx([ys[0], ys[0] + h, ys[0] + 2 * h], abs=0.01)
    assert xs[0] == pytest.approx((page.width - 3 * w) / 2, abs=0.01)
    assert ys[0] == pytest.approx((page.height - 3 * h) / 2, abs=0.01)


def _segments(page):
    return [
        (sub[0], sub[1])
        for path in page.paths
        if path.op == "S"
        for sub in path.subpaths
        if len(sub) == 2
    ]


@pytest.mark.parametrize("bleed", [False, True])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("paper", PAPERS)
def test_crop_marks_are_drawn_on_the_cut_lines_outside_the_cards_and_5_mm_from_the_edge(
    paper, size, bleed
):
    options = Options(ink_saving=False, paper=paper, card=size, bleed=bleed)
    layout = sheet_layout(options)
    page = read_geometry(built("deck", options), first=1)[0]
    drawn = _segments(page)
    assert len(layout.crop_marks) >= 8
    edges_x = {round(v, 3) for slot in layout.slots for v in (slot.x, slot.right)}
    edges_y = {round(v, 3) for slot in layout.slots for v in (slot.y, slot.top)}
    safe = SAFE_EDGE_MM * MM
    for x1, y1, x2, y2 in layout.crop_marks:
        # The mark is really in the PDF.
        assert any(
            (_near(a, (x1, y1)) and _near(b, (x2, y2)))
            or (_near(b, (x1, y1)) and _near(a, (x2, y2)))
            for a, b in drawn
        ), (x1, y1, x2, y2)
        # It continues a cut line...
        if x1 == x2:
            assert round(x1, 3) in edges_x
        else:
            assert round(y1, 3) in edges_y
        # ... is at least 5 mm from the paper edge ...
        for x, y in ((x1, y1), (x2, y2)):
            assert safe - 0.01 <= x <= page.width - safe + 0.01
            assert safe - 0.01 <= y <= page.height - safe + 0.01
        # ... and touches no card, bleed included.
        for slot in layout.slots:
            art = slot.grown(layout.bleed)
            lo_x, hi_x = sorted((x1, x2))
            lo_y, hi_y = sorted((y1, y2))
            overlaps = lo_x < art.right and hi_x > art.x and lo_y < art.top and hi_y > art.y
            assert not overlaps or (lo_x == hi_x and not (art.x < lo_x < art.right))


def _near(p, q, tol=0.01):
    return abs(p[0] - q[0]) <= tol and abs(p[1] - q[1]) <= tol


def _mirror(rect, page_width, offset):
    x, y, w, h = rect
    return (page_width - x - w + offset[0] * MM, y + offset[1] * MM)


@pytest.mark.parametrize("offset", [(0.0, 0.0), (1.5, -0.8), (-2.0, 3.0), (5.0, -5.0)])
@pytest.mark.parametrize("paper", PAPERS)
def test_backs_mirror_their_faces_and_move_by_exactly_the_typed_correction(paper, offset):
    options = Options(ink_saving=False, paper=paper, back_offset=offset)
    pages = read_geometry(built("deck", options))
    grow = BACK_BLEED_MM * MM
    for face, back in zip(pages[::2], pages[1::2], strict=True):
        faces = _card_rects(face, options.card_mm, op_filter={"S"})
        grounds = [
            (x + grow, y + grow, w - 2 * grow, h - 2 * grow)
            for x, y, w, h in _back_grounds(back, options.card_mm)
        ]
        expected = sorted(_mirror(rect, face.width, offset) for rect in faces)
        got = sorted((x, y) for x, y, _, _ in grounds)
        assert len(got) == len(expected)
        for point, want in zip(got, expected, strict=True):
            assert _near(point, want, tol=0.01), (point, want)


@pytest.mark.parametrize("bleed", [False, True])
@pytest.mark.parametrize("paper", PAPERS)
def test_backs_run_3_mm_past_the_card_block_so_a_small_shift_shows_no_white(paper, bleed):
    options = Options(ink_saving=False, paper=paper, bleed=bleed)
    layout = sheet_layout(options)
    back = read_geometry(built("deck", options), first=2)[1]
    block = layout.block
    mirrored = (layout.page_w - block.right, block.y, layout.page_w - block.x, block.top)
    grounds = [
        path.bbox() for path in back.paths if path.op in ("f", "f*") and len(path.rects) == 1
    ]
    x0 = min(g[0] for g in grounds)
    y0 = min(g[1] for g in grounds)
    x1 = max(g[2] for g in grounds)
    y1 = max(g[3] for g in grounds)
    safe = SAFE_EDGE_MM * MM
    want = BACK_BLEED_MM * MM
    # 3 mm past every side, or up to the 5 mm edge where the margin is thinner.
    assert x0 <= max(mirrored[0] - want, safe) + 0.01
    assert y0 <= max(mirrored[1] - want, safe) + 0.01
    assert x1 >= min(mirrored[2] + want, layout.page_w - safe) - 0.01
    assert y1 >= min(mirrored[3] + want, layout.page_h - safe) - 0.01
    assert x0 < mirrored[0] and y0 < mirrored[1] and x1 > mirrored[2] and y1 > mirrored[3]


def test_the_last_sheet_puts_backs_behind_their_own_faces_not_where_the_faces_were():
    # Sheet 7 holds the last 10 and the cut card in the top-left two slots;
    # after the long-edge flip they must be printed in the top-right two.
    options = Options(ink_saving=False, paper="a4")
    layout = sheet_layout(options)
    pages = read_geometry(built("deck", options))
    backs = _back_grounds(pages[-1], options.card_mm)
    xs = sorted(x + BACK_BLEED_MM * MM for x, _, _, _ in backs)
    assert xs == pytest.approx([layout.slots[1].x, layout.slots[2].x], abs=0.02)


@pytest.mark.parametrize(("count", "pages"), [(9, 2), (10, 4), (18, 4), (54, 12), (56, 14), (1, 2)])
def test_a_count_that_exactly_fills_the_last_sheet_adds_no_blank_page(count, pages):
    options = Options(ink_saving=False)
    canvas, buffer = new_canvas(options, "count")
    faces = [pairs_face(1 + i % 10) for i in range(count - 1)] + [cut_card_face]
    draw_cards(canvas, options, faces, "test")
    canvas.save()
    assert len(PdfReader(io.BytesIO(buffer.getvalue())).pages) == pages


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("paper", PAPERS)
def test_the_bleed_layout_extends_every_card_3_mm_past_its_cut_line(paper, size):
    options = Options(ink_saving=False, paper=paper, card=size, bleed=True)
    layout = sheet_layout(options)
    w, h = options.card_mm
    if layout.turned:
        w, h = h, w  # the cards lie on their side on the sheet
    pdf = built("deck", options)
    assert len(PdfReader(io.BytesIO(pdf)).pages) == 2 * -(-56 // layout.per_sheet)
    pages = read_geometry(pdf, first=1)
    per_sheet = layout.per_sheet
    art = _card_rects(pages[0], (w + 2 * BLEED_MM, h + 2 * BLEED_MM), op_filter={"f", "f*"})
    art = [rect for rect in art if abs(rect[2] / MM - w - 6) < 0.2]
    assert len(art) == per_sheet
    for x, y, rw, rh in art:
        assert abs(rw / MM - (w + 2 * BLEED_MM)) <= 0.2
        assert abs(rh / MM - (h + 2 * BLEED_MM)) <= 0.2
        # The cut line (the slot) lies 3 mm inside the art.
        assert any(
            abs(slot.x - x - BLEED_MM * MM) < 0.01 and abs(slot.y - y - BLEED_MM * MM) < 0.01
            for slot in layout.slots
        )
    # No cut outline is printed in the bleed layout: a slightly-off cut must
    # not show a line.
    assert _card_rects(pages[0], (w, h), op_filter={"S"}) == []


@pytest.mark.parametrize(
    ("paper", "size", "per_sheet"),
    [("a4", "poker", 8), ("a4", "ccg", 8), ("letter", "poker", 6), ("letter", "ccg", 6)],
)
def test_the_bleed_layout_turns_the_cards_when_that_fits_more(paper, size, per_sheet):
    layout = sheet_layout(Options(paper=paper, card=size, bleed=True))
    assert layout.per_sheet == per_sheet
    # The page stays portrait, so one duplex setting suits the whole kit.
    assert layout.page_h > layout.page_w


def test_the_standard_deck_is_52_cards_on_6_sheets_with_backs():
    options = Options(ink_saving=False, paper="letter")
    pages = read_geometry(built("standard-deck", options))
    assert len(pages) == 12
    counts = [len(_card_rects(page, options.card_mm, op_filter={"S"})) for page in pages[::2]]
    assert counts == [9, 9, 9, 9, 9, 7]
    text = "\n".join(page.text for page in pages[::2])
    ranks = Counter(t for page in pages[::2] for _, t in page.texts)
    for rank in ("A", "2", "10", "J", "Q", "K"):
        assert ranks[rank] >= 4 * 2, rank  # two corner indices on each of 4 suits
    assert "Standard deck" in text


@settings(max_examples=12, deadline=None)
@given(
    paper=st.sampled_from(PAPERS),
    size=st.sampled_from(SIZES),
    bleed=st.booleans(),
    dx=st.floats(-MAX_BACK_OFFSET_MM, MAX_BACK_OFFSET_MM, allow_nan=False),
    dy=st.floats(-MAX_BACK_OFFSET_MM, MAX_BACK_OFFSET_MM, allow_nan=False),
)
def test_no_back_offset_puts_ink_within_5_mm_of_the_edge(paper, size, bleed, dx, dy):
    options = Options(ink_saving=False, paper=paper, card=size, bleed=bleed, back_offset=(dx, dy))
    canvas, buffer = new_canvas(options, "offset")
    draw_cards(canvas, options, [cut_card_face] * 2, "test")
    canvas.save()
    back = read_geometry(buffer.getvalue())[1]
    limit = SAFE_EDGE_MM * MM - 0.01
    for path in back.paths:
        if path.visible:
            x0, y0, x1, y1 = path.bbox()
            assert x0 >= limit and y0 >= limit
            assert x1 <= back.width - limit and y1 <= back.height - limit


@settings(max_examples=50, deadline=None)
@given(x=st.floats(-10, 10, allow_nan=False), y=st.floats(-10, 10, allow_nan=False))
def test_a_back_offset_reads_back_as_it_was_written(x, y):
    assert parse_offset(f"{x!r},{y!r}") == (x, y)
