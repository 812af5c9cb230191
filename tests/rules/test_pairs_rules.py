"""The Pairs / Continuous Pairs referee (companion.rules.pairs), rulings P1-P9."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import actions, pairs
from companion.rules.cards import PAIRS_DECK, check_composition
from companion.rules.errors import IllegalAction, InvalidCard, RuleError, TooManyCopies
from companion.rules.pairs import (
    DEAL,
    OVER,
    PLAY,
    TIEBREAK,
    Deal,
    Fold,
    Hit,
    Reshuffle,
    TieBreak,
    apply,
    new_game,
    play,
)

NAMES = ("Ana", "Ben", "Cy", "Di", "Ed", "Flo")


def start(*cards: int, continuous: bool = False, target: int | None = None) -> pairs.State:
    """A game whose first round was dealt ``cards``, one per player in seat order."""
    names = NAMES[: len(cards)]
    game = new_game(names, continuous=continuous, target=target)
    return play(game, [Deal(name, card) for name, card in zip(names, cards, strict=True)])


def invariants(game: pairs.State) -> None:
    in_play, scored = game.in_play(), game.scored()
    assert game.deck >= 0 and game.discards >= 0
    assert game.deck + game.discards + len(in_play) + len(scored) == 55  # P8
    check_composition(in_play + scored + list(game.known_discards))
    assert len(game.known_discards) <= game.discards
    for stack in game.stacks:
        assert len(set(stack)) == len(stack), f"a stack holds a pair: {stack}"


# --- worked examples (examples.md) -----------------------------------------


@pytest.mark.parametrize(("players", "score"), [(2, 31), (3, 21), (4, 16), (5, 13), (6, 11)])
def test_example_6_losing_scores_by_number_of_players(players, score):
    assert pairs.losing_score(players) == score
    assert new_game(NAMES[:players]).target == score


def test_example_6_in_a_four_player_game_the_first_to_reach_16_loses():
    game = start(1, 5, 6, 9)  # Ana starts with the 1
    # Ana folds the 1 (1 point); a new round; she pairs 8s (8) and 7s (7): 16.
    game = apply(game, Fold("Ana"))
    assert game.total("Ana") == 1
    game = play(game, [Deal("Ana", 8), Deal("Ben", 9), Deal("Cy", 10), Deal("Di", 10)])
    assert game.to_act == "Ana"
    game = apply(game, Hit("Ana", 8))
    assert game.total("Ana") == 9 and game.phase == DEAL
    game = play(game, [Deal("Ana", 7), Deal("Ben", 9), Deal("Cy", 10), Deal("Di", 10)])
    before = game
    game = apply(game, Hit("Ana", 7))
    assert game.total("Ana") == 16
    assert game.phase == OVER and game.is_over
    assert game.loser == "Ana"
    assert before.phase == PLAY and before.loser is None


def test_example_7_a_pair_of_8s_scores_8_points():
    game = start(8, 9)
    game = apply(game, Hit("Ana", 8))
    assert game.totals() == {"Ana": 8, "Ben": 0}
    assert game.scoring_cards("Ana") == (8,)
    assert game.last == pairs.Event("pair", "Ana", 8)
    assert game.last.describe() == "Ana paired 8s and scores 8"


# --- P1 losing score --------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "score"),
    [(2, 31), (3, 21), (4, 16), (5, 13), (6, 11), (7, 11), (8, 11), (10, 11), (20, 11)],
)
def test_p1_losing_score_table_six_or_more_is_11(players, score):
    assert pairs.losing_score(players) == score  # P1


@pytest.mark.parametrize("players", [1, 0, -2])
def test_p1_fewer_than_two_players_is_an_error_naming_the_count(players):
    with pytest.raises(ValueError, match=f"not {players}"):
        pairs.losing_score(players)


@pytest.mark.parametrize("players", [2.0, "4", None, True])
def test_p1_losing_score_needs_a_whole_number_of_players(players):
    with pytest.raises(RuleError, match="not a number of players"):
        pairs.losing_score(players)


@pytest.mark.parametrize(("target", "expected"), [(None, 31), (50, 50), (1, 1), (100, 100)])
def test_p1_a_table_may_set_its_own_target_default_is_the_table_value(target, expected):
    assert new_game(["Ana", "Ben"], target=target).target == expected  # P1


@pytest.mark.parametrize("target", [0, -5, 101, 2.5, "20", True])
def test_p1_a_custom_target_must_be_a_whole_number_from_1_to_100(target):
    with pytest.raises(RuleError, match="losing score"):
        new_game(["Ana", "Ben"], target=target)


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (["Ana"], "at least 2 players, not 1"),
        ([], "at least 2 players, not 0"),
        (["Ana", "ana "], "at the table twice"),
        (["Ana", ""], "not a player's name"),
        (["Ana", 7], "not a player's name"),
        ("AnaBen", "not the single string"),
    ],
)
def test_new_game_rejects_bad_seatings(players, message):
    with pytest.raises(RuleError, match=message):
        new_game(players)


def test_new_game_keeps_seating_order_and_starts_dealing():
    game = new_game(["Cy", "Ana", "Ben"])
    assert game.players == ("Cy", "Ana", "Ben")
    assert game.phase == DEAL
    assert game.waiting_for() == ["Cy", "Ana", "Ben"]
    assert game.to_act == "Cy"
    assert game.totals() == {"Cy": 0, "Ana": 0, "Ben": 0}


# --- P2 reaching the target -------------------------------------------------


@pytest.mark.parametrize(
    ("target", "pair", "over"),
    [
        (8, 8, True),  # P2: at the target
        (8, 9, True),  # P2: above it
        (8, 7, False),  # below: play on
    ],
)
def test_p2_the_game_ends_the_moment_a_total_is_at_or_above_the_target(target, pair, over):
    game = start(pair, 10, target=target)
    game = apply(game, Hit("Ana", pair))
    assert game.is_over is over
    assert game.loser == ("Ana" if over else None)


def test_p2_after_the_end_nothing_more_is_accepted():
    game = apply(start(5, 9, target=5), Hit("Ana", 5))
    assert game.loser == "Ana"
    with pytest.raises(IllegalAction, match="the game is over: Ana reached the losing score"):
        apply(game, Deal("Ana", 3))
    assert game.to_act is None


def test_p2_the_first_player_to_cross_the_target_loses_at_once():
    # Ana crosses 10 by pairing 2s: she loses at once, whatever the others hold.
    game = start(9, 10, target=10)
    game = apply(game, Fold("Ana"))  # Ana takes her 9
    game = play(game, [Deal("Ana", 2), Deal("Ben", 1)])  # Ben low card
    game = play(game, [Hit("Ben", 3), Hit("Ana", 2)])  # Ana pairs 2s: 11 >= 10
    assert game.loser == "Ana"
    assert game.totals() == {"Ana": 11, "Ben": 0}


# --- P3 low card and the tie-break ------------------------------------------


@pytest.mark.parametrize(
    ("cards", "first"),
    [((3, 5), "Ana"), ((5, 3), "Ben"), ((9, 8, 2), "Cy"), ((10, 1, 10, 10), "Ben")],
)
def test_p3_the_lowest_face_up_card_goes_first(cards, first):
    game = start(*cards)
    assert game.phase == PLAY
    assert game.to_act == first  # P3
    assert game.last.kind == "first" and game.last.player == first


def test_p3_tied_lowest_players_get_one_more_card_and_only_those_are_compared():
    game = start(4, 2, 2, 7)
    assert game.phase == TIEBREAK
    assert game.tied() == ["Ben", "Cy"]
    assert game.waiting_for() == ["Ben", "Cy"]
    game = apply(game, TieBreak("Ben", 9))
    assert game.waiting_for() == ["Cy"]
    game = apply(game, TieBreak("Cy", 6))
    # Cy's 6 beats Ben's 9, though Ana's 4 is lower than both: only new cards count.
    assert game.phase == PLAY and game.to_act == "Cy"
    # tie-break cards stay in the stacks for the round
    assert game.stack("Ben") == (2, 9) and game.stack("Cy") == (2, 6)


def test_p3_the_tie_break_repeats_while_tied():
    game = start(3, 3, 3)
    game = play(game, [TieBreak("Ana", 5), TieBreak("Ben", 4), TieBreak("Cy", 4)])
    assert game.phase == TIEBREAK and game.tied() == ["Ben", "Cy"]
    game = play(game, [TieBreak("Ben", 8), TieBreak("Cy", 7)])
    assert game.to_act == "Cy"
    assert game.stack("Cy") == (3, 4, 7) and game.stack("Ana") == (3, 5)


def test_p3_a_tie_break_card_that_pairs_is_discarded_and_replaced_without_score():
    game = start(6, 6)
    paired = apply(game, TieBreak("Ana", 6))  # pairs Ana's own 6
    assert paired.phase == TIEBREAK
    assert paired.stack("Ana") == (6,)
    assert paired.totals() == {"Ana": 0, "Ben": 0}
    assert paired.waiting_for() == ["Ana", "Ben"]
    assert paired.deck == game.deck - 1 and paired.discards == game.discards + 1
    assert paired.last.kind == "tiebreak-pair"
    game = play(paired, [TieBreak("Ana", 2), TieBreak("Ben", 3)])
    assert game.to_act == "Ana" and game.stack("Ana") == (6, 2)


def test_pr7_a_tie_no_card_left_can_break_goes_to_the_first_tied_player_in_seat_order():
    # Every 1-6 is a scoring card, so only 7-10 circulate; Ana and Ben each
    # hold 8, 9 and 10: whatever else they are dealt pairs, except a 7 ...
    game = start(8, 8, 9, target=40)  # a house target: 91 points are out already
    scoring = ((6, 6, 6, 6, 6, 6), (5, 5, 5, 5, 5, 4, 4), (4, 4, 3, 3, 3, 2, 2, 1))
    game = replace(game, scoring=scoring, deck=game.deck - 21)
    invariants(game)
    game = play(game, [TieBreak("Ana", 9), TieBreak("Ben", 9)])
    game = play(game, [TieBreak("Ana", 10), TieBreak("Ben", 10)])
    assert game.phase == TIEBREAK and game.tied() == ["Ana", "Ben"]
    # ... and once both have a 7 as well, nothing can settle the tie (PR7).
    game = play(game, [TieBreak("Ana", 7), TieBreak("Ben", 7)])
    assert game.phase == PLAY and game.to_act == "Ana"
    assert game.last.kind == "first-by-seat"
    assert game.last.describe() == (
        "Tie for the low card (7) that no card left can break: "
        "Ana, first of the tied players in seat order, goes first"
    )


def test_pr7_the_game_hypothesis_found_stuck_in_an_endless_tie_break_now_ends():
    # Seed 7088, six players, target 28: Ben and Di each held every rank still
    # in circulation, and the tie-break dealt them pairs for ever.
    log, states = simulate(7088, 6, False, 28, 0.5)
    assert states[-1].is_over and states[-1].loser == "Ben"
    assert any(s.last is not None and s.last.kind == "first-by-seat" for s in states)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (TieBreak("Ana", 5), "Ana is not in the tie for low card \\(tied: Ben, Cy\\)"),
        (Deal("Ana", 5), "cannot be dealt an opening card now"),
        (Hit("Ben", 5), "Ben cannot hit yet: the tie for low card is being broken"),
    ],
)
def test_p3_only_the_tied_players_get_tie_break_cards(action, message):
    game = start(4, 2, 2)
    with pytest.raises(IllegalAction, match=message):
        apply(game, action)


def test_p3_a_player_gets_one_tie_break_card_per_step():
    game = apply(start(2, 2), TieBreak("Ana", 5))
    with pytest.raises(IllegalAction, match="Ana already has a tie-break card \\(5\\)"):
        apply(game, TieBreak("Ana", 7))


def test_deal_gives_each_player_one_opening_card():
    game = play(new_game(["Ana", "Ben", "Cy"]), [Deal("Ben", 4)])
    assert game.waiting_for() == ["Ana", "Cy"] and game.to_act == "Ana"
    with pytest.raises(IllegalAction, match="Ben already has a face-up card this round \\(4\\)"):
        apply(game, Deal("Ben", 5))


# --- P4 turn order ----------------------------------------------------------


def test_p4_play_passes_to_the_left_and_wraps_around():
    game = start(5, 1, 7)  # Ben starts
    order = []
    for card in (2, 3, 4, 6, 8):
        order.append(game.to_act)
        game = apply(game, Hit(game.to_act, card))
    assert order == ["Ben", "Cy", "Ana", "Ben", "Cy"]  # P4
    assert game.to_act == "Ana"


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Hit("Ben", 3), "^Ben cannot hit: it is Ana's turn$"),
        (Fold("Ben"), "^Ben cannot fold: it is Ana's turn$"),
        (Hit("Zed", 3), "'Zed' is not playing at this table \\(players: Ana, Ben\\)"),
        (Fold("Zed"), "'Zed' is not playing at this table"),
        (Deal("Zed", 3), "'Zed' is not playing at this table"),
    ],
)
def test_p4_out_of_turn_or_unknown_players_are_refused_with_their_name(action, message):
    game = start(1, 5)
    with pytest.raises(IllegalAction, match=message):
        apply(game, action)


# --- P5 pairs ---------------------------------------------------------------


def test_p5_a_hit_matching_the_own_stack_scores_and_ends_the_round():
    game = start(4, 6)
    game = play(game, [Hit("Ana", 9), Hit("Ben", 3), Hit("Ana", 4)])
    assert game.totals() == {"Ana": 4, "Ben": 0}  # P5
    assert game.phase == DEAL and game.round == 2
    assert game.stacks == ((), ())
    # one card of the pair is kept out of circulation; the rest go to the discards
    assert game.scored() == [4]
    assert sorted(game.known_discards) == [3, 4, 6, 9]
    assert game.circulating == 54


def test_p5_a_hit_matching_another_players_stack_is_not_a_pair():
    game = play(start(4, 6), [Hit("Ana", 6)])
    assert game.totals() == {"Ana": 0, "Ben": 0}
    assert game.stack("Ana") == (4, 6) and game.to_act == "Ben"
    assert game.last.describe() == "Ana drew a 6: no pair"


# --- P6 basic fold ----------------------------------------------------------


def test_p6_a_basic_fold_takes_the_lowest_card_in_play_from_any_stack():
    game = play(start(5, 3, 9), [Hit("Ben", 8)])  # Cy to act
    assert pairs.proposed_fold(game) == ("Ben", 3)
    game = apply(game, Fold("Cy"))
    assert game.totals() == {"Ana": 0, "Ben": 0, "Cy": 3}  # P6
    assert game.phase == DEAL and game.stacks == ((), (), ())
    assert game.last.describe() == "Cy folded and takes Ben's 3 for 3 points"


@pytest.mark.parametrize("card", [5, 8, 9])
def test_p6_a_basic_fold_may_not_take_a_higher_card(card):
    game = play(start(5, 3, 9), [Hit("Ben", 8)])
    with pytest.raises(IllegalAction, match="lowest card in play, which is a 3"):
        apply(game, Fold("Cy", card))


@pytest.mark.parametrize("owner", ["Ana", "Ben"])
def test_p6_ties_in_rank_do_not_matter_any_holder_may_give_it(owner):
    game = play(start(2, 2), [TieBreak("Ana", 5), TieBreak("Ben", 7)])  # Ana to act
    game = apply(game, Fold("Ana", 2, owner))
    assert game.totals() == {"Ana": 2, "Ben": 0}
    assert game.last.owner == owner


def test_p6_fold_choices_in_basic_pairs_are_the_lowest_rank_only():
    game = play(start(2, 2), [TieBreak("Ana", 5), TieBreak("Ben", 7)])
    assert pairs.fold_choices(game) == [("Ana", 2), ("Ben", 2)]
    assert pairs.proposed_fold(game) == ("Ana", 2)  # own stack first (PR2)


def test_fold_cannot_take_a_card_that_is_not_in_play_or_not_in_that_stack():
    game = start(3, 5, continuous=True)
    with pytest.raises(IllegalAction, match="there is no 7 in play"):
        apply(game, Fold("Ana", 7))
    with pytest.raises(IllegalAction, match="Ben has no 3 in play"):
        apply(game, Fold("Ana", 3, "Ben"))
    with pytest.raises(IllegalAction, match="'Zed' is not playing"):
        apply(game, Fold("Ana", 3, "Zed"))


# --- P7 Continuous ----------------------------------------------------------


def test_p7_a_continuous_fold_may_take_any_card_in_play():
    game = play(start(4, 6, 8, continuous=True), [Hit("Ana", 9), Hit("Ben", 2)])  # Cy
    assert pairs.proposed_fold(game) == ("Ben", 2)  # P7: the lowest is proposed
    # P7: every card in play, lowest first; within a rank, the folder's own first (PR2)
    assert pairs.fold_choices(game) == [("Ben", 2), ("Ana", 4), ("Ben", 6), ("Cy", 8), ("Ana", 9)]
    assert pairs.fold_choices(game, "Ana") == [
        ("Ben", 2),
        ("Ana", 4),
        ("Ben", 6),
        ("Cy", 8),
        ("Ana", 9),
    ]
    game = apply(game, Fold("Cy", 9, "Ana"))
    assert game.totals() == {"Ana": 0, "Ben": 0, "Cy": 9}
    # only the folder's stack is discarded; the others keep theirs (minus the taken card)
    assert game.stacks == ((4,), (6, 2), ())
    assert game.phase == PLAY and game.to_act == "Ana"


def test_p7_only_the_pairers_stack_is_discarded_and_play_passes_left():
    game = play(start(4, 6, 8, continuous=True), [Hit("Ana", 9), Hit("Ben", 6)])
    assert game.totals()["Ben"] == 6
    assert game.stacks == ((4, 9), (), (8,))
    assert game.to_act == "Cy" and game.round == 1


def test_p7_a_player_with_an_empty_stack_must_hit():
    game = play(start(4, 6, continuous=True), [Fold("Ana", 4)])  # Ana's stack is empty
    game = apply(game, Hit("Ben", 2))
    assert game.to_act == "Ana" and game.must_hit("Ana")
    with pytest.raises(IllegalAction, match="Ana has no cards in play, so must hit"):
        apply(game, Fold("Ana"))
    game = apply(game, Hit("Ana", 5))
    assert game.stack("Ana") == (5,)


def test_p7_an_empty_stack_cannot_pair_and_the_odds_say_so():
    game = play(start(4, 6, continuous=True), [Fold("Ana", 4), Hit("Ben", 2)])
    assert pairs.pair_odds(game) == 0


def test_p7_continuous_deals_only_once():
    game = play(start(4, 6, continuous=True), [Hit("Ana", 4)])
    assert game.phase == PLAY
    with pytest.raises(IllegalAction, match="Ana cannot be dealt an opening card now"):
        apply(game, Deal("Ana", 3))


# --- P8 the deck --------------------------------------------------------------


def test_p8_five_cards_are_burned_at_the_start():
    game = new_game(["Ana", "Ben"])
    assert (game.deck, game.discards, game.circulating) == (50, 5, 55)
    assert not game.reshuffle_due


def test_p8_every_card_dealt_or_drawn_leaves_the_deck():
    game = play(start(3, 4), [Hit("Ana", 7), Hit("Ben", 8)])
    assert game.deck == 46
    invariants(game)


def test_p8_when_the_deck_runs_out_a_reshuffle_is_due_and_burns_five():
    game = start(1, 2, 3)
    # pretend most of the deck was drawn and discarded in earlier rounds
    game = replace(game, deck=1, discards=game.discards + game.deck - 1)
    invariants(game)
    game = apply(game, Hit("Ana", 4))
    assert game.deck == 0 and game.reshuffle_due and game.phase == PLAY
    with pytest.raises(IllegalAction, match="the deck is empty. Shuffle the discards, burn 5"):
        apply(game, Hit("Ben", 10))
    discards = game.discards
    after = apply(game, Reshuffle())
    assert after.deck == discards - 5 and after.discards == 5  # P8
    assert after.known_discards == ()
    assert after.last.describe() == "The discards were shuffled into a new deck and 5 cards burned"
    assert not after.reshuffle_due and after.to_act == "Ben"
    assert after.stacks == game.stacks  # play resumes where it stopped
    invariants(after)


def test_p8_a_round_can_end_on_the_last_card_and_the_next_deal_waits_for_the_reshuffle():
    game = replace(start(5, 6), deck=1, discards=55 - 2 - 1)
    game = apply(game, Hit("Ana", 5))  # pair on the last card
    assert game.phase == DEAL and game.reshuffle_due
    with pytest.raises(IllegalAction, match="Ana cannot be dealt a card: the deck is empty"):
        apply(game, Deal("Ana", 3))
    game = apply(game, Reshuffle())
    assert (game.deck, game.discards) == (54 - 5, 5)


def test_p8_reshuffle_only_when_the_deck_is_empty():
    with pytest.raises(IllegalAction, match="the deck still has 48 cards"):
        apply(start(3, 4), Reshuffle())


def test_p8_scoring_cards_leave_circulation_so_the_next_deck_is_smaller():
    game = apply(start(8, 9), Hit("Ana", 8))
    assert game.circulating == 54
    assert game.deck + game.discards == 54


@pytest.mark.parametrize(
    ("discards", "deck_after", "burned"),
    [(53, 48, 5), (6, 1, 5), (5, 1, 4), (3, 1, 2), (1, 1, 0)],
)
def test_p8_a_reshuffle_burns_five_but_always_leaves_a_card_to_draw(discards, deck_after, burned):
    # P8 burns 5; our ruling PR3: from a tiny discard pile burn all but one card.
    game = replace(new_game(["Ana", "Ben"]), deck=0, discards=discards, phase=PLAY, turn=0)
    game = apply(game, Reshuffle())
    assert (game.deck, game.discards) == (deck_after, burned)


def test_reshuffle_needs_discards():
    game = replace(new_game(["Ana", "Ben"]), deck=0, discards=0, phase=PLAY, turn=0)
    assert not game.reshuffle_due
    with pytest.raises(IllegalAction, match="no discards to shuffle"):
        apply(game, Reshuffle())
    with pytest.raises(IllegalAction, match="no card is left to draw"):
        apply(game, Hit("Ana", 3))


# --- entries checked against the deck ----------------------------------------


@pytest.mark.parametrize(
    ("setup", "action", "message"),
    [
        ([Deal("Ana", 1)], Deal("Ben", 1), "there is only 1 card of rank 1 and it is already out"),
        (
            [Deal("Ana", 2), Deal("Ben", 3), Hit("Ana", 2)],
            Deal("Ana", 2),
            "only 2 cards of rank 2 and all are already out \\(1 kept for scoring, "
            "1 discarded since the last shuffle\\)",
        ),
        (
            [Deal("Ana", 3), Deal("Ben", 3), TieBreak("Ana", 3)],
            TieBreak("Ben", 3),
            "Ben cannot get a 3: there are only 3 cards of rank 3",
        ),
    ],
)
def test_a_card_beyond_the_decks_copies_is_refused_and_changes_nothing(setup, action, message):
    game = play(new_game(["Ana", "Ben"]), setup)
    snapshot = game
    with pytest.raises(TooManyCopies, match=message):
        apply(game, action)
    assert game == snapshot


@pytest.mark.parametrize("card", [0, 11, -1, 7.5, "ace", None, True])
def test_a_card_that_is_not_a_rank_is_refused(card):
    with pytest.raises(InvalidCard):
        apply(start(3, 4), Hit("Ana", card))


def test_a_hit_typed_as_text_is_read_as_a_rank():
    assert apply(start(3, 4), Hit("Ana", " 7 ")).stack("Ana") == (3, 7)


def test_unknown_actions_are_refused():
    with pytest.raises(IllegalAction, match="not a Pairs action"):
        apply(start(3, 4), "hit")  # type: ignore[arg-type]


# --- P9 odds ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "hits", "player", "odds"),
    [
        ((2, 5), [], "Ana", Fraction(1, 53)),  # one 2 unseen of 53
        ((2, 5), [], "Ben", Fraction(4, 53)),
        ((2, 5), [9], "Ana", Fraction(1 + 8, 52)),  # Ana holds 2 and 9
        ((2, 9), [9], "Ana", Fraction(1 + 7, 52)),  # Ben's 9 is seen
    ],
)
def test_p9_pair_odds_are_unseen_copies_of_own_ranks_over_unseen_cards(cards, hits, player, odds):
    game = play(
        start(*cards), [Hit(game_player, c) for game_player, c in zip(["Ana"], hits, strict=False)]
    )
    assert pairs.pair_odds(game, player) == odds  # P9


def test_p9_scoring_cards_are_seen_but_burned_and_discarded_cards_are_unseen():
    game = apply(start(7, 9), Hit("Ana", 7))  # Ana scores a 7; 7 and 9 discarded
    game = play(game, [Deal("Ana", 7), Deal("Ben", 3)])  # Ben starts
    # seen: in play 7, 3 and the scoring 7 -> unseen 52; unseen 7s: 7 - 2 = 5
    assert pairs.pair_odds(game, "Ana") == Fraction(5, 52)
    assert pairs.pair_odds(game) == Fraction(2, 52)  # Ben to act, holds a 3


def test_p9_the_odds_are_phrased_with_the_note():
    game = start(2, 5)
    text = pairs.describe_odds(game)
    assert text.startswith("Ana's chance of a pair on a hit: 1 in 53 unseen cards (2%).")
    assert pairs.ODDS_NOTE in text
    assert "Burned and discarded cards count as unseen" in pairs.ODDS_NOTE


def test_p9_odds_need_someone_to_act():
    with pytest.raises(IllegalAction, match="nobody is about to play"):
        pairs.pair_odds(new_game(["Ana", "Ben"]))


# --- action JSON round trip -------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        Deal("Ana", 3),
        TieBreak("Ben", 10),
        Hit("Cy", 1),
        Fold("Di"),
        Fold("Di", 4, "Ana"),
        Reshuffle(),
    ],
)
def test_actions_survive_a_json_round_trip(action):
    data = json.loads(json.dumps(actions.to_dict(action)))
    assert actions.from_dict(data, pairs.ACTIONS) == action


# --- properties: random legal games played with a real shuffled deck --------


def simulate(seed: int, players: int, continuous: bool, target: int | None, fold: float):
    """Play a game with a physically shuffled deck; return the log and every state."""
    rng = random.Random(seed)
    game = new_game(NAMES[:players], continuous=continuous, target=target)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    deck = deck[pairs.BURN :]
    log, states = [], [game]
    for _ in range(5000):
        if game.is_over:
            break
        assert len(deck) == game.deck
        if game.reshuffle_due:
            pile = list((Counter(PAIRS_DECK) - game.seen()).elements())
            rng.shuffle(pile)
            deck = pile[min(pairs.BURN, len(pile) - 1) :]
            action = Reshuffle()
        elif game.phase == DEAL:
            action = Deal(game.to_act, deck.pop())
        elif game.phase == TIEBREAK:
            action = TieBreak(game.to_act, deck.pop())
        else:
            player = game.to_act
            may_fold = not game.must_hit(player) and game.in_play()
            if may_fold and (not game.can_draw or rng.random() < fold):
                choices = pairs.fold_choices(game)
                owner, card = rng.choice(choices)
                action = Fold(player, card, owner)
            else:
                action = Hit(player, deck.pop())
        game = apply(game, action)
        log.append(action)
        states.append(game)
    return log, states


GAMES = st.tuples(
    st.integers(0, 2**32),
    st.integers(2, 6),
    st.booleans(),
    st.one_of(st.none(), st.integers(1, 40)),
    st.sampled_from([0.0, 0.15, 0.5]),
)


@settings(max_examples=40, deadline=None)
@given(GAMES)
def test_random_legal_games_end_with_exactly_one_loser_at_or_above_the_target(params):
    log, states = simulate(*params)
    game = states[-1]
    assert game.is_over, "the game did not end"
    totals = game.totals()
    over = [p for p, t in totals.items() if t >= game.target]
    assert over == [game.loser]  # P2: exactly one, and the game stopped there
    assert sum(totals.values()) == sum(game.scored())


@settings(max_examples=40, deadline=None)
@given(GAMES)
def test_cards_never_exceed_the_deck_and_the_counts_add_up_to_55(params):
    _, states = simulate(*params)
    for game in states:
        invariants(game)


@settings(max_examples=40, deadline=None)
@given(GAMES, st.floats(0, 1))
def test_undoing_the_last_action_by_replaying_the_json_log_restores_the_state(params, where):
    log, states = simulate(*params)
    cut = 1 + int(where * (len(log) - 1))
    stored = json.dumps([actions.to_dict(a) for a in log[:cut]])
    replayed = [actions.from_dict(d, pairs.ACTIONS) for d in json.loads(stored)]
    assert replayed == log[:cut]
    # undo = replay without the last action
    assert play(states[0], replayed[:-1]) == states[cut - 1]
    assert play(states[0], replayed) == states[cut]


@settings(max_examples=40, deadline=None)
@given(
    GAMES,
    st.floats(0, 1),
    st.sampled_from(["Deal", "TieBreak", "Hit", "Fold", "Reshuffle"]),
    st.sampled_from([*NAMES, "Zed"]),
    st.one_of(st.integers(-1, 12), st.none()),
)
def test_any_action_at_any_point_is_applied_or_refused_with_a_rule_error(
    params, where, kind, player, card
):
    _, states = simulate(*params)
    game = states[int(where * (len(states) - 1))]
    action = {
        "Deal": lambda: Deal(player, card),
        "TieBreak": lambda: TieBreak(player, card),
        "Hit": lambda: Hit(player, card),
        "Fold": lambda: Fold(player, card),
        "Reshuffle": Reshuffle,
    }[kind]()
    try:
        after = apply(game, action)
    except RuleError as error:
        assert str(error)
        return
    invariants(after)


# --- rulings of our own (README "Rulings of our own") -----------------------


def test_pr1_a_discarded_card_can_come_back_only_after_the_reshuffle():
    game = apply(start(2, 5), Hit("Ana", 3))
    game = apply(game, Fold("Ben"))  # Ben takes Ana's 2; Ana's 3 and Ben's 5 are discarded
    game = play(game, [Deal("Ana", 3), Deal("Ben", 3)])
    game = play(game, [TieBreak("Ana", 6), TieBreak("Ben", 7)])
    assert game.to_act == "Ana"
    with pytest.raises(TooManyCopies, match="2 in play, 1 discarded since the last shuffle"):
        apply(game, Hit("Ana", 3))  # PR1: the third 3 is in the discard pile
    shuffled = replace(game, deck=0, discards=game.discards + game.deck)
    shuffled = apply(shuffled, Reshuffle())
    assert shuffled.known_discards == ()
    assert apply(shuffled, Hit("Ana", 3)).total("Ana") == 3  # back in the deck: a pair


def test_pr2_the_proposal_prefers_the_folders_own_stack():
    game = play(start(3, 3, 3), [TieBreak(p, c) for p, c in (("Ana", 5), ("Ben", 9), ("Cy", 8))])
    game = apply(game, Hit("Ana", 7))  # Ben to act; everyone holds a 3
    assert game.to_act == "Ben"
    assert pairs.proposed_fold(game) == ("Ben", 3)  # PR2
    assert pairs.proposed_fold(game, "Cy") == ("Cy", 3)
    assert apply(game, Fold("Ben")).last.owner == "Ben"


def test_pr2_else_the_proposal_takes_from_the_nearest_stack_to_the_left():
    game = play(start(5, 9, 5), [TieBreak("Ana", 8), TieBreak("Cy", 7)])  # Cy starts
    game = play(game, [Hit("Cy", 10), Hit("Ana", 10)])  # Ben to act, holds only a 9
    assert game.to_act == "Ben"
    assert pairs.proposed_fold(game) == ("Cy", 5)  # PR2: Cy sits left of Ben, then Ana
    assert pairs.fold_choices(game) == [("Cy", 5), ("Ana", 5)]


def test_pr2_a_continuous_fold_from_another_stack_leaves_the_rest_of_it():
    game = play(start(2, 5, continuous=True), [Hit("Ana", 9)])
    game = apply(game, Fold("Ben", 2, "Ana"))
    assert game.stack("Ana") == (9,) and game.stack("Ben") == ()


def test_pr5_continuous_play_passes_to_the_scorers_left_without_a_new_deal():
    game = play(start(3, 5, 7, continuous=True), [Hit("Ana", 3)])  # Ana pairs
    assert game.phase == PLAY and game.to_act == "Ben" and game.round == 1  # PR5
    game = play(game, [Hit("Ben", 9), Hit("Cy", 1)])
    assert game.to_act == "Ana" and game.must_hit("Ana")


def test_pr6_with_nothing_to_draw_an_empty_stack_may_fold():
    game = replace(
        new_game(["Ana", "Ben"], continuous=True),
        stacks=((), (4, 6)),
        deck=0,
        discards=0,
        phase=PLAY,
        turn=0,
    )
    assert not game.can_draw and not game.must_hit("Ana")  # PR6
    game = apply(game, Fold("Ana"))
    assert game.totals()["Ana"] == 4 and game.stack("Ben") == (6,)


# --- helpers for screens -------------------------------------------------------


def test_used_up_lists_ranks_whose_every_copy_is_accounted_for():
    assert start(3, 4).used_up() == ()
    assert start(1, 4).used_up() == (1,)
    game = apply(start(2, 5), Hit("Ana", 2))  # one 2 scored, one discarded
    assert game.used_up() == (2,)


@pytest.mark.parametrize(
    ("cards", "player", "figure"),
    [
        ((2, 5), "Ana", "1 in 53 (2%)"),
        ((10, 9), "Ben", "8 in 53 (15%)"),
        ((10, 9), "Ana", "9 in 53 (17%)"),
        ((1, 9), "Ana", "0 in 53 (0%)"),  # the only 1 is in play: it cannot pair
    ],
)
def test_odds_figure_is_hits_in_unseen_with_a_percentage(cards, player, figure):
    assert pairs.odds_figure(start(*cards), player) == figure  # P9


def test_odds_of_an_empty_stack_are_zero_in_words_too():
    game = play(start(4, 6, continuous=True), [Fold("Ana", 4), Hit("Ben", 2)])
    assert pairs.odds_figure(game) == "0 in 52 (0%)"
    assert pairs.describe_odds(game).startswith("Ana's chance of a pair on a hit: 0 in 52")


def test_state_shortcuts_match_the_module_functions():
    game = play(start(4, 6, 8, continuous=True), [Hit("Ana", 9)])
    assert game.fold_choices() == pairs.fold_choices(game)
    assert game.proposed_fold() == pairs.proposed_fold(game)
    assert game.pair_odds("Ana") == pairs.pair_odds(game, "Ana")
    assert game.odds_figure() == pairs.odds_figure(game)
    assert game.odds_note == pairs.ODDS_NOTE


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (pairs.Event("dealt", "Ana", 4), "Ana was dealt a 4"),
        (pairs.Event("dealt", "Ana", 8), "Ana was dealt an 8"),
        (pairs.Event("hit", "Ben", 8), "Ben drew an 8: no pair"),
        (pairs.Event("first", "Ben", 2), "Ben has the low card (2) and goes first"),
        (pairs.Event("tie", rank=3), "Tie for the low card (3): the tied players get one more"),
        (pairs.Event("tiebreak-pair", "Cy", 6), "Cy's tie-break card 6 paired: it is discarded"),
        (pairs.Event("hit", "Ana", 7), "Ana drew a 7: no pair"),
        (pairs.Event("pair", "Ana", 8), "Ana paired 8s and scores 8"),
        (pairs.Event("fold", "Ana", 1, "Ana"), "Ana folded and takes their own 1 for 1 point"),
        (pairs.Event("reshuffle", count=1), "shuffled into a new deck and 1 card burned"),
    ],
)
def test_events_describe_themselves_for_the_table(event, text):
    assert text in event.describe()
