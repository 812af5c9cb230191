"""Autumn Leaves solitaire (Toby Ord): a one-player card game, refereed in full.

The companion deals the cards itself (from a seed, S1), so unlike the table
games it knows every card, face down or not, and can judge each move.

Cards are small ints: ``suit * 16 + rank`` with rank 1 (Ace) to 13 (King) and
suit 0..3 for ♠ ♥ ♦ ♣. :func:`card_label` and :func:`parse_card` convert.

The layout (S1): six piles of 4, 4, 3, 3, 4, 4 cards, only each top card face
up, and 30 cards in hand, dealt six at a time (one on every pile, empty ones
too) whenever the player likes, five deals in all. A :class:`Layout` with
fewer ranks or suits gives small decks for tests and puzzles.

Moves (S2): the top card, or a run of consecutive descending cards of one
suit from the top, goes onto a pile whose top card is of the same suit and of
any higher rank, or onto an empty pile. A face-down card that becomes the top
turns face up. Won (S3) when each suit forms one pile from King down to Ace.

>>> game = new_game(seed=7)
>>> [len(p) for p in game.piles], game.deals_left, len(game.hand)
([4, 4, 3, 3, 4, 4], 5, 30)
>>> game = apply(game, Deal())
>>> [len(p) for p in game.piles], game.deals_left
([5, 5, 4, 4, 5, 5], 4)
>>> card_label(parse_card("10h")), card_label(parse_card("Q♣"))
('10♥', 'Q♣')
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import IllegalAction, InvalidCard, RuleError, TooManyCopies
from .messages import Message, Param, refusal, refusal_n

SUITS = "♠♥♦♣"
SUIT_LETTERS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_LABELS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES = (
    "", "Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King",
)  # fmt: skip


def make_card(rank: int, suit: int) -> int:
    """The card code of ``rank`` (1-13) of suit ``suit`` (0-3: ♠ ♥ ♦ ♣)."""
    if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= 13:
        raise InvalidCard(f"{rank!r} is not a rank: ranks go from 1 (Ace) to 13 (King)")
    if isinstance(suit, bool) or not isinstance(suit, int) or not 0 <= suit <= 3:
        raise InvalidCard(f"{suit!r} is not a suit: suits are 0-3 (♠ ♥ ♦ ♣)")
    return suit * 16 + rank


def rank_of(card: int) -> int:
    """The rank of a card code, 1 (Ace) to 13 (King)."""
    return card & 15


def suit_of(card: int) -> int:
    """The suit of a card code, 0-3 for ♠ ♥ ♦ ♣."""
    return card >> 4


def is_card(card: object) -> bool:
    """Whether ``card`` is a valid card code."""
    return (
        isinstance(card, int)
        and not isinstance(card, bool)
        and 0 <= card >> 4 <= 3
        and 1 <= card & 15 <= 13
    )


def card_label(card: int) -> str:
    """Short label: ``"A♠"``, ``"10♥"``, ``"K♣"``. Raises :class:`InvalidCard`."""
    if not is_card(card):
        raise InvalidCard(f"{card!r} is not a card code")
    return RANK_LABELS[rank_of(card)] + SUITS[suit_of(card)]


def card_words(card: int) -> str:
    """Spoken name: ``"Queen of hearts"``. Raises :class:`InvalidCard`."""
    if not is_card(card):
        raise InvalidCard(f"{card!r} is not a card code")
    return f"{RANK_NAMES[rank_of(card)]} of {SUIT_NAMES[suit_of(card)]}"


def parse_card(text: str) -> int:
    """Read a card: ``"QH"``, ``"10h"``, ``"T♥"``, ``"a s"``.

    Raises :class:`InvalidCard` naming the input when it is not a card.
    """
    if not isinstance(text, str):
        raise InvalidCard(f"{text!r} is not a card: write a rank and a suit, like 'QH' or '10♥'")
    cleaned = text.replace(" ", "").upper()
    if len(cleaned) < 2:
        raise InvalidCard(f"{text!r} is not a card: write a rank and a suit, like 'QH' or '10♥'")
    rank_text, suit_text = cleaned[:-1], cleaned[-1]
    suit = SUIT_LETTERS.find(suit_text)
    if suit < 0:
        suit = SUITS.find(suit_text)
    ranks = {label.upper(): i for i, label in enumerate(RANK_LABELS) if label}
    ranks["T"] = 10
    ranks["1"] = 1
    if suit < 0 or rank_text not in ranks:
        raise InvalidCard(f"{text!r} is not a card: write a rank and a suit, like 'QH' or '10♥'")
    return make_card(ranks[rank_text], suit)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Layout:
    """The shape of a game: deck size, starting piles and deals (S1).

    The standard game is ``Layout()``: 13 ranks x 4 suits, piles of
    4, 4, 3, 3, 4, 4 and five deals of six. Smaller decks keep the ranks
    Ace up to ``ranks``. Raises :class:`RuleError` when the cards do not add
    up (the piles plus the deals must use the whole deck).
    """

    ranks: int = 13
    suits: int = 4
    pile_sizes: tuple[int, ...] = (4, 4, 3, 3, 4, 4)
    deals: int = 5

    def __post_init__(self) -> None:
        if not _whole(self.ranks) or not 1 <= self.ranks <= 13:
            raise RuleError(f"a deck has 1 to 13 ranks, not {self.ranks!r}")
        if not _whole(self.suits) or not 1 <= self.suits <= 4:
            raise RuleError(f"a deck has 1 to 4 suits, not {self.suits!r}")
        sizes = tuple(self.pile_sizes)
        if not sizes or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in sizes):
            raise RuleError(f"pile sizes must be whole numbers of cards, not {self.pile_sizes!r}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 0:
            raise RuleError(f"the number of deals must be 0 or more, not {self.deals!r}")
        object.__setattr__(self, "pile_sizes", sizes)
        dealt = sum(sizes) + self.deals * len(sizes)
        if dealt != self.deck_size:
            raise RuleError(
                f"{self.deck_size} cards do not fit this layout: the piles take {sum(sizes)} "
                f"and {self.deals} deal{'' if self.deals == 1 else 's'} of {len(sizes)} "
                f"take {self.deals * len(sizes)}"
            )

    @property
    def deck_size(self) -> int:
        return self.ranks * self.suits

    @property
    def piles(self) -> int:
        return len(self.pile_sizes)

    def deck(self) -> tuple[int, ...]:
        """Every card of this deck, suit by suit, Ace up."""
        return tuple(s * 16 + r for s in range(self.suits) for r in range(1, self.ranks + 1))


STANDARD = Layout()


@dataclass(frozen=True)
class Move:
    """Move the top ``count`` cards of pile ``source`` onto pile ``target`` (S2).

    Piles are numbered from 0 (the leftmost) in the data; people see 1-6.
    """

    source: int
    target: int
    count: int = 1


@dataclass(frozen=True)
class Deal:
    """Deal one card from the hand onto every pile, empty ones too (S1)."""


ACTIONS: dict[str, type] = {"Move": Move, "Deal": Deal}


@dataclass(frozen=True)
class CardView:
    """One card as a screen shows it. ``pick`` is how many cards move when
    this one is picked up (it and the cards on it), or None if it cannot move;
    ``goes`` is whether some pile would take them now (S2)."""

    card: int
    label: str
    words: str
    suit: str
    face_up: bool
    pick: int | None
    goes: bool = False

    @property
    def red(self) -> bool:
        return self.suit in ("hearts", "diamonds")

    @property
    def spoken(self) -> Message:
        """:attr:`words` as a message, worded where it is shown."""
        return card_message(self.card)


def card_message(card: int) -> Message:
    """A card's spoken name as a message: "Queen of hearts" in English."""
    rank: Param = rank_of(card)
    names = {
        1: refusal("solitaire.rank.ace", "Ace"),
        11: refusal("solitaire.rank.jack", "Jack"),
        12: refusal("solitaire.rank.queen", "Queen"),
        13: refusal("solitaire.rank.king", "King"),
    }
    rank = names.get(rank_of(card), rank)
    suit = (
        refusal("solitaire.suit.spades", "spades"),
        refusal("solitaire.suit.hearts", "hearts"),
        refusal("solitaire.suit.diamonds", "diamonds"),
        refusal("solitaire.suit.clubs", "clubs"),
    )[suit_of(card)]
    return refusal("solitaire.card.name", "%(rank)s of %(suit)s", rank=rank, suit=suit)


@dataclass(frozen=True)
class State:
    """A solitaire position. Piles list their cards bottom → top; the bottom
    ``hidden[i]`` cards of pile ``i`` are face down; ``hand`` holds the cards
    still to deal, in the order they will come out."""

    layout: Layout
    piles: tuple[tuple[int, ...], ...]
    hidden: tuple[int, ...]
    hand: tuple[int, ...]
    seed: int | None = None

    @property
    def deals_left(self) -> int:
        return len(self.hand) // self.layout.piles

    @property
    def won(self) -> bool:
        return is_won(self)

    def top_run(self, pile: int) -> int:
        """How many cards from the top of ``pile`` may move together (S2)."""
        return run_length(self.piles[pile], self.hidden[pile])

    def pile_view(self, pile: int) -> tuple[CardView, ...]:
        """The cards of ``pile`` bottom → top as a front end draws them."""
        cards = self.piles[pile]
        run = self.top_run(pile)
        hidden = self.hidden[pile]
        views = []
        for i, card in enumerate(cards):
            pick = len(cards) - i if i >= len(cards) - run else None
            goes = pick is not None and any(
                can_move(self, pile, target, pick) for target in range(self.layout.piles)
            )
            views.append(
                CardView(
                    card=card,
                    label=card_label(card),
                    words=card_words(card),
                    suit=SUIT_NAMES[suit_of(card)],
                    face_up=i >= hidden,
                    pick=pick,
                    goes=goes,
                )
            )
        return tuple(views)

    @property
    def face_down_count(self) -> int:
        return sum(self.hidden)

    def face_up(self, pile: int) -> tuple[int, ...]:
        """The face-up cards of ``pile``, bottom → top."""
        return self.piles[pile][self.hidden[pile] :]


@dataclass(frozen=True)
class PlayerView:
    """What the player may see of a position: the face-up cards, how many
    are face down and how many deals are left, never which cards those are
    (the deal's order stays in the deck). Read like a :class:`State`."""

    layout: Layout
    seed: int | None
    piles: tuple[tuple[CardView, ...], ...]  # face-down cards carry no card
    face_down_count: int
    deals_left: int
    won: bool

    def pile_view(self, pile: int) -> tuple[CardView, ...]:
        return self.piles[pile]


_FACE_DOWN = CardView(card=0, label="", words="a face-down card", suit="", face_up=False, pick=None)


def player_view(state: State, shown: frozenset[str] = frozenset()) -> PlayerView:
    """``state`` as the player may see it (see :class:`PlayerView`)."""
    return PlayerView(
        layout=state.layout,
        seed=state.seed,
        piles=tuple(
            tuple(card if card.face_up else _FACE_DOWN for card in state.pile_view(pile))
            for pile in range(state.layout.piles)
        ),
        face_down_count=state.face_down_count,
        deals_left=state.deals_left,
        won=state.won,
    )


def run_length(pile: Sequence[int], hidden: int) -> int:
    """The length of the movable run on top of ``pile``: consecutive
    descending ranks of one suit, all face up (S2). 0 for an empty pile.

    >>> run_length([parse_card("9H"), parse_card("5H"), parse_card("4H")], 0)
    2
    >>> run_length([parse_card("5S"), parse_card("4H")], 0)
    1
    """
    n = len(pile)
    if n == 0 or hidden >= n:
        return 0
    k = 1
    while n - k - 1 >= hidden and pile[n - k - 1] == pile[n - k] + 1:
        k += 1
    return k


def new_game(seed: int, layout: Layout = STANDARD) -> State:
    """A deal from ``seed``: the same seed always gives the same deal (S1).

    Raises :class:`RuleError` for a seed that is not a whole number.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RuleError(f"a deal number is a whole number, not {seed!r}")
    cards = list(layout.deck())
    random.Random(seed).shuffle(cards)
    return _deal_out(cards, layout, seed)


def from_cards(cards: Iterable[int], layout: Layout = STANDARD) -> State:
    """A prepared deal: ``cards`` in the order they are laid out.

    The first ``pile_sizes[0]`` cards make pile 1 (bottom first, the last one
    face up), then pile 2 and so on; the rest is the hand, dealt from its
    start. Raises :class:`InvalidCard` for a card not of this deck and
    :class:`TooManyCopies` for a card listed twice or a missing one.
    """
    cards = list(cards)
    deck = set(layout.deck())
    seen: set[int] = set()
    for card in cards:
        if card not in deck:
            raise InvalidCard(f"{card!r} is not a card of this deck")
        if card in seen:
            raise TooManyCopies(f"the {card_words(card)} is listed twice: each card is unique")
        seen.add(card)
    if len(cards) != layout.deck_size:
        missing = sorted(deck - seen)
        raise TooManyCopies(
            f"the deal lists {len(cards)} cards but the deck has {layout.deck_size}"
            + (f" (missing: {', '.join(card_label(c) for c in missing)})" if missing else "")
        )
    return _deal_out(cards, layout, None)


def from_position(
    piles: Sequence[Sequence[int]],
    hidden: Sequence[int] | None = None,
    hand: Sequence[int] = (),
    layout: Layout = STANDARD,
) -> State:
    """A position set up by hand (puzzles, tests): every card of the deck in
    exactly one place. ``hand`` must hold whole deals.

    Raises :class:`RuleError` when the position is not possible (wrong
    number of piles, a pile with every card face down, cards missing or twice).
    """
    n = layout.piles
    if len(piles) != n:
        raise RuleError(f"this layout has {n} piles, not {len(piles)}")
    hid = tuple(hidden) if hidden is not None else (0,) * n
    if len(hid) != n:
        raise RuleError(f"give a face-down count for each of the {n} piles")
    for i, (pile, h) in enumerate(zip(piles, hid, strict=True)):
        if h < 0 or (pile and h >= len(pile)) or (not pile and h):
            raise RuleError(f"pile {i + 1} must have its top card face up")
    if len(hand) % n:
        raise RuleError(f"the hand must hold whole deals of {n} cards, not {len(hand)} cards")
    everything = [c for p in piles for c in p] + list(hand)
    deck = set(layout.deck())
    bad = [c for c in everything if c not in deck]
    if bad:
        raise InvalidCard(f"{bad[0]!r} is not a card of this deck")
    if len(set(everything)) != len(everything):
        raise TooManyCopies("a card is in two places: each card is unique")
    if len(everything) != layout.deck_size:
        raise TooManyCopies(f"the position holds {len(everything)} cards, not {layout.deck_size}")
    return State(
        layout=layout,
        piles=tuple(tuple(p) for p in piles),
        hidden=hid,
        hand=tuple(hand),
    )


def _deal_out(cards: Sequence[int], layout: Layout, seed: int | None) -> State:
    piles: list[tuple[int, ...]] = []
    i = 0
    for size in layout.pile_sizes:
        piles.append(tuple(cards[i : i + size]))
        i += size
    return State(
        layout=layout,
        piles=tuple(piles),
        hidden=tuple(max(0, len(p) - 1) for p in piles),  # S1: only the top face up
        hand=tuple(cards[i:]),
        seed=seed,
    )


def can_move(state: State, source: int, target: int, count: int = 1) -> bool:
    """Whether :class:`Move` ``(source, target, count)`` is legal now (S2)."""
    try:
        _check_move(state, Move(source, target, count))
    except RuleError:
        return False
    return True


def _check_move(state: State, move: Move) -> None:
    n = state.layout.piles
    for name, value in (("source", move.source), ("target", move.target), ("count", move.count)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalAction(
                refusal(
                    "solitaire.move.not-whole",
                    "the %(name)s of a move must be a whole number, not %(value)s",
                    name=name,
                    value=repr(value),
                )
            )
    for value in (move.source, move.target):
        if not 0 <= value < n:
            raise IllegalAction(
                refusal(
                    "solitaire.move.no-pile",
                    "there is no pile %(pile)s: the piles are 1 to %(n)s",
                    pile=value + 1,
                    n=n,
                )
            )
    if move.source == move.target:
        raise IllegalAction(
            refusal(
                "solitaire.move.same-pile",
                "pile %(pile)s is already where the cards are",
                pile=move.source + 1,
            )
        )
    pile = state.piles[move.source]
    if not pile:
        raise IllegalAction(
            refusal(
                "solitaire.move.empty-pile",
                "pile %(pile)s is empty: there is nothing to move",
                pile=move.source + 1,
            )
        )
    if move.count < 1:
        raise IllegalAction(
            refusal(
                "solitaire.move.no-cards",
                "a move takes at least one card, not %(count)s",
                count=move.count,
            )
        )
    run = state.top_run(move.source)
    if move.count > run:
        face_up = len(pile) - state.hidden[move.source]
        if move.count > face_up:
            raise IllegalAction(
                refusal_n(
                    "solitaire.move.face-up",
                    "pile %(pile)s has only %(n)s face-up card",
                    "pile %(pile)s has only %(n)s face-up cards",
                    "n",
                    pile=move.source + 1,
                    n=face_up,
                )
            )
        gap_top, gap_below = pile[-run], pile[-run - 1]
        raise IllegalAction(
            refusal_n(
                "solitaire.move.run",
                "only the top %(n)s card of pile %(pile)s moves together: the %(below)s under "
                "the %(top)s does not continue the run (a run is one suit, each card one below "
                "the next)",
                "only the top %(n)s cards of pile %(pile)s move together: the %(below)s under "
                "the %(top)s does not continue the run (a run is one suit, each card one below "
                "the next)",
                "n",
                n=run,
                pile=move.source + 1,
                below=card_label(gap_below),
                top=card_label(gap_top),
            )
        )
    moving = pile[-move.count]
    dest = state.piles[move.target]
    if dest:
        top = dest[-1]
        if suit_of(top) != suit_of(moving):
            raise IllegalAction(
                refusal(
                    "solitaire.move.other-suit",
                    "the %(card)s cannot go on the %(top)s: cards go only onto their own suit",
                    card=card_label(moving),
                    top=card_label(top),
                )
            )
        if rank_of(top) <= rank_of(moving):
            raise IllegalAction(
                refusal(
                    "solitaire.move.lower",
                    "the %(card)s cannot go on the %(top)s: cards go only onto a higher card",
                    card=card_label(moving),
                    top=card_label(top),
                )
            )


def apply(state: State, action: Any) -> State:
    """The position after ``action`` (a :class:`Move` or :class:`Deal`).

    Never mutates ``state``. Raises :class:`IllegalAction` when S1/S2 forbid
    the action (no deals left, a gap in the run, a lower or other-suit
    target, a pile that does not exist), with a message saying why.
    """
    if isinstance(action, Deal):
        n = state.layout.piles
        if len(state.hand) < n:
            raise IllegalAction(
                refusal_n(
                    "solitaire.deal.none-left",
                    "no deals left: the %(n)s deal has been made",
                    "no deals left: all %(n)s deals have been made",
                    "n",
                    n=state.layout.deals,
                )
            )  # S1
        piles = tuple(p + (c,) for p, c in zip(state.piles, state.hand[:n], strict=True))
        return State(state.layout, piles, state.hidden, state.hand[n:], state.seed)
    if isinstance(action, Move):
        _check_move(state, action)
        new_piles = list(state.piles)
        hidden = list(state.hidden)
        s, t, k = action.source, action.target, action.count
        moving = new_piles[s][-k:]
        new_piles[s] = new_piles[s][:-k]
        new_piles[t] = new_piles[t] + moving
        if new_piles[s] and hidden[s] >= len(new_piles[s]):
            hidden[s] = len(new_piles[s]) - 1  # S2: the newly exposed card turns face up
        if not new_piles[s]:
            hidden[s] = 0
        return State(state.layout, tuple(new_piles), tuple(hidden), state.hand, state.seed)
    raise IllegalAction(
        refusal(
            "solitaire.action.unknown", "%(action)s is not a solitaire action", action=repr(action)
        )
    )


def legal_moves(state: State) -> list[Move | Deal]:
    """Every legal action (S1, S2): moves of each run length, then the deal.

    A finished game has none.
    """
    if is_won(state):
        return []
    result: list[Move | Deal] = list(_moves(state))
    if len(state.hand) >= state.layout.piles:
        result.append(Deal())
    return result


def _moves(state: State) -> Iterator[Move]:
    piles = state.piles
    for s, pile in enumerate(piles):
        run = state.top_run(s)
        for k in range(1, run + 1):
            moving = pile[-k]
            for t, dest in enumerate(piles):
                if t == s:
                    continue
                if not dest or (dest[-1] >> 4 == moving >> 4 and dest[-1] > moving):
                    yield Move(s, t, k)


def is_won(state: State) -> bool:
    """S3: each suit in one pile, King (the deck's top rank) down to Ace.

    Ruling of our own: a finished pile counts even if its bottom card was
    never turned up (it is in its place; the player would simply turn it).
    """
    if state.hand:
        return False
    full = state.layout.ranks
    complete = 0
    for pile in state.piles:
        if not pile:
            continue
        if len(pile) != full:
            return False
        top_suit = pile[0] >> 4
        if any(c != top_suit * 16 + full - i for i, c in enumerate(pile)):
            return False
        complete += 1
    return complete == state.layout.suits


def replay(state: State, actions: Iterable[Any]) -> State:
    """Apply ``actions`` in order; raises like :func:`apply` at the first bad one."""
    for action in actions:
        state = apply(state, action)
    return state


def describe(state: State, action: Move | Deal) -> str:
    """Words for an action in this position: ``"7♥ from pile 2 to pile 5"``."""
    return str(describe_message(state, action))


def describe_message(state: State, action: Move | Deal) -> Message:
    """:func:`describe` as a message with an id, worded where it is shown."""
    if isinstance(action, Deal):
        return refusal_n(
            "solitaire.describe.deal",
            "deal (%(n)s deal left now)",
            "deal (%(n)s deals left now)",
            "n",
            n=state.deals_left,
        )
    source, target = action.source + 1, action.target + 1
    pile = state.piles[action.source] if 0 <= action.source < len(state.piles) else ()
    if not pile or action.count < 1 or action.count > len(pile):
        return refusal(
            "solitaire.describe.count",
            "%(count)s from pile %(source)s to pile %(target)s",
            count=action.count,
            source=source,
            target=target,
        )
    first = card_label(pile[-action.count])
    what = first if action.count == 1 else f"{first}…{card_label(pile[-1])}"
    dest = state.piles[action.target] if 0 <= action.target < len(state.piles) else ()
    if dest:
        return refusal(
            "solitaire.describe.onto",
            "%(cards)s from pile %(source)s onto the %(top)s (pile %(target)s)",
            cards=what,
            source=source,
            top=card_label(dest[-1]),
            target=target,
        )
    return refusal(
        "solitaire.describe.empty",
        "%(cards)s from pile %(source)s to the empty space (pile %(target)s)",
        cards=what,
        source=source,
        target=target,
    )
