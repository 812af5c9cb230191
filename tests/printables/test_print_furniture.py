"""What a print shop checks, read back from the real PDFs.

Page furniture (ruler, note, sheet labels, crop marks, cut lines) is drawn as
PDF artifacts; everything else is the game's own drawing: cards with their
bleed, backs, nets, the board, aids, pads. These tests read the PDF's own
drawing (see ``read_geometry``) and measure text with the embedded font's own
widths, ascent and descent.
"""

from __future__ import annotations

import io
import itertools

import pytest
from pypdf import PdfReader

from printables import PARTS, Options
from printables.deck import sheet_layout
from printables.sheet import MAX_BACK_OFFSET_MM, SAFE_EDGE_MM
from tests.printables.pdf_geometry import MM, built, read_geometry

Box = tuple[float, float, float, float]
SLACK = 0.01  # points: touching is not overlapping

LIMIT = MAX_BACK_OFFSET_MM
OFFSETS = [(0.0, 0.0), (LIMIT, LIMIT), (-LIMIT, -LIMIT), (LIMIT, -LIMIT)]
DECK_CHOICES = list(itertools.product(["a4", "letter"], ["poker", "ccg"], [False, True]))
SHEET_PARTS = ["duplex-test", "aids", "scorepads", "board", "pyramids"]


def _overlap(a: Box, b: Box) -> bool:
    return (
        a[0] < b[2] - SLACK and b[0] < a[2] - SLACK and a[1] < b[3] - SLACK and b[1] < a[3] - SLACK
    )


def _boxes(page, furniture: bool) -> list[tuple[Box, str]]:
    boxes = [
        (path.ink_bbox(), f"{path.op} path")
        for path in page.paths
        if path.visible and path.furniture == furniture
    ]
    boxes += [(run.bbox, repr(run.text)) for run in page.runs if run.furniture == furniture]
    return boxes


def _assert_furniture_clear(pages, what: str) -> None:
    for number, page in enumerate(pages, start=1):
        art = _boxes(page, furniture=False)
        for box, name in _boxes(page, furniture=True):
            hits = [other for other, _ in art if _overlap(box, other)]
            assert not hits, f"{what} page {number}: furniture {name} at {box} lies on {hits[0]}"


@pytest.mark.parametrize(("paper", "card", "bleed"), DECK_CHOICES)
@pytest.mark.parametrize("deck", ["deck", "standard-deck"])
def test_furniture_never_lies_on_a_card_or_its_bleed(deck, paper, card, bleed):
    options = Options(ink_saving=False, paper=paper, card=card, bleed=bleed)
    pages = read_geometry(built(deck, options))
    _assert_furniture_clear(pages, f"{deck} {options}")
    # And the sheet's cards are really there: every face page has furniture
    # and art, so the check above compared something.
    for page in pages[::2]:
        assert _boxes(page, furniture=True) and _boxes(page, furniture=False)


@pytest.mark.parametrize("offset", OFFSETS[1:])
@pytest.mark.parametrize(("paper", "card", "bleed"), DECK_CHOICES)
def test_at_the_largest_corrections_backs_stay_clear_of_furniture_and_the_edge(
    paper, card, bleed, offset
):
    options = Options(ink_saving=False, paper=paper, card=card, bleed=bleed, back_offset=offset)
    pages = read_geometry(built("deck", options), first=2)
    _assert_furniture_clear(pages, f"deck {options}")
    back = pages[1]
    assert not _boxes(back, furniture=True), "a back page carries no furniture"
    limit = SAFE_EDGE_MM * MM - SLACK
    for path in back.paths:
        if path.visible:
            x0, y0, x1, y1 = path.bbox()
            assert x0 >= limit and y0 >= limit
            assert x1 <= back.width - limit and y1 <= back.height - limit


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("part", SHEET_PARTS)
def test_furniture_never_lies_on_a_net_board_aid_or_pad(part, paper):
    options = Options(paper=paper, url="https://games.example.org/leafpile/" + "x" * 120)
    pages = read_geometry(built(part, options))
    _assert_furniture_clear(pages, part)
    assert any(_boxes(page, furniture=True) for page in pages)


def test_the_letter_ruler_no_longer_reaches_the_cards():
    """The bug that started issue 11: on Letter the vertical ruler's base
    line sat at x = 15 mm, 1.5-2.3 mm inside the left card column."""
    for card in ("poker", "ccg"):
        options = Options(paper="letter", card=card)
        layout = sheet_layout(options)
        assert layout.ruler.vertical
        page = read_geometry(built("deck", options), first=1)[0]
        left_cards = min(slot.x for slot in layout.slots)
        band = layout.ruler.box
        ruler = [
            path
            for path in page.paths
            if path.furniture and band.y - 0.01 <= path.bbox()[1] and path.bbox()[3] <= band.top
        ]
        assert len(ruler) > 50  # base line and 51 ticks
        assert max(abs(path.bbox()[3] - path.bbox()[1]) for path in ruler) > 49.9 * MM
        assert max(path.ink_bbox()[2] for path in ruler) < left_cards
        assert min(path.ink_bbox()[0] for path in ruler) >= SAFE_EDGE_MM * MM - SLACK


def _all_fonts(pdf: bytes):
    reader = PdfReader(io.BytesIO(pdf))
    seen = {}
    for page in reader.pages:
        stack = [page["/Resources"]]
        while stack:
            resources = stack.pop().get_object()
            for name, font in resources.get("/Font", {}).items():
                seen[font.indirect_reference or name] = font.get_object()
            for xobject in resources.get("/XObject", {}).values():
                xobject = xobject.get_object()
                if "/Resources" in xobject:
                    stack.append(xobject["/Resources"])
    return list(seen.values())


@pytest.mark.parametrize("part", sorted(set(PARTS) - {"kit"}))
def test_every_font_is_a_subset_embedded_in_the_file(part):
    fonts = _all_fonts(built(part, Options()))
    assert fonts
    for font in fonts:
        name = str(font["/BaseFont"])
        descriptor = font["/FontDescriptor"].get_object()
        assert "/FontFile2" in descriptor, name
        assert len(name) > 8 and name[7] == "+", f"{name} is not a subset"
        assert "LiberationSans" in name


def test_the_font_and_its_licence_ship_with_the_package():
    from importlib.resources import files

    fonts = files("printables") / "fonts"
    assert (fonts / "LiberationSans-Regular.ttf").is_file()
    assert (fonts / "LiberationSans-Bold.ttf").is_file()
    assert "SIL OPEN FONT LICENSE" in (fonts / "LICENSE").read_text()


def test_pip_installs_the_font_files_and_their_licence():
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["printables"]
    files = sorted((root / "printables" / "fonts").iterdir())
    assert len(files) == 3
    for path in files:
        relative = path.relative_to(root / "printables").as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), relative


def _enclosing_box(page, run) -> Box | None:
    """The smallest drawn shape (not furniture) whose box holds the run's
    origin and is at least half as tall as the type each way: the box the
    text belongs in."""
    x, y = run.origin
    best = None
    for path in page.paths:
        if path.furniture or not path.visible:
            continue
        box = path.bbox()
        if not (box[0] <= x + 0.5 <= box[2] and box[1] <= y + 0.5 <= box[3]):
            continue
        if min(box[2] - box[0], box[3] - box[1]) < run.size * 0.5:
            continue  # a line, a dot, a bar: not a box to write in
        if path.op in ("S", "s") and all(len(sub) == 2 for sub in path.subpaths):
            continue  # straight strokes (a slanted fold line): no box either
        area = (box[2] - box[0]) * (box[3] - box[1])
        if best is None or area < best[0]:
            best = (area, box)
    return best[1] if best else None


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize(
    "part", ["deck", "standard-deck", "aids", "scorepads", "board", "pyramids"]
)
def test_every_text_fits_the_box_it_is_printed_in(part, paper):
    """By the font's own metrics, every string stays inside the smallest
    shape that holds its start: a stash box, a pad's cell, a card, an aid."""
    pages = read_geometry(built(part, Options(paper=paper)))
    checked = 0
    for number, page in enumerate(pages, start=1):
        for run in page.runs:
            if run.furniture or not run.text.strip():
                continue
            box = _enclosing_box(page, run)
            if box is None:
                continue
            checked += 1
            x0, y0, x1, y1 = run.bbox
            tol = 0.1
            assert box[0] - tol <= x0 and x1 <= box[2] + tol, (
                f"{part} page {number}: {run.text!r} is {run.width / MM:.2f} mm wide, "
                f"from {x0 / MM:.2f} to {x1 / MM:.2f} mm in a box from "
                f"{box[0] / MM:.2f} to {box[2] / MM:.2f} mm"
            )
            assert box[1] - tol <= y0 and y1 <= box[3] + tol, (
                f"{part} page {number}: {run.text!r} sticks out of its box vertically"
            )
    assert checked > 20


def test_burnt_ash_fits_its_stash_box():
    from printables.board import BOX_MM

    pages = read_geometry(built("board", Options()))
    runs = [run for page in pages for run in page.runs]
    burnt = [run for run in runs if "burnt ash" in run.text and "never" in run.text]
    assert not burnt, "one line 'burnt ash: never moves' is 31 mm: it comes on two lines"
    for text in ("burnt ash:", "never moves"):
        found = [run for run in runs if run.text == text]
        assert len(found) == 2
        assert all(run.width / MM < BOX_MM - 4 for run in found)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_no_aid_text_runs_under_its_qr_code(paper):
    from printables.aids import QR_MM

    pages = read_geometry(built("aids", Options(paper=paper)))
    for number, page in enumerate(pages, start=1):
        # A QR code is the only place with dozens of tiny black squares.
        cells = [
            path.bbox()
            for path in page.paths
            if path.rects and all(r[3] < QR_MM * MM / 15 for r in path.rects)
        ]
        qr_boxes = []
        for box in cells:
            for qr in qr_boxes:
                if _overlap(box, (qr[0] - 3, qr[1] - 3, qr[2] + 3, qr[3] + 3)):
                    qr[:] = [
                        min(qr[0], box[0]),
                        min(qr[1], box[1]),
                        max(qr[2], box[2]),
                        max(qr[3], box[3]),
                    ]
                    break
            else:
                qr_boxes.append(list(box))
        qr_boxes = [tuple(q) for q in qr_boxes if q[2] - q[0] > QR_MM * MM * 0.9]
        assert len(qr_boxes) == 2, f"page {number}: {len(qr_boxes)} QR codes"
        for run in page.runs:
            for qr in qr_boxes:
                assert not _overlap(run.bbox, qr), f"page {number}: {run.text!r} under the QR"


@pytest.mark.parametrize(
    ("labels", "paper"),
    [
        (("How many", "Den animals", "Adult mushrooms"), "a4"),
        (("Players", "Slug", "Hand"), "a4"),
        (("Players", "You lose at"), "a4"),
        (("How many", "Den animals", "Adult mushrooms"), "letter"),
    ],
)
def test_the_aids_score_tables_line_up_within_half_a_millimetre(labels, paper):
    pages = read_geometry(built("aids", Options(paper=paper)))
    for page in pages:
        label_runs = {run.text: run for run in page.runs if run.text in labels}
        if set(label_runs) != set(labels):
            continue
        columns = []
        for label in labels:
            base = label_runs[label]
            cells = sorted(
                (
                    run
                    for run in page.runs
                    if abs(run.origin[1] - base.origin[1]) < 0.5
                    and run.origin[0] > base.origin[0]
                    and run.origin[0] - base.origin[0] < 90 * MM
                ),
                key=lambda run: run.origin[0],
            )
            columns.append([(run.bbox[0] + run.bbox[2]) / 2 for run in cells])
        counts = {len(column) for column in columns}
        assert len(counts) == 1 and counts.pop() >= 2, columns
        for cells in zip(*columns, strict=True):
            assert max(cells) - min(cells) <= 0.5 * MM, [c / MM for c in cells]
        return
    pytest.fail(f"no aid page has the table {labels}")


def test_a_6_and_a_9_are_underlined_and_no_other_rank_is():
    page = read_geometry(built("deck", Options()), first=5)[4]  # faces with 6s and 7s
    bars = [
        path.bbox()
        for path in page.paths
        if not path.furniture and path.rects and path.rects[0][3] < 3 * MM
    ]
    ranks = [
        run
        for run in page.runs
        if run.text in ("6", "7") and run.size > 10 and abs(run.origin[0] - run.bbox[0]) < 0.01
    ]  # upright ones (the turned corner's bar sits above its origin)
    assert {run.text for run in ranks} == {"6", "7"}
    for run in ranks:
        under = [
            bar
            for bar in bars
            if abs((bar[0] + bar[2]) / 2 - (run.bbox[0] + run.bbox[2]) / 2) < 0.5
            and run.origin[1] - run.size * 0.3 < bar[3] <= run.origin[1]
            and abs((bar[2] - bar[0]) - run.width) < 0.5
        ]
        assert bool(under) == (run.text == "6"), (run.text, run.origin)
