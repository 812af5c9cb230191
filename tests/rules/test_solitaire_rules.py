"""Autumn Leaves solitaire: the deal (S1), moves (S2) and the win (S3)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import actions, solitaire
from companion.rules.errors import IllegalAction, InvalidCard, RuleError, TooManyCopies
from companion.rules.solitaire import Deal, Layout, Move, apply, from_position, new_game


def c(text: str) -> int:
    return solitaire.parse_card(text)


def cards(text: str) -> tuple[int, ...]:
    return tuple(c(word) for word in text.split())


def full_suit(suit: str, ranks: int = 13) -> tuple[int, ...]:
    return tuple(solitaire.make_card(r, "SHDC".index(suit)) for r in range(ranks, 0, -1))


# A tiny deck for hand-made positions: Ace to 4 in spades and hearts, three piles.
SMALL = Layout(ranks=4, suits=2, pile_sizes=(2, 1, 2), deals=1)


# --- cards ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "label"),
    [("AS", "A♠"), ("as", "A♠"), ("10h", "10♥"), ("TH", "10♥"), ("Q♣", "Q♣"), ("k d", "K♦"),
     ("1S", "A♠"), ("JC", "J♣")],
)  # fmt: skip
def test_cards_parse_from_what_people_type(text, label):
    assert solitaire.card_label(c(text)) == label


@pytest.mark.parametrize("text", ["", "S", "11S", "0H", "QX", "ZZ", "10"])
def test_not_a_card_is_refused_with_the_input_named(text):
    with pytest.raises(InvalidCard, match=repr(text).replace("[", r"\[")):
        c(text)


def test_card_words_for_messages():
    assert solitaire.card_words(c("QH")) == "Queen of hearts"


# --- S1: the deal -----------------------------------------------------------------


def test_a_deal_has_piles_of_4_4_3_3_4_4_with_only_the_tops_face_up_s1():
    game = new_game(seed=11)
    assert [len(p) for p in game.piles] == [4, 4, 3, 3, 4, 4]
    assert game.hidden == (3, 3, 2, 2, 3, 3)
    assert [len(game.face_up(i)) for i in range(6)] == [1] * 6
    assert len(game.hand) == 30
    assert game.deals_left == 5


def test_a_deal_uses_every_card_of_the_deck_once_s1():
    game = new_game(seed=11)
    everything = [card for pile in game.piles for card in pile] + list(game.hand)
    assert sorted(everything) == sorted(Layout().deck())
    assert len(set(everything)) == 52


def test_the_same_seed_always_gives_the_same_deal_and_others_differ_s1():
    assert new_game(seed=5) == new_game(seed=5)
    assert new_game(seed=5).piles != new_game(seed=6).piles


def test_exactly_five_deals_of_six_s1():
    game = new_game(seed=3)
    for left in (4, 3, 2, 1, 0):
        game = apply(game, Deal())
        assert game.deals_left == left
    assert [len(p) for p in game.piles] == [9, 9, 8, 8, 9, 9]
    with pytest.raises(IllegalAction, match="no deals left: all 5 deals have been made"):
        apply(game, Deal())
    assert Deal() not in solitaire.legal_moves(game)


def test_a_deal_puts_one_card_on_every_pile_in_order_s1():
    game = new_game(seed=3)
    after = apply(game, Deal())
    assert [p[-1] for p in after.piles] == list(game.hand[:6])
    assert after.hand == game.hand[6:]
    assert after.hidden == game.hidden  # dealt cards are face up; the face-down stay down


def test_six_cards_are_dealt_even_onto_empty_piles_s1():
    # Pile 2 is empty: the deal still gives it its card, and gives out all three.
    game = from_position(
        [cards("AS 4S"), (), cards("AH 4H 3H")], hidden=[1, 0, 1], hand=cards("2S 3S 2H"),
        layout=SMALL,
    )  # fmt: skip
    assert game.deals_left == 1
    after = apply(game, Deal())
    assert after.piles == (cards("AS 4S 2S"), cards("3S"), cards("AH 4H 3H 2H"))
    assert after.hand == ()


def test_dealing_onto_an_empty_pile_in_the_standard_game_s1():
    game = new_game(seed=1)
    # Pile 1's cards sit face down under pile 2 instead, leaving pile 1 empty.
    piles = [(), game.piles[0] + game.piles[1], *game.piles[2:]]
    hidden = [0, len(game.piles[0]) + game.hidden[1], *game.hidden[2:]]
    empty = from_position(piles, hidden=hidden, hand=game.hand)
    after = apply(empty, Deal())
    assert after.piles[0] == (game.hand[0],)
    assert all(len(a) == len(b) + 1 for a, b in zip(after.piles, empty.piles, strict=True))
    assert after.deals_left == 4


@pytest.mark.parametrize(
    ("layout", "words"),
    [
        (dict(ranks=14), "1 to 13 ranks"),
        (dict(suits=0), "1 to 4 suits"),
        (dict(pile_sizes=(4, 4, 3, 3, 4)), "52 cards do not fit this layout"),
        (dict(deals=4), "52 cards do not fit this layout"),
        (dict(pile_sizes=(-1, 4, 3, 3, 4, 5)), "whole numbers of cards"),
    ],
)
def test_a_layout_must_use_the_whole_deck_exactly(layout, words):
    with pytest.raises(RuleError, match=words):
        Layout(**layout)


def test_a_smaller_deck_keeps_ace_up_to_its_top_rank():
    assert SMALL.deck() == cards("AS 2S 3S 4S AH 2H 3H 4H")
    game = new_game(seed=0, layout=SMALL)
    assert [len(p) for p in game.piles] == [2, 1, 2] and len(game.hand) == 3


def test_a_prepared_deal_lays_out_in_order_and_refuses_duplicates():
    order = cards("AS 2S 3S 4S AH 2H 3H 4H")
    game = solitaire.from_cards(order, SMALL)
    assert game.piles == (cards("AS 2S"), cards("3S"), cards("4S AH"))
    assert game.hand == cards("2H 3H 4H")
    with pytest.raises(TooManyCopies, match="Ace of spades is listed twice"):
        solitaire.from_cards(order[:-1] + (c("AS"),), SMALL)
    with pytest.raises(InvalidCard):
        solitaire.from_cards(order[:-1] + (c("KS"),), SMALL)


def test_seed_must_be_a_whole_number():
    with pytest.raises(RuleError, match="a deal number is a whole number, not '7'"):
        new_game(seed="7")  # type: ignore[arg-type]


# --- S2: moves ---------------------------------------------------------------------


def position(*piles: str, hidden=None, hand: str = "", ranks: int = 13, suits: int = 4):
    """A position on a custom layout: the piles as written, the rest of the
    deck parked face down at the bottom of an extra last pile."""
    placed = [cards(p) for p in piles] + [cards(hand)]
    used = {card for group in placed for card in group}
    layout_cards = Layout(ranks, suits, (ranks * suits,), 0).deck()
    parked = tuple(card for card in layout_cards if card not in used)
    n = len(piles) + (1 if parked else 0)
    hand_cards = cards(hand)
    sizes = tuple(len(cards(p)) for p in piles) + ((len(parked),) if parked else ())
    deals = len(hand_cards) // n if n else 0
    layout = Layout(ranks, suits, sizes, deals) if len(hand_cards) % n == 0 else None
    assert layout is not None
    all_piles = [cards(p) for p in piles] + ([parked] if parked else [])
    hid = list(hidden or [0] * len(piles)) + ([len(parked) - 1] if parked else [])
    # keep the parked pile's top card away from the test: it is the parked pile's own business
    return from_position(all_piles, hidden=hid, hand=hand_cards, layout=layout)


def test_a_card_moves_onto_any_higher_card_of_its_suit_s2():
    game = position("KH", "5H")
    after = apply(game, Move(1, 0))
    assert after.piles[0] == cards("KH 5H") and after.piles[1] == ()


@pytest.mark.parametrize(
    ("target", "words"),
    [("4H", "the 5♥ cannot go on the 4♥: cards go only onto a higher card"),
     ("KS", "the 5♥ cannot go on the K♠: cards go only onto their own suit")],
)  # fmt: skip
def test_a_card_never_moves_onto_a_lower_card_or_another_suit_s2(target, words):
    game = position(target, "5H")
    with pytest.raises(IllegalAction, match=words):
        apply(game, Move(1, 0))


def test_a_consecutive_run_of_one_suit_moves_together_s2():
    game = position("KH", "9H 8H 7H")
    assert game.top_run(1) == 3
    after = apply(game, Move(1, 0, 3))
    assert after.piles[0] == cards("KH 9H 8H 7H")


def test_part_of_a_run_may_move_too_s2():
    game = position("KH", "9H 8H 7H")
    after = apply(game, Move(1, 0, 2))
    assert after.piles[:2] == (cards("KH 8H 7H"), cards("9H"))


def test_a_gap_stops_a_run_s2():
    game = position("KH", "9H 7H 6H")
    assert game.top_run(1) == 2
    with pytest.raises(IllegalAction, match="only the top 2 cards of pile 2 move together"):
        apply(game, Move(1, 0, 3))


def test_another_suit_stops_a_run_s2():
    game = position("KH", "8S 7H 6H")
    assert game.top_run(1) == 2
    with pytest.raises(IllegalAction, match="the 8♠ under the 7♥ does not continue the run"):
        apply(game, Move(1, 0, 3))


def test_an_ascending_pair_is_no_run_s2():
    game = position("KH", "5H 6H")
    assert game.top_run(1) == 1


def test_a_run_is_judged_by_its_lowest_card_against_the_target_s2():
    # 7-6 goes on the 8 or anything higher, but not on the 7 or lower.
    game = position("8H", "7H 6H", "KD")
    assert solitaire.can_move(game, 1, 0, 2)
    assert not solitaire.can_move(game, 1, 2, 2)


@pytest.mark.parametrize("run", ["5H", "9H 8H 7H", "KS", "2C AC"])
def test_an_empty_pile_takes_any_card_or_run_s2(run):
    game = position("", f"QD {run}", hidden=[0, 0])
    count = len(run.split())
    after = apply(game, Move(1, 0, count))
    assert after.piles[0] == cards(run)
    assert after.piles[1] == cards("QD")


def test_the_screen_is_told_which_cards_some_pile_would_take_now_s2():
    """``pile_view``'s ``goes``: a pile takes a run whole or not at all (a
    higher card of its suit on top takes every card of it), and an empty
    pile takes any card that can be picked. The screen gives those cards a
    thumb's room and draws the others narrower (issue 22)."""

    def goes(game, pile):
        return [view.goes for view in game.pile_view(pile)]

    # No higher heart on top anywhere and no empty pile: the run stays put.
    # (The parked pile, last, has the K♣ on top: the 5♣ may go there.)
    stuck = position("KS 9H 8H", "QD", "5C")
    assert goes(stuck, 0) == [False, False, False] and goes(stuck, 2) == [True]
    taken = position("KS 9H 8H", "QD JH", "5C")
    assert goes(taken, 0) == [False, True, True]  # the K♠ below is not in the run
    spaced = position("KS 9H 8H", "", "QD")
    assert goes(spaced, 0) == [False, True, True] and goes(spaced, 2) == [True]
    for game in (stuck, taken, spaced):
        for pile in range(game.layout.piles):
            for view in game.pile_view(pile):
                assert view.goes == any(
                    view.pick is not None and solitaire.can_move(game, pile, target, view.pick)
                    for target in range(game.layout.piles)
                )


def test_a_face_down_card_turned_up_by_a_move_s2():
    game = position("KH", "2S 9D 5H", hidden=[0, 2])
    assert game.face_up(1) == cards("5H")
    after = apply(game, Move(1, 0))
    assert after.hidden[1] == 1
    assert after.face_up(1) == cards("9D")


def test_a_face_down_card_never_moves_s2():
    game = position("KH", "4H 3H", hidden=[0, 1])
    assert game.top_run(1) == 1  # the 4♥ is face down: no run with it
    with pytest.raises(IllegalAction, match="pile 2 has only 1 face-up card"):
        apply(game, Move(1, 0, 2))


@pytest.mark.parametrize(
    ("move", "words"),
    [
        (Move(7, 0), "there is no pile 8"),
        (Move(0, -1), "there is no pile 0"),
        (Move(0, 0), "pile 1 is already where the cards are"),
        (Move(2, 0), "pile 3 is empty"),
        (Move(1, 0, 0), "at least one card"),
        (Move(1, 0, "2"), "must be a whole number"),  # type: ignore[arg-type]
    ],
)
def test_impossible_moves_are_refused_with_a_reason(move, words):
    game = position("KH", "5H", "")
    with pytest.raises(IllegalAction, match=words):
        apply(game, move)


def test_apply_never_mutates_the_position():
    game = new_game(seed=4)
    before = (game.piles, game.hidden, game.hand)
    for action in solitaire.legal_moves(game):
        apply(game, action)
    assert (game.piles, game.hidden, game.hand) == before


def test_actions_round_trip_through_json():
    for action in (Move(0, 5, 3), Deal()):
        data = actions.to_dict(action)
        assert actions.from_dict(data, solitaire.ACTIONS) == action
    assert actions.to_dict(Move(1, 2, 1)) == {"type": "Move", "source": 1, "target": 2, "count": 1}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 2**32))
def test_legal_moves_are_exactly_the_moves_apply_accepts(seed, walk):
    rng = random.Random(walk)
    game = new_game(seed=seed)
    for _ in range(25):
        legal = solitaire.legal_moves(game)
        legal_set = set(legal)
        n = game.layout.piles
        for s in range(n):
            for t in range(n):
                for k in range(1, 4):
                    assert solitaire.can_move(game, s, t, k) == (Move(s, t, k) in legal_set)
        # Cards are conserved and every pile keeps its top face up.
        everything = [card for pile in game.piles for card in pile] + list(game.hand)
        assert sorted(everything) == sorted(game.layout.deck())
        for pile, hid in zip(game.piles, game.hidden, strict=True):
            assert hid < len(pile) or (hid == 0 and not pile)
        if not legal:
            break
        game = apply(game, rng.choice(legal))


# --- S3: the win -------------------------------------------------------------------


def test_four_suits_each_king_to_ace_in_one_pile_is_won_s3():
    game = from_position([full_suit("S"), (), full_suit("H"), full_suit("D"), (), full_suit("C")])
    assert game.won
    assert solitaire.legal_moves(game) == []


def test_a_suit_split_over_two_piles_is_not_won_s3():
    spades = full_suit("S")
    game = from_position(
        [spades[:6], spades[6:], full_suit("H"), full_suit("D"), (), full_suit("C")]
    )
    assert not game.won
    after = apply(game, Move(1, 0, 7))
    assert after.won


def test_a_pile_out_of_order_is_not_won_s3():
    spades = full_suit("S")
    game = from_position(
        [spades[:5] + spades[6:7] + spades[5:6] + spades[7:], (), full_suit("H"), full_suit("D"),
         (), full_suit("C")]
    )  # fmt: skip
    assert not game.won


def test_a_sorted_game_with_cards_in_hand_is_not_won_yet_s3():
    layout = Layout(4, 2, (1, 4, 0), 1)
    game = from_position(
        [cards("4S"), cards("4H 3H 2H AH"), ()], hand=cards("3S 2S AS"), layout=layout
    )
    assert not game.won
    after = apply(game, Deal())
    assert not after.won  # 3♠ on the 4♠, 2♠ on the hearts, A♠ alone
    after = apply(apply(after, Move(1, 0)), Move(2, 0))
    assert after.won


def test_a_finished_pile_over_a_face_down_king_counts_s3():
    # Ruling of our own: the cards are in their places; turning the King is a formality.
    game = from_position(
        [full_suit("S"), (), full_suit("H"), full_suit("D"), (), full_suit("C")],
        hidden=[1, 0, 0, 0, 0, 0],
    )
    assert game.won


def test_describe_says_what_moved_where():
    game = position("KH", "9H 8H 7H", "")
    assert solitaire.describe(game, Move(1, 0, 3)) == "9♥…7♥ from pile 2 onto the K♥ (pile 1)"
    assert solitaire.describe(game, Move(1, 2, 1)) == "7♥ from pile 2 to the empty space (pile 3)"
