"""The North Wind solo opponent: rulings N1-N14, example 16, undo by replay."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import actions, leaf
from companion.rules import north_wind as nw
from companion.rules.errors import IllegalAction, RuleError

EMPTY_MAT = (None,) * 5


def play(*acts, difficulty="easy", human="Ana"):
    state = nw.new_game(human, difficulty)
    for a in acts:
        state = nw.apply(state, a)
    return state


def at_place(colour="red", arrow="top-left", **kw):
    """A state whose North Wind has drawn a sweetgum card of ``colour``."""
    return play(nw.EndHumanTurn(), nw.Draw("sweetgum", colour, arrow), **kw)


def acting(tips, colour="red", arrow="top-left", **changes):
    state = nw.apply(at_place(colour, arrow), nw.Place(tips))
    return replace(state, **changes)


# --- N1 setup ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("difficulty", "sun", "animals", "phase"),
    [("easy", 1, 0, "human"), ("normal", 1, 2, "setup"), ("hard", 2, 3, "setup")],
)
def test_difficulty_sets_the_north_winds_sun_and_random_animals_N1(difficulty, sun, animals, phase):
    s = nw.new_game("Ana", difficulty)
    assert (s.sun, s.acorns, s.phase) == (sun, 0, phase)
    if animals:
        s = nw.apply(s, nw.SetupAnimals(("fox",) * (animals - 1) + ("owl",)))
        assert s.forest_size == animals
    assert s.phase == "human"  # N1: the human goes first


@pytest.mark.parametrize(
    ("difficulty", "animals", "message"),
    [
        ("normal", ("fox",), "starts with 2 animals on normal, not 1"),
        ("hard", ("fox", "owl"), "3 animals on hard"),
        ("normal", ("fox", "dragon"), "'dragon' is not an animal"),
    ],
)
def test_wrong_starting_animals_are_refused_N1(difficulty, animals, message):
    with pytest.raises(RuleError, match=message):
        nw.apply(nw.new_game("Ana", difficulty), nw.SetupAnimals(animals))


def test_unknown_difficulty_is_refused():
    with pytest.raises(RuleError, match="'brutal' is not a difficulty"):
        nw.new_game("Ana", "brutal")


# --- N2 drawing -------------------------------------------------------------------------
def test_a_card_for_an_empty_pile_is_drawn_again_and_still_leaves_the_deck_N2():
    s = play(nw.PileEmptied("ginkgo"), nw.EndHumanTurn(), nw.Draw("ginkgo", "red", "top-left"))
    assert s.phase == "draw" and s.deck_drawn == 1
    assert "draw again" in str(s.notes[-1])
    s = nw.apply(s, nw.Draw("sassafras", "yellow", "bottom-right"))
    assert s.phase == "place" and s.card == nw.Card("sassafras", "yellow", "bottom-right")


def test_the_reshuffle_card_puts_all_13_back_and_the_draw_goes_on_N2():
    s = play(nw.EndHumanTurn(), nw.Reshuffle())
    assert s.phase == "draw" and s.deck_left == 13


def test_after_twelve_leaf_cards_the_thirteenth_must_be_the_reshuffle_card_N2():
    s = play(*(nw.PileEmptied(x) for x in ("ginkgo",)), nw.EndHumanTurn())
    for _ in range(12):
        s = nw.apply(s, nw.Draw("ginkgo", "red", "top-left"))
    with pytest.raises(RuleError, match="must be the Reshuffle card"):
        nw.apply(s, nw.Draw("sweetgum", "red", "top-left"))
    assert nw.apply(s, nw.Reshuffle()).deck_drawn == 0


def test_a_card_with_an_unknown_shape_colour_or_arrow_is_refused():
    s = play(nw.EndHumanTurn())
    for bad, msg in [
        (("oak", "red", "top-left"), "'oak' is not a leaf shape"),
        (("ginkgo", "blue", "top-left"), "'blue' is not a leaf colour"),
        (("ginkgo", "red", "up"), "'up' is not an arrow"),
    ]:
        with pytest.raises(RuleError, match=msg):
            nw.apply(s, nw.Draw(*bad))


# --- N3 placement -----------------------------------------------------------------------
def test_example_16_sweetgum_asking_for_red_picks_the_third_candidate_N3():
    candidates = [
        {"tips": {"red": 2, "green": 1}, "human_mushroom_leaves": 0},
        {"tips": {"red": 2, "yellow": 1, "orange": 1}, "human_mushroom_leaves": 1},
        {"tips": {"red": 2, "yellow": 1, "orange": 1}, "human_mushroom_leaves": 0},
    ]
    assert nw.choose_placement("red", candidates) == [2]


def c(human=0, **tips):
    return {"tips": tips, "human_mushroom_leaves": human}


@pytest.mark.parametrize(
    ("colour", "candidates", "best"),
    [
        # N3 A: most tips of the card's colour wins even against more tips in all
        ("orange", [c(orange=1, red=4), c(orange=2)], [1]),
        # N3 B: then most tips in all
        ("orange", [c(orange=1, red=1), c(orange=1, red=1, green=1)], [1]),
        # N3 C: then fewest leaves with the human's mushrooms
        ("green", [c(1, green=1, red=1), c(0, green=1, red=1)], [1]),
        # then the colour order red, orange, brown, yellow, green
        ("green", [c(green=1, orange=1), c(green=1, red=1)], [1]),
        ("green", [c(green=1, yellow=1), c(green=1, brown=1)], [1]),
        ("red", [c(red=1, orange=1, green=1), c(red=1, brown=2)], [0]),
        # still tied: the human chooses
        ("red", [c(red=2, green=1), c(red=2, green=1), c(red=1)], [0, 1]),
    ],
)
def test_placement_priorities_colour_then_total_then_human_mushrooms_then_order_N3(
    colour, candidates, best
):
    assert nw.choose_placement(colour, candidates) == best


@pytest.mark.parametrize(
    ("candidates", "message"),
    [
        ([], "at least one candidate"),
        ([{"tips": {"pink": 1}}], "'pink' is not a leaf colour"),
        ([{"tips": {"red": 1}, "human_mushroom_leaves": 2}], "cannot touch 2 leaves"),
        ([{"human_mushroom_leaves": 0}], "needs its tips"),
        ([{"tips": {"red": -1}}], "at least 0"),
    ],
)
def test_malformed_candidates_are_refused_N3(candidates, message):
    with pytest.raises(RuleError, match=message):
        nw.choose_placement("red", candidates)


# --- N4 leaf boost ----------------------------------------------------------------------
@pytest.mark.parametrize(("tips", "boost"), [(2, True), (3, True), (4, False), (7, False)])
def test_leaf_boost_when_the_leaf_touches_three_tips_or_fewer_N4(tips, boost):
    assert nw.leaf_boost(tips) is boost


def test_boosted_leaf_gets_a_north_wind_baby_and_queues_one_action_per_tip_N4():
    s = nw.apply(at_place(), nw.Place({"red": 1, "yellow": 2}))
    assert s.boosted and s.babies == 1 and s.supply == 14
    assert s.queue == ("red", "yellow", "yellow")
    t = nw.apply(at_place(), nw.Place({"red": 2, "yellow": 2}))
    assert not t.boosted and t.babies == 0


def test_no_boost_when_the_north_wind_has_no_mushrooms_left_N4():
    s = replace(at_place(), adults=15)
    s = nw.apply(s, nw.Place({"green": 2}))
    assert not s.boosted and s.babies == 0


def test_a_placement_must_touch_at_least_two_tips():
    with pytest.raises(RuleError, match="at least 2 tips, not 1"):
        nw.apply(at_place(), nw.Place({"red": 1}))


# --- N5 yellow and green ----------------------------------------------------------------
def test_yellow_gives_a_sun_and_green_an_acorn_never_a_leaf_card_N5():
    s = acting({"yellow": 2, "green": 2})
    s = nw.apply(nw.apply(s, nw.Done()), nw.Done())
    assert s.current == "green" and s.sun == 3
    s = nw.apply(nw.apply(s, nw.Done()), nw.Done())
    assert s.acorns == 2


# --- N6 red before the first hibernation ------------------------------------------------
def test_first_red_puts_a_baby_on_the_played_leaf_and_cannot_grow_N6():
    s = acting({"red": 2, "green": 2})
    assert nw.red_is_first(s) and nw.red_options(s) == ("baby",)
    with pytest.raises(RuleError, match="first red action puts a baby"):
        nw.apply(replace(s, babies=1), nw.Red("grow"))
    s = nw.apply(s, nw.Red("baby"))
    assert s.babies == 1 and not nw.red_is_first(s)
    assert set(nw.red_options(s)) == {"baby", "grow"}  # N6: an additional red action


def test_first_red_on_a_boosted_leaf_counts_as_an_additional_one_N6():
    s = acting({"red": 1, "green": 1})  # 2 tips: boosted
    assert s.boosted and not nw.red_is_first(s)
    s = nw.apply(s, nw.Red("grow"))  # every adjacent leaf had a North Wind mushroom
    assert (s.babies, s.adults) == (0, 1)


@pytest.mark.parametrize(
    ("babies", "adults", "options"),
    [
        (2, 0, ("baby", "grow")),
        (0, 0, ("baby", "acorn")),
        (3, 12, ("grow", "acorn")),
        (0, 15, ("acorn",)),
    ],
)
def test_additional_red_options_follow_what_the_north_wind_has_N6_N10(babies, adults, options):
    s = acting({"red": 2, "green": 2}, reds_done=1, babies=babies, adults=adults)
    assert nw.red_options(s) == options


def test_red_with_nothing_possible_gives_an_acorn_and_is_refused_otherwise_N10():
    s = acting({"red": 2, "green": 2}, adults=15)
    s = nw.apply(s, nw.Red("acorn"))
    assert s.acorns == 1
    t = acting({"red": 2, "green": 2})
    with pytest.raises(RuleError, match="gets no acorn"):
        nw.apply(t, nw.Red("acorn"))


# --- N7 red after the first hibernation -------------------------------------------------
@pytest.mark.parametrize(
    ("babies", "adults", "options"),
    [(1, 0, ("grow",)), (0, 3, ("baby", "acorn")), (0, 15, ("acorn",))],
)
def test_after_a_frost_red_grows_a_baby_first_else_places_one_N7(babies, adults, options):
    s = acting({"red": 2, "green": 2}, frosts=1, babies=babies, adults=adults)
    assert nw.red_options(s) == options


def test_after_a_frost_red_cannot_place_while_a_baby_waits_to_grow_N7():
    s = acting({"red": 2, "green": 2}, frosts=1, babies=1)
    with pytest.raises(RuleError, match="grows a baby first"):
        nw.apply(s, nw.Red("baby"))
    assert nw.apply(s, nw.Red("grow")).adults == 1


# --- N8 orange --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mat", "forest", "arrow", "pick"),
    [
        # requirement 1 + 2 beats either alone
        ([("owl", True), ("fox", False), ("fox", True)], {"fox": 1}, "top-left", 2),
        # requirement 1 alone beats requirement 2 alone
        ([("owl", True), ("fox", False)], {"fox": 1}, "top-left", 1),
        # then the one making a group of exactly 3
        ([("fox", False), ("owl", False)], {"fox": 1, "owl": 2}, "top-left", 1),
        ([("fox", False), ("owl", False)], {"fox": 3, "owl": 3}, "bottom-right", 1),
        # then position by the arrow
        ([("owl", True), ("frog", True), ("fox", True)], {}, "top-left", 0),
        ([("owl", True), ("frog", True), ("fox", True)], {}, "bottom-right", 2),
        # nothing wanted: draw from the deck
        ([("owl", False), ("frog", False)], {"fox": 2}, "top-left", None),
        ([], {}, "top-left", None),
    ],
)
def test_orange_animal_choice_by_requirements_then_threes_then_arrow_N8(mat, forest, arrow, pick):
    assert nw.choose_animal(mat, forest, arrow) == pick


def test_orange_takes_the_chosen_mat_animal_with_its_acorn_and_leaves_the_space_empty_N8():
    s = acting({"orange": 2, "green": 2}, forest=(("fox", 1),))
    mat = (("owl", False), ("fox", True), None, ("frog", True), ("raven", False))
    s = nw.apply(s, nw.Orange(mat))
    assert s.forest_counts == {"fox": 2} and s.acorns == 1
    assert s.mat == (("owl", False), None, None, ("frog", True), ("raven", False))
    assert "space 2" in str(s.notes[-1])


def test_orange_draws_from_the_deck_when_nothing_on_the_mat_qualifies_N8():
    s = acting({"orange": 2, "green": 2})
    mat = (("owl", False),) + (None,) * 4
    with pytest.raises(RuleError, match="draw the top animal card"):
        nw.apply(s, nw.Orange(mat))
    s = nw.apply(s, nw.Orange(mat, ("raven", True)))
    assert s.forest_counts == {"raven": 1} and s.acorns == 1 and s.mat == mat


def test_orange_refuses_a_deck_draw_when_a_mat_animal_qualifies_N8():
    s = acting({"orange": 2, "green": 2})
    with pytest.raises(RuleError, match="takes it instead of drawing"):
        nw.apply(s, nw.Orange((("owl", True),) + (None,) * 4, ("fox", False)))


def test_more_than_six_animals_of_a_kind_are_refused():
    s = acting({"orange": 2, "green": 2}, forest=(("fox", 4),), den=(("fox", 1),))
    with pytest.raises(RuleError, match="only 6 foxes"):
        nw.apply(s, nw.Orange((("fox", True), ("fox", False)) + (None,) * 3))


# --- N9 brown ---------------------------------------------------------------------------
@pytest.mark.parametrize(("arrow", "path"), [("top-left", "left"), ("bottom-right", "right")])
def test_brown_climbs_and_takes_the_arrows_path_at_a_fork_N9(arrow, path):
    s = acting({"brown": 2, "green": 2}, colour="brown", arrow=arrow)
    s = nw.apply(s, nw.Brown("up", fork=True, acorns=1))
    assert (s.height, s.forks, s.acorns) == (1, (path,), 1)
    s = nw.apply(s, nw.Brown("skip"))  # the human's squirrel sat on the next space
    assert s.height == 3


def test_brown_past_the_top_stays_and_gains_an_acorn_N9_N10():
    s = acting({"brown": 2, "green": 2}, height=9)
    s = nw.apply(s, nw.Brown("top"))
    assert (s.height, s.acorns, s.at_top) == (9, 1, True)
    with pytest.raises(RuleError, match="lands nowhere"):
        nw.apply(s, nw.Brown("top", sun=1))


def test_tree_rewards_leaf_card_becomes_an_acorn_and_animal_an_extra_orange_NX1():
    s = acting({"brown": 2, "green": 2})
    s = nw.apply(s, nw.Brown("up", leaf_cards=1, sun=1, animals=1))
    assert (s.acorns, s.sun) == (1, 2)
    assert s.queue == ("orange", "brown", "green", "green")


# --- N11 season -------------------------------------------------------------------------
def test_with_three_sun_at_the_end_the_north_wind_advances_the_season_N11():
    s = acting({"yellow": 1, "green": 1}, sun=2)
    s = nw.apply(nw.apply(s, nw.Done()), nw.Done())
    assert s.phase == "season"
    s = nw.apply(s, nw.Season(2, "none"))
    assert (s.sun, s.acorns, s.season_advances, s.phase) == (0, 3, 1, "human")


def test_with_fewer_than_three_sun_the_turn_just_ends_N11():
    s = acting({"green": 2})
    s = nw.apply(nw.apply(s, nw.Done()), nw.Done())
    assert s.phase == "human" and s.season_advances == 0


# --- N12 frost --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("forest", "mat", "choices"),
    [
        ({"fox": 3, "owl": 1}, [], ["fox"]),
        ({"fox": 2, "owl": 2}, [("fox", False), ("fox", True), ("owl", False)], ["owl"]),
        ({"fox": 2, "owl": 2}, [("fox", False), ("owl", True)], ["fox", "owl"]),
        ({}, [], []),
    ],
)
def test_frost_hibernates_the_largest_group_then_fewest_on_the_mat_N12(forest, mat, choices):
    assert nw.frost_choices(forest, mat) == choices


def test_a_frost_crossed_by_the_north_wind_moves_its_group_to_the_den_N12():
    s = acting({"yellow": 1, "green": 1}, sun=2, forest=(("fox", 2), ("owl", 2)))
    s = nw.apply(nw.apply(nw.apply(s, nw.Done()), nw.Done()), nw.Season(1, "frost"))
    assert s.phase == "frost"
    mat = (("fox", False),) + (None,) * 4
    with pytest.raises(RuleError, match="largest group \\(owl\\), not the fox"):
        nw.apply(s, nw.Hibernate("fox", mat))
    s = nw.apply(s, nw.Hibernate("owl", mat))
    assert s.den_counts == {"owl": 2} and s.forest_counts == {"fox": 2}
    assert s.frosts == 1 and s.hibernated and s.phase == "human"


def test_a_frost_crossed_by_the_human_returns_to_the_humans_turn_N12():
    s = play(nw.HumanSeason("frost"))
    assert s.phase == "frost"
    s = nw.apply(s, nw.Hibernate(None))
    assert s.phase == "human" and s.frosts == 1


# --- Winter and the end -----------------------------------------------------------------
def finish_turn(state):
    state = nw.apply(state, nw.EndHumanTurn())
    state = nw.apply(state, nw.Draw("sassafras", "green", "top-left"))
    state = nw.apply(state, nw.Place({"green": 2}))
    return nw.apply(nw.apply(state, nw.Done()), nw.Done())


def test_the_third_empty_pile_starts_winter_and_the_round_ends_with_a_last_frost():
    s = play(nw.PileEmptied("ginkgo"), nw.PileEmptied("sweetgum"))
    assert not s.winter
    s = nw.apply(s, nw.PileEmptied("tulip-poplar"))
    assert s.winter
    s = finish_turn(s)
    assert s.phase == "frost"
    s = nw.apply(s, nw.Hibernate(None))
    assert s.phase == "scoring"


def test_the_human_advances_the_season_at_most_once_a_turn():
    s = play(nw.HumanSeason("none"))
    with pytest.raises(IllegalAction, match="already advanced the season this turn"):
        nw.apply(s, nw.HumanSeason("none"))
    s = finish_turn(s)
    assert nw.apply(s, nw.HumanSeason("none")).season_advances == 2


def test_crossing_the_winter_line_starts_winter_without_a_frost():
    s = play(nw.HumanSeason("winter"))
    assert s.winter and s.phase == "human" and s.frosts == 0


def test_with_every_pile_empty_the_north_wind_skips_to_the_last_frost_NX4():
    s = play(*(nw.PileEmptied(x) for x in leaf.LEAF_SHAPES), nw.EndHumanTurn())
    assert s.phase == "frost" and s.frost_then == "final" and s.turn == 1
    assert "cannot play a leaf" in str(s.notes[0])


def test_the_same_pile_cannot_be_emptied_twice():
    with pytest.raises(RuleError, match="already marked empty"):
        play(nw.PileEmptied("ginkgo"), nw.PileEmptied("ginkgo"))


# --- N13 final scoring ------------------------------------------------------------------
def scoring_state(**changes):
    s = play(nw.PileEmptied("ginkgo"), nw.PileEmptied("sweetgum"), nw.PileEmptied("tulip-poplar"))
    s = nw.apply(finish_turn(s), nw.Hibernate(None))
    return replace(s, **changes)


def test_final_scoring_adds_the_north_winds_forest_excess_N13():
    s = scoring_state(
        forest=(("fox", 1), ("owl", 3)), den=(("raven", 2),), adults=3, height=4, sun=1, acorns=10
    )
    s = nw.apply(s, nw.FinalScore({"acorn_tokens": 12, "tree": 2, "forest": 1}, (2, 1)))
    b = s.result.breakdowns["North Wind"]
    # tokens 10, animals 3, mushrooms 3+1, leftover 0 (1 sun), tree 6, bonus 4-1
    assert (b.tokens, b.animals, b.mushrooms, b.leftover, b.tree, b.bonus) == (10, 3, 4, 0, 6, 3)
    assert b.total == 26
    assert s.result.breakdowns["Ana"].total == 15
    assert s.result.winners == ("North Wind",) and not s.human_won


def test_no_forest_bonus_when_the_human_has_as_many_forest_animals_N13():
    assert nw.forest_bonus(3, 3) == 0
    assert nw.forest_bonus(4, 1) == 3


def test_north_wind_mushroom_groups_must_add_up_to_its_adults():
    s = scoring_state(adults=3)
    with pytest.raises(RuleError, match="3 adult mushrooms, but the groups entered add up to 2"):
        nw.apply(s, nw.FinalScore({}, (2,)))


# --- N14 achievements -------------------------------------------------------------------
def won(**tally):
    s = scoring_state()
    return nw.apply(s, nw.FinalScore({"acorn_tokens": 30, **tally}, ()))


@pytest.mark.parametrize(
    ("ids", "tally", "message"),
    [
        (("sun-2", "sun-5"), {"sun": 6}, "only one achievement per group"),  # N14
        (("sun-2", "adults-5", "den-5"), {}, "one or two"),
        ((), {}, "one or two"),
        (("sun-5",), {"sun": 2}, "does not show"),
        (("unicorn",), {}, "'unicorn' is not an achievement"),
    ],
)
def test_achievements_up_to_two_one_per_group_and_not_against_the_tally_N14(ids, tally, message):
    with pytest.raises(RuleError, match=message):
        nw.apply(won(**tally), nw.Achieve(ids))


def test_a_win_ticks_two_achievements_from_different_groups_N14():
    s = won(sun=5, mushroom_groups=(3, 3))
    assert s.human_won
    s = nw.apply(s, nw.Achieve(("sun-5", "two-threes")))
    assert s.achievements == ("sun-5", "two-threes")
    with pytest.raises(IllegalAction, match="already ticked"):
        nw.apply(s, nw.Achieve(("den-5",)))


def test_achievements_need_a_win_N14():
    s = nw.apply(scoring_state(acorns=50), nw.FinalScore({}, ()))
    with pytest.raises(IllegalAction, match="for a win"):
        nw.apply(s, nw.Achieve(("sun-2",)))


def test_every_achievement_has_our_own_words_and_a_known_group():
    assert len({a.id for a in nw.ACHIEVEMENTS}) == len(nw.ACHIEVEMENTS)
    assert {a.group for a in nw.ACHIEVEMENTS} == set(nw.ACHIEVEMENT_GROUPS)


# --- Phases -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "message"),
    [
        (nw.Draw("ginkgo", "red", "top-left"), "it is Ana's turn"),
        (nw.Done(), "it is Ana's turn"),
        (nw.Season(1, "none"), "it is Ana's turn"),
        (nw.FinalScore({}, ()), "it is Ana's turn"),
        (nw.Achieve(("sun-2",)), "it is Ana's turn"),
    ],
)
def test_actions_out_of_their_phase_are_refused_with_what_is_awaited(action, message):
    with pytest.raises(IllegalAction, match=message):
        play(action)


def test_a_red_answer_to_an_orange_action_is_refused():
    s = nw.apply(acting({"orange": 1, "red": 1}), nw.Red("baby"))
    with pytest.raises(IllegalAction, match="orange action, not red"):
        nw.apply(s, nw.Red("baby"))


def test_reaction_sun_needs_north_wind_mushrooms_on_the_board():
    with pytest.raises(RuleError, match="only 0 mushrooms on the board"):
        play(nw.ReactionSun(1))
    s = nw.apply(replace(play(), babies=2), nw.ReactionSun(2))
    assert s.sun == 3


# --- Undo = replay, JSON ----------------------------------------------------------------
GAME = (
    nw.SetupAnimals(("fox", "owl")),
    nw.EndHumanTurn(),
    nw.Reshuffle(),
    nw.Draw("tulip-poplar", "orange", "bottom-right"),
    nw.Place({"orange": 1, "brown": 1, "yellow": 2}),
    nw.Orange((("owl", True), ("fox", False), None, ("frog", True), ("raven", False))),
    nw.Brown("up", fork=True, acorns=1),
    nw.Done(),
    nw.Done(),
    nw.Season(2, "frost"),
    nw.Hibernate("owl", ()),
    nw.PileEmptied("ginkgo"),
)


def test_a_whole_turn_replays_from_its_json_log_to_the_same_state():
    log = [actions.to_dict(a) for a in GAME]
    back = [actions.from_dict(d, nw.ACTIONS) for d in log]
    assert back == list(GAME)
    s = nw.replay(back, "Ana", "normal")
    assert s.forest_counts == {"fox": 1} and s.den_counts == {"owl": 2}
    assert (s.acorns, s.sun, s.height, s.forks, s.frosts) == (4, 0, 1, ("right",), 1)
    assert s.draws == ("Reshuffle", "tulip poplar, orange, arrow bottom-right")


def test_undo_replays_every_action_but_the_last_and_keeps_the_drawn_cards():
    states = [nw.new_game("Ana", "normal")]
    for a in GAME:
        states.append(nw.apply(states[-1], a))
    for n in range(len(GAME)):
        assert nw.replay(GAME[:n], "Ana", "normal") == states[n]


# --- Properties -------------------------------------------------------------------------
slots = st.tuples(st.sampled_from(leaf.ANIMALS), st.booleans())
forests = st.dictionaries(st.sampled_from(leaf.ANIMALS), st.integers(0, 5))


@settings(max_examples=100, deadline=None)
@given(st.lists(slots, max_size=5), forests, st.sampled_from(nw.ARROWS))
def test_choose_animal_gives_a_mat_index_or_none_and_never_a_lesser_animal_N8(mat, forest, arrow):
    pick = nw.choose_animal(mat, forest, arrow)

    def met(slot):
        return int(forest.get(slot[0], 0) > 0) + int(slot[1])

    if pick is None:
        assert all(met(s) == 0 for s in mat)
    else:
        assert 0 <= pick < len(mat)
        assert met(mat[pick]) >= 1
        assert all(met(mat[pick]) >= met(s) for s in mat)


candidates_st = st.lists(
    st.builds(
        lambda tips, human: {"tips": tips, "human_mushroom_leaves": min(human, sum(tips.values()))},
        st.dictionaries(st.sampled_from(leaf.COLOURS), st.integers(0, 2)),
        st.integers(0, 3),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(leaf.COLOURS), candidates_st)
def test_choose_placement_never_returns_a_candidate_beaten_on_a_b_c_N3(colour, candidates):
    best = nw.choose_placement(colour, candidates)
    assert best and all(0 <= i < len(candidates) for i in best)

    def abc(cand):
        tips = cand["tips"]
        return (tips.get(colour, 0), sum(tips.values()), -cand["human_mushroom_leaves"])

    for i in best:
        assert all(abc(candidates[i]) >= abc(other) for other in candidates)
    if len(best) > 1:
        assert len({nw.placement_key(colour, candidates[i]) for i in best}) == 1


# --- Fuzz: any JSON-shaped action is either applied or refused with a RuleError -------
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 20)
    | st.sampled_from(
        [
            "fox",
            "owl",
            "red",
            "green",
            "top-left",
            "ginkgo",
            "baby",
            "grow",
            "up",
            "top",
            "frost",
            "none",
            "winter",
            "sun-2",
            "",
        ]
    ),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(
            st.sampled_from(["red", "green", "den", "fox", "tree", "mushroom_groups", "sun"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)


@st.composite
def json_actions(draw):
    import dataclasses

    name = draw(st.sampled_from(sorted(nw.ACTIONS)))
    fields = [f.name for f in dataclasses.fields(nw.ACTIONS[name])]
    return {"type": name, **{f: draw(json_values) for f in fields}}


MAT5 = [["owl", True], ["fox", False], None, ["frog", True], None]
PLAUSIBLE = [
    actions.to_dict(a)
    for a in (
        nw.SetupAnimals(("fox", "owl")),
        nw.SetupAnimals(("owl", "owl", "fox")),
        nw.EndHumanTurn(),
        nw.HumanSeason("frost"),
        nw.HumanSeason("winter"),
        nw.ReactionSun(1),
        nw.PileEmptied("ginkgo"),
        nw.PileEmptied("sweetgum"),
        nw.PileEmptied("sassafras"),
        nw.Draw("ginkgo", "red", "top-left"),
        nw.Draw("trident-maple", "orange", "bottom-right"),
        nw.Reshuffle(),
        nw.Place({"red": 2, "orange": 1}),
        nw.Place({"yellow": 3, "brown": 2}),
        nw.Done(),
        nw.Red("baby"),
        nw.Red("grow"),
        nw.Red("acorn"),
        nw.Orange(tuple(MAT5)),
        nw.Orange((None,) * 5, ("raven", True)),
        nw.Brown("up", True, 1, 1, 1, 1),
        nw.Brown("top"),
        nw.Season(2, "frost"),
        nw.Season(1, "none"),
        nw.Hibernate("owl", ()),
        nw.Hibernate(None),
        nw.Hibernate("fox", tuple(MAT5)),
        nw.FinalScore({"acorn_tokens": 9}, ()),
        nw.Achieve(("sun-2",)),
    )
]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(nw.DIFFICULTIES),
    st.lists(st.one_of(json_actions(), st.sampled_from(PLAUSIBLE)), max_size=25),
)
def test_any_action_data_is_applied_or_refused_with_a_rule_error(difficulty, logged):
    state = nw.new_game("Ana", difficulty)
    for data in logged:
        try:
            state = nw.apply(state, actions.from_dict(data, nw.ACTIONS))
        except RuleError:
            continue
        assert 0 <= state.babies + state.adults <= 15
        assert state.sun >= 0 and state.acorns >= 0
        assert 0 <= state.deck_drawn <= 12
        assert all(0 < n <= 6 for _, n in state.forest + state.den)


@pytest.mark.parametrize(
    ("module", "name"),
    [
        (m, n)
        for m in (leaf, nw)
        for n, obj in vars(m).items()
        if not n.startswith("_") and callable(obj) and getattr(obj, "__module__", "") == m.__name__
    ],
)
def test_every_public_function_and_class_of_leaf_and_north_wind_is_documented(module, name):
    assert (getattr(module, name).__doc__ or "").strip(), f"{module.__name__}.{name}"


# --- LX2 and NX5 at the final score --------------------------------------------------------
@pytest.mark.parametrize(
    ("wind", "human_den", "message"),
    [
        # The entry: 7 foxes across Ana's Den and the North Wind's.
        ({"den": (("fox", 4),)}, {"fox": 3}, r"only 6 foxes .* hold 7 \(Ana 3, the North Wind 4\)"),
        ({"forest": (("owl", 2),), "den": (("owl", 2),)}, {"owl": 3}, r"only 6 owls .* hold 7"),
    ],
)
def test_the_final_score_counts_every_animal_of_a_type_LX2(wind, human_den, message):
    s = scoring_state(**wind)
    with pytest.raises(RuleError, match=message):
        nw.apply(s, nw.FinalScore({"den": human_den}, ()))


def test_six_of_a_type_between_ana_and_the_north_wind_is_fine_LX2():
    s = scoring_state(den=(("fox", 4),))
    s = nw.apply(s, nw.FinalScore({"den": {"fox": 2}}, ()))
    assert s.phase == "over"


@pytest.mark.parametrize(("human_tree", "refused"), [(9, True), (12, True), (8, False), (0, False)])
def test_nobody_is_higher_than_the_north_wind_on_the_top_space_NX5(human_tree, refused):
    s = scoring_state(height=9, at_top=True)
    tally = {"tree": human_tree, "acorn_tokens": 40}
    if refused:
        with pytest.raises(RuleError, match="top space of the tree, 9 spaces up"):
            nw.apply(s, nw.FinalScore(tally, ()))
        return
    s = nw.apply(s, nw.FinalScore(tally, ()))
    assert s.result.breakdowns["North Wind"].tree == 6  # L4: the highest squirrel
    assert s.result.breakdowns["Ana"].tree == (3 if human_tree else 0)
    assert nw.achievement_check(s, "top") is False  # the top space is taken
    with pytest.raises(RuleError, match="does not show"):
        nw.apply(s, nw.Achieve(("top",)))


def test_the_top_achievement_stays_the_players_word_while_the_top_is_free_NX5():
    s = nw.apply(scoring_state(height=4), nw.FinalScore({"tree": 9, "acorn_tokens": 40}, ()))
    assert nw.achievement_check(s, "top") is None


def test_a_squirrel_on_the_start_space_is_not_on_the_top_NX5():
    with pytest.raises(RuleError, match="still on the start space"):
        nw.apply(acting({"brown": 2, "green": 2}), nw.Brown("top"))


# --- The top of the tree: no climb past what the tree holds (N9, NX5, LX3) ------------
@pytest.mark.parametrize(
    ("height", "at_top", "move", "message"),
    [
        # N9, NX5: found on the top space, the squirrel can only stay there
        (7, True, "up", r"already on the top space of the tree \(7 spaces up\), so it cannot"),
        (7, True, "skip", r"already on the top space of the tree \(7 spaces up\)"),
        (1, True, "up", r"already on the top space of the tree \(1 space up\)"),
        # LX3: no path up the tree is longer than leaf.MOST_SPACES_CLIMBED
        (leaf.MOST_SPACES_CLIMBED, False, "up", "no path up the tree is longer than 15"),
        (leaf.MOST_SPACES_CLIMBED - 1, False, "skip", "cannot climb 2 more"),
    ],
)
def test_no_climb_past_the_top_the_north_wind_already_reached_N9_NX5_LX3(
    height, at_top, move, message
):
    s = acting({"brown": 2, "green": 2}, colour="brown", height=height, at_top=at_top)
    with pytest.raises(RuleError, match=message) as refused:
        nw.apply(s, nw.Brown(move, acorns=1))
    assert '"Already on the top space"' in str(refused.value)  # the answer says what to tap
    assert nw.apply(s, nw.Brown("top")).height == height  # the move the tree allows


@pytest.mark.parametrize(
    ("height", "move", "climbed"),
    [
        (6, "up", 7),
        (leaf.MOST_SPACES_CLIMBED - 1, "up", 15),
        (leaf.MOST_SPACES_CLIMBED - 2, "skip", 15),
    ],
)
def test_a_climb_the_tree_has_room_for_is_entered_N9_LX3(height, move, climbed):
    s = acting({"brown": 2, "green": 2}, colour="brown", height=height)
    assert nw.apply(s, nw.Brown(move)).height == climbed


def test_the_squirrel_shown_at_the_top_after_7_spaces_stays_at_7_N9_NX5():
    """The issue's table: the board shows 7 spaces (top); "Moved up 1 space" is refused."""
    s = acting({"brown": 2, "green": 2}, colour="brown", height=7)
    s = nw.apply(s, nw.Brown("top"))
    assert (s.height, s.at_top, s.acorns) == (7, True, 1)
    with pytest.raises(RuleError, match="cannot move up"):
        nw.apply(s, nw.Brown("up"))
    assert nw.apply(s, nw.Brown("top")).acorns == 2  # N9: staying again is another acorn


@pytest.mark.parametrize(("human_tree", "refused"), [(15, False), (16, True), (40, True)])
def test_the_players_own_tally_cannot_climb_past_the_tree_LX3(human_tree, refused):
    s = scoring_state(height=3)
    tally = {"tree": human_tree, "acorn_tokens": 4}
    if refused:
        with pytest.raises(RuleError, match=f"cannot have climbed {human_tree} spaces"):
            nw.apply(s, nw.FinalScore(tally, ()))
    else:
        assert nw.apply(s, nw.FinalScore(tally, ())).phase == "over"
