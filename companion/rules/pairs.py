"""Pairs and Continuous Pairs: the press-your-luck game of the Pairs deck.

Points are bad. Players take cards one at a time; drawing a rank already in
your own stack is a pair and scores that rank; instead of drawing you may fold
and score the lowest card in play. The first player to reach the losing score
loses, and nobody wins.

The companion cannot see the cards: people enter each face-up card as it is
dealt or drawn, and the referee works out the rest (who starts, pairs, scores,
whose turn, how many cards are left in the deck, when to reshuffle, the odds
of pairing). An entry that would need more copies of a rank than the deck
holds is refused and changes nothing.

The pieces a program needs:

* :func:`losing_score` — the target for a number of players (P1).
* :func:`new_game` / :func:`apply` and the actions :class:`Deal`,
  :class:`TieBreak`, :class:`Hit`, :class:`Fold`, :class:`Reshuffle` — a whole
  game as a state machine, so a table is its setup plus a log of actions.
* :func:`pair_odds` and :func:`describe_odds` — the chance that a hit pairs,
  counted the way P9 says, and the sentence that says how it was counted.
* :func:`fold_choices` and :func:`proposed_fold` — what a fold may take (P6,
  P7).

A short game of two players, Ana and Ben (losing score 31):

>>> game = new_game(["Ana", "Ben"])
>>> game.target, game.deck
(31, 50)
>>> game = play(game, [Deal("Ana", 4), Deal("Ben", 6)])
>>> game.phase, game.to_act
('play', 'Ana')
>>> game = apply(game, Hit("Ana", 9))
>>> game.stack("Ana"), game.to_act
((4, 9), 'Ben')
>>> pair_odds(game)  # Ben holds a 6: five unseen 6s among 52 unseen cards
Fraction(5, 52)
>>> game = apply(game, Hit("Ben", 6))
>>> game.last.describe()
'Ben paired 6s and scores 6'
>>> game.totals(), game.phase, game.deck
({'Ana': 0, 'Ben': 6}, 'deal', 46)

Players are named by the names the table gave them, in seating order; play
passes to the left, which is the next name in that order (P4).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Final

from .cards import DECK_SIZE, article, copies, not_a_card, parse_card
from .errors import IllegalAction, InvalidCard, RuleError, TooManyCopies
from .messages import Message, refusal, refusal_n

__all__ = [
    "ACTIONS",
    "BURN",
    "DEAL",
    "MAX_TARGET",
    "ODDS_NOTE",
    "OVER",
    "PLAY",
    "TIEBREAK",
    "Action",
    "Deal",
    "Event",
    "Fold",
    "Hit",
    "Reshuffle",
    "State",
    "TieBreak",
    "apply",
    "describe_odds",
    "fold_choices",
    "losing_score",
    "new_game",
    "odds_figure",
    "pair_odds",
    "play",
    "proposed_fold",
]

BURN: Final = 5
"""Cards burned face down from every fresh deck: at the start and at each reshuffle (P8)."""

MAX_TARGET: Final = 100
"""The highest losing score a table may set as a house rule (our ruling PR4)."""

DEAL: Final = "deal"
"""Phase: the round's face-up cards are being dealt, one per player."""
TIEBREAK: Final = "tiebreak"
"""Phase: players tied for the low card are dealt one more card each (P3)."""
PLAY: Final = "play"
"""Phase: players take turns to hit or fold."""
OVER: Final = "over"
"""Phase: someone reached the losing score (P2)."""

# P1: the table of losing scores; six or more players all use the last value.
_LOSING_SCORES: Final = {2: 31, 3: 21, 4: 16, 5: 13}
_LOSING_SCORE_MANY: Final = 11


def losing_score(players: int) -> int:
    """The losing score for ``players`` people at the table (P1).

    >>> [losing_score(n) for n in range(2, 9)]
    [31, 21, 16, 13, 11, 11, 11]

    Raises :class:`~companion.rules.errors.RuleError` (a ValueError) for
    fewer than 2 players or anything that is not a whole number.
    """
    if isinstance(players, bool) or not isinstance(players, int):
        raise RuleError(
            refusal(
                "pairs.players.not-a-number",
                "%(players)s is not a number of players",
                players=repr(players),
            )
        )
    if players < 2:
        raise RuleError(
            refusal(
                "pairs.players.few",
                "Pairs needs at least 2 players, not %(players)s",
                players=players,
            )
        )
    return _LOSING_SCORES.get(players, _LOSING_SCORE_MANY)


# --------------------------------------------------------------------------
# Actions: what people at the table report.


@dataclass(frozen=True)
class Deal:
    """``player`` is dealt the face-up ``card`` that opens their stack this round."""

    player: str
    card: int


@dataclass(frozen=True)
class TieBreak:
    """``player``, tied for the low card, is dealt ``card`` to break the tie (P3)."""

    player: str
    card: int


@dataclass(frozen=True)
class Hit:
    """``player`` takes a card from the deck and it is ``card``."""

    player: str
    card: int


@dataclass(frozen=True)
class Fold:
    """``player`` folds and takes a card in play for points (P6, P7).

    ``card`` None means the card the companion proposes (the lowest in play);
    ``owner`` None means the companion picks whose stack it comes from
    (:func:`proposed_fold`). In basic Pairs only the lowest rank may be taken.
    """

    player: str
    card: int | None = None
    owner: str | None = None


@dataclass(frozen=True)
class Reshuffle:
    """The deck ran out: the discards are shuffled into a new deck and 5 burned (P8)."""


Action = Deal | TieBreak | Hit | Fold | Reshuffle

ACTIONS: dict[str, type] = {cls.__name__: cls for cls in (Deal, TieBreak, Hit, Fold, Reshuffle)}


# --------------------------------------------------------------------------
# What just happened, for a screen to announce.


@dataclass(frozen=True)
class Event:
    """The last thing that happened, in data and (through :meth:`describe`) in words.

    ``kind`` is one of ``"dealt"``, ``"first"`` (low card decided),
    ``"first-by-seat"`` (a tie no card left can break, PR7), ``"tie"``
    (a tie for low card, more cards needed), ``"tiebreak-pair"`` (a tie-break
    card paired and was discarded), ``"hit"`` (no pair), ``"pair"``,
    ``"fold"`` and ``"reshuffle"``. ``count`` is the number of cards burned
    by a reshuffle.
    """

    kind: str
    player: str | None = None
    rank: int | None = None
    owner: str | None = None
    count: int = 0

    def describe(self) -> str:
        """One sentence for the table.

        >>> Event("fold", "Ana", 3, "Ben").describe()
        "Ana folded and takes Ben's 3 for 3 points"
        >>> Event("reshuffle", count=5).describe()
        'The discards were shuffled into a new deck and 5 cards burned'
        """
        who = self.player or ""
        a_rank = "a card" if self.rank is None else f"{article(self.rank)} {self.rank}"
        if self.kind == "dealt":
            return f"{who} was dealt {a_rank}"
        if self.kind == "first":
            return f"{who} has the low card ({self.rank}) and goes first"
        if self.kind == "first-by-seat":
            return (
                f"Tie for the low card ({self.rank}) that no card left can break: "
                f"{who}, first of the tied players in seat order, goes first"
            )
        if self.kind == "tie":
            return f"Tie for the low card ({self.rank}): the tied players get one more card each"
        if self.kind == "tiebreak-pair":
            return (
                f"{who}'s tie-break card {self.rank} paired: it is discarded "
                "(no score) and replaced"
            )
        if self.kind == "hit":
            return f"{who} drew {a_rank}: no pair"
        if self.kind == "pair":
            return f"{who} paired {self.rank}s and scores {self.rank}"
        if self.kind == "fold":
            whose = "their own" if self.owner in (None, self.player) else f"{self.owner}'s"
            points = "point" if self.rank == 1 else "points"
            return f"{who} folded and takes {whose} {self.rank} for {self.rank} {points}"
        if self.kind == "reshuffle":
            noun = "card" if self.count == 1 else "cards"
            return f"The discards were shuffled into a new deck and {self.count} {noun} burned"
        return self.kind


# --------------------------------------------------------------------------
# The state of a game.


@dataclass(frozen=True)
class State:
    """A game of Pairs (or Continuous Pairs) between two actions.

    Tuples aligned with ``players`` hold each player's stack (cards in play,
    in the order they came) and scoring cards. The deck and discard pile are
    counts: the companion knows how many cards they hold, and which face-up
    cards went to the discards since the last shuffle (``known_discards``),
    but never the burned cards. ``deck + discards + cards in play + scoring
    cards`` is always 55.
    """

    players: tuple[str, ...]
    continuous: bool
    target: int
    stacks: tuple[tuple[int, ...], ...]
    scoring: tuple[tuple[int, ...], ...]
    phase: str = DEAL
    turn: int | None = None
    contenders: tuple[int, ...] = ()
    tiebreak: tuple[tuple[int, int], ...] = ()
    deck: int = DECK_SIZE - BURN
    discards: int = BURN
    known_discards: tuple[int, ...] = ()
    round: int = 1
    loser: str | None = None
    last: Event | None = None

    # -- players ------------------------------------------------------------

    def seat(self, player: str) -> int:
        """The index of ``player`` in seating order; raises IllegalAction for a stranger."""
        if isinstance(player, str) and player in self.players:
            return self.players.index(player)
        raise IllegalAction(
            refusal(
                "pairs.player.stranger",
                "%(player)s is not playing at this table (players: %(players)s)",
                player=repr(player),
                players=", ".join(self.players),
            )
        )

    def stack(self, player: str) -> tuple[int, ...]:
        """``player``'s cards in play, in the order they came."""
        return self.stacks[self.seat(player)]

    def scoring_cards(self, player: str) -> tuple[int, ...]:
        """The cards ``player`` keeps for points, in the order they were scored."""
        return self.scoring[self.seat(player)]

    def total(self, player: str) -> int:
        """``player``'s points so far."""
        return sum(self.scoring_cards(player))

    def totals(self) -> dict[str, int]:
        """Every player's points, in seating order."""
        return {p: sum(cards) for p, cards in zip(self.players, self.scoring, strict=True)}

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def to_act(self) -> str | None:
        """Who the table waits for: the next player to be dealt, to break a tie, or to play.

        None when the game is over.
        """
        if self.phase == PLAY and self.turn is not None:
            return self.players[self.turn]
        waiting = self.waiting_for()
        return waiting[0] if waiting else None

    def waiting_for(self) -> list[str]:
        """Players still to receive a card in the deal or tie-break step, in seat order."""
        if self.phase == DEAL:
            return [p for p, s in zip(self.players, self.stacks, strict=True) if not s]
        if self.phase == TIEBREAK:
            done = {seat for seat, _ in self.tiebreak}
            return [self.players[s] for s in self.contenders if s not in done]
        return []

    def tied(self) -> list[str]:
        """The players in the current low-card tie-break (P3), in seat order."""
        return [self.players[s] for s in self.contenders]

    def tiebreak_cards(self) -> dict[str, int]:
        """The tie-break cards dealt so far in the current step (P3)."""
        return {self.players[seat]: card for seat, card in self.tiebreak}

    # -- cards ----------------------------------------------------------------

    def in_play(self) -> list[int]:
        """Every card in every stack, ascending."""
        return sorted(card for stack in self.stacks for card in stack)

    def scored(self) -> list[int]:
        """Every scoring card (out of circulation until the game ends), ascending."""
        return sorted(card for cards in self.scoring for card in cards)

    def seen(self) -> Counter[int]:
        """Cards in play and scoring cards by rank: what P9 calls seen."""
        return Counter(self.in_play()) + Counter(self.scored())

    def unseen(self) -> int:
        """How many cards are not seen (P9): in the deck, burned or discarded."""
        return DECK_SIZE - len(self.in_play()) - len(self.scored())

    @property
    def circulating(self) -> int:
        """Cards still in circulation: the 55 less the scoring cards (P8)."""
        return DECK_SIZE - len(self.scored())

    @property
    def can_draw(self) -> bool:
        """Whether a card can be drawn now or after a reshuffle."""
        return self.deck > 0 or self.discards > 0

    @property
    def reshuffle_due(self) -> bool:
        """The deck is empty and there are discards to shuffle before the next card (P8)."""
        return self.phase != OVER and self.deck == 0 and self.discards > 0

    def must_hit(self, player: str) -> bool:
        """Whether ``player`` may not fold: Continuous, empty stack, a card to draw (P7).

        With nothing left to draw at all, even an empty stack may fold (PR6).
        """
        return self.continuous and not self.stack(player) and self.can_draw

    def used_up(self) -> tuple[int, ...]:
        """Ranks that cannot come out of the deck now: every copy is in play, kept
        for scoring or known to be in the discards since the last shuffle."""
        out = Counter(self.in_play()) + Counter(self.scored()) + Counter(self.known_discards)
        return tuple(rank for rank in sorted(out) if out[rank] >= copies(rank))

    # Shortcuts to the module functions, for templates and other front ends.

    def fold_choices(self, player: str | None = None) -> list[tuple[str, int]]:
        """See :func:`fold_choices`."""
        return fold_choices(self, player)

    def proposed_fold(self, player: str | None = None) -> tuple[str, int] | None:
        """See :func:`proposed_fold`."""
        return proposed_fold(self, player)

    def pair_odds(self, player: str | None = None) -> Fraction:
        """See :func:`pair_odds`."""
        return pair_odds(self, player)

    def odds_figure(self, player: str | None = None) -> str:
        """See :func:`odds_figure`."""
        return odds_figure(self, player)

    @property
    def odds_note(self) -> str:
        """The P9 note to show next to the odds: :data:`ODDS_NOTE`."""
        return ODDS_NOTE


def new_game(
    players: Iterable[str], *, continuous: bool = False, target: int | None = None
) -> State:
    """A game waiting for the first round's face-up cards.

    ``players`` are the names in seating order (at least 2, distinct, not
    blank). ``continuous`` plays Continuous Pairs. ``target`` is the losing
    score; None uses the table of P1, a number is a house rule (1 to
    :data:`MAX_TARGET`). The deck starts at 50: 5 cards are burned (P8).

    >>> game = new_game(["Ana", "Ben", "Cy", "Di"], continuous=True)
    >>> game.target, game.phase, game.waiting_for()
    (16, 'deal', ['Ana', 'Ben', 'Cy', 'Di'])
    >>> new_game(["Ana", "Ben"], target=50).target
    50

    Raises :class:`~companion.rules.errors.RuleError` (a ValueError) for
    fewer than 2 players, a blank, repeated or non-string name, a target that
    is not a whole number from 1 to :data:`MAX_TARGET`, or ``continuous``
    that is not True or False.
    """
    if isinstance(players, str):
        raise RuleError(
            refusal(
                "pairs.players.string",
                "players must be a list of names, not the single string %(players)s",
                players=repr(players),
            )
        )
    names = tuple(players)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise RuleError(
                refusal("pairs.name.not-a-name", "%(name)s is not a player's name", name=repr(name))
            )
    folded = [name.strip().casefold() for name in names]
    for name in names:
        if folded.count(name.strip().casefold()) > 1:
            raise RuleError(
                refusal(
                    "pairs.name.twice",
                    "%(name)s is at the table twice: give each player their own name",
                    name=name,
                )
            )
    if len(names) > DECK_SIZE - BURN:
        raise RuleError(
            refusal(
                "pairs.players.many",
                "a deck of %(deck)s cards cannot deal to %(players)s players",
                deck=DECK_SIZE,
                players=len(names),
            )
        )
    default = losing_score(len(names))
    if target is None:
        target = default
    elif isinstance(target, bool) or not isinstance(target, int):
        raise RuleError(
            refusal(
                "pairs.target.not-a-number",
                "the losing score must be a whole number, not %(target)s",
                target=repr(target),
            )
        )
    elif not 1 <= target <= MAX_TARGET:
        raise RuleError(
            refusal(
                "pairs.target.range",
                "the losing score must be from 1 to %(most)s, not %(target)s",
                most=MAX_TARGET,
                target=target,
            )
        )
    if not isinstance(continuous, bool):
        raise RuleError(
            refusal(
                "pairs.continuous",
                "continuous is on or off (True or False), not %(continuous)s",
                continuous=repr(continuous),
            )
        )
    empty: tuple[tuple[int, ...], ...] = ((),) * len(names)
    return State(players=names, continuous=continuous, target=target, stacks=empty, scoring=empty)


# --------------------------------------------------------------------------
# Applying actions.


def apply(state: State, action: Action) -> State:
    """The state after ``action``; ``state`` is left as it was.

    * :class:`Deal` once per player at the start of a round (in basic Pairs
      every round, in Continuous only the first). The last face-up card
      decides who starts: the lowest card (P3).
    * :class:`TieBreak` for each player tied for the lowest card; a card that
      pairs the player's own stack is discarded and must be replaced.
    * :class:`Hit` and :class:`Fold` by the player whose turn it is (P4-P7).
    * :class:`Reshuffle` when the deck has run out (P8).

    The game ends the moment a total reaches the target (P2).

    Raises :class:`~companion.rules.errors.InvalidCard` for a card that is
    not a rank 1..10, :class:`~companion.rules.errors.TooManyCopies` when the
    card would need more copies of its rank than the deck holds (counting
    cards in play, scoring cards and face-up cards discarded since the last
    shuffle), and :class:`~companion.rules.errors.IllegalAction` for an
    unknown player, an action out of turn or out of phase, a fold the rules
    forbid, a card drawn from an empty deck, or an unknown action.
    """
    if state.phase == OVER:
        if state.loser:
            raise IllegalAction(
                refusal(
                    "pairs.over.lost",
                    "the game is over: %(loser)s reached the losing score; "
                    "start a new game to play on",
                    loser=state.loser,
                )
            )
        raise IllegalAction(refusal("pairs.over", "the game is over; start a new game to play on"))
    if isinstance(action, Deal):
        return _deal(state, action)
    if isinstance(action, TieBreak):
        return _tiebreak(state, action)
    if isinstance(action, Hit):
        return _hit(state, action)
    if isinstance(action, Fold):
        return _fold(state, action)
    if isinstance(action, Reshuffle):
        return _reshuffle(state)
    raise IllegalAction(
        refusal("pairs.action.unknown", "%(action)s is not a Pairs action", action=repr(action))
    )


def play(state: State, actions: Iterable[Action]) -> State:
    """Apply ``actions`` one after another (a replay of a table's log).

    Raises whatever :func:`apply` raises for the first action refused.
    """
    for action in actions:
        state = apply(state, action)
    return state


def _next_seat(state: State, seat: int) -> int:
    return (seat + 1) % len(state.players)  # P4: to the left = next in seating order


def _with_card(
    stacks: tuple[tuple[int, ...], ...], seat: int, card: int
) -> tuple[tuple[int, ...], ...]:
    return tuple(s + (card,) if i == seat else s for i, s in enumerate(stacks))


def _phase_words(state: State) -> Message:
    if state.phase == DEAL:
        return refusal(
            "pairs.phase.deal",
            "the round's face-up cards are being dealt (next: %(next)s)",
            next=str(state.to_act),
        )
    if state.phase == TIEBREAK:
        return refusal(
            "pairs.phase.tiebreak",
            "the tie for low card is being broken (next: %(next)s)",
            next=str(state.to_act),
        )
    return refusal("pairs.phase.turn", "it is %(next)s's turn", next=str(state.to_act))


# What a player may be refused to do: the words inside "Ana cannot hit yet".
_HIT = refusal("pairs.verb.hit", "hit")
_FOLD = refusal("pairs.verb.fold", "fold")
_BE_DEALT = refusal("pairs.verb.dealt", "be dealt a card")
_BE_DEALT_TIEBREAK = refusal("pairs.verb.tiebreak", "be dealt a tie-break card")


def _draw(state: State, player: str, card: object, verb: Message) -> int:
    """Check a card entered for ``player`` against the deck; return its rank."""
    if state.deck == 0:
        if state.discards > 0:
            raise IllegalAction(
                refusal(
                    "pairs.draw.reshuffle",
                    "%(player)s cannot %(verb)s: the deck is empty. Shuffle the discards, "
                    "burn %(burn)s cards, and record the reshuffle first",
                    player=player,
                    verb=verb,
                    burn=BURN,
                )
            )
        raise IllegalAction(
            refusal(
                "pairs.draw.none-left",
                "%(player)s cannot %(verb)s: no card is left to draw (every card is in play "
                "or kept for scoring)",
                player=player,
                verb=verb,
            )
        )
    if card is None or isinstance(card, bool) or not isinstance(card, int | str):
        raise InvalidCard(not_a_card(card))
    rank = parse_card(card)
    # PR1: face-up cards discarded since the last shuffle cannot be drawn again yet.
    in_play, scoring = Counter(state.in_play())[rank], Counter(state.scored())[rank]
    discarded = Counter(state.known_discards)[rank]
    if in_play + scoring + discarded + 1 > copies(rank):
        places = [
            place
            for count, place in (
                (in_play, refusal("pairs.out.in-play", "%(n)s in play", n=in_play)),
                (scoring, refusal("pairs.out.scoring", "%(n)s kept for scoring", n=scoring)),
                (
                    discarded,
                    refusal(
                        "pairs.out.discarded",
                        "%(n)s discarded since the last shuffle",
                        n=discarded,
                    ),
                ),
            )
            if count
        ]
        where = places[0]
        for place in places[1:]:
            where = refusal("pairs.out.list", "%(places)s, %(place)s", places=where, place=place)
        have = copies(rank)
        if have == 1:
            deck = refusal(
                "pairs.out.only-one", "there is only 1 card of rank 1 and it is already out"
            )
        else:
            deck = refusal(
                "pairs.out.all",
                "there are only %(have)s cards of rank %(rank)s and all are already out",
                have=have,
                rank=rank,
            )
        # "article" is English only ("a 7", "an 8"): other languages leave it out.
        raise TooManyCopies(
            refusal(
                "pairs.draw.spent",
                "%(player)s cannot get %(article)s %(rank)s: %(deck)s (%(where)s); check the card",
                player=player,
                article=article(rank),
                rank=rank,
                deck=deck,
                where=where,
            )
        )
    return rank


def _deal(state: State, action: Deal) -> State:
    seat = state.seat(action.player)
    if state.phase != DEAL:
        raise IllegalAction(
            refusal(
                "pairs.deal.now",
                "%(player)s cannot be dealt an opening card now: %(why)s",
                player=action.player,
                why=_phase_words(state),
            )
        )
    if state.stacks[seat]:
        raise IllegalAction(
            refusal(
                "pairs.deal.twice",
                "%(player)s already has a face-up card this round (%(card)s); undo to correct it",
                player=action.player,
                card=state.stacks[seat][0],
            )
        )
    rank = _draw(state, action.player, action.card, _BE_DEALT)
    stacks = _with_card(state.stacks, seat, rank)
    after = replace(
        state, stacks=stacks, deck=state.deck - 1, last=Event("dealt", action.player, rank)
    )
    if all(stacks):
        return _low_card(after, {i: s[0] for i, s in enumerate(stacks)})
    return after


def _low_card(state: State, cards: dict[int, int]) -> State:
    """P3: the lowest card starts; tied lowest players are dealt one more card each."""
    low = min(cards.values())
    tied = tuple(sorted(seat for seat, card in cards.items() if card == low))
    stuck = len(tied) > 1 and any(not _tiebreak_ranks_left(state, seat) for seat in tied)
    if len(tied) == 1 or stuck:
        # PR7: when a tied player can be dealt nothing but pairs, cards can
        # never settle the tie: the first of the tied players in seat order starts.
        return replace(
            state,
            phase=PLAY,
            turn=tied[0],
            contenders=(),
            tiebreak=(),
            last=Event("first-by-seat" if stuck else "first", state.players[tied[0]], low),
        )
    return replace(
        state, phase=TIEBREAK, turn=None, contenders=tied, tiebreak=(), last=Event("tie", rank=low)
    )


def _tiebreak_ranks_left(state: State, seat: int) -> set[int]:
    """The ranks still in circulation that would not pair ``seat``'s stack (PR7).

    In circulation: not in any stack now and not a scoring card, so in the
    deck, burned or discarded (a reshuffle brings those back).
    """
    seen = state.seen()
    return {
        rank
        for rank in range(1, 11)
        if copies(rank) > seen[rank] and rank not in state.stacks[seat]
    }


def _tiebreak(state: State, action: TieBreak) -> State:
    seat = state.seat(action.player)
    if state.phase != TIEBREAK:
        raise IllegalAction(
            refusal(
                "pairs.tiebreak.none",
                "%(player)s cannot be dealt a tie-break card: there is no tie for low card now",
                player=action.player,
            )
        )
    if seat not in state.contenders:
        raise IllegalAction(
            refusal(
                "pairs.tiebreak.not-tied",
                "%(player)s is not in the tie for low card (tied: %(tied)s)",
                player=action.player,
                tied=", ".join(state.tied()),
            )
        )
    dealt = state.tiebreak_cards()
    if action.player in dealt:
        raise IllegalAction(
            refusal(
                "pairs.tiebreak.twice",
                "%(player)s already has a tie-break card (%(card)s); waiting for %(waiting)s",
                player=action.player,
                card=dealt[action.player],
                waiting=", ".join(state.waiting_for()),
            )
        )
    rank = _draw(state, action.player, action.card, _BE_DEALT_TIEBREAK)
    if rank in state.stacks[seat]:
        # P3: a pair on the deal is discarded and replaced; it scores nothing.
        return replace(
            state,
            deck=state.deck - 1,
            discards=state.discards + 1,
            known_discards=tuple(sorted((*state.known_discards, rank))),
            last=Event("tiebreak-pair", action.player, rank),
        )
    after = replace(
        state,
        stacks=_with_card(state.stacks, seat, rank),
        deck=state.deck - 1,
        tiebreak=(*state.tiebreak, (seat, rank)),
        last=Event("dealt", action.player, rank),
    )
    if len(after.tiebreak) == len(after.contenders):
        # P3: compare only the new cards; tie-break cards stay in the stacks.
        return _low_card(after, dict(after.tiebreak))
    return after


def _check_turn(state: State, player: str, verb: Message) -> int:
    seat = state.seat(player)
    if state.phase != PLAY:
        raise IllegalAction(
            refusal(
                "pairs.turn.phase",
                "%(player)s cannot %(verb)s yet: %(why)s",
                player=player,
                verb=verb,
                why=_phase_words(state),
            )
        )
    if seat != state.turn:
        raise IllegalAction(
            refusal(
                "pairs.turn.other",
                "%(player)s cannot %(verb)s: it is %(next)s's turn",
                player=player,
                verb=verb,
                next=str(state.to_act),
            )
        )
    return seat


def _hit(state: State, action: Hit) -> State:
    seat = _check_turn(state, action.player, _HIT)
    rank = _draw(state, action.player, action.card, _HIT)
    drawn = replace(state, deck=state.deck - 1)
    if rank in state.stacks[seat]:
        # P5: a pair scores its rank; the drawn card is kept as the scoring card.
        return _score(drawn, seat, rank, drawn.stacks, Event("pair", action.player, rank))
    return replace(
        drawn,
        stacks=_with_card(state.stacks, seat, rank),
        turn=_next_seat(state, seat),  # P4
        last=Event("hit", action.player, rank),
    )


def fold_choices(state: State, player: str | None = None) -> list[tuple[str, int]]:
    """The cards a fold by ``player`` (default: the player to act) may take.

    Pairs of (owner, rank), lowest rank first; within a rank, the folder's
    own stack first, then the stacks to their left in order (PR2), so the
    first choice is :func:`proposed_fold`. Basic Pairs: only the lowest rank
    in play (P6); Continuous: every card in play (P7). Empty when no card is
    in play.

    Raises :class:`~companion.rules.errors.IllegalAction` for an unknown
    player or when nobody is to act.
    """
    seat = _folder(state, player)
    n = len(state.players)
    order = [(seat + k) % n for k in range(n)]
    held = [(rank, k, order[k]) for k in range(n) for rank in state.stacks[order[k]]]
    choices = [(state.players[seat], rank) for rank, _, seat in sorted(held)]
    if state.continuous or not choices:
        return choices
    low = min(rank for _, rank in choices)
    return [(owner, rank) for owner, rank in choices if rank == low]


def proposed_fold(state: State, player: str | None = None) -> tuple[str, int] | None:
    """The card the companion proposes for a fold: the lowest in play (P6, P7).

    Taken from the folder's own stack when they hold that rank, else from the
    first stack to their left that does (our ruling PR2). None when no card
    is in play.

    Raises :class:`~companion.rules.errors.IllegalAction` for an unknown
    player or when nobody is to act.
    """
    choices = fold_choices(state, player)
    return choices[0] if choices else None


def _folder(state: State, player: str | None) -> int:
    if player is not None:
        return state.seat(player)
    if state.phase != PLAY or state.turn is None:
        raise IllegalAction(
            refusal(
                "pairs.fold.nobody", "nobody is about to play: %(why)s", why=_phase_words(state)
            )
        )
    return state.turn


def _fold(state: State, action: Fold) -> State:
    seat = _check_turn(state, action.player, _FOLD)
    if state.must_hit(action.player):
        # P7: with an empty stack in Continuous Pairs the only move is a hit.
        raise IllegalAction(
            refusal(
                "pairs.fold.must-hit",
                "%(player)s has no cards in play, so must hit",
                player=action.player,
            )
        )
    choices = fold_choices(state, action.player)
    if not choices:
        raise IllegalAction(
            refusal(
                "pairs.fold.nothing",
                "%(player)s cannot fold: there is no card in play to take",
                player=action.player,
            )
        )
    if action.card is None:
        rank = min(rank for _, rank in choices)
    else:
        if isinstance(action.card, bool) or not isinstance(action.card, int | str):
            raise InvalidCard(
                refusal(
                    "pairs.fold.not-a-card",
                    "%(card)s is not a card of the Pairs deck",
                    card=repr(action.card),
                )
            )
        rank = parse_card(action.card)
    in_play = state.in_play()
    if rank not in in_play:
        raise IllegalAction(
            refusal(
                "pairs.fold.not-in-play",
                "%(player)s cannot take %(article)s %(rank)s: there is no %(rank)s in play",
                player=action.player,
                article=article(rank),
                rank=rank,
            )
        )
    if not state.continuous and rank != in_play[0]:
        # P6: basic Pairs takes the lowest card in play.
        raise IllegalAction(
            refusal(
                "pairs.fold.lowest",
                "%(player)s cannot take %(article)s %(rank)s: a fold takes the lowest card "
                "in play, which is %(article_low)s %(low)s",
                player=action.player,
                article=article(rank),
                rank=rank,
                article_low=article(in_play[0]),
                low=in_play[0],
            )
        )
    if action.owner is None:
        owner = next(o for o, r in choices if r == rank)
    else:
        owner = action.owner
        if rank not in state.stacks[state.seat(owner)]:
            raise IllegalAction(
                refusal(
                    "pairs.fold.owner",
                    "%(player)s cannot take %(article)s %(rank)s from %(owner)s: "
                    "%(owner)s has no %(rank)s in play",
                    player=action.player,
                    article=article(rank),
                    rank=rank,
                    owner=owner,
                )
            )
    owner_seat = state.seat(owner)
    pile = list(state.stacks[owner_seat])
    pile.remove(rank)
    stacks = tuple(tuple(pile) if i == owner_seat else s for i, s in enumerate(state.stacks))
    event = Event("fold", action.player, rank, owner)
    return _score(state, seat, rank, stacks, event)


def _score(
    state: State, seat: int, rank: int, stacks: tuple[tuple[int, ...], ...], event: Event
) -> State:
    """``seat`` keeps a ``rank`` card for points; the stacks in play go to the discards.

    Basic Pairs: every stack is discarded and a new round is dealt.
    Continuous: only the scorer's stack is discarded and play passes on (P7).
    """
    scoring = tuple(s + (rank,) if i == seat else s for i, s in enumerate(state.scoring))
    if state.continuous:
        gone = stacks[seat]
        kept = tuple(() if i == seat else s for i, s in enumerate(stacks))
    else:
        gone = tuple(card for stack in stacks for card in stack)
        kept = ((),) * len(stacks)
    after = replace(
        state,
        stacks=kept,
        scoring=scoring,
        discards=state.discards + len(gone),
        known_discards=tuple(sorted((*state.known_discards, *gone))),
        last=event,
    )
    player = state.players[seat]
    if sum(scoring[seat]) >= state.target:
        # P2: the game ends at once; this player loses and nobody wins.
        return replace(after, phase=OVER, turn=None, loser=player)
    if state.continuous:
        return replace(after, turn=_next_seat(state, seat))  # P4, P7, PR5: no new deal
    return replace(after, phase=DEAL, turn=None, round=state.round + 1)


def _reshuffle(state: State) -> State:
    if state.deck > 0:
        raise IllegalAction(
            refusal_n(
                "pairs.reshuffle.early",
                "the deck still has %(n)s card: reshuffle only when it runs out",
                "the deck still has %(n)s cards: reshuffle only when it runs out",
                "n",
                n=state.deck,
            )
        )
    if state.discards == 0:
        raise IllegalAction(
            refusal("pairs.reshuffle.nothing", "there are no discards to shuffle into a new deck")
        )
    # P8: burn 5 from the new deck; our ruling PR3: always leave one card to draw.
    burn = min(BURN, state.discards - 1)
    return replace(
        state,
        deck=state.discards - burn,
        discards=burn,
        known_discards=(),
        last=Event("reshuffle", count=burn),
    )


# --------------------------------------------------------------------------
# Odds (P9).

ODDS_NOTE: Final = (
    "Counted from what the table can see: the cards in play and the scoring cards. "
    "Burned and discarded cards count as unseen, so this is an estimate."
)
"""The sentence P9 asks to show next to the odds."""


def pair_odds(state: State, player: str | None = None) -> Fraction:
    """The chance that ``player``'s next hit pairs, as P9 counts it.

    (unseen copies of the ranks in their stack) / (unseen cards), where the
    seen cards are the cards in play and the scoring cards. ``player``
    defaults to the player whose turn it is. An empty stack cannot pair: 0.

    >>> game = play(new_game(["Ana", "Ben"]), [Deal("Ana", 2), Deal("Ben", 5)])
    >>> pair_odds(game), pair_odds(game, "Ben")
    (Fraction(1, 53), Fraction(4, 53))

    Raises :class:`~companion.rules.errors.IllegalAction` for an unknown
    player, or when ``player`` is None and it is nobody's turn.
    """
    hits, unseen = _odds_counts(state, _folder(state, player))
    return Fraction(hits, unseen) if unseen else Fraction(0)


def _odds_counts(state: State, seat: int) -> tuple[int, int]:
    """(unseen copies of the ranks in the stack at ``seat``, unseen cards) — P9."""
    seen = state.seen()
    hits = sum(copies(rank) - seen[rank] for rank in set(state.stacks[seat]))
    return hits, state.unseen()


def odds_figure(state: State, player: str | None = None) -> str:
    """The odds of :func:`pair_odds` as a short figure: ``"5 in 52 (10%)"``.

    Raises what :func:`pair_odds` raises.
    """
    hits, unseen, percent = _odds_parts(state, _folder(state, player))
    return f"{hits} in {unseen} ({percent})"


def _odds_parts(state: State, seat: int) -> tuple[int, int, str]:
    hits, unseen = _odds_counts(state, seat)
    odds = Fraction(hits, unseen) if unseen else Fraction(0)
    # Never rounds a real chance down to 0%: at least 1 in 55 when any copy is unseen.
    return hits, unseen, f"{round(odds * 100)}%"


def describe_odds(state: State, player: str | None = None) -> str:
    """The odds of :func:`pair_odds` in words, with the P9 note.

    >>> game = play(new_game(["Ana", "Ben"]), [Deal("Ana", 2), Deal("Ben", 5)])
    >>> print(describe_odds(game))
    Ana's chance of a pair on a hit: 1 in 53 unseen cards (2%). Counted from what the table \
can see: the cards in play and the scoring cards. Burned and discarded cards count as unseen, \
so this is an estimate.

    Raises what :func:`pair_odds` raises.
    """
    seat = _folder(state, player)
    hits, unseen, percent = _odds_parts(state, seat)
    return (
        f"{state.players[seat]}'s chance of a pair on a hit: {hits} in {unseen} unseen cards "
        f"({percent}). {ODDS_NOTE}"
    )
