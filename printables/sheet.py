"""What every printed sheet shares: paper, options, the calibration ruler.

Every sheet of the kit is drawn at true size on A4 or US Letter. Nothing is
printed closer than :data:`SAFE_EDGE_MM` to the paper edge (most home
printers cannot print there), every sheet carries a 50 mm calibration ruler
and a "print at 100%" note, and the PDF asks viewers not to scale it
(``PrintScaling=None``).

Coordinates inside this package are reportlab points (1/72 inch) with the
origin at the bottom-left corner of the page; sizes in the public options are
millimetres.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from reportlab.lib.colors import Color, HexColor
from reportlab.pdfgen.canvas import Canvas

MM = 72.0 / 25.4
"""Points per millimetre."""

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Paper name → (width, height) in millimetres, portrait."""

CARD_SIZES: dict[str, tuple[float, float]] = {"poker": (63.5, 88.9), "standard": (63.0, 88.0)}
"""Card size name → (width, height) in millimetres."""

SAFE_EDGE_MM = 5.0
"""Nothing is drawn closer than this to the paper edge."""

BLEED_MM = 3.0
"""How far the bleed layout extends each card's art past its cut line."""

MAX_BACK_OFFSET_MM = 10.0
"""The largest back offset accepted on either axis."""

RULER_MM = 50.0
"""Length of the calibration ruler on every sheet."""

DEFAULT_URL = "http://localhost:5000/"
MAX_URL_LENGTH = 300
"""Longest URL put in a QR code (longer codes get too dense to scan)."""

INK = HexColor("#222222")
SOFT = HexColor("#777777")
FAINT = HexColor("#bbbbbb")


def mm(value: float) -> float:
    """Millimetres → points."""
    return value * MM


@dataclass(frozen=True)
class Options:
    """The choices a person makes before printing.

    ``back_offset`` is (x, y) in millimetres: how far to move the card backs
    to make up for a printer that does not line the two sides of a sheet up
    (positive x moves the backs right, positive y moves them up, as seen when
    looking at the back page). ``url`` is what the QR codes on the player
    aids open.

    Raises ``ValueError`` naming the bad value for an unknown paper or card
    size, an offset larger than :data:`MAX_BACK_OFFSET_MM`, or a URL that is
    not ``http://`` or ``https://`` or is longer than :data:`MAX_URL_LENGTH`.
    """

    paper: str = "a4"
    card: str = "poker"
    bleed: bool = False
    back_offset: tuple[float, float] = (0.0, 0.0)
    url: str = DEFAULT_URL

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"unknown paper {self.paper!r}: choose {' or '.join(sorted(PAPERS))}")
        if self.card not in CARD_SIZES:
            raise ValueError(
                f"unknown card size {self.card!r}: choose poker (63.5 x 88.9 mm) "
                "or standard (63 x 88 mm)"
            )
        if len(self.back_offset) != 2:
            raise ValueError(f"the back offset needs two numbers (x, y), not {self.back_offset!r}")
        for axis, value in zip("xy", self.back_offset, strict=True):
            if not isinstance(value, int | float) or value != value:
                raise ValueError(f"the back offset {axis} must be a number of mm, not {value!r}")
            if abs(value) > MAX_BACK_OFFSET_MM:
                raise ValueError(
                    f"a back offset of {value:g} mm on {axis} is more than the "
                    f"{MAX_BACK_OFFSET_MM:g} mm any printer needs: measure again"
                )
        if len(self.url) > MAX_URL_LENGTH:
            raise ValueError(
                f"that web address is {len(self.url)} characters long; a QR code a phone "
                f"can read holds at most {MAX_URL_LENGTH}"
            )
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(
                f"{self.url!r} is not a web address the phones can open "
                "(it must start with http:// or https://)"
            )

    @property
    def paper_mm(self) -> tuple[float, float]:
        return PAPERS[self.paper]

    @property
    def page_size(self) -> tuple[float, float]:
        width, height = PAPERS[self.paper]
        return mm(width), mm(height)

    @property
    def card_mm(self) -> tuple[float, float]:
        return CARD_SIZES[self.card]


def parse_offset(text: str) -> tuple[float, float]:
    """Read a back offset typed as ``"X,Y"`` in millimetres (``"0.5,-1"``).

    Raises ``ValueError`` naming the text when it is not two numbers.
    """
    pieces = [piece.strip() for piece in text.replace(";", ",").split(",")]
    if len(pieces) != 2:
        raise ValueError(f"{text!r} is not an offset: write two numbers in mm, like 0.5,-1")
    try:
        x, y = (float(piece) for piece in pieces)
    except ValueError:
        raise ValueError(
            f"{text!r} is not an offset: write two numbers in mm, like 0.5,-1"
        ) from None
    if x != x or y != y or abs(x) == float("inf") or abs(y) == float("inf"):
        raise ValueError(f"{text!r} is not an offset: write two numbers in mm, like 0.5,-1")
    return x, y


def new_canvas(options: Options, title: str) -> tuple[Canvas, io.BytesIO]:
    """A canvas for one document, asking viewers to print it unscaled."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=options.page_size, pageCompression=1, invariant=1)
    canvas.setTitle(title)
    canvas.setAuthor("Leafpile")
    canvas.setCreator("Leafpile print-and-play kit")
    canvas.setSubject("Print at 100% (actual size), never 'fit to page'")
    canvas.setViewerPreference("PrintScaling", "None")
    return canvas, buffer


@contextmanager
def saved(canvas: Canvas) -> Iterator[Canvas]:
    canvas.saveState()
    try:
        yield canvas
    finally:
        canvas.restoreState()


NOTE_LINES = (
    "Print at 100% (actual size),",
    "never 'fit to page'.",
    "The ruler must measure 50 mm.",
)
RULER_SPAN_MM = 52.0
"""Room the ruler takes along its length, numbers included."""
NOTE_SPAN_MM = 31.0
"""Room the note takes along its length."""
BAND_MM = 5.0
"""Thickness of the ruler and of the note."""


def draw_ruler(canvas: Canvas, x: float, y: float, *, vertical: bool = False) -> None:
    """Draw the 50 mm calibration ruler, its zero at (x, y) points.

    The ruler runs right (or up, when ``vertical``) and is :data:`BAND_MM`
    thick: a base line, a tick per millimetre and a number every 10 mm.
    """
    with saved(canvas):
        canvas.translate(x, y)
        if vertical:
            canvas.rotate(90)
            canvas.translate(0, -mm(BAND_MM))
        canvas.setStrokeColor(INK)
        canvas.setFillColor(INK)
        canvas.setLineWidth(0.5)
        canvas.line(0, 0, mm(RULER_MM), 0)
        for tick in range(int(RULER_MM) + 1):
            length = 2.6 if tick % 10 == 0 else 1.8 if tick % 5 == 0 else 1.1
            canvas.setLineWidth(0.5 if tick % 5 == 0 else 0.3)
            canvas.line(mm(tick), 0, mm(tick), mm(length))
        canvas.setFont("Helvetica", 5)
        for tick in range(0, int(RULER_MM) + 1, 10):
            label = f"{tick} mm" if tick == RULER_MM else str(tick)
            canvas.drawCentredString(
                mm(tick) + (mm(1.5) if tick == RULER_MM else 0), mm(3.0), label
            )


def draw_note(canvas: Canvas, x: float, y: float, *, vertical: bool = False) -> None:
    """Draw the "print at 100%" note, its bottom-left corner at (x, y) points.

    The note is three short lines, :data:`BAND_MM` tall and about
    :data:`NOTE_SPAN_MM` long (it reads upwards when ``vertical``).
    """
    with saved(canvas):
        canvas.translate(x, y)
        if vertical:
            canvas.rotate(90)
            canvas.translate(0, -mm(BAND_MM))
        canvas.setFillColor(INK)
        canvas.setFont("Helvetica-Bold", 5)
        canvas.drawString(0, mm(3.4), NOTE_LINES[0])
        canvas.setFont("Helvetica", 5)
        canvas.drawString(0, mm(1.7), NOTE_LINES[1])
        canvas.drawString(0, 0, NOTE_LINES[2])


def draw_footer(canvas: Canvas, options: Options, label: str) -> None:
    """The bottom band of a non-card sheet: ruler, note and the page's name.

    Occupies the strip from 5 mm to 10 mm above the bottom edge; the sheet's
    own drawing must stay above :data:`FOOTER_TOP_MM`.
    """
    width, _ = options.page_size
    left = mm(SAFE_EDGE_MM + 3)
    base = mm(SAFE_EDGE_MM)
    draw_ruler(canvas, left, base)
    draw_note(canvas, left + mm(RULER_SPAN_MM + 6), base)
    with saved(canvas):
        canvas.setFillColor(SOFT)
        canvas.setFont("Helvetica", 6.5)
        canvas.drawRightString(width - left, base + mm(0.4), label)


FOOTER_TOP_MM = SAFE_EDGE_MM + BAND_MM + 2.0
"""Sheets with :func:`draw_footer` keep their drawing above this height."""


def fill_color(hex_code: str) -> Color:
    return HexColor(hex_code)
