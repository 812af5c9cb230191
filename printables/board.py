"""The Autumn Ash board: 5 x 6 squares, entry corners, stash areas.

Columns are lettered A-E left to right and rows numbered 1-6 from the
Rainbow player's side (the bottom); both players' colour progressions run
along their own edge as stash areas, one box per colour. Squares are
:data:`SQUARE_MM` wide so a large pyramid (25.4 mm base) sits well inside.
No start layout is printed: the original diagram is lost (X4).

The drawing is taller than a sheet, so it is tiled over two sheets split
between rows 3 and 4. The lower sheet carries an overlap strip; the upper
sheet is trimmed on its join line and laid on the strip so the half
targets on both sheets make whole ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from companion.rules import autumn_ash

from .pyramids import STYLES
from .sheet import FOOTER_TOP_MM, INK, SAFE_EDGE_MM, SOFT, Options, draw_footer, mm, saved

COLUMNS = "ABCDE"
ROWS = 6
SQUARE_MM = 34.0
LABEL_BAND_MM = 9.0
STASH_MM = 38.0
"""Depth of a stash area (the boxes, their names and the side's title)."""
BOX_MM = 29.0
OVERLAP_MM = 12.0
TARGET_RADIUS_MM = 3.0
ENTRY_SQUARES = ("A1", "E1", "A6", "E6")
"""The four corner entry points."""

LIGHT = HexColor("#f6efe0")
DARK = HexColor("#e7d8bb")


@dataclass(frozen=True)
class BoardGeometry:
    """The whole drawing in millimetres, origin at its bottom-left corner."""

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
        return STASH_MM + LABEL_BAND_MM

    @property
    def height(self) -> float:
        return self.grid_h + 2 * (LABEL_BAND_MM + STASH_MM)

    def square_at(self, name: str) -> tuple[float, float]:
        """Bottom-left corner (mm) of a square such as ``"C3"``."""
        column = COLUMNS.index(name[0])
        row = int(name[1:]) - 1
        return self.grid_x + column * self.square, self.grid_y + row * self.square

    @property
    def join_y(self) -> float:
        """Where the two sheets meet: the line between rows 3 and 4."""
        return self.grid_y + 3 * self.square

    @property
    def targets(self) -> tuple[tuple[float, float], ...]:
        """Alignment targets on the join line (mm in the drawing)."""
        return (
            (self.grid_x / 2, self.join_y),
            (self.grid_x + self.grid_w / 2, self.join_y),
            (self.width - self.grid_x / 2, self.join_y),
        )


@dataclass(frozen=True)
class Tile:
    """One sheet's window onto the drawing: drawing mm [low, high) on y,
    placed so that drawing point (0, low) lands at page point (x, y)."""

    low: float
    high: float
    x: float
    y: float
    join: str  # "", "overlap above" or "trim below"


def tiles(options: Options, geometry: BoardGeometry | None = None) -> list[Tile]:
    """One tile if the whole board fits the printable area, else two."""
    geometry = geometry or BoardGeometry()
    page_w, page_h = options.paper_mm
    room = page_h - (SAFE_EDGE_MM + 8) - (FOOTER_TOP_MM + 1)
    x = (page_w - geometry.width) / 2
    bottom = FOOTER_TOP_MM + 1
    if geometry.height <= room:
        return [Tile(0.0, geometry.height, x, bottom + (room - geometry.height) / 2, "")]
    spans = [
        (0.0, geometry.join_y + OVERLAP_MM, "overlap above"),
        (geometry.join_y, geometry.height, "trim below"),
    ]
    result = []
    for low, high, join in spans:
        if high - low > room:
            raise ValueError("the board does not fit even on two sheets of this paper")
        result.append(Tile(low, high, x, bottom + (room - (high - low)) / 2, join))
    return result


def _draw_drawing(canvas: Canvas, geometry: BoardGeometry) -> None:
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
            canvas.setFillColor(SOFT)
            canvas.setFont("Helvetica", 2.6)
            canvas.drawString(x + 1.2, y + 1.2, f"{letter}{row + 1}")
    canvas.setLineWidth(0.6)
    canvas.rect(geometry.grid_x, geometry.grid_y, geometry.grid_w, geometry.grid_h, stroke=1)
    # Coordinates all round.
    canvas.setFillColor(INK)
    canvas.setFont("Helvetica-Bold", 5)
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
        canvas.setFont("Helvetica-Bold", 3.2)
        canvas.drawCentredString(x + s / 2, y + 3.2, "entry point")
    # Stash areas: Rainbow along the bottom, Xeno along the top (turned to
    # face the player sitting there).
    _stash(canvas, geometry, "rainbow", 0.0, upside_down=False)
    _stash(canvas, geometry, "xeno", geometry.height - STASH_MM, upside_down=True)


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


def _stash(
    canvas: Canvas, geometry: BoardGeometry, side: str, y: float, *, upside_down: bool
) -> None:
    colours = autumn_ash.PROGRESSIONS[side]
    with saved(canvas):
        if upside_down:
            canvas.translate(geometry.width, y + STASH_MM)
            canvas.rotate(180)
        else:
            canvas.translate(0, y)
        step = (geometry.grid_w - BOX_MM) / (len(colours) - 1)
        canvas.setFillColor(INK)
        canvas.setFont("Helvetica-Bold", 4.2)
        title = f"{side.capitalize()} stash"
        canvas.drawString(geometry.grid_x, 1.0, title)
        canvas.setFont("Helvetica", 3.0)
        canvas.drawString(
            geometry.grid_x + canvas.stringWidth(title, "Helvetica-Bold", 4.2) + 3,
            1.0,
            f"a leaf that moves becomes the next colour along; {colours[-1]} is burnt ash",
        )
        for index, colour in enumerate(colours):
            bx = geometry.grid_x + index * step
            by = 8.0
            style = STYLES[colour]
            canvas.setFillColor(HexColor(style.fill))
            canvas.setStrokeColor(INK)
            canvas.setLineWidth(0.35)
            canvas.roundRect(bx, by, BOX_MM, BOX_MM - 4, 2.5, stroke=1, fill=1)
            canvas.setFillColor(HexColor("#ffffff"))
            canvas.roundRect(bx + 2, by + 2, BOX_MM - 4, BOX_MM - 12, 1.5, stroke=0, fill=1)
            canvas.setFillColor(HexColor(style.ink))
            canvas.setFont("Helvetica-Bold", 4.2)
            canvas.drawCentredString(bx + BOX_MM / 2, by + BOX_MM - 9.5, colour)
            bonus = autumn_ash.COLOUR_BONUS[colour]
            canvas.setFillColor(SOFT)
            canvas.setFont("Helvetica", 3.0)
            note = f"bag bonus +{bonus}" if bonus else "no bag bonus"
            canvas.drawCentredString(bx + BOX_MM / 2, by + 4.6, note)
            if colour in autumn_ash.BURNT_ASH:
                canvas.drawCentredString(bx + BOX_MM / 2, by + 8.5, "burnt ash: never moves")
            if index + 1 < len(colours):
                ax = bx + BOX_MM + 0.6
                ay = by + (BOX_MM - 4) / 2
                canvas.setStrokeColor(INK)
                canvas.setLineWidth(0.5)
                canvas.line(ax, ay, ax + step - BOX_MM - 1.2, ay)
                canvas.line(ax + step - BOX_MM - 2.4, ay + 1, ax + step - BOX_MM - 1.2, ay)
                canvas.line(ax + step - BOX_MM - 2.4, ay - 1, ax + step - BOX_MM - 1.2, ay)


def _target(canvas: Canvas, x: float, y: float) -> None:
    canvas.setStrokeColor(INK)
    canvas.setLineWidth(0.3)
    canvas.circle(x, y, TARGET_RADIUS_MM, stroke=1, fill=0)
    canvas.line(x - TARGET_RADIUS_MM - 1.5, y, x + TARGET_RADIUS_MM + 1.5, y)
    canvas.line(x, y - TARGET_RADIUS_MM - 1.5, x, y + TARGET_RADIUS_MM + 1.5)


def draw_board(canvas: Canvas, options: Options) -> None:
    geometry = BoardGeometry()
    sheets = tiles(options, geometry)
    _, page_h = options.page_size
    for number, tile in enumerate(sheets, start=1):
        canvas.setFillColor(INK)
        canvas.setFont("Helvetica-Bold", 10)
        canvas.drawString(mm(SAFE_EDGE_MM + 3), page_h - mm(SAFE_EDGE_MM + 4), "Autumn Ash board")
        canvas.setFont("Helvetica", 7)
        if tile.join == "overlap above":
            how = "Sheet 1 of 2: the Rainbow half. Glue sheet 2 on the shaded strip."
        elif tile.join == "trim below":
            how = "Sheet 2 of 2: the Xeno half. Cut on the dashed line, match the targets."
        else:
            how = "Rainbow sits at row 1, Xeno at row 6."
        canvas.drawString(mm(SAFE_EDGE_MM + 38), page_h - mm(SAFE_EDGE_MM + 4), how)
        canvas.setFont("Helvetica", 6)
        canvas.drawRightString(
            options.page_size[0] - mm(SAFE_EDGE_MM + 3),
            page_h - mm(SAFE_EDGE_MM + 4),
            "No start layout: the original diagram is lost (X4).",
        )
        with saved(canvas):
            canvas.translate(mm(tile.x), mm(tile.y))
            canvas.scale(mm(1), mm(1))
            canvas.translate(0, -tile.low)
            clip = canvas.beginPath()
            clip.rect(0, tile.low, geometry.width, tile.high - tile.low)
            canvas.clipPath(clip, stroke=0, fill=0)
            _draw_drawing(canvas, geometry)
            if tile.join == "overlap above":
                canvas.setFillColor(HexColor("#000000"), alpha=0.12)
                canvas.rect(0, geometry.join_y, geometry.width, OVERLAP_MM, stroke=0, fill=1)
                canvas.setFillColor(INK, alpha=1)
                canvas.setFont("Helvetica-Bold", 3.5)
                canvas.drawCentredString(
                    geometry.width / 2,
                    geometry.join_y + OVERLAP_MM / 2 + 2,
                    "glue sheet 2 here",
                )
            if tile.join:
                for x, y in geometry.targets:
                    _target(canvas, x, y)
            if tile.join == "trim below":
                with saved(canvas):
                    canvas.setDash(2, 1.2)
                    canvas.setLineWidth(0.4)
                    canvas.setStrokeColor(INK)
                    canvas.line(0, geometry.join_y, geometry.width, geometry.join_y)
        label = "Autumn Ash board" + (
            f" · sheet {number} of {len(sheets)}" if len(sheets) > 1 else ""
        )
        draw_footer(canvas, options, label)
        canvas.showPage()
