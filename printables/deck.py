"""Card sheets: the Pairs deck and a standard 52-card deck for the solitaire.

Cards are laid out 3 x 3 per sheet, edge to edge, centred on the page, with
crop marks in the margin on the cut lines. The bleed layout spaces the cards
so each one's art runs :data:`~printables.sheet.BLEED_MM` past its cut line;
it fits fewer cards per sheet (as many as leave room for the crop marks).
Every face sheet is followed by its back sheet: the same cards mirrored left
to right (so they land behind their faces when the printer flips the sheet
on its long edge) and moved by the user's back offset.

:func:`sheet_layout` computes where everything goes; the drawing code and
the tests both read it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reportlab.lib.colors import Color, HexColor, white
from reportlab.pdfgen.canvas import Canvas

from companion.rules import cards

from .sheet import (
    BAND_MM,
    BLEED_MM,
    INK,
    NOTE_SPAN_MM,
    RULER_SPAN_MM,
    SAFE_EDGE_MM,
    SOFT,
    Options,
    draw_note,
    draw_ruler,
    mm,
    saved,
)

COLUMNS = ROWS = 3
MARK_GAP_MM = 1.0
"""Crop marks start this far outside the cards (less when the margin is thin)."""
MARK_LENGTH_MM = 3.0


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in points: (x, y) is the bottom-left corner."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    def grown(self, by: float) -> Rect:
        return Rect(self.x - by, self.y - by, self.w + 2 * by, self.h + 2 * by)

    def moved(self, dx: float, dy: float) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.w, self.h)


Segment = tuple[float, float, float, float]
"""A straight line (x1, y1, x2, y2) in points."""


@dataclass(frozen=True)
class SheetLayout:
    """Where the cards, crop marks, ruler and note go on a sheet.

    ``slots`` are the cut rectangles of the cards in reading order (top row
    left to right, then the next row); ``bleed`` is how far each card's art
    extends past its cut line (0 for the edge-to-edge layout).
    """

    page_w: float
    page_h: float
    columns: int
    rows: int
    card_w: float
    card_h: float
    bleed: float
    slots: tuple[Rect, ...]
    crop_marks: tuple[Segment, ...]
    ruler_at: tuple[float, float]
    note_at: tuple[float, float]
    vertical_ruler: bool

    @property
    def per_sheet(self) -> int:
        return self.columns * self.rows

    def back_slot(self, index: int, offset_mm: tuple[float, float]) -> Rect:
        """Where the back of the card in slot ``index`` goes on the back page.

        Mirrored about the page's vertical centre line for long-edge duplex,
        then moved by the offset (mm).
        """
        face = self.slots[index]
        return Rect(self.page_w - face.right, face.y, face.w, face.h).moved(
            mm(offset_mm[0]), mm(offset_mm[1])
        )


def _fit(count_max: int, paper: float, pitch: float, need: float) -> int:
    for count in range(count_max, 0, -1):
        if count * pitch + 2 * need <= paper + 1e-6:
            return count
    raise ValueError("a card does not fit on this paper")


def _cut_lines(start: float, count: int, size: float, pitch: float, bleed: float) -> list[float]:
    lines: list[float] = []
    for index in range(count):
        low = start + bleed + index * pitch
        for value in (low, low + size):
            if not any(abs(value - seen) < 1e-6 for seen in lines):
                lines.append(value)
    return lines


def _gaps(lines: Sequence[float], low: float, high: float) -> list[tuple[float, float]]:
    """Open stretches between consecutive cut lines (and the block ends)."""
    points = [low, *sorted(lines), high]
    return [(a, b) for a, b in zip(points, points[1:], strict=False) if b > a]


def sheet_layout(options: Options) -> SheetLayout:
    """Compute the card sheet for the chosen paper, card size and bleed.

    The edge-to-edge layout is always 3 x 3. The bleed layout fits as many
    columns and rows (up to 3) as leave room for crop marks outside the
    bleed and 5 mm of bare paper at the edge.
    """
    page_w, page_h = options.page_size
    card_w, card_h = (mm(v) for v in options.card_mm)
    bleed = mm(BLEED_MM) if options.bleed else 0.0
    pitch_x, pitch_y = card_w + 2 * bleed, card_h + 2 * bleed
    if options.bleed:
        need = mm(SAFE_EDGE_MM + MARK_GAP_MM + MARK_LENGTH_MM)
        columns = _fit(COLUMNS, page_w, pitch_x, need)
        rows = _fit(ROWS, page_h, pitch_y, need)
    else:
        columns, rows = COLUMNS, ROWS
    block_w, block_h = columns * pitch_x, rows * pitch_y
    left = (page_w - block_w) / 2
    bottom = (page_h - block_h) / 2
    top = bottom + block_h
    slots = tuple(
        Rect(left + bleed + col * pitch_x, top - (row + 1) * pitch_y + bleed, card_w, card_h)
        for row in range(rows)
        for col in range(columns)
    )
    xs = _cut_lines(left, columns, card_w, pitch_x, bleed)
    ys = _cut_lines(bottom, rows, card_h, pitch_y, bleed)
    marks: list[Segment] = []
    safe = mm(SAFE_EDGE_MM)
    margin_y, margin_x = bottom, left
    gap_y = min(mm(MARK_GAP_MM), max(0.0, (margin_y - safe) * 0.25))
    gap_x = min(mm(MARK_GAP_MM), max(0.0, (margin_x - safe) * 0.25))
    len_y = min(mm(MARK_LENGTH_MM), margin_y - safe - gap_y)
    len_x = min(mm(MARK_LENGTH_MM), margin_x - safe - gap_x)
    for x in xs:
        marks.append((x, bottom - gap_y, x, bottom - gap_y - len_y))
        marks.append((x, top + gap_y, x, top + gap_y + len_y))
    for y in ys:
        marks.append((left - gap_x, y, left - gap_x - len_x, y))
        right = left + block_w
        marks.append((right + gap_x, y, right + gap_x + len_x, y))
    # The ruler and the note go in the wider of the bottom and left margins,
    # each in a stretch between two crop marks.
    band = mm(BAND_MM)
    vertical = margin_y - safe < band + mm(0.5)
    if vertical:
        if margin_x - safe < band + mm(0.5):
            raise ValueError("no margin is wide enough for the calibration ruler")
        gaps = _gaps(ys, bottom, top)
    else:
        gaps = _gaps(xs, left, left + block_w)
    gaps = [gap for gap in gaps if gap[1] - gap[0] >= mm(RULER_SPAN_MM + 2)]
    if not gaps:
        raise ValueError("no stretch of margin is long enough for the calibration ruler")
    ruler_gap = gaps[0]
    note_gap = gaps[1] if len(gaps) > 1 else gaps[0]
    if note_gap is ruler_gap and ruler_gap[1] - ruler_gap[0] < mm(RULER_SPAN_MM + NOTE_SPAN_MM + 4):
        raise ValueError("no stretch of margin is long enough for the note")
    ruler_start = ruler_gap[0] + mm(1.5)
    note_start = (
        note_gap[0] + mm(1.5) if note_gap is not ruler_gap else ruler_start + mm(RULER_SPAN_MM + 3)
    )
    if vertical:
        ruler_at = (safe + band, ruler_start)
        note_at = (safe + band, note_start)
    else:
        ruler_at = (ruler_start, safe)
        note_at = (note_start, safe)
    return SheetLayout(
        page_w=page_w,
        page_h=page_h,
        columns=columns,
        rows=rows,
        card_w=card_w,
        card_h=card_h,
        bleed=bleed,
        slots=slots,
        crop_marks=tuple(marks),
        ruler_at=ruler_at,
        note_at=note_at,
        vertical_ruler=vertical,
    )


CardDrawer = Callable[[Canvas, Rect, float], None]
"""Draws one card side: (canvas, cut rectangle, bleed in points)."""


def sheet_count(cards_total: int, layout: SheetLayout) -> int:
    """Face sheets needed: a count that fills the last sheet adds no page."""
    return math.ceil(cards_total / layout.per_sheet)


def draw_cards(
    canvas: Canvas,
    options: Options,
    faces: Sequence[CardDrawer],
    back: CardDrawer,
    label: str,
) -> None:
    """Draw face sheets, each followed by its mirrored back sheet."""
    layout = sheet_layout(options)
    sheets = sheet_count(len(faces), layout)
    for sheet in range(sheets):
        chunk = faces[sheet * layout.per_sheet : (sheet + 1) * layout.per_sheet]
        for index, face in enumerate(chunk):
            with saved(canvas):
                face(canvas, layout.slots[index], layout.bleed)
        _draw_marks(canvas, layout)
        _draw_sheet_furniture(canvas, layout, f"{label} · faces {sheet + 1} of {sheets}")
        canvas.showPage()
        with saved(canvas):
            # A large back offset must not push ink into the edge the printer
            # cannot reach: cut the backs off at the safe border.
            safe = mm(SAFE_EDGE_MM)
            border = canvas.beginPath()
            border.rect(safe, safe, layout.page_w - 2 * safe, layout.page_h - 2 * safe)
            canvas.clipPath(border, stroke=0, fill=0)
            for index in range(len(chunk)):
                with saved(canvas):
                    back(canvas, layout.back_slot(index, options.back_offset), layout.bleed)
        _draw_sheet_furniture(
            canvas,
            layout,
            f"{label} · backs {sheet + 1} of {sheets} (print on the back of faces "
            f"{sheet + 1}, flip on the long edge)",
        )
        canvas.showPage()


def _draw_marks(canvas: Canvas, layout: SheetLayout) -> None:
    with saved(canvas):
        canvas.setStrokeColor(INK)
        canvas.setLineWidth(0.5)
        for x1, y1, x2, y2 in layout.crop_marks:
            canvas.line(x1, y1, x2, y2)


def _draw_sheet_furniture(canvas: Canvas, layout: SheetLayout, label: str) -> None:
    draw_ruler(canvas, *layout.ruler_at, vertical=layout.vertical_ruler)
    draw_note(canvas, *layout.note_at, vertical=layout.vertical_ruler)
    # The sheet's name goes in the top margin, right-aligned, between marks.
    with saved(canvas):
        canvas.setFillColor(SOFT)
        canvas.setFont("Helvetica", 5)
        top_margin = layout.page_h - max(slot.top for slot in layout.slots) - layout.bleed
        if top_margin >= mm(SAFE_EDGE_MM + 3):
            canvas.drawString(
                layout.slots[0].x + mm(2), layout.page_h - mm(SAFE_EDGE_MM + 2), label
            )
        else:
            x = layout.page_w - mm(SAFE_EDGE_MM + 2)
            with saved(canvas):
                canvas.translate(x, layout.slots[-1].y + mm(2))
                canvas.rotate(90)
                canvas.drawString(0, 0, label)


# --- The Pairs deck ---------------------------------------------------------------

RANK_COLOURS: dict[int, str] = {
    1: "#7a4a8c",  # plum
    2: "#2f6f8f",  # slate blue
    3: "#2e7d5b",  # pine
    4: "#6b8e23",  # moss
    5: "#b8860b",  # mustard
    6: "#c46a1b",  # pumpkin
    7: "#b5471f",  # rust
    8: "#9b2d20",  # brick
    9: "#7b3f2a",  # chestnut
    10: "#5a3b2e",  # walnut
}
FACE_PAPER = HexColor("#fbf5e9")
BACK_DARK = HexColor("#5b2a1a")
BACK_LIGHT = HexColor("#c9772f")
BORDER_MM = 2.2


def _fill_card(canvas: Canvas, rect: Rect, bleed: float, colour: Color) -> None:
    area = rect.grown(bleed)
    canvas.setFillColor(colour)
    canvas.rect(area.x, area.y, area.w, area.h, stroke=0, fill=1)


def _outline(canvas: Canvas, rect: Rect, bleed: float) -> None:
    """The cut line of an edge-to-edge card (the bleed layout has none)."""
    if bleed:
        return
    canvas.setStrokeColor(HexColor("#9a8f80"))
    canvas.setLineWidth(0.3)
    canvas.rect(rect.x, rect.y, rect.w, rect.h, stroke=1, fill=0)


def _framed_face(canvas: Canvas, rect: Rect, bleed: float, colour: Color) -> None:
    """Coloured border (into the bleed) around a pale card."""
    _fill_card(canvas, rect, bleed, colour)
    inner = rect.grown(-mm(BORDER_MM))
    canvas.setFillColor(FACE_PAPER)
    canvas.roundRect(inner.x, inner.y, inner.w, inner.h, mm(2.5), stroke=0, fill=1)


def _copies_mark(canvas: Canvas, cx: float, y: float, count: int, colour: Color) -> None:
    """``count`` dots stacked as a small triangle (rows of 1, 2, 3, 4)."""
    radius, step = mm(0.75), mm(2.1)
    rows: list[int] = []
    left = count
    size = 1
    while left > 0:
        rows.append(min(size, left))
        left -= size
        size += 1
    canvas.setFillColor(colour)
    for depth, dots in enumerate(rows):
        row_y = y - depth * step * 0.9
        start = cx - (dots - 1) * step / 2
        for dot in range(dots):
            canvas.circle(start + dot * step, row_y, radius, stroke=0, fill=1)


def _leaf(canvas: Canvas, cx: float, cy: float, length: float, colour: Color, angle: float) -> None:
    """A simple pointed-oval leaf with a midrib (our own motif)."""
    with saved(canvas):
        canvas.translate(cx, cy)
        canvas.rotate(angle)
        half = length / 2
        width = length * 0.32
        path = canvas.beginPath()
        path.moveTo(0, -half)
        path.curveTo(width, -half * 0.4, width, half * 0.4, 0, half)
        path.curveTo(-width, half * 0.4, -width, -half * 0.4, 0, -half)
        path.close()
        canvas.setFillColor(colour)
        canvas.drawPath(path, stroke=0, fill=1)
        canvas.setStrokeColor(white)
        canvas.setLineWidth(max(0.4, length / 60))
        canvas.line(0, -half * 0.85, 0, half * 0.8)


def pairs_face(rank: int) -> CardDrawer:
    """The face of a Pairs card: big rank, corner ranks, copies mark.

    Raises ``ValueError`` for a rank that is not in the Pairs deck.
    """
    copies = cards.copies(rank)
    colour = HexColor(RANK_COLOURS[rank])
    text = str(rank)

    def draw(canvas: Canvas, rect: Rect, bleed: float) -> None:
        _framed_face(canvas, rect, bleed, colour)
        cx = rect.x + rect.w / 2
        # Centre rank.
        canvas.setFillColor(colour)
        size = rect.w * 0.62
        canvas.setFont("Helvetica-Bold", size)
        canvas.drawCentredString(cx, rect.y + rect.h * 0.5 - size * 0.36, text)
        # Corners: top-left upright, bottom-right upside down.
        corner = mm(7.5)
        for turn in (0, 180):
            with saved(canvas):
                canvas.translate(cx, rect.y + rect.h / 2)
                canvas.rotate(turn)
                x0, y0 = -rect.w / 2 + mm(BORDER_MM + 1.8), rect.h / 2 - mm(BORDER_MM + 1.2)
                canvas.setFillColor(INK)
                canvas.setFont("Helvetica-Bold", corner)
                width = canvas.stringWidth(text, "Helvetica-Bold", corner)
                canvas.drawCentredString(x0 + max(width, mm(4)) / 2, y0 - corner * 0.8, text)
                _leaf(canvas, x0 + max(width, mm(4)) / 2, y0 - corner - mm(3), mm(4.5), colour, 0)
        # How many copies: a small triangle of dots above the bottom border.
        _copies_mark(canvas, cx, rect.y + rect.h * 0.2, copies, colour)
        canvas.setFillColor(SOFT)
        canvas.setFont("Helvetica", 5.5)
        noun = "copy" if copies == 1 else "copies"
        canvas.drawCentredString(cx, rect.y + mm(BORDER_MM + 2.2), f"{copies} {noun} in the deck")
        _outline(canvas, rect, bleed)

    return draw


def cut_card_face(canvas: Canvas, rect: Rect, bleed: float) -> None:
    """The blank cut card: plain, with a quiet note of what it is for."""
    _fill_card(canvas, rect, bleed, HexColor("#e9e2d4"))
    inner = rect.grown(-mm(BORDER_MM))
    canvas.setFillColor(FACE_PAPER)
    canvas.roundRect(inner.x, inner.y, inner.w, inner.h, mm(2.5), stroke=0, fill=1)
    canvas.setFillColor(SOFT)
    canvas.setFont("Helvetica-Bold", 8)
    cx = rect.x + rect.w / 2
    canvas.drawCentredString(cx, rect.y + rect.h / 2 + mm(1), "cut card")
    canvas.setFont("Helvetica", 6)
    canvas.drawCentredString(cx, rect.y + rect.h / 2 - mm(3), "keep it under the deck")
    _outline(canvas, rect, bleed)


def card_back(canvas: Canvas, rect: Rect, bleed: float) -> None:
    """The shared back: dark ground, a lattice of small leaves, the name.

    The ground is painted on the page; the pattern is a PDF form drawn once
    per card size and reused for every back (smaller, faster files).
    """
    area = rect.grown(bleed)
    canvas.setFillColor(BACK_DARK)
    canvas.rect(area.x, area.y, area.w, area.h, stroke=0, fill=1)
    name = f"back-{area.w:.2f}-{area.h:.2f}-{rect.w:.2f}"
    made: set[str] = canvas.__dict__.setdefault("_leafpile_forms", set())
    if name not in made:
        canvas.beginForm(name, 0, 0, area.w, area.h)
        _back_pattern(canvas, area.w, area.h)
        canvas.endForm()
        made.add(name)
    with saved(canvas):
        canvas.translate(area.x, area.y)
        canvas.doForm(name)


def _back_pattern(canvas: Canvas, width: float, height: float) -> None:
    with saved(canvas):
        clip = canvas.beginPath()
        clip.rect(0, 0, width, height)
        canvas.clipPath(clip, stroke=0, fill=0)
        step = mm(9)
        cx, cy = width / 2, height / 2
        columns = int(width / step / 2) + 2
        rows = int(height / (step * 0.8) / 2) + 2
        for i in range(-columns, columns + 1):
            for j in range(-rows, rows + 1):
                x = cx + i * step + (step / 2 if j % 2 else 0)
                y = cy + j * step * 0.8
                _leaf(canvas, x, y, mm(4.2), BACK_LIGHT, 35 if (i + j) % 2 else -35)
    cx, cy = width / 2, height / 2
    canvas.setFillColor(BACK_DARK)
    canvas.setStrokeColor(BACK_LIGHT)
    canvas.setLineWidth(1.2)
    canvas.roundRect(cx - mm(22), cy - mm(7), mm(44), mm(14), mm(3), stroke=1, fill=1)
    canvas.setFillColor(HexColor("#f3d9b1"))
    canvas.setFont("Helvetica-Bold", 15)
    canvas.drawCentredString(cx, cy - mm(2), "Leafpile")


def pairs_faces() -> list[CardDrawer]:
    """The 55 faces in deck order (from ``cards.PAIRS_DECK``), then the cut card."""
    return [pairs_face(rank) for rank in cards.PAIRS_DECK] + [cut_card_face]


def draw_pairs_deck(canvas: Canvas, options: Options) -> None:
    draw_cards(canvas, options, pairs_faces(), card_back, "Pairs deck")


# --- The standard deck (Autumn Leaves solitaire) ------------------------------------

SUITS = ("spades", "hearts", "diamonds", "clubs")
STANDARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RED = HexColor("#b3261e")


def _suit_path(canvas: Canvas, suit: str, cx: float, cy: float, size: float) -> None:
    """Fill a suit symbol of height ``size`` centred on (cx, cy)."""
    s = size / 2
    path = canvas.beginPath()
    if suit == "diamonds":
        path.moveTo(cx, cy + s)
        path.lineTo(cx + s * 0.72, cy)
        path.lineTo(cx, cy - s)
        path.lineTo(cx - s * 0.72, cy)
        path.close()
        canvas.drawPath(path, stroke=0, fill=1)
        return
    if suit in ("hearts", "spades"):
        # A heart points down; a spade is a heart upside down on a stem.
        sign = 1.0 if suit == "hearts" else -1.0
        base = cy if suit == "hearts" else cy + s * 0.15

        def at(dx: float, dy: float) -> tuple[float, float]:
            return cx + dx, base + sign * dy

        path.moveTo(*at(0, -s))
        path.curveTo(*at(s * 1.3, -s * 0.1), *at(s * 0.8, s * 1.1), *at(0, s * 0.45))
        path.curveTo(*at(-s * 0.8, s * 1.1), *at(-s * 1.3, -s * 0.1), *at(0, -s))
        path.close()
        canvas.drawPath(path, stroke=0, fill=1)
        if suit == "spades":
            _stem(canvas, cx, cy, s)
        return
    # clubs: three balls and a stem
    r = s * 0.42
    for dx, dy in ((0, s * 0.45), (-s * 0.48, -s * 0.12), (s * 0.48, -s * 0.12)):
        canvas.circle(cx + dx, cy + dy, r, stroke=0, fill=1)
    _stem(canvas, cx, cy, s)


def _stem(canvas: Canvas, cx: float, cy: float, s: float) -> None:
    path = canvas.beginPath()
    path.moveTo(cx - s * 0.08, cy - s * 0.1)
    path.lineTo(cx - s * 0.4, cy - s)
    path.lineTo(cx + s * 0.4, cy - s)
    path.lineTo(cx + s * 0.08, cy - s * 0.1)
    path.close()
    canvas.drawPath(path, stroke=0, fill=1)


def standard_face(rank: str, suit: str) -> CardDrawer:
    """One card of the 52-card deck: corner indices and a large suit."""
    if rank not in STANDARD_RANKS:
        raise ValueError(f"{rank!r} is not a rank of the standard deck")
    if suit not in SUITS:
        raise ValueError(f"{suit!r} is not a suit (spades, hearts, diamonds, clubs)")
    colour = RED if suit in ("hearts", "diamonds") else INK

    def draw(canvas: Canvas, rect: Rect, bleed: float) -> None:
        _framed_face(canvas, rect, bleed, HexColor("#3d4a3d"))
        cx, cy = rect.x + rect.w / 2, rect.y + rect.h / 2
        for turn in (0, 180):
            with saved(canvas):
                canvas.translate(cx, cy)
                canvas.rotate(turn)
                x0 = -rect.w / 2 + mm(BORDER_MM + 5)
                y0 = rect.h / 2 - mm(BORDER_MM + 1.5)
                canvas.setFillColor(colour)
                canvas.setFont("Helvetica-Bold", mm(7))
                canvas.drawCentredString(x0, y0 - mm(6), rank)
                _suit_path(canvas, suit, x0, y0 - mm(10.5), mm(5))
        canvas.setFillColor(colour)
        if rank in ("J", "Q", "K"):
            canvas.setFont("Helvetica-Bold", rect.w * 0.5)
            canvas.drawCentredString(cx, cy - rect.w * 0.18, rank)
            _suit_path(canvas, suit, cx, cy - rect.h * 0.27, mm(9))
        else:
            _suit_path(canvas, suit, cx, cy, rect.w * 0.42)
        _outline(canvas, rect, bleed)

    return draw


def standard_faces() -> list[CardDrawer]:
    """The 52 faces, suit by suit, Ace to King."""
    return [standard_face(rank, suit) for suit in SUITS for rank in STANDARD_RANKS]


def draw_standard_deck(canvas: Canvas, options: Options) -> None:
    draw_cards(canvas, options, standard_faces(), card_back, "Standard deck")
