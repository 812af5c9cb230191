"""Venture: the bidding game for 3 to 8 players played with a Pairs deck.

Every round each player bids one card face down; the bids are revealed
together and fire from the lowest rank to the highest, capturing cards on the
table. Captured cards are bad (one point off each) unless a player holds a
whole rank (a full set), which scores a point per card instead.

The pieces a program needs:

* :func:`slug_size` and :func:`hand_size` — the deal (V1).
* :func:`resolve` — one round: which bid takes what, and the next pool
  (V2-V7), with a step-by-step record a screen can show.
* :func:`final_scores` — the end of the game (V8).
* :func:`new_game` / :func:`apply` and the actions :class:`EnterSlug`,
  :class:`Bid`, :class:`ChangeBid`, :class:`WithdrawBid` — a whole game as a
  state machine, so a table is its setup plus a log of actions.

The rounds of the worked example in the rules (five players):

>>> first = resolve([4, 5, 6, 8, 10], {"Ana": 2, "Ben": 3, "Cy": 4, "Di": 5, "Ed": 6})
>>> first.captured
{'Ana': [10], 'Ben': [2], 'Cy': [3], 'Di': [4, 4], 'Ed': [5, 5]}
>>> first.pool
[6, 6, 8]
>>> second = resolve(first.pool, {"Ana": 5, "Ben": 5, "Cy": 7, "Di": 9, "Ed": 9})
>>> second.pool
[7, 8, 9, 9]
>>> for step in second.steps:
...     print(step.describe())
the 5s of Ana and Ben misfire and take nothing
Cy's 7 takes 5, 5, 6, 6
the 9s of Di and Ed misfire and take nothing

Scoring: five captured 5s are a full set; the other six cards cost a point each.

>>> final_scores({"Ana": [5, 5, 5, 5, 5, 2, 3, 4, 6, 7, 8], "Ben": []}, [])
{'Ana': -1, 'Ben': 0}

Identifiers and messages speak of players by the names the table gave them.
Drafting (V9) is only recorded: the companion does not referee it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from .cards import DECK_SIZE, article, check_composition, copies
from .errors import IllegalAction, InvalidCard, TooManyCopies
from .messages import Message, refusal

__all__ = [
    "ACTIONS",
    "CAPTURED",
    "FIRED",
    "LOWEST",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MISFIRED",
    "Bid",
    "ChangeBid",
    "EnterSlug",
    "Outcome",
    "PlayerView",
    "Resolution",
    "Round",
    "State",
    "Step",
    "WithdrawBid",
    "apply",
    "final_scores",
    "full_sets",
    "hand_size",
    "new_game",
    "player_view",
    "resolve",
    "slug_size",
    "winners",
]

MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 8

# V1: the slug for each player count; the rest of the deck is dealt evenly.
_SLUG: Final[Mapping[int, int]] = {3: 4, 4: 3, 5: 5, 6: 7, 7: 6, 8: 7}


def _check_player_count(players: int) -> int:
    if isinstance(players, bool) or not isinstance(players, int):
        raise IllegalAction(
            refusal(
                "venture.players.not-a-number",
                "%(players)s is not a number of players",
                players=repr(players),
            )
        )
    if players not in _SLUG:
        raise IllegalAction(
            refusal(
                "venture.players.count",
                "Venture is for %(least)s to %(most)s players, not %(players)s",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
                players=players,
            )
        )
    return players


def slug_size(players: int) -> int:
    """How many cards form the slug, the first pool, for ``players`` players (V1).

    >>> [slug_size(n) for n in range(3, 9)]
    [4, 3, 5, 7, 6, 7]

    Raises :class:`~companion.rules.errors.IllegalAction` (a ValueError) for
    fewer than 3 or more than 8 players, or for a count that is not an int.
    """
    return _SLUG[_check_player_count(players)]


def hand_size(players: int) -> int:
    """How many cards each player is dealt, which is also the number of rounds (V1).

    >>> [hand_size(n) for n in range(3, 9)]
    [17, 13, 10, 8, 7, 6]

    Raises :class:`~companion.rules.errors.IllegalAction` (a ValueError) for
    fewer than 3 or more than 8 players, or for a count that is not an int.
    """
    return (DECK_SIZE - slug_size(players)) // players


# --------------------------------------------------------------------------
# One round: resolve the bids.

LOWEST: Final = "lowest"
"""The lowest bid rank, bid by one player: it takes the highest rank (V4)."""
FIRED: Final = "fired"
"""Any other rank bid by one player only: it takes every lower card on the table (V5)."""
MISFIRED: Final = "misfired"
"""A rank bid by two or more players: those bids take nothing (V3)."""
CAPTURED: Final = "captured"
"""Bids captured before their turn to fire: they take nothing (V6)."""


@dataclass(frozen=True)
class Step:
    """What the bids of one rank did when their turn to fire came.

    ``players`` bid ``rank``; ``outcome`` is :data:`LOWEST`, :data:`FIRED`,
    :data:`MISFIRED` or :data:`CAPTURED`. ``captured`` lists the cards taken
    (ascending; empty unless the outcome is LOWEST or FIRED) and
    ``bids_captured`` the players whose bid cards were among them.
    ``taken_by`` names who captured these bids when the outcome is CAPTURED.
    """

    rank: int
    players: tuple[str, ...]
    outcome: str
    captured: tuple[int, ...] = ()
    bids_captured: tuple[str, ...] = ()
    taken_by: str | None = None

    @property
    def taker(self) -> str | None:
        """The player who captured ``captured`` (None when nothing could fire)."""
        return self.players[0] if self.outcome in (LOWEST, FIRED) else None

    def describe(self) -> str:
        """One line in plain words for the table, e.g. ``"Cy's 7 takes 5, 5, 6, 6"``."""
        names = _join(self.players)
        cards = ", ".join(str(card) for card in self.captured)
        if self.outcome == MISFIRED:
            return f"the {self.rank}s of {names} misfire and take nothing"
        if self.outcome == CAPTURED:
            if len(self.players) == 1:
                return f"{names}'s {self.rank} went to {self.taken_by} before it could fire"
            return f"the {self.rank}s of {names} went to {self.taken_by} before they could fire"
        owner = f"{self.players[0]}'s {self.rank}"
        if self.outcome == LOWEST:
            if not self.captured:
                return f"{owner} is the lowest bid but there is nothing else to take"
            return f"{owner} is the lowest bid and takes the highest cards: {cards}"
        # A lone bid above the lowest always finds a lower card: the lowest bid
        # rank stays on the table until some higher bid takes it.
        return f"{owner} takes {cards}"


@dataclass(frozen=True)
class Resolution:
    """The result of one round of bids.

    ``captured`` maps every bidder (in the order of the bids) to the cards they
    took this round, ascending (possibly empty). ``pool`` is the next pool,
    ascending. ``steps`` records the firing rank by rank, lowest first.
    """

    captured: dict[str, list[int]]
    pool: list[int]
    steps: tuple[Step, ...]


def _join(names: Iterable[str]) -> str:
    items = list(names)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _card(value: object, what: Message) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10:
        return copies(value)
    raise InvalidCard(
        refusal(
            "venture.card.not-a-card",
            "%(what)s: %(card)s is not a card of the Pairs deck (ranks are 1 to 10)",
            what=what,
            card=repr(value),
        )
    )


def _not_a_name(name: object) -> Message:
    return refusal("venture.name.not-a-name", "%(name)s is not a player's name", name=repr(name))


def resolve(pool: Iterable[int], bids: Mapping[str, int]) -> Resolution:
    """Fire the bids of one round against ``pool`` (V2-V7).

    Bids fire from the lowest rank up; all bids of one rank fire together (V2).
    A rank bid by two or more players misfires and takes nothing (V3). The
    lowest bid rank, if it does not misfire, takes every card of the highest
    rank on the table other than itself (V4). Any other lone bid takes every
    card on the table of a lower rank, bids included (V5). A bid captured
    before its turn has left the table and takes nothing (V6). Whatever is not
    captured is the next pool (V7).

    >>> resolve([7], {"Ana": 3, "Ben": 3, "Cy": 8}).captured
    {'Ana': [], 'Ben': [], 'Cy': [3, 3, 7]}
    >>> [s.outcome for s in resolve([9], {"Ana": 2, "Ben": 9, "Cy": 5}).steps]
    ['lowest', 'fired', 'captured']

    Raises :class:`~companion.rules.errors.InvalidCard` for a card that is not
    a rank 1..10, :class:`~companion.rules.errors.TooManyCopies` when the pool
    and the bids together hold more copies of a rank than the deck, and
    :class:`~companion.rules.errors.IllegalAction` for a bidder name that is
    not a non-empty string.
    """
    pool_cards = [_card(card, refusal("venture.card.pool", "a pool card")) for card in pool]
    bid_cards: dict[str, int] = {}
    for player, card in bids.items():
        if not isinstance(player, str) or not player:
            raise IllegalAction(_not_a_name(player))
        bid_cards[player] = _card(card, _whose_bid(player))
    check_composition([*pool_cards, *bid_cards.values()])

    # The table: pool cards (owner None) and bid cards (owner = bidder).
    on_table: list[tuple[int, str | None]] = [(card, None) for card in pool_cards]
    on_table += [(card, player) for player, card in bid_cards.items()]
    captured: dict[str, list[int]] = {player: [] for player in bid_cards}
    taken_by: dict[str, str] = {}
    steps: list[Step] = []

    by_rank: dict[int, list[str]] = {}
    for player, card in bid_cards.items():
        by_rank.setdefault(card, []).append(player)
    ranks = sorted(by_rank)  # V2: lowest rank first

    for rank in ranks:
        players = tuple(by_rank[rank])
        if players[0] in taken_by:
            # V6: every card of a rank is captured together, so all these bids
            # left the table at once, before they could fire.
            steps.append(Step(rank, players, CAPTURED, taken_by=taken_by[players[0]]))
            continue
        if len(players) > 1:  # V3
            steps.append(Step(rank, players, MISFIRED))
            continue
        bidder = players[0]
        others = [item for item in on_table if item[1] != bidder]
        if rank == ranks[0]:  # V4: only the lowest bid rank, only if it did not misfire
            top = max((card for card, _ in others), default=None)
            took = [item for item in others if item[0] == top]
            outcome = LOWEST
        else:  # V5
            took = [item for item in others if item[0] < rank]
            outcome = FIRED
        for item in took:
            on_table.remove(item)
            if item[1] is not None:
                taken_by[item[1]] = bidder
        captured[bidder].extend(card for card, _ in took)
        steps.append(
            Step(
                rank,
                players,
                outcome,
                captured=tuple(sorted(card for card, _ in took)),
                bids_captured=tuple(owner for _, owner in took if owner is not None),
            )
        )

    return Resolution(
        captured={player: sorted(cards) for player, cards in captured.items()},
        pool=sorted(card for card, _ in on_table),  # V7
        steps=tuple(steps),
    )


# --------------------------------------------------------------------------
# The end of the game.


def _score_inputs(
    captured: Mapping[str, Iterable[int]], pool: Iterable[int]
) -> tuple[dict[str, Counter[int]], Counter[int]]:
    piles: dict[str, Counter[int]] = {}
    for player, cards in captured.items():
        whose = refusal("venture.card.captured", "a card captured by %(player)s", player=player)
        piles[player] = Counter(_card(card, whose) for card in cards)
    left_over = refusal("venture.card.left", "a card left in the pool")
    left = Counter(_card(card, left_over) for card in pool)
    everything: Counter[int] = Counter(left)
    for pile in piles.values():
        everything.update(pile)
    check_composition(everything.elements())
    return piles, left


def full_sets(captured: Mapping[str, Iterable[int]], pool: Iterable[int]) -> dict[str, list[int]]:
    """The ranks each player scores as a full set at the end (V8), ascending.

    A player holds a full set of rank *r* when they captured at least one *r*
    and their *r*s plus the *r*s left in the final pool make all *r* copies.

    >>> full_sets({"Ana": [9] * 8 + [1], "Ben": [2]}, [9, 2])
    {'Ana': [1, 9], 'Ben': [2]}

    Raises the same errors as :func:`final_scores`.
    """
    piles, left = _score_inputs(captured, pool)
    return {
        player: sorted(r for r, n in pile.items() if n and n + left[r] == copies(r))
        for player, pile in piles.items()
    }


def final_scores(captured: Mapping[str, Iterable[int]], pool: Iterable[int]) -> dict[str, int]:
    """Each player's score from the cards they captured and the final pool (V8).

    Every captured card is one point off, except the cards of a full set
    (see :func:`full_sets`), which score one point each — the pool cards of
    that set included. A captured 1 is always a full set.

    >>> final_scores({"Ana": [9] * 8, "Ben": [1, 2, 3]}, [9])
    {'Ana': 9, 'Ben': -1}

    Raises :class:`~companion.rules.errors.InvalidCard` for a card that is not
    a rank 1..10 and :class:`~companion.rules.errors.TooManyCopies` when the
    captured piles and the pool hold more copies of a rank than the deck.
    """
    piles, left = _score_inputs(captured, pool)
    scores: dict[str, int] = {}
    for player, pile in piles.items():
        total = 0
        for rank, count in pile.items():
            if count and count + left[rank] == copies(rank):  # V8 full set
                total += copies(rank)
            else:
                total -= count
        scores[player] = total
    return scores


def winners(scores: Mapping[str, int]) -> list[str]:
    """The players with the highest score, in the given order; ties share (V8).

    >>> winners({"Ana": -3, "Ben": 2, "Cy": 2})
    ['Ben', 'Cy']
    """
    if not scores:
        return []
    best = max(scores.values())
    return [player for player, score in scores.items() if score == best]


# --------------------------------------------------------------------------
# A whole game as a state machine.


@dataclass(frozen=True)
class EnterSlug:
    """The slug, turned face up: exactly :func:`slug_size` cards, any order."""

    cards: tuple[int, ...]


@dataclass(frozen=True)
class Bid:
    """``player`` puts ``card`` face down as this round's bid."""

    player: str
    card: int


@dataclass(frozen=True)
class ChangeBid:
    """``player`` swaps the bid they made this round, before all bids are in."""

    player: str
    card: int


@dataclass(frozen=True)
class WithdrawBid:
    """``player`` takes back this round's bid (before all bids are in)."""

    player: str


Action = EnterSlug | Bid | ChangeBid | WithdrawBid

ACTIONS: dict[str, type] = {cls.__name__: cls for cls in (EnterSlug, Bid, ChangeBid, WithdrawBid)}


@dataclass(frozen=True)
class Round:
    """A round that was played: the pool before it, the bids, what happened."""

    number: int
    pool: tuple[int, ...]
    bids: tuple[tuple[str, int], ...]
    resolution: Resolution


@dataclass(frozen=True)
class Outcome:
    """A finished game: scores, full sets and the winner(s) (V8)."""

    scores: dict[str, int]
    full_sets: dict[str, list[int]]
    winners: list[str]


SLUG: Final = "slug"
BIDDING: Final = "bidding"
OVER: Final = "over"


@dataclass(frozen=True)
class State:
    """A Venture game between rounds or while bids come in.

    Tuples aligned with ``players`` hold each player's captured cards
    (ascending) and this round's bid (None until they bid). Read it through
    the helpers (:meth:`phase`, :meth:`hand_counts`, :meth:`captured_piles`,
    :meth:`waiting_for` ...), which return fresh containers.
    """

    players: tuple[str, ...]
    drafting: bool = False  # V9: recorded, not refereed
    slug: tuple[int, ...] | None = None
    pool: tuple[int, ...] = ()
    captured: tuple[tuple[int, ...], ...] = ()
    bids: tuple[int | None, ...] = ()
    rounds: tuple[Round, ...] = field(default=())
    # Players whose bids could not all be true at the reveal (VX1): their
    # bids were taken back and they are asked to check their card and bid again.
    recheck: tuple[str, ...] = ()

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player, and the number of rounds (V1)."""
        return hand_size(len(self.players))

    @property
    def slug_size(self) -> int:
        """Cards in the slug for this many players (V1)."""
        return slug_size(len(self.players))

    @property
    def phase(self) -> str:
        """``"slug"`` before the slug is entered, ``"bidding"``, or ``"over"``."""
        if self.slug is None:
            return SLUG
        return OVER if len(self.rounds) >= self.hand_size else BIDDING

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def rounds_played(self) -> int:
        return len(self.rounds)

    @property
    def rounds_left(self) -> int:
        """Rounds still to play, the current one included."""
        return self.hand_size - len(self.rounds)

    @property
    def round_number(self) -> int:
        """The number of the round being bid (1-based); past the end when over."""
        return len(self.rounds) + 1

    @property
    def last_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def seat(self, player: str) -> int:
        """The index of ``player``; raises IllegalAction for a stranger."""
        if isinstance(player, str) and player in self.players:
            return self.players.index(player)
        raise IllegalAction(
            refusal(
                "venture.player.stranger",
                "%(player)s is not playing at this table (players: %(players)s)",
                player=repr(player),
                players=", ".join(self.players),
            )
        )

    def hand_counts(self) -> dict[str, int]:
        """Cards still in each player's hand; a bid made this round has left it."""
        left = self.rounds_left
        return {
            player: left - (bid is not None)
            for player, bid in zip(self.players, self._bids(), strict=True)
        }

    def captured_piles(self) -> dict[str, list[int]]:
        """Each player's captured cards, ascending."""
        return {p: list(c) for p, c in zip(self.players, self._captured(), strict=True)}

    def bid_of(self, player: str) -> int | None:
        """``player``'s bid this round, or None. Secret until all bids are in."""
        return self._bids()[self.seat(player)]

    def has_bid(self, player: str) -> bool:
        return self.bid_of(player) is not None

    def waiting_for(self) -> list[str]:
        """Players who have not bid yet this round (empty unless bidding)."""
        if self.phase != BIDDING:
            return []
        return [p for p, bid in zip(self.players, self._bids(), strict=True) if bid is None]

    def face_up_cards(self) -> list[int]:
        """The cards everybody can see: the pool and the captured piles, ascending.

        Unlike :meth:`known_cards` this leaves out this round's secret bids, so
        a screen may use it to grey out ranks without giving a bid away.
        """
        cards = list(self.pool)
        for pile in self._captured():
            cards.extend(pile)
        return sorted(cards)

    def known_cards(self) -> list[int]:
        """Every card the companion can see: pool, captured piles and bids in."""
        cards = list(self.pool)
        for pile in self._captured():
            cards.extend(pile)
        cards.extend(bid for bid in self._bids() if bid is not None)
        return sorted(cards)

    def scores(self) -> dict[str, int]:
        """The scores as they would stand if the game ended now (V8)."""
        return final_scores(self.captured_piles(), self.pool)

    @property
    def outcome(self) -> Outcome | None:
        """The final scores, full sets and winners; None until the game is over."""
        if not self.is_over:
            return None
        piles = self.captured_piles()
        scores = final_scores(piles, self.pool)
        return Outcome(scores, full_sets(piles, self.pool), winners(scores))

    def _bids(self) -> tuple[int | None, ...]:
        return self.bids or (None,) * len(self.players)

    def _captured(self) -> tuple[tuple[int, ...], ...]:
        return self.captured or ((),) * len(self.players)


@dataclass(frozen=True)
class PlayerView:
    """What one phone may know of a Venture game: everything on the table,
    who has bid this round, and only the bids it is shown (its own, while the
    round is open). Built by :func:`player_view`; read like a :class:`State`.

    Fields that hold dicts (the rounds' resolutions, the outcome) are left
    out of the hash but not out of equality.
    """

    players: tuple[str, ...]
    drafting: bool
    phase: str
    slug_size: int
    hand_size: int
    round_number: int
    rounds_left: int
    pool: tuple[int, ...]
    recheck: tuple[str, ...]
    bidders: tuple[str, ...]  # who has bid this round, never what
    hands: tuple[int, ...]
    captured: tuple[tuple[int, ...], ...]
    shown_bids: tuple[tuple[str, int], ...]  # the bids this phone may see
    rounds: tuple[Round, ...] = field(hash=False)
    outcome: Outcome | None = field(hash=False)

    @property
    def last_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def waiting_for(self) -> list[str]:
        if self.phase != BIDDING:
            return []
        return [p for p in self.players if p not in self.bidders]

    def has_bid(self, player: str) -> bool:
        return player in self.bidders

    def bid_of(self, player: str) -> int | None:
        """``player``'s bid if this phone is shown it, else None."""
        return dict(self.shown_bids).get(player)

    def hand_counts(self) -> dict[str, int]:
        return dict(zip(self.players, self.hands, strict=True))

    def captured_piles(self) -> dict[str, list[int]]:
        return {p: list(c) for p, c in zip(self.players, self.captured, strict=True)}

    def face_up_cards(self) -> list[int]:
        return sorted([*self.pool, *(card for pile in self.captured for card in pile)])


def player_view(state: State, shown: frozenset[str]) -> PlayerView:
    """``state`` as a phone shown the hidden bids of ``shown`` may know it:
    the other bids of the open round are not in it in any form (LT3)."""
    bids = state._bids()
    return PlayerView(
        players=state.players,
        drafting=state.drafting,
        phase=state.phase,
        slug_size=state.slug_size,
        hand_size=state.hand_size,
        round_number=state.round_number,
        rounds_left=state.rounds_left,
        pool=tuple(state.pool),
        recheck=tuple(state.recheck),
        bidders=tuple(p for p, bid in zip(state.players, bids, strict=True) if bid is not None),
        hands=tuple(state.hand_counts()[p] for p in state.players),
        captured=state._captured(),
        shown_bids=tuple(
            (p, bid)
            for p, bid in zip(state.players, bids, strict=True)
            if bid is not None and p in shown
        ),
        rounds=state.rounds,
        outcome=state.outcome,
    )


def new_game(players: Iterable[str], *, drafting: bool = False) -> State:
    """A Venture game waiting for its slug.

    ``players`` are the names in seating order (3 to 8, distinct, not blank).
    ``drafting`` records that the table uses the drafting option (V9); the
    companion only shows it, it does not referee the draft.

    >>> game = new_game(["Ana", "Ben", "Cy"])
    >>> game.phase, game.slug_size, game.hand_size
    ('slug', 4, 17)

    Raises :class:`~companion.rules.errors.IllegalAction` for a wrong number
    of players, a blank or repeated name, or a name that is not a string.
    """
    names = tuple(players)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise IllegalAction(_not_a_name(name))
    folded = [name.strip().casefold() for name in names]
    for name in names:
        if folded.count(name.strip().casefold()) > 1:
            raise IllegalAction(
                refusal(
                    "venture.name.twice",
                    "%(name)s is at the table twice: give each player their own name",
                    name=name,
                )
            )
    _check_player_count(len(names))
    if not isinstance(drafting, bool):
        raise IllegalAction(
            refusal(
                "venture.drafting",
                "drafting is on or off (True or False), not %(drafting)s",
                drafting=repr(drafting),
            )
        )
    return State(
        players=names,
        drafting=drafting,
        captured=((),) * len(names),
        bids=(None,) * len(names),
    )


def apply(state: State, action: Action) -> State:
    """The state after ``action``; ``state`` is left as it was.

    * :class:`EnterSlug` once, first: exactly the slug size (V1).
    * :class:`Bid` once per player per round; :class:`ChangeBid` and
      :class:`WithdrawBid` while some bids are still missing. The bid that
      completes the round fires them all (V2-V7) and starts the next round;
      after the last round (one per card in hand, V1) the game is over.

    A bid must fit the deck together with the face-up cards (pool and
    captured piles), or it is refused; it is never checked against the other
    secret bids. When the last bid makes a set that cannot all be true (two
    players bid the only 1), nothing fires: the bids of that rank are taken
    back and their bidders are listed in ``State.recheck`` (VX1).

    Raises :class:`~companion.rules.errors.InvalidCard` for a card that is
    not a rank 1..10, :class:`~companion.rules.errors.TooManyCopies` when the
    entry would need more copies of a rank than the deck holds, and
    :class:`~companion.rules.errors.IllegalAction` for an unknown player, an
    action out of phase (bid before the slug, after the end, twice in a
    round, changing a bid never made) or an unknown action.
    """
    if isinstance(action, EnterSlug):
        return _enter_slug(state, action)
    if isinstance(action, Bid | ChangeBid | WithdrawBid):
        return _bid(state, action)
    raise IllegalAction(
        refusal("venture.action.unknown", "%(action)s is not a Venture action", action=repr(action))
    )


def _enter_slug(state: State, action: EnterSlug) -> State:
    if state.slug is not None:
        raise IllegalAction(
            refusal("venture.slug.again", "the slug is already entered; undo to correct it")
        )
    cards = action.cards
    if isinstance(cards, str | bytes) or not isinstance(cards, tuple | list):
        raise InvalidCard(
            refusal(
                "venture.slug.not-a-list",
                "the slug must be a list of cards, not %(cards)s",
                cards=repr(cards),
            )
        )
    slug_card = refusal("venture.card.slug", "a slug card")
    slug = tuple(_card(card, slug_card) for card in cards)
    need = state.slug_size
    if len(slug) != need:
        raise IllegalAction(
            refusal(
                "venture.slug.size",
                "the slug for %(players)s players is %(need)s cards, not %(entered)s",
                players=len(state.players),
                need=need,
                entered=len(slug),
            )
        )
    check_composition(slug)
    return replace(state, slug=slug, pool=tuple(sorted(slug)))


def _bid(state: State, action: Bid | ChangeBid | WithdrawBid) -> State:
    phase = state.phase
    if phase == SLUG:
        raise IllegalAction(
            refusal(
                "venture.bid.before-slug",
                "enter the slug first: nobody can bid before the pool is known",
            )
        )
    if phase == OVER:
        raise IllegalAction(
            refusal("venture.bid.over", "the game is over: there are no more bids to make")
        )
    seat = state.seat(action.player)
    player = state.players[seat]
    bids = list(state._bids())
    if isinstance(action, WithdrawBid):
        if bids[seat] is None:
            raise IllegalAction(
                refusal(
                    "venture.bid.none-to-take-back",
                    "%(player)s has no bid to take back this round",
                    player=player,
                )
            )
        bids[seat] = None
        return replace(state, bids=tuple(bids))
    card = _card(action.card, _whose_bid(player))
    if isinstance(action, Bid) and bids[seat] is not None:
        raise IllegalAction(
            refusal(
                "venture.bid.twice",
                "%(player)s has already bid this round; change that bid instead of bidding again",
                player=player,
            )
        )
    if isinstance(action, ChangeBid) and bids[seat] is None:
        raise IllegalAction(
            refusal(
                "venture.bid.none-to-change",
                "%(player)s has not bid this round, so there is no bid to change",
                player=player,
            )
        )
    bids[seat] = card
    _check_known(state, player, card)
    recheck = tuple(p for p in state.recheck if p != player)
    if any(bid is None for bid in bids):
        return replace(state, bids=tuple(bids), recheck=recheck)
    clashing = _clashing_bidders(state, bids)
    if clashing:
        # VX1: nothing is revealed; only the bidders concerned bid again.
        kept = tuple(None if p in clashing else b for p, b in zip(state.players, bids, strict=True))
        return replace(state, bids=kept, recheck=clashing)
    return _fire(replace(state, recheck=()), [b for b in bids if b is not None])


def _check_known(state: State, player: str, card: int) -> None:
    """A bid is checked only against what its bidder can see (VX1): the pool,
    the captured piles and the card itself, never the other secret bids, so a
    refusal tells the bidder nothing about anybody's hand."""
    try:
        check_composition([*state.face_up_cards(), card])
    except TooManyCopies:
        if card == 1:
            seen = refusal(
                "venture.bid.spent.one", "the only 1 is already in the pool or in a captured pile"
            )
        else:
            seen = refusal(
                "venture.bid.spent.all",
                "all %(card)s cards of rank %(card)s are already in the pool or in captured piles",
                card=card,
            )
        # "article" is English only ("a 7", "an 8"): other languages leave it out.
        raise TooManyCopies(
            refusal(
                "venture.bid.spent",
                "%(player)s cannot bid %(article)s %(card)s: %(seen)s",
                player=player,
                article=article(card),
                card=card,
                seen=seen,
            )
        ) from None


def _whose_bid(player: str) -> Message:
    return refusal("venture.card.bid", "%(player)s's bid", player=player)


def _clashing_bidders(state: State, bids: list[int | None]) -> tuple[str, ...]:
    """The bidders of every rank bid more often than the deck has copies left
    (VX1); empty when all the bids can be true together."""
    seen = Counter(state.face_up_cards())
    seen.update(b for b in bids if b is not None)
    over = {rank for rank, count in seen.items() if count > copies(rank)}
    return tuple(p for p, b in zip(state.players, bids, strict=True) if b in over)


def _fire(state: State, cards: list[int]) -> State:
    bids = dict(zip(state.players, cards, strict=True))
    result = resolve(state.pool, bids)
    piles = tuple(
        tuple(sorted((*pile, *result.captured[player])))
        for player, pile in zip(state.players, state._captured(), strict=True)
    )
    played = Round(
        number=len(state.rounds) + 1,
        pool=state.pool,
        bids=tuple(bids.items()),
        resolution=result,
    )
    return replace(
        state,
        pool=tuple(result.pool),
        captured=piles,
        bids=(None,) * len(state.players),
        rounds=(*state.rounds, played),
    )
