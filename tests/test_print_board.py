"""The Autumn Ash board, read back from the real PDF."""

from __future__ import annotations

import math

import pytest
from test_print_pdf import MM, built, read_geometry

from companion.rules import autumn_ash
from printables import Options
from printables.board import (
    COLUMNS,
    ENTRY_SQUARES,
    OVERLAP_MM,
    ROWS,
    BoardGeometry,
    tiles,
)
from printables.pyramids import net_dimensions

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


def test_the_board_tiles_over_two_sheets_whose_squares_make_the_5_by_6_grid(board):
    options, pages = board
    assert len(pages) == 2
    side = BoardGeometry().square
    per_sheet = [_full_squares(page, side) for page in pages]
    assert [len(squares) for squares in per_sheet] == [15, 15]
    for squares in per_sheet:
        for _, _, w, h in squares:
            # Big enough for a large pyramid with room to spare (>= 32 mm).
            assert w / MM >= 32 and h / MM >= 32
            assert w / MM > net_dimensions("large").base + 5


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
    assert texts.count("burnt ash: never moves") == 2


def test_no_start_layout_is_printed_because_the_diagram_is_lost(board):
    # X4: only the grid, coordinates and entry points; no pieces drawn.
    _, pages = board
    text = "\n".join(page.text for page in pages)
    assert "No start layout" in text
    assert "(X4)" in text


@pytest.mark.parametrize("paper", PAPERS)
def test_the_two_sheets_share_alignment_targets_on_the_join(paper):
    options = Options(paper=paper)
    geometry = BoardGeometry()
    lower, upper = tiles(options, geometry)
    assert lower.high - upper.low == pytest.approx(OVERLAP_MM)
    assert upper.low == geometry.join_y
    pages = read_geometry(built("board", options))
    for page, tile in zip(pages, (lower, upper), strict=True):
        for tx, ty in geometry.targets:
            # The target's centre on this page, in points.
            px, py = (tile.x + tx) * MM, (tile.y + ty - tile.low) * MM
            circles = [
                path
                for path in page.paths
                if len(path.points) > 8
                and math.dist(
                    (
                        sum(p[0] for p in path.points) / len(path.points),
                        sum(p[1] for p in path.points) / len(path.points),
                    ),
                    (px, py),
                )
                < 0.8
            ]
            assert circles, (paper, tile.join, tx, ty)
