"""Player aids: one per game, our own words, rule numbers from the referees, a QR code."""

from __future__ import annotations

import pytest

from companion.rules import autumn_ash, autumn_leaves, leaf, pairs, venture
from printables import Options
from printables.aids import QR_MM, aid_boxes, all_aids, fitted_size, qr_matrix
from tests.printables.pdf_geometry import MM, built, read_geometry

URL = "http://192.168.1.23:5000/"
GAMES = [
    "Pairs",
    "Continuous Pairs",
    "Venture",
    "Autumn Leaves",
    "Leaf: the North Wind",
    "Autumn Ash",
]


@pytest.fixture(scope="module", params=["a4", "letter"])
def pages(request):
    return read_geometry(built("aids", Options(paper=request.param, url=URL)))


def _row_after(pages, label):
    """The cells printed on the same line as ``label``, in its own column."""
    for page in pages:
        for (x, y), text in page.texts:
            if text == label:
                cells = [
                    (cx, t)
                    for (cx, cy), t in page.texts
                    if abs(cy - y) < 0.05 and x < cx < x + 93 * MM
                ]
                return [t for _, t in sorted(cells)]
    raise AssertionError(f"no row {label!r}")


def test_there_is_one_aid_per_game_two_to_a_sheet(pages):
    assert len(pages) == 3
    titles = [text for page in pages for _, text in page.texts if text in GAMES]
    assert titles == GAMES


def test_the_pairs_aids_print_the_losing_score_for_each_table_size(pages):
    # P1: 2 → 31 ... 6 or more → 11 (example 6).
    assert _row_after(pages, "Players")[:5] == ["2", "3", "4", "5", "6+"]
    assert _row_after(pages, "You lose at") == [str(pairs.losing_score(n)) for n in range(2, 7)]
    assert _row_after(pages, "You lose at") == ["31", "21", "16", "13", "11"]


def test_the_venture_aid_prints_slug_and_hand_sizes_for_3_to_8_players(pages):
    # V1 and example 5.
    assert _row_after(pages, "Slug") == [str(venture.slug_size(n)) for n in range(3, 9)]
    assert _row_after(pages, "Slug") == ["4", "3", "5", "7", "6", "7"]
    assert _row_after(pages, "Hand") == ["17", "13", "10", "8", "7", "6"]


def test_the_leaf_aid_prints_the_den_and_mushroom_tables(pages):
    # L1 (1 → 1, 2 → 3, 3 → 6, then +1) and L2 (1 → 1, 2 → 3, 3 → 8, then +1).
    assert _row_after(pages, "Den animals") == [str(leaf.animal_acorns(n)) for n in range(1, 6)]
    assert _row_after(pages, "Den animals") == ["1", "3", "6", "7", "8"]
    assert _row_after(pages, "Adult mushrooms") == ["1", "3", "8", "9", "10"]


@pytest.mark.parametrize(
    "phrase",
    [
        # Pairs (P5, P6, P8)
        "you score",
        "lowest card showing",
        "put 5 cards face down",
        # Continuous (P7)
        "ANY card in play",
        "you must hit",
        # Venture (V3, V4, V8)
        "misfires",
        "highest rank on the table",
        "is +1 a card",
        # Autumn Leaves (A1, A4, A6, A8)
        f"Deal {autumn_leaves.HAND_SIZE} cards each",
        "exactly one rank above or",
        "COLD SNAP",
        "never below 0",
        # North Wind (N2, N4, N11)
        "Reshuffle card",
        "a baby mushroom on it",
        "advance the season",
        # Autumn Ash (X1-X4)
        "burnt ash",
        "agree a start layout",
    ],
)
def test_each_aid_says_its_key_rule_in_plain_words(pages, phrase):
    text = " ".join(text for page in pages for _, text in page.texts)
    assert phrase.lower() in text.lower()


def test_the_autumn_ash_aid_lists_every_colour_bonus_and_the_winning_total(pages):
    # X2, X3 and example 17-18.
    text = " ".join(text for page in pages for _, text in page.texts)
    for colour, bonus in autumn_ash.COLOUR_BONUS.items():
        if bonus:
            assert f"{colour} +{bonus}" in text
    assert f"first to {autumn_ash.WINNING_TOTAL} points wins" in text


def _qr_from_page(page, box, matrix_size):
    """Rebuild the QR modules drawn in the aid box's top-right corner."""
    cell = QR_MM * MM / matrix_size
    x0 = box.x + box.w - (3 + QR_MM) * MM
    top = box.y + box.h - (11 + 3) * MM
    grid = [[False] * matrix_size for _ in range(matrix_size)]
    for path in page.paths:
        for x, y, w, h in path.rects:
            if abs(h - cell) > 0.01 or not (x0 - 0.01 <= x <= x0 + QR_MM * MM):
                continue
            if not (top - QR_MM * MM - 0.01 <= y <= top):
                continue
            row = round((top - y - h) / cell)
            first = round((x - x0) / cell)
            for column in range(first, first + round(w / cell)):
                grid[row][column] = True
    return grid


GAME_PAGES = {
    "Pairs": "new/pairs",
    "Continuous Pairs": "new/pairs",
    "Venture": "new/venture",
    "Autumn Leaves": "new/autumn_leaves",
    "Leaf: the North Wind": "new/north_wind",
    "Autumn Ash": "new/autumn_ash",
}


@pytest.mark.parametrize("base", [URL, "https://games.example.org/leafpile"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_aid_carries_a_qr_code_of_its_own_games_page_and_prints_the_address(paper, base):
    options = Options(paper=paper, url=base)
    pages = read_geometry(built("aids", options))
    aids = all_aids()
    for number, page in enumerate(pages):
        for aid, box in zip(aids[2 * number : 2 * number + 2], aid_boxes(options), strict=True):
            link = base.rstrip("/") + "/" + GAME_PAGES[aid.game]
            assert aid.url(base) == link
            expected = qr_matrix(link)
            assert _qr_from_page(page, box, len(expected)) == expected, aid.game
            # The address is printed in full (on two lines if it is long).
            assert link in page.text.replace("/\n", "/")


def test_a_different_url_gives_a_different_code():
    assert qr_matrix("http://10.0.0.5:8000/") != qr_matrix(URL)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_aid_fits_its_half_page_in_readable_type(paper):
    for aid in all_aids():
        for box in aid_boxes(Options(paper=paper)):
            assert fitted_size(aid, box) >= 7.5, aid.game


def test_the_qr_captions_take_the_right_article_and_the_leaf_aid_reads_right(pages):
    text = "\n".join(page.text for page in pages)
    assert "scan: an Autumn Leaves table" in text and "scan: an Autumn Ash table" in text
    assert "scan: a Pairs table" in text and "scan: a Leaf table" in text
    assert "a Autumn" not in text
    leaf_lines = " ".join(line for aid in all_aids() for line in aid.key_lines)
    assert "after it grow one" not in leaf_lines
    assert "before the first hibernation, after that grow one" in leaf_lines
