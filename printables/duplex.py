"""The duplex test sheet: one print shows the back correction to type.

The front carries three fine crosses. The back carries, behind each cross
(mirrored for a long-edge flip and moved by the correction the sheet was
printed with), an x scale and a y scale whose numbers are corrections in
millimetres. Held against a window, the front's cross shows through on the
back: the numbers its lines cross are what to add to the correction the
sheet was printed with. Why the numbers are the correction, sign included:
a scale mark labelled ``v`` is drawn ``v`` mm from where the cross should
be; if the printer moves the back by ``d``, the cross meets the mark where
``v + d = 0``, so the mark it meets reads ``-d``, exactly the move that
puts the backs back in place.
"""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from .i18n import N_
from .sheet import (
    INK,
    MAX_BACK_OFFSET_MM,
    SAFE_EDGE_MM,
    SANS,
    SANS_BOLD,
    SOFT,
    Options,
    draw_footer,
    mm,
    saved,
    text_width,
    wrapped,
)

CROSS_MM = 34.0
"""Length of a front cross's lines: long enough to reach the scales even
when the back is off by the most the scales read."""
SCALE_MM = MAX_BACK_OFFSET_MM
"""The scales read from -SCALE_MM to +SCALE_MM."""

INSTRUCTIONS = (
    N_("Print this sheet double-sided, flip on the long edge, at 100% (actual size)."),
    N_("Hold it against a window with the back (the side with the scales) towards you."),
    N_(
        "The crosses on this side show through. Where a cross's upright line meets the x "
        "scale, read x; where its level line meets the y scale, read y (in mm, sign included)."
    ),
    N_(
        "New correction = the correction printed below + your reading. Type it on the Print "
        "page (or --back-offset X,Y) and print this sheet again: the crosses should meet 0 "
        "and 0."
    ),
)
"""The steps, numbered as printed; each wraps to the sheet's width."""


def targets(options: Options) -> list[tuple[float, float]]:
    """Where the front's crosses are (points): near two corners and the middle,
    where the outer cards and the centre card of a sheet lie."""
    width, height = options.page_size
    return [
        (width / 2, height / 2),
        (mm(40), mm(60)),
        (width - mm(40), height - mm(95)),
    ]


def back_zero(options: Options, target: tuple[float, float]) -> tuple[float, float]:
    """Where the scales' zero for ``target`` is drawn on the back page: the
    mirror image for a long-edge flip, moved by the printed correction."""
    width, _ = options.page_size
    dx, dy = options.back_offset
    return width - target[0] + mm(dx), target[1] + mm(dy)


def draw_duplex_test(canvas: Canvas, options: Options) -> None:
    width, height = options.page_size
    dx, dy = options.back_offset
    left = mm(SAFE_EDGE_MM + 3)
    canvas.setFillColor(INK)
    canvas.setFont(SANS_BOLD, 12)
    tr = options.tr
    canvas.drawString(left, height - mm(SAFE_EDGE_MM + 6), tr("Duplex test sheet"))
    canvas.setFont(SANS, 8)
    y = height - mm(SAFE_EDGE_MM + 12)
    indent = text_width("4. ", False, 8)
    room = width - 2 * left - indent
    for number, step in enumerate(INSTRUCTIONS, start=1):
        canvas.drawString(left, y, f"{number}.")
        for line in wrapped(tr(step), room, 8):
            canvas.drawString(left + indent, y, line)
            y -= 11
    canvas.setFont(SANS_BOLD, 8)
    canvas.drawString(
        left,
        y - 4,
        tr(
            "Printed with back correction x = %(x)s mm, y = %(y)s mm.",
            x=format(dx, "+.1f"),
            y=format(dy, "+.1f"),
        ),
    )
    arm = mm(CROSS_MM / 2)
    for x, y in targets(options):
        with saved(canvas):
            canvas.setStrokeColor(INK)
            canvas.setLineWidth(0.35)
            canvas.line(x - arm, y, x + arm, y)
            canvas.line(x, y - arm, x, y + arm)
            canvas.circle(x, y, mm(1.5), stroke=1, fill=0)
    draw_footer(canvas, options, tr("Duplex test · front"))
    canvas.showPage()
    for target in targets(options):
        _scales(canvas, *back_zero(options, target))
    canvas.showPage()


SCALE_GAP_MM = 6.0
"""The x scale runs this far below a cross's zero, the y scale this far to
its right, so that the two never cross each other."""

SCALE_TYPE = 7.0
"""The scales' numbers: read through a backlit sheet, so no smaller than the
kit's smallest type for instructions."""
LANES = 4
"""The whole-mm numbers take turns in this many rows (x) or columns (y), each
joined to its tick by a leader: at 7 pt a signed number is 2.8 mm wide, too
wide for one row of numbers 1 mm apart; four lanes leave 4 mm between
neighbours in a lane."""
LANE_DEPTH_MM = (2.9, 3.2)
"""How far apart the lanes are: (x scale rows, y scale columns). The rows'
numbers overlap their neighbours' across, so the rows are 1.15 x 7 pt apart
at least (8.2 pt), like lines of text."""


def _label(value: float) -> str:
    return f"{value:+.0f}" if value else "0"


def _scales(canvas: Canvas, x: float, y: float) -> None:
    """The x scale (level, below) and the y scale (upright, right) for a cross
    whose zero is (x, y): signed millimetres, a tick every 0.5 mm and a
    number every 1 mm, the numbers in :data:`LANES` lanes joined to their
    ticks by leaders."""
    cap = SCALE_TYPE * 0.72
    row, column = (mm(depth) for depth in LANE_DEPTH_MM)
    with saved(canvas):
        canvas.setStrokeColor(INK)
        canvas.setFillColor(INK)
        x_line = y - mm(SCALE_GAP_MM)
        y_line = x + mm(SCALE_GAP_MM)
        canvas.setLineWidth(0.3)
        canvas.line(x - mm(SCALE_MM), x_line, x + mm(SCALE_MM), x_line)
        canvas.line(y_line, y - mm(SCALE_MM), y_line, y + mm(SCALE_MM))
        canvas.setFont(SANS_BOLD, SCALE_TYPE)
        span = round(SCALE_MM * 2)
        for step in range(-span, span + 1):
            value = step / 2
            if step % 2:
                canvas.setLineWidth(0.2)
                canvas.line(x + mm(value), x_line, x + mm(value), x_line - mm(0.9))
                canvas.line(y_line, y + mm(value), y_line + mm(0.9), y + mm(value))
                continue
            lane = int(value) % LANES
            text = _label(value)
            # x: the tick runs down to its number's row.
            baseline = x_line - mm(1.9) - lane * row - cap
            canvas.setLineWidth(0.3 if lane == 0 else 0.2)
            canvas.line(x + mm(value), x_line, x + mm(value), baseline + cap + mm(0.35))
            canvas.drawCentredString(x + mm(value), baseline, text)
            # y: the tick runs right to its number's column.
            left = y_line + mm(1.9) + lane * column
            canvas.line(y_line, y + mm(value), left - mm(0.35), y + mm(value))
            canvas.drawString(left, y + mm(value) - cap / 2, text)
        canvas.setFillColor(SOFT)
        canvas.setFont(SANS_BOLD, 9)
        canvas.drawRightString(x - mm(SCALE_MM + 1.5), x_line - mm(1.5), "x")
        canvas.drawCentredString(y_line, y + mm(SCALE_MM + 1.5), "y")
