"""Duplex that cannot go wrong: the test sheet, the correction, light backs."""

from __future__ import annotations

import io

import pypdfium2
import pytest

from printables import Options
from printables.duplex import SCALE_GAP_MM, SCALE_TYPE, back_zero, targets
from tests.printables.pdf_geometry import MM, built, read_geometry

CORRECTIONS = [(0.0, 0.0), (1.5, -1.0), (-5.0, 5.0)]


def _zero_labels(page):
    """The centres of the scales' "0" labels on the back page."""
    return [
        ((run.bbox[0] + run.bbox[2]) / 2, run.origin[1]) for run in page.runs if run.text == "0"
    ]


@pytest.mark.parametrize("correction", CORRECTIONS)
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_scales_sit_behind_the_crosses_moved_by_exactly_the_correction(paper, correction):
    options = Options(paper=paper, back_offset=correction)
    front, back = read_geometry(built("duplex-test", options))
    width = front.width
    dx, dy = correction
    zeros = _zero_labels(back)
    assert len(zeros) == 2 * len(targets(options))  # an x and a y scale per cross
    for tx, ty in targets(options):
        # The cross is really on the front: two long lines through (tx, ty).
        through = [
            path
            for path in front.paths
            if any(
                len(sub) == 2
                and min(p[0] for p in sub) - 0.01 <= tx <= max(p[0] for p in sub) + 0.01
                and min(p[1] for p in sub) - 0.01 <= ty <= max(p[1] for p in sub) + 0.01
                for sub in path.subpaths
            )
        ]
        assert len(through) >= 2
        zx, zy = back_zero(options, (tx, ty))
        assert zx == pytest.approx(width - tx + dx * MM, abs=0.01)
        assert zy == pytest.approx(ty + dy * MM, abs=0.01)
        # The x scale's 0 is under the mirrored cross, moved by the correction.
        assert any(abs(x - zx) < 0.01 for x, _ in zeros)
    # The printed correction is stated on the front, so a reading can be added to it.
    assert f"x = {dx:+.1f} mm, y = {dy:+.1f} mm" in front.text


def test_a_printer_shift_is_read_as_the_correction_that_undoes_it():
    """Simulate a printer that puts the back 1.5 mm right and 1 mm down: the
    front's cross then meets the scale marks labelled -1.5... read as -1 and
    +1 on the whole-mm numbers, i.e. exactly the move that undoes the shift."""
    options = Options()
    _, back = read_geometry(built("duplex-test", options))
    shift = (1.5, -1.0)
    tx, ty = targets(options)[0]
    zx, zy = back_zero(options, (tx, ty))
    x_scale = [
        (run.text, (run.bbox[0] + run.bbox[2]) / 2)
        for run in back.runs
        if 0 < (zy - SCALE_GAP_MM * MM) - run.origin[1] < 14 * MM
        and abs(run.origin[0] - zx) < 8 * MM
    ]
    # Where the front's upright line falls on the shifted back: it is at the
    # mirrored cross, i.e. zx, while every back mark moved by the shift.
    under_cross = min(x_scale, key=lambda item: abs(item[1] + shift[0] * MM - zx))
    assert under_cross[0] in ("-1", "-2")  # between -2 and -1: reads -1.5 on the ticks
    y_scale = [
        (run.text, run.origin[1] + SCALE_TYPE * 0.72 / 2)  # the number's middle
        for run in back.runs
        if 0 < run.bbox[0] - (zx + SCALE_GAP_MM * MM) < 14 * MM and abs(run.origin[1] - zy) < 6 * MM
    ]
    under_level = min(y_scale, key=lambda item: abs(item[1] + shift[1] * MM - zy))
    assert under_level[0] == "+1"


def _ink(pdf: bytes, page: int) -> float:
    """Mean ink coverage (0 white, 1 black) of a page rendered at 20 dpi."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        image = document[page].render(scale=20 / 72).to_pil().convert("L")
    finally:
        document.close()
    from PIL import ImageStat

    return 1 - ImageStat.Stat(image).mean[0] / 255


def test_ink_saving_backs_are_the_default_and_use_a_fraction_of_the_ink():
    dark = _ink(built("deck", Options(ink_saving=False)), 1)
    light = _ink(built("deck", Options()), 1)
    assert Options().ink_saving
    assert dark > 0.5
    assert light < 0.15
    assert light < dark / 4


def test_the_kit_with_full_backs_says_so_in_its_name():
    from printables import filename

    assert filename("kit", Options(ink_saving=False)) == "leafpile-kit-a4-poker-full-backs.pdf"
    assert filename("kit", Options()) == "leafpile-kit-a4-poker.pdf"


def test_every_card_image_is_the_card_plus_3_mm_of_bleed_painted_to_the_edge():
    import zipfile

    from PIL import Image

    from printables.images import card_images

    archive = zipfile.ZipFile(io.BytesIO(card_images("deck", Options(card="ccg"), 150)))
    for name in ("pairs-01-rank-1.png", "pairs-56-cut-card.png", "back.png"):
        with Image.open(io.BytesIO(archive.read(name))) as image:
            assert image.size == (round(69 / 25.4 * 150), round(94 / 25.4 * 150))
            rgb = image.convert("RGB")
            # The art runs into the bleed: no white paper at the image's edge.
            for corner in ((0, 0), (image.width - 1, image.height - 1)):
                assert rgb.getpixel(corner) != (255, 255, 255), (name, corner)
