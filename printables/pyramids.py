"""Pyramid nets for Autumn Ash: 10 colours x 2 trios, to cut, fold and glue.

A Looney pyramid is hollow and open at the bottom (so pieces can stack), so
its net is the four side faces fanned around the apex plus one glue tab. The
sizes are the real ones (base x height, :data:`SIZES`); the net's numbers
follow from them (:func:`net_dimensions`). Each face carries the size's pips
(1, 2 or 3) near its base, a fill of the colour, a hatch that tells the
colours apart on a black-and-white printer, and the colour's name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from reportlab.lib.colors import Color, HexColor
from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth
from reportlab.pdfgen.canvas import Canvas

from companion.rules import autumn_ash

from .i18n import ENGLISH, Words, colour_name
from .sheet import (
    FOOTER_TOP_MM,
    INK,
    NOTE_SIZE,
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

SIZES: dict[str, tuple[float, float, int]] = {
    "small": (14.29, 25.40, autumn_ash.PAWN),
    "medium": (19.84, 34.93, autumn_ash.DRONE),
    "large": (25.40, 44.45, autumn_ash.QUEEN),
}
"""Size → (base, height) in mm and pips per face."""

TRIOS_PRINTED = 2
"""Two trios of every colour (the game sets one green and one clear aside)."""

GAP_MM = 1.6
"""Bare paper between two nets."""

GLUE_TAB_MM = 5.0
"""The narrowest glue tab: anything smaller is too fiddly to fold and glue."""


@dataclass(frozen=True)
class NetDimensions:
    """A square pyramid's side faces, unfolded (mm and radians).

    ``edge`` is a side edge (apex to a base corner), ``slant`` the height of
    a face triangle, ``apex_angle`` the angle of a face at the apex.
    """

    base: float
    height: float
    edge: float
    slant: float
    apex_angle: float
    pips: int


def net_dimensions(size: str) -> NetDimensions:
    """The unfolded faces of a pyramid of ``size`` (small, medium, large).

    >>> round(net_dimensions("large").edge, 2)
    47.94

    Raises ``ValueError`` naming the size when it is not one of :data:`SIZES`.
    """
    if size not in SIZES:
        raise ValueError(f"unknown pyramid size {size!r}: small, medium or large")
    base, height, pips = SIZES[size]
    half = base / 2
    slant = math.hypot(height, half)
    edge = math.hypot(slant, half)
    return NetDimensions(base, height, edge, slant, 2 * math.asin(half / edge), pips)


@dataclass(frozen=True)
class ColourStyle:
    fill: str
    ink: str  # pips, hatch and label
    hatch: str  # "vertical", "horizontal", "slash", "backslash", "dots", "grid", "cross", ""


STYLES: dict[str, ColourStyle] = {
    "green": ColourStyle("#3f9a3c", "#071d06", "vertical"),
    "yellow": ColourStyle("#f4d23a", "#5a4a00", "horizontal"),
    "red": ColourStyle("#cc2b24", "#ffffff", "slash"),
    "blue": ColourStyle("#2450b8", "#dfe7ff", "backslash"),
    "black": ColourStyle("#1e1e1e", "#f0f0f0", ""),
    "clear": ColourStyle("#f2f2f2", "#6a6a6a", "dots"),
    "white": ColourStyle("#ffffff", "#444444", ""),
    "orange": ColourStyle("#f28c1e", "#4a2500", "grid"),
    "cyan": ColourStyle("#35c0d6", "#00363d", "cross"),
    "purple": ColourStyle("#6f3a9c", "#efe2fb", "dots"),
}


Point = tuple[float, float]


@dataclass(frozen=True)
class PlacedNet:
    """One net on a page: colour, size, and its outline points (points)."""

    colour: str
    size: str
    apex: Point
    corners: tuple[Point, ...]  # the five base corners P0..P4 around the fan
    tab: tuple[Point, ...]  # the glue tab's outer points, from P4 back to the apex

    @property
    def faces(self) -> list[tuple[Point, Point, Point]]:
        return [(self.apex, self.corners[i], self.corners[i + 1]) for i in range(4)]

    @property
    def outline(self) -> list[Point]:
        return [self.apex, *self.corners, *self.tab]


def _net_shape(size: str, upright: bool) -> tuple[Point, tuple[Point, ...], tuple[Point, ...]]:
    """Apex, corners and tab (in points) of a net with its apex at the origin.

    ``upright``: the fan opens downwards from the apex (apex on top);
    otherwise it is turned half a turn.
    """
    dims = net_dimensions(size)
    edge = mm(dims.edge)
    alpha = dims.apex_angle
    start = -math.pi / 2 - 2 * alpha
    corners = tuple(
        (edge * math.cos(start + k * alpha), edge * math.sin(start + k * alpha)) for k in range(5)
    )
    # Glue tab on the free edge apex-P4: a trapezoid folded under face 1.
    width = mm(max(GLUE_TAB_MM, dims.base * 0.25))
    p4 = corners[4]
    length = math.hypot(*p4)
    ux, uy = p4[0] / length, p4[1] / length
    nx, ny = uy, -ux  # outward normal (away from the faces)
    if nx * (corners[3][0] - p4[0]) + ny * (corners[3][1] - p4[1]) > 0:
        nx, ny = -nx, -ny
    inset = width * 1.1
    tab: tuple[Point, ...] = (
        (p4[0] - ux * inset + nx * width, p4[1] - uy * inset + ny * width),
        (ux * inset + nx * width, uy * inset + ny * width),
    )
    if not upright:
        corners = tuple((-x, -y) for x, y in corners)
        tab = tuple((-x, -y) for x, y in tab)
    return (0.0, 0.0), corners, tab


TURN_DEGREES: dict[str, float] = {"large": 30.0, "medium": 35.0, "small": 325.0}
"""How far each size's net is turned on the sheet. A search over turns in 5
degree steps (with glue tabs at least :data:`GLUE_TAB_MM` wide) found these
pack the most nets on both papers."""


def _turned_shape(size: str) -> tuple[Point, tuple[Point, ...], tuple[Point, ...]]:
    """The net of ``size`` turned by :data:`TURN_DEGREES` round its apex."""
    apex, corners, tab = _net_shape(size, True)
    angle = math.radians(TURN_DEGREES[size])
    cos, sin = math.cos(angle), math.sin(angle)

    def turn(points: Sequence[Point]) -> tuple[Point, ...]:
        return tuple((x * cos - y * sin, x * sin + y * cos) for x, y in points)

    return apex, turn(corners), turn(tab)


def _bbox(points: Sequence[Point]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _segment_distance(a: Point, b: Point, c: Point, d: Point) -> float:
    def cross(o: Point, p: Point, q: Point) -> float:
        return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])

    d1, d2 = cross(a, b, c), cross(a, b, d)
    d3, d4 = cross(c, d, a), cross(c, d, b)
    if ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)):
        return 0.0

    def point_segment(p: Point, s: Point, t: Point) -> float:
        dx, dy = t[0] - s[0], t[1] - s[1]
        length2 = dx * dx + dy * dy
        u = (
            0.0
            if length2 == 0
            else max(0.0, min(1.0, ((p[0] - s[0]) * dx + (p[1] - s[1]) * dy) / length2))
        )
        return math.hypot(p[0] - s[0] - u * dx, p[1] - s[1] - u * dy)

    return min(
        point_segment(a, c, d),
        point_segment(b, c, d),
        point_segment(c, a, b),
        point_segment(d, a, b),
    )


def _inside(point: Point, polygon: Sequence[Point]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _apart(a: Sequence[Point], b: Sequence[Point], gap: float) -> bool:
    """True when polygons ``a`` and ``b`` are at least ``gap`` apart."""
    if _inside(a[0], b) or _inside(b[0], a):
        return False
    edges_a = list(zip(a, [*a[1:], a[0]], strict=True))
    edges_b = list(zip(b, [*b[1:], b[0]], strict=True))
    return all(_segment_distance(p, q, r, s) >= gap for p, q in edges_a for r, s in edges_b)


def _shifted(points: Sequence[Point], dx: float, dy: float) -> list[Point]:
    return [(x + dx, y + dy) for x, y in points]


def _least(fits: Callable[[float], bool], low: float, high: float) -> float:
    """The smallest value in [low, high] for which ``fits(value)`` holds (bisection)."""
    for _ in range(30):
        mid = (low + high) / 2
        if fits(mid):
            high = mid
        else:
            low = mid
    return high


def _spacing(size: str) -> tuple[float, float]:
    """(column pitch, row pitch) in points for nets of one size in a grid.

    Neighbours in a row sit :data:`GAP_MM` apart; the next row comes up
    until it is :data:`GAP_MM` from the three nets above it.
    """
    gap = mm(GAP_MM)
    apex, corners, tab = _turned_shape(size)
    shape = [apex, *corners, *tab]
    x0, y0, x1, y1 = _bbox(shape)
    width, height = x1 - x0, y1 - y0
    pitch_x = _least(lambda dx: _apart(shape, _shifted(shape, dx, 0), gap), 0, width + gap)

    def row_fits(dy: float) -> bool:
        below = [_shifted(shape, dx, -dy) for dx in (-pitch_x, 0.0, pitch_x)]
        return all(_apart(shape, other, gap) for other in below)

    pitch_y = _least(row_fits, 0, height + gap)
    return pitch_x, pitch_y


def _pack(
    items: Sequence[tuple[str, str]], left: float, right: float, top: float, bottom: float
) -> Iterator[list[PlacedNet]]:
    """Place nets page by page, a row at a time, and yield one list per page.

    Each row holds nets of one size. Down a page, the next row is of the
    largest size still to place whose row fits in the height left: rows of one
    size interlock (:func:`_spacing`); a row of another size starts
    :data:`GAP_MM` under the lowest point so far. So the strip a big size
    leaves at the foot of a page takes a row of smaller nets instead of
    staying bare (the kit's 60 nets fit 3 sheets of A4 or of Letter).
    """
    gap = mm(GAP_MM)
    queues: dict[str, list[str]] = {}
    for colour, size in items:
        queues.setdefault(size, []).append(colour)
    shapes = {size: _turned_shape(size) for size in queues}
    boxes = {size: _bbox([shape[0], *shape[1], *shape[2]]) for size, shape in shapes.items()}
    pitches = {size: _spacing(size) for size in queues}
    for size, (x0, _, x1, _) in boxes.items():
        if x1 - x0 > right - left or boxes[size][3] - boxes[size][1] > top - bottom:
            raise ValueError("a pyramid net does not fit on this paper")
    while any(queues.values()):
        page: list[PlacedNet] = []
        last: tuple[str, float] | None = None  # (size, top of its row's origin)
        lowest = top + gap
        while True:
            row = None
            for size, colours in queues.items():
                if not colours:
                    continue
                x0, y0, x1, y1 = boxes[size]
                if last is not None and last[0] == size:
                    dy = last[1] - pitches[size][1]
                else:
                    dy = lowest - gap - y1
                if dy + y0 >= bottom:
                    row = (size, dy)
                    break
            if row is None:
                break
            size, dy = row
            apex, corners, tab = shapes[size]
            x0, y0, x1, _ = boxes[size]
            dx = left - x0
            queue = queues[size]
            while queue and dx + x1 <= right:
                page.append(
                    PlacedNet(
                        queue.pop(0),
                        size,
                        (apex[0] + dx, apex[1] + dy),
                        tuple(_shifted(corners, dx, dy)),
                        tuple(_shifted(tab, dx, dy)),
                    )
                )
                dx += pitches[size][0]
            lowest = min(lowest, dy + y0)
            last = (size, dy)
        yield page


def pieces() -> list[tuple[str, str]]:
    """Every net to print, largest first: (colour, size), colours in game order."""
    return [
        (colour, size)
        for size in ("large", "medium", "small")
        for colour in autumn_ash.COLOURS
        for _ in range(TRIOS_PRINTED)
    ]


def layout_pages(options: Options) -> list[list[PlacedNet]]:
    """Where every net goes, page by page."""
    width, height = options.page_size
    margin = mm(SAFE_EDGE_MM + 3)
    top = height - mm(SAFE_EDGE_MM + 7)
    return list(_pack(pieces(), margin, width - margin, top, mm(FOOTER_TOP_MM + 1)))


def _hatch(canvas: Canvas, face: tuple[Point, Point, Point], style: ColourStyle) -> None:
    if not style.hatch:
        return
    x0, y0, x1, y1 = _bbox(face)
    step = mm(1.6)
    canvas.setStrokeColor(HexColor(style.ink))
    canvas.setFillColor(HexColor(style.ink))
    canvas.setLineWidth(0.35)
    with saved(canvas):
        clip = canvas.beginPath()
        clip.moveTo(*face[0])
        clip.lineTo(*face[1])
        clip.lineTo(*face[2])
        clip.close()
        canvas.clipPath(clip, stroke=0, fill=0)
        span = max(x1 - x0, y1 - y0)
        count = int(span / step) + 2
        if style.hatch in ("vertical", "grid"):
            for i in range(count):
                canvas.line(x0 + i * step, y0, x0 + i * step, y1)
        if style.hatch in ("horizontal", "grid"):
            for i in range(count):
                canvas.line(x0, y0 + i * step, x1, y0 + i * step)
        if style.hatch in ("slash", "cross"):
            for i in range(-count, count):
                canvas.line(x0 + i * step, y0, x0 + i * step + span, y0 + span)
        if style.hatch in ("backslash", "cross"):
            for i in range(0, 2 * count):
                canvas.line(x0 + i * step, y0, x0 + i * step - span, y0 + span)
        if style.hatch == "dots":
            pitch = step * 1.5
            for i in range(int((x1 - x0) / pitch) + 1):
                for j in range(int((y1 - y0) / pitch) + 1):
                    x, y = x0 + (i + 0.5) * pitch, y0 + (j + 0.5) * pitch
                    if _inside((x, y), face):
                        canvas.rect(x - 0.5, y - 0.5, 1.0, 1.0, stroke=0, fill=1)


def _draw_net(canvas: Canvas, net: PlacedNet, tr: Words = ENGLISH) -> None:
    style = STYLES[net.colour]
    dims = net_dimensions(net.size)
    fill = HexColor(style.fill)
    ink = HexColor(style.ink)
    for face in net.faces:
        path = canvas.beginPath()
        path.moveTo(*face[0])
        path.lineTo(*face[1])
        path.lineTo(*face[2])
        path.close()
        canvas.setFillColor(fill)
        canvas.drawPath(path, stroke=0, fill=1)
        _hatch(canvas, face, style)
        _face_marks(canvas, face, dims, colour_name(tr, net.colour), ink, fill)
    # Tab: plain paper, it ends up inside.
    tab = canvas.beginPath()
    tab.moveTo(*net.corners[4])
    for point in net.tab:
        tab.lineTo(*point)
    tab.lineTo(*net.apex)
    tab.close()
    canvas.setFillColor(HexColor("#ffffff"))
    canvas.drawPath(tab, stroke=0, fill=1)
    tab_mid = ((net.tab[0][0] + net.tab[1][0]) / 2, (net.tab[0][1] + net.tab[1][1]) / 2)
    edge_mid = (net.corners[4][0] / 2 + net.apex[0] / 2, net.corners[4][1] / 2 + net.apex[1] / 2)
    with saved(canvas):
        canvas.translate((tab_mid[0] + edge_mid[0]) / 2, (tab_mid[1] + edge_mid[1]) / 2)
        angle = math.degrees(
            math.atan2(net.corners[4][1] - net.apex[1], net.corners[4][0] - net.apex[0])
        )
        if 90 < angle % 360 < 270:
            angle += 180
        canvas.rotate(angle)
        canvas.setFillColor(SOFT)
        canvas.setFont(SANS, NOTE_SIZE)
        canvas.drawCentredString(0, -NOTE_SIZE * 0.36, tr("glue"))
    # Cut line all round; fold lines dashed.
    canvas.setStrokeColor(INK)
    canvas.setLineWidth(0.5)
    outline = canvas.beginPath()
    points = net.outline
    outline.moveTo(*points[0])
    for point in points[1:]:
        outline.lineTo(*point)
    outline.close()
    canvas.drawPath(outline, stroke=1, fill=0)
    with saved(canvas):
        canvas.setDash(2, 1.5)
        canvas.setLineWidth(0.4)
        canvas.setStrokeColor(SOFT)
        for corner in net.corners[1:]:
            canvas.line(*net.apex, *corner)


NAME_PAD = 1.0
"""The patch behind a colour's name reaches this far (points) past its ends."""


def name_place(name: str, dims: NetDimensions) -> tuple[float, float, float]:
    """Where a face's colour name and pips go (points above the face's base,
    in the face's own frame): (the name's baseline, the pips' centre, the
    name's size). The face narrows towards its apex: a name too wide above
    the pips (a longer language's word on a small pyramid) goes below them,
    near the base where the face is widest, and the pips move up."""
    slant = mm(dims.slant)
    base = mm(dims.base)
    radius = base * 0.055
    size = max(NOTE_SIZE, base * 0.15)
    ascent, descent = getAscentDescent(SANS_BOLD, size)
    pips = slant * 0.13
    label_y = pips + radius + size * 0.6
    if name_room(dims, label_y + ascent + 0.4) < _patch_width(name, size):
        label_y = -descent + 0.4 + mm(0.5)
        pips = label_y + ascent + 0.4 + radius + mm(0.6)
    return label_y, pips, size


def name_room(dims: NetDimensions, height: float) -> float:
    """The face's width (points) ``height`` points above its base, less a
    0.3 mm margin on each side (the name's patch pads it by 1 pt more)."""
    return mm(dims.base) * (1 - height / mm(dims.slant)) - mm(0.6)


def _patch_width(name: str, size: float) -> float:
    width: float = stringWidth(name, SANS_BOLD, size)
    return width + 2 * NAME_PAD


def _face_marks(
    canvas: Canvas,
    face: tuple[Point, Point, Point],
    dims: NetDimensions,
    colour: str,
    ink: Color,
    fill: Color,
) -> None:
    """Pips near the base of a face, and the colour's name above them."""
    apex, b1, b2 = face
    mid = ((b1[0] + b2[0]) / 2, (b1[1] + b2[1]) / 2)
    angle = math.atan2(b2[1] - b1[1], b2[0] - b1[0])
    with saved(canvas):
        canvas.translate(*mid)
        # Turn so the base runs left to right and the apex is up.
        canvas.rotate(math.degrees(angle))
        if (apex[0] - mid[0]) * -math.sin(angle) + (apex[1] - mid[1]) * math.cos(angle) < 0:
            canvas.rotate(180)
        label_y, y, size = name_place(colour, dims)
        base = mm(dims.base)
        radius = base * 0.055
        step = base * 0.2
        text_w = canvas.stringWidth(colour, SANS_BOLD, size)
        ascent, descent = getAscentDescent(SANS_BOLD, size)
        canvas.setFillColor(ink)
        canvas.setStrokeColor(fill)
        canvas.setLineWidth(0.6)
        for pip in range(dims.pips):
            x = (pip - (dims.pips - 1) / 2) * step
            canvas.circle(x, y, radius, stroke=1, fill=1)
        canvas.setFont(SANS_BOLD, size)
        canvas.setFillColor(fill)
        canvas.rect(
            -text_w / 2 - 1,
            label_y + descent - 0.4,
            text_w + 2,
            ascent - descent + 0.8,
            stroke=0,
            fill=1,
        )
        canvas.setFillColor(ink)
        canvas.drawCentredString(0, label_y, colour)


def draw_pyramids(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    pages = layout_pages(options)
    width, height = options.page_size
    for number, page in enumerate(pages, start=1):
        canvas.setFillColor(INK)
        canvas.setFont(SANS_BOLD, 10)
        canvas.drawString(
            mm(SAFE_EDGE_MM + 3), height - mm(SAFE_EDGE_MM + 4), tr("Autumn Ash pyramids")
        )
        canvas.setFont(SANS, 7)
        canvas.drawRightString(
            width - mm(SAFE_EDGE_MM + 3),
            height - mm(SAFE_EDGE_MM + 4),
            tr(
                "Cut on the solid lines, fold on the dashed ones (pips outside), "
                "glue the tab inside the first face. Open at the bottom."
            ),
        )
        for net in page:
            with saved(canvas):
                _draw_net(canvas, net, tr)
        draw_footer(
            canvas,
            options,
            tr("Pyramid nets · page %(page)s of %(pages)s", page=number, pages=len(pages)),
        )
        end_single_sided_sheet(canvas)
