"""A solver for Autumn Leaves solitaire: a winning line, or a proof of a loss.

The solver knows every card (the companion dealt them), including the
face-down ones and the order of the hand. It searches best first: it always
goes on from the most promising position seen so far (fewest cards off their
successor or face down, weighed against the moves made), and remembers every
position it has seen so it never searches one twice. Exploring every
reachable position without finding a win proves the deal lost; running out
of time (or of the node allowance) leaves it unknown.

Positions are equal when they hold the same cards in the same places. Once
the hand is empty, which pile is which no longer matters, so the piles are
compared as a set then; that is the only pruning, and it cannot lose a win.

>>> from companion.rules import solitaire
>>> game = solitaire.new_game(seed=1, layout=solitaire.Layout(3, 2, (1, 1, 1), 1))
>>> found = solve(game, budget=5)
>>> found.result, solitaire.replay(game, found.moves).won
('won', True)
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass

from .solitaire import Deal, Move, State, is_won

WON, LOST, UNKNOWN = "won", "lost", "unknown"

_CHECK_EVERY = 256  # nodes between two looks at the clock
# The search goes on from the position with the lowest 2 x (disorder + face-down
# cards) + moves made so far: the depth term keeps it from wandering, and these
# weights won the most of 40 test deals (measured; see benchmarks/solitaire.py).


@dataclass(frozen=True)
class Solution:
    """What the solver found.

    ``result`` is ``"won"`` (``moves`` is a winning line from the position),
    ``"lost"`` (no sequence of moves wins: every reachable position was
    searched) or ``"unknown"`` (the budget ran out first). ``best_line`` is
    the line to the most promising position seen, for hints when unknown.
    """

    result: str
    moves: tuple[Move | Deal, ...]
    seconds: float
    nodes: int
    best_line: tuple[Move | Deal, ...] = ()


@dataclass(frozen=True)
class Hint:
    """The move to try next, and how sure the companion is about it.

    ``result`` is the solver's verdict from this position (see
    :class:`Solution`); ``move`` is the first move of a winning line when
    won, else the first move towards the best position the search saw (None
    when there is no move at all).
    """

    move: Move | Deal | None
    result: str
    line_length: int
    seconds: float


# A node: piles as bytes (bottom → top), face-down counts, cards dealt so far.
_Piles = tuple[bytes, ...]
_Hidden = tuple[int, ...]


def _key(piles: _Piles, hidden: _Hidden, dealt: int, hand_len: int) -> bytes:
    chunks = [bytes((h, len(p))) + p for p, h in zip(piles, hidden, strict=True)]
    if dealt == hand_len:
        chunks.sort()  # no deals left: the piles are interchangeable
    return bytes((dealt,)) + b"".join(chunks)


def _won(piles: _Piles, suits: int, ranks: int) -> bool:
    count = 0
    for p in piles:
        if not p:
            continue
        if len(p) != ranks or p[0] & 15 != ranks:
            return False
        for i in range(1, ranks):
            if p[i] != p[i - 1] - 1:
                return False
        count += 1
    return count == suits


_Child = tuple[int, tuple[int, int, int], _Piles, _Hidden, int]


def _children(piles: _Piles, hidden: _Hidden, dealt: int, hand: bytes, width: int) -> list[_Child]:
    """Successors sorted by priority; a move is (source, target, count), or
    (-1, -1, 0) for a deal."""
    out: list[_Child] = []
    no_deals = dealt >= len(hand)
    for s in range(width):
        pile = piles[s]
        n = len(pile)
        if not n:
            continue
        h = hidden[s]
        run = 1
        while n - run - 1 >= h and pile[n - run - 1] == pile[n - run] + 1:
            run += 1
        for c in range(1, run + 1):
            card = pile[n - c]
            reveals = h > 0 and c == n - h
            breaks = c < n and pile[n - c - 1] == card + 1
            rest = pile[: n - c]
            moving = pile[n - c :]
            new_h = h
            if rest and h >= len(rest):
                new_h = len(rest) - 1
            elif not rest:
                new_h = 0
            empty_done = False
            for t in range(width):
                if t == s:
                    continue
                dest = piles[t]
                if dest:
                    top = dest[-1]
                    if top >> 4 != card >> 4 or top <= card:
                        continue
                    if reveals:
                        prio = 0
                    elif top == card + 1:
                        prio = 1
                    elif c == n:
                        prio = 2
                    elif breaks:
                        prio = 6
                    else:
                        prio = 3
                else:
                    if c == n and no_deals:
                        continue  # a whole pile to a space: the same position
                    if no_deals and empty_done:
                        continue  # spaces are interchangeable with no deals left
                    empty_done = True
                    prio = 0 if reveals else (7 if breaks or c == n else 4)
                new_piles = list(piles)
                new_piles[s] = rest
                new_piles[t] = dest + moving
                new_hidden = list(hidden)
                new_hidden[s] = new_h
                out.append((prio, (s, t, c), tuple(new_piles), tuple(new_hidden), dealt))
    if not no_deals:
        deal = hand[dealt : dealt + width]
        out.append(
            (
                8,
                (-1, -1, 0),
                tuple(p + deal[i : i + 1] for i, p in enumerate(piles)),
                hidden,
                dealt + width,
            )
        )
    out.sort(key=lambda child: child[0])
    return out


def _action(move: tuple[int, int, int]) -> Move | Deal:
    if move[0] < 0:
        return Deal()
    return Move(*move)


def _disorder(piles: _Piles, dealt: int, hand_len: int, ranks: int) -> int:
    """A lower bound-like measure of the work left: every card that does not
    sit on its own successor must still be moved, every pile bottom that is
    not a King must be cleared, and every card in hand must be dealt."""
    bad = hand_len - dealt
    for p in piles:
        if not p:
            continue
        if p[0] & 15 != ranks:
            bad += 1
        prev = p[0]
        for card in p[1:]:
            if card != prev - 1:
                bad += 1
            prev = card
    return bad


def solve(state: State, budget: float = 2.0, *, max_nodes: int | None = None) -> Solution:
    """Search for a winning line from ``state`` for at most ``budget`` seconds
    (and at most ``max_nodes`` positions, when given: that makes the answer
    independent of the machine's speed).

    The search is best first: it always continues from the most promising
    position seen so far (least disorder, fewest moves), and it never looks
    at a position twice, so when every reachable position has been looked at
    without a win the deal is proved lost. Every returned winning line replays to a win through
    :func:`companion.rules.solitaire.apply`. Raises nothing for a legal state.
    """
    start = time.monotonic()
    deadline = start + max(0.0, budget)
    layout = state.layout
    width, ranks, suits = layout.piles, layout.ranks, layout.suits
    hand = bytes(state.hand)
    hand_len = len(hand)
    piles: _Piles = tuple(bytes(p) for p in state.piles)
    hidden: _Hidden = state.hidden
    if is_won(state):
        return Solution(WON, (), time.monotonic() - start, 0)
    root = _key(piles, hidden, 0, hand_len)
    parent: dict[bytes, tuple[bytes, tuple[int, int, int]] | None] = {root: None}
    best = _disorder(piles, 0, hand_len, ranks) + sum(hidden)
    best_key = root
    heap: list[tuple[int, int, bytes, _Piles, _Hidden, int, int]] = [
        (2 * best, 0, root, piles, hidden, 0, 0)
    ]
    counter = 0
    nodes = 0

    def line_to(key: bytes) -> tuple[Move | Deal, ...]:
        moves: list[Move | Deal] = []
        link = parent[key]
        while link is not None:
            key, move = link
            moves.append(_action(move))
            link = parent[key]
        return tuple(reversed(moves))

    while heap:
        _, _, key, piles, hidden, dealt, depth = heapq.heappop(heap)
        nodes += 1
        if nodes % _CHECK_EVERY == 0 and (
            time.monotonic() > deadline or (max_nodes is not None and nodes >= max_nodes)
        ):
            return Solution(UNKNOWN, (), time.monotonic() - start, nodes, line_to(best_key))
        for _, move, c_piles, c_hidden, c_dealt in _children(piles, hidden, dealt, hand, width):
            c_key = _key(c_piles, c_hidden, c_dealt, hand_len)
            if c_key in parent:
                continue
            parent[c_key] = (key, move)
            if c_dealt == hand_len and _won(c_piles, suits, ranks):
                line = line_to(c_key)
                return Solution(WON, line, time.monotonic() - start, nodes, line)
            score = _disorder(c_piles, c_dealt, hand_len, ranks) + sum(c_hidden)
            if score < best:
                best, best_key = score, c_key
            counter += 1
            heapq.heappush(
                heap,
                (2 * score + depth + 1, -counter, c_key, c_piles, c_hidden, c_dealt, depth + 1),
            )
    return Solution(LOST, (), time.monotonic() - start, nodes, line_to(best_key))


def hint(state: State, budget: float = 1.0, *, max_nodes: int | None = None) -> Hint:
    """The next move to try: the first move of a winning line if the solver
    finds one within ``budget`` seconds, otherwise the first move towards the
    most promising position it saw (or, with nothing better, the first legal
    move in its order of preference). ``move`` is None only when no move is
    possible."""
    found = solve(state, budget, max_nodes=max_nodes)
    line = found.moves if found.result == WON else found.best_line
    move: Move | Deal | None = line[0] if line else None
    if move is None and not is_won(state):
        children = _children(
            tuple(bytes(p) for p in state.piles),
            state.hidden,
            0,
            bytes(state.hand),
            state.layout.piles,
        )
        if children:
            move = _action(children[0][1])
    return Hint(move, found.result, len(line), found.seconds)
