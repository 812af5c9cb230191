"""Autumn Ash: pieces (X1), bag score (X2), the race to 21 (X3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import actions, autumn_ash
from companion.rules.autumn_ash import Bag, bag_points, new_game, score_bag
from companion.rules.errors import IllegalAction, RuleError, TooManyCopies


# X1
@pytest.mark.parametrize(
    ("size", "pips"),
    [("pawn", 1), ("small", 1), ("drone", 2), ("medium", 2), ("queen", 3), ("large", 3)],
)
def test_sizes_are_one_two_three_pips_x1(size, pips):
    assert autumn_ash.check_piece(("red", size)) == ("red", pips)


def test_progressions_are_rainbow_and_xeno_in_order_x1():
    assert autumn_ash.RAINBOW == ("green", "yellow", "red", "blue", "black")
    assert autumn_ash.XENO == ("clear", "white", "orange", "cyan", "purple")
    assert sorted(autumn_ash.BURNT_ASH) == ["black", "purple"]


@pytest.mark.parametrize(
    ("colour", "after"),
    [
        ("green", "yellow"), ("yellow", "red"), ("red", "blue"), ("blue", "black"),
        ("black", None), ("clear", "white"), ("white", "orange"), ("orange", "cyan"),
        ("cyan", "purple"), ("purple", None),
    ],
)  # fmt: skip
def test_each_colour_turns_into_the_next_of_its_progression_x1(colour, after):
    assert autumn_ash.next_colour(colour) == after


# Example 17 / X2: the bonuses.
@pytest.mark.parametrize(
    ("colour", "bonus"),
    [("red", 3), ("orange", 3), ("blue", 6), ("cyan", 6), ("black", 12), ("purple", 12),
     ("green", 0), ("yellow", 0), ("clear", 0), ("white", 0)],
)  # fmt: skip
def test_example_17_colour_bonuses_x2(colour, bonus):
    assert autumn_ash.COLOUR_BONUS[colour] == bonus
    # One pawn of the colour scores its pip plus the bonus.
    assert bag_points([(colour, 1)]) == 1 + bonus


@pytest.mark.parametrize(
    ("pieces", "points"),
    [
        ([], 0),
        ([("yellow", 1), ("yellow", 2), ("yellow", 3)], 6),
        ([("red", 1), ("red", 1), ("red", 2)], 4 + 3),  # one bonus per move, not per piece
        ([("blue", 3), ("blue", 3), ("blue", 2)], 8 + 6),
        ([("black", 3), ("black", 3), ("black", 2)], 8 + 12),
        # Two rows of different colours in one move: both bonuses, once each.
        ([("red", 1), ("red", 2), ("red", 3), ("blue", 1), ("blue", 1), ("blue", 2)], 10 + 3 + 6),
        ([("orange", "pawn"), ("orange", "drone"), ("orange", "queen")], 6 + 3),
        ([("purple", 1), ("purple", 1), ("purple", 2), ("purple", 2)], 6 + 12),
    ],
)
def test_bag_points_are_pips_plus_one_bonus_per_colour_x2(pieces, points):
    assert bag_points(pieces) == points


def test_bag_points_takes_any_iterable_once_x2():
    assert bag_points(iter([("cyan", 2), ("cyan", 2), ("cyan", 3)])) == 7 + 6


def test_breakdown_names_pips_and_each_bonus_x2():
    score = score_bag([("red", 1), ("red", 2), ("red", 3), ("blue", 1), ("blue", 1), ("blue", 2)])
    assert (score.pips, score.bonuses, score.total) == (10, (("red", 3), ("blue", 6)), 19)
    assert score.describe() == "10 pips + red 3 + blue 6 = 19"


@pytest.mark.parametrize(
    ("pieces", "error", "words"),
    [
        ([("pink", 1)], RuleError, "'pink' is not an Autumn Ash colour"),
        ([("red", 4)], RuleError, "4 is not a piece size"),
        ([("red", 0)], RuleError, "0 is not a piece size"),
        ([("red", True)], RuleError, "True is not a piece size"),
        ([("red",)], RuleError, "is not a piece"),
        (["red"], RuleError, "is not a piece"),
        ([("red", 1)] * 3, TooManyCopies, "only 2 red pawns in the game, not 3"),
        ([("green", 3)] * 2, TooManyCopies, "only 1 green queen in the game, not 2"),
    ],
)
def test_bag_points_rejects_pieces_the_game_does_not_have(pieces, error, words):
    with pytest.raises(error, match=words):
        bag_points(pieces)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(autumn_ash.COLOURS), st.integers(1, 3)), max_size=8).filter(
        lambda ps: all(ps.count(p) <= autumn_ash.TRIOS[p[0]] for p in ps)
    )
)
def test_bag_points_is_pips_plus_bonus_of_distinct_colours_in_any_order_x2(pieces):
    bonus = sum(autumn_ash.COLOUR_BONUS[c] for c in {c for c, _ in pieces})
    expected = sum(p for _, p in pieces) + bonus
    assert bag_points(pieces) == expected
    assert bag_points(list(reversed(pieces))) == expected


# --- the race ---------------------------------------------------------------

RED_ROW = (("red", 1), ("red", 2), ("red", 3))  # 9
BLACK_ROW = (("black", 3), ("black", 3), ("black", 2))  # 20
PURPLE_ROW = (("purple", 1), ("purple", 1), ("purple", 2))  # 16
CYAN_ROW = (("cyan", 1), ("cyan", 1), ("cyan", 2))  # 10


def test_example_18_first_to_21_or_more_wins_x3():
    race = new_game("Ana", "Ben")
    race = autumn_ash.apply(race, Bag("Ana", BLACK_ROW))  # 20: not yet
    assert race.winner is None
    race = autumn_ash.apply(race, Bag("Ben", CYAN_ROW))
    race = autumn_ash.apply(race, Bag("Ana", RED_ROW))  # 29
    assert race.totals == {"Ana": 29, "Ben": 10}
    assert race.winner == "Ana"


def test_exactly_21_wins_x3():
    race = new_game("Ana", "Ben", target=21)
    race = autumn_ash.apply(race, Bag("Ben", PURPLE_ROW))  # 16
    race = autumn_ash.apply(race, Bag("Ben", (("white", 2), ("white", 2), ("white", 1))))  # 5
    assert race.totals["Ben"] == 21
    assert race.winner == "Ben"


def test_no_bag_after_the_race_is_won_x3():
    race = new_game("Ana", "Ben")
    race = autumn_ash.apply(race, Bag("Ben", PURPLE_ROW))
    race = autumn_ash.apply(race, Bag("Ben", CYAN_ROW))
    with pytest.raises(IllegalAction, match="the race is over: Ben reached 21"):
        autumn_ash.apply(race, Bag("Ana", RED_ROW))


@pytest.mark.parametrize(
    ("player", "pieces", "words"),
    [
        ("Cleo", RED_ROW, "'Cleo' is not playing this race"),
        ("Ana", (), "the bag is empty"),
        ("Ana", CYAN_ROW, "Ana plays rainbow .*cyan is the other side's"),
        ("Ben", RED_ROW, "Ben plays xeno .*red is the other side's"),
        ("Ana", (("red", 1), ("red", 2)), "only 2 red pieces in the bag"),
        ("Ana", RED_ROW + (("blue", 1),), "one move bags one colour.*not red and blue"),
        ("Ana", (("red", 1),) * 3, "only 2 red pawns"),
    ],
)
def test_a_bag_no_move_can_make_is_refused_and_changes_nothing(player, pieces, words):
    race = new_game("Ana", "Ben")
    with pytest.raises(RuleError, match=words):
        autumn_ash.apply(race, Bag(player, pieces))
    assert race.totals == {"Ana": 0, "Ben": 0}


def test_apply_never_mutates_the_race():
    race = new_game("Ana", "Ben")
    after = autumn_ash.apply(race, Bag("Ana", RED_ROW))
    assert race.bags == () and after.totals["Ana"] == 9


@pytest.mark.parametrize(
    ("rainbow", "xeno", "target", "words"),
    [("Ana", "Ana", 21, "different names"), ("", "Ben", 21, "need a name"),
     ("Ana", "Ben", 0, "above 0")],
)  # fmt: skip
def test_new_game_refuses_bad_setups(rainbow, xeno, target, words):
    with pytest.raises(RuleError, match=words):
        new_game(rainbow, xeno, target=target)


def test_bag_action_round_trips_through_json():
    action = Bag("Ana", RED_ROW)
    data = actions.to_dict(action)
    assert data == {"type": "Bag", "player": "Ana", "pieces": [["red", 1], ["red", 2], ["red", 3]]}
    assert actions.from_dict(data, autumn_ash.ACTIONS) == action


def test_replaying_the_log_gives_the_same_totals():
    log = [Bag("Ana", RED_ROW), Bag("Ben", CYAN_ROW), Bag("Ana", RED_ROW)]
    race = new_game("Ana", "Ben")
    for action in log:
        stored = actions.from_dict(actions.to_dict(action), autumn_ash.ACTIONS)
        race = autumn_ash.apply(race, stored)
    assert race.totals == {"Ana": 18, "Ben": 10}
    assert [score.total for _, score in race.bags] == [9, 10, 9]


# XA8 (from X8 and X11): a bag is one colour of the mover's, never a start colour.
GREEN_TRIO = (("green", 1), ("green", 2), ("green", 3))
CLEAR_TRIO = (("clear", 1), ("clear", 2), ("clear", 3))
YELLOW_TRIO = (("yellow", 1), ("yellow", 2), ("yellow", 3))


@pytest.mark.parametrize(
    ("player", "pieces", "words"),
    [
        # The entries: three greens (+6) and a yellow trio with a red trio.
        ("Ana", GREEN_TRIO, "green pieces are never bagged.*no piece changes into green"),
        ("Ben", CLEAR_TRIO, "clear pieces are never bagged"),
        ("Ana", YELLOW_TRIO + RED_ROW, "one move bags one colour.*not yellow and red together"),
        ("Ben", CYAN_ROW + PURPLE_ROW, "not cyan and purple together"),
        ("Ana", GREEN_TRIO + YELLOW_TRIO, "green pieces are never bagged"),
    ],
)
def test_a_bag_no_single_move_can_make_is_refused_xa8_x11(player, pieces, words):
    race = new_game("Ana", "Ben")
    with pytest.raises(IllegalAction, match=words):
        autumn_ash.apply(race, Bag(player, pieces))


@pytest.mark.parametrize(
    ("player", "pieces", "points"),
    [
        ("Ana", YELLOW_TRIO, 6),
        ("Ana", YELLOW_TRIO + (("yellow", 3),), 9),  # two rows of one colour in one move
        ("Ben", (("white", 1), ("white", 1), ("white", 2), ("white", 2), ("white", 3)), 9),
        ("Ben", CYAN_ROW, 10),
    ],
)
def test_one_colour_other_than_the_start_colour_is_a_bag_xa8(player, pieces, points):
    race = autumn_ash.apply(new_game("Ana", "Ben"), Bag(player, pieces))
    assert race.totals[player] == points


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(autumn_ash.RAINBOW), st.integers(1, 3)), max_size=7).filter(
        lambda ps: all(ps.count(p) <= autumn_ash.TRIOS[p[0]] for p in ps)
    )
)
def test_the_race_takes_exactly_the_bags_one_move_can_make_xa8(pieces):
    colours = {c for c, _ in pieces}
    makeable = (
        len(colours) == 1
        and not colours & autumn_ash.START_COLOURS
        and len(pieces) >= autumn_ash.ROW_LENGTH
    )
    race = new_game("Ana", "Ben")
    try:
        after = autumn_ash.apply(race, Bag("Ana", tuple(pieces)))
    except IllegalAction:
        assert not makeable
    else:
        assert makeable and after.totals["Ana"] == bag_points(pieces)
