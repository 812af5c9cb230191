"""Why a "lost" from the solver is a proof, and what the solver may not assume.

The independent checker here is :func:`exhaustive_win`: a plain
breadth-first search through the rules engine (``legal_moves`` and
``apply``), with no heuristics and no merging of positions beyond exact
equality. Decks are reduced (fewer ranks, suits or
piles) so that it can finish; each test says which.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import solitaire
from companion.rules.solitaire import Layout, Move, State, from_position, new_game
from companion.rules.solitaire_solver import (
    LOST,
    MAX_POSITIONS,
    MEMORY_LIMIT_BYTES,
    POSITION_BYTES,
    UNKNOWN,
    WON,
    canonical_hidden,
    solve,
)


def exhaustive_win(game: State) -> bool:
    """The checker: every position the rules engine allows, breadth first,
    merged only when exactly equal (piles, face-down counts, hand)."""
    seen = {game}
    frontier = [game]
    while frontier:
        following = []
        for state in frontier:
            if state.won:
                return True
            for action in solitaire.legal_moves(state):
                after = solitaire.apply(state, action)
                if after not in seen:
                    seen.add(after)
                    following.append(after)
        frontier = following
    return False


def c(text: str) -> tuple[int, ...]:
    return tuple(solitaire.parse_card(word) for word in text.split())


# Five ranks (Ace to "King" 5) of four suits, four piles of two, three deals.
CROSSED = Layout(ranks=5, suits=4, pile_sizes=(2, 2, 2, 2), deals=3)
# Threes, then twos, then Aces, each onto the pile of its suit's King.
EASY_HAND = c("3S 3H 3D 3C 2S 2H 2D 2C AS AH AD AC")


def crossed_queens() -> State:
    """A deal built to be lost: every pile has a King at its bottom, so no
    pile can ever be emptied (a bottom King could only move into a space),
    and the spade Queen lies on the heart King while the heart Queen lies on
    the spade King. Each Queen can only go onto its own King, which the
    other Queen covers: the spade suit can never be completed."""
    return from_position(
        [c("5H 4S"), c("5S 4H"), c("5D 4D"), c("5C 4C")],
        hidden=[1, 1, 1, 1],
        hand=EASY_HAND,
        layout=CROSSED,
    )


def test_a_deal_built_to_be_lost_is_proved_lost_and_the_checker_agrees():
    game = crossed_queens()
    found = solve(game, budget=600, max_nodes=2_000_000)
    assert found.result == LOST and found.moves == ()
    assert not exhaustive_win(game)


def test_the_same_deal_with_the_queens_uncrossed_is_won_and_replays():
    game = from_position(
        [c("5S 4S"), c("5H 4H"), c("5D 4D"), c("5C 4C")],
        hidden=[1, 1, 1, 1],
        hand=EASY_HAND,
        layout=CROSSED,
    )
    found = solve(game, budget=600, max_nodes=2_000_000)
    assert found.result == WON
    assert solitaire.replay(game, found.moves).won
    assert exhaustive_win(game)


# The "safe moves" of other patience solvers are not safe here. Each position
# below is winnable (the checker says so), yet after the move that looks
# obviously right it is lost: a higher card of one's own suit is a parking
# place, and every parking place can matter. So the solver takes no move
# without branching; its only merges are exact (see the canonical tests).
NOT_SAFE = [
    pytest.param(
        # 3♠ onto its successor 4♠ buries the 2♠ for good: no space can open.
        Layout(ranks=4, suits=2, pile_sizes=(2, 1, 2), deals=1),
        [c("AS"), c("4H 3H 2H AH 3S"), c("2S 4S")],
        (),
        Move(1, 2, 1),
        id="onto-its-successor",
    ),
    pytest.param(
        # 4♥ onto the 5♥ that is home already takes the parking place the
        # A♥ needs while the 3♥ goes onto the 4♥.
        Layout(ranks=5, suits=2, pile_sizes=(2, 1, 1), deals=2),
        [c("3H AH"), c("2H 5S 4S 3S 2S AS 4H"), c("5H")],
        (),
        Move(1, 2, 1),
        id="onto-its-successor-at-home",
    ),
]


@pytest.mark.parametrize(("layout", "piles", "hand", "move"), NOT_SAFE)
def test_moves_that_look_safe_can_lose_a_won_position(layout, piles, hand, move):
    game = from_position(piles, hand=hand, layout=layout)
    after = solitaire.apply(game, move)
    assert exhaustive_win(game) and not exhaustive_win(after)
    assert solve(game, budget=60).result == WON
    assert solve(after, budget=60).result == LOST


def test_a_home_pile_may_need_to_move_while_deals_are_left():
    # Five ranks, two suits, two deals (one left). Moving the 5♥ (a King
    # at the bottom of its pile: "home") into a space looks pointless, but it
    # decides where the next deal's cards land: some positions are won only
    # through such moves, so the solver keeps pile order until the last deal.
    layout = Layout(ranks=5, suits=2, pile_sizes=(2, 1, 1), deals=2)
    game = from_position(
        [c("3H 4H 2H AH 4S"), c("5H"), c("3S")], hidden=[1, 0, 0], hand=c("AS 2S 5S"), layout=layout
    )
    assert exhaustive_win(game)
    found = solve(game, budget=60)
    assert found.result == WON and solitaire.replay(game, found.moves).won


@pytest.mark.parametrize(
    ("pile", "hidden", "canonical"),
    [
        (c("5H 9S 4H 3H"), 2, 0),  # 9♠ is no successor of the 4♥: no face-down card stops a run
        (c("5H 4H 9S"), 2, 1),  # the 5♥ under the 4♥ would join its run face up: it counts
        (c("5H 4H 3H"), 2, 2),
        (c("5H 4H 3H"), 1, 1),
        (c("KS"), 0, 0),
        ((), 0, 0),
    ],
)
def test_canonical_face_down_counts(pile, hidden, canonical):
    assert canonical_hidden(pile, hidden) == canonical


SMALL = Layout(ranks=5, suits=2, pile_sizes=(2, 1, 1), deals=2)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 1000), max_size=6), st.booleans())
def test_positions_the_solver_merges_have_the_same_verdict(seed, walk, small):
    """The one merge beyond exact equality that matters before the last deal:
    face-down cards that cannot stop a run. Turning them face up changes
    nothing, says the checker, which knows nothing of the idea."""
    layout = SMALL if small else Layout(ranks=4, suits=2, pile_sizes=(2, 1, 2), deals=1)
    game = new_game(seed=seed, layout=layout)
    for pick in walk:
        legal = solitaire.legal_moves(game)
        if not legal:
            break
        game = solitaire.apply(game, legal[pick % len(legal)])
    twin = State(
        game.layout,
        game.piles,
        tuple(canonical_hidden(p, h) for p, h in zip(game.piles, game.hidden, strict=True)),
        game.hand,
        game.seed,
    )
    assert exhaustive_win(game) == exhaustive_win(twin)
    assert solve(game, budget=60).result == solve(twin, budget=60).result


def test_the_memory_bound_is_stated_and_ends_in_unknown_never_lost():
    assert MAX_POSITIONS * POSITION_BYTES <= MEMORY_LIMIT_BYTES <= 1 << 30
    # A small cap on a deal far too big to search: the search stops at it.
    found = solve(new_game(seed=6), budget=600, max_positions=10_000)
    assert (found.result, found.stopped_by) == (UNKNOWN, "memory")
    # Even on a deal built to be lost, a cap reached first is no proof.
    capped = solve(crossed_queens(), budget=600, max_positions=3)
    assert (capped.result, capped.stopped_by) == (UNKNOWN, "memory")
