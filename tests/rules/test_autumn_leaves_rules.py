"""The Autumn Leaves referee: worked examples 8-11, rulings A1-A9, properties."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import actions, autumn_leaves
from companion.rules.autumn_leaves import (
    DECK_EMPTY,
    EMPTY_HAND,
    OVER,
    PLAY,
    REVEAL,
    SCORE,
    DiscardDraw,
    Highest,
    Place,
    Reveal,
    State,
    TakeBack,
    Unreveal,
    apply,
    can_place,
    hand_score,
    legal_piles,
    new_game,
    order_groups,
    play_order,
    replay,
)
from companion.rules.cards import DECK_SIZE, PAIRS_DECK, copies
from companion.rules.errors import IllegalAction, InvalidCard, RuleError, TooManyCopies

THREE = ("Ana", "Ben", "Cy")


def play(state: State, *steps: object) -> State:
    for step in steps:
        state = apply(state, step)  # type: ignore[arg-type]
    return state


def reveal(state: State, *cards: int) -> State:
    """Everyone reveals at once, in seating order."""
    return apply(state, Reveal(tuple(zip(state.players, cards, strict=True))))


def position(piles, hand_sizes, deck, discards=(), players=THREE, seed=0) -> State:
    """A consistent mid-hand position, ready for the next reveal."""
    assert sum(map(len, piles)) + sum(hand_sizes) + deck + len(discards) == DECK_SIZE
    start = new_game(players, seed)
    return replace(
        start,
        round=2,
        piles=tuple(tuple(p) for p in piles),
        hand_sizes=tuple(hand_sizes),
        deck=deck,
        discards=tuple(discards),
    )


def accounted(state: State) -> int:
    return sum(state.hand_sizes) + sum(map(len, state.piles)) + state.deck + len(state.discards)


# --------------------------------------------------------------------------
# The worked examples of the rule text (examples.md 8-11)
# --------------------------------------------------------------------------


def test_example_8_a_six_goes_only_on_a_five_or_a_seven():
    assert [top for top in range(1, 11) if can_place(6, top)] == [5, 7]


def test_example_9_highest_nine_with_six_in_pile_scores_three():
    assert hand_score(6, 9, winner=False) == 3


def test_example_10_highest_four_with_six_in_pile_scores_zero():
    assert hand_score(6, 4, winner=False) == 0


@pytest.mark.parametrize("pile_size", [1, 6, 13])
def test_example_11_winner_loses_one_point_per_card_in_own_pile(pile_size):
    assert hand_score(pile_size, None, winner=True) == -pile_size


# --------------------------------------------------------------------------
# A1 deal
# --------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "deck"), [(3, 34), (4, 27), (5, 20), (6, 13)])
def test_a1_seven_cards_each_and_the_rest_is_the_deck(players, deck):
    state = new_game([f"P{i}" for i in range(players)])
    assert state.hand_sizes == (7,) * players
    assert state.deck == deck == 55 - 7 * players
    assert (state.phase, state.hand, state.round) == (REVEAL, 1, 1)


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (["Ana", "Ben"], "3 to 6 players, not 2"),
        ([f"P{i}" for i in range(7)], "3 to 6 players, not 7"),
        (["Ana", "Ben", "Ana"], "cannot share a name: Ana"),
        (["Ana", "Ben", " ana"], "cannot share a name:  ana, Ana"),
        (["Ana", "Ben", "  "], "is not a player's name"),
        ("AnaBenCy", "list of names"),
    ],
)
def test_a1_bad_tables_are_refused_with_a_reason(players, message):
    with pytest.raises(RuleError, match=message):
        new_game(players)


def test_a1_seed_must_be_a_whole_number():
    with pytest.raises(RuleError, match="seed"):
        new_game(THREE, seed="7")  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# A2 first round
# --------------------------------------------------------------------------


def test_a2_first_round_cards_start_their_owners_piles_without_choices():
    state = reveal(new_game(THREE), 10, 1, 10)
    assert state.piles == ((10,), (1,), (10,))
    assert state.hand_sizes == (6, 6, 6)
    assert (state.phase, state.round) == (REVEAL, 2)
    assert [m.kind for m in state.last_moves] == ["start"] * 3


def test_a2_reveals_may_come_one_phone_at_a_time():
    state = apply(new_game(THREE), Reveal((("Ben", 4),)))
    assert state.to_reveal == ("Ana", "Cy")
    assert state.piles == ((), (), ())
    state = apply(state, Reveal((("Cy", 6), ("Ana", 2))))
    assert state.piles == ((2,), (4,), (6,))


# --------------------------------------------------------------------------
# A3 play order
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("revealed", "piles", "expected"),
    [
        # A3: lower revealed rank acts first
        ({"Ana": 9, "Ben": 2, "Cy": 5}, {"Ana": [1], "Ben": [8], "Cy": [3]}, ["Ben", "Cy", "Ana"]),
        # A3: tie broken by the top card of the own pile, lower first
        ({"Ana": 4, "Ben": 4, "Cy": 4}, {"Ana": [8], "Ben": [3], "Cy": [6]}, ["Ben", "Cy", "Ana"]),
        # A3: equal tops, the next card down decides
        ({"Ana": 4, "Ben": 4}, {"Ana": [9, 2, 7], "Ben": [1, 3, 7]}, ["Ana", "Ben"]),
        # A3: deeper still; the bottom cards decide
        ({"Ana": 4, "Ben": 4}, {"Ana": [6, 5, 7], "Ben": [3, 5, 7]}, ["Ben", "Ana"]),
        # A3: a card acts before no card
        ({"Ana": 4, "Ben": 4}, {"Ana": [5, 7], "Ben": [2, 5, 7]}, ["Ben", "Ana"]),
        # A3: a pile missing from the mapping is an empty pile (no card)
        ({"Ana": 4, "Ben": 4}, {"Ben": [2]}, ["Ben", "Ana"]),
        # A3: lower card beats any pile
        ({"Ana": 3, "Ben": 4}, {"Ana": [10, 10], "Ben": [1]}, ["Ana", "Ben"]),
    ],
)
def test_a3_play_order_key(revealed, piles, expected):
    assert play_order(revealed, piles, random.Random(0)) == expected
    assert all(len(group) == 1 for group in order_groups(revealed, piles))


@pytest.mark.parametrize(
    ("piles", "order", "reason"),
    [
        (  # the top cards decide
            [[9, 3], [2, 7], [5]],
            ("Ana", "Ben", "Cy"),
            "Ana goes before Ben: same card, and Ana's pile has the lower top card (3, Ben's 7)",
        ),
        (  # equal tops: the card under them decides
            [[5, 6], [2, 6], [9]],
            ("Ben", "Ana", "Cy"),
            "Ben goes before Ana: same card and same top card, and Ben's pile has the lower "
            "card under it (2, Ana's 5)",
        ),
        (  # a card before no card
            [[2, 5, 6], [5, 6], [9]],
            ("Ana", "Ben", "Cy"),
            "Ana goes before Ben: same card and same top 2 cards, and only Ana's pile has a "
            "card under them",
        ),
    ],
)
def test_a3_the_state_says_why_the_piles_ordered_equal_cards(piles, order, reason):
    hands = [6, 6, 6]
    deck = DECK_SIZE - sum(map(len, piles)) - sum(hands)
    state = reveal(position(piles, hands, deck), 4, 4, 10)
    assert state.waiting == order
    assert state.order_reasons == (reason,)
    assert state.random_ties == ()


def test_a3_an_exact_tie_has_no_reason_from_the_piles():
    state = reveal(position([[7, 4], [7, 4], [9]], [6, 6, 6], 55 - 5 - 18), 5, 5, 2)
    assert state.random_ties == (tuple(sorted(("Ana", "Ben"), key=state.waiting.index)),)
    assert state.order_reasons == ()


def test_a3_identical_piles_are_an_exact_tie_drawn_at_random():
    revealed = {"Ana": 5, "Ben": 5, "Cy": 2}
    piles = {"Ana": [7, 4], "Ben": [7, 4], "Cy": [9]}
    assert order_groups(revealed, piles) == [("Cy",), ("Ana", "Ben")]
    orders = {tuple(play_order(revealed, piles, random.Random(s))) for s in range(40)}
    assert orders == {("Cy", "Ana", "Ben"), ("Cy", "Ben", "Ana")}


def test_a3_play_order_is_reproducible_with_a_seeded_rng():
    revealed = {p: 5 for p in "ABCD"}
    piles = {p: [4] for p in "ABCD"}
    assert play_order(revealed, piles, random.Random(3)) == play_order(
        revealed, piles, random.Random(3)
    )


@pytest.mark.parametrize(
    ("revealed", "piles", "error"),
    [
        ({"Ana": 11}, {}, InvalidCard),
        ({"Ana": 3}, {"Ana": [0]}, InvalidCard),
        ({"Ana": 1, "Ben": 1}, {}, TooManyCopies),
        ({"Ana": 2}, {"Ana": [2, 2]}, TooManyCopies),
        ([("Ana", 2)], {}, RuleError),
        ({"Ana": 2}, {"Ana": 7}, RuleError),
        ({"Ana": 2}, {"Ana": "79"}, RuleError),
    ],
)
def test_a3_play_order_rejects_impossible_cards(revealed, piles, error):
    with pytest.raises(error):
        play_order(revealed, piles)


def test_a3_a_placement_can_reverse_the_order_of_tied_players():
    # Ana and Ben both reveal 5; Ana's top 4 is lower than Ben's 5, so Ana leads.
    state = reveal(position([[4], [5], [1]], [6, 6, 6], 34), 5, 5, 4)
    assert state.waiting == ("Cy", "Ana", "Ben")
    assert legal_piles(state) == ("Ben",)
    # Cy's 4 on Ben's 5: both tops are 4 now; Ben's pile still has a card
    # below it and Ana's does not, so Ben acts before Ana (A3).
    state = apply(state, Place("Cy", "Ben"))
    assert state.piles[1] == (5, 4)
    assert state.waiting == ("Ben", "Ana")


def test_a3_the_order_is_rechecked_deeper_in_the_piles_after_a_placement():
    state = reveal(position([[4], [3, 5], [1]], [6, 6, 6], 33), 5, 5, 5)
    assert state.waiting == ("Cy", "Ana", "Ben")  # tops 1 < 4 < 5
    state = apply(state, Place("Cy", "Ana"))  # Ana's pile 4, 5 against Ben's 3, 5
    assert state.waiting == ("Ben", "Ana")


def test_a3_a_placement_that_keeps_the_order_keeps_it():
    state = reveal(position([[4], [6], [1]], [6, 6, 6], 34), 5, 5, 2)
    assert state.waiting == ("Cy", "Ana", "Ben")
    assert apply(state, Place("Cy", "Cy")).waiting == ("Ana", "Ben")


def test_a3_exact_tie_in_a_round_is_drawn_from_the_seed_and_reported():
    orders = set()
    for seed in range(30):
        state = position([[7], [7], [3]], [6, 6, 6], 34, seed=seed)
        state = reveal(state, 4, 4, 9)
        assert state.random_ties == (state.waiting[:2],)
        assert set(state.waiting[:2]) == {"Ana", "Ben"}
        assert reveal(position([[7], [7], [3]], [6, 6, 6], 34, seed=seed), 4, 4, 9) == state
        orders.add(state.waiting)
    assert orders == {("Ana", "Ben", "Cy"), ("Ben", "Ana", "Cy")}


def test_a3_no_random_tie_reported_when_the_piles_decide():
    state = reveal(position([[7], [6], [3]], [6, 6, 6], 34), 4, 4, 9)
    assert state.random_ties == ()
    assert state.waiting == ("Ben", "Ana", "Cy")


# --------------------------------------------------------------------------
# A4 placement
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "top", "fits"),
    [
        (6, 5, True),
        (6, 7, True),
        (6, 6, False),
        (6, 4, False),
        (6, 8, False),
        (1, 2, True),
        (10, 9, True),
        (1, 10, False),
        (10, 1, False),
        (2, 1, True),
    ],
)
def test_a4_a_card_fits_only_one_rank_up_or_down(card, top, fits):
    assert can_place(card, top) is fits


@pytest.mark.parametrize(("card", "top"), [(0, 5), (5, 11), (True, 2), ("6", 5)])
def test_a4_can_place_rejects_non_cards(card, top):
    with pytest.raises(InvalidCard):
        can_place(card, top)


def test_a4_player_chooses_any_fitting_pile_including_others():
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 9, 10)
    assert state.to_act == "Ana"
    assert legal_piles(state) == ("Ana", "Ben")
    moved = apply(state, Place("Ana", "Ben"))
    assert moved.piles == ((5,), (7, 6), (1,))
    assert moved.hand_sizes == (5, 6, 6)
    assert apply(state, Place("Ana", "Ana")).piles == ((5, 6), (7,), (1,))


def test_a4_a_card_that_fits_must_be_placed():
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 9, 10)
    for action in (TakeBack("Ana"), DiscardDraw("Ana")):
        with pytest.raises(IllegalAction, match="Ana's 6 can be placed .* so it must be"):
            apply(state, action)


def test_a4_a_pile_the_card_does_not_fit_is_refused_with_the_reason():
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 9, 10)
    with pytest.raises(IllegalAction, match=r"cannot go on Cy's pile \(top card 1\)"):
        apply(state, Place("Ana", "Cy"))


@pytest.mark.parametrize(
    ("ana", "words"),
    [
        (8, "an 8 goes only on a 7 or a 9;"),
        (6, "a 6 goes only on a 5 or a 7;"),
    ],
)
def test_a4_the_refusal_names_the_neighbours_with_their_articles(ana, words):
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), ana, 9, 10)
    with pytest.raises(IllegalAction) as refused:
        apply(state, Place("Ana", "Cy"))
    assert words in str(refused.value)


# --------------------------------------------------------------------------
# A5 cannot place
# --------------------------------------------------------------------------


def ben_stuck() -> State:
    """Ben to act with a 9 that fits on no pile (tops 6, 7, 1)."""
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 9, 10)
    state = apply(state, Place("Ana", "Ana"))
    assert state.to_act == "Ben" and legal_piles(state) == ()
    return state


def test_a5_take_back_keeps_the_card_and_remembers_it():
    state = apply(ben_stuck(), TakeBack("Ben"))
    assert state.hand_sizes == (5, 6, 6)
    assert state.known_in_hand[1] == (9,)
    assert state.deck == 34
    assert state.to_act == "Cy"


def test_a5_discard_and_draw_keeps_the_hand_size_and_shrinks_the_deck():
    state = apply(ben_stuck(), DiscardDraw("Ben"))
    assert state.hand_sizes == (5, 6, 6)
    assert state.discards == (9,)
    assert state.deck == 33
    assert state.known_in_hand[1] == ()


# 33 cards that leave 1, 3, 5, 7, 8, 9 free for the piles and reveals below
DISCARDED = (10,) * 10 + (6,) * 6 + (4,) * 4 + (2,) * 2 + (7,) * 6 + (5,) * 4 + (3,)


def test_a5_a7_drawing_the_last_card_ends_the_hand_at_once_without_winner():
    state = position([[5], [7], [1]], [6, 6, 6], 1, discards=DISCARDED)
    state = reveal(state, 3, 9, 8)
    assert state.waiting == ("Ana", "Cy", "Ben")
    assert legal_piles(state) == ()
    state = apply(state, DiscardDraw("Ana"))
    assert state.deck == 0
    assert (state.phase, state.ended_by, state.winner) == (SCORE, DECK_EMPTY, None)
    # A7: Cy and Ben had not acted: their cards go back into their hands
    assert state.known_in_hand == ((), (9,), (8,))
    assert [m.kind for m in state.moves] == ["discard", "hand over", "hand over"]
    assert state.to_score == THREE


def test_a5_discard_and_draw_refused_when_the_deck_is_empty():
    empty = replace(ben_stuck(), deck=0)
    with pytest.raises(IllegalAction, match="deck is empty"):
        apply(empty, DiscardDraw("Ben"))


# --------------------------------------------------------------------------
# A6 Cold Snap
# --------------------------------------------------------------------------


def test_a6_cold_snap_puts_every_card_on_its_owners_pile_in_play_order():
    state = reveal(position([[5], [5], [1]], [6, 6, 6], 34), 9, 3, 9)
    assert state.last_cold_snap
    assert state.piles == ((5, 9), (5, 3), (1, 9))
    assert state.hand_sizes == (5, 5, 5)
    assert [(m.player, m.kind) for m in state.last_moves] == [
        ("Ben", "cold snap"),
        ("Cy", "cold snap"),
        ("Ana", "cold snap"),
    ]
    assert (state.phase, state.round) == (REVEAL, 3)


def test_a6_cold_snap_is_decided_at_the_reveal_not_later():
    # Ana's 4 fits on Ben's 5, so there is no Cold Snap this round, even though
    # after her placement neither 7 fits anywhere: they take back or discard.
    state = reveal(position([[9], [5], [1]], [6, 6, 6], 34), 4, 7, 7)
    assert not state.cold_snap
    state = apply(state, Place("Ana", "Ben"))
    assert (state.phase, state.to_act, legal_piles(state)) == (PLAY, "Cy", ())
    assert not state.cold_snap


def test_a6_a7_cold_snap_can_end_the_hand_and_the_rest_take_cards_back():
    state = position([[5], [5], [1]], [2, 1, 1], 55 - 3 - 4)
    state = reveal(state, 9, 10, 9)
    # order: Ana 9 (top 5) and Cy 9 (top 1): Cy first; then Ana, then Ben 10
    assert (state.phase, state.ended_by, state.winner) == (SCORE, EMPTY_HAND, "Cy")
    assert state.piles == ((5,), (5,), (1, 9))
    assert state.known_in_hand == ((9,), (10,), ())
    assert [m.kind for m in state.moves] == ["cold snap", "hand over", "hand over"]


# --------------------------------------------------------------------------
# A7 end of hand
# --------------------------------------------------------------------------


def test_a7_placing_the_last_card_wins_the_hand_at_once():
    state = position([[5], [7], [1]], [1, 6, 6], 34 + 5)
    state = reveal(state, 6, 6, 2)
    assert state.waiting == ("Cy", "Ana", "Ben")
    state = apply(state, Place("Cy", "Cy"))
    state = apply(state, Place("Ana", "Ben"))
    assert (state.phase, state.winner, state.ended_by) == (SCORE, "Ana", EMPTY_HAND)
    assert state.hand_sizes == (0, 6, 5)
    assert state.known_in_hand == ((), (6,), ())
    assert state.to_score == ("Ben", "Cy")


def test_a7_no_more_actions_once_the_hand_is_over():
    state = play(
        reveal(position([[5], [7], [1]], [1, 6, 6], 39), 6, 6, 2),
        Place("Cy", "Cy"),
        Place("Ana", "Ben"),
    )
    with pytest.raises(IllegalAction, match="waiting for the highest cards"):
        apply(state, Place("Ben", "Ana"))
    with pytest.raises(IllegalAction, match="cannot reveal cards now"):
        apply(state, Reveal((("Ben", 3),)))


# --------------------------------------------------------------------------
# A8 scoring
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pile", "highest", "winner", "score"),
    [
        (6, 9, False, 3),
        (6, 4, False, 0),
        (6, 6, False, 0),
        (1, 10, False, 9),
        (0, 3, False, 3),
        (6, None, True, -6),
        (1, None, True, -1),
    ],
)
def test_a8_hand_score_table(pile, highest, winner, score):
    assert hand_score(pile, highest, winner=winner) == score


@pytest.mark.parametrize(
    ("pile", "highest", "winner", "error", "message"),
    [
        (-1, 5, False, RuleError, "not a leaf pile size"),
        (56, 5, False, RuleError, "impossible"),
        (3, None, False, RuleError, "enter their highest card"),
        (3, 5, True, RuleError, "cannot hold a 5"),
        (3, 8, True, RuleError, "cannot hold an 8"),
        (3, 11, False, InvalidCard, "11"),
    ],
)
def test_a8_hand_score_rejects_nonsense(pile, highest, winner, error, message):
    with pytest.raises(error, match=message):
        hand_score(pile, highest, winner=winner)


def test_a8_winner_minus_own_pile_others_highest_minus_pile():
    state = position([[5, 4], [7], [1, 2, 3]], [1, 6, 6], 55 - 6 - 13)
    state = play(reveal(state, 6, 8, 9), Place("Ana", "Ben"))
    assert state.winner == "Ana"
    state = apply(state, Highest((("Ben", 9), ("Cy", 10))))
    result = state.results[-1]
    assert result.scores == (-2, max(0, 9 - 2), max(0, 10 - 3))  # Ben's pile is 7, 6
    assert result.winner == "Ana"
    assert state.hand == 2 and state.phase == REVEAL


def test_a8_no_winner_when_the_deck_ran_out():
    discards = (10,) * 10 + (6,) * 6 + (4,) * 3 + (2,) * 2 + (7,) * 6 + (5,) * 4 + (3,)
    state = position([[4, 5], [7], [1]], [6, 6, 6], 1, discards=discards)
    state = play(reveal(state, 3, 9, 8), DiscardDraw("Ana"))
    assert state.winner is None
    state = apply(state, Highest((("Ana", 9), ("Ben", 9), ("Cy", 8))))
    assert state.results[-1].winner is None
    assert state.results[-1].scores == (9 - 2, 9 - 1, 8 - 1)


@pytest.mark.parametrize(
    ("entries", "error", "message"),
    [
        ((("Ana", 5),), IllegalAction, "no cards left"),
        ((("Ben", 5),), IllegalAction, "took back a 6"),  # Ben took back his revealed 6
        ((("Cy", 11),), InvalidCard, "11"),
        ((("Cy", 1),), TooManyCopies, "only 1 card of rank 1, and it is already on the table"),
        ((("Cy", 2),), TooManyCopies, "holds 5 cards, so their highest cannot be 2"),
        ((("Ben", 6), ("Cy", 2)), TooManyCopies, "holds 5 cards"),
        ((("Zed", 5),), IllegalAction, "'Zed' is not playing"),
        ((("Cy", 5), ("Cy", 6)), IllegalAction, "Cy entered twice"),
        ((), RuleError, "no highest cards entered"),
        ("junk", RuleError, "'junk' is not a list of \\(player, card\\) entries"),
    ],
)
def test_a8_highest_cards_are_checked(entries, error, message):
    state = position([[5], [7], [1]], [1, 6, 6], 39)
    state = play(reveal(state, 6, 6, 2), Place("Cy", "Cy"), Place("Ana", "Ben"))
    with pytest.raises(error, match=message):
        apply(state, Highest(entries))


def test_a8_a_hand_of_only_known_cards_has_that_highest():
    state = position([[5], [7], [1]], [1, 1, 6], 44)
    state = play(reveal(state, 6, 9, 2), Place("Cy", "Cy"))
    state = apply(state, Place("Ana", "Ana"))
    assert state.winner == "Ana" and state.known_in_hand[1] == (9,)
    with pytest.raises(IllegalAction, match=r"all known \(9\), so their highest is 9"):
        apply(state, Highest((("Ben", 10),)))
    assert apply(state, Highest((("Ben", 9), ("Cy", 10)))).results[-1].highest == (None, 9, 10)


def test_a8_highest_must_fit_the_deck():
    discards = [10] * 10
    state = position([[5], [7], [1]], [1, 6, 6], 29, discards=discards)
    state = play(reveal(state, 6, 6, 2), Place("Cy", "Cy"), Place("Ana", "Ben"))
    with pytest.raises(TooManyCopies, match="only 10 cards of rank 10"):
        apply(state, Highest((("Cy", 10),)))


def test_a8_scores_may_be_entered_one_phone_at_a_time():
    state = position([[5], [7], [1]], [1, 6, 6], 39)
    state = play(reveal(state, 6, 6, 2), Place("Cy", "Cy"), Place("Ana", "Ben"))
    state = apply(state, Highest((("Cy", 8),)))
    assert state.to_score == ("Ben",) and state.results == ()
    with pytest.raises(IllegalAction, match="already entered as 8"):
        apply(state, Highest((("Cy", 9),)))
    state = apply(state, Highest((("Ben", 7),)))
    assert len(state.results) == 1


def test_a8_highest_cards_entered_in_separate_actions_are_counted_together():
    discards = (10,) * 9
    state = position([[5], [7], [1]], [1, 6, 6], 30, discards=discards)
    state = play(reveal(state, 6, 6, 2), Place("Cy", "Cy"), Place("Ana", "Ben"))
    state = apply(state, Highest((("Cy", 10),)))  # the tenth 10
    with pytest.raises(TooManyCopies, match="only 10 cards of rank 10"):
        apply(state, Highest((("Ben", 10),)))  # Ben's known 6 is not a 10


def test_entry_choices_offer_only_acceptable_cards():
    state = position([[1], [2], [2]], [6, 6, 6], 34)
    assert autumn_leaves.entry_choices(state, "Ana") == (3, 4, 5, 6, 7, 8, 9, 10)
    assert state.choices("Ana") == autumn_leaves.entry_choices(state, "Ana")
    assert autumn_leaves.entry_choices(state, "Zed") == ()
    playing = reveal(state, 3, 4, 5)
    assert autumn_leaves.entry_choices(playing, "Ana") == ()
    over = play(
        reveal(position([[5], [7], [1]], [1, 1, 6], 44), 6, 9, 2),
        Place("Cy", "Cy"),
        Place("Ana", "Ana"),
    )
    assert over.choices("Ben") == (9,)  # Ben's only card is the 9 he took back
    assert over.choices("Ana") == ()  # the winner holds nothing
    assert over.choices("Cy")[0] == 4  # 5 cards: 1 and 2 are mostly gone, 3s too few


# --------------------------------------------------------------------------
# A9 six hands, lowest total wins, ties share
# --------------------------------------------------------------------------


def quick_hand(state: State, scores_for: dict[str, int]) -> State:
    """Play a short hand: Ana empties her hand fast in a doctored position."""
    fresh = replace(state, round=2, piles=((5,), (9,), (1,)), hand_sizes=(1, 6, 6), deck=39)
    fresh = play(reveal(fresh, 6, 8, 2), Place("Cy", "Cy"), Place("Ana", "Ana"))
    return apply(fresh, Highest(tuple(scores_for.items())))


def test_a9_six_hands_then_lowest_total_wins():
    state = new_game(THREE)
    for number in range(1, 7):
        assert state.hand == number
        state = quick_hand(state, {"Ben": 10, "Cy": 4})
    assert state.phase == OVER
    assert len(state.results) == 6
    # each hand: Ana -2 (pile 5, 6), Ben 10 - 1 = 9, Cy max(0, 4 - 2) = 2 (pile 1, 2)
    assert [r.scores for r in state.results] == [(-2, 9, 2)] * 6
    assert state.totals == (-12, 54, 12)
    assert state.game_winners == ("Ana",)
    with pytest.raises(IllegalAction, match="game is over"):
        apply(state, Reveal((("Ana", 3),)))


def test_a9_tied_lowest_totals_share_the_win():
    state = new_game(THREE)
    for _ in range(6):
        state = quick_hand(state, {"Ben": 8, "Cy": 4})
    results = tuple(replace(r, scores=(0, 0, 5)) for r in state.results)
    tied = replace(state, results=results)
    assert tied.totals == (0, 0, 30)
    assert tied.game_winners == ("Ana", "Ben")


def test_a9_a_new_hand_is_a_fresh_deal():
    state = quick_hand(new_game(THREE), {"Ben": 10, "Cy": 4})
    assert state.hand == 2
    assert (state.round, state.deck, state.hand_sizes) == (1, 34, (7, 7, 7))
    assert state.piles == ((), (), ()) and state.discards == ()
    assert state.known_in_hand == ((), (), ())


# --------------------------------------------------------------------------
# Entries checked against the deck, turns, phases
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "error", "message"),
    [
        ((("Ana", 1), ("Ben", 1)), TooManyCopies, "only 1 card of rank 1"),
        ((("Ana", 0),), InvalidCard, "0"),
        ((("Ana", "ten"),), InvalidCard, "ten"),
        ((("Ana", True),), InvalidCard, "True"),
        ((("Zed", 4),), IllegalAction, "'Zed' is not playing"),
        ((("Ana", 4), ("Ana", 5)), IllegalAction, "Ana entered twice"),
        ((), RuleError, "no revealed cards entered"),
        (((1, 2),), RuleError, "not a \\(player, card\\) entry"),
        ((("Ana", 4, 5),), RuleError, "not a \\(player, card\\) entry"),
    ],
)
def test_reveal_entries_are_checked(entries, error, message):
    with pytest.raises(error, match=message):
        apply(new_game(THREE), Reveal(entries))


def test_reveal_counts_cards_already_on_the_piles():
    state = position([[2], [2], [7]], [6, 6, 6], 34)
    with pytest.raises(TooManyCopies, match="only 2 cards of rank 2"):
        apply(state, Reveal((("Cy", 2),)))


def test_reveal_twice_in_a_round_is_refused():
    state = apply(new_game(THREE), Reveal((("Ana", 4),)))
    with pytest.raises(IllegalAction, match="already revealed a card this round"):
        apply(state, Reveal((("Ana", 5),)))


def test_a_taken_back_card_revealed_again_is_not_a_new_copy():
    state = reveal(position([[5], [7], [4]], [6, 6, 6], 34), 6, 1, 10)
    assert state.waiting == ("Ben", "Ana", "Cy")
    state = play(state, TakeBack("Ben"))  # a 1 fits only on a 2
    assert state.known_in_hand[1] == (1,)
    state = play(state, Place("Ana", "Ana"), DiscardDraw("Cy"))
    state = apply(state, Reveal((("Ben", 1),)))  # the same 1: allowed
    assert state.known_in_hand[1] == ()
    with pytest.raises(TooManyCopies):
        apply(state, Reveal((("Ana", 1),)))


def test_a_hand_of_only_taken_back_cards_must_reveal_one_of_them():
    state = reveal(position([[5], [7], [1]], [1, 6, 6], 39), 10, 6, 10)
    state = play(state, Place("Ben", "Ana"), DiscardDraw("Cy"), TakeBack("Ana"))
    with pytest.raises(IllegalAction, match=r"only cards they took back \(10\)"):
        apply(state, Reveal((("Ana", 4),)))


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Place("Ana", "Ben"), "Ana cannot play yet: it is Cy's turn"),
        (TakeBack("Ben"), "Ben cannot play yet: it is Cy's turn"),
        (Place("Cy", "Zed"), "'Zed' is not playing"),
        (Place("Zed", "Cy"), "'Zed' is not playing"),
    ],
)
def test_only_the_player_whose_turn_it_is_may_act(action, message):
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 8, 2)
    with pytest.raises(IllegalAction, match=message):
        apply(state, action)


def test_a_player_who_acted_cannot_act_again_in_the_round():
    state = play(reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 8, 2), Place("Cy", "Cy"))
    with pytest.raises(IllegalAction, match="Cy has already played this round"):
        apply(state, Place("Cy", "Cy"))


def test_playing_during_the_reveal_is_refused():
    with pytest.raises(IllegalAction, match="waiting for everyone to reveal"):
        apply(new_game(THREE), Place("Ana", "Ana"))


def test_apply_never_changes_its_argument():
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 8, 2)
    before = replace(state)
    apply(state, Place("Cy", "Cy"))
    assert state == before


def test_unknown_action_is_refused():
    with pytest.raises(IllegalAction, match="not an Autumn Leaves action"):
        apply(new_game(THREE), "reveal")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "action",
    [
        Reveal((("Ana", 3), ("Ben", 10))),
        Place("Ana", "Ben"),
        TakeBack("Cy"),
        DiscardDraw("Ana"),
        Highest((("Ben", 7),)),
    ],
)
def test_actions_survive_the_json_round_trip(action):
    data = actions.to_dict(action)
    assert actions.from_dict(data, autumn_leaves.ACTIONS) == action


def test_move_descriptions_read_as_plain_words():
    state = reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 9, 2)
    state = play(state, Place("Cy", "Cy"), Place("Ana", "Ben"), TakeBack("Ben"))
    assert [m.describe() for m in state.last_moves] == [
        "Cy: 2 onto their own pile",
        "Ana: 6 onto Ben's pile",
        "Ben: could not place the 9, took it back",
    ]


# --------------------------------------------------------------------------
# Properties over random legal games
# --------------------------------------------------------------------------


def reveal_choices(state: State, player: str, known: Counter[int]) -> list[int]:
    i = state.seat(player)
    mine = list(state.known_in_hand[i])
    if len(mine) >= state.hand_sizes[i]:
        return mine
    return sorted(set(mine) | {r for r in range(1, 11) if known[r] < copies(r)})


def random_action(state: State, rnd: random.Random) -> object:
    if state.phase == REVEAL:
        players = list(state.to_reveal)
        if rnd.random() < 0.5:
            players = [rnd.choice(players)]
        known = state.known_cards()
        entries = []
        for player in players:
            card = rnd.choice(reveal_choices(state, player, known))
            if card not in state.known_in_hand[state.seat(player)]:
                known[card] += 1
            entries.append((player, card))
        return Reveal(tuple(entries))
    if state.phase == PLAY:
        player = state.to_act
        assert player is not None
        piles = legal_piles(state)
        if piles:
            return Place(player, rnd.choice(piles))
        return rnd.choice([TakeBack, DiscardDraw, DiscardDraw])(player)
    assert state.phase == SCORE
    player = state.to_score[0]
    candidates = list(range(1, 11))
    rnd.shuffle(candidates)
    for card in candidates:
        try:
            apply(state, Highest(((player, card),)))
        except RuleError:
            continue
        return Highest(((player, card),))
    raise AssertionError(f"no highest card is acceptable for {player} in {state}")


def check_invariants(state: State) -> None:
    assert accounted(state) == DECK_SIZE
    autumn_leaves.check_known(state)
    for size, mine in zip(state.hand_sizes, state.known_in_hand, strict=True):
        assert 0 <= len(mine) <= size
    if state.phase in (REVEAL, PLAY):
        assert state.deck > 0
    if state.phase == PLAY:
        pending = {p for p, c in zip(state.players, state.revealed, strict=True) if c is not None}
        assert sorted(state.waiting) == sorted(pending)
    if state.phase == SCORE:
        assert state.ended_by in (EMPTY_HAND, DECK_EMPTY)


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(min_value=3, max_value=6),
    seed=st.integers(min_value=0, max_value=10**6),
    rnd=st.randoms(use_true_random=False),
    steps=st.integers(min_value=1, max_value=250),
)
def test_every_card_is_always_accounted_for_and_undo_is_a_replay(players, seed, rnd, steps):
    names = [f"P{i}" for i in range(players)]
    state = new_game(names, seed)
    states = [state]
    log = []
    for _ in range(steps):
        if state.phase == OVER:
            break
        action = random_action(state, rnd)
        state = apply(state, action)  # type: ignore[arg-type]
        check_invariants(state)
        log.append(actions.to_dict(action))
        states.append(state)
    stored = [actions.from_dict(d, autumn_leaves.ACTIONS) for d in log]
    assert replay(names, seed, stored) == state
    cut = rnd.randrange(len(stored)) if stored else 0
    assert replay(names, seed, stored[:cut]) == states[cut]  # undo = replay without the rest
    if stored:
        assert replay(names, seed, stored[:-1]) == states[-2]


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    players=st.lists(st.sampled_from("ABCDEF"), min_size=1, max_size=6, unique=True),
)
def test_play_order_is_a_permutation_sorted_by_revealed_card(data, players):
    deck = list(PAIRS_DECK)
    data.draw(st.randoms(use_true_random=False)).shuffle(deck)
    revealed = {p: deck.pop() for p in players}
    piles = {p: [deck.pop() for _ in range(data.draw(st.integers(0, 4)))] for p in players}
    rng = random.Random(data.draw(st.integers(0, 1000)))
    order = play_order(revealed, piles, rng)
    assert sorted(order) == sorted(players)
    assert [revealed[p] for p in order] == sorted(revealed.values())
    groups = order_groups(revealed, piles)
    at = 0
    for group in groups:  # the order is the groups, each shuffled in place
        assert sorted(order[at : at + len(group)]) == sorted(group)
        at += len(group)
    for group in groups:
        assert len({(revealed[p], tuple(piles[p])) for p in group}) == 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), rnd=st.randoms(use_true_random=False))
def test_a_whole_game_reaches_six_results(seed, rnd):
    state = new_game(THREE, seed)
    for _ in range(5000):
        if state.phase == OVER:
            break
        state = apply(state, random_action(state, rnd))  # type: ignore[arg-type]
    assert state.phase == OVER
    assert [r.number for r in state.results] == [1, 2, 3, 4, 5, 6]
    assert state.totals == tuple(sum(r.scores[i] for r in state.results) for i in range(3))
    assert set(state.game_winners) == {
        p for p, t in zip(THREE, state.totals, strict=True) if t == min(state.totals)
    }


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.sampled_from(["Ana", "Cy", "Zed", "7", ""]),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(sorted(autumn_leaves.ACTIONS)),
    fields=st.dictionaries(
        st.sampled_from(["player", "pile", "cards", "card"]), json_values, max_size=3
    ),
    at=st.sampled_from(["reveal", "play", "score"]),
)
def test_junk_actions_from_a_log_are_refused_with_a_rule_error(kind, fields, at):
    state = {
        "reveal": new_game(THREE),
        "play": reveal(position([[5], [7], [1]], [6, 6, 6], 34), 6, 8, 2),
        "score": play(
            reveal(position([[5], [7], [1]], [1, 6, 6], 39), 6, 6, 2),
            Place("Cy", "Cy"),
            Place("Ana", "Ben"),
        ),
    }[at]
    try:
        action = actions.from_dict({"type": kind, **fields}, autumn_leaves.ACTIONS)
        after = apply(state, action)
    except RuleError:
        return
    check_invariants(after)


# --------------------------------------------------------------------------
# AX1: a reveal is checked only against what its maker can see
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "recheck", "kept"),
    [
        # Ana and Ben each enter the only 1 on their own phones: nothing starts
        ([("Ana", 1), ("Ben", 1), ("Cy", 7)], ("Ana", "Ben"), {"Cy": 7}),
        # three 2s where the deck has two: all three enter again
        ([("Ana", 2), ("Ben", 2), ("Cy", 2)], ("Ana", "Ben", "Cy"), {}),
    ],
)
def test_ax1_reveals_that_cannot_all_be_true_are_caught_when_the_last_is_in(entries, recheck, kept):
    state = new_game(THREE)
    for player, card in entries:
        state = apply(state, Reveal(((player, card),)))  # each accepted on its own
    assert state.phase == REVEAL and state.round == 1
    assert state.recheck == recheck
    assert state.to_reveal == recheck
    assert {p: state.card_of(p) for p in THREE if state.card_of(p) is not None} == kept
    # The players concerned enter again; the round starts.
    for player in recheck:
        state = apply(state, Reveal(((player, 3 + THREE.index(player)),)))
    assert state.recheck == () and state.round == 2


def test_ax1_a_refused_reveal_never_counts_another_players_hidden_card():
    state = apply(new_game(THREE), Reveal((("Ana", 1),)))
    assert 1 in state.choices("Ben")  # Ben's pad does not grey out Ana's hidden 1
    assert state.public_cards("Ben")[1] == 0
    assert state.public_cards("Ana")[1] == 1


def test_ax1_a_player_takes_back_their_own_card_before_the_round_starts():
    state = apply(new_game(THREE), Reveal((("Ana", 9),)))
    state = apply(state, Unreveal("Ana"))
    assert state.card_of("Ana") is None and "Ana" in state.to_reveal
    with pytest.raises(IllegalAction, match="Ana has not revealed a card"):
        apply(state, Unreveal("Ana"))


def test_ax1_a_taken_back_card_goes_back_to_the_known_hand_when_unrevealed():
    state = reveal(position([[5], [7], [4]], [6, 6, 6], 34), 6, 1, 10)
    state = play(state, TakeBack("Ben"), Place("Ana", "Ana"), DiscardDraw("Cy"))
    state = apply(state, Reveal((("Ben", 1),)))
    assert state.known_in_hand[1] == ()
    state = apply(state, Unreveal("Ben"))
    assert state.known_in_hand[1] == (1,)
