"""Autumn Leaves: a race to empty your hand onto piles of falling leaves.

Three to six players, a Pairs deck, six hands; points are bad. This module is
the referee. The companion cannot see the cards, so people enter what is
revealed and which pile a card goes on; the engine counts everything else
(hands, the deck, every leaf pile and the discards), works out who acts next
and rejects entries that would need more copies of a rank than the deck has.

The three small functions of the public API:

>>> can_place(6, 5), can_place(6, 7), can_place(6, 8)  # A4, example 8
(True, True, False)
>>> play_order({"Ana": 4, "Ben": 2, "Cy": 4}, {"Ana": [3, 9], "Ben": [5], "Cy": [9, 3]})
['Ben', 'Cy', 'Ana']
>>> hand_score(6, 9, winner=False), hand_score(6, 4, winner=False), hand_score(6, None, winner=True)
(3, 0, -6)

A whole hand as a state machine (the first round starts every pile, A2):

>>> s = new_game(["Ana", "Ben", "Cy"], seed=1)
>>> s = apply(s, Reveal((("Ana", 5), ("Ben", 8), ("Cy", 2))))
>>> s.piles, s.hand_sizes, s.deck
(((5,), (8,), (2,)), (6, 6, 6), 34)
>>> s = apply(s, Reveal((("Ana", 7), ("Ben", 3), ("Cy", 9))))
>>> s.to_act, legal_piles(s)
('Ben', ('Cy',))
>>> s = apply(s, Place("Ben", "Cy"))
>>> s.to_act, legal_piles(s)
('Ana', ('Ben',))
>>> s = apply(s, Place("Ana", "Ben"))
>>> s.to_act, legal_piles(s)
('Cy', ())
>>> s = apply(s, DiscardDraw("Cy"))
>>> s.phase, s.round, s.piles, s.hand_sizes, s.deck, s.discards
('reveal', 3, ((5,), (8, 7), (2, 3)), (5, 5, 6), 33, (9,))

Rulings cited in comments (``# A4``) are in the project's RULINGS.md; the
points decided here where those are silent are listed under "Rulings of our
own" in the Autumn Leaves section of README.md.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .cards import DECK_SIZE, article, check_composition, copies, parse_card
from .errors import IllegalAction, RuleError, TooManyCopies
from .messages import Message, Param, refusal, refusal_n

MIN_PLAYERS = 3  # A1
MAX_PLAYERS = 6  # A1
HAND_SIZE = 7  # A1
HANDS = 6  # A9

REVEAL = "reveal"
PLAY = "play"
SCORE = "score"
OVER = "over"

EMPTY_HAND = "empty hand"
DECK_EMPTY = "deck"


# ---------------------------------------------------------------------------
# The public API: placement, play order, scoring
# ---------------------------------------------------------------------------


def can_place(card: int, top: int) -> bool:
    """Whether ``card`` may go on a leaf pile whose top card is ``top`` (A4).

    A card fits only on a card exactly one rank away, whoever owns the pile:

    >>> [top for top in range(1, 11) if can_place(6, top)]
    [5, 7]

    Raises :class:`InvalidCard` if either value is not a rank 1..10.
    """
    copies(card)
    copies(top)
    return abs(card - top) == 1


def order_groups(
    revealed: Mapping[str, int], piles: Mapping[str, Sequence[int]]
) -> list[tuple[str, ...]]:
    """The play order of A3 as groups: a group of several players is an exact tie.

    Players act from the lowest revealed card up. Players with the same card
    are told apart by their own leaf piles, read from the top card down: the
    lower card acts first, and a pile that still has a card at that depth acts
    before one that has run out. Players whose cards and piles are identical
    form one group, whose order must be drawn at random; the groups keep the
    order of ``revealed`` inside.

    >>> order_groups({"Ana": 3, "Ben": 3, "Cy": 1}, {"Ana": [7], "Ben": [7], "Cy": [2]})
    [('Cy',), ('Ana', 'Ben')]
    >>> order_groups({"Ana": 3, "Ben": 3}, {"Ana": [5], "Ben": [4, 5]})  # a card before no card
    [('Ben',), ('Ana',)]

    A player missing from ``piles`` has an empty pile. Raises
    :class:`InvalidCard` for a card that is not a rank 1..10,
    :class:`TooManyCopies` if the revealed cards and piles together hold more
    copies of a rank than the deck, and :class:`RuleError` when the arguments
    are not mappings of players or a pile is not a list of cards.
    """
    if not isinstance(revealed, Mapping) or not isinstance(piles, Mapping):
        raise RuleError(
            refusal(
                "autumn_leaves.order.arguments",
                "play order needs the revealed cards and the piles by player, "
                "got %(revealed)s and %(piles)s",
                revealed=type(revealed).__name__,
                piles=type(piles).__name__,
            )
        )
    for name, pile in piles.items():
        if isinstance(pile, str | bytes) or not isinstance(pile, Sequence):
            raise RuleError(
                refusal(
                    "autumn_leaves.order.pile",
                    "%(player)s's pile %(pile)s is not a list of cards (bottom to top)",
                    player=str(name),
                    pile=repr(pile),
                )
            )
    cards = {name: copies(card) for name, card in revealed.items()}
    stacks = {name: tuple(copies(card) for card in pile) for name, pile in piles.items()}
    check_composition([*cards.values(), *(c for pile in stacks.values() for c in pile)])

    def key(name: str) -> tuple[int, tuple[tuple[int, int], ...]]:
        pile = stacks.get(name, ())
        # (0, card) sorts before the end marker (1, 0): "a card before no card".
        return cards[name], (*((0, c) for c in reversed(pile)), (1, 0))

    groups: list[tuple[str, ...]] = []
    last: object = None
    for name in sorted(cards, key=key):  # sorted() is stable: ties keep input order
        k = key(name)
        if groups and k == last:
            groups[-1] = (*groups[-1], name)
        else:
            groups.append((name,))
        last = k
    return groups


def play_order(
    revealed: Mapping[str, int],
    piles: Mapping[str, Sequence[int]],
    rng: random.Random | None = None,
) -> list[str]:
    """Who acts in which order this round (A3): a permutation of ``revealed``.

    ``piles`` maps players to their leaf piles, bottom to top (the last item is
    the top card). Exact ties (same card, identical piles) are put in random
    order with ``rng``, or with a fresh unseeded generator when it is None;
    :func:`order_groups` says whether that happened.

    >>> play_order({"Ana": 5, "Ben": 5}, {"Ana": [2, 6], "Ben": [9, 4]})
    ['Ben', 'Ana']
    >>> sorted(play_order({"Ana": 5, "Ben": 5}, {"Ana": [4], "Ben": [4]}, random.Random(7)))
    ['Ana', 'Ben']

    Raises :class:`InvalidCard` / :class:`TooManyCopies` as :func:`order_groups`.
    """
    rng = rng if rng is not None else random.Random()
    order: list[str] = []
    for group in order_groups(revealed, piles):
        members = list(group)
        if len(members) > 1:
            rng.shuffle(members)
        order.extend(members)
    return order


def tie_reason(
    first: str, second: str, card: int, first_pile: Sequence[int], second_pile: Sequence[int]
) -> str:
    """Why ``first`` acts before ``second`` when both revealed ``card`` (A3), in
    English words (:func:`tie_message` is the same as a value, for a screen).

    >>> tie_reason("Ben", "Cy", 4, [9, 3], [2, 7])
    "Ben goes before Cy: same card, and Ben's pile has the lower top card (3, Cy's 7)"
    >>> print(tie_reason("Ben", "Cy", 4, [2, 6], [5, 6]))  # doctest: +NORMALIZE_WHITESPACE
    Ben goes before Cy: same card and same top card,
    and Ben's pile has the lower card under it (2, Cy's 5)
    >>> print(tie_reason("Ben", "Cy", 4, [1, 5, 6], [5, 6]))  # doctest: +NORMALIZE_WHITESPACE
    Ben goes before Cy: same card and same top 2 cards,
    and only Ben's pile has a card under them
    """
    return str(tie_message(first, second, card, first_pile, second_pile))


def tie_message(
    first: str, second: str, card: int, first_pile: Sequence[int], second_pile: Sequence[int]
) -> Message:
    """:func:`tie_reason` as a message with an id, worded where it is shown."""
    copies(card)  # a rank, or InvalidCard
    mine, theirs = tuple(reversed(first_pile)), tuple(reversed(second_pile))
    depth = next(
        (i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
        min(len(mine), len(theirs)),
    )
    if depth == 0:
        if not theirs:
            return refusal(
                "autumn_leaves.order.only-pile",
                "%(first)s goes before %(second)s: same card, and only %(first)s has a pile",
                first=first,
                second=second,
            )
        return refusal(
            "autumn_leaves.order.lower-top",
            "%(first)s goes before %(second)s: same card, and %(first)s's pile has the lower "
            "top card (%(mine)s, %(second)s's %(theirs)s)",
            first=first,
            second=second,
            mine=mine[0],
            theirs=theirs[0],
        )
    if depth < len(theirs) and depth == 1:
        return refusal(
            "autumn_leaves.order.lower-under-one",
            "%(first)s goes before %(second)s: same card and same top card, and %(first)s's "
            "pile has the lower card under it (%(mine)s, %(second)s's %(theirs)s)",
            first=first,
            second=second,
            mine=mine[depth],
            theirs=theirs[depth],
        )
    if depth < len(theirs):
        return refusal_n(
            "autumn_leaves.order.lower-under",
            "%(first)s goes before %(second)s: same card and same top %(n)s card, and "
            "%(first)s's pile has the lower card under them (%(mine)s, %(second)s's %(theirs)s)",
            "%(first)s goes before %(second)s: same card and same top %(n)s cards, and "
            "%(first)s's pile has the lower card under them (%(mine)s, %(second)s's %(theirs)s)",
            "n",
            n=depth,
            first=first,
            second=second,
            mine=mine[depth],
            theirs=theirs[depth],
        )
    if depth == 1:
        return refusal(
            "autumn_leaves.order.only-under-one",
            "%(first)s goes before %(second)s: same card and same top card, and only "
            "%(first)s's pile has a card under it",
            first=first,
            second=second,
        )
    return refusal_n(
        "autumn_leaves.order.only-under",
        "%(first)s goes before %(second)s: same card and same top %(n)s card, and only "
        "%(first)s's pile has a card under them",
        "%(first)s goes before %(second)s: same card and same top %(n)s cards, and only "
        "%(first)s's pile has a card under them",
        "n",
        n=depth,
        first=first,
        second=second,
    )


def hand_score(pile_size: int, highest_in_hand: int | None, *, winner: bool) -> int:
    """One player's points for a hand (A8); points are bad.

    The winner (who emptied their hand, so holds nothing) loses one point per
    card in their own leaf pile. Everyone else scores their highest card in
    hand minus their pile size, never below zero.

    >>> hand_score(6, 9, winner=False)   # example 9
    3
    >>> hand_score(6, 4, winner=False)   # example 10
    0
    >>> hand_score(11, None, winner=True)  # example 11
    -11

    Raises :class:`RuleError` for a negative or non-integer pile size, for a
    winner given a card in hand or another player given none, and
    :class:`InvalidCard` for a highest card that is not a rank 1..10.
    """
    if isinstance(pile_size, bool) or not isinstance(pile_size, int) or pile_size < 0:
        raise RuleError(
            refusal(
                "autumn_leaves.pile.not-a-size",
                "%(size)s is not a leaf pile size (a whole number, 0 or more)",
                size=repr(pile_size),
            )
        )
    if pile_size > DECK_SIZE:
        raise RuleError(
            refusal(
                "autumn_leaves.pile.too-big",
                "a leaf pile of %(size)s cards is impossible: the deck has %(deck)s",
                size=pile_size,
                deck=DECK_SIZE,
            )
        )
    if winner:
        if highest_in_hand is not None:
            raise RuleError(
                refusal(
                    "autumn_leaves.hand.winner-holds",
                    "the winner emptied their hand, so they cannot hold %(article)s %(card)s",
                    article=article(highest_in_hand),
                    card=highest_in_hand,
                )
            )
        return -pile_size  # A8
    if highest_in_hand is None:
        raise RuleError(
            refusal(
                "autumn_leaves.hand.highest-missing",
                "a player who did not win still holds cards: enter their highest card",
            )
        )
    return max(0, copies(highest_in_hand) - pile_size)  # A8


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Reveal:
    """Cards revealed this round: ``((player, card), ...)`` for one player or several.

    Everyone's card can be entered on one phone in one action, or each player
    can enter their own; the round starts once every player has revealed.
    """

    cards: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Place:
    """``player`` puts their revealed card on the leaf pile of ``pile`` (a player)."""

    player: str
    pile: str


@dataclass(frozen=True)
class TakeBack:
    """``player`` cannot place and takes the revealed card back into hand (A5)."""

    player: str


@dataclass(frozen=True)
class DiscardDraw:
    """``player`` cannot place, discards the card and draws a replacement (A5)."""

    player: str


@dataclass(frozen=True)
class Highest:
    """At the end of a hand: ``((player, highest card in hand), ...)`` for one or several."""

    cards: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Unreveal:
    """``player``'s card revealed this round is taken back before the round
    starts (their seat moved to another phone, or they entered a wrong card)."""

    player: str


Action = Reveal | Place | TakeBack | DiscardDraw | Highest | Unreveal

ACTIONS: dict[str, type] = {
    cls.__name__: cls for cls in (Reveal, Place, TakeBack, DiscardDraw, Highest, Unreveal)
}


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """What happened to one revealed card, for the screen's round summary.

    ``kind`` is ``"start"`` (first round, A2), ``"place"``, ``"cold snap"``
    (onto the player's own pile, A6), ``"take back"``, ``"discard"`` or
    ``"hand over"`` (taken back because the hand ended first, A7). ``pile`` is
    the owner of the pile the card went on, if any.
    """

    player: str
    card: int
    kind: str
    pile: str | None = None

    def describe(self) -> str:
        """The move in plain words.

        >>> Move("Ana", 6, "place", "Ben").describe()
        "Ana: 6 onto Ben's pile"
        """
        return str(self.message())

    def message(self) -> Message:
        """The move as a message with an id, worded where it is shown."""
        who: dict[str, Param] = {"player": self.player, "card": self.card}
        if self.kind in ("start", "cold snap") or (
            self.kind == "place" and self.pile == self.player
        ):
            return refusal(
                "autumn_leaves.move.own", "%(player)s: %(card)s onto their own pile", **who
            )
        if self.kind == "place":
            return refusal(
                "autumn_leaves.move.place",
                "%(player)s: %(card)s onto %(pile)s's pile",
                pile=self.pile or "?",
                **who,
            )
        if self.kind == "take back":
            return refusal(
                "autumn_leaves.move.take-back",
                "%(player)s: could not place the %(card)s, took it back",
                **who,
            )
        if self.kind == "discard":
            return refusal(
                "autumn_leaves.move.discard",
                "%(player)s: could not place the %(card)s, discarded it and drew",
                **who,
            )
        return refusal(
            "autumn_leaves.move.hand-over",
            "%(player)s: took the %(card)s back, the hand was over",
            **who,
        )


@dataclass(frozen=True)
class HandResult:
    """A finished hand: how it ended and what everyone scored (A8).

    Tuples follow the seating order of :attr:`State.players`. ``highest`` is
    each player's highest card in hand as entered (None for the winner).
    """

    number: int
    ended_by: str
    winner: str | None
    pile_sizes: tuple[int, ...]
    highest: tuple[int | None, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class State:
    """Everything the companion knows about an Autumn Leaves game.

    Per-player tuples follow the seating order of ``players``. ``hand_sizes``
    count a revealed card as still in hand until it is placed or discarded.
    ``piles`` are bottom to top. ``revealed`` holds this round's cards not yet
    dealt with (None: not revealed yet, or already acted). ``waiting`` is the
    play order of the players still to act (A3) and ``random_ties`` the groups
    of them whose order was drawn at random. ``known_in_hand`` lists cards a
    player is known to hold because they took them back. ``moves`` is the
    current round so far; ``last_moves`` the round before.
    """

    players: tuple[str, ...]
    seed: int
    hand: int
    phase: str
    round: int
    deck: int
    hand_sizes: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    discards: tuple[int, ...]
    revealed: tuple[int | None, ...]
    waiting: tuple[str, ...]
    random_ties: tuple[tuple[str, ...], ...]
    cold_snap: bool
    moves: tuple[Move, ...]
    last_moves: tuple[Move, ...]
    last_cold_snap: bool
    known_in_hand: tuple[tuple[int, ...], ...]
    ended_by: str | None
    winner: str | None
    highest: tuple[int | None, ...]
    results: tuple[HandResult, ...]
    # AX1: players whose reveals could not all be true, asked to enter again;
    # and the players whose reveal this round is a card they took back earlier.
    recheck: tuple[str, ...] = ()
    from_hand: frozenset[str] = frozenset()

    # -- reading the state -------------------------------------------------

    def seat(self, player: str) -> int:
        """The index of ``player``; raises :class:`IllegalAction` for a stranger."""
        try:
            return self.players.index(player)
        except ValueError:
            raise IllegalAction(
                refusal(
                    "autumn_leaves.player.stranger",
                    "%(player)s is not playing at this table (players: %(players)s)",
                    player=repr(player),
                    players=", ".join(self.players),
                )
            ) from None

    def pile(self, player: str) -> tuple[int, ...]:
        """``player``'s leaf pile, bottom to top."""
        return self.piles[self.seat(player)]

    def hand_size(self, player: str) -> int:
        return self.hand_sizes[self.seat(player)]

    @property
    def to_act(self) -> str | None:
        """The player who must act now in the play phase, else None."""
        return self.waiting[0] if self.phase == PLAY and self.waiting else None

    @property
    def to_reveal(self) -> tuple[str, ...]:
        """Players who still have to reveal a card this round."""
        if self.phase != REVEAL:
            return ()
        return tuple(p for p, c in zip(self.players, self.revealed, strict=True) if c is None)

    @property
    def to_score(self) -> tuple[str, ...]:
        """Players who still have to enter their highest card in hand."""
        if self.phase != SCORE:
            return ()
        return tuple(
            p
            for p, n, h in zip(self.players, self.hand_sizes, self.highest, strict=True)
            if n > 0 and h is None
        )

    @property
    def totals(self) -> tuple[int, ...]:
        """Each player's total over the finished hands (A9)."""
        return tuple(sum(r.scores[i] for r in self.results) for i in range(len(self.players)))

    @property
    def game_winners(self) -> tuple[str, ...]:
        """After the sixth hand, the players with the lowest total (ties share, A9)."""
        if self.phase != OVER:
            return ()
        best = min(self.totals)
        return tuple(p for p, t in zip(self.players, self.totals, strict=True) if t == best)

    @property
    def order_reasons(self) -> tuple[str, ...]:
        """Why players with the same card act in the order they do (A3): a
        sentence for each neighbour in the play order told apart by the piles
        (those whose piles are identical too are in :attr:`random_ties`)."""
        return tuple(str(reason) for reason in self.order_messages)

    @property
    def order_messages(self) -> tuple[Message, ...]:
        """:attr:`order_reasons` as messages with ids, for a screen."""
        reasons = []
        for first, second in zip(self.waiting, self.waiting[1:], strict=False):
            card = self.card_of(first)
            drawn = any(first in group and second in group for group in self.random_ties)
            if card is not None and card == self.card_of(second) and not drawn:
                reasons.append(
                    tie_message(first, second, card, self.pile(first), self.pile(second))
                )
        return tuple(reasons)

    def card_of(self, player: str) -> int | None:
        """``player``'s revealed card not yet dealt with this round, if any."""
        return self.revealed[self.seat(player)]

    def choices(self, player: str) -> tuple[int, ...]:
        """The ranks ``player`` could enter now (see :func:`entry_choices`)."""
        return entry_choices(self, player)

    @property
    def fits(self) -> tuple[str, ...]:
        """Owners of the piles the player to act may use (see :func:`legal_piles`)."""
        return legal_piles(self)

    def public_cards(self, player: str | None = None) -> Counter[int]:
        """The cards of this hand that ``player`` (or anybody, for None) can
        see: :meth:`known_cards` without the other players' reveals still
        hidden in the reveal phase (AX1)."""
        known = self.known_cards()
        if self.phase == REVEAL:
            for other, card in zip(self.players, self.revealed, strict=True):
                # A card taken back earlier was public before it was revealed.
                if card is not None and other != player and other not in self.from_hand:
                    known[card] -= 1
        return known

    def known_cards(self) -> Counter[int]:
        """Every card of this hand the companion knows about (piles, discards,
        revealed cards, cards known to be in hands, highest cards entered)."""
        known: Counter[int] = Counter(self.discards)
        for pile in self.piles:
            known.update(pile)
        known.update(c for c in self.revealed if c is not None)
        for cards, high in zip(self.known_in_hand, self.highest, strict=True):
            known.update(cards)
            if high is not None and high not in cards:
                known[high] += 1  # a highest card entered at scoring is one more card
        return known


@dataclass(frozen=True)
class PlayerView:
    """What one phone may know of an Autumn Leaves game: the piles, hands,
    play order and scores, and of the reveal phase's hidden cards only those
    it is shown (its own, until everyone has revealed). Built by
    :func:`player_view`; read like a :class:`State`."""

    players: tuple[str, ...]
    hand: int
    phase: str
    round: int
    deck: int
    hand_sizes: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    discards: tuple[int, ...]
    # Revealed cards this phone may see (None: not revealed, dealt with, or hidden).
    revealed: tuple[int | None, ...]
    to_reveal: tuple[str, ...]
    to_score: tuple[str, ...]
    to_act: str | None
    fits: tuple[str, ...]
    waiting: tuple[str, ...]
    random_ties: tuple[tuple[str, ...], ...]
    order_reasons: tuple[str, ...]
    order_messages: tuple[Message, ...]  # the same reasons as values, for a screen
    cold_snap: bool
    last_cold_snap: bool
    known_in_hand: tuple[tuple[int, ...], ...]
    winner: str | None
    recheck: tuple[str, ...]
    totals: tuple[int, ...]
    game_winners: tuple[str, ...]
    # The ranks each player who still has to enter could enter (see
    # :func:`entry_choices`), worked out from what that player may know.
    entry_ranks: tuple[tuple[str, tuple[int, ...]], ...]
    moves: tuple[Move, ...] = field(hash=False)
    last_moves: tuple[Move, ...] = field(hash=False)
    results: tuple[HandResult, ...] = field(hash=False)

    def seat(self, player: str) -> int:
        return self.players.index(player)

    def pile(self, player: str) -> tuple[int, ...]:
        return self.piles[self.seat(player)]

    def hand_size(self, player: str) -> int:
        return self.hand_sizes[self.seat(player)]

    def card_of(self, player: str) -> int | None:
        return self.revealed[self.seat(player)]

    def choices(self, player: str) -> tuple[int, ...]:
        return dict(self.entry_ranks).get(player, ())


def player_view(state: State, shown: frozenset[str]) -> PlayerView:
    """``state`` as a phone shown the hidden reveals of ``shown`` may know
    it: in the reveal phase the other players' cards are not in it in any
    form, only that they have revealed (LT3)."""
    revealed = state.revealed
    order: tuple[Any, ...] = (
        state.waiting,
        state.random_ties,
        state.order_reasons,
        state.order_messages,
    )
    if state.phase == REVEAL:
        revealed = tuple(
            card if player in shown else None
            for player, card in zip(state.players, state.revealed, strict=True)
        )
        order = ((), (), (), ())  # the play order comes from the cards: none yet
    entering = (*state.to_reveal, *state.to_score)
    return PlayerView(
        players=state.players,
        hand=state.hand,
        phase=state.phase,
        round=state.round,
        deck=state.deck,
        hand_sizes=state.hand_sizes,
        piles=state.piles,
        discards=state.discards,
        revealed=revealed,
        to_reveal=state.to_reveal,
        to_score=state.to_score,
        to_act=state.to_act,
        fits=state.fits,
        waiting=order[0],
        random_ties=order[1],
        order_reasons=order[2],
        order_messages=order[3],
        cold_snap=state.cold_snap,
        last_cold_snap=state.last_cold_snap,
        known_in_hand=state.known_in_hand,
        winner=state.winner,
        recheck=state.recheck,
        totals=state.totals,
        game_winners=state.game_winners,
        entry_ranks=tuple((p, entry_choices(state, p)) for p in entering),
        moves=state.moves,
        last_moves=state.last_moves,
        results=state.results,
    )


def new_game(players: Sequence[str], seed: int = 0) -> State:
    """The state before the first card of the first hand is revealed.

    ``players`` are names in seating order; ``seed`` decides exact ties in
    play order, so a replay of the same actions gives the same state.
    Raises :class:`RuleError` for fewer than 3 or more than 6 players (A1),
    blank names, names that differ only in case or spaces, or a seed that is
    not an integer.
    """
    if isinstance(players, str):
        raise RuleError(
            refusal(
                "autumn_leaves.players.one-string",
                "players must be a list of names, not one string",
            )
        )
    names = tuple(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise RuleError(
            refusal(
                "autumn_leaves.players.count",
                "Autumn Leaves is for %(least)s to %(most)s players, not %(n)s",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
                n=len(names),
            )
        )  # A1
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise RuleError(
                refusal(
                    "autumn_leaves.players.not-a-name",
                    "%(name)s is not a player's name",
                    name=repr(name),
                )
            )
    folded = [n.strip().casefold() for n in names]
    repeated = sorted({n for n, f in zip(names, folded, strict=True) if folded.count(f) > 1})
    if repeated:
        raise RuleError(
            refusal(
                "autumn_leaves.players.same-name",
                "two players cannot share a name: %(names)s",
                names=", ".join(repeated),
            )
        )
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RuleError(
            refusal(
                "autumn_leaves.seed.not-a-number",
                "the seed must be a whole number, not %(seed)s",
                seed=repr(seed),
            )
        )
    return _deal(names, seed, 1, ())


def _deal(players: tuple[str, ...], seed: int, hand: int, results: tuple[HandResult, ...]) -> State:
    n = len(players)
    none: tuple[int | None, ...] = (None,) * n
    return State(
        players=players,
        seed=seed,
        hand=hand,
        phase=REVEAL,
        round=1,
        deck=DECK_SIZE - HAND_SIZE * n,  # A1
        hand_sizes=(HAND_SIZE,) * n,
        piles=((),) * n,
        discards=(),
        revealed=none,
        waiting=(),
        random_ties=(),
        cold_snap=False,
        moves=(),
        last_moves=(),
        last_cold_snap=False,
        known_in_hand=((),) * n,
        ended_by=None,
        winner=None,
        highest=none,
        results=results,
    )


def legal_piles(state: State) -> tuple[str, ...]:
    """Owners of the piles the player to act may put their card on (A4).

    Empty in any other phase, or when the card fits nowhere (then the player
    takes it back or discards and draws, A5).
    """
    player = state.to_act
    if player is None:
        return ()
    card = state.revealed[state.seat(player)]
    assert card is not None
    return tuple(
        owner
        for owner, pile in zip(state.players, state.piles, strict=True)
        if pile and can_place(card, pile[-1])
    )


def entry_choices(state: State, player: str) -> tuple[int, ...]:
    """The ranks ``player`` could enter now, on their own: the card to reveal
    in the reveal phase, the highest card in hand in the scoring phase.

    Ranks whose every copy is accounted for, or that contradict what the
    companion knows of the player's hand, are left out; empty in other phases
    or when the player has nothing to enter. Entries made together are still
    checked together by :func:`apply`.
    """
    if player not in state.players:
        return ()
    entry: type[Reveal] | type[Highest]
    if state.phase == REVEAL:
        entry = Reveal
    elif state.phase == SCORE:
        entry = Highest
    else:
        return ()
    choices = []
    for rank in range(1, 11):
        try:
            apply(state, entry(((player, rank),)))
        except RuleError:
            continue
        choices.append(rank)
    return tuple(choices)


# ---------------------------------------------------------------------------
# Applying actions
# ---------------------------------------------------------------------------


def apply(state: State, action: Action) -> State:
    """The state after ``action``; ``state`` is never changed.

    Raises :class:`IllegalAction` for an action out of phase or out of turn,
    or one the rules forbid (taking back a card that can be placed, a pile
    the card does not fit); :class:`InvalidCard` for an entry that is not a
    rank 1..10; :class:`TooManyCopies` when an entry would need more copies of
    a rank than the deck holds, counting every card the companion knows of.
    """
    if isinstance(action, Reveal):
        return _reveal(state, action)
    if isinstance(action, Place):
        return _place(state, action)
    if isinstance(action, TakeBack | DiscardDraw):
        return _cannot_place(state, action)
    if isinstance(action, Highest):
        return _highest(state, action)
    if isinstance(action, Unreveal):
        return _unreveal(state, action)
    raise IllegalAction(
        refusal(
            "autumn_leaves.action.unknown",
            "%(action)s is not an Autumn Leaves action",
            action=repr(action),
        )
    )


def replay(players: Sequence[str], seed: int, actions: Iterable[Action]) -> State:
    """Fold :func:`apply` over ``actions`` from a new game (undo = replay minus one)."""
    state = new_game(players, seed)
    for action in actions:
        state = apply(state, action)
    return state


def _entries(value: Any, nothing: Message) -> list[tuple[str, int]]:
    """Validate ``((player, card), ...)`` as sent from a form or JSON;
    ``nothing`` is the refusal of an empty list."""
    if not isinstance(value, tuple | list):
        raise RuleError(
            refusal(
                "autumn_leaves.entries.not-a-list",
                "%(value)s is not a list of (player, card) entries",
                value=repr(value)[:80],
            )
        )
    if not value:
        raise RuleError(nothing)
    entries: list[tuple[str, int]] = []
    for item in value:
        if not isinstance(item, tuple | list) or len(item) != 2 or not isinstance(item[0], str):
            raise RuleError(
                refusal(
                    "autumn_leaves.entries.not-an-entry",
                    "%(item)s is not a (player, card) entry",
                    item=repr(item)[:80],
                )
            )
        entries.append((item[0], parse_card(item[1])))
    names = [name for name, _ in entries]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise IllegalAction(
            refusal(
                "autumn_leaves.entries.twice",
                "%(players)s entered twice in one go",
                players=", ".join(repeated),
            )
        )
    return entries


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _check_one_more(known: Counter[int], card: int) -> None:
    """Reject ``card`` if every copy of its rank is already accounted for."""
    have = copies(card)
    if known[card] + 1 > have:
        raise TooManyCopies(
            refusal_n(
                "autumn_leaves.card.all-known",
                "there is only %(n)s card of rank %(card)s, and it is already on the table "
                "or known to be in a hand",
                "there are only %(n)s cards of rank %(card)s, and all of them are already on "
                "the table or known to be in a hand",
                "n",
                n=have,
                card=card,
            )
        )


def _reveal(state: State, action: Reveal) -> State:
    if state.phase != REVEAL:
        raise IllegalAction(
            _not_now(state, refusal("autumn_leaves.now.reveal", "cannot reveal cards now"))
        )
    entries = _entries(
        action.cards, refusal("autumn_leaves.entries.no-reveal", "no revealed cards entered")
    )
    revealed = state.revealed
    known_in_hand = state.known_in_hand
    from_hand = set(state.from_hand)
    # AX1: an entry is checked only against what the phone entering it can
    # see (the table, and the cards entered in this same action), never
    # against other players' hidden reveals.
    known = state.public_cards(entries[0][0] if len(entries) == 1 else None)
    for player, card in entries:
        i = state.seat(player)
        if revealed[i] is not None:
            raise IllegalAction(
                refusal(
                    "autumn_leaves.reveal.twice",
                    "%(player)s has already revealed a card this round (undo to change it)",
                    player=player,
                )
            )
        mine = known_in_hand[i]
        if card in mine:
            # The card they took back earlier: no new copy comes into play.
            rest = list(mine)
            rest.remove(card)
            known_in_hand = _set(known_in_hand, i, tuple(rest))
            from_hand.add(player)
        elif len(mine) >= state.hand_sizes[i]:
            cards = ", ".join(str(c) for c in mine)
            raise IllegalAction(
                refusal(
                    "autumn_leaves.reveal.only-taken-back",
                    "%(player)s holds only cards they took back (%(cards)s), so cannot "
                    "reveal %(article)s %(card)s",
                    player=player,
                    cards=cards,
                    article=article(card),
                    card=card,
                )
            )
        else:
            _check_one_more(known, card)
            known[card] += 1
        revealed = _set(revealed, i, card)
    entered = {player for player, _ in entries}
    state = replace(
        state,
        revealed=revealed,
        known_in_hand=known_in_hand,
        from_hand=frozenset(from_hand),
        recheck=tuple(p for p in state.recheck if p not in entered),
    )
    if any(c is None for c in revealed):
        return state
    clashing = _clashing_reveals(state)
    if clashing:
        # AX1: nothing is revealed; the players concerned enter their card again.
        for player in clashing:
            state = _unreveal(state, Unreveal(player))
        return replace(state, recheck=clashing)
    return _start_round(replace(state, from_hand=frozenset()))


def _clashing_reveals(state: State) -> tuple[str, ...]:
    """Players whose newly revealed card is of a rank now over the deck's count."""
    known = state.known_cards()
    over = {rank for rank, count in known.items() if count > copies(rank)}
    return tuple(
        p
        for p, card in zip(state.players, state.revealed, strict=True)
        if card in over and p not in state.from_hand
    )


def _unreveal(state: State, action: Unreveal) -> State:
    if state.phase != REVEAL:
        raise IllegalAction(
            _not_now(
                state,
                refusal("autumn_leaves.now.unreveal", "cannot take back a revealed card now"),
            )
        )
    i = state.seat(action.player)
    card = state.revealed[i]
    if card is None:
        raise IllegalAction(
            refusal(
                "autumn_leaves.unreveal.none",
                "%(player)s has not revealed a card this round",
                player=action.player,
            )
        )
    known_in_hand = state.known_in_hand
    if action.player in state.from_hand:  # it goes back to the known cards in hand
        known_in_hand = _set(known_in_hand, i, tuple(sorted((*known_in_hand[i], card))))
    return replace(
        state,
        revealed=_set(state.revealed, i, None),
        known_in_hand=known_in_hand,
        from_hand=state.from_hand - {action.player},
    )


def _start_round(state: State) -> State:
    """Every card is revealed: resolve the first round or set up the play order."""
    if state.round == 1:  # A2: every card starts its owner's pile, no order needed
        moves = tuple(
            Move(p, c, "start", p)
            for p, c in zip(state.players, state.revealed, strict=True)
            if c is not None
        )
        return _next_round(
            replace(
                state,
                piles=tuple((c,) for c in state.revealed if c is not None),
                hand_sizes=tuple(n - 1 for n in state.hand_sizes),
                revealed=(None,) * len(state.players),
                moves=moves,
            )
        )
    tops = [pile[-1] for pile in state.piles if pile]
    cold_snap = not any(  # A6: decided once, from the piles as the round starts
        can_place(card, top) for card in state.revealed if card is not None for top in tops
    )
    state = _reorder(replace(state, phase=PLAY, waiting=state.players, cold_snap=cold_snap))
    if cold_snap:
        # A6: everyone puts their card on their own pile, still in play order (A3),
        # because one of those cards may empty a hand and end it (A7).
        while state.phase == PLAY:
            player = state.waiting[0]
            state = _put(state, player, player, "cold snap")
    return state


def _tie_rank(state: State) -> dict[str, int]:
    """This round's random order for exact ties, drawn from the seed (A3)."""
    rng = random.Random(f"autumn-leaves:{state.seed}:{state.hand}:{state.round}")
    shuffled = list(state.players)
    rng.shuffle(shuffled)
    return {p: i for i, p in enumerate(shuffled)}


def _reorder(state: State) -> State:
    """Recompute the play order among the players still to act (A3)."""
    revealed = {
        p: c
        for p, c in zip(state.players, state.revealed, strict=True)
        if p in state.waiting
        if c is not None
    }
    piles = dict(zip(state.players, state.piles, strict=True))
    rank = _tie_rank(state)
    order: list[str] = []
    ties: list[tuple[str, ...]] = []
    for group in order_groups(revealed, piles):
        members = tuple(sorted(group, key=rank.__getitem__))
        if len(members) > 1:
            ties.append(members)
        order.extend(members)
    return replace(state, waiting=tuple(order), random_ties=tuple(ties))


def _check_turn(state: State, player: str) -> int:
    i = state.seat(player)
    if state.phase != PLAY:
        raise IllegalAction(
            _not_now(
                state,
                refusal(
                    "autumn_leaves.now.play",
                    "%(player)s cannot play a card now",
                    player=player,
                ),
            )
        )
    if state.waiting[0] != player:
        if player not in state.waiting:
            raise IllegalAction(
                refusal(
                    "autumn_leaves.play.played",
                    "%(player)s has already played this round",
                    player=player,
                )
            )
        raise IllegalAction(
            refusal(
                "autumn_leaves.play.not-yet",
                "%(player)s cannot play yet: it is %(turn)s's turn (lowest card first)",
                player=player,
                turn=state.waiting[0],
            )
        )
    return i


def _place(state: State, action: Place) -> State:
    i = _check_turn(state, action.player)
    card = state.revealed[i]
    assert card is not None
    target = state.seat(action.pile)
    top = state.piles[target][-1]
    if not can_place(card, top):  # A4
        fits = legal_piles(state)
        hint = (
            refusal(
                "autumn_leaves.place.fits-on",
                "it fits on %(piles)s",
                piles=_pile_names(fits, action.player),
            )
            if fits
            else refusal(
                "autumn_leaves.place.fits-nowhere",
                "it fits nowhere, so take it back or discard and draw",
            )
        )
        neighbours = [n for n in (card - 1, card + 1) if 1 <= n <= 10]
        if len(neighbours) == 1:
            goes = refusal(
                "autumn_leaves.place.goes-on-one",
                "%(article)s %(card)s goes only on %(article_low)s %(low)s",
                article=article(card),
                card=card,
                article_low=article(neighbours[0]),
                low=neighbours[0],
            )
        else:
            goes = refusal(
                "autumn_leaves.place.goes-on-two",
                "%(article)s %(card)s goes only on %(cards)s",
                article=article(card),
                card=card,
                cards=refusal(
                    "autumn_leaves.place.either",
                    "%(article_low)s %(low)s or %(article)s %(high)s",
                    article_low=article(neighbours[0]),
                    low=neighbours[0],
                    article=article(neighbours[1]),
                    high=neighbours[1],
                ),
            )
        raise IllegalAction(
            refusal(
                "autumn_leaves.place.no-fit",
                "%(player)s's %(card)s cannot go on %(pile)s (top card %(top)s): "
                "%(goes)s; %(hint)s",
                player=action.player,
                card=card,
                pile=_pile_name(action.pile, action.player),
                top=top,
                goes=goes,
                hint=hint,
            )
        )
    return _put(state, action.player, action.pile, "place")


def _pile_name(owner: str, player: str) -> Message:
    if owner == player:
        return refusal("autumn_leaves.pile.own", "their own pile")
    return refusal("autumn_leaves.pile.of", "%(owner)s's pile", owner=owner)


def _pile_names(owners: Sequence[str], player: str) -> Message:
    """Several piles in words: "Ben's pile, their own pile" (a list, no sentence)."""
    names = [_pile_name(owner, player) for owner in owners]
    listed = names[0]
    for name in names[1:]:
        listed = refusal("autumn_leaves.pile.list", "%(piles)s, %(pile)s", piles=listed, pile=name)
    return listed


def _put(state: State, player: str, owner: str, kind: str) -> State:
    """Put ``player``'s revealed card on ``owner``'s pile and move on."""
    i, j = state.seat(player), state.seat(owner)
    card = state.revealed[i]
    assert card is not None
    state = replace(
        state,
        piles=_set(state.piles, j, (*state.piles[j], card)),
        hand_sizes=_set(state.hand_sizes, i, state.hand_sizes[i] - 1),
        revealed=_set(state.revealed, i, None),
        waiting=state.waiting[1:],
        moves=(*state.moves, Move(player, card, kind, owner)),
    )
    if state.hand_sizes[i] == 0:  # A7: the last card is placed
        return _end_hand(state, EMPTY_HAND, player)
    return _after_action(state)


def _cannot_place(state: State, action: TakeBack | DiscardDraw) -> State:
    i = _check_turn(state, action.player)
    card = state.revealed[i]
    assert card is not None
    fits = legal_piles(state)
    if fits:  # A4: a card that can be placed must be placed
        raise IllegalAction(
            refusal(
                "autumn_leaves.place.must",
                "%(player)s's %(card)s can be placed (%(piles)s), so it must be",
                player=action.player,
                card=card,
                piles=_pile_names(fits, action.player),
            )
        )
    if isinstance(action, TakeBack):  # A5
        state = replace(
            state,
            revealed=_set(state.revealed, i, None),
            known_in_hand=_set(
                state.known_in_hand, i, tuple(sorted((*state.known_in_hand[i], card)))
            ),
            waiting=state.waiting[1:],
            moves=(*state.moves, Move(action.player, card, "take back")),
        )
        return _after_action(state)
    if state.deck == 0:  # A5; never reached while A7 ends the hand on the last draw
        raise IllegalAction(
            refusal(
                "autumn_leaves.draw.empty",
                "the deck is empty: there is nothing to draw, the hand is over",
            )
        )
    state = replace(
        state,
        revealed=_set(state.revealed, i, None),
        discards=(*state.discards, card),
        deck=state.deck - 1,
        waiting=state.waiting[1:],
        moves=(*state.moves, Move(action.player, card, "discard")),
    )
    if state.deck == 0:  # A7: the last card of the deck was drawn
        return _end_hand(state, DECK_EMPTY, None)
    return _after_action(state)


def _after_action(state: State) -> State:
    if state.waiting:
        return _reorder(state)  # A3: recheck the order after every play
    return _next_round(state)


def _next_round(state: State) -> State:
    return replace(
        state,
        phase=REVEAL,
        round=state.round + 1,
        revealed=(None,) * len(state.players),
        waiting=(),
        random_ties=(),
        last_moves=state.moves,
        last_cold_snap=state.cold_snap,
        cold_snap=False,
        moves=(),
    )


def _end_hand(state: State, ended_by: str, winner: str | None) -> State:
    """A7: the hand is over; whoever has not acted takes their card back."""
    known_in_hand = state.known_in_hand
    moves = state.moves
    for player in state.waiting:
        i = state.seat(player)
        card = state.revealed[i]
        assert card is not None
        known_in_hand = _set(known_in_hand, i, tuple(sorted((*known_in_hand[i], card))))
        moves = (*moves, Move(player, card, "hand over"))
    return replace(
        state,
        phase=SCORE,
        revealed=(None,) * len(state.players),
        waiting=(),
        random_ties=(),
        known_in_hand=known_in_hand,
        moves=moves,
        ended_by=ended_by,
        winner=winner,
    )


def _highest(state: State, action: Highest) -> State:
    if state.phase != SCORE:
        raise IllegalAction(
            _not_now(state, refusal("autumn_leaves.now.highest", "cannot enter highest cards now"))
        )
    entries = _entries(
        action.cards, refusal("autumn_leaves.entries.no-highest", "no highest cards entered")
    )
    highest = state.highest
    known = state.known_cards()
    for player, card in entries:
        i = state.seat(player)
        size = state.hand_sizes[i]
        mine = state.known_in_hand[i]
        if size == 0:
            raise IllegalAction(
                refusal(
                    "autumn_leaves.highest.no-cards",
                    "%(player)s has no cards left in hand, so has no highest card",
                    player=player,
                )
            )
        if highest[i] is not None:
            raise IllegalAction(
                refusal(
                    "autumn_leaves.highest.twice",
                    "%(player)s's highest card is already entered as %(card)s (undo to change it)",
                    player=player,
                    card=highest[i] or 0,
                )
            )
        if mine and card < max(mine):
            raise IllegalAction(
                refusal(
                    "autumn_leaves.highest.took-back",
                    "%(player)s took back %(article)s %(kept)s this hand, so their highest "
                    "card cannot be %(card)s",
                    player=player,
                    article=article(max(mine)),
                    kept=max(mine),
                    card=card,
                )
            )
        if len(mine) == size and card != max(mine):
            raise IllegalAction(
                refusal(
                    "autumn_leaves.highest.all-known",
                    "%(player)s's cards are all known (%(cards)s), so their highest is %(high)s",
                    player=player,
                    cards=", ".join(map(str, mine)),
                    high=max(mine),
                )
            )
        extra = 0
        if card not in mine:
            _check_one_more(known, card)
            known[card] += 1
            extra = 1  # the highest card is one of the unseen cards
        unseen = size - len(mine)
        free = extra + sum(copies(r) - known[r] for r in range(1, card + 1))
        if unseen > free:
            raise TooManyCopies(
                refusal_n(
                    "autumn_leaves.highest.too-low",
                    "%(player)s holds %(n)s card, so their highest cannot be %(card)s: not "
                    "enough cards of rank %(card)s or lower are left unaccounted for",
                    "%(player)s holds %(n)s cards, so their highest cannot be %(card)s: not "
                    "enough cards of rank %(card)s or lower are left unaccounted for",
                    "n",
                    player=player,
                    n=size,
                    card=card,
                )
            )
        highest = _set(highest, i, card)
    state = replace(state, highest=highest)
    if state.to_score:
        return state
    return _score_hand(state)


def _score_hand(state: State) -> State:
    sizes = tuple(len(pile) for pile in state.piles)
    scores = tuple(
        hand_score(size, high, winner=(player == state.winner))  # A8
        for player, size, high in zip(state.players, sizes, state.highest, strict=True)
    )
    result = HandResult(
        number=state.hand,
        ended_by=state.ended_by or DECK_EMPTY,
        winner=state.winner,
        pile_sizes=sizes,
        highest=state.highest,
        scores=scores,
    )
    results = (*state.results, result)
    if state.hand >= HANDS:  # A9
        return replace(state, phase=OVER, results=results)
    return _deal(state.players, state.seed, state.hand + 1, results)


def _not_now(state: State, what: Message) -> Message:
    """``what`` cannot be done now ("cannot reveal cards now"), and what the
    table waits for instead."""
    if state.phase == REVEAL:
        return refusal(
            "autumn_leaves.now.waiting-reveal",
            "%(what)s: the table is waiting for everyone to reveal a card",
            what=what,
        )
    if state.phase == PLAY:
        return refusal(
            "autumn_leaves.now.waiting-play",
            "%(what)s: the table is waiting for %(player)s to play",
            what=what,
            player=state.to_act or "?",
        )
    if state.phase == SCORE:
        return refusal(
            "autumn_leaves.now.waiting-score",
            "%(what)s: the table is waiting for the highest cards in hand at the end of the hand",
            what=what,
        )
    return refusal("autumn_leaves.now.over", "%(what)s: the game is over", what=what)


def check_known(state: State) -> None:
    """Raise :class:`TooManyCopies` if the known cards break the deck composition.

    :func:`apply` never produces such a state; this is a consistency check for
    tests and tools that build states by hand.
    """
    check_composition(state.known_cards().elements())


__all__ = [
    "ACTIONS",
    "HANDS",
    "DiscardDraw",
    "HandResult",
    "Highest",
    "Move",
    "Place",
    "PlayerView",
    "Reveal",
    "State",
    "TakeBack",
    "Unreveal",
    "apply",
    "can_place",
    "check_known",
    "entry_choices",
    "hand_score",
    "legal_piles",
    "new_game",
    "order_groups",
    "play_order",
    "player_view",
    "replay",
]
