"""Score pads: one sheet per game, numbers from the referees."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from companion.rules import autumn_ash, autumn_leaves, cards, leaf, pairs, venture
from printables import Options
from tests.printables.pdf_geometry import MM, built, read_geometry


@pytest.fixture(scope="module", params=["a4", "letter"])
def pages(request):
    return read_geometry(built("scorepads", Options(paper=request.param)))


def _texts(page):
    return [text for _, text in page.texts]


def test_there_is_one_sheet_per_game(pages):
    titles = [_texts(page)[0] for page in pages]
    assert titles == ["Autumn Leaves", "Pairs", "Venture", "Leaf", "Autumn Ash"]


def test_autumn_leaves_has_6_hands_for_up_to_6_players_twice(pages):
    texts = Counter(_texts(pages[0]))
    for hand in range(1, autumn_leaves.HANDS + 1):
        assert texts[f"Hand {hand}"] == 2
    assert texts["Hand 7"] == 0
    assert f"up to {autumn_leaves.MAX_PLAYERS} players" in pages[0].text
    # Example 9-11: the worked scores printed as a check.
    assert "3 for a 9 in hand with 6 in the pile; 0 for a 4; -5 for emptying" in pages[0].text


def test_pairs_has_a_tally_row_per_player_up_to_the_losing_score(pages):
    from printables.scorepads import PAIRS_MANY_ROWS, PAIRS_OWN_TARGET_ROWS

    page = pages[1]
    for players in range(2, 7):
        target = pairs.losing_score(players)
        assert f"you lose at {target}" in page.text
    assert "6 or more players" in page.text
    assert "Your own target" in page.text
    # One box per point: 2 x 31 + 3 x 21 + 4 x 16 + 5 x 13, then 8 rows of 11
    # for 6 or more players and 6 rows of 31 blank-target boxes.
    rows = {players: players for players in range(2, 6)} | {6: PAIRS_MANY_ROWS}
    expected = sum(count * pairs.losing_score(players) for players, count in rows.items())
    expected += PAIRS_OWN_TARGET_ROWS * pairs.losing_score(2)
    boxes = [
        rect
        for path in page.paths
        for rect in path.rects
        if abs(rect[2] - rect[3]) < 0.01 and 3 * MM < rect[2] < 6 * MM
    ]
    assert PAIRS_MANY_ROWS >= 8
    assert len(boxes) == expected == 254 + 88 + 186
    numbers = Counter(_texts(page))
    assert numbers["31"] == 2 + PAIRS_OWN_TARGET_ROWS  # two-player rows and own-target rows


def test_venture_tallies_every_rank_with_its_copies_for_8_players(pages):
    texts = _texts(pages[2])
    for rank in cards.RANKS:
        assert f"of {cards.copies(rank)}" in texts
    assert "Final pool" in texts
    assert f"{venture.MIN_PLAYERS}-{venture.MAX_PLAYERS} players" in pages[2].text


def test_leaf_breaks_the_score_down_l1_to_l5_with_a_north_wind_column(pages):
    text = pages[3].text
    # The five parts of the final score (L1-L5), named in words: ruling ids
    # are for the rules' readers, not for players' paper.
    for part in (
        "Winter Den animals",
        "Adult mushroom groups",
        "Sun + leaf cards",
        "Tree: highest 6",
        "Total",
    ):
        assert part in text
    assert not re.search(r"\b[A-Z]{1,2}\d+\b", text.replace("L1-L5", "")), text
    assert "North Wind" in text
    texts = _texts(pages[3])
    at = texts.index("Den animals")
    assert texts[at + 1 : at + 7] == [str(leaf.animal_acorns(n)) for n in range(1, 7)]
    at = texts.index("Mushroom group")
    assert texts[at + 1 : at + 7] == [str(leaf.mushroom_acorns(n)) for n in range(1, 7)]


def test_autumn_ash_races_to_21_with_the_colour_bonuses(pages):
    text = pages[4].text
    for colour, bonus in autumn_ash.COLOUR_BONUS.items():
        if bonus:
            assert f"{colour} +{bonus}" in text
    assert f"race to {autumn_ash.WINNING_TOTAL}" in text
    assert "green > yellow > red > blue > black" in text
    assert "clear > white > orange > cyan > purple" in text
    assert "a red trio scores 9" in text
