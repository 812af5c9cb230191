"""The Pairs deck, card parsing and deck-composition checks (companion.rules.cards)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import cards
from companion.rules.errors import InvalidCard, RuleError, TooManyCopies

# --- the deck ---------------------------------------------------------------


def test_pairs_deck_has_55_cards_in_ascending_order():
    assert len(cards.PAIRS_DECK) == 55 == cards.DECK_SIZE
    assert list(cards.PAIRS_DECK) == sorted(cards.PAIRS_DECK)
    assert isinstance(cards.PAIRS_DECK, tuple)


@pytest.mark.parametrize("rank", range(1, 11))
def test_pairs_deck_holds_rank_n_exactly_n_times(rank):
    assert cards.PAIRS_DECK.count(rank) == rank


def test_pairs_deck_holds_nothing_but_ranks_1_to_10():
    assert set(cards.PAIRS_DECK) == set(range(1, 11)) == set(cards.RANKS)


# --- copies() ---------------------------------------------------------------


@pytest.mark.parametrize("rank", range(1, 11))
def test_copies_of_a_rank_is_the_rank(rank):
    assert cards.copies(rank) == rank


@pytest.mark.parametrize("bad", [0, 11, -1, 100, 7.0, "7", None, True, False])
def test_copies_rejects_anything_but_an_int_rank_naming_it(bad):
    with pytest.raises(InvalidCard) as info:
        cards.copies(bad)
    assert repr(bad) in str(info.value)


# --- parse_card() -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rank"),
    [
        ("7", 7),
        (" 10 ", 10),
        ("1", 1),
        ("10", 10),
        ("\t3\n", 3),
        ("07", 7),
        (5, 5),
        (10, 10),
    ],
)
def test_parse_card_accepts_a_rank_typed_by_a_person(text, rank):
    assert cards.parse_card(text) == rank


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "11",
        "ace",
        "7.5",
        "-1",
        "1e1",
        "+7",
        "٣",  # ARABIC-INDIC DIGIT THREE: a decimal digit, but not one people type here
        "１０",  # FULLWIDTH 1 0
        "7 7",
        "010",
        "0x7",
        "seven",
        0,
        11,
        -3,
        7.0,
        True,
        None,
    ],
)
def test_parse_card_rejects_what_is_not_a_rank_naming_the_input(text):
    with pytest.raises(InvalidCard) as info:
        cards.parse_card(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_parse_card_rejects_an_empty_entry_saying_nothing_was_entered(text):
    with pytest.raises(InvalidCard, match="no card was entered"):
        cards.parse_card(text)


def test_card_errors_are_value_errors_so_callers_can_catch_either():
    with pytest.raises(ValueError):
        cards.parse_card("ace")
    assert issubclass(InvalidCard, RuleError)
    assert issubclass(TooManyCopies, RuleError)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=10), st.text(alphabet=" \t", max_size=3))
def test_parse_card_reads_back_every_printed_rank(rank, pad):
    assert cards.parse_card(f"{pad}{rank}{pad}") == rank


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=4))
def test_parse_card_either_returns_a_rank_or_raises_invalid_card(text):
    try:
        rank = cards.parse_card(text)
    except InvalidCard:
        return
    assert rank in cards.RANKS
    assert text.strip() in {str(rank), f"0{rank}"}


# --- check_composition() ----------------------------------------------------


@pytest.mark.parametrize(
    "hand",
    [
        [],
        [1],
        [3, 3, 3],
        [10] * 10,
        list(cards.PAIRS_DECK),
        [2, 1, 2],
    ],
)
def test_check_composition_accepts_what_the_deck_can_hold(hand):
    assert cards.check_composition(hand) is None


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ([1, 1], "there is only 1 card of rank 1, not 2"),
        ([3, 3, 3, 3], "there are only 3 cards of rank 3, not 4"),
        ([2, 2, 2, 9, 9], "there are only 2 cards of rank 2, not 3"),
        ([10] * 11, "there are only 10 cards of rank 10, not 11"),
        # the lowest over-full rank is the one named
        ([5] * 6 + [1, 1], "there is only 1 card of rank 1, not 2"),
        ([*cards.PAIRS_DECK, 4], "there are only 4 cards of rank 4, not 5"),
    ],
)
def test_check_composition_rejects_more_copies_than_exist(hand, message):
    with pytest.raises(TooManyCopies) as info:
        cards.check_composition(hand)
    assert str(info.value) == message


@pytest.mark.parametrize("bad", [0, 11, "7", -2])
def test_check_composition_rejects_a_non_card_naming_it(bad):
    with pytest.raises(InvalidCard) as info:
        cards.check_composition([3, bad])
    assert repr(bad) in str(info.value)


def test_check_composition_accepts_any_iterable():
    cards.check_composition(iter([4, 4]))
    cards.check_composition(Counter({5: 5}).elements())


# --- remaining() ------------------------------------------------------------


def test_remaining_of_nothing_seen_is_the_whole_deck():
    assert cards.remaining([]) == Counter(cards.PAIRS_DECK)
    assert sum(cards.remaining([]).values()) == 55


@pytest.mark.parametrize(
    ("seen", "rank", "left"),
    [
        ([1], 1, 0),
        ([7, 7], 7, 5),
        ([7, 7], 8, 8),
        ([10, 2, 10], 10, 8),
        (cards.PAIRS_DECK, 6, 0),
    ],
)
def test_remaining_counts_the_unseen_copies_of_a_rank(seen, rank, left):
    assert cards.remaining(seen)[rank] == left


def test_remaining_lists_every_rank_even_when_none_is_left():
    left = cards.remaining([1])
    assert set(left) == set(cards.RANKS)
    assert left[1] == 0


def test_remaining_rejects_an_impossible_set_of_seen_cards():
    with pytest.raises(TooManyCopies, match="rank 2"):
        cards.remaining([2, 2, 2])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(cards.PAIRS_DECK), max_size=20))
def test_remaining_plus_seen_is_the_deck_when_the_seen_cards_fit(seen):
    try:
        left = cards.remaining(seen)
    except TooManyCopies:
        assert any(Counter(seen)[r] > r for r in cards.RANKS)
        return
    assert left + Counter(seen) == Counter(cards.PAIRS_DECK)


# --- the article before a spoken rank ---------------------------------------


@pytest.mark.parametrize(
    ("rank", "spoken"),
    [
        (1, "a 1"),
        (2, "a 2"),
        (3, "a 3"),
        (4, "a 4"),
        (5, "a 5"),
        (6, "a 6"),
        (7, "a 7"),
        (8, "an 8"),
        (9, "a 9"),
        (10, "a 10"),
    ],
)
def test_every_rank_takes_the_article_it_is_spoken_with(rank, spoken):
    assert f"{cards.article(rank)} {rank}" == spoken


@pytest.mark.parametrize(
    ("number", "word"),
    [(11, "an"), (18, "an"), (80, "an"), (89, "an"), (800, "an"), (11_000, "an")]
    + [(0, "a"), (12, "a"), (28, "a"), (100, "a"), (110, "a"), (1_100, "a"), (-8, "a")],
)
def test_numbers_beyond_the_ranks_follow_how_they_are_said(number, word):
    assert cards.article(number) == word


def test_venture_uses_the_one_article_helper():
    from companion.rules import venture

    assert venture.article is cards.article
