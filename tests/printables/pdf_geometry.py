"""Reading the real PDFs back: what the print kit's tests measure with.

``read_geometry`` walks a page's content stream (pypdf) and returns every
painted path and text origin in page coordinates, after the transformation
matrices and clipping paths; ``built`` and ``geometry`` make each part once
per test process, so every ``test_print_*`` file shares them.
"""

from __future__ import annotations

import functools
import io
import math
import re
from dataclasses import dataclass, field
from typing import Any

from pypdf import PdfReader
from pypdf.generic import ContentStream

from printables import Options, build

MM = 72 / 25.4
A4 = (595.28, 841.89)
LETTER = (612.0, 792.0)

Point = tuple[float, float]


@dataclass
class Path:
    subpaths: list[list[Point]]
    op: str
    rects: list[tuple[float, float, float, float]]  # re operands in page space (x, y, w, h)
    clip: tuple[float, float, float, float] | None  # x0, y0, x1, y1
    line_width: float
    furniture: bool = False  # drawn inside /Artifact marked content
    fill: tuple[float, ...] = (0.0,)  # the fill colour's operands when it was painted
    order: int = 0  # its place among everything painted on the page (paths and text)
    # A path never changes once read, and the contrast and overlap checks ask
    # each path's box once for every text run on its page (1.4 million times
    # in one test): measured once, it is read from here.
    _box: tuple[float, float, float, float] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def points(self) -> list[Point]:
        return [point for sub in self.subpaths for point in sub]

    def bbox(self) -> tuple[float, float, float, float]:
        if self._box is None:
            self._box = self._measured_box()
        return self._box

    def _measured_box(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        box = (min(xs), min(ys), max(xs), max(ys))
        if self.clip is not None:
            box = (
                max(box[0], self.clip[0]),
                max(box[1], self.clip[1]),
                min(box[2], self.clip[2]),
                min(box[3], self.clip[3]),
            )
        return box

    def ink_bbox(self) -> tuple[float, float, float, float]:
        """The bbox with half the line width round a stroked path (what ink covers)."""
        x0, y0, x1, y1 = self.bbox()
        half = self.line_width / 2 if self.op in ("S", "s", "B", "B*", "b", "b*") else 0.0
        return (x0 - half, y0 - half, x1 + half, y1 + half)

    @property
    def visible(self) -> bool:
        box = self.bbox()
        return box[0] <= box[2] and box[1] <= box[3]


@dataclass
class TextRun:
    """One shown string: its text, font, size and the box its glyphs can fill,
    measured with the embedded font's own widths, ascent and descent."""

    origin: Point
    text: str
    font: str  # the font's /BaseFont, e.g. "AAAAAA+LiberationSans"
    size: float
    width: float  # advance width in page units along the baseline
    bbox: tuple[float, float, float, float]  # x0, y0, x1, y1 in page space
    furniture: bool
    fill: tuple[float, ...] = (0.0,)  # the fill colour's operands (rg: r, g, b; g: grey)
    order: int = 0  # its place among everything painted on the page (paths and text)
    angle: float = 0.0  # the baseline's direction in degrees (0: left to right)


@dataclass
class Page:
    width: float
    height: float
    paths: list[Path] = field(default_factory=list)
    texts: list[tuple[Point, str]] = field(default_factory=list)
    runs: list[TextRun] = field(default_factory=list)
    text: str = ""


def _mul(a: list[float], b: list[float]) -> list[float]:
    """Matrix product a x b for PDF matrices [a b c d e f]."""
    return [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]


def _apply(m: list[float], x: float, y: float) -> Point:
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


NUMERIC = {"cm", "w", "m", "l", "c", "v", "y", "re", "Tm", "Td", "TD"}
PAINT = {"S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n"}


@dataclass
class FontInfo:
    """What a page's font resource says about its glyphs."""

    name: str
    first: int
    widths: list[float]
    missing: float
    ascent: float
    descent: float
    to_unicode: dict[int, str]

    def width(self, codes: bytes) -> float:
        """Advance width of ``codes`` in text space units per 1 pt of size."""
        total = 0.0
        for code in codes:
            index = code - self.first
            total += self.widths[index] if 0 <= index < len(self.widths) else self.missing
        return total / 1000

    def decode(self, codes: bytes) -> str:
        return "".join(self.to_unicode.get(code, chr(code)) for code in codes)


def _font_info(font: Any) -> FontInfo:
    font = font.get_object()
    descriptor = font.get("/FontDescriptor")
    descriptor = descriptor.get_object() if descriptor is not None else {}
    to_unicode: dict[int, str] = {}
    if "/ToUnicode" in font:
        cmap = font["/ToUnicode"].get_object().get_data().decode("latin-1")
        for src, dst in re.findall(r"<([0-9A-Fa-f]{2})>\s*<([0-9A-Fa-f]{4})>", cmap):
            to_unicode[int(src, 16)] = chr(int(dst, 16))
    return FontInfo(
        name=str(font.get("/BaseFont", "?")).lstrip("/"),
        first=int(font.get("/FirstChar", 0)),
        widths=[float(w) for w in font.get("/Widths", [])],
        missing=float(descriptor.get("/MissingWidth", 0)),
        ascent=float(descriptor.get("/Ascent", 1000)) / 1000,
        descent=float(descriptor.get("/Descent", 0)) / 1000,
        to_unicode=to_unicode,
    )


def _raw(operand: Any) -> bytes:
    if hasattr(operand, "get_original_bytes"):
        return bytes(operand.get_original_bytes())
    if isinstance(operand, bytes):
        return bytes(operand)
    return str(operand).encode("latin-1")


@functools.lru_cache(maxsize=64)
def built(part: str, options: Options) -> bytes:
    """``build`` once per (part, options) for the whole test session."""
    return build(part, options)


def read_geometry(pdf: bytes, first: int | None = None) -> list[Page]:
    """The geometry of every page (or of the ``first`` pages only)."""
    reader = PdfReader(io.BytesIO(pdf))
    pages: list[Page] = []
    for pdf_page in list(reader.pages)[:first]:
        box = pdf_page.mediabox
        page = Page(float(box.width), float(box.height))
        resources = pdf_page.get("/Resources")
        fonts_dict = resources.get_object().get("/Font", {}) if resources is not None else {}
        fonts = {str(name): _font_info(font) for name, font in fonts_dict.items()}
        contents = pdf_page.get_contents()
        if contents is None:
            pages.append(page)
            continue
        content = ContentStream(contents, reader)
        ctm = [1.0, 0, 0, 1.0, 0, 0]
        clip: tuple[float, float, float, float] | None = None
        width = 1.0
        fill: tuple[float, ...] = (0.0,)
        stack: list[
            tuple[list[float], tuple[float, float, float, float] | None, float, tuple[float, ...]]
        ] = []
        marked: list[str] = []
        subpaths: list[list[Point]] = []
        rects: list[tuple[float, float, float, float]] = []
        pending_clip = False
        tm = [1.0, 0, 0, 1.0, 0, 0]
        tlm = [1.0, 0, 0, 1.0, 0, 0]
        font: FontInfo | None = None
        size = 0.0
        for operands, op in content.operations:
            name = op.decode() if isinstance(op, bytes) else op
            args = [float(v) for v in operands] if name in NUMERIC else []
            if name in ("BMC", "BDC"):
                marked.append(str(operands[0]))
            elif name == "EMC":
                marked.pop()
            elif name == "q":
                stack.append((ctm, clip, width, fill))
            elif name == "Q":
                ctm, clip, width, fill = stack.pop()
            elif name in ("rg", "g", "k"):
                fill = tuple(float(v) for v in operands)
            elif name == "cm":
                ctm = _mul(args, ctm)
            elif name == "w":
                width = args[0]
            elif name == "m":
                subpaths.append([_apply(ctm, *args)])
            elif name == "l":
                subpaths[-1].append(_apply(ctm, *args))
            elif name == "c":
                subpaths[-1].extend(_apply(ctm, args[i], args[i + 1]) for i in (0, 2, 4))
            elif name in ("v", "y"):
                subpaths[-1].extend(_apply(ctm, args[i], args[i + 1]) for i in (0, 2))
            elif name == "re":
                x, y, w, h = args
                corners = [
                    _apply(ctm, x, y),
                    _apply(ctm, x + w, y),
                    _apply(ctm, x + w, y + h),
                    _apply(ctm, x, y + h),
                ]
                subpaths.append(corners)
                xs = [c[0] for c in corners]
                ys = [c[1] for c in corners]
                rects.append((min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
            elif name in ("W", "W*"):
                pending_clip = True
            elif name in PAINT:
                if subpaths:
                    scale = math.hypot(ctm[0], ctm[1])
                    path = Path(
                        subpaths,
                        name,
                        rects,
                        clip,
                        width * scale,
                        "/Artifact" in marked,
                        fill,
                        len(page.paths) + len(page.runs),
                    )
                    if name != "n":
                        page.paths.append(path)
                    if pending_clip:
                        xs = [p[0] for p in path.points]
                        ys = [p[1] for p in path.points]
                        new = (min(xs), min(ys), max(xs), max(ys))
                        clip = (
                            new
                            if clip is None
                            else (
                                max(clip[0], new[0]),
                                max(clip[1], new[1]),
                                min(clip[2], new[2]),
                                min(clip[3], new[3]),
                            )
                        )
                subpaths, rects, pending_clip = [], [], False
            elif name == "BT":
                tm = [1.0, 0, 0, 1.0, 0, 0]
                tlm = list(tm)
            elif name == "Tf":
                font = fonts.get(str(operands[0]))
                size = float(operands[1])
            elif name == "Tm":
                tm = list(args)
                tlm = list(args)
            elif name in ("Td", "TD"):
                tlm = _mul([1, 0, 0, 1, args[0], args[1]], tlm)
                tm = list(tlm)
            elif name in ("Tj", "TJ"):
                matrix = _mul(tm, ctm)
                origin = _apply(matrix, 0, 0)
                pieces = operands[0] if name == "TJ" else [operands[0]]
                codes = b"".join(_raw(piece) for piece in pieces if not _is_number(piece))
                text = font.decode(codes) if font else codes.decode("latin-1")
                advance = (font.width(codes) if font else 0.0) * size
                low = (font.descent if font else 0.0) * size
                high = (font.ascent if font else 1.0) * size
                corners = [_apply(matrix, u, v) for u in (0, advance) for v in (low, high)]
                xs = [c[0] for c in corners]
                ys = [c[1] for c in corners]
                scale = math.hypot(matrix[0], matrix[1])
                if clip is None or (
                    clip[0] <= origin[0] <= clip[2] and clip[1] <= origin[1] <= clip[3]
                ):
                    page.texts.append((origin, text))  # visible: not clipped away
                    page.runs.append(
                        TextRun(
                            origin,
                            text,
                            font.name if font else "?",
                            size * scale,
                            advance * scale,
                            (min(xs), min(ys), max(xs), max(ys)),
                            "/Artifact" in marked,
                            fill,
                            len(page.paths) + len(page.runs),
                            math.degrees(math.atan2(matrix[1], matrix[0])),
                        )
                    )
                # Advance the text position (reportlab draws one string per BT).
                tm = _mul([1, 0, 0, 1, advance, 0], tm)
        page.text = "\n".join(text for _, text in page.texts)
        pages.append(page)
    return pages


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) or type(value).__name__ in ("FloatObject", "NumberObject")


def rects_of_size(page: Page, w_mm: float, h_mm: float, tol_mm: float = 1.0):
    """Every rectangle drawn on the page whose size is near (w, h) mm."""
    found = []
    for path in page.paths:
        for rect in path.rects:
            if abs(rect[2] - w_mm * MM) <= tol_mm * MM and abs(rect[3] - h_mm * MM) <= tol_mm * MM:
                found.append((path, rect))
    return found


@functools.lru_cache(maxsize=8)
def geometry(part: str, options: Options) -> list[Page]:
    """``read_geometry(built(part, options))``, once per session."""
    return read_geometry(built(part, options))
