"""The Autumn Ash board, read back from the real PDF."""

from __future__ import annotations

import pytest

from companion.rules import autumn_ash
from printables import Options
from printables.board import (
    COLUMNS,
    ENTRY_SQUARES,
    ROWS,
    STASH_MM,
    STRIP_W_MM,
    BoardGeometry,
    board_origin,
)
from printables.pyramids import net_dimensions
from printables.sheet import FOOTER_TOP_MM, SAFE_EDGE_MM
from tests.printables.pdf_geometry import MM, built, read_geometry

PAPERS = ["a4", "letter"]


@pytest.fixture(scope="module", params=PAPERS)
def board(request):
    options = Options(paper=request.param)
    return options, read_geometry(built("board", options))


def _full_squares(page, side_mm):
    """Rectangles of the square's size that are not cut by the sheet's clip."""
    found = set()
    for path in page.paths:
        for x, y, w, h in path.rects:
            if abs(w - side_mm * MM) < 0.5 and abs(h - side_mm * MM) < 0.5:
                x0, y0, x1, y1 = path.bbox()
                if abs((x1 - x0) - w) < 0.01 and abs((y1 - y0) - h) < 0.01:
                    found.add((round(x, 1), round(y, 1), w, h))
    return found


def test_the_whole_5_by_6_grid_is_on_one_sheet_and_the_stash_strips_on_the_next(board):
    options, pages = board
    assert len(pages) == 2
    side = BoardGeometry().square
    squares = _full_squares(pages[0], side)
    assert len(squares) == 30
    for _, _, w, h in squares:
        # Big enough for a large pyramid with room to spare (>= 32 mm).
        assert w / MM >= 32 and h / MM >= 32
        assert w / MM > net_dimensions("large").base + 5
    assert not _full_squares(pages[1], side)
    assert "Rainbow stash" in pages[1].text and "Xeno stash" in pages[1].text
    assert "stash" not in pages[0].text.replace("stash strips", "")
    strips = [
        rect
        for path in pages[1].paths
        for rect in path.rects
        if abs(rect[2] - STRIP_W_MM * MM) < 0.01 and abs(rect[3] - STASH_MM * MM) < 0.01
    ]
    assert len(strips) == 2


@pytest.mark.parametrize("paper", PAPERS)
def test_the_board_fits_between_the_title_and_the_footer(paper):
    options = Options(paper=paper)
    geometry = BoardGeometry()
    x, y = board_origin(options, geometry)
    width, height = options.paper_mm
    assert x >= SAFE_EDGE_MM and x + geometry.width <= width - SAFE_EDGE_MM
    assert y >= FOOTER_TOP_MM and y + geometry.height <= height - SAFE_EDGE_MM - 8
    assert geometry.width == pytest.approx(188) and geometry.height == pytest.approx(222)


def test_every_square_is_named_by_its_coordinates(board):
    _, pages = board
    words = {text for page in pages for _, text in page.texts}
    for letter in COLUMNS:
        for row in range(1, ROWS + 1):
            assert f"{letter}{row}" in words
        assert letter in words
    for row in range(1, ROWS + 1):
        assert str(row) in words


def test_the_four_corner_entry_points_are_marked_and_nothing_else_is(board):
    _, pages = board
    entries = sum(text == "entry point" for page in pages for _, text in page.texts)
    assert entries == 4
    assert ENTRY_SQUARES == ("A1", "E1", "A6", "E6")


def test_both_colour_progressions_are_printed_in_order_with_their_bonuses(board):
    _, pages = board
    texts = [text for page in pages for _, text in page.texts]
    for side, colours in autumn_ash.PROGRESSIONS.items():
        assert f"{side.capitalize()} stash" in texts
        positions = [texts.index(colour) for colour in colours]
        assert positions == sorted(positions), side
        for colour in colours:
            bonus = autumn_ash.COLOUR_BONUS[colour]
            wanted = f"bag bonus +{bonus}" if bonus else "no bag bonus"
            assert wanted in texts
    assert texts.count("burnt ash:") == 2 and texts.count("never moves") == 2


def test_no_start_layout_is_printed_because_the_diagram_is_lost(board):
    # X4: only the grid, coordinates and entry points; no pieces drawn.
    _, pages = board
    text = "\n".join(page.text for page in pages)
    assert "No start layout" in text
    assert "(X4)" not in text  # ruling ids are not for players' paper


@pytest.mark.parametrize("paper", PAPERS)
def test_stash_colour_names_keep_their_descenders_out_of_the_white_panel(paper):
    """Each colour's name sits in its box's coloured band: by the font's own
    descent, its glyphs end above the white panel under it (they once ran
    into it: "yellow", "purple", "green")."""
    pages = read_geometry(built("board", Options(paper=paper)))
    strip_page = pages[1]
    names = set(autumn_ash.PROGRESSIONS["rainbow"]) | set(autumn_ash.PROGRESSIONS["xeno"])
    checked = 0
    for run in strip_page.runs:
        if run.text not in names:
            continue
        x_mid = (run.bbox[0] + run.bbox[2]) / 2
        panels = [
            path.bbox()
            for path in strip_page.paths
            if path.op in ("f", "F", "f*", "B", "b")
            and path.fill in ((1.0, 1.0, 1.0), (1.0,))
            and path.bbox()[0] <= x_mid <= path.bbox()[2]
            and path.bbox()[3] <= run.origin[1]
        ]
        assert panels, run.text
        panel_top = max(panel[3] for panel in panels)
        assert run.bbox[1] >= panel_top, (
            f"{run.text!r} reaches {(panel_top - run.bbox[1]) / MM:.2f} mm into its panel"
        )
        checked += 1
    assert checked == len(names)
