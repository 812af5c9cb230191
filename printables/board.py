"""The Autumn Ash board: 5 x 6 squares, entry corners, stash areas.

Columns are lettered A-E left to right and rows numbered 1-6 from the
Rainbow player's side (the bottom); both players' colour progressions run
along their own edge as stash areas, one box per colour. Squares are
:data:`SQUARE_MM` wide so a large pyramid (25.4 mm base) sits well inside.
No start layout is printed: the original diagram is lost (X4).

The grid with its coordinates (188 x 222 mm) fits one A4 or Letter sheet,
so it is printed whole: nothing to trim or glue. The two stash strips, one
per player, come on a sheet of their own: cut them out and lay each along
its player's edge of the board.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from companion.rules import autumn_ash

from .i18n import ENGLISH, Words, colour_name
from .pyramids import STYLES
from .sheet import (
    FOOTER_TOP_MM,
    INK,
    SAFE_EDGE_MM,
    SANS,
    SANS_BOLD,
    SOFT,
    Options,
    draw_footer,
    end_single_sided_sheet,
    mm,
    saved,
)

COLUMNS = "ABCDE"
ROWS = 6
SQUARE_MM = 34.0
LABEL_BAND_MM = 9.0
STASH_MM = 38.0
"""Depth of a stash area (the boxes, their names and the side's title)."""
BOX_MM = 29.0
ENTRY_SQUARES = ("A1", "E1", "A6", "E6")
"""The four corner entry points."""

SQUARE_LABEL = HexColor("#555555")
"""A square's name: 6.5:1 on the light squares, 5.3:1 on the dark ones."""
STASH_LABEL_MM = 4.2
"""A colour's name on a stash strip (12 pt)."""
LIGHT = HexColor("#f6efe0")
DARK = HexColor("#e7d8bb")


@dataclass(frozen=True)
class BoardGeometry:
    """The board drawing (grid and coordinates) in millimetres, origin at its
    bottom-left corner."""

    square: float = SQUARE_MM

    @property
    def grid_w(self) -> float:
        return len(COLUMNS) * self.square

    @property
    def grid_h(self) -> float:
        return ROWS * self.square

    @property
    def width(self) -> float:
        return self.grid_w + 2 * LABEL_BAND_MM

    @property
    def grid_x(self) -> float:
        return LABEL_BAND_MM

    @property
    def grid_y(self) -> float:
        return LABEL_BAND_MM

    @property
    def height(self) -> float:
        return self.grid_h + 2 * LABEL_BAND_MM

    def square_at(self, name: str) -> tuple[float, float]:
        """Bottom-left corner (mm) of a square such as ``"C3"``."""
        column = COLUMNS.index(name[0])
        row = int(name[1:]) - 1
        return self.grid_x + column * self.square, self.grid_y + row * self.square


def board_origin(options: Options, geometry: BoardGeometry | None = None) -> tuple[float, float]:
    """Where (mm) the drawing's bottom-left corner goes on the sheet: centred
    between the title and the footer.

    Raises ``ValueError`` if the board does not fit the paper.
    """
    geometry = geometry or BoardGeometry()
    page_w, page_h = options.paper_mm
    bottom = FOOTER_TOP_MM + 1
    room = page_h - (SAFE_EDGE_MM + 8) - bottom
    if geometry.height > room or geometry.width > page_w - 2 * SAFE_EDGE_MM:
        raise ValueError("the board does not fit on this paper")
    return (page_w - geometry.width) / 2, bottom + (room - geometry.height) / 2


STRIP_W_MM = 5 * SQUARE_MM
"""A stash strip is as long as the grid is wide."""


def strip_origins(options: Options) -> list[tuple[str, float, float]]:
    """(side, x, y) in mm of the two stash strips on their sheet."""
    page_w, page_h = options.paper_mm
    x = (page_w - STRIP_W_MM) / 2
    top = page_h - (SAFE_EDGE_MM + 14)
    return [
        ("rainbow", x, top - STASH_MM),
        ("xeno", x, top - 2 * STASH_MM - 12),
    ]


def _draw_drawing(canvas: Canvas, geometry: BoardGeometry, tr: Words = ENGLISH) -> None:
    """The whole board in millimetre units (the caller scales)."""
    s = geometry.square
    canvas.setLineWidth(0.25)
    # Squares.
    for column, letter in enumerate(COLUMNS):
        for row in range(ROWS):
            x, y = geometry.square_at(f"{letter}{row + 1}")
            canvas.setFillColor(LIGHT if (column + row) % 2 else DARK)
            canvas.setStrokeColor(INK)
            canvas.rect(x, y, s, s, stroke=1, fill=1)
            canvas.setFillColor(SQUARE_LABEL)
            canvas.setFont(SANS, 2.6)
            canvas.drawString(x + 1.2, y + 1.2, f"{letter}{row + 1}")
    canvas.setLineWidth(0.6)
    canvas.rect(geometry.grid_x, geometry.grid_y, geometry.grid_w, geometry.grid_h, stroke=1)
    # Coordinates all round.
    canvas.setFillColor(INK)
    canvas.setFont(SANS_BOLD, 5)
    for column, letter in enumerate(COLUMNS):
        cx = geometry.grid_x + (column + 0.5) * s
        canvas.drawCentredString(cx, geometry.grid_y - LABEL_BAND_MM / 2 - 1.7, letter)
        canvas.drawCentredString(
            cx, geometry.grid_y + geometry.grid_h + LABEL_BAND_MM / 2 - 1.7, letter
        )
    for row in range(ROWS):
        cy = geometry.grid_y + (row + 0.5) * s - 1.7
        canvas.drawCentredString(geometry.grid_x - LABEL_BAND_MM / 2, cy, str(row + 1))
        canvas.drawCentredString(
            geometry.grid_x + geometry.grid_w + LABEL_BAND_MM / 2, cy, str(row + 1)
        )
    # Entry points: a star and a word in each corner square.
    for name in ENTRY_SQUARES:
        x, y = geometry.square_at(name)
        _star(canvas, x + s / 2, y + s / 2, 9.0)
        canvas.setFillColor(INK)
        canvas.setFont(SANS_BOLD, 3.2)
        # Above the square's own name (bottom left), however long the word.
        canvas.drawCentredString(x + s / 2, y + 4.5, tr("entry point"))


def _star(canvas: Canvas, cx: float, cy: float, radius: float) -> None:
    import math

    path = canvas.beginPath()
    for k in range(10):
        r = radius if k % 2 == 0 else radius * 0.45
        angle = math.pi / 2 + k * math.pi / 5
        point = (cx + r * math.cos(angle), cy + r * math.sin(angle))
        if k == 0:
            path.moveTo(*point)
        else:
            path.lineTo(*point)
    path.close()
    canvas.setFillColor(HexColor("#d98c2b"))
    canvas.setStrokeColor(INK)
    canvas.setLineWidth(0.3)
    canvas.drawPath(path, stroke=1, fill=1)


def _stash(canvas: Canvas, side: str, tr: Words = ENGLISH) -> None:
    """One player's stash strip, origin at its bottom-left corner (mm units):
    a box per colour of the side's progression, in order."""
    colours = autumn_ash.PROGRESSIONS[side]
    step = (STRIP_W_MM - BOX_MM) / (len(colours) - 1)
    canvas.setStrokeColor(INK)
    canvas.setLineWidth(0.3)
    canvas.rect(0, 0, STRIP_W_MM, STASH_MM, stroke=1, fill=0)
    canvas.setFillColor(INK)
    canvas.setFont(SANS_BOLD, 4.2)
    title = tr("%(side)s stash", side=side.capitalize())
    canvas.drawString(2, STASH_MM - 5.5, title)
    canvas.setFont(SANS, 3.0)
    canvas.drawString(
        2 + canvas.stringWidth(title, SANS_BOLD, 4.2) + 3,
        STASH_MM - 5.5,
        tr(
            "a leaf that moves becomes the next colour along; %(last)s is burnt ash",
            last=colour_name(tr, colours[-1]),
        ),
    )
    for index, colour in enumerate(colours):
        bx = index * step
        by = 3.0
        style = STYLES[colour]
        canvas.setFillColor(HexColor(style.fill))
        canvas.setStrokeColor(INK)
        canvas.setLineWidth(0.35)
        canvas.roundRect(bx + 0.5, by, BOX_MM - 1, BOX_MM - 4, 2.5, stroke=1, fill=1)
        canvas.setFillColor(HexColor("#ffffff"))
        canvas.roundRect(bx + 2, by + 2, BOX_MM - 4, BOX_MM - 12, 1.5, stroke=0, fill=1)
        canvas.setFillColor(HexColor(style.ink))
        canvas.setFont(SANS_BOLD, STASH_LABEL_MM)
        # The name sits in the coloured band above the white panel, centred
        # by the font's ascent and descent, so its descenders stay out of the panel.
        band_bottom, band_top = by + 2 + (BOX_MM - 12), by + BOX_MM - 4
        baseline = (band_bottom + band_top) / 2 - (0.905 - 0.212) / 2 * STASH_LABEL_MM
        canvas.drawCentredString(bx + BOX_MM / 2, baseline, colour_name(tr, colour))
        bonus = autumn_ash.COLOUR_BONUS[colour]
        canvas.setFillColor(SOFT)
        canvas.setFont(SANS, 3.0)
        note = tr("bag bonus +%(bonus)s", bonus=bonus) if bonus else tr("no bag bonus")
        canvas.drawCentredString(bx + BOX_MM / 2, by + 4.6, note)
        if colour in autumn_ash.BURNT_ASH:
            canvas.drawCentredString(bx + BOX_MM / 2, by + 11.6, tr("burnt ash:"))
            canvas.drawCentredString(bx + BOX_MM / 2, by + 8.1, tr("never moves"))
        if index + 1 < len(colours):
            ax = bx + BOX_MM - 0.2
            ay = by + (BOX_MM - 4) / 2
            tip = bx + step + 0.3
            canvas.setStrokeColor(INK)
            canvas.setLineWidth(0.5)
            canvas.line(ax, ay, tip, ay)
            canvas.line(tip - 1.2, ay + 1, tip, ay)
            canvas.line(tip - 1.2, ay - 1, tip, ay)


def _heading(canvas: Canvas, options: Options, title: str, how: str) -> None:
    _, page_h = options.page_size
    canvas.setFillColor(INK)
    canvas.setFont(SANS_BOLD, 10)
    canvas.drawString(mm(SAFE_EDGE_MM + 3), page_h - mm(SAFE_EDGE_MM + 4), title)
    canvas.setFont(SANS, 7)
    canvas.drawString(mm(SAFE_EDGE_MM + 3), page_h - mm(SAFE_EDGE_MM + 8), how)


def draw_board(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    geometry = BoardGeometry()
    x, y = board_origin(options, geometry)
    _heading(
        canvas,
        options,
        tr("Autumn Ash board"),
        tr(
            "Rainbow sits at row 1, Xeno at row 6. No start layout: the original diagram is "
            "lost. The stash strips are on the next sheet."
        ),
    )
    with saved(canvas):
        canvas.translate(mm(x), mm(y))
        canvas.scale(mm(1), mm(1))
        _draw_drawing(canvas, geometry, tr)
    draw_footer(canvas, options, tr("Autumn Ash board"))
    end_single_sided_sheet(canvas)
    _heading(
        canvas,
        options,
        tr("Autumn Ash stash strips"),
        tr("Cut out each strip and lay it along its player's edge of the board."),
    )
    for side, sx, sy in strip_origins(options):
        with saved(canvas):
            canvas.translate(mm(sx), mm(sy))
            canvas.scale(mm(1), mm(1))
            _stash(canvas, side, tr)
    draw_footer(canvas, options, tr("Autumn Ash stash strips"))
    end_single_sided_sheet(canvas)
