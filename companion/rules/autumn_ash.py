"""Autumn Ash: the pieces, the two colour progressions and the bag score.

Autumn Ash is a board game for two played with Looney pyramids. The companion
does not referee the board (it cannot see it, and the start diagram is lost:
X4); it keeps the race to 21: after a move that bags leaves, someone taps the
bagged pieces and the companion adds their points.

Pieces are ``(colour, pips)`` pairs. Pips are the size: a pawn (small) has 1,
a drone (medium) 2, a queen (large) 3 (X1).

>>> RAINBOW
('green', 'yellow', 'red', 'blue', 'black')
>>> next_colour("red")
'blue'
>>> bag_points([("red", 1), ("red", 2), ("red", 3)])
9
>>> bag_points([("black", 3), ("black", 3), ("black", 2)])
20
>>> race = new_game("Ana", "Ben")
>>> race = apply(race, Bag("Ana", (("blue", 3), ("blue", 2), ("blue", 1))))
>>> race.totals, race.winner
({'Ana': 12, 'Ben': 0}, None)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import IllegalAction, RuleError, TooManyCopies

# X1: the sizes.
PAWN, DRONE, QUEEN = 1, 2, 3
SIZE_NAMES: Mapping[int, str] = {PAWN: "pawn", DRONE: "drone", QUEEN: "queen"}
SIZE_ALIASES: Mapping[str, int] = {
    "pawn": PAWN,
    "small": PAWN,
    "drone": DRONE,
    "medium": DRONE,
    "queen": QUEEN,
    "large": QUEEN,
}

# X1: the two progressions, in the order a leaf changes.
RAINBOW: tuple[str, ...] = ("green", "yellow", "red", "blue", "black")
XENO: tuple[str, ...] = ("clear", "white", "orange", "cyan", "purple")
PROGRESSIONS: Mapping[str, tuple[str, ...]] = {"rainbow": RAINBOW, "xeno": XENO}
COLOURS: tuple[str, ...] = RAINBOW + XENO
BURNT_ASH: frozenset[str] = frozenset({"black", "purple"})

# X2: the once-per-move bonus of each colour bagged.
COLOUR_BONUS: Mapping[str, int] = {
    colour: {"red": 3, "orange": 3, "blue": 6, "cyan": 6, "black": 12, "purple": 12}.get(colour, 0)
    for colour in COLOURS
}

# X3
WINNING_TOTAL = 21

# Each colour comes as two trios (one pawn, drone and queen each); the second
# trio of the starting colours (green, clear) is removed at setup. Ruling of
# our own (see the README): a bag can never hold more pieces of a colour and
# size than the game has.
TRIOS: Mapping[str, int] = {colour: 1 if colour in ("green", "clear") else 2 for colour in COLOURS}

# Every bagged row is three or more pieces of one colour, so each colour in a
# move's bag appears at least this often (ruling of our own).
ROW_LENGTH = 3


class InvalidPiece(RuleError):
    """A piece that Autumn Ash does not have (unknown colour or size)."""


def piece_name(piece: tuple[str, int]) -> str:
    """Words for a piece: ``("red", 2)`` → ``"red drone"``."""
    colour, pips = check_piece(piece)
    return f"{colour} {SIZE_NAMES[pips]}"


def _unknown_colour(colour: object) -> InvalidPiece:
    return InvalidPiece(
        f"{colour!r} is not an Autumn Ash colour (the colours are {', '.join(COLOURS)})"
    )


def check_piece(piece: object) -> tuple[str, int]:
    """Return a valid ``(colour, pips)`` piece, normalised.

    The colour may be any case; the size may be its pips (1-3) or a name
    (pawn/small, drone/medium, queen/large). Raises :class:`InvalidPiece`
    naming the bad value otherwise.

    >>> check_piece(("Red", "queen"))
    ('red', 3)
    >>> check_piece(("pink", 1))
    Traceback (most recent call last):
    ...
    companion.rules.autumn_ash.InvalidPiece: 'pink' is not an Autumn Ash colour \
(the colours are green, yellow, red, blue, black, clear, white, orange, cyan, purple)
    """
    if not isinstance(piece, tuple | list) or len(piece) != 2:
        raise InvalidPiece(f"{piece!r} is not a piece: give a colour and a size, like ('red', 2)")
    colour, size = piece
    if not isinstance(colour, str) or colour.strip().lower() not in COLOURS:
        raise _unknown_colour(colour)
    colour = colour.strip().lower()
    pips: int
    if isinstance(size, str) and size.strip().lower() in SIZE_ALIASES:
        pips = SIZE_ALIASES[size.strip().lower()]
    elif isinstance(size, int) and not isinstance(size, bool) and size in SIZE_NAMES:
        pips = size
    else:
        raise InvalidPiece(
            f"{size!r} is not a piece size: a pawn has 1 pip, a drone 2 and a queen 3"
        )
    return colour, pips


def next_colour(colour: str) -> str | None:
    """The colour a leaf turns after ``colour`` (X1); None for burnt ash.

    Raises :class:`InvalidPiece` for an unknown colour.
    """
    for progression in (RAINBOW, XENO):
        if colour in progression:
            i = progression.index(colour)
            return progression[i + 1] if i + 1 < len(progression) else None
    raise _unknown_colour(colour)


def side_of(colour: str) -> str:
    """``"rainbow"`` or ``"xeno"``: whose pieces are this colour.

    Raises :class:`InvalidPiece` for an unknown colour.
    """
    if colour in RAINBOW:
        return "rainbow"
    if colour in XENO:
        return "xeno"
    raise _unknown_colour(colour)


@dataclass(frozen=True)
class BagScore:
    """A move's bag, scored (X2): pips plus one bonus per colour bagged."""

    pieces: tuple[tuple[str, int], ...]
    pips: int
    bonuses: tuple[tuple[str, int], ...]  # (colour, bonus) for each colour bagged, in X1 order

    @property
    def bonus(self) -> int:
        return sum(b for _, b in self.bonuses)

    @property
    def total(self) -> int:
        return self.pips + self.bonus

    def describe(self) -> str:
        """One line for the history: ``"3 pips + red 3 = 6"``."""
        parts = [f"{self.pips} pip{'s' if self.pips != 1 else ''}"]
        parts += [f"{colour} {bonus}" for colour, bonus in self.bonuses if bonus]
        return f"{' + '.join(parts)} = {self.total}"


def score_bag(pieces: Iterable[tuple[str, int]]) -> BagScore:
    """Score a move's bagged pieces with the breakdown (X2).

    Each listed piece counts once (a piece in two rows is listed once); each
    colour present adds its bonus once. Raises :class:`InvalidPiece` for a
    piece the game does not have and :class:`TooManyCopies` when the bag holds
    more pieces of one colour and size than exist (two of each, one of each for
    green and clear).
    """
    checked = tuple(sorted((check_piece(p) for p in pieces), key=_piece_order))
    counts = Counter(checked)
    for (colour, pips), n in counts.items():
        if n > TRIOS[colour]:
            have = TRIOS[colour]
            raise TooManyCopies(
                f"there {'is' if have == 1 else 'are'} only {have} {colour} "
                f"{SIZE_NAMES[pips]}{'' if have == 1 else 's'} in the game, not {n}"
            )
    colours = sorted({c for c, _ in checked}, key=COLOURS.index)
    return BagScore(
        pieces=checked,
        pips=sum(p for _, p in checked),
        bonuses=tuple((c, COLOUR_BONUS[c]) for c in colours),
    )


def bag_points(pieces: Iterable[tuple[str, int]]) -> int:
    """The points of one move's bagged pieces (X2): pips plus colour bonuses.

    ``pieces`` are ``(colour, pips)`` pairs, each bagged piece listed once.
    Raises :class:`InvalidPiece` (a ValueError) for an unknown colour or size
    and :class:`TooManyCopies` for more pieces of a kind than the game has.

    >>> bag_points([("orange", 1), ("orange", 1), ("orange", 3)])
    8
    >>> bag_points([])
    0
    """
    return score_bag(pieces).total


def _piece_order(piece: tuple[str, int]) -> tuple[int, int]:
    return COLOURS.index(piece[0]), -piece[1]


# --- the race to 21 -------------------------------------------------------


@dataclass(frozen=True)
class Bag:
    """``player`` bagged these pieces with one move."""

    player: str
    pieces: tuple[tuple[str, int], ...]


ACTIONS: dict[str, type] = {"Bag": Bag}


@dataclass(frozen=True)
class Race:
    """The state of an Autumn Ash race: who plays which side, the bags so far."""

    rainbow: str
    xeno: str
    bags: tuple[tuple[str, BagScore], ...] = ()
    target: int = WINNING_TOTAL

    # Reference data for front ends (a template can reach the state, not the module).
    progressions: ClassVar[Mapping[str, tuple[str, ...]]] = PROGRESSIONS
    bonus: ClassVar[Mapping[str, int]] = COLOUR_BONUS
    copies: ClassVar[Mapping[str, int]] = TRIOS
    sizes: ClassVar[Mapping[int, str]] = SIZE_NAMES

    def colours(self, player: str) -> tuple[str, ...]:
        """The colours ``player`` plays, in the order they change (X1)."""
        return PROGRESSIONS[self.side(player)]

    @property
    def last_bag(self) -> tuple[str, BagScore] | None:
        """The latest bag: (player, score), or None before the first."""
        return self.bags[-1] if self.bags else None

    @property
    def totals(self) -> dict[str, int]:
        """Each player's running total, by name."""
        running = dict.fromkeys(self.players, 0)
        for player, score in self.bags:
            running[player] += score.total
        return running

    @property
    def players(self) -> tuple[str, str]:
        return self.rainbow, self.xeno

    @property
    def winner(self) -> str | None:
        """The first player whose total reached the target (X3), else None."""
        running = dict.fromkeys(self.players, 0)
        for player, score in self.bags:
            running[player] += score.total
            if running[player] >= self.target:
                return player
        return None

    def side(self, player: str) -> str:
        """``"rainbow"`` or ``"xeno"``; raises :class:`IllegalAction` for a stranger."""
        if player == self.rainbow:
            return "rainbow"
        if player == self.xeno:
            return "xeno"
        raise IllegalAction(
            f"{player!r} is not playing this race ({self.rainbow} and {self.xeno} are)"
        )


def new_game(rainbow: str, xeno: str, *, target: int = WINNING_TOTAL) -> Race:
    """A race with ``rainbow`` playing green→black and ``xeno`` clear→purple.

    Raises :class:`RuleError` when the names are empty or the same.
    """
    if not rainbow.strip() or not xeno.strip():
        raise RuleError("both players need a name")
    if rainbow == xeno:
        raise RuleError(f"the two players need different names, not {rainbow!r} twice")
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise RuleError(f"the target must be a whole number of points above 0, not {target!r}")
    return Race(rainbow=rainbow, xeno=xeno, target=target)


def apply(race: Race, action: Any) -> Race:
    """The race after ``action``; never mutates ``race``.

    Raises :class:`IllegalAction` when the race is already won (X3), the
    player is not in it, or the bag is not one a move can make: empty, pieces
    of the other side's colours, or fewer than three of a colour (a bagged
    row is three or more of one colour); :class:`InvalidPiece` or
    :class:`TooManyCopies` for pieces the game does not have.
    """
    if not isinstance(action, Bag):
        raise IllegalAction(f"{action!r} is not an Autumn Ash action")
    winner = race.winner
    if winner is not None:
        raise IllegalAction(f"the race is over: {winner} reached {race.target}")  # X3
    side = race.side(action.player)
    score = score_bag(action.pieces)
    if not score.pieces:
        raise IllegalAction("tap the pieces that were bagged first: the bag is empty")
    own = PROGRESSIONS[side]
    foreign = sorted({c for c, _ in score.pieces if c not in own}, key=COLOURS.index)
    if foreign:
        raise IllegalAction(
            f"{action.player} plays {side} ({', '.join(own)}); "
            f"{', '.join(foreign)} {'is' if len(foreign) == 1 else 'are'} the other side's"
        )
    per_colour = Counter(c for c, _ in score.pieces)
    short = [c for c in own if 0 < per_colour[c] < ROW_LENGTH]
    if short:
        c = short[0]
        raise IllegalAction(
            f"only {per_colour[c]} {c} piece{'s' if per_colour[c] != 1 else ''} in the bag: "
            f"a bagged row has at least {ROW_LENGTH} pieces of one colour"
        )
    return Race(
        rainbow=race.rainbow,
        xeno=race.xeno,
        bags=(*race.bags, (action.player, score)),
        target=race.target,
    )
