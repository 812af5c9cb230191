"""What every printed sheet shares: paper, options, the calibration ruler.

Every sheet of the kit is drawn at true size on A4 or US Letter. Nothing is
printed closer than :data:`SAFE_EDGE_MM` to the paper edge (most home
printers cannot print there), every sheet carries a 50 mm calibration ruler
and a "print at 100%" note, and the PDF asks viewers not to scale it
(``PrintScaling=None``).

Text is set in Liberation Sans (SIL Open Font License, shipped in
``printables/fonts`` with its licence), embedded as a subset: print shops
refuse PDFs whose fonts are not embedded, and a substitute font with other
metrics would move text out of its box. Liberation Sans has Helvetica's
metrics, so every measurement made with :func:`text_width` holds on paper.

Page furniture (ruler, note, sheet labels, crop marks) is drawn inside
:func:`furniture`, which marks it as a PDF artifact: the tests read those
marks back to check that furniture never lies on a card, a net or a board.

Coordinates inside this package are reportlab points (1/72 inch) with the
origin at the bottom-left corner of the page; sizes in the public options are
millimetres.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from reportlab.lib.colors import HexColor
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from .i18n import LANGUAGES, N_, KitError, Words

MM = 72.0 / 25.4
"""Points per millimetre."""

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Paper name → (width, height) in millimetres, portrait."""

CARD_SIZES: dict[str, tuple[float, float]] = {"poker": (63.5, 88.9), "ccg": (63.0, 88.0)}
"""Card size name → (width, height) in millimetres. ``ccg`` is the
collectible-card-game size; it was once called "standard", which made
``leafpile-standard-deck-a4-standard.pdf`` say "standard" twice for two
different things. The old name is still read (:data:`CARD_ALIASES`)."""

CARD_ALIASES = {"standard": "ccg"}
"""Card size names from older links and scripts → today's name."""

SAFE_EDGE_MM = 5.0
"""Nothing is drawn closer than this to the paper edge."""

BLEED_MM = 3.0
"""How far the bleed layout extends each card's art past its cut line."""

MAX_BACK_OFFSET_MM = 5.0
"""The largest back correction accepted on either axis (home duplex printers
are off by 1-2 mm; more than this means the sheet was fed the wrong way)."""

BACK_BLEED_MM = 3.0
"""How far the card backs extend past the card block on every side, so that a
duplex shift this small never shows a white strip on an outer card."""

FONT_DIR = Path(__file__).parent / "fonts"
SANS = "LeafpileSans"
SANS_BOLD = "LeafpileSans-Bold"
pdfmetrics.registerFont(TTFont(SANS, str(FONT_DIR / "LiberationSans-Regular.ttf")))
pdfmetrics.registerFont(TTFont(SANS_BOLD, str(FONT_DIR / "LiberationSans-Bold.ttf")))

RULER_MM = 50.0
"""Length of the calibration ruler on every sheet."""

DEFAULT_URL = "http://localhost:5000/"
MAX_URL_LENGTH = 300
"""Longest URL put in a QR code (longer codes get too dense to scan)."""

INK = HexColor("#222222")
SOFT = HexColor("#666666")
"""Secondary type: 5.7:1 on white paper, 5.3:1 on the cards' cream (4.5:1 at least)."""


def mm(value: float) -> float:
    """Millimetres → points."""
    return value * MM


@dataclass(frozen=True)
class Options:
    """The choices a person makes before printing.

    ``back_offset`` is the duplex correction (x, y) in millimetres, read off
    the duplex test sheet: the card backs (and the test sheet's scales) are
    moved by exactly this much, positive x to the right and positive y up as
    seen when looking at the back page. It is not the error you see: the test
    sheet's numbers already give the correction, sign included.
    ``ink_saving`` prints light card backs (outlines on white paper): the
    default, because the full back covers most of a sheet with ink on a home
    printer; ``ink_saving=False`` gives the full back.
    ``url`` is the companion's public address; the QR code on each player
    aid opens that game's own page under it.

    Raises ``ValueError`` naming the bad value for an unknown paper or card
    size, an offset larger than :data:`MAX_BACK_OFFSET_MM`, or a URL that is
    not ``http://`` or ``https://`` or is longer than :data:`MAX_URL_LENGTH`.
    """

    paper: str = "a4"
    card: str = "poker"
    bleed: bool = False
    back_offset: tuple[float, float] = (0.0, 0.0)
    url: str = DEFAULT_URL
    ink_saving: bool = True
    cards: tuple[int, ...] = ()
    """Only these cards of a deck (1-based, in deck order), to reprint one
    card or a few (``parse_cards``); empty: the whole deck."""
    cut_to_edge: bool = False
    """Crop marks run on to the printable edge of the paper, as cut lines to
    lay a ruler or a trimmer's edge on, instead of short ticks."""
    fold: bool = False
    """The fold-in-half layout for printers without duplex: faces on the top
    half, backs on the bottom half, one single-sided page to fold and cut."""
    language: str = "en"
    """The language every word on the paper is printed in (one of
    :data:`printables.i18n.LANGUAGES`); the QR codes and numbers stay."""

    def __post_init__(self) -> None:
        if self.card in CARD_ALIASES:
            object.__setattr__(self, "card", CARD_ALIASES[self.card])
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in self.cards):
            raise ValueError(f"card numbers start at 1, not {self.cards!r}")
        if self.fold and self.bleed:
            raise KitError(
                "the fold-in-half layout has no bleed: choose one or the other "
                "(fold for a printer without duplex, bleed for a paper cutter)"
            )
        if self.language not in LANGUAGES:
            raise ValueError(
                f"unknown language {self.language!r}: choose one of {', '.join(LANGUAGES)}"
            )
        if self.paper not in PAPERS:
            raise ValueError(f"unknown paper {self.paper!r}: choose {' or '.join(sorted(PAPERS))}")
        if self.card not in CARD_SIZES:
            raise ValueError(
                f"unknown card size {self.card!r}: choose poker (63.5 x 88.9 mm) "
                "or ccg (63 x 88 mm)"
            )
        if len(self.back_offset) != 2:
            raise ValueError(f"the back offset needs two numbers (x, y), not {self.back_offset!r}")
        for axis, value in zip("xy", self.back_offset, strict=True):
            if not isinstance(value, int | float) or value != value:
                raise ValueError(f"the back offset {axis} must be a number of mm, not {value!r}")
            if abs(value) > MAX_BACK_OFFSET_MM:
                raise KitError(
                    "a back correction of %(value)s mm on %(axis)s is more than the "
                    "%(most)s mm any printer needs: print the duplex test sheet and read "
                    "the correction off it",
                    value=format(value, "g"),
                    axis=axis,
                    most=format(MAX_BACK_OFFSET_MM, "g"),
                )
        if len(self.url) > MAX_URL_LENGTH:
            raise KitError(
                "that web address is %(length)s characters long; a QR code a phone can "
                "read holds at most %(most)s",
                length=len(self.url),
                most=MAX_URL_LENGTH,
            )
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise KitError(
                "%(url)s is not a web address the phones can open "
                "(it must start with http:// or https://)",
                url=repr(self.url),
            )

    @property
    def tr(self) -> Words:
        """The kit's words in this print's language."""
        return Words(self.language)

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


MAX_CARD_NUMBER = 999


def parse_cards(text: str) -> tuple[int, ...]:
    """Read a choice of cards: ``"12"``, ``"3-7"``, ``"3-7, 12"`` (1-based).

    >>> parse_cards("3-5, 12"), parse_cards("")
    ((3, 4, 5, 12), ())

    Raises ``ValueError`` naming the text when it is not numbers and ranges.
    """
    chosen: list[int] = []
    for piece in (piece.strip() for piece in text.split(",")):
        if not piece:
            continue
        low, dash, high = piece.partition("-")
        try:
            first = int(low)
            last = int(high) if dash else first
        except ValueError:
            raise KitError(
                "%(text)s is not a choice of cards: write card numbers and ranges, like 12 "
                "or 3-7,12",
                text=repr(text),
            ) from None
        if not 1 <= first <= last <= MAX_CARD_NUMBER:
            raise KitError(
                "%(piece)s is not a range of cards: numbers start at 1 and a range goes up",
                piece=repr(piece),
            )
        chosen.extend(number for number in range(first, last + 1) if number not in chosen)
    return tuple(chosen)


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


PDF_VERSION = (1, 7)
"""What the files claim: the viewer preferences they set are PDF 1.6
(``PrintScaling``) and PDF 1.7 (``Duplex``) keys."""


def new_canvas(
    options: Options,
    title: str,
    *,
    duplex: bool = False,
    page_size: tuple[float, float] | None = None,
) -> tuple[Canvas, io.BytesIO]:
    """A canvas for one document, asking viewers to print it unscaled and
    (``duplex``) double-sided flipped on the long edge, or single-sided.

    Every page gets a TrimBox and a BleedBox: the whole page, unless a card
    sheet sets its own (:func:`set_boxes`).
    """
    buffer = io.BytesIO()
    size = page_size or options.page_size
    canvas = Canvas(
        buffer,
        pagesize=size,
        pageCompression=1,
        invariant=1,
        pdfVersion=PDF_VERSION,
        initialFontName=SANS,
        initialFontSize=10,
    )
    setattr(canvas, LANGUAGE, options.language)
    canvas.setTitle(title)
    canvas.setAuthor("Leafpile")
    canvas.setCreator("Leafpile print-and-play kit")
    canvas.setSubject("Print at 100% (actual size), never 'fit to page'")
    canvas.setViewerPreference("PrintScaling", "None")
    canvas.setViewerPreference("Duplex", "DuplexFlipLongEdge" if duplex else "Simplex")
    set_boxes(canvas, None)
    return canvas, buffer


Box = tuple[float, float, float, float]
"""A page box (x0, y0, x1, y1) in points."""


def set_boxes(canvas: Canvas, trim: Box | None, bleed: float = 0.0) -> None:
    """Set the TrimBox (``None``: the whole page) and the BleedBox (the trim
    grown by ``bleed`` points, never past the page) of the pages shown from
    now on."""
    width, height = canvas._pagesize
    x0, y0, x1, y1 = trim or (0.0, 0.0, width, height)
    canvas.setTrimBox((round(x0, 3), round(y0, 3), round(x1, 3), round(y1, 3)))
    canvas.setBleedBox(
        (
            round(max(0.0, x0 - bleed), 3),
            round(max(0.0, y0 - bleed), 3),
            round(min(width, x1 + bleed), 3),
            round(min(height, y1 + bleed), 3),
        )
    )


_SUBSET_TAG = re.compile(rb"/([A-K]{6})\+(LiberationSans[-A-Za-z]*)")


def finish(canvas: Canvas, buffer: io.BytesIO) -> bytes:
    """Save the canvas and return the PDF, every font subset named uniquely.

    reportlab tags every font's first subset ``AAAAAA+``; the PDF standard
    wants a tag per subset, and a print shop that merges two files (or a RIP
    that caches fonts by name) would take one subset for another. The tag is
    taken from a hash of the file and the subset, six capital letters like
    reportlab's, so the file keeps its length and its cross-reference table
    stays right. Same input, same file.
    """
    canvas.save()
    data = buffer.getvalue()
    digest = hashlib.sha256(data).digest()

    def tag(match: re.Match[bytes]) -> bytes:
        seed = hashlib.sha256(digest + match.group(1) + match.group(2)).digest()
        letters = bytes(ord("A") + byte % 26 for byte in seed[:6])
        return b"/" + letters + b"+" + match.group(2)

    return _SUBSET_TAG.sub(tag, data)


LANGUAGE = "_leafpile_language"
"""Canvas attribute: the language of the document's words, for the furniture
(the "print at 100%" note) drawn by functions that get no options."""


def canvas_words(canvas: Canvas) -> Words:
    """The kit's words in the language ``canvas``'s document is printed in."""
    return Words(getattr(canvas, LANGUAGE, "en"))


BLANK_BACKS = "_leafpile_blank_backs"
"""Canvas attribute: when true, every single-sided sheet is followed by a
blank page, so the whole file can be printed double-sided."""


def end_single_sided_sheet(canvas: Canvas) -> None:
    """Finish a sheet meant for one side of the paper (with its blank back
    when the document is to be printed double-sided as a whole)."""
    canvas.showPage()
    if getattr(canvas, BLANK_BACKS, False):
        canvas.showPage()


@contextmanager
def saved(canvas: Canvas) -> Iterator[Canvas]:
    canvas.saveState()
    try:
        yield canvas
    finally:
        canvas.restoreState()


@contextmanager
def furniture(canvas: Canvas) -> Iterator[Canvas]:
    """Draw page furniture: marked as a PDF artifact (not part of the game's
    pieces), which is also how the tests find it."""
    canvas.addLiteral("/Artifact BMC")
    canvas.saveState()
    try:
        yield canvas
    finally:
        canvas.restoreState()
        canvas.addLiteral("EMC")


def text_width(text: str, bold: bool, size: float) -> float:
    """Width in points of ``text`` in the kit's font (the font's own metrics)."""
    width: float = pdfmetrics.stringWidth(text, SANS_BOLD if bold else SANS, size)
    return width


def split_words(text: str) -> list[str]:
    """``text``'s words, split at plain spaces only: a no-break space (French
    "mot\u00a0:", "100\u00a0%") keeps what it joins on one line.

    >>> split_words("Papier\u00a0: 160  g/m²")
    ['Papier\xa0:', '160', 'g/m²']
    """
    return [word for word in text.split(" ") if word]


def wrapped(text: str, room: float, size: float, bold: bool = False) -> list[str]:
    """``text`` broken between words into lines at most ``room`` points wide."""
    lines: list[str] = []
    for word in split_words(text):
        if lines and text_width(f"{lines[-1]} {word}", bold, size) <= room:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def fitted_font_size(text: str, bold: bool, size: float, room: float) -> float:
    """``size``, or less so that ``text`` is at most ``room`` points wide."""
    width = text_width(text, bold, size)
    return size if width <= room else size * room / width


NOTE_LINES = (
    N_("Print at 100% (actual size), never 'fit to page'."),
    N_("The ruler must measure 50 mm."),
)
"""The note in English; :func:`note_lines` gives it in a document's language."""
NOTE_SIZE = 7.0
"""The note and the ruler's numbers: 7 pt, the smallest type the kit uses for
anything a person must read to print right."""
RULER_INSET_MM = 1.0
"""The ruler's 0 tick sits this far into its band."""
RULER_SPAN_MM = 57.5
"""Room the ruler takes along its length, numbers included ("50 mm" at 7 pt)."""


def note_lines(tr: Words) -> tuple[str, str]:
    """The two lines of the "print at 100%" note in ``tr``'s language."""
    return tr(NOTE_LINES[0]), tr(NOTE_LINES[1])


NOTE_SPAN_MM = (
    max(text_width(note_lines(Words(code))[0], True, NOTE_SIZE) for code in LANGUAGES) / MM + 1.0
)
"""Room the note (or its first line alone) takes along its length: the same
in every language (the longest one's), so a sheet's layout never depends on
the language it is printed in."""
NOTE_REST_SPAN_MM = (
    max(text_width(note_lines(Words(code))[1], False, NOTE_SIZE) for code in LANGUAGES) / MM + 1.0
)
"""Room the note's second line takes when it stands alone (every language)."""
NOTE_LEADING = 1.2
"""The note's baselines are 1.2 x its size apart (at 0.89 x, as once, the
descenders of the first line touched the capitals of the second)."""
_DESCENT, _ASCENT = 0.212, 0.905
"""Liberation Sans's descent and ascent, in sizes: the glyph box the tests measure."""
NOTE_LOW_MM = _DESCENT * NOTE_SIZE / MM + 0.02
"""The baseline of a note's lowest line above its band's edge: room for descenders."""
BAND_MM = 4.8
"""Thickness of the ruler (its numbers included, by the font's ascent)."""
NOTE_BAND_MM = round(NOTE_LOW_MM + (NOTE_SIZE * NOTE_LEADING + _ASCENT * NOTE_SIZE) / MM + 0.02, 2)
"""Thickness of the two-line note (glyphs included, by the font's ascent and
descent): 5.8 mm."""
NOTE_LINE_BAND_MM = round(NOTE_LOW_MM + _ASCENT * NOTE_SIZE / MM + 0.02, 2)
"""Thickness of one line of the note standing alone: card sheets whose
margins are thinner than :data:`NOTE_BAND_MM` set the two lines in two bands."""


def _band(canvas: Canvas, x: float, y: float, vertical: bool, thickness: float = BAND_MM) -> None:
    """Move the origin so the band's bottom-left corner is page point (x, y).

    A vertical band reads upwards and still occupies [x, x + thickness] across.
    """
    if vertical:
        canvas.translate(x + mm(thickness), y)
        canvas.rotate(90)
    else:
        canvas.translate(x, y)


def draw_ruler(canvas: Canvas, x: float, y: float, *, vertical: bool = False) -> None:
    """Draw the 50 mm calibration ruler in the band whose corner is (x, y).

    The ruler runs right (or up, when ``vertical``) inside a band
    :data:`BAND_MM` thick: a base line, a tick per millimetre and a number
    every 10 mm.
    """
    with furniture(canvas):
        _band(canvas, x, y, vertical)
        canvas.translate(mm(RULER_INSET_MM), 0)  # room for the "0" left of its tick
        base = mm(0.3)
        canvas.setStrokeColor(INK)
        canvas.setFillColor(INK)
        canvas.setLineWidth(0.5)
        canvas.line(0, base, mm(RULER_MM), base)
        for tick in range(int(RULER_MM) + 1):
            length = 2.2 if tick % 10 == 0 else 1.6 if tick % 5 == 0 else 1.0
            canvas.setLineWidth(0.5 if tick % 5 == 0 else 0.3)
            canvas.line(mm(tick), base, mm(tick), base + mm(length))
        canvas.setFont(SANS, NOTE_SIZE)
        for tick in range(0, int(RULER_MM) + 1, 10):
            if tick == RULER_MM:
                # "50 mm" starts at its tick, so it ends inside the ruler's span.
                canvas.drawString(
                    mm(tick) - text_width("50", False, NOTE_SIZE) / 2, mm(2.55), f"{tick} mm"
                )
            else:
                canvas.drawCentredString(mm(tick), mm(2.55), str(tick))


def draw_note(
    canvas: Canvas, x: float, y: float, *, vertical: bool = False, line: int | None = None
) -> None:
    """Draw the "print at 100%" note in the band whose corner is (x, y).

    Two short lines, :data:`NOTE_BAND_MM` tall and :data:`NOTE_SPAN_MM` long
    (reading upwards when ``vertical``); or only ``line`` (0 or 1), in a band
    :data:`NOTE_LINE_BAND_MM` tall, for a sheet that places the two apart.
    """
    lines = [0, 1] if line is None else [line]
    texts = note_lines(canvas_words(canvas))
    with furniture(canvas):
        _band(canvas, x, y, vertical, NOTE_BAND_MM if line is None else NOTE_LINE_BAND_MM)
        canvas.setFillColor(INK)
        for row, index in enumerate(reversed(lines)):
            canvas.setFont(SANS_BOLD if index == 0 else SANS, NOTE_SIZE)
            baseline = mm(NOTE_LOW_MM) + row * NOTE_SIZE * NOTE_LEADING
            canvas.drawString(0, baseline, texts[index])


def draw_footer(canvas: Canvas, options: Options, label: str) -> None:
    """The bottom band of a non-card sheet: ruler, note and the page's name.

    Occupies the strip :data:`NOTE_BAND_MM` tall from 5 mm above the bottom edge;
    the sheet's own drawing must stay above :data:`FOOTER_TOP_MM`.
    """
    width, _ = options.page_size
    left = mm(SAFE_EDGE_MM + 3)
    base = mm(SAFE_EDGE_MM)
    draw_ruler(canvas, left, base)
    draw_note(canvas, left + mm(RULER_SPAN_MM + 6), base)
    with furniture(canvas):
        canvas.setFillColor(SOFT)
        size = fitted_font_size(
            label,
            False,
            NOTE_SIZE,
            width - left - (left + mm(RULER_SPAN_MM + 6 + NOTE_SPAN_MM + 4)),
        )
        canvas.setFont(SANS, size)
        canvas.drawRightString(width - left, base + mm(0.6), label)


FOOTER_TOP_MM = SAFE_EDGE_MM + NOTE_BAND_MM + 1.2
"""Sheets with :func:`draw_footer` keep their drawing above this height."""
