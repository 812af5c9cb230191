"""Leaf scoring: rulings L1-L5, worked examples 12-15, the multiplayer score sheet."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import actions, leaf
from companion.rules.errors import IllegalAction, RuleError
from companion.rules.leaf import Tally


# --- L1 animals -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("count", "acorns"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 7), (5, 8), (6, 9)]
)
def test_animals_of_one_type_in_the_den_score_1_3_6_then_one_more_each_L1(count, acorns):
    assert leaf.animal_acorns(count) == acorns  # L1


def test_example_12_heras_den_ravens_foxes_owl_and_forest_frogs_score_nothing():
    assert leaf.animal_acorns(2) == 3  # 2 ravens
    assert leaf.animal_acorns(4) == 7  # 4 foxes
    assert leaf.animal_acorns(1) == 1  # 1 owl
    # frogs in the Forest: a tally's Forest animals add nothing (L1)
    with_frogs = leaf.score({"Hera": Tally(den={"raven": 2, "fox": 4, "owl": 1}, forest=3)})
    assert with_frogs.breakdowns["Hera"].animals == 11
    assert with_frogs.breakdowns["Hera"].total == 11


# --- L2 mushrooms -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("size", "acorns"), [(0, 0), (1, 1), (2, 3), (3, 8), (4, 9), (5, 10), (15, 20)]
)
def test_adult_mushroom_groups_score_1_3_8_then_one_more_each_L2(size, acorns):
    assert leaf.mushroom_acorns(size) == acorns  # L2


def test_example_14_a_group_of_five_adult_mushrooms_is_worth_10():
    assert leaf.mushroom_acorns(5) == 10


# --- L3 leftovers -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sun", "cards", "acorns"), [(0, 0, 0), (1, 0, 0), (1, 1, 1), (2, 3, 2), (5, 0, 2), (0, 7, 3)]
)
def test_sun_and_leaf_cards_pool_into_one_acorn_per_two_L3(sun, cards, acorns):
    assert leaf.leftover_acorns(sun, cards) == acorns  # L3


# --- L4 tree ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("heights", "awards"),
    [
        ({"A": 5, "B": 3}, {"A": 6, "B": 3}),
        ({"A": 5, "B": 3, "C": 1}, {"A": 6, "B": 3, "C": 0}),
        # L4: two tied for highest both get 6, nobody gets 3
        ({"A": 5, "B": 5, "C": 3}, {"A": 6, "B": 6, "C": 0}),
        # L4: players tied for second each get 3
        ({"A": 6, "B": 4, "C": 4, "D": 1}, {"A": 6, "B": 3, "C": 3, "D": 0}),
        ({"A": 2, "B": 2, "C": 2}, {"A": 6, "B": 6, "C": 6}),
        # LX1 (ours): a squirrel still on the start space gets nothing
        ({"A": 3, "B": 0}, {"A": 6, "B": 0}),
        ({"A": 0, "B": 0}, {"A": 0, "B": 0}),
    ],
)
def test_tree_awards_6_and_3_with_competition_ranking_L4(heights, awards):
    assert leaf.tree_acorns(heights) == awards


# --- L5 totals and the winner -----------------------------------------------------------
def test_example_13_hera_totals_33_having_gained_8_acorn_tokens_L5():
    hera = Tally(
        den={"raven": 2, "fox": 4, "owl": 1},
        mushroom_groups=(2, 4),
        tree=4,
        sun=2,
        leaf_cards=3,
        acorn_tokens=8,
        minus_three=1,
    )
    cleo = Tally(tree=6)  # Hera is second highest on the tree
    b = leaf.score({"Hera": hera, "Cleo": cleo}).breakdowns["Hera"]
    assert (b.tree, b.mushrooms, b.leftover, b.penalty, b.animals) == (3, 12, 2, 3, 11)
    assert b.total == 33


@pytest.mark.parametrize(
    ("tallies", "winners", "decided_by"),
    [
        ({"A": Tally(acorn_tokens=10), "B": Tally(acorn_tokens=9)}, ("A",), "acorns"),
        # L5: tied on acorns → most leaf cards + sun (the odd one that scored nothing)
        (
            {"A": Tally(acorn_tokens=9, sun=3), "B": Tally(acorn_tokens=10, sun=1)},
            ("A",),
            "leaf cards and sun",
        ),
        (
            {"A": Tally(acorn_tokens=10, leaf_cards=1), "B": Tally(acorn_tokens=10)},
            ("A",),
            "leaf cards and sun",
        ),
        # L5: still tied → shared
        (
            {"A": Tally(acorn_tokens=10, sun=1), "B": Tally(acorn_tokens=10, leaf_cards=1)},
            ("A", "B"),
            "shared",
        ),
    ],
)
def test_most_acorns_wins_then_spare_cards_and_sun_then_shared_L5(tallies, winners, decided_by):
    result = leaf.score(tallies)
    assert result.winners == winners
    assert result.decided_by == decided_by


def test_minus_three_tokens_cost_three_each_L5():
    b = leaf.score({"A": Tally(acorn_tokens=10, minus_three=2)}).breakdowns["A"]
    assert b.total == 4


def test_example_15_a_leaf_touching_2_orange_1_yellow_2_brown_gives_5_actions():
    # the placed leaf's own colour (red) gives nothing: only the touched tips count
    acts = leaf.leaf_actions({"orange": 2, "yellow": 1, "brown": 2})
    assert len(acts) == 5
    assert Counter(acts) == {"orange": 2, "yellow": 1, "brown": 2}


# --- LX3 the tree holds no longer climb ------------------------------------------------
@pytest.mark.parametrize(
    ("climbed", "refused"),
    [
        (0, False),  # LX1: still on the start space
        (7, False),
        (leaf.MOST_SPACES_CLIMBED, False),  # LX3: the longest path up the tree
        (leaf.MOST_SPACES_CLIMBED + 1, True),
        (40, True),  # the squirrel
    ],
)
def test_a_tally_whose_squirrel_climbed_past_every_path_up_the_tree_is_refused_LX3(
    climbed, refused
):
    if refused:
        with pytest.raises(RuleError, match=f"cannot have climbed {climbed} spaces: no path up"):
            Tally(tree=climbed)
        with pytest.raises(RuleError, match="longer than 15 spaces"):
            leaf.tree_acorns({"Ana": climbed, "Ben": 2})
    else:
        assert Tally(tree=climbed).tree == climbed


def test_the_score_sheet_refuses_a_squirrel_the_tree_cannot_hold_and_changes_nothing_LX3():
    s = leaf.apply(leaf.new_game(["Ana", "Ben"]), leaf.EnterTally("Ana", {"tree": 5}))
    with pytest.raises(RuleError, match="the squirrel cannot have climbed 40 spaces"):
        leaf.apply(s, leaf.EnterTally("Ben", {"tree": 40, "acorn_tokens": 3}))
    with pytest.raises(RuleError, match="cannot have climbed 16 spaces"):
        leaf.apply(s, leaf.EnterTally("Ana", {"tree": 16}))  # a correction is checked too
    assert s.tally("Ana") == Tally(tree=5) and s.tally("Ben") is None


# --- Bad input --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: leaf.animal_acorns(-1), "at least 0"),
        (lambda: leaf.animal_acorns(True), "whole number"),
        (lambda: leaf.mushroom_acorns(2.5), "whole number"),
        (lambda: leaf.leftover_acorns(-2, 1), "sun tokens cannot be -2"),
        (lambda: leaf.tree_acorns({"Ana": -1}), "Ana's squirrel height"),
        (lambda: Tally(den={"unicorn": 1}), "'unicorn' is not an animal"),
        (lambda: Tally(den={"fox": 7}), "foxes in the Winter Den cannot be 7"),
        (lambda: Tally(mushroom_groups=(8, 8)), "only 15 mushrooms"),
        (lambda: Tally(mushroom_groups=(0,)), "at least 1"),
        (lambda: Tally(leaf_cards=37), "at most 36"),
        (lambda: leaf.leaf_actions({"purple": 1}), "'purple' is not a leaf colour"),
        (lambda: leaf.leaf_actions({"red": 13}), "at most 12"),
        (lambda: leaf.score({}), "nobody to score"),
    ],
)
def test_bad_counts_are_refused_with_a_message_naming_them(call, message):
    with pytest.raises(RuleError, match=message):
        call()


# --- The multiplayer score sheet --------------------------------------------------------
def test_score_sheet_shows_a_result_once_every_player_has_entered():
    s = leaf.new_game(["Ana", "Ben"])
    s = leaf.apply(s, leaf.EnterTally("Ana", {"acorn_tokens": 5, "tree": 2}))
    assert s.result is None and s.missing == ("Ben",)
    s = leaf.apply(s, leaf.EnterTally("Ben", {"acorn_tokens": 4, "tree": 1}))
    assert s.result is not None
    assert s.result.winners == ("Ana",)
    assert s.result.breakdowns["Ana"].total == 11


def test_score_sheet_entry_can_be_corrected_and_keeps_seat_order():
    s = leaf.new_game(["Ana", "Ben", "Cleo"])
    s = leaf.apply(s, leaf.EnterTally("Cleo", {"sun": 2}))
    s = leaf.apply(s, leaf.EnterTally("Ana", {"sun": 1}))
    s = leaf.apply(s, leaf.EnterTally("Cleo", {"sun": 4}))
    assert [p for p, _ in s.tallies] == ["Ana", "Cleo"]
    assert s.tally("Cleo") == Tally(sun=4)


@pytest.mark.parametrize(
    ("players", "message"),
    [(["Ana"], "2 to 4 players"), (["A"] * 2, "same name"), (["A", "B", "C", "D", "E"], "2 to 4")],
)
def test_score_sheet_needs_two_to_four_distinct_players(players, message):
    with pytest.raises(RuleError, match=message):
        leaf.new_game(players)


def test_score_sheet_refuses_a_stranger_and_a_bad_tally_without_changing():
    s = leaf.new_game(["Ana", "Ben"])
    with pytest.raises(IllegalAction, match="'Zed' is not playing"):
        leaf.apply(s, leaf.EnterTally("Zed", {}))
    with pytest.raises(RuleError, match="no field 'gold'"):
        leaf.apply(s, leaf.EnterTally("Ana", {"gold": 1}))
    assert s.tallies == ()


def test_score_sheet_actions_round_trip_through_json():
    a = leaf.EnterTally("Ana", {"den": {"fox": 2}, "mushroom_groups": [3, 1], "sun": 1})
    back = actions.from_dict(actions.to_dict(a), leaf.ACTIONS)
    s = leaf.apply(leaf.new_game(["Ana", "Ben"]), back)
    assert s.tally("Ana") == Tally(den={"fox": 2}, mushroom_groups=(3, 1), sun=1)


# --- Properties -------------------------------------------------------------------------
tallies = st.builds(
    Tally,
    den=st.dictionaries(st.sampled_from(leaf.ANIMALS), st.integers(0, 6), max_size=4),
    mushroom_groups=st.lists(st.integers(1, 5), max_size=3).map(tuple),
    tree=st.integers(0, 12),
    sun=st.integers(0, 10),
    leaf_cards=st.integers(0, 10),
    acorn_tokens=st.integers(0, 40),
    minus_three=st.integers(0, 3),
)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["A", "B", "C", "D"]), tallies, min_size=1).filter(
        lambda ts: all(sum(t.den.get(a, 0) for t in ts.values()) <= 6 for a in leaf.ANIMALS)
    )  # LX2: the deck has 6 of each type
)
def test_winners_have_the_top_total_and_every_top_scorer_with_most_spare_wins(players):
    result = leaf.score(players)
    totals = {p: b.total for p, b in result.breakdowns.items()}
    best = max(totals.values())
    assert all(totals[w] == best for w in result.winners)
    leaders = [p for p in players if totals[p] == best]
    spare = max(players[p].sun + players[p].leaf_cards for p in leaders)
    assert set(result.winners) == {
        p for p in leaders if players[p].sun + players[p].leaf_cards == spare
    }


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 20))
def test_one_more_animal_or_mushroom_never_scores_less(n):
    assert leaf.animal_acorns(n + 1) > leaf.animal_acorns(n)
    assert leaf.mushroom_acorns(n + 1) > leaf.mushroom_acorns(n)


@settings(max_examples=60, deadline=None)
@given(tallies)
def test_tally_survives_a_json_round_trip_with_the_same_score(t):
    back = Tally.from_dict(t.to_dict())
    assert back.to_dict() == t.to_dict()
    assert leaf.score({"A": back}) == leaf.score({"A": t})


# --- LX2 across players: 6 animals of a type in the whole deck ---------------------------
@pytest.mark.parametrize(
    ("dens", "message"),
    [
        # The issue's entry: 7 foxes across three players' Winter Dens.
        ([{"fox": 3}, {"fox": 2}, {"fox": 2}], r"only 6 foxes .* hold 7 \(Ana 3, Ben 2, Cleo 2\)"),
        ([{"owl": 6}, {"owl": 1}, {}], r"only 6 owls .* hold 7 \(Ana 6, Ben 1\)"),
        ([{"raven": 4, "frog": 2}, {"raven": 1, "frog": 5}, {}], r"only 6 frogs .* hold 7"),
    ],
)
def test_winter_dens_together_hold_at_most_6_of_a_type_LX2(dens, message):
    state = leaf.new_game(("Ana", "Ben", "Cleo"))
    with pytest.raises(RuleError, match=message):
        for player, den in zip(state.players, dens, strict=True):
            state = leaf.apply(state, leaf.EnterTally(player, {"den": den}))
    with pytest.raises(RuleError, match=message):
        leaf.score({p: Tally(den=d) for p, d in zip(("Ana", "Ben", "Cleo"), dens, strict=True)})


def test_the_tally_that_makes_a_seventh_is_refused_and_changes_nothing_LX2():
    state = leaf.new_game(("Ana", "Ben", "Cleo"))
    state = leaf.apply(state, leaf.EnterTally("Ana", {"den": {"fox": 4}}))
    with pytest.raises(RuleError, match="only 6 foxes"):
        leaf.apply(state, leaf.EnterTally("Ben", {"den": {"fox": 3}}))
    state = leaf.apply(state, leaf.EnterTally("Ben", {"den": {"fox": 2}}))  # exactly 6
    # Ana corrects her own count: her old tally is replaced, not added to.
    state = leaf.apply(state, leaf.EnterTally("Ana", {"den": {"fox": 3}}))
    assert state.tally("Ana").den == {"fox": 3}


@settings(max_examples=80, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(leaf.ANIMALS), st.integers(0, 6)), min_size=2,
                max_size=4))  # fmt: skip
def test_scoring_takes_dens_exactly_when_no_type_passes_6_LX2(dens):
    tallies = {f"P{i}": Tally(den=d) for i, d in enumerate(dens)}
    fits = all(sum(d.get(a, 0) for d in dens) <= 6 for a in leaf.ANIMALS)
    try:
        leaf.score(tallies)
    except RuleError:
        assert not fits
    else:
        assert fits


@settings(max_examples=60, deadline=None)
@given(st.integers(-3, 3 * leaf.MOST_SPACES_CLIMBED))
def test_a_climb_is_entered_exactly_when_the_tree_can_hold_it_LX3(climbed):
    fits = 0 <= climbed <= leaf.MOST_SPACES_CLIMBED
    try:
        entered = Tally(tree=climbed).tree
    except RuleError as refused:
        assert not fits
        assert "at least 0" in str(refused) or "no path up the tree" in str(refused)
    else:
        assert fits and entered == climbed
