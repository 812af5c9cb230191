"""Pyramid nets: true Looney sizes, read back from the real PDF."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from companion.rules import autumn_ash
from printables import Options
from printables.pyramids import (
    GAP_MM,
    SIZES,
    _apart,
    layout_pages,
    net_dimensions,
)
from tests.printables.pdf_geometry import MM, built, read_geometry


@pytest.fixture(scope="module", params=["a4", "letter"])
def pages(request):
    return read_geometry(built("pyramids", Options(paper=request.param)))


def _triangles(pages):
    for page in pages:
        for path in page.paths:
            if path.op in ("f", "f*") and len(path.subpaths) == 1 and len(path.subpaths[0]) == 3:
                yield path.subpaths[0]


def _sides_mm(triangle):
    a, b, c = triangle
    return sorted(math.dist(p, q) / MM for p, q in ((a, b), (b, c), (c, a)))


@pytest.mark.parametrize(
    ("size", "base", "height"),
    [("small", 14.29, 25.40), ("medium", 19.84, 34.93), ("large", 25.40, 44.45)],
)
def test_a_net_folds_into_a_pyramid_of_the_true_looney_size(size, base, height):
    dims = net_dimensions(size)
    assert dims.base == base
    # Folded, the side edge (apex to corner) and half the base diagonal give
    # back the pyramid's height.
    assert math.sqrt(dims.edge**2 - (base / math.sqrt(2)) ** 2) == pytest.approx(height, abs=1e-9)
    # A face is an isosceles triangle with the slant height as its height.
    assert math.sqrt(dims.edge**2 - (base / 2) ** 2) == pytest.approx(dims.slant, abs=1e-9)
    assert 2 * dims.edge * math.sin(dims.apex_angle / 2) == pytest.approx(base, abs=1e-9)


def test_every_face_in_the_pdf_is_within_0_2_mm_of_the_computed_net(pages):
    found = Counter()
    for triangle in _triangles(pages):
        sides = _sides_mm(triangle)
        matches = [
            size
            for size in SIZES
            if all(
                abs(got - want) <= 0.2
                for got, want in zip(
                    sides,
                    sorted([net_dimensions(size).base, *[net_dimensions(size).edge] * 2]),
                    strict=True,
                )
            )
        ]
        assert len(matches) == 1, sides
        found[matches[0]] += 1
    # 10 colours x 2 trios: 20 pyramids of each size, 4 faces each.
    assert found == {"small": 80, "medium": 80, "large": 80}


def test_each_of_the_10_colours_is_named_on_every_face_of_its_6_pyramids(pages):
    words = Counter(text for page in pages for _, text in page.texts)
    assert len(autumn_ash.COLOURS) == 10
    for colour in autumn_ash.COLOURS:
        assert words[colour] == 6 * 4, colour


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_nets_never_touch_each_other(paper):
    for page in layout_pages(Options(paper=paper)):
        for i, net in enumerate(page):
            for other in page[i + 1 :]:
                assert _apart(net.outline, other.outline, GAP_MM * MM - 0.01), (net, other)


@pytest.mark.parametrize(("paper", "sheets"), [("a4", 3), ("letter", 3)])
def test_the_60_nets_are_packed_onto_3_a4_or_3_letter_sheets(paper, sheets):
    pages = layout_pages(Options(paper=paper))
    assert sum(len(page) for page in pages) == 60
    assert len(pages) == sheets


def test_an_unknown_size_is_refused_by_name():
    with pytest.raises(ValueError, match="'huge'"):
        net_dimensions("huge")


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_every_glue_tab_is_at_least_5_mm_wide_to_fold_and_glue(size):
    from printables.pyramids import GLUE_TAB_MM, layout_pages

    net = next(net for page in layout_pages(Options()) for net in page if net.size == size)
    (ax, ay), (px, py) = net.apex, net.corners[4]
    length = math.hypot(px - ax, py - ay)
    for tx, ty in net.tab:
        # Distance from the tab's outer corner to the edge it folds on.
        depth = abs((px - ax) * (ay - ty) - (ax - tx) * (py - ay)) / length
        assert depth >= GLUE_TAB_MM * MM - 0.01
    assert GLUE_TAB_MM >= 5
