"""The Venture referee: worked examples 1-5, rulings V1-V9, the game state machine."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import actions, venture
from companion.rules.cards import PAIRS_DECK
from companion.rules.errors import IllegalAction, InvalidCard, RuleError, TooManyCopies
from companion.rules.venture import (
    CAPTURED,
    FIRED,
    LOWEST,
    MISFIRED,
    Bid,
    ChangeBid,
    EnterSlug,
    WithdrawBid,
)

FIVE = ("Ana", "Ben", "Cy", "Di", "Ed")
THREE = ("Ana", "Ben", "Cy")


def bids_of(*cards: int, names: tuple[str, ...] = FIVE) -> dict[str, int]:
    return dict(zip(names, cards, strict=False))


# ---------------------------------------------------------------- examples 1-5


def test_example_1_first_round_of_the_five_player_game():
    result = venture.resolve([4, 5, 6, 8, 10], bids_of(2, 3, 4, 5, 6))
    assert result.captured == {
        "Ana": [10],  # the 2 captures the 10
        "Ben": [2],  # the 3 captures the 2
        "Cy": [3],  # the 4 captures the 3
        "Di": [4, 4],  # the 5 captures both 4s
        "Ed": [5, 5],  # the 6 captures both 5s
    }
    assert result.pool == [6, 6, 8]
    assert [(s.rank, s.outcome, s.captured) for s in result.steps] == [
        (2, LOWEST, (10,)),
        (3, FIRED, (2,)),
        (4, FIRED, (3,)),
        (5, FIRED, (4, 4)),
        (6, FIRED, (5, 5)),
    ]


def test_example_2_second_round_misfires_and_the_seven_takes_fives_and_sixes():
    result = venture.resolve([6, 6, 8], bids_of(5, 5, 7, 9, 9))
    assert result.captured == {"Ana": [], "Ben": [], "Cy": [5, 5, 6, 6], "Di": [], "Ed": []}
    assert result.pool == [7, 8, 9, 9]
    assert [(s.rank, s.players, s.outcome) for s in result.steps] == [
        (5, ("Ana", "Ben"), MISFIRED),
        (7, ("Cy",), FIRED),
        (9, ("Di", "Ed"), MISFIRED),
    ]


def test_example_3_eleven_cards_with_all_five_fives_score_minus_one():
    captured = [5, 5, 5, 5, 5, 2, 3, 4, 6, 7, 8]
    assert len(captured) == 11
    assert venture.final_scores({"Ana": captured}, []) == {"Ana": -1}


def test_example_4_eight_nines_and_the_last_nine_in_the_pool_score_nine():
    assert venture.final_scores({"Ana": [9] * 8}, [9]) == {"Ana": 9}
    assert venture.full_sets({"Ana": [9] * 8}, [9]) == {"Ana": [9]}


@pytest.mark.parametrize(
    ("players", "slug", "hand"),
    [(3, 4, 17), (4, 3, 13), (5, 5, 10), (6, 7, 8), (7, 6, 7), (8, 7, 6)],
)
def test_example_5_slug_sizes_leave_a_deck_that_divides_evenly(players, slug, hand):  # V1
    assert venture.slug_size(players) == slug
    assert (55 - slug) % players == 0
    assert venture.hand_size(players) == hand == (55 - slug) // players


# ------------------------------------------------------------------------ V1


@pytest.mark.parametrize(
    ("players", "words"),
    [
        (0, "not 0"),
        (1, "not 1"),
        (2, "3 to 8 players, not 2"),
        (9, "not 9"),
        (-3, "not -3"),
        (True, "True is not a number"),
        ("3", "'3' is not a number"),
        (3.0, "3.0 is not a number"),
        (None, "None is not a number"),
    ],
)
@pytest.mark.parametrize("size", [venture.slug_size, venture.hand_size])
def test_v1_player_counts_outside_three_to_eight_are_an_error(size, players, words):
    with pytest.raises(ValueError, match=words):
        size(players)


# ------------------------------------------------------------------- V2-V7


@pytest.mark.parametrize(
    ("ruling", "pool", "bids", "captured", "next_pool"),
    [
        # V2: lowest rank first: the 3 takes the 8 before the 8 can fire, then the 5
        # takes the 1 and the 3; bid order in the mapping does not matter
        ("V2", [1], {"Ana": 8, "Ben": 3, "Cy": 5}, {"Ana": [], "Ben": [8], "Cy": [1, 3]}, [5]),
        # V3: a rank bid twice misfires; the misfired 4s stay and can be captured
        ("V3", [2], {"Ana": 4, "Ben": 4, "Cy": 6}, {"Ana": [], "Ben": [], "Cy": [2, 4, 4]}, [6]),
        # V3: all three 7s misfire; nothing else fires, everything stays
        (
            "V3",
            [10],
            {"Ana": 7, "Ben": 7, "Cy": 7},
            {"Ana": [], "Ben": [], "Cy": []},
            [7, 7, 7, 10],
        ),
        # V4: the lowest bid takes every card of the highest rank, pool and bids alike
        (
            "V4",
            [9, 9, 2],
            {"Ana": 1, "Ben": 9, "Cy": 3},
            {"Ana": [9, 9, 9], "Ben": [], "Cy": [1, 2]},
            [3],
        ),
        # V4: its own card is excluded: a lone 6 with a pool of 6 and 2 takes the other 6
        ("V4", [6, 2], {"Ana": 6}, {"Ana": [6]}, [2, 6]),
        # V4: a lowest bid with nothing else on the table takes nothing
        ("V4", [], {"Ana": 5}, {"Ana": []}, [5]),
        # V4: the lowest rank misfires, so nobody uses the special rule; the 8 takes low
        ("V4", [10], {"Ana": 2, "Ben": 2, "Cy": 8}, {"Ana": [], "Ben": [], "Cy": [2, 2]}, [8, 10]),
        # V4: only the lowest rank is special: the second-lowest takes down, not the top
        (
            "V4",
            [10, 1],
            {"Ana": 2, "Ben": 3, "Cy": 4},
            {"Ana": [10], "Ben": [1, 2], "Cy": [3]},
            [4],
        ),
        # V5: a normal bid takes pool cards, fired bids and misfired bids below it
        (
            "V5",
            [1, 9],
            {"Ana": 2, "Ben": 3, "Cy": 3, "Di": 5},
            {"Ana": [9], "Ben": [], "Cy": [], "Di": [1, 2, 3, 3]},
            [5],
        ),
        # V5: equal ranks are not lower: a lone 5 leaves a pool 5 alone
        (
            "V5",
            [5, 5],
            {"Ana": 1, "Ben": 5, "Cy": 9},
            {"Ana": [9], "Ben": [1], "Cy": []},
            [5, 5, 5],
        ),
        # V6: the 9 is captured by the lowest bid before it fires, so the 5 survives
        ("V6", [9], {"Ana": 2, "Ben": 9, "Cy": 5}, {"Ana": [9, 9], "Ben": [], "Cy": [2]}, [5]),
        # V6: misfired-to-be 10s taken by the lowest bid never get to fire
        (
            "V6",
            [4],
            {"Ana": 3, "Ben": 10, "Cy": 10},
            {"Ana": [10, 10], "Ben": [], "Cy": []},
            [3, 4],
        ),
        # V7: the uncaptured pool and the surviving bids form the next pool
        (
            "V7",
            [8, 8],
            {"Ana": 1, "Ben": 7, "Cy": 7},
            {"Ana": [8, 8], "Ben": [], "Cy": []},
            [1, 7, 7],
        ),
    ],
)
def test_resolution_rulings(ruling, pool, bids, captured, next_pool):
    result = venture.resolve(pool, bids)
    assert result.captured == captured, ruling
    assert result.pool == next_pool, ruling


@pytest.mark.parametrize(
    ("ruling", "pool", "bids", "outcomes"),
    [
        ("V2", [10], {"Ana": 7, "Ben": 2, "Cy": 4}, [(2, LOWEST), (4, FIRED), (7, FIRED)]),
        ("V3", [10], {"Ana": 7, "Ben": 7, "Cy": 4}, [(4, LOWEST), (7, MISFIRED)]),
        ("V4", [10], {"Ana": 3, "Ben": 3, "Cy": 6}, [(3, MISFIRED), (6, FIRED)]),
        ("V6", [9], {"Ana": 2, "Ben": 9, "Cy": 5}, [(2, LOWEST), (5, FIRED), (9, CAPTURED)]),
    ],
)
def test_the_firing_record_names_each_rank_in_order(ruling, pool, bids, outcomes):
    result = venture.resolve(pool, bids)
    assert [(s.rank, s.outcome) for s in result.steps] == outcomes, ruling


def test_a_captured_bid_records_who_took_it_before_it_fired():  # V6
    steps = venture.resolve([9], {"Ana": 2, "Ben": 9, "Cy": 5}).steps
    lowest, _, skipped = steps
    assert lowest.bids_captured == ("Ben",)
    assert lowest.taker == "Ana"
    assert skipped.taken_by == "Ana" and skipped.captured == () and skipped.taker is None
    assert skipped.describe() == "Ben's 9 went to Ana before it could fire"


@pytest.mark.parametrize(
    ("pool", "bids", "lines"),
    [
        (
            [4, 5, 6, 8, 10],
            bids_of(2, 3, 4, 5, 6),
            [
                "Ana's 2 is the lowest bid and takes the highest cards: 10",
                "Ben's 3 takes 2",
                "Cy's 4 takes 3",
                "Di's 5 takes 4, 4",
                "Ed's 6 takes 5, 5",
            ],
        ),
        ([], {"Ana": 5}, ["Ana's 5 is the lowest bid but there is nothing else to take"]),
        (
            [9],
            {"Ana": 1, "Ben": 2, "Cy": 9},
            [
                "Ana's 1 is the lowest bid and takes the highest cards: 9, 9",
                "Ben's 2 takes 1",
                "Cy's 9 went to Ana before it could fire",
            ],
        ),
        (
            [],
            {"Ana": 3, "Ben": 3, "Cy": 3, "Di": 1},
            [
                "Di's 1 is the lowest bid and takes the highest cards: 3, 3, 3",
                "the 3s of Ana, Ben and Cy went to Di before they could fire",
            ],
        ),
        (
            [9],
            {"Ana": 2, "Ben": 3},
            ["Ana's 2 is the lowest bid and takes the highest cards: 9", "Ben's 3 takes 2"],
        ),
        (
            [1],
            {"Ana": 3, "Ben": 3, "Cy": 3, "Di": 7},
            ["the 3s of Ana, Ben and Cy misfire and take nothing", "Di's 7 takes 1, 3, 3, 3"],
        ),
        (
            [9],
            {"Ana": 5, "Ben": 4, "Cy": 8},
            [
                "Ben's 4 is the lowest bid and takes the highest cards: 9",
                "Ana's 5 takes 4",
                "Cy's 8 takes 5",
            ],
        ),
    ],
)
def test_each_step_reads_as_a_plain_sentence(pool, bids, lines):
    assert [s.describe() for s in venture.resolve(pool, bids).steps] == lines


def test_every_bidder_appears_in_captured_in_bid_order_with_ascending_lists():
    result = venture.resolve([10, 1, 7], {"Zoe": 9, "Al": 2, "Mo": 8})
    assert list(result.captured) == ["Zoe", "Al", "Mo"]
    assert all(cards == sorted(cards) for cards in result.captured.values())
    assert result.pool == sorted(result.pool)


@pytest.mark.parametrize(
    ("pool", "bids", "error", "words"),
    [
        ([0], {"Ana": 3}, InvalidCard, "a pool card: 0 is not a card"),
        ([3], {"Ana": 11}, InvalidCard, "Ana's bid: 11 is not a card"),
        ([3], {"Ana": "7"}, InvalidCard, "Ana's bid: '7' is not a card"),
        ([3], {"Ana": True}, InvalidCard, "Ana's bid: True"),
        ([1], {"Ana": 1}, TooManyCopies, "only 1 card of rank 1, not 2"),
        ([2, 2], {"Ana": 2, "Ben": 5}, TooManyCopies, "only 2 cards of rank 2, not 3"),
        ([4], {"": 3}, IllegalAction, "'' is not a player's name"),
    ],
)
def test_resolve_rejects_bad_input_with_a_message_naming_it(pool, bids, error, words):
    with pytest.raises(error) as caught:
        venture.resolve(pool, bids)
    assert words in str(caught.value)


# ------------------------------------------------------------------------ V8


@pytest.mark.parametrize(
    ("captured", "pool", "scores"),
    [
        ({"Ana": [1]}, [], {"Ana": 1}),  # a captured 1 is always a full set
        ({"Ana": [2, 2]}, [], {"Ana": 2}),
        ({"Ana": [2]}, [2], {"Ana": 2}),  # the pool completes the set
        ({"Ana": [2], "Ben": [2]}, [], {"Ana": -1, "Ben": -1}),  # split sets score nothing
        ({"Ana": []}, [3, 3, 3], {"Ana": 0}),  # a set wholly in the pool belongs to nobody
        ({"Ana": [3, 3]}, [], {"Ana": -2}),  # the third 3 is elsewhere (a hand)
        ({"Ana": [10] * 9}, [], {"Ana": -9}),
        ({"Ana": [10] * 10, "Ben": [4, 4, 4]}, [4], {"Ana": 10, "Ben": 4}),
        ({"Ana": [7, 8], "Ben": [1, 9]}, [], {"Ana": -2, "Ben": 0}),  # +1 for the 1, -1 for 9
    ],
)
def test_v8_scoring_table(captured, pool, scores):
    assert venture.final_scores(captured, pool) == scores


def test_v8_full_sets_lists_each_players_complete_ranks():
    assert venture.full_sets({"Ana": [1, 3, 3], "Ben": [2, 2, 5]}, [3]) == {
        "Ana": [1, 3],
        "Ben": [2],
    }


@pytest.mark.parametrize(
    ("scores", "best"),
    [
        ({"Ana": -3, "Ben": 2, "Cy": 2}, ["Ben", "Cy"]),  # V8 ties share
        ({"Ana": -3, "Ben": -1, "Cy": -2}, ["Ben"]),
        ({}, []),
    ],
)
def test_v8_highest_total_wins_and_ties_share(scores, best):
    assert venture.winners(scores) == best


@pytest.mark.parametrize(
    ("captured", "pool", "error"),
    [
        ({"Ana": [5] * 4, "Ben": [5] * 2}, [], TooManyCopies),
        ({"Ana": [2]}, [2, 2], TooManyCopies),
        ({"Ana": [0]}, [], InvalidCard),
        ({"Ana": []}, [11], InvalidCard),
    ],
)
def test_v8_scoring_rejects_impossible_piles(captured, pool, error):
    with pytest.raises(error):
        venture.final_scores(captured, pool)


# ----------------------------------------------------------- the state machine


def slugged(players=THREE, slug=(4, 5, 6, 8), **options):
    return venture.apply(venture.new_game(players, **options), EnterSlug(tuple(slug)))


def play(state, *entries):
    for entry in entries:
        state = venture.apply(state, entry)
    return state


def test_a_new_game_waits_for_the_slug_and_knows_the_deal():
    game = venture.new_game(FIVE)
    assert game.phase == "slug"
    assert (game.slug_size, game.hand_size, game.rounds_left) == (5, 10, 10)
    assert game.hand_counts() == dict.fromkeys(FIVE, 10)
    assert game.waiting_for() == []
    assert game.outcome is None


@pytest.mark.parametrize("drafting", [False, True])
def test_v9_drafting_is_recorded_and_changes_nothing_else(drafting):
    game = slugged(drafting=drafting)
    assert game.drafting is drafting
    assert game.pool == (4, 5, 6, 8)


@pytest.mark.parametrize(
    ("players", "words"),
    [
        (("Ana", "Ben"), "3 to 8 players, not 2"),
        (tuple("ABCDEFGHI"), "3 to 8 players, not 9"),
        (("Ana", "Ben", "Ana"), "Ana is at the table twice"),
        (("Ana", "ben", "Ben "), "at the table twice"),
        (("Ana", "Ben", " "), "' ' is not a player's name"),
        (("Ana", "Ben", 7), "7 is not a player's name"),
    ],
)
def test_new_game_rejects_bad_seating(players, words):
    with pytest.raises(IllegalAction, match=words):
        venture.new_game(players)


def test_new_game_rejects_a_drafting_flag_that_is_not_a_bool():
    with pytest.raises(IllegalAction, match="drafting"):
        venture.new_game(THREE, drafting="yes")  # type: ignore[arg-type]


def test_the_slug_becomes_the_first_pool_in_order():
    game = slugged(slug=(8, 4, 6, 5))
    assert game.phase == "bidding"
    assert game.slug == (8, 4, 6, 5)
    assert game.pool == (4, 5, 6, 8)
    assert game.waiting_for() == list(THREE)


@pytest.mark.parametrize(
    ("slug", "error", "words"),
    [
        ((4, 5, 6), IllegalAction, "slug for 3 players is 4 cards, not 3"),
        ((4, 5, 6, 7, 8), IllegalAction, "is 4 cards, not 5"),
        ((1, 1, 5, 6), TooManyCopies, "only 1 card of rank 1, not 2"),
        ((4, 5, 6, 0), InvalidCard, "a slug card: 0"),
        ((4, 5, 6, "x"), InvalidCard, "'x'"),
    ],
)
def test_the_slug_must_be_exactly_slug_size_real_cards(slug, error, words):
    game = venture.new_game(THREE)
    with pytest.raises(error, match=words):
        venture.apply(game, EnterSlug(slug))


def test_the_slug_cannot_be_entered_twice():
    with pytest.raises(IllegalAction, match="already entered"):
        venture.apply(slugged(), EnterSlug((1, 2, 3, 4)))


def test_bids_are_secret_until_the_last_one_and_then_fire():
    game = play(slugged(), Bid("Ben", 3), Bid("Ana", 2))
    assert game.waiting_for() == ["Cy"]
    assert game.has_bid("Ana") and not game.has_bid("Cy")
    assert game.hand_counts() == {"Ana": 16, "Ben": 16, "Cy": 17}
    assert game.pool == (4, 5, 6, 8) and game.rounds == ()
    game = venture.apply(game, Bid("Cy", 7))
    assert game.rounds_played == 1 and game.rounds_left == 16
    assert game.waiting_for() == list(THREE)
    assert game.bid_of("Ana") is None
    # 2 takes the 8; 3 takes the 2; 7 takes 3, 4, 5, 6
    assert game.captured_piles() == {"Ana": [8], "Ben": [2], "Cy": [3, 4, 5, 6]}
    assert game.pool == (7,)
    last = game.last_round
    assert last is not None
    assert last.number == 1 and last.pool == (4, 5, 6, 8)
    assert last.bids == (("Ana", 2), ("Ben", 3), ("Cy", 7))
    assert game.hand_counts() == dict.fromkeys(THREE, 16)
    # standings if it ended now (V8): every captured card -1, no full sets yet
    assert game.scores() == {"Ana": -1, "Ben": -1, "Cy": -4}


def test_face_up_cards_leave_out_the_secret_bids_but_known_cards_count_them():
    game = play(slugged(), Bid("Ana", 1), Bid("Ben", 9), Bid("Cy", 10))
    game = venture.apply(game, Bid("Ana", 7))
    assert game.face_up_cards() == sorted(
        [*game.pool, *[c for p in game.captured_piles().values() for c in p]]
    )
    assert 7 not in game.face_up_cards()
    assert sorted(game.known_cards()) == sorted([*game.face_up_cards(), 7])


def test_a_bid_can_be_changed_or_withdrawn_until_all_are_in():
    game = play(slugged(), Bid("Ana", 2), ChangeBid("Ana", 9), Bid("Ben", 3))
    assert game.bid_of("Ana") == 9
    game = venture.apply(game, WithdrawBid("Ana"))
    assert game.waiting_for() == ["Ana", "Cy"]
    game = play(game, Bid("Ana", 10), Bid("Cy", 1))
    assert game.rounds[0].bids == (("Ana", 10), ("Ben", 3), ("Cy", 1))


@pytest.mark.parametrize(
    ("entries", "action", "error", "words"),
    [
        ([], Bid("Zed", 3), IllegalAction, "'Zed' is not playing at this table"),
        ([], WithdrawBid(""), IllegalAction, "'' is not playing at this table"),
        ([Bid("Ana", 2)], Bid("Ana", 3), IllegalAction, "Ana has already bid this round"),
        ([], ChangeBid("Ana", 3), IllegalAction, "Ana has not bid this round"),
        ([], WithdrawBid("Ben"), IllegalAction, "Ben has no bid to take back"),
        ([], Bid("Ana", 0), InvalidCard, "Ana's bid: 0 is not a card"),
        ([], Bid("Ana", "7"), InvalidCard, "Ana's bid: '7' is not a card"),
    ],
)
def test_a_refused_entry_says_why_and_changes_nothing(entries, action, error, words):
    game = play(slugged(slug=(4, 5, 6, 8)), *entries)
    with pytest.raises(error, match=words):
        venture.apply(game, action)
    assert game == play(slugged(slug=(4, 5, 6, 8)), *entries)


@pytest.mark.parametrize(
    ("entries", "action"),
    [
        ([], Bid("Ana", 4)),  # the slug holds one 4 of four
        ([Bid("Ana", 2)], Bid("Ben", 2)),  # both 2s are bid: fine, they misfire
        ([Bid("Ana", 2), Bid("Ben", 3)], ChangeBid("Ana", 3)),
        ([Bid("Ana", 2)], ChangeBid("Ana", 2)),  # changing to the same card is harmless
    ],
)
def test_legal_entries_next_to_the_refused_ones_are_accepted(entries, action):
    game = venture.apply(play(slugged(), *entries), action)
    assert game.bid_of(action.player) == action.card


@pytest.mark.parametrize(
    ("entries", "last", "recheck", "kept"),
    [
        # VX1: two players bid the only 1; Cy's bid stands, nothing is revealed
        ([Bid("Ana", 1), Bid("Ben", 1)], Bid("Cy", 7), ("Ana", "Ben"), {"Cy": 7}),
        ([Bid("Ana", 2), Bid("Ben", 2)], Bid("Cy", 2), ("Ana", "Ben", "Cy"), {}),
        ([Bid("Ana", 1), Bid("Ben", 2)], ChangeBid("Ben", 1), None, {}),
        ([Bid("Ana", 1), Bid("Cy", 3)], Bid("Ben", 1), ("Ana", "Ben"), {"Cy": 3}),
    ],
)
def test_bids_that_cannot_all_be_true_are_caught_at_the_reveal(entries, last, recheck, kept):
    # A secret bid is never checked against the other secret bids (VX1), so
    # its acceptance tells the bidder nothing; the clash shows when all are in.
    game = play(slugged(slug=(4, 5, 6, 8)), *entries)
    game = venture.apply(game, last)
    if recheck is None:  # not every bid is in yet: nothing to check
        assert game.bid_of(last.player) == last.card
        assert game.recheck == ()
        return
    assert game.rounds == ()
    assert game.recheck == recheck
    assert game.waiting_for() == list(recheck)
    assert {p: game.bid_of(p) for p in game.players if game.has_bid(p)} == kept


def test_a_bidder_asked_to_check_their_card_bids_again_and_the_round_fires():
    game = play(slugged(slug=(4, 5, 6, 8)), Bid("Ana", 1), Bid("Ben", 1), Bid("Cy", 7))
    assert game.recheck == ("Ana", "Ben")
    game = venture.apply(game, Bid("Ben", 9))
    assert game.recheck == ("Ana",)
    game = venture.apply(game, Bid("Ana", 1))
    assert game.recheck == ()
    assert game.rounds[0].bids == (("Ana", 1), ("Ben", 9), ("Cy", 7))


def test_a_refused_bid_names_only_face_up_cards():
    game = play(slugged(slug=(1, 5, 6, 8)))
    with pytest.raises(TooManyCopies, match="the only 1 is already in the pool or in a captured"):
        venture.apply(game, Bid("Ana", 1))


def test_a_bid_that_would_exceed_the_known_cards_counts_the_captured_piles():
    # Round 1: Ana's 1 takes the 8; the rank-1 card is now on the table (pool).
    game = play(slugged(), Bid("Ana", 1), Bid("Ben", 9), Bid("Cy", 10))
    assert 1 in game.known_cards()
    with pytest.raises(TooManyCopies, match="Ana cannot bid a 1"):
        venture.apply(game, Bid("Ana", 1))


def test_an_eight_reads_as_an_eight_in_the_message():
    game = play(slugged(slug=(8, 8, 8, 8)), Bid("Ana", 8), Bid("Ben", 8), Bid("Cy", 8))
    # round 1: the 8s misfire (V3) and stay: seven 8s face up; Ana captures one
    # more with her 1 later, so all eight are face up
    game = replace(game, pool=(8,) * 8)
    with pytest.raises(TooManyCopies, match="Cy cannot bid an 8: all 8 cards of rank 8"):
        play(game, Bid("Cy", 8))


def test_bidding_before_the_slug_is_refused():
    with pytest.raises(IllegalAction, match="enter the slug first"):
        venture.apply(venture.new_game(THREE), Bid("Ana", 3))


def test_an_unknown_action_is_refused():
    with pytest.raises(IllegalAction, match="not a Venture action"):
        venture.apply(slugged(), "bid 3")  # type: ignore[arg-type]


def deal(players: tuple[str, ...], seed: int) -> tuple[tuple[int, ...], dict[str, list[int]]]:
    rng = random.Random(seed)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    size = venture.slug_size(len(players))
    slug, rest = tuple(deck[:size]), deck[size:]
    hand = venture.hand_size(len(players))
    return slug, {p: rest[i * hand : (i + 1) * hand] for i, p in enumerate(players)}


def whole_game(players: tuple[str, ...], seed: int) -> tuple[venture.State, list[object]]:
    rng = random.Random(seed)
    slug, hands = deal(players, seed)
    game = venture.new_game(players)
    log: list[object] = [EnterSlug(slug)]
    game = venture.apply(game, log[0])  # type: ignore[arg-type]
    while not game.is_over:
        for player in rng.sample(players, len(players)):
            card = hands[player].pop(rng.randrange(len(hands[player])))
            log.append(Bid(player, card))
            game = venture.apply(game, log[-1])  # type: ignore[arg-type]
    return game, log


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8])
def test_a_whole_game_ends_after_one_round_per_card_and_uses_the_whole_deck(players):
    names = tuple(f"P{i}" for i in range(players))
    game, log = whole_game(names, seed=players)
    assert game.phase == "over"
    assert game.rounds_played == venture.hand_size(players) and game.rounds_left == 0
    assert game.hand_counts() == dict.fromkeys(names, 0)
    assert sorted(game.known_cards()) == list(PAIRS_DECK)
    outcome = game.outcome
    assert outcome is not None
    assert outcome.scores == venture.final_scores(game.captured_piles(), game.pool)
    assert outcome.winners == venture.winners(outcome.scores)
    assert outcome.full_sets == venture.full_sets(game.captured_piles(), game.pool)
    with pytest.raises(IllegalAction, match="the game is over"):
        venture.apply(game, Bid(names[0], 5))


def finished(captured, pool=()):
    """A 3-player end position built from the state's public fields."""
    empty = venture.resolve([], {})
    return venture.State(
        players=THREE,
        slug=(1, 2, 2, 3),
        pool=tuple(pool),
        captured=tuple(tuple(c) for c in captured),
        bids=(None, None, None),
        rounds=tuple(venture.Round(n, (), (), empty) for n in range(1, 18)),
    )


@pytest.mark.parametrize(
    ("captured", "pool", "scores", "best", "sets"),
    [
        (
            ((1,), (2, 2), (3, 3, 3)),
            (),
            {"Ana": 1, "Ben": 2, "Cy": 3},
            ["Cy"],
            {"Ana": [1], "Ben": [2], "Cy": [3]},
        ),
        (
            ((1,), (9,), ()),
            (),
            {"Ana": 1, "Ben": -1, "Cy": 0},
            ["Ana"],
            {"Ana": [1], "Ben": [], "Cy": []},
        ),
        (
            ((4,), (9,), (7,)),
            (),
            {"Ana": -1, "Ben": -1, "Cy": -1},
            ["Ana", "Ben", "Cy"],
            {"Ana": [], "Ben": [], "Cy": []},
        ),
        (
            ((9,) * 8, (2, 5), (3, 3)),
            (9, 3),
            {"Ana": 9, "Ben": -2, "Cy": 3},
            ["Ana"],
            {"Ana": [9], "Ben": [], "Cy": [3]},
        ),
    ],
)
def test_v8_the_outcome_has_scores_full_sets_and_every_tied_winner(
    captured, pool, scores, best, sets
):
    outcome = finished(captured, pool).outcome
    assert outcome is not None
    assert outcome.scores == scores
    assert outcome.winners == best
    assert outcome.full_sets == sets


# ------------------------------------------------------------- JSON and undo


@pytest.mark.parametrize(
    "action", [EnterSlug((4, 5, 6, 8)), Bid("Ana", 7), ChangeBid("Bé", 10), WithdrawBid("Cy")]
)
def test_every_action_survives_a_json_round_trip(action):
    text = json.dumps(actions.to_dict(action))
    assert actions.from_dict(json.loads(text), venture.ACTIONS) == action


def test_actions_map_names_every_action_class():
    assert {
        "EnterSlug": EnterSlug,
        "Bid": Bid,
        "ChangeBid": ChangeBid,
        "WithdrawBid": WithdrawBid,
    } == venture.ACTIONS


def replay(players, log):
    state = venture.new_game(players)
    for entry in log:
        state = venture.apply(state, actions.from_dict(json.loads(entry), venture.ACTIONS))
    return state


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(3, 8), data=st.data())
def test_undo_by_replay_without_the_last_action_restores_the_previous_state(seed, players, data):
    names = tuple(f"P{i}" for i in range(players))
    rng = random.Random(seed)
    slug, hands = deal(names, seed)
    states = [venture.new_game(names)]
    log: list[str] = []
    steps = data.draw(st.integers(1, 3 * players + 2), label="steps")
    action: object = EnterSlug(slug)
    for _ in range(steps):
        states.append(venture.apply(states[-1], action))  # type: ignore[arg-type]
        log.append(json.dumps(actions.to_dict(action)))
        state = states[-1]
        if state.is_over:
            break
        player = rng.choice(names)
        bid = state.bid_of(player)
        card_pool = hands[player]
        if bid is None:
            action = Bid(player, card_pool.pop(rng.randrange(len(card_pool))))
        elif rng.random() < 0.5:
            card_pool.append(bid)
            action = WithdrawBid(player)
        else:
            card_pool.append(bid)
            action = ChangeBid(player, card_pool.pop(rng.randrange(len(card_pool))))
    assert replay(names, log) == states[-1]
    assert replay(names, log[:-1]) == states[-2]


# ------------------------------------------------------------------ properties


@st.composite
def pools_and_bids(draw):
    deck = draw(st.permutations(PAIRS_DECK))
    bidders = draw(st.integers(1, 8))
    pool_size = draw(st.integers(0, 40))
    pool = deck[:pool_size]
    bids = {f"P{i}": card for i, card in enumerate(deck[pool_size : pool_size + bidders])}
    return pool, bids


@settings(max_examples=200, deadline=None)
@given(pools_and_bids())
def test_captured_cards_and_the_next_pool_are_exactly_the_old_pool_and_the_bids(case):
    pool, bids = case
    result = venture.resolve(pool, bids)  # V7
    after = Counter(result.pool)
    for cards in result.captured.values():
        after.update(cards)
    assert after == Counter(pool) + Counter(bids.values())
    assert list(result.captured) == list(bids)
    assert all(cards == sorted(cards) for cards in result.captured.values())
    assert result.pool == sorted(result.pool)


@settings(max_examples=200, deadline=None)
@given(pools_and_bids())
def test_only_lone_bids_capture_and_misfired_or_captured_bids_take_nothing(case):
    pool, bids = case
    result = venture.resolve(pool, bids)
    counts = Counter(bids.values())
    for step in result.steps:
        assert len(step.players) == counts[step.rank]
        if step.outcome in (MISFIRED, CAPTURED):  # V3, V6
            assert step.captured == ()
        if step.outcome == MISFIRED:
            assert len(step.players) >= 2
        if step.outcome in (LOWEST, FIRED):
            assert len(step.players) == 1
        if step.outcome == FIRED:  # V5: only lower cards, and there is always one:
            # the lowest bid rank stays on the table until a higher bid takes it
            assert step.captured
            assert all(card < step.rank for card in step.captured)
    assert [s.rank for s in result.steps] == sorted(counts)  # V2
    assert sum(s.outcome == LOWEST for s in result.steps) <= 1  # V4
    for player in bids:
        taken = [c for s in result.steps if s.taker == player for c in s.captured]
        assert sorted(taken) == result.captured[player]


@settings(max_examples=100, deadline=None)
@given(pools_and_bids())
def test_resolving_is_deterministic_and_leaves_its_arguments_alone(case):
    pool, bids = case
    pool_copy, bids_copy = list(pool), dict(bids)
    assert venture.resolve(pool, bids) == venture.resolve(pool, bids)
    assert (list(pool), bids) == (pool_copy, bids_copy)


def test_all_errors_are_value_errors_for_callers_that_only_catch_those():
    for error in (IllegalAction, InvalidCard, TooManyCopies):
        assert issubclass(error, RuleError) and issubclass(error, ValueError)


@pytest.mark.parametrize("name", [n for n in venture.__all__ if callable(getattr(venture, n))])
def test_every_public_function_and_class_is_documented(name):
    assert (getattr(venture, name).__doc__ or "").strip(), f"venture.{name} has no docstring"
