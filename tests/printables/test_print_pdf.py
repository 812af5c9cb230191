"""What every part of the kit must satisfy, read back from the real PDFs
(with ``tests/printables/pdf_geometry.py``)."""

from __future__ import annotations

import io
import math

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from printables import PARTS, Options, build
from printables.sheet import SAFE_EDGE_MM
from tests.printables.pdf_geometry import A4, LETTER, MM, built, geometry

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
