"""White text on the player aids sits on its coloured band, every row of it.

The title band was once one path of two overlapping shapes filled even-odd:
the overlap was a hole, and the lower half of every title and tagline was
white on white paper. These tests render each aid page with PDFium and look
at the pixels behind every white text run the PDF draws.
"""

from __future__ import annotations

import pypdfium2
import pytest
from PIL import Image

from printables import Options
from printables.aids import all_aids
from tests.printables.pdf_geometry import built, geometry

DPI = 200
SCALE = DPI / 72


def _render(pdf: bytes, index: int) -> Image.Image:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return document[index].render(scale=SCALE).to_pil().convert("RGB")
    finally:
        document.close()


def _is_white(pixel: tuple[int, int, int]) -> bool:
    return min(pixel) >= 235


def _white_runs(page):
    return [run for run in page.runs if run.fill in ((1.0,), (1.0, 1.0, 1.0))]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_white_text_on_an_aid_sits_on_its_band_in_every_row(paper):
    options = Options(paper=paper)
    pdf = built("aids", options)
    pages = geometry("aids", options)
    aids = all_aids()
    seen: list[str] = []
    for index, page in enumerate(pages):
        runs = _white_runs(page)
        if not runs:
            continue
        image = _render(pdf, index)
        for run in runs:
            seen.append(run.text)
            x0, y0, x1, y1 = run.bbox
            left, right = round(x0 * SCALE) + 1, round(x1 * SCALE) - 1
            top = round((page.height - y1) * SCALE) + 1
            bottom = round((page.height - y0) * SCALE) - 1
            assert right - left > 10 and bottom - top > 5, run.text
            bare_rows = []
            for row in range(top, bottom):
                pixels = [image.getpixel((column, row)) for column in range(left, right)]
                ground = sum(1 for pixel in pixels if not _is_white(pixel)) / len(pixels)
                # Between and around the glyphs the band shows: a row through a
                # hole in the band is (nearly) all white paper.
                if ground < 0.3:
                    bare_rows.append(row)
            assert not bare_rows, (
                f"{run.text!r} on page {index + 1}: {len(bare_rows)} of {bottom - top} pixel "
                "rows are white on white"
            )
    titles = {aid.game for aid in aids} | {aid.tagline for aid in aids}
    assert titles <= set(seen), titles - set(seen)


def test_the_band_is_one_shape_filled_non_zero_so_nothing_punches_a_hole():
    """The band's path is filled with ``f`` (non-zero), never ``f*``."""
    page = geometry("aids", Options())[0]
    aid = all_aids()[0]
    title = next(run for run in page.runs if run.text == aid.game)
    bands = [
        path
        for path in page.paths
        if not path.furniture
        and path.op in ("f", "f*")
        and path.bbox()[0] <= title.bbox[0]
        and path.bbox()[1] <= title.bbox[1]
        and path.bbox()[3] >= title.bbox[3]
        and path.bbox()[2] - path.bbox()[0] > 100 * 72 / 25.4
    ]
    assert bands, "no band behind the title"
    assert all(path.op == "f" for path in bands)
    assert all(len(path.subpaths) == 1 for path in bands)
