"""Reading the real PDFs back, and what every part of the kit must satisfy.

``read_geometry`` walks a page's content stream (pypdf) and returns every
painted path and text origin in page coordinates, after the transformation
matrices and clipping paths; the other ``test_print_*`` files import it.
"""

from __future__ import annotations

import functools
import io
import math
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from printables import PARTS, Options, build
from printables.sheet import SAFE_EDGE_MM

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

    @property
    def points(self) -> list[Point]:
        return [point for sub in self.subpaths for point in sub]

    def bbox(self) -> tuple[float, float, float, float]:
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


KIT_OPTIONS = {
    "kit_a4": Options(paper="a4"),
    "kit_letter": Options(paper="letter", card="ccg"),
    "kit_a4_bleed": Options(paper="a4", ink_saving=False, bleed=True, back_offset=(5.0, -5.0)),
    "kit_letter_bleed": Options(
        paper="letter", ink_saving=False, bleed=True, back_offset=(-5.0, 5.0)
    ),
}


@pytest.fixture(scope="module")
def kit_a4() -> bytes:
    return built("kit", KIT_OPTIONS["kit_a4"])


@pytest.fixture(scope="module")
def kit_letter() -> bytes:
    return built("kit", KIT_OPTIONS["kit_letter"])


@pytest.mark.parametrize(("paper", "size"), [("a4", A4), ("letter", LETTER)])
@pytest.mark.parametrize("part", sorted(set(PARTS) - {"kit"}))
def test_every_page_of_every_part_has_the_chosen_paper_size(part, paper, size):
    reader = PdfReader(io.BytesIO(built(part, Options(paper=paper))))
    assert len(reader.pages) >= 1
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(size[0], abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(size[1], abs=0.01)


def test_the_pdf_asks_viewers_not_to_scale_it(kit_a4):
    reader = PdfReader(io.BytesIO(kit_a4))
    prefs = reader.trailer["/Root"]["/ViewerPreferences"]
    assert prefs["/PrintScaling"] == "/None"


@pytest.mark.parametrize("kit", sorted(KIT_OPTIONS))
def test_nothing_is_drawn_within_5_mm_of_the_paper_edge(kit):
    limit = SAFE_EDGE_MM * MM - 0.01
    for number, page in enumerate(geometry("kit", KIT_OPTIONS[kit]), start=1):
        for path in page.paths:
            if not path.visible:
                continue
            x0, y0, x1, y1 = path.bbox()
            assert x0 >= limit and y0 >= limit, f"page {number}: {path.bbox()}"
            assert x1 <= page.width - limit and y1 <= page.height - limit, (
                f"page {number}: {path.bbox()}"
            )
        for run in page.runs:
            # The whole glyph box (the font's ascent and descent), not just the origin.
            x0, y0, x1, y1 = run.bbox
            where = f"page {number}: {run.text!r} at {[round(v / MM, 2) for v in run.bbox]} mm"
            assert x0 >= limit and y0 >= limit, where
            assert x1 <= page.width - limit and y1 <= page.height - limit, where


@pytest.mark.parametrize("kit", ["kit_a4", "kit_letter"])
def test_every_sheet_has_the_50_mm_ruler_and_the_print_at_100_percent_note_on_its_front(kit):
    pages = geometry("kit", KIT_OPTIONS[kit])
    for number, page in enumerate(pages[::2], start=1):
        assert "Print at 100%" in page.text, f"front {number}"
        # The ruler: a 50 mm base line (a straight segment of exactly 50 mm).
        lengths = [
            math.dist(sub[0], sub[1])
            for path in page.paths
            if path.furniture
            for sub in path.subpaths
            if len(sub) == 2
        ]
        assert any(abs(length - 50 * MM) < 0.01 for length in lengths), f"front {number}"
    for number, page in enumerate(pages[1::2], start=1):
        # A back carries card backs, the duplex scales or nothing at all.
        assert not any(path.furniture for path in page.paths), f"back {number}"
        assert not any(run.furniture for run in page.runs), f"back {number}"


def _pages(pdf: bytes) -> int:
    return len(PdfReader(io.BytesIO(pdf)).pages)


def test_the_kit_prints_right_as_one_double_sided_job(kit_a4):
    """Every part starts on the front of a sheet, and single-sided sheets get
    a blank back: no part shares a sheet of paper with another."""
    reader = PdfReader(io.BytesIO(kit_a4))
    start = 0
    for name, part in PARTS.items():
        if name == "kit":
            continue
        own = _pages(built(name, Options(paper="a4")))
        assert start % 2 == 0, f"{name} starts on the back of a sheet"
        if part.duplex:
            assert own % 2 == 0, f"{name} has an odd number of pages"
            start += own
            continue
        for sheet in range(own):
            back = reader.pages[start + 2 * sheet + 1]
            assert (
                back.get_contents() is None
                or not ContentStream(back.get_contents(), reader).operations[1:]
            ), f"{name}: the back of sheet {sheet + 1} is not blank"
        start += 2 * own
    assert start == len(reader.pages)


def test_an_unknown_part_is_refused_by_name():
    with pytest.raises(ValueError, match="'dice'"):
        build("dice")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"paper": "a3"}, "unknown paper 'a3'"),
        ({"card": "tarot"}, "unknown card size 'tarot'"),
        ({"back_offset": (11.0, 0.0)}, "11 mm on x"),
        ({"back_offset": (0.0, -12.5)}, "-12.5 mm on y"),
        ({"url": "ftp://x"}, "http:// or https://"),
        ({"url": "leafpile.local"}, "'leafpile.local'"),
        ({"url": "http://x/" + "a" * 300}, "309 characters long"),
    ],
)
def test_bad_options_are_refused_with_a_message_naming_the_value(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        Options(**kwargs)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0,0", (0.0, 0.0)),
        ("0.5,-1", (0.5, -1.0)),
        (" 1 , 2 ", (1.0, 2.0)),
        ("-0.3;0.2", (-0.3, 0.2)),
    ],
)
def test_a_back_offset_is_read_from_x_comma_y_in_mm(text, expected):
    from printables import parse_offset

    assert parse_offset(text) == expected


@pytest.mark.parametrize("text", ["", "1", "1,2,3", "a,b", "nan,1", "inf,0"])
def test_a_back_offset_that_is_not_two_numbers_is_refused(text):
    from printables import parse_offset

    with pytest.raises(ValueError, match="not an offset"):
        parse_offset(text)


@pytest.mark.parametrize("kit", ["kit_a4", "kit_letter"])
def test_every_page_renders_with_pdftoppm_and_shows_something(kit, request, tmp_path):
    import os
    import shutil
    import subprocess

    from PIL import Image

    if shutil.which("pdftoppm") is None:
        if os.environ.get("CI"):
            pytest.fail("pdftoppm is missing: install poppler-utils")
        pytest.skip("no pdftoppm (apt-get install poppler-utils)")
    pdf = request.getfixturevalue(kit)
    source = tmp_path / "kit.pdf"
    source.write_bytes(pdf)
    subprocess.run(
        ["pdftoppm", "-r", "12", "-gray", "-png", str(source), str(tmp_path / "page")],
        check=True,
        timeout=120,
    )
    images = sorted(tmp_path.glob("page-*.png"))
    assert len(images) == len(PdfReader(io.BytesIO(pdf)).pages)
    for number, image in enumerate(images):
        with Image.open(image) as page:
            darkest, lightest = page.convert("L").getextrema()
            assert lightest == 255, image.name  # white paper round the edge
            if number % 2 == 0:
                assert darkest < 128, image.name  # and something printed on every front


@pytest.mark.parametrize(
    "module",
    [
        "printables",
        "printables.pyramids",
        "printables.images",
        "printables.sheet",
        "printables.aids",
        "printables.services",
    ],
)
def test_the_examples_in_the_docstrings_hold(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
