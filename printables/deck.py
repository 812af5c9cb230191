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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from reportlab.lib.colors import Color, HexColor, white
from reportlab.pdfgen.canvas import Canvas

from companion.rules import cards

from .i18n import N_, Words
from .sheet import (
    BACK_BLEED_MM,
    BAND_MM,
    BLEED_MM,
    INK,
    NOTE_BAND_MM,
    NOTE_LINE_BAND_MM,
    NOTE_REST_SPAN_MM,
    NOTE_SIZE,
    NOTE_SPAN_MM,
    RULER_SPAN_MM,
    SAFE_EDGE_MM,
    SANS,
    SANS_BOLD,
    SOFT,
    Options,
    canvas_words,
    draw_note,
    draw_ruler,
    end_single_sided_sheet,
    fitted_font_size,
    furniture,
    mm,
    saved,
    set_boxes,
    text_width,
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
class Band:
    """A strip of page furniture: its bounding box in points and which way it reads."""

    box: Rect
    vertical: bool

    @property
    def at(self) -> tuple[float, float]:
        return self.box.x, self.box.y


@dataclass(frozen=True)
class SheetLayout:
    """Where the cards, crop marks, ruler, note and label go on a sheet.

    ``slots`` are the cut rectangles of the cards on the page in reading
    order (top row left to right, then the next row); when ``turned`` the
    cards lie on their side (the slot is as wide as a card is tall).
    ``bleed`` is how far each card's art extends past its cut line (0 for the
    edge-to-edge layout).
    """

    page_w: float
    page_h: float
    columns: int
    rows: int
    card_w: float
    card_h: float
    turned: bool
    bleed: float
    slots: tuple[Rect, ...]
    crop_marks: tuple[Segment, ...]
    ruler: Band
    note: Band
    label: Band
    note_rest: Band | None = None
    """The note's second line in a band of its own, where the margins are too
    thin for both lines in one band (``note`` then holds the first line)."""

    @property
    def per_sheet(self) -> int:
        return self.columns * self.rows

    @property
    def block(self) -> Rect:
        """The cut card block (cut lines only, no bleed)."""
        x0 = min(slot.x for slot in self.slots)
        y0 = min(slot.y for slot in self.slots)
        x1 = max(slot.right for slot in self.slots)
        y1 = max(slot.top for slot in self.slots)
        return Rect(x0, y0, x1 - x0, y1 - y0)

    def back_slot(self, index: int, offset_mm: tuple[float, float]) -> Rect:
        """Where the back of the card in slot ``index`` goes on the back page.

        Mirrored about the page's vertical centre line for long-edge duplex,
        then moved by the correction (mm).
        """
        face = self.slots[index]
        return Rect(self.page_w - face.right, face.y, face.w, face.h).moved(
            mm(offset_mm[0]), mm(offset_mm[1])
        )


def _fit(count_max: int, paper: float, pitch: float, need: float) -> int:
    for count in range(count_max, 0, -1):
        if count * pitch + 2 * need <= paper + 1e-6:
            return count
    return 0


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


BAND_CLEARANCE_MM = 0.2
"""Bare paper between a band of furniture and the cards' art."""
END_CLEARANCE_MM = 1.5
"""Bare paper between a band's ends and the crop marks either side."""
LABEL_SIZE = 7.0
LABEL_BAND_MM = LABEL_SIZE * (0.73 + 0.22) / mm(1) + 0.1
"""Height of the sheet label (the font's ascent plus descent)."""


def _choose_grid(options: Options) -> tuple[int, int, bool]:
    """(columns, rows, turned) for the chosen options.

    Edge to edge: always 3 x 3 upright. With bleed: upright or on their side,
    whichever fits more cards with room for crop marks outside the bleed and
    5 mm of bare paper at the edge (8 poker cards on their side on A4). The
    page itself stays portrait, so one duplex setting (long edge) suits every
    page of the kit.
    """
    if not options.bleed:
        return COLUMNS, ROWS, False
    page_w, page_h = options.page_size
    card_w, card_h = (mm(v) for v in options.card_mm)
    bleed = mm(BLEED_MM)
    need = mm(SAFE_EDGE_MM + MARK_GAP_MM + MARK_LENGTH_MM)
    best = (0, 0, False)
    for turned in (False, True):
        slot_w, slot_h = (card_h, card_w) if turned else (card_w, card_h)
        columns = _fit(4, page_w, slot_w + 2 * bleed, need)
        rows = _fit(4, page_h, slot_h + 2 * bleed, need)
        if columns * rows > best[0] * best[1]:
            best = (columns, rows, turned)
    if not best[0] * best[1]:
        raise ValueError("a card does not fit on this paper")
    return best


def sheet_layout(options: Options) -> SheetLayout:
    """Compute the card sheet for the chosen paper, card size and bleed."""
    page_w, page_h = options.page_size
    card_w, card_h = (mm(v) for v in options.card_mm)
    columns, rows, turned = _choose_grid(options)
    slot_w, slot_h = (card_h, card_w) if turned else (card_w, card_h)
    bleed = mm(BLEED_MM) if options.bleed else 0.0
    pitch_x, pitch_y = slot_w + 2 * bleed, slot_h + 2 * bleed
    block_w, block_h = columns * pitch_x, rows * pitch_y
    left = (page_w - block_w) / 2
    bottom = (page_h - block_h) / 2
    top = bottom + block_h
    right = left + block_w
    slots = tuple(
        Rect(left + bleed + col * pitch_x, top - (row + 1) * pitch_y + bleed, slot_w, slot_h)
        for row in range(rows)
        for col in range(columns)
    )
    xs = _cut_lines(left, columns, slot_w, pitch_x, bleed)
    ys = _cut_lines(bottom, rows, slot_h, pitch_y, bleed)
    marks: list[Segment] = []
    safe = mm(SAFE_EDGE_MM)
    margin_y, margin_x = bottom, left
    gap_y = min(mm(MARK_GAP_MM), max(0.0, (margin_y - safe) * 0.25))
    gap_x = min(mm(MARK_GAP_MM), max(0.0, (margin_x - safe) * 0.25))
    reach = float("inf") if options.cut_to_edge else mm(MARK_LENGTH_MM)
    len_y = min(reach, margin_y - safe - gap_y)
    len_x = min(reach, margin_x - safe - gap_x)
    for x in xs:
        marks.append((x, bottom - gap_y, x, bottom - gap_y - len_y))
        marks.append((x, top + gap_y, x, top + gap_y + len_y))
    for y in ys:
        marks.append((left - gap_x, y, left - gap_x - len_x, y))
        marks.append((right + gap_x, y, right + gap_x + len_x, y))
    # Furniture goes in the margins, each piece in a stretch between two
    # crop marks, never closer than BAND_CLEARANCE_MM to the cards' art.
    clearance = mm(BAND_CLEARANCE_MM)
    sides = {
        "bottom": (bottom - safe - clearance, _gaps(xs, left, right)),
        "left": (left - safe - clearance, _gaps(ys, bottom, top)),
        "top": (page_h - top - safe - clearance, _gaps(xs, left, right)),
        "right": (page_w - right - safe - clearance, _gaps(ys, bottom, top)),
    }
    free = {side: [list(gap) for gap in gaps] for side, (_, gaps) in sides.items()}

    def place(length: float, thickness: float, what: str) -> Band:
        ends = mm(END_CLEARANCE_MM)
        for side, (depth, _) in sides.items():
            if depth < thickness:
                continue
            for gap in free[side]:
                if gap[1] - gap[0] < length + 2 * ends:
                    continue
                start = gap[0] + ends
                gap[0] = start + length + ends
                if side == "bottom":
                    return Band(Rect(start, safe, length, thickness), False)
                if side == "top":
                    return Band(Rect(start, page_h - safe - thickness, length, thickness), False)
                if side == "left":
                    return Band(Rect(safe, start, thickness, length), True)
                return Band(Rect(page_w - safe - thickness, start, thickness, length), True)
        raise ValueError(f"no stretch of margin is long enough for the {what}")

    ruler = place(mm(RULER_SPAN_MM), mm(BAND_MM), "calibration ruler")
    # The note's two lines go in two bands: the margins of some sheets (poker
    # cards with bleed on A4) are thinner than the two lines set 1.2 x apart.
    note = place(mm(NOTE_SPAN_MM), mm(NOTE_LINE_BAND_MM), "print at 100% note")
    note_rest = place(mm(NOTE_REST_SPAN_MM), mm(NOTE_LINE_BAND_MM), "print at 100% note")
    label = place(mm(LABEL_SPAN_MM), mm(LABEL_BAND_MM), "sheet label")
    return SheetLayout(
        page_w=page_w,
        page_h=page_h,
        columns=columns,
        rows=rows,
        card_w=card_w,
        card_h=card_h,
        turned=turned,
        bleed=bleed,
        slots=slots,
        crop_marks=tuple(marks),
        ruler=ruler,
        note=note,
        label=label,
        note_rest=note_rest,
    )


LABEL_SPAN_MM = 55.0
"""Room for a sheet label ("Standard deck · faces 6 of 6 · back on next page", 7 pt)."""

CardDrawer = Callable[[Canvas, Rect, float], None]
"""Draws one card side: (canvas, cut rectangle, bleed in points)."""


def sheet_count(cards_total: int, layout: SheetLayout) -> int:
    """Face sheets needed: a count that fills the last sheet adds no page."""
    return math.ceil(cards_total / layout.per_sheet)


def _draw_in_slot(
    canvas: Canvas, layout: SheetLayout, slot: Rect, draw: CardDrawer, *, back: bool = False
) -> None:
    """Draw one card side upright in its slot (turned a quarter if the layout is).

    A turned face lies with its top to the left; after a flip on the long
    edge that edge is on the right of the back page, so a turned back is
    turned the other way, its top to the right (else every back would be
    upside down against its face).
    """
    with saved(canvas):
        if layout.turned and back:
            canvas.translate(slot.x, slot.top)
            canvas.rotate(-90)
            draw(canvas, Rect(0, 0, layout.card_w, layout.card_h), layout.bleed)
        elif layout.turned:
            canvas.translate(slot.right, slot.y)
            canvas.rotate(90)
            draw(canvas, Rect(0, 0, layout.card_w, layout.card_h), layout.bleed)
        else:
            draw(canvas, slot, layout.bleed)


def draw_cards(
    canvas: Canvas,
    options: Options,
    faces: Sequence[CardDrawer],
    label: str,
) -> None:
    """Draw face sheets, each followed by its mirrored back sheet (or, with
    ``options.fold``, one sheet to fold with faces and backs on it)."""
    faces, label = chosen_cards(faces, options, label)
    label = options.tr(label) if not options.cards else label
    if options.fold:
        draw_fold_cards(canvas, options, faces, label)
        return
    layout = sheet_layout(options)
    sheets = sheet_count(len(faces), layout)
    back = ink_saving_back if options.ink_saving else card_back
    for sheet in range(sheets):
        count = _draw_faces_of_sheet(canvas, layout, faces, sheet)
        _draw_marks(canvas, layout)
        _draw_sheet_furniture(
            canvas,
            layout,
            options.tr(
                "%(deck)s · faces %(sheet)s of %(sheets)s · back on next page",
                deck=label,
                sheet=sheet + 1,
                sheets=sheets,
            ),
        )
        trim = _trim(layout.slots[:count])
        set_boxes(canvas, trim, layout.bleed)
        canvas.showPage()
        _draw_backs(canvas, layout, options, count, back)
        backs = [layout.back_slot(index, options.back_offset) for index in range(count)]
        set_boxes(canvas, _trim(backs), mm(BACK_BLEED_MM))
        canvas.showPage()
    set_boxes(canvas, None)


def chosen_cards(
    faces: Sequence[CardDrawer], options: Options, label: str
) -> tuple[Sequence[CardDrawer], str]:
    """The faces to print (``options.cards``, to reprint a few) and the label
    that says which. Raises ``ValueError`` for a card the deck does not have."""
    if not options.cards:
        return faces, label
    beyond = [number for number in options.cards if number > len(faces)]
    if beyond:
        raise ValueError(
            f"the {label} has {len(faces)} cards: there is no card {beyond[0]} "
            "(the proof sheet numbers them)"
        )
    tr = options.tr
    return [faces[number - 1] for number in options.cards], tr(
        "%(deck)s, %(cards)s", deck=tr(label), cards=card_ranges(options.cards, tr)
    )


def card_ranges(numbers: Sequence[int], tr: Words | None = None) -> str:
    """``(3, 4, 5, 12)`` → ``"cards 3-5, 12"`` (in ``tr``'s language; English
    for file names)."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    text = ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)
    if tr is None:
        return ("card " if len(numbers) == 1 else "cards ") + text
    return tr.n("card %(cards)s", "cards %(cards)s", len(numbers), cards=text)


FOLD_GAP_MM = 8.0
"""Bare paper between the fold and the cards on either side of it."""


def fold_layout(options: Options) -> tuple[SheetLayout, tuple[Rect, ...], float]:
    """The fold-in-half sheet: (layout of the faces on the top half, the backs'
    slots on the bottom half, the fold line's height in points).

    A row of cards (3 poker cards fit across A4 and Letter) sits above the
    page's middle, their backs below it, each the reflection of its face in
    the fold line: folded with the printed sides out, each back lies behind
    its face whatever the printer's duplex (it has none).
    """
    page_w, page_h = options.page_size
    card_w, card_h = (mm(v) for v in options.card_mm)
    fold = page_h / 2
    gap = mm(FOLD_GAP_MM)
    left = (page_w - COLUMNS * card_w) / 2
    faces = tuple(Rect(left + i * card_w, fold + gap, card_w, card_h) for i in range(COLUMNS))
    backs = tuple(Rect(face.x, 2 * fold - face.top, card_w, card_h) for face in faces)
    safe = mm(SAFE_EDGE_MM)
    reach = float("inf") if options.cut_to_edge else mm(MARK_LENGTH_MM)
    mark_gap = mm(MARK_GAP_MM)
    xs = [left + i * card_w for i in range(COLUMNS + 1)]
    top = faces[0].top
    # Marks round the faces only: the cut goes through both layers from the
    # face side (the backs' ground runs on past their cards, for a fold a
    # little off).
    marks: list[Segment] = []
    for x in xs:
        marks.append((x, top + mark_gap, x, min(top + mark_gap + reach, page_h - safe)))
    for y in (faces[0].y, top):
        marks.append((left - mark_gap, y, max(left - mark_gap - reach, safe), y))
        right = left + COLUMNS * card_w
        marks.append((right + mark_gap, y, min(right + mark_gap + reach, page_w - safe), y))
    # Ruler, note and label: in the top margin, one between each pair of cut lines.
    # (The top margin is deep: the note keeps its two lines in one band.)
    spans = (mm(RULER_SPAN_MM), mm(NOTE_SPAN_MM), mm(LABEL_SPAN_MM))
    depths = (mm(BAND_MM), mm(NOTE_BAND_MM), mm(LABEL_BAND_MM))
    bands = [
        Band(Rect(x + mm(END_CLEARANCE_MM), page_h - safe - depth, span, depth), False)
        for x, span, depth in zip(xs, spans, depths, strict=False)
    ]
    label = bands[2]
    layout = SheetLayout(
        page_w=page_w,
        page_h=page_h,
        columns=COLUMNS,
        rows=1,
        card_w=card_w,
        card_h=card_h,
        turned=False,
        bleed=0.0,
        slots=faces,
        crop_marks=tuple(marks),
        ruler=bands[0],
        note=bands[1],
        label=label,
    )
    return layout, backs, fold


FOLD_NOTE = N_("fold here, printed sides out: each back lies behind its face; glue, then cut")


def _draw_faces_of_sheet(
    canvas: Canvas, layout: SheetLayout, faces: Sequence[CardDrawer], sheet: int
) -> int:
    """Draws the faces that fall on sheet number ``sheet``, each in its slot;
    returns how many there are (the last sheet may hold fewer)."""
    chunk = faces[sheet * layout.per_sheet : (sheet + 1) * layout.per_sheet]
    for index, face in enumerate(chunk):
        _draw_in_slot(canvas, layout, layout.slots[index], face)
    return len(chunk)


def draw_fold_cards(
    canvas: Canvas, options: Options, faces: Sequence[CardDrawer], label: str
) -> None:
    """Fold-in-half sheets, single-sided: faces above the fold, backs below,
    turned half round (so that, folded, they stand the same way as their
    faces). The back correction has nothing to do here and is not used."""
    layout, backs, fold = fold_layout(options)
    sheets = sheet_count(len(faces), layout)
    back = ink_saving_back if options.ink_saving else card_back
    for sheet in range(sheets):
        count = _draw_faces_of_sheet(canvas, layout, faces, sheet)
        with saved(canvas):
            if not options.ink_saving:
                canvas.setFillColor(BACK_DARK)
                for slot in backs[:count]:
                    ground = slot.grown(mm(FOLD_GAP_MM / 2))
                    canvas.rect(ground.x, ground.y, ground.w, ground.h, stroke=0, fill=1)
            for slot in backs[:count]:
                with saved(canvas):
                    canvas.translate(slot.right, slot.top)
                    canvas.rotate(180)
                    back(canvas, Rect(0, 0, layout.card_w, layout.card_h), 0.0)
        _draw_marks(canvas, layout)
        with furniture(canvas):
            canvas.setDash(3, 2)
            canvas.setStrokeColor(SOFT)
            canvas.setLineWidth(0.5)
            safe = mm(SAFE_EDGE_MM)
            canvas.line(safe, fold, layout.page_w - safe, fold)
            canvas.setFillColor(SOFT)
            canvas.setFont(SANS, LABEL_SIZE)
            canvas.drawCentredString(layout.page_w / 2, fold + mm(1.5), options.tr(FOLD_NOTE))
        _draw_sheet_furniture(
            canvas,
            layout,
            options.tr(
                "%(deck)s · fold sheet %(sheet)s of %(sheets)s",
                deck=label,
                sheet=sheet + 1,
                sheets=sheets,
            ),
        )
        trim = _trim([*layout.slots[:count], *backs[:count]])
        set_boxes(canvas, trim)
        end_single_sided_sheet(canvas)
    set_boxes(canvas, None)


def _trim(slots: Sequence[Rect]) -> tuple[float, float, float, float]:
    """The TrimBox of a card sheet: round the cut lines of the cards on it."""
    return (
        min(slot.x for slot in slots),
        min(slot.y for slot in slots),
        max(slot.right for slot in slots),
        max(slot.top for slot in slots),
    )


def back_cut_mm(options: Options) -> float:
    """How far (mm) the chosen correction pushes a back past the edge a home
    printer can reach (:data:`~printables.sheet.SAFE_EDGE_MM`), where the back
    page is cut off: a white strip that wide on an outer card's back. 0 when
    every back stays whole."""
    layout = sheet_layout(options)
    safe = mm(SAFE_EDGE_MM)
    worst = 0.0
    for index in range(layout.per_sheet):
        slot = layout.back_slot(index, options.back_offset)
        worst = max(
            worst,
            safe - slot.x,
            slot.right - (layout.page_w - safe),
            safe - slot.y,
            slot.top - (layout.page_h - safe),
        )
    return round(worst / mm(1), 3)


def _signed(value: float) -> str:
    return f"{value:+g}" if value else "0"


def back_correction_warning(options: Options, tr: Words | None = None) -> str | None:
    """What to tell the person printing when the correction cuts into the
    backs (:func:`back_cut_mm`), else ``None``."""
    cut = back_cut_mm(options)
    if cut <= 0:
        return None
    x, y = options.back_offset
    tr = tr or Words("en")
    return tr(
        "a back correction of x = %(x)s mm, y = %(y)s mm moves the outer cards' backs "
        "%(cut)s mm past the edge a home printer can reach, so they will be cut with a "
        "white strip that wide. Use the 3 mm bleed layout (more paper round the cards), "
        "or print the duplex test sheet again to check the reading.",
        x=_signed(x),
        y=_signed(y),
        cut=format(cut, ".2f"),
    )


def _draw_backs(
    canvas: Canvas, layout: SheetLayout, options: Options, count: int, back: CardDrawer
) -> None:
    """The back page: every back's ground runs BACK_BLEED_MM past its cut
    line (so a small duplex shift shows more ground, never white paper),
    then each back's pattern. Nothing else is printed on a back page."""
    with saved(canvas):
        # A large correction must not push ink into the edge the printer
        # cannot reach: cut the backs off at the safe border.
        safe = mm(SAFE_EDGE_MM)
        border = canvas.beginPath()
        border.rect(safe, safe, layout.page_w - 2 * safe, layout.page_h - 2 * safe)
        canvas.clipPath(border, stroke=0, fill=0)
        slots = [layout.back_slot(index, options.back_offset) for index in range(count)]
        if not options.ink_saving:
            canvas.setFillColor(BACK_DARK)
            for slot in slots:
                ground = slot.grown(mm(BACK_BLEED_MM))
                canvas.rect(ground.x, ground.y, ground.w, ground.h, stroke=0, fill=1)
        for slot in slots:
            _draw_in_slot(canvas, layout, slot, back, back=True)


def _draw_marks(canvas: Canvas, layout: SheetLayout) -> None:
    with furniture(canvas):
        canvas.setStrokeColor(INK)
        canvas.setLineWidth(0.5)
        for x1, y1, x2, y2 in layout.crop_marks:
            canvas.line(x1, y1, x2, y2)


def _draw_sheet_furniture(canvas: Canvas, layout: SheetLayout, label: str) -> None:
    draw_ruler(canvas, *layout.ruler.at, vertical=layout.ruler.vertical)
    if layout.note_rest is None:
        draw_note(canvas, *layout.note.at, vertical=layout.note.vertical)
    else:
        draw_note(canvas, *layout.note.at, vertical=layout.note.vertical, line=0)
        rest = layout.note_rest
        draw_note(canvas, *rest.at, vertical=rest.vertical, line=1)
    with furniture(canvas):
        box = layout.label.box
        canvas.setFillColor(SOFT)
        room = box.h if layout.label.vertical else box.w
        canvas.setFont(SANS, fitted_font_size(label, False, LABEL_SIZE, room))
        descent = LABEL_SIZE * 0.22
        if layout.label.vertical:
            canvas.translate(box.right - descent, box.y)
            canvas.rotate(90)
        else:
            canvas.translate(box.x, box.y + descent)
        canvas.drawString(0, 0, label)


# --- The Pairs deck ---------------------------------------------------------------

RANK_COLOURS: dict[int, str] = {
    1: "#7a4a8c",  # plum
    2: "#2f6f8f",  # slate blue
    3: "#2e7d5b",  # pine
    4: "#6b8e23",  # moss
    5: "#a27509",  # mustard (darker than goldenrod: 3.8:1 on the cream, not 3.0)
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


_FULL_BLEED: ContextVar[bool] = ContextVar("leafpile_full_bleed_faces", default=False)


@contextmanager
def full_bleed_faces() -> Iterator[None]:
    """Faces drawn inside this block have no frame: the pale face runs past
    the cut line to the bleed's edge, and the card's colour is carried by its
    ranks, leaves and dots. A print service's cutter drifts by a millimetre or
    so; a 2.2 mm frame then shows 1.2 mm on one side and 3.2 mm on the
    other, while a face with nothing near its edge looks the same however
    it is cut (docs/printing.md, "Full-bleed faces")."""
    token = _FULL_BLEED.set(True)
    try:
        yield
    finally:
        _FULL_BLEED.reset(token)


def _framed_face(canvas: Canvas, rect: Rect, bleed: float, colour: Color) -> None:
    """Coloured border (into the bleed) around a pale card; no border at all
    inside :func:`full_bleed_faces`."""
    if _FULL_BLEED.get():
        _fill_card(canvas, rect, bleed, FACE_PAPER)
        return
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


TURNABLE = ("6", "9")
"""Ranks that read as each other upside down: underlined, as on playing cards."""


def _underline_if_turnable(
    canvas: Canvas, text: str, cx: float, baseline: float, size: float
) -> None:
    """A bar under a 6 or a 9 (in the current fill colour)."""
    if text not in TURNABLE:
        return
    width = text_width(text, True, size)
    thickness = max(0.6, size * 0.07)
    canvas.rect(cx - width / 2, baseline - size * 0.16, width, thickness, stroke=0, fill=1)


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
        canvas.setFont(SANS_BOLD, size)
        canvas.drawCentredString(cx, rect.y + rect.h * 0.5 - size * 0.36, text)
        _underline_if_turnable(canvas, text, cx, rect.y + rect.h * 0.5 - size * 0.36, size)
        # Corners: top-left upright, bottom-right upside down.
        corner = mm(7.5)
        for turn in (0, 180):
            with saved(canvas):
                canvas.translate(cx, rect.y + rect.h / 2)
                canvas.rotate(turn)
                x0, y0 = -rect.w / 2 + mm(BORDER_MM + 1.8), rect.h / 2 - mm(BORDER_MM + 1.2)
                canvas.setFillColor(INK)
                canvas.setFont(SANS_BOLD, corner)
                width = canvas.stringWidth(text, SANS_BOLD, corner)
                canvas.drawCentredString(x0 + max(width, mm(4)) / 2, y0 - corner * 0.8, text)
                _underline_if_turnable(
                    canvas, text, x0 + max(width, mm(4)) / 2, y0 - corner * 0.8, corner
                )
                _leaf(canvas, x0 + max(width, mm(4)) / 2, y0 - corner - mm(3), mm(4.5), colour, 0)
        # How many copies: a small triangle of dots above the bottom border.
        _copies_mark(canvas, cx, rect.y + rect.h * 0.2, copies, colour)
        canvas.setFillColor(SOFT)
        canvas.setFont(SANS, NOTE_SIZE)
        canvas.drawCentredString(
            cx,
            rect.y + mm(BORDER_MM + 2.2),
            canvas_words(canvas).n(
                "%(count)s copy in the deck", "%(count)s copies in the deck", copies
            ),
        )
        _outline(canvas, rect, bleed)

    return draw


def cut_card_face(canvas: Canvas, rect: Rect, bleed: float) -> None:
    """The blank cut card: plain, with a quiet note of what it is for."""
    _framed_face(canvas, rect, bleed, HexColor("#e9e2d4"))
    canvas.setFillColor(SOFT)
    canvas.setFont(SANS_BOLD, 8)
    cx = rect.x + rect.w / 2
    tr = canvas_words(canvas)
    canvas.drawCentredString(cx, rect.y + rect.h / 2 + mm(1), tr("cut card"))
    canvas.setFont(SANS, NOTE_SIZE)
    canvas.drawCentredString(cx, rect.y + rect.h / 2 - mm(3.5), tr("keep it under the deck"))
    _outline(canvas, rect, bleed)


PATTERN_INSET_MM = 4.0
"""The back's pattern stops this far inside the cut line: the outer band is
plain ground, so a duplex shift moves no pattern onto or off one card more
than another and every back looks the same after cutting."""


def _back_form(canvas: Canvas, rect: Rect, style: str) -> str:
    """The back's pattern as a PDF form, drawn once per card size and style
    and reused for every back (smaller, faster files)."""
    name = f"back-{style}-{rect.w:.2f}-{rect.h:.2f}"
    made: set[str] = canvas.__dict__.setdefault("_leafpile_forms", set())
    if name not in made:
        canvas.beginForm(name, 0, 0, rect.w, rect.h)
        _back_pattern(canvas, rect.w, rect.h, light=style == "light")
        canvas.endForm()
        made.add(name)
    return name


def card_back(canvas: Canvas, rect: Rect, bleed: float) -> None:
    """The shared back: a lattice of small leaves on a dark ground, the name.

    The ground itself is painted by the sheet (past the cut line, see
    :func:`_draw_backs`); this draws the pattern inside its inset frame.
    """
    name = _back_form(canvas, rect, "dark")
    with saved(canvas):
        canvas.translate(rect.x, rect.y)
        canvas.doForm(name)


def ink_saving_back(canvas: Canvas, rect: Rect, bleed: float) -> None:
    """The ink-saving back: outlined leaves and the name on bare paper."""
    name = _back_form(canvas, rect, "light")
    with saved(canvas):
        canvas.translate(rect.x, rect.y)
        canvas.doForm(name)


def _back_pattern(canvas: Canvas, width: float, height: float, *, light: bool) -> None:
    inset = mm(PATTERN_INSET_MM)
    leaf_colour = BACK_LIGHT if not light else HexColor("#e3c6a4")
    with saved(canvas):
        clip = canvas.beginPath()
        clip.roundRect(inset, inset, width - 2 * inset, height - 2 * inset, mm(2.5))
        canvas.clipPath(clip, stroke=0, fill=0)
        step = mm(9)
        cx, cy = width / 2, height / 2
        columns = int(width / step / 2) + 2
        rows = int(height / (step * 0.8) / 2) + 2
        for i in range(-columns, columns + 1):
            for j in range(-rows, rows + 1):
                x = cx + i * step + (step / 2 if j % 2 else 0)
                y = cy + j * step * 0.8
                _leaf(canvas, x, y, mm(4.2), leaf_colour, 35 if (i + j) % 2 else -35)
    canvas.setStrokeColor(BACK_LIGHT)
    canvas.setLineWidth(0.6)
    canvas.roundRect(inset, inset, width - 2 * inset, height - 2 * inset, mm(2.5), stroke=1, fill=0)
    cx, cy = width / 2, height / 2
    canvas.setFillColor(white if light else BACK_DARK)
    canvas.setStrokeColor(BACK_LIGHT)
    canvas.setLineWidth(1.2)
    canvas.roundRect(cx - mm(22), cy - mm(7), mm(44), mm(14), mm(3), stroke=1, fill=1)
    canvas.setFillColor(BACK_DARK if light else HexColor("#f3d9b1"))
    canvas.setFont(SANS_BOLD, 15)
    canvas.drawCentredString(cx, cy - mm(2), "Leafpile")


def pairs_faces() -> list[CardDrawer]:
    """The 55 faces in deck order (from ``cards.PAIRS_DECK``), then the cut card."""
    return [pairs_face(rank) for rank in cards.PAIRS_DECK] + [cut_card_face]


def draw_pairs_deck(canvas: Canvas, options: Options) -> None:
    draw_cards(canvas, options, pairs_faces(), N_("Pairs deck"))


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
                canvas.setFont(SANS_BOLD, mm(7))
                canvas.drawCentredString(x0, y0 - mm(6), rank)
                _underline_if_turnable(canvas, rank, x0, y0 - mm(6), mm(7))
                _suit_path(canvas, suit, x0, y0 - mm(10.5), mm(5))
        canvas.setFillColor(colour)
        if rank in ("J", "Q", "K"):
            canvas.setFont(SANS_BOLD, rect.w * 0.5)
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
    draw_cards(canvas, options, standard_faces(), N_("Standard deck"))
