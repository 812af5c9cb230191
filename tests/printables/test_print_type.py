"""Print type a person can read (issue 44, item 4), measured in the PDFs.

Every text run of the whole kit, on A4 and on US Letter, is read back from the
file (``read_geometry``) and measured:

- its size: 7 pt at least for anything a player must read (6 pt only for a
  legal line; the kit prints none);
- its leading: a line set under another that it overlaps across keeps a
  baseline distance of at least 1.15 times the larger of the two sizes;
- its contrast against what is painted under it (the last filled shape drawn
  before it that covers the middle of its glyphs, else the white paper):
  4.5:1 at least, 3:1 for large type (18 pt, or 14 pt bold), as WCAG 2 asks
  of text on a screen;
- in the player aids, every section (a heading and all it holds) stays in one
  column, and the address under each QR code is printed whole at
  :data:`printables.aids.ADDRESS_SIZE` or more.

The proof sheet's miniature cards are the one exception to the size rule:
they are the cards at 30 % for checking a print run, not type to read, and
each is numbered at full size below it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import pytest

from printables import PARTS, Options, build
from printables.aids import ADDRESS_SIZE, aid_boxes, all_aids
from printables.proof import proof_decks, proof_slots
from tests.printables.pdf_geometry import Page, TextRun, read_geometry

MIN_SIZE = 7.0
LEADING = 1.15
CONTRAST = 4.5
LARGE_CONTRAST = 3.0

PAPERS = {
    "a4": Options(paper="a4"),
    "letter": Options(paper="letter", card="ccg"),
}
FILLS = {"f", "F", "f*", "B", "B*", "b", "b*"}
CARD_SHEETS = {
    # The card sheets' other layouts: furniture in thin or side margins.
    "a4-bleed": Options(paper="a4", bleed=True, ink_saving=False),
    "letter-poker": Options(paper="letter"),
    "letter-fold": Options(paper="letter", fold=True, cut_to_edge=True),
}


@functools.lru_cache(maxsize=32)
def pages_of(part: str, options: Options) -> tuple[Page, ...]:
    return tuple(read_geometry(build(part, options)))


def parts() -> list[str]:
    return sorted(set(PARTS) - {"kit"})


def everything(options: Options) -> Iterator[tuple[str, int, Page]]:
    for part in parts():
        for number, page in enumerate(pages_of(part, options), start=1):
            yield part, number, page


def _miniature_slots(options: Options) -> list[tuple[float, float, float, float]]:
    boxes = []
    for _, faces in proof_decks():
        for slot in proof_slots(options, len(faces) + 1):
            boxes.append((slot.x, slot.y, slot.x + slot.w, slot.y + slot.h))
    return boxes


def _inside(run: TextRun, box: tuple[float, float, float, float]) -> bool:
    x0, y0, x1, y1 = run.bbox
    return x0 >= box[0] - 0.5 and y0 >= box[1] - 0.5 and x1 <= box[2] + 0.5 and y1 <= box[3] + 0.5


# --- colour ------------------------------------------------------------------------------


def rgb(operands: tuple[float, ...]) -> tuple[float, float, float]:
    """A fill colour's operands (g, rg or k) as sRGB 0-1."""
    if len(operands) == 1:
        return (operands[0],) * 3
    if len(operands) == 3:
        return operands[0], operands[1], operands[2]
    c, m, y, k = operands
    return (1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)


def luminance(colour: tuple[float, float, float]) -> float:
    """WCAG 2 relative luminance."""
    linear = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in colour]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG 2 contrast ratio, 1 to 21.

    >>> round(contrast((1, 1, 1), (0, 0, 0)), 1)
    21.0
    """
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _covers(polygons: list[list[tuple[float, float]]], x: float, y: float) -> bool:
    """Even-odd point-in-polygon over a path's subpaths (curves by their
    control points, close enough for the shapes under text)."""
    inside = False
    for polygon in polygons:
        for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
    return inside


def background(page: Page, run: TextRun) -> tuple[float, float, float]:
    """The colour painted under the middle of ``run``'s glyphs (white paper if none)."""
    x0, y0, x1, y1 = run.bbox
    # The middle of the x-height band, along the baseline's direction.
    along = math.radians(run.angle)
    up = (-math.sin(along), math.cos(along))
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    # bbox spans descent..ascent; the x-height's middle sits a little lower.
    shift = run.size * 0.12
    mx, my = mx - up[0] * shift, my - up[1] * shift
    under = [
        path
        for path in page.paths
        if path.op in FILLS and path.order < run.order and path.visible
        if path.bbox()[0] <= mx <= path.bbox()[2] and path.bbox()[1] <= my <= path.bbox()[3]
        if _covers(path.subpaths, mx, my)
    ]
    if not under:
        return (1.0, 1.0, 1.0)
    return rgb(max(under, key=lambda path: path.order).fill)


def large(run: TextRun) -> bool:
    return run.size >= 18 or (run.size >= 14 and "Bold" in run.font)


# --- the tests ---------------------------------------------------------------------------


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_no_text_a_player_reads_is_under_7_pt(paper):
    options = PAPERS[paper]
    miniatures = _miniature_slots(options)
    small = []
    for part, number, page in everything(options):
        for run in page.runs:
            if not run.text.strip() or run.size >= MIN_SIZE - 0.005:
                continue
            if part == "proof" and any(_inside(run, slot) for slot in miniatures):
                continue
            small.append(f"{part} p{number}: {run.text!r} at {run.size:.2f} pt")
    assert small == [], "\n".join(sorted(set(small)))


def _frame(run: TextRun) -> tuple[float, float, float]:
    """(start, end, baseline) of a run in its own reading frame."""
    angle = math.radians(run.angle)
    cos, sin = math.cos(angle), math.sin(angle)
    x, y = run.origin
    along = x * cos + y * sin
    across = -x * sin + y * cos
    return along, along + run.width, across


INK_TOP = 0.75
"""Liberation Sans: the tallest letters and digits reach 0.73 of the size (no
accents are printed); descenders go 0.21 below the baseline."""
INK_BOTTOM = 0.212


def tight_lines(page: Page) -> list[str]:
    """Lines set one under the other, overlapping across, that are too close.

    Two lines of one size are lines of one block: their baselines must be
    1.15 x the size apart. Lines of two sizes (a heading over its text, a big
    numeral near a small note) must keep the smaller size's 0.15 x between
    the lower one's tallest letters and the upper one's descenders.
    """
    found = []
    runs = [run for run in page.runs if run.text.strip()]
    for upper in runs:
        for lower in runs:
            if lower is upper or abs((upper.angle - lower.angle + 180) % 360 - 180) > 0.5:
                continue
            a0, a1, a_base = _frame(upper)
            b0, b1, b_base = _frame(lower)
            overlap = min(a1, b1) - max(a0, b0)
            gap = a_base - b_base
            if overlap <= 0.5 or gap <= 0.01:
                continue
            if abs(upper.size - lower.size) <= 0.05 * max(upper.size, lower.size):
                need = LEADING * max(upper.size, lower.size)
            else:
                need = (
                    upper.size * INK_BOTTOM
                    + lower.size * INK_TOP
                    + (LEADING - 1) * min(upper.size, lower.size)
                )
            if gap < need - 0.01:
                found.append(
                    f"{upper.text[:40]!r} ({upper.size:.2f} pt) over {lower.text[:40]!r} "
                    f"({lower.size:.2f} pt): {gap:.2f} pt apart, {need:.2f} needed"
                )
    return found


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_every_line_has_a_leading_of_at_least_1_15_times_its_size(paper):
    options = PAPERS[paper]
    miniatures = _miniature_slots(options)
    tight = []
    for part, number, page in everything(options):
        if part == "proof":
            page = Page(
                page.width,
                page.height,
                runs=[run for run in page.runs if not any(_inside(run, s) for s in miniatures)],
            )
        tight += [f"{part} p{number}: {line}" for line in tight_lines(page)]
    assert tight == [], "\n".join(sorted(set(tight)))


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_every_text_stands_out_from_what_is_under_it(paper):
    faint = []
    for part, number, page in everything(PAPERS[paper]):
        for run in page.runs:
            if not run.text.strip():
                continue
            ground = background(page, run)
            ratio = contrast(rgb(run.fill), ground)
            need = LARGE_CONTRAST if large(run) else CONTRAST
            if ratio < need:
                faint.append(
                    f"{part} p{number}: {run.text!r} ({run.size:.1f} pt) "
                    f"{ratio:.2f}:1 on {tuple(round(v, 2) for v in ground)}"
                )
    assert faint == [], "\n".join(sorted(set(faint)))


@pytest.mark.parametrize("layout", sorted(CARD_SHEETS))
@pytest.mark.parametrize("part", ["deck", "standard-deck"])
def test_card_sheets_of_every_layout_keep_the_same_type_rules(part, layout):
    problems = []
    for number, page in enumerate(pages_of(part, CARD_SHEETS[layout]), start=1):
        problems += [f"p{number}: {line}" for line in tight_lines(page)]
        for run in page.runs:
            if not run.text.strip():
                continue
            if run.size < MIN_SIZE - 0.005:
                problems.append(f"p{number}: {run.text!r} at {run.size:.2f} pt")
            ratio = contrast(rgb(run.fill), background(page, run))
            if ratio < (LARGE_CONTRAST if large(run) else CONTRAST):
                problems.append(f"p{number}: {run.text!r} at {ratio:.2f}:1")
    assert problems == [], "\n".join(sorted(set(problems)))


def test_the_contrast_measure_sees_white_type_on_a_light_band():
    """The measure can fail: white 8 pt type on the old mustard band (3.25:1)."""
    from reportlab.lib.colors import HexColor

    from printables.sheet import SANS, new_canvas
    from printables.sheet import finish as finish_pdf

    canvas, buffer = new_canvas(Options(), "probe")
    canvas.setFillColor(HexColor("#b8860b"))
    canvas.rect(100, 100, 200, 40, stroke=0, fill=1)
    canvas.setFillColor(HexColor("#ffffff"))
    canvas.setFont(SANS, 8)
    canvas.drawString(110, 115, "white on mustard")
    canvas.setFillColor(HexColor("#222222"))
    canvas.drawString(110, 200, "ink on paper")
    (page,) = read_geometry(finish_pdf(canvas, buffer))
    on_band, on_paper = page.runs
    assert contrast(rgb(on_band.fill), background(page, on_band)) == pytest.approx(3.25, abs=0.01)
    assert background(page, on_paper) == (1.0, 1.0, 1.0)


def test_the_leading_measure_sees_two_lines_that_touch():
    """The measure can fail: 7 pt lines 6.24 pt apart, as the old print note was."""
    from printables.sheet import SANS, new_canvas
    from printables.sheet import finish as finish_pdf

    canvas, buffer = new_canvas(Options(), "probe")
    canvas.setFont(SANS, 7)
    canvas.drawString(100, 300, "Print at 100% (actual size)")
    canvas.drawString(100, 300 - 6.24, "The ruler must measure 50 mm.")
    canvas.drawString(300, 300, "a line beside, not under")
    (page,) = read_geometry(finish_pdf(canvas, buffer))
    assert len(tight_lines(page)) == 1


# --- the aids ----------------------------------------------------------------------------


def _aid_runs(page: Page, box) -> list[TextRun]:
    x0, y0, x1, y1 = box.x, box.y, box.x + box.w, box.y + box.h
    return [
        run
        for run in page.runs
        if x0 <= run.origin[0] <= x1 and y0 <= run.origin[1] <= y1 and not run.furniture
    ]


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_no_section_of_an_aid_is_split_across_its_columns(paper):
    options = PAPERS[paper]
    pages = pages_of("aids", options)
    boxes = aid_boxes(options)
    aids = iter(all_aids())
    for page in pages:
        for box in boxes:
            aid = next(aids, None)
            if aid is None:
                break
            runs = _aid_runs(page, box)
            headings = {heading.upper() for heading, _ in aid.sections}
            middle = box.x + box.w / 2
            sections: dict[str, set[str]] = {}
            current = None
            for run in runs:
                if run.text in headings:
                    current = run.text
                    sections[current] = set()
                elif run.text.startswith("scan:"):
                    break
                if current is not None:
                    sections[current].add("left" if run.bbox[2] <= middle else "right")
            assert set(sections) == headings, aid.game
            split = {name: sides for name, sides in sections.items() if len(sides) > 1}
            assert split == {}, f"{aid.game}: {split}"


@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:5000/",
        "https://games.example.org/",
        "http://192.168.178.23:5000/club/leafpile/" + "x" * 60 + "/",
        ("https://games.example.org/" + "a" * 300)[:299] + "/",  # the longest accepted
    ],
    ids=["localhost", "name", "long", "longest"],
)
def test_the_address_under_each_qr_code_is_printed_whole_and_large(paper, url):
    options = Options(paper=paper, url=url)
    pages = read_geometry(build("aids", options))
    boxes = aid_boxes(options)
    aids = iter(all_aids())
    for page in pages:
        for box in boxes:
            aid = next(aids, None)
            if aid is None:
                break
            runs = _aid_runs(page, box)
            caption = next(i for i, run in enumerate(runs) if run.text.startswith("scan:"))
            lines = runs[caption + 1 :]
            assert "".join(run.text for run in lines) == aid.url(url), aid.game
            assert all(run.size >= ADDRESS_SIZE for run in lines), [r.size for r in lines]
            assert runs[caption].size >= MIN_SIZE
