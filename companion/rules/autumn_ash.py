"""Autumn Ash: the pieces, the two colour progressions and the bag score.

Autumn Ash is a board game for two played with Looney pyramids. The companion
has two modes. The *race* keeps only the score: after a move that bags leaves,
someone taps the bagged pieces and the companion adds their points. The
*board* referees the whole game on a 5x6 board (X5-X14): :class:`Position`
is a board with stacks, both stashes, the scores and whose turn it is;
:func:`legal_moves` lists every legal turn with its path; :func:`play` makes
one and bags the rows; every illegal turn raises :class:`IllegalMove` naming
the piece, the square and the reason. The start diagram of the text is lost
(X4): the players place the start trios themselves (X5).

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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from typing import Any, ClassVar

from .errors import IllegalAction, RuleError, TooManyCopies
from .messages import Message, Param, refusal, refusal_n

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

# XA8 (ours, from X8 and X11): a move bags only the moved piece's new colour,
# and a moved piece has always changed, so never into a start colour. A race
# bag is therefore one colour of the mover's side other than green or clear.
START_COLOURS: frozenset[str] = frozenset({"green", "clear"})


class InvalidPiece(RuleError):
    """A piece that Autumn Ash does not have (unknown colour or size)."""


# Every piece's name as a message, so a language can agree colour and size
# ("rote Drohne", "roter Bauer"); the catalogs read these literal calls.
_PIECE_WORDS: Mapping[tuple[str, int], Message] = {
    ("green", 1): refusal("autumn_ash.piece.green-pawn", "green pawn"),
    ("green", 2): refusal("autumn_ash.piece.green-drone", "green drone"),
    ("green", 3): refusal("autumn_ash.piece.green-queen", "green queen"),
    ("yellow", 1): refusal("autumn_ash.piece.yellow-pawn", "yellow pawn"),
    ("yellow", 2): refusal("autumn_ash.piece.yellow-drone", "yellow drone"),
    ("yellow", 3): refusal("autumn_ash.piece.yellow-queen", "yellow queen"),
    ("red", 1): refusal("autumn_ash.piece.red-pawn", "red pawn"),
    ("red", 2): refusal("autumn_ash.piece.red-drone", "red drone"),
    ("red", 3): refusal("autumn_ash.piece.red-queen", "red queen"),
    ("blue", 1): refusal("autumn_ash.piece.blue-pawn", "blue pawn"),
    ("blue", 2): refusal("autumn_ash.piece.blue-drone", "blue drone"),
    ("blue", 3): refusal("autumn_ash.piece.blue-queen", "blue queen"),
    ("black", 1): refusal("autumn_ash.piece.black-pawn", "black pawn"),
    ("black", 2): refusal("autumn_ash.piece.black-drone", "black drone"),
    ("black", 3): refusal("autumn_ash.piece.black-queen", "black queen"),
    ("clear", 1): refusal("autumn_ash.piece.clear-pawn", "clear pawn"),
    ("clear", 2): refusal("autumn_ash.piece.clear-drone", "clear drone"),
    ("clear", 3): refusal("autumn_ash.piece.clear-queen", "clear queen"),
    ("white", 1): refusal("autumn_ash.piece.white-pawn", "white pawn"),
    ("white", 2): refusal("autumn_ash.piece.white-drone", "white drone"),
    ("white", 3): refusal("autumn_ash.piece.white-queen", "white queen"),
    ("orange", 1): refusal("autumn_ash.piece.orange-pawn", "orange pawn"),
    ("orange", 2): refusal("autumn_ash.piece.orange-drone", "orange drone"),
    ("orange", 3): refusal("autumn_ash.piece.orange-queen", "orange queen"),
    ("cyan", 1): refusal("autumn_ash.piece.cyan-pawn", "cyan pawn"),
    ("cyan", 2): refusal("autumn_ash.piece.cyan-drone", "cyan drone"),
    ("cyan", 3): refusal("autumn_ash.piece.cyan-queen", "cyan queen"),
    ("purple", 1): refusal("autumn_ash.piece.purple-pawn", "purple pawn"),
    ("purple", 2): refusal("autumn_ash.piece.purple-drone", "purple drone"),
    ("purple", 3): refusal("autumn_ash.piece.purple-queen", "purple queen"),
}
_COLOUR_WORDS: Mapping[str, Message] = {
    "green": refusal("autumn_ash.colour.green", "green"),
    "yellow": refusal("autumn_ash.colour.yellow", "yellow"),
    "red": refusal("autumn_ash.colour.red", "red"),
    "blue": refusal("autumn_ash.colour.blue", "blue"),
    "black": refusal("autumn_ash.colour.black", "black"),
    "clear": refusal("autumn_ash.colour.clear", "clear"),
    "white": refusal("autumn_ash.colour.white", "white"),
    "orange": refusal("autumn_ash.colour.orange", "orange"),
    "cyan": refusal("autumn_ash.colour.cyan", "cyan"),
    "purple": refusal("autumn_ash.colour.purple", "purple"),
}
_SIZE_WORDS: Mapping[int, Message] = {
    1: refusal("autumn_ash.size.pawn", "pawn"),
    2: refusal("autumn_ash.size.drone", "drone"),
    3: refusal("autumn_ash.size.queen", "queen"),
}


def piece_message(colour: str, size: int) -> Message:
    """A piece's name as a message ("red drone" in English)."""
    return _PIECE_WORDS[(colour, size)]


def colour_message(colour: str) -> Message:
    """A colour's name as a message ("red" in English)."""
    return _COLOUR_WORDS[colour]


def size_message(size: int) -> Message:
    """A size's name as a message ("drone" in English)."""
    return _SIZE_WORDS[size]


def _article(words: object) -> str:
    """The English article of ``words`` alone ("an" for "orange drone")."""
    return "an" if str(words)[:1] in ("a", "e", "i", "o", "u") else "a"


def _joined(items: Iterable[Param], join: Callable[[Param, Param], Param]) -> Param:
    """Several names in one, each joined to those before it by ``join``."""
    found = list(items)
    return reduce(join, found[1:], found[0]) if found else ""


def _listed(items: Iterable[Param]) -> Param:
    """Several names in one: "red, blue" (a list, not a sentence)."""
    return _joined(
        items,
        lambda listed, item: refusal(
            "autumn_ash.list", "%(items)s, %(item)s", items=listed, item=item
        ),
    )


def _together(items: Iterable[Param]) -> Param:
    """Several names as one: "red and blue"."""
    return _joined(
        items,
        lambda listed, item: refusal(
            "autumn_ash.list.and", "%(items)s and %(item)s", items=listed, item=item
        ),
    )


def _formula(parts: Iterable[Param], joint: str, end: Param | None = None) -> Message:
    """Parts joined by a sign (``" + "``, ``"; "``): no words of a language of
    its own, so it has no id; each part is worded where it is shown."""
    names = {f"p{i}": part for i, part in enumerate(parts)}
    template = joint.join(f"%({name})s" for name in names)
    if end is not None:
        names["end"] = end
        template += " = %(end)s"
    return Message("", template, names)


def _unknown_colour(colour: object) -> InvalidPiece:
    return InvalidPiece(
        refusal(
            "autumn_ash.piece.colour-unknown",
            "%(colour)s is not an Autumn Ash colour (the colours are %(colours)s)",
            colour=repr(colour),
            colours=", ".join(COLOURS),
        )
    )


def _only_copies(piece: Message, have: int, wanted: int) -> Message:
    """There are only ``have`` copies of ``piece`` in the game, not ``wanted``."""
    return refusal_n(
        "autumn_ash.pieces.too-many",
        "there is only %(n)s %(piece)s in the game, not %(wanted)s",
        # English makes the plural with an "s" ("red pawns"); other languages
        # say it their own way around the piece's name.
        "there are only %(n)s %(piece)ss in the game, not %(wanted)s",
        "n",
        n=have,
        piece=piece,
        wanted=wanted,
    )


def _not_a_piece(text: object) -> Message:
    return refusal(
        "autumn_ash.piece.unreadable",
        "%(text)s is not a piece: write a colour and a size, like red drone",
        text=repr(text),
    )


def _not_a_side(text: object) -> Message:
    return refusal(
        "autumn_ash.side.unknown", "%(text)s is not a side: rainbow or xeno", text=repr(text)
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
        raise InvalidPiece(
            refusal(
                "autumn_ash.piece.not-a-pair",
                "%(piece)s is not a piece: give a colour and a size, like ('red', 2)",
                piece=repr(piece),
            )
        )
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
            refusal(
                "autumn_ash.piece.size-unknown",
                "%(size)s is not a piece size: a pawn has 1 pip, a drone 2 and a queen 3",
                size=repr(size),
            )
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
        return str(self.message())

    def message(self) -> Message:
        """:meth:`describe` as a message, worded where it is shown."""
        parts: list[Param] = [
            refusal_n("autumn_ash.bag.pips", "%(n)s pip", "%(n)s pips", "n", n=self.pips)
        ]
        parts += [
            refusal(
                "autumn_ash.bag.bonus",
                "%(colour)s %(bonus)s",
                colour=colour_message(colour),
                bonus=bonus,
            )
            for colour, bonus in self.bonuses
            if bonus
        ]
        return _formula(parts, " + ", self.total)


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
            raise TooManyCopies(_only_copies(piece_message(colour, pips), have, n))
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
    # The names as messages, worded where they are shown.
    colour_words: ClassVar[Mapping[str, Message]] = _COLOUR_WORDS
    size_words: ClassVar[Mapping[int, Message]] = _SIZE_WORDS
    piece_words: ClassVar[Mapping[tuple[str, int], Message]] = _PIECE_WORDS
    mode: ClassVar[str] = "race"

    def colours(self, player: str) -> tuple[str, ...]:
        """The colours ``player`` plays, in the order they change (X1)."""
        return PROGRESSIONS[self.side(player)]

    def bag_colours(self, player: str) -> tuple[str, ...]:
        """The colours a bag of ``player``'s can hold: all but the start colour (XA8)."""
        return tuple(c for c in self.colours(player) if c not in START_COLOURS)

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
            refusal(
                "autumn_ash.race.stranger",
                "%(player)s is not playing this race (%(rainbow)s and %(xeno)s are)",
                player=repr(player),
                rainbow=self.rainbow,
                xeno=self.xeno,
            )
        )


def new_game(rainbow: str, xeno: str, *, target: int = WINNING_TOTAL) -> Race:
    """A race with ``rainbow`` playing green→black and ``xeno`` clear→purple.

    Raises :class:`RuleError` when the names are empty or the same.
    """
    if not rainbow.strip() or not xeno.strip():
        raise RuleError(refusal("autumn_ash.players.no-name", "both players need a name"))
    if rainbow == xeno:
        raise RuleError(
            refusal(
                "autumn_ash.players.same-name",
                "the two players need different names, not %(name)s twice",
                name=repr(rainbow),
            )
        )
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise RuleError(
            refusal(
                "autumn_ash.target.not-a-number",
                "the target must be a whole number of points above 0, not %(target)s",
                target=repr(target),
            )
        )
    return Race(rainbow=rainbow, xeno=xeno, target=target)


def apply(state: Race | BoardGame, action: Any) -> Any:
    """The table after ``action``: a :class:`Race` takes :class:`Bag` actions,
    a :class:`BoardGame` takes :class:`SetUp`, :class:`Play` and :class:`Pass`.
    Never mutates ``state``. Raises :class:`IllegalAction` (or a subclass)
    when the action does not fit the mode or the rules; see
    :func:`apply_race` and :func:`apply_board`.
    """
    if isinstance(state, BoardGame):
        return apply_board(state, action)
    if isinstance(action, SetUp | Play | Pass):
        raise IllegalAction(
            refusal(
                "autumn_ash.race.no-board",
                "this table keeps only the score (the race mode): bag the pieces a move took",
            )
        )
    return apply_race(state, action)


def check_race_bag(pieces: Iterable[tuple[str, int]]) -> None:
    """Refuse a bag no single move can make (X8, X11, XA8).

    One move bags rows of the moved piece's new colour only (X11), so a bag
    holds one colour; the moved piece has changed (X8), so that colour is
    never a start colour (green, clear); and a row has at least three pieces.
    Raises :class:`IllegalAction` naming what is wrong.

    >>> check_race_bag([("red", 1), ("red", 2), ("red", 3)])
    >>> check_race_bag([("green", 1), ("green", 2), ("green", 3)])
    Traceback (most recent call last):
    ...
    companion.rules.errors.IllegalAction: green pieces are never bagged: a move bags the \
moved piece's new colour, and no piece changes into green (XA8)
    """
    checked = [check_piece(p) for p in pieces]
    per_colour = Counter(c for c, _ in checked)
    start = sorted((c for c in per_colour if c in START_COLOURS), key=COLOURS.index)
    if start:
        raise IllegalAction(
            refusal(
                "autumn_ash.race.start-colour",
                "%(colour)s pieces are never bagged: a move bags the moved piece's new colour, "
                "and no piece changes into %(colour)s (XA8)",
                colour=colour_message(start[0]),
            )
        )
    if len(per_colour) > 1:
        colours = sorted(per_colour, key=COLOURS.index)
        raise IllegalAction(
            refusal(
                "autumn_ash.race.two-colours",
                "one move bags one colour, the moved piece's new colour (X11), not %(colours)s "
                "together: enter each move's bag on its own",
                colours=_together(colour_message(c) for c in colours),
            )
        )
    for colour, n in per_colour.items():
        if n < ROW_LENGTH:
            raise IllegalAction(
                refusal_n(
                    "autumn_ash.race.short-row",
                    "only %(n)s %(colour)s piece in the bag: a bagged row has at least "
                    "%(least)s pieces of one colour",
                    "only %(n)s %(colour)s pieces in the bag: a bagged row has at least "
                    "%(least)s pieces of one colour",
                    "n",
                    n=n,
                    colour=colour_message(colour),
                    least=ROW_LENGTH,
                )
            )


def apply_race(race: Race, action: Any) -> Race:
    """The race after ``action``; never mutates ``race``.

    Raises :class:`IllegalAction` when the race is already won (X3), the
    player is not in it, or the bag is not one a move can make: empty, pieces
    of the other side's colours, or not one colour other than green and clear
    with at least three pieces (:func:`check_race_bag`); :class:`InvalidPiece` or
    :class:`TooManyCopies` for pieces the game does not have.
    """
    if not isinstance(action, Bag):
        raise IllegalAction(_not_an_action(action))
    winner = race.winner
    if winner is not None:
        raise IllegalAction(
            refusal(
                "autumn_ash.race.over",
                "the race is over: %(player)s reached %(target)s",
                player=winner,
                target=race.target,
            )
        )  # X3
    side = race.side(action.player)
    score = score_bag(action.pieces)
    if not score.pieces:
        raise IllegalAction(
            refusal(
                "autumn_ash.race.empty-bag",
                "tap the pieces that were bagged first: the bag is empty",
            )
        )
    own = PROGRESSIONS[side]
    foreign = sorted({c for c, _ in score.pieces if c not in own}, key=COLOURS.index)
    if foreign:
        raise IllegalAction(
            refusal_n(
                "autumn_ash.race.other-side",
                "%(player)s plays %(side)s (%(own)s); %(foreign)s is the other side's",
                "%(player)s plays %(side)s (%(own)s); %(foreign)s are the other side's",
                "n",
                n=len(foreign),
                player=action.player,
                side=side,
                own=_listed(colour_message(c) for c in own),
                foreign=_listed(colour_message(c) for c in foreign),
            )
        )
    check_race_bag(score.pieces)
    return Race(
        rainbow=race.rainbow,
        xeno=race.xeno,
        bags=(*race.bags, (action.player, score)),
        target=race.target,
    )


# --- the board referee (X5-X14) --------------------------------------------
#
# Squares are indexed 0..29: index = row * 5 + column, A1 = 0, E1 = 4, A6 = 25.
# A stack is a tuple of pieces, bottom first; only its last item (the top)
# moves, blocks and may be capped (X9, X10).

COLUMNS = "ABCDE"
ROWS = 6
SQUARE_COUNT = len(COLUMNS) * ROWS
START_COLOUR: Mapping[str, str] = {"rainbow": "green", "xeno": "clear"}
SIDES: tuple[str, str] = ("rainbow", "xeno")
SIZE_LETTERS: Mapping[int, str] = {PAWN: "P", DRONE: "D", QUEEN: "Q"}
SIZES: tuple[int, int, int] = (PAWN, DRONE, QUEEN)


class IllegalMove(IllegalAction):
    """A turn the board rules forbid; the message names the piece, the square and why."""


def _coords(index: int) -> tuple[int, int]:
    return index % len(COLUMNS), index // len(COLUMNS)


def _index(column: int, row: int) -> int | None:
    if 0 <= column < len(COLUMNS) and 0 <= row < ROWS:
        return row * len(COLUMNS) + column
    return None


@dataclass(frozen=True, order=True)
class Square:
    """One square of the 5x6 board: columns A-E, rows 1-6.

    >>> Square.parse("c3")
    Square('C3')
    >>> str(Square.parse("E6")), Square.parse("A1").index
    ('E6', 0)
    """

    index: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < SQUARE_COUNT:
            raise RuleError(
                refusal(
                    "autumn_ash.square.off-board",
                    "square number %(index)s is off the 5x6 board",
                    index=repr(self.index),
                )
            )

    @classmethod
    def parse(cls, text: str) -> Square:
        """``"C3"`` → the square; raises :class:`RuleError` naming the text otherwise."""
        name = text.strip().upper() if isinstance(text, str) else ""
        if len(name) == 2 and name[0] in COLUMNS and name[1].isdigit():
            found = _index(COLUMNS.index(name[0]), int(name[1]) - 1)
            if found is not None:
                return cls(found)
        raise RuleError(
            refusal(
                "autumn_ash.square.unknown",
                "%(text)s is not a square: columns are A-E and rows 1-6, like C3",
                text=repr(text),
            )
        )

    @property
    def name(self) -> str:
        column, row = _coords(self.index)
        return f"{COLUMNS[column]}{row + 1}"

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Square({self.name!r})"


SQUARES: tuple[Square, ...] = tuple(Square(i) for i in range(SQUARE_COUNT))
CORNERS: tuple[Square, ...] = tuple(Square.parse(n) for n in ("A1", "E1", "A6", "E6"))  # X6
_CORNER_INDICES = frozenset(c.index for c in CORNERS)


def _neighbours(index: int) -> tuple[int, ...]:
    column, row = _coords(index)
    steps = ((0, 1), (1, 0), (0, -1), (-1, 0))
    found = (_index(column + dc, row + dr) for dc, dr in steps)
    return tuple(i for i in found if i is not None)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(SQUARE_COUNT))
LINES: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))  # X11: the four lines


@dataclass(frozen=True, order=True)
class Piece:
    """One pyramid: a colour and a size in pips (X1).

    >>> Piece.parse("red drone"), str(Piece("cyan", 1)), Piece.parse("purple3").code
    (Piece('red drone'), 'cyan pawn', 'purple3')
    """

    colour: str
    size: int

    def __post_init__(self) -> None:
        check_piece((self.colour, self.size))
        if self.colour != self.colour.lower() or isinstance(self.size, bool):
            raise InvalidPiece(
                refusal(
                    "autumn_ash.piece.not-lower-case",
                    "write pieces as lower-case colour and pips, not %(piece)s",
                    piece=repr(self),
                )
            )

    @classmethod
    def parse(cls, text: str) -> Piece:
        """``"red drone"``, ``"red 2"``, ``"red2"`` or ``"red-2"`` → the piece.

        Raises :class:`InvalidPiece` naming the text otherwise.
        """
        if not isinstance(text, str):
            raise InvalidPiece(_not_a_piece(text))
        words = text.strip().lower().replace("-", " ").split()
        if len(words) == 1 and words[0][-1:].isdigit():
            words = [words[0][:-1], words[0][-1]]
        if len(words) != 2:
            raise InvalidPiece(_not_a_piece(text))
        colour, size = words
        colour, pips = check_piece((colour, int(size) if size.isdigit() else size))
        return cls(colour, pips)

    @property
    def side(self) -> str:
        return side_of(self.colour)

    @property
    def code(self) -> str:
        """The compact form used in position text: ``red2``."""
        return f"{self.colour}{self.size}"

    @property
    def is_burnt(self) -> bool:
        return self.colour in BURNT_ASH  # X12

    def __str__(self) -> str:
        return f"{self.colour} {SIZE_NAMES[self.size]}"

    @property
    def message(self) -> Message:
        """The piece's name as a message ("red drone" in English)."""
        return piece_message(self.colour, self.size)

    def __repr__(self) -> str:
        return f"Piece({str(self)!r})"


# Every piece of the game, in a fixed order: the stash is a count per kind.
KINDS: tuple[Piece, ...] = tuple(Piece(c, s) for c in COLOURS for s in SIZES)
_KIND_INDEX: Mapping[Piece, int] = {p: i for i, p in enumerate(KINDS)}
# X5: two trios of each colour, one of the start colours.
FULL_SET: tuple[int, ...] = tuple(TRIOS[p.colour] for p in KINDS)


def _other(side: str) -> str:
    return "xeno" if side == "rainbow" else "rainbow"


def _size_from_letter(letter: str, text: str) -> int:
    for size, mark in SIZE_LETTERS.items():
        if letter.upper() == mark:
            return size
    raise RuleError(
        refusal(
            "autumn_ash.move.size-letter",
            "%(text)s: %(letter)s is not a size; use P (pawn), D (drone) or Q (queen)",
            text=repr(text),
            letter=repr(letter),
        )
    )


@dataclass(frozen=True)
class Entry:
    """X6: a start-colour piece of ``size`` placed on the empty corner ``square``."""

    square: Square
    size: int

    def text(self) -> str:
        return f"{SIZE_LETTERS[self.size]}@{self.square}"


@dataclass(frozen=True)
class Move:
    """One turn: an optional entry (X6), then the piece on ``origin`` moves to
    ``destination`` and becomes a piece of the next colour of ``size`` (X7, X8).

    ``path`` lists the squares stepped on (the last is the destination); two
    moves that differ only in their path are the same move.

    >>> move = Move.parse("Q@A1 C3-C2-C1=D")
    >>> move.text(), str(move.origin), move.path
    ('Q@A1 C3-C2-C1=D', 'C3', (Square('C2'), Square('C1')))
    >>> move == Move.parse("q@a1 c3-c1=d")
    True
    """

    origin: Square
    destination: Square
    size: int
    entry: Entry | None = None
    path: tuple[Square, ...] = field(default=(), compare=False)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``"[Q@A1 ]C3[-C2]-C1=D"``; raises :class:`RuleError` naming the text."""
        if not isinstance(text, str) or not text.strip():
            raise RuleError(
                refusal(
                    "autumn_ash.move.unreadable",
                    "%(text)s is not a move: write it like C3-C1=D",
                    text=repr(text),
                )
            )
        words = text.strip().split()
        entry = None
        if len(words) == 2 and "@" in words[0]:
            letter, _, corner = words[0].partition("@")
            entry = Entry(Square.parse(corner), _size_from_letter(letter, text))
            words = words[1:]
        if len(words) != 1 or "=" not in words[0]:
            raise RuleError(
                refusal(
                    "autumn_ash.move.no-size",
                    "%(text)s is not a move: write it like C3-C1=D (D: the new size)",
                    text=repr(text),
                )
            )
        route, _, letter = words[0].partition("=")
        squares = [Square.parse(s) for s in route.split("-")]
        if len(squares) < 2:
            raise RuleError(
                refusal(
                    "autumn_ash.move.one-square",
                    "%(text)s is not a move: give where the piece starts and ends",
                    text=repr(text),
                )
            )
        path = tuple(squares[1:]) if len(squares) > 2 else ()
        return cls(squares[0], squares[-1], _size_from_letter(letter, text), entry, path)

    def text(self) -> str:
        route = [self.origin, *(self.path or (self.destination,))]
        move = f"{'-'.join(str(s) for s in route)}={SIZE_LETTERS[self.size]}"
        return f"{self.entry.text()} {move}" if self.entry else move

    def __str__(self) -> str:
        return self.text()


# X10: which sizes may cap a top piece of each size, by rule set.
CAPPERS: Mapping[bool, Mapping[int, frozenset[int]]] = {
    False: {QUEEN: frozenset(SIZES), DRONE: frozenset({PAWN}), PAWN: frozenset({DRONE, PAWN})},
    True: {QUEEN: frozenset(SIZES), DRONE: frozenset({DRONE, PAWN}), PAWN: frozenset({PAWN})},
}


def _cappers_in_words(size: int, beginner: bool) -> str:
    sizes = sorted(CAPPERS[beginner][size], reverse=True)
    if len(sizes) == len(SIZES):
        return "any piece"
    return " or ".join(f"a {SIZE_NAMES[s]}" for s in sizes)


def _capping_rule(size: int, beginner: bool) -> Message:
    """X10 for a top piece of ``size`` in words: which sizes may cap it."""
    cappers = CAPPERS[beginner][size]
    if size == PAWN:
        if cappers == {PAWN}:
            return refusal("autumn_ash.cap.pawn-by-pawn", "a pawn can only be capped by a pawn")
        return refusal(
            "autumn_ash.cap.pawn-by-two", "a pawn can only be capped by a drone or a pawn"
        )
    if size == DRONE:
        if cappers == {PAWN}:
            return refusal("autumn_ash.cap.drone-by-pawn", "a drone can only be capped by a pawn")
        return refusal(
            "autumn_ash.cap.drone-by-two", "a drone can only be capped by a drone or a pawn"
        )
    return refusal(
        "autumn_ash.cap.other",
        "%(article)s %(size)s can only be capped by %(cappers)s",
        article=_article(SIZE_NAMES[size]),
        size=size_message(size),
        cappers=_cappers_in_words(size, beginner),
    )


@dataclass(frozen=True)
class Position:
    """A board position: stacks, both stashes, the scores and whose turn it is.

    ``stacks`` has one tuple per square (index = row * 5 + column), bottom
    piece first. ``stash`` counts each kind of :data:`KINDS` not on the board
    (bagged pieces go back to the stash: X11). ``beginner`` plays X14.
    Text form: the rows from 6 down to 1 separated by ``/``, squares by ``,``,
    ``.`` for an empty square and ``red1+cyan2`` for a stack (bottom first),
    then whose turn, the scores ``rainbow-xeno`` and ``standard`` or ``beginner``.

    >>> p = Position.parse(".,.,clear3,.,./.,clear2,.,clear1,./.,.,.,.,./"
    ...                    ".,.,.,.,./.,green1,.,green2,./.,.,green3,.,. rainbow 0-0 standard")
    >>> Position.parse(str(p)) == p, len(legal_moves(p))
    (True, 70)
    """

    stacks: tuple[tuple[Piece, ...], ...]
    stash: tuple[int, ...]
    turn: str = "rainbow"
    scores: tuple[int, int] = (0, 0)
    beginner: bool = False
    target: int = WINNING_TOTAL

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read the text form (see the class); the stash is what the board leaves.

        Raises :class:`RuleError` naming the bad part: a row or square that is
        not one, more pieces of a kind than the game has, an unknown side.
        """
        if not isinstance(text, str):
            raise RuleError(
                refusal(
                    "autumn_ash.position.not-text", "%(text)s is not a position", text=repr(text)
                )
            )
        fields_ = text.split()
        if len(fields_) not in (1, 2, 3, 4):
            raise RuleError(
                refusal(
                    "autumn_ash.position.fields",
                    "%(text)s is not a position: rows, turn, scores, rules",
                    text=repr(text),
                )
            )
        rows = fields_[0].split("/")
        if len(rows) != ROWS:
            raise RuleError(
                refusal(
                    "autumn_ash.position.rows",
                    "a position has %(rows)s rows separated by '/', not %(given)s",
                    rows=ROWS,
                    given=len(rows),
                )
            )
        stacks: list[tuple[Piece, ...]] = [() for _ in range(SQUARE_COUNT)]
        for r, row_text in enumerate(rows):
            cells = row_text.split(",")
            if len(cells) != len(COLUMNS):
                raise RuleError(
                    refusal(
                        "autumn_ash.position.row",
                        "row %(row)s needs %(columns)s squares, not %(text)s",
                        row=ROWS - r,
                        columns=len(COLUMNS),
                        text=repr(row_text),
                    )
                )
            for c, cell in enumerate(cells):
                if cell != ".":
                    index = _index(c, ROWS - 1 - r)
                    assert index is not None
                    stacks[index] = tuple(Piece.parse(p) for p in cell.split("+"))
        turn = fields_[1].lower() if len(fields_) > 1 else "rainbow"
        if turn not in SIDES:
            raise RuleError(_not_a_side(fields_[1]))
        scores = (0, 0)
        if len(fields_) > 2:
            a, _, b = fields_[2].partition("-")
            if not (a.isdigit() and b.isdigit()):
                raise RuleError(
                    refusal(
                        "autumn_ash.position.score",
                        "%(text)s is not a score: write rainbow-xeno, like 3-0",
                        text=repr(fields_[2]),
                    )
                )
            scores = (int(a), int(b))
        rules = fields_[3].lower() if len(fields_) > 3 else "standard"
        if rules not in ("standard", "beginner"):
            raise RuleError(
                refusal(
                    "autumn_ash.position.rules",
                    "%(text)s is not a rule set: standard or beginner",
                    text=repr(fields_[3]),
                )
            )
        board = tuple(stacks)
        return cls(board, _stash_left(board), turn, scores, rules == "beginner")

    def text(self) -> str:
        rows = []
        for row in reversed(range(ROWS)):
            cells = []
            for column in range(len(COLUMNS)):
                index = _index(column, row)
                assert index is not None
                stack = self.stacks[index]
                cells.append("+".join(p.code for p in stack) if stack else ".")
            rows.append(",".join(cells))
        rules = "beginner" if self.beginner else "standard"
        return f"{'/'.join(rows)} {self.turn} {self.scores[0]}-{self.scores[1]} {rules}"

    def __str__(self) -> str:
        return self.text()

    def stack(self, square: Square | str) -> tuple[Piece, ...]:
        """The pieces on ``square``, bottom first."""
        return self.stacks[_square(square).index]

    def top(self, square: Square | str) -> Piece | None:
        stack = self.stack(square)
        return stack[-1] if stack else None

    def in_stash(self, piece: Piece) -> int:
        """How many pieces of this colour and size are in their owner's stash."""
        return self.stash[_KIND_INDEX[piece]]

    def stash_of(self, side: str) -> dict[Piece, int]:
        """``side``'s stash: every kind of its colours with its count (zeros included)."""
        return {p: self.stash[i] for i, p in enumerate(KINDS) if p.side == side}

    def score(self, side: str) -> int:
        return self.scores[SIDES.index(side)]

    @property
    def winner(self) -> str | None:
        """The side that reached the target (X3), or None."""
        for side, points in zip(SIDES, self.scores, strict=True):
            if points >= self.target:
                return side
        return None


def _square(square: Square | str) -> Square:
    return square if isinstance(square, Square) else Square.parse(square)


def _stash_left(stacks: tuple[tuple[Piece, ...], ...]) -> tuple[int, ...]:
    counts = list(FULL_SET)
    for stack in stacks:
        for piece in stack:
            counts[_KIND_INDEX[piece]] -= 1
    for i, n in enumerate(counts):
        if n < 0:
            have = FULL_SET[i]
            raise TooManyCopies(_only_copies(KINDS[i].message, have, have - n))
    return tuple(counts)


# --- setting up (X5) ---------------------------------------------------------

# A layout of our own, offered for convenience; the original diagram is lost (X4).
OUR_LAYOUT: tuple[tuple[str, str], ...] = (
    ("B2", "green pawn"),
    ("C1", "green queen"),
    ("D2", "green drone"),
    ("D5", "clear pawn"),
    ("C6", "clear queen"),
    ("B5", "clear drone"),
)


def start_position(
    placements: Iterable[tuple[str, str]], first: str = "rainbow", *, beginner: bool = False
) -> Position:
    """The position after the players placed their start trios (X5).

    ``placements`` are ``(square, piece)`` pairs: each side's pawn, drone and
    queen of its start colour, six different squares (ruling XA1: any
    squares, no stacks). Raises :class:`RuleError` naming what is wrong.
    """
    stacks: list[tuple[Piece, ...]] = [() for _ in range(SQUARE_COUNT)]
    seen: list[Piece] = []
    for square_text, piece_text in placements:
        square, piece = Square.parse(square_text), Piece.parse(piece_text)
        if piece.colour not in START_COLOUR.values():
            raise RuleError(
                refusal(
                    "autumn_ash.setup.not-a-start-piece",
                    "the %(piece)s cannot start on the board: each side starts with its "
                    "green or clear trio (X5)",
                    piece=piece.message,
                )
            )
        if piece in seen:
            raise RuleError(
                refusal(
                    "autumn_ash.setup.twice",
                    "the %(piece)s is placed twice: there is one of it (X5)",
                    piece=piece.message,
                )
            )
        if stacks[square.index]:
            raise RuleError(
                refusal(
                    "autumn_ash.setup.same-square",
                    "%(square)s already holds the %(piece)s: the start pieces go on six "
                    "different squares",
                    square=str(square),
                    piece=stacks[square.index][-1].message,
                )
            )
        seen.append(piece)
        stacks[square.index] = (piece,)
    missing = [Piece(c, s) for c in START_COLOUR.values() for s in SIZES if Piece(c, s) not in seen]
    if missing:
        raise RuleError(
            refusal(
                "autumn_ash.setup.missing",
                "place every start piece first: %(pieces)s missing",
                pieces=_listed([p.message for p in missing]),
            )
        )
    if first not in SIDES:
        raise RuleError(_not_a_side(first))
    board = tuple(stacks)
    return Position(board, _stash_left(board), first, (0, 0), beginner)


# --- moving (X6-X10) -------------------------------------------------------


def _entries(position: Position) -> list[Entry]:
    """X6: every optional entry open to the side to move."""
    start = START_COLOUR[position.turn]
    sizes = [s for s in SIZES if position.in_stash(Piece(start, s))]
    return [Entry(c, s) for c in CORNERS for s in sizes if not position.stacks[c.index]]


def _enter(position: Position, entry: Entry) -> Position:
    piece = Piece(START_COLOUR[position.turn], entry.size)
    corner = entry.square
    if corner not in CORNERS:
        raise IllegalMove(
            refusal(
                "autumn_ash.enter.not-a-corner",
                "a new piece enters on an empty corner (A1, E1, A6, E6), not %(square)s (X6)",
                square=str(corner),
            )
        )
    if not position.in_stash(piece):
        raise IllegalMove(
            refusal(
                "autumn_ash.enter.none-left",
                "there is no %(piece)s in the stash to enter at %(square)s (X6)",
                piece=piece.message,
                square=str(corner),
            )
        )
    if position.stacks[corner.index]:
        raise IllegalMove(
            refusal(
                "autumn_ash.enter.corner-taken",
                "the %(piece)s cannot enter at %(square)s: the corner holds the %(there)s (X6)",
                piece=piece.message,
                square=str(corner),
                there=position.stacks[corner.index][-1].message,
            )
        )
    stacks = list(position.stacks)
    stacks[corner.index] = (piece,)
    stash = list(position.stash)
    stash[_KIND_INDEX[piece]] -= 1
    return Position(tuple(stacks), tuple(stash), position.turn, position.scores,
                    position.beginner, position.target)  # fmt: skip


def _step_problem(position: Position, mover: Piece, start: int, end: int) -> Message | None:
    """Why ``mover`` may not step from ``start`` onto ``end`` (X9, X10; XA3), or None.

    Blocking uses the top pieces as they are at the start of the turn: the
    mover's own pieces never block it, and the board does not change during a
    move (the change comes after it).
    """
    stack = position.stacks[end]
    if stack:
        top = stack[-1]
        if mover.size not in CAPPERS[position.beginner][top.size]:
            return refusal(
                "autumn_ash.why.cap-size",
                "the %(mover)s cannot cap the %(top)s at %(square)s: %(rule)s (X10)",
                mover=mover.message,
                top=top.message,
                square=str(SQUARES[end]),
                rule=_capping_rule(top.size, position.beginner),
            )
        after = next_colour(mover.colour)
        if after is None or not position.in_stash(Piece(after, PAWN)):
            pawn: Param = piece_message(after, PAWN) if after else "?"
            return refusal(
                "autumn_ash.why.cap-none-left",
                "the %(mover)s cannot cap the %(top)s at %(square)s: it would become "
                "%(article)s %(pawn)s and the stash has none left (X10)",
                mover=mover.message,
                top=top.message,
                square=str(SQUARES[end]),
                article=_article(after),
                pawn=pawn,
            )
    side = mover.side
    if not position.beginner:  # X14: no blocking in the Beginner's game
        for near in NEIGHBOURS[end]:
            other = position.stacks[near][-1] if position.stacks[near] else None
            if other is None or other.side == side:
                continue
            if mover.size == QUEEN and other.size == PAWN:  # X9 pawn
                return refusal(
                    "autumn_ash.why.pawn-blocks",
                    "the %(mover)s cannot enter %(square)s: the %(other)s at %(near)s keeps "
                    "queens off the squares next to it (X9)",
                    mover=mover.message,
                    square=str(SQUARES[end]),
                    other=other.message,
                    near=str(SQUARES[near]),
                )
            if mover.size != PAWN and other.size == DRONE:  # X9 drone, head on
                (sc, sr), (ec, er), (dc, dr) = _coords(start), _coords(end), _coords(near)
                if (ec - sc, er - sr) == (dc - ec, dr - er):
                    return refusal(
                        "autumn_ash.why.drone-blocks",
                        "the %(mover)s cannot enter %(square)s: the %(other)s at %(near)s "
                        "blocks it head on (X9)",
                        mover=mover.message,
                        square=str(SQUARES[end]),
                        other=other.message,
                        near=str(SQUARES[near]),
                    )
    return None


def _movable_problem(position: Position, square: int) -> Message | None:
    """Why the piece on ``square`` cannot move at all this turn, or None."""
    stack = position.stacks[square]
    where = str(SQUARES[square])
    if not stack:
        return refusal("autumn_ash.why.empty", "there is no piece on %(square)s", square=where)
    piece = stack[-1]
    if piece.side != position.turn:
        return refusal(
            "autumn_ash.why.other-side",
            "the %(piece)s on %(square)s is %(owner)s's: it is %(turn)s's turn",
            piece=piece.message,
            square=where,
            owner=piece.side.capitalize(),
            turn=position.turn.capitalize(),
        )
    after = next_colour(piece.colour)
    if after is None:
        return refusal(
            "autumn_ash.why.burnt",
            "the %(piece)s on %(square)s is burnt ash: it never moves again (X12)",
            piece=piece.message,
            square=where,
        )
    if not any(position.in_stash(Piece(after, s)) for s in SIZES):
        return refusal(
            "autumn_ash.why.stash-empty",
            "the %(piece)s on %(square)s cannot move: it must become %(colour)s and the stash "
            "has no %(colour)s piece left (X8)",
            piece=piece.message,
            square=where,
            colour=colour_message(after),
        )
    return None


@dataclass(frozen=True)
class _Reach:
    """Where one piece can go: destination → path, and why the others are closed."""

    paths: Mapping[int, tuple[int, ...]]
    closed: Mapping[int, Message]


def _reach(position: Position, origin: int) -> _Reach:
    """X7: one or two orthogonal steps, never through an occupied square; a step
    onto a stack ends the move; never back to the start square (which also
    keeps a piece that left a corner off it this turn)."""
    mover = position.stacks[origin][-1]
    paths: dict[int, tuple[int, ...]] = {}
    closed: dict[int, tuple[int, Message]] = {}  # destination → (how far the path got, reason)

    def close(end: int, rank: int, reason: Message) -> None:
        if end not in closed or closed[end][0] < rank:
            closed[end] = (rank, reason)

    for first in NEIGHBOURS[origin]:
        problem = _step_problem(position, mover, origin, first)
        if problem:
            close(first, 2, problem)
            for second in NEIGHBOURS[first]:
                if second != origin:
                    close(second, 1, problem)
            continue
        paths.setdefault(first, (first,))
        if position.stacks[first]:
            for second in NEIGHBOURS[first]:
                if second != origin:
                    close(second, 1, refusal(
                        "autumn_ash.why.no-jump",
                        "the %(mover)s cannot pass %(square)s: it holds the %(top)s, and a "
                        "piece never jumps (X7)",
                        mover=mover.message,
                        square=str(SQUARES[first]),
                        top=position.stacks[first][-1].message,
                    ))  # fmt: skip
            continue
        for second in NEIGHBOURS[first]:
            if second == origin:
                continue
            problem = _step_problem(position, mover, first, second)
            if problem:
                close(second, 2, problem)
            else:
                paths.setdefault(second, (first, second))
    return _Reach(paths, {end: why for end, (_, why) in closed.items() if end not in paths})


def _sizes_for(position: Position, mover: Piece, destination: int) -> list[int]:
    """X8/X10: the sizes the moved piece may become on ``destination``."""
    after = next_colour(mover.colour)
    if after is None:
        return []
    if position.stacks[destination]:
        return [PAWN] if position.in_stash(Piece(after, PAWN)) else []  # X10: caps as a pawn
    return [s for s in SIZES if position.in_stash(Piece(after, s))]


def _pseudo_moves(position: Position, entry: Entry | None) -> list[Move]:
    """Every turn with this entry that X6-X12 allow (X13 not yet applied)."""
    board = _enter(position, entry) if entry else position
    moves = []
    for origin in range(SQUARE_COUNT):
        if _movable_problem(board, origin):
            continue
        mover = board.stacks[origin][-1]
        reach = _reach(board, origin)
        for destination, path in sorted(reach.paths.items()):
            for size in _sizes_for(board, mover, destination):
                moves.append(
                    Move(
                        SQUARES[origin],
                        SQUARES[destination],
                        size,
                        entry,
                        tuple(SQUARES[i] for i in path),
                    )  # fmt: skip
                )
    return moves


def _can_move(position: Position) -> bool:
    """Whether the side to move has any turn at all by X6-X12, entries included
    (XA6: X13 never takes a player's last moves away, so this is also "has a
    legal move")."""

    def any_first_step(board: Position) -> bool:
        for origin in range(SQUARE_COUNT):
            if _movable_problem(board, origin):
                continue
            mover = board.stacks[origin][-1]
            for first in NEIGHBOURS[origin]:
                if not _step_problem(board, mover, origin, first) and _sizes_for(
                    board, mover, first
                ):
                    return True
        return False

    return any_first_step(position) or any(
        any_first_step(_enter(position, e)) for e in _entries(position)
    )


@dataclass(frozen=True)
class TurnResult:
    """What one turn did: the position after it, the bag and the words for it."""

    before: Position
    move: Move | None  # None: the player passed (X13)
    position: Position
    bagged: tuple[tuple[Square, Piece], ...] = ()
    bag: BagScore | None = None
    moved: Piece | None = None
    became: Piece | None = None

    def describe(self) -> str:
        """The turn in words: ``"yellow queen C3→C2→C1, now a red drone; bagged …"``."""
        return str(self.message())

    def message(self) -> Message:
        """:meth:`describe` as a message, worded where it is shown."""
        if self.move is None or self.moved is None or self.became is None:
            return refusal("autumn_ash.turn.passed", "no legal move: passed (X13)")
        parts: list[Param] = []
        if self.move.entry:
            entered = Piece(START_COLOUR[self.before.turn], self.move.entry.size)
            parts.append(
                refusal(
                    "autumn_ash.turn.entered",
                    "entered %(article)s %(piece)s at %(square)s",
                    article=_article(entered),
                    piece=entered.message,
                    square=str(self.move.entry.square),
                )
            )
        route = "→".join(str(s) for s in (self.move.origin, *self.move.path))
        capped = self.before.stacks[self.move.destination.index]
        if capped:
            parts.append(
                refusal(
                    "autumn_ash.turn.capped",
                    "%(piece)s %(route)s capping the %(capped)s, now %(article)s %(became)s",
                    piece=self.moved.message,
                    route=route,
                    capped=capped[-1].message,
                    article=_article(self.became),
                    became=self.became.message,
                )
            )
        else:
            parts.append(
                refusal(
                    "autumn_ash.turn.moved",
                    "%(piece)s %(route)s, now %(article)s %(became)s",
                    piece=self.moved.message,
                    route=route,
                    article=_article(self.became),
                    became=self.became.message,
                )
            )
        if self.bag:
            where = sorted({str(s) for s, _ in self.bagged})
            parts.append(
                refusal(
                    "autumn_ash.turn.bagged",
                    "bagged %(n)s %(colour)s at %(squares)s: %(score)s",
                    n=len(self.bagged),
                    colour=colour_message(self.became.colour),
                    squares=", ".join(where),
                    score=self.bag.message(),
                )
            )
        return _formula(parts, "; ")


def _after(position: Position, move: Move) -> TurnResult:
    """Make a turn already known to be possible: enter, move, change (X8), bag (X11)."""
    board = _enter(position, move.entry) if move.entry else position
    origin, destination = move.origin.index, move.destination.index
    stacks = list(board.stacks)
    stash = list(board.stash)
    moved = stacks[origin][-1]
    colour = next_colour(moved.colour)
    assert colour is not None
    became = Piece(colour, move.size)
    stacks[origin] = stacks[origin][:-1]
    stacks[destination] = (*stacks[destination], became)
    stash[_KIND_INDEX[moved]] += 1  # X8: the old piece goes back to the stash
    stash[_KIND_INDEX[became]] -= 1
    bagged = _bagged_squares(stacks, destination, colour)
    taken: list[tuple[Square, Piece]] = []
    for square in sorted(bagged):
        kept = []
        for piece in stacks[square]:
            if piece.colour == colour:  # X11: every piece of the colour on a bagged square
                taken.append((SQUARES[square], piece))
                stash[_KIND_INDEX[piece]] += 1
            else:
                kept.append(piece)  # whatever was above drops down
        stacks[square] = tuple(kept)
    bag = score_bag((p.colour, p.size) for _, p in taken) if taken else None
    scores = list(board.scores)
    if bag:
        scores[SIDES.index(board.turn)] += bag.total
    after = Position(tuple(stacks), tuple(stash), _other(board.turn),
                     (scores[0], scores[1]), board.beginner, board.target)  # fmt: skip
    return TurnResult(position, move, after, tuple(taken), bag, moved, became)


def _bagged_squares(stacks: list[tuple[Piece, ...]], square: int, colour: str) -> set[int]:
    """X11, XA7: the squares of every line of three or more through ``square`` where each
    square holds ``colour`` at any level, and ``square`` itself if its stack holds
    three or more pieces of ``colour``."""

    def has(index: int) -> bool:
        return any(p.colour == colour for p in stacks[index])

    found: set[int] = set()
    column, row = _coords(square)
    for dc, dr in LINES:
        run = [square]
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while (i := _index(c, r)) is not None and has(i):
                run.append(i)
                c, r = c + sign * dc, r + sign * dr
        if len(run) >= ROW_LENGTH:
            found.update(run)
    if sum(p.colour == colour for p in stacks[square]) >= ROW_LENGTH:
        found.add(square)
    return found


def _stalls(result: TurnResult) -> bool:
    """X13: the turn leaves the opponent without a legal move (a winning turn never does:
    the game is over; ruling XA4)."""
    return result.position.winner is None and not _can_move(result.position)


def _all_pseudo(position: Position) -> list[Move]:
    moves = _pseudo_moves(position, None)
    for entry in _entries(position):
        moves += _pseudo_moves(position, entry)
    return moves


@lru_cache(maxsize=64)
def _legal(position: Position) -> tuple[Move, ...]:
    if position.winner:
        return ()
    candidates = _all_pseudo(position)
    fair = [m for m in candidates if not _stalls(_after(position, m))]
    return tuple(fair if fair else candidates)  # X13: unless every move stalls


def legal_moves(position: Position) -> list[Move]:
    """Every legal turn for the side to move (X6-X14), each with one path.

    A turn is an optional entry plus one move and the new size; turns that
    differ only in the path are listed once (XA2). Empty when the game is won or
    the player must pass (X13).
    """
    return list(_legal(position))


def play(position: Position, move: Move | None) -> TurnResult:
    """Make one turn (``None`` passes); raises :class:`IllegalMove` naming the
    piece, the square and the reason when the rules forbid it."""
    if position.winner:
        raise IllegalMove(
            refusal(
                "autumn_ash.play.over",
                "the game is over: %(side)s reached %(target)s (X3)",
                side=position.winner.capitalize(),
                target=position.target,
            )
        )
    if move is None:
        if _can_move(position):
            raise IllegalMove(
                refusal(
                    "autumn_ash.play.no-pass",
                    "%(side)s has a legal move, so cannot pass (X13)",
                    side=position.turn.capitalize(),
                )
            )
        flipped = Position(position.stacks, position.stash, _other(position.turn),
                           position.scores, position.beginner, position.target)  # fmt: skip
        return TurnResult(position, None, flipped)
    board = _enter(position, move.entry) if move.entry else position
    problem = why_not_message(board, move.origin, move.destination)
    if problem:
        raise IllegalMove(problem)
    mover = board.stacks[move.origin.index][-1]
    sizes = _sizes_for(board, mover, move.destination.index)
    if move.size not in sizes:
        after = next_colour(mover.colour) or mover.colour
        wanted = f"{after} {SIZE_NAMES[move.size]}"
        if board.stacks[move.destination.index]:
            reason = refusal(
                "autumn_ash.play.cap-pawn", "a capping piece always becomes a pawn (X10)"
            )
        else:
            reason = refusal(
                "autumn_ash.play.choose",
                "the stash has none left; choose %(sizes)s (X8)",
                sizes=_sizes_in_words(sizes),
            )
        raise IllegalMove(
            refusal(
                "autumn_ash.play.cannot-become",
                "the %(mover)s on %(square)s cannot become %(article)s %(wanted)s: %(why)s",
                mover=mover.message,
                square=str(move.origin),
                article=_article(wanted),
                wanted=piece_message(after, move.size),
                why=reason,
            )
        )
    paths = _reach(board, move.origin.index).paths
    move = Move(move.origin, move.destination, move.size, move.entry,
                tuple(SQUARES[i] for i in paths[move.destination.index]))  # fmt: skip
    result = _after(position, move)
    if _stalls(result) and any(not _stalls(_after(position, m)) for m in _all_pseudo(position)):
        raise IllegalMove(
            refusal(
                "autumn_ash.play.stalls",
                "the %(mover)s cannot go to %(square)s: that would leave %(side)s without any "
                "legal move (X13)",
                mover=mover.message,
                square=str(move.destination),
                side=_other(position.turn).capitalize(),
            )
        )
    return result


def _sizes_in_words(sizes: Iterable[int]) -> Param:
    """The sizes still in the stash, as a choice: "drone or pawn"."""
    found = [size_message(s) for s in sizes]
    if len(found) == 2:
        return refusal("autumn_ash.sizes.either", "%(first)s or %(second)s", first=found[0],
                       second=found[1])  # fmt: skip
    return _listed(found)


def after_entry(position: Position, entry: Entry | None) -> Position:
    """The board once ``entry`` (X6) is made; raises :class:`IllegalMove` if it cannot be."""
    return _enter(position, entry) if entry else position


def entries(position: Position) -> list[Entry]:
    """The entries open to the side to move now (X6), whether or not a move follows."""
    return [] if position.winner else _entries(position)


def why_not(position: Position, origin: Square | str, destination: Square | str) -> str | None:
    """Why the top piece on ``origin`` may not go to ``destination`` now (X7-X12),
    or None when it may (X13 is checked by :func:`play`). ``position`` is the
    board after any entry of this turn."""
    problem = why_not_message(position, origin, destination)
    return str(problem) if problem else None


#: The id of the reason "a piece moves one or two orthogonal steps" (X7).
TOO_FAR = "autumn_ash.why.too-far"


def why_not_message(
    position: Position, origin: Square | str, destination: Square | str
) -> Message | None:
    """:func:`why_not` as a message with an id, worded where it is shown."""
    start, end = _square(origin), _square(destination)
    problem = _movable_problem(position, start.index)
    if problem:
        return problem
    mover = position.stacks[start.index][-1]
    where: dict[str, Param] = {"mover": mover.message, "start": str(start)}
    if start == end:
        return refusal(
            "autumn_ash.why.same-square",
            "the %(mover)s on %(start)s must end its move on another square (X7)",
            **where,
        )
    (sc, sr), (ec, er) = _coords(start.index), _coords(end.index)
    if abs(sc - ec) + abs(sr - er) > 2:
        return refusal(
            "autumn_ash.why.too-far",  # TOO_FAR: a literal, for the catalogs' extraction
            "the %(mover)s on %(start)s cannot reach %(end)s: a piece moves one or two "
            "orthogonal steps (X7)",
            end=str(end),
            **where,
        )
    reach = _reach(position, start.index)
    if end.index in reach.paths:
        if not _sizes_for(position, mover, end.index):
            return _step_problem(position, mover, start.index, end.index) or refusal(
                "autumn_ash.why.nothing-to-become",
                "the %(mover)s on %(start)s has nothing to become (X8)",
                **where,
            )
        return None
    return reach.closed.get(end.index) or refusal(
        "autumn_ash.why.out-of-reach",
        "the %(mover)s on %(start)s cannot reach %(end)s (X7)",
        end=str(end),
        **where,
    )


def destinations(position: Position, origin: Square | str, entry: Entry | None = None
                 ) -> dict[Square, list[Move]]:  # fmt: skip
    """The legal turns that move the piece on ``origin`` (after ``entry``), by destination."""
    start = _square(origin)
    found: dict[Square, list[Move]] = {}
    for move in _legal(position):
        if move.origin == start and move.entry == entry:
            found.setdefault(move.destination, []).append(move)
    return found


@dataclass(frozen=True)
class Outcome:
    """A finished board game: the winner (None: a draw) and why it ended."""

    winner: str | None
    reason: str


def outcome(position: Position) -> Outcome | None:
    """X3: the first side to reach the target wins. Ruling XA5: when neither side
    has a legal move, the game ends and the higher score wins (equal: a draw)."""
    if position.winner:
        return Outcome(position.winner, f"reached {position.target}")
    if _can_move(position):
        return None
    flipped = Position(position.stacks, position.stash, _other(position.turn),
                       position.scores, position.beginner, position.target)  # fmt: skip
    if _can_move(flipped):
        return None
    r, x = position.scores
    winner = "rainbow" if r > x else "xeno" if x > r else None
    return Outcome(winner, "neither side can move")


# --- the board game at a table -----------------------------------------------


@dataclass(frozen=True)
class SetUp:
    """X5: the start trios are on these squares; ``first`` (a player) moves first.

    ``placements`` are ``(square, piece)`` pairs like ``("C1", "green queen")``.
    """

    placements: tuple[tuple[str, str], ...]
    first: str


@dataclass(frozen=True)
class Play:
    """``player`` makes the turn ``move`` (text, see :meth:`Move.parse`).

    ``piece`` and ``becomes`` say in words what the phone showed ("yellow queen",
    "red drone"); they must match the board, so a log reads on its own.
    """

    player: str
    move: str
    piece: str
    becomes: str


@dataclass(frozen=True)
class Pass:
    """``player`` has no legal move and passes (X13)."""

    player: str


@dataclass(frozen=True)
class BoardGame:
    """An Autumn Ash game refereed on the board: the players, the position, the
    turns so far. Shares the race's reading API (``players``, ``totals``,
    ``winner``, ``bags``, ``side()``) so score views work for both modes."""

    rainbow: str
    xeno: str
    beginner: bool = False
    position: Position | None = None  # None until the start trios are placed
    turns: tuple[tuple[str, TurnResult], ...] = ()  # (player, what the turn did)
    target: int = WINNING_TOTAL

    progressions: ClassVar[Mapping[str, tuple[str, ...]]] = PROGRESSIONS
    bonus: ClassVar[Mapping[str, int]] = COLOUR_BONUS
    sizes: ClassVar[Mapping[int, str]] = SIZE_NAMES
    colour_words: ClassVar[Mapping[str, Message]] = _COLOUR_WORDS
    size_words: ClassVar[Mapping[int, Message]] = _SIZE_WORDS
    piece_words: ClassVar[Mapping[tuple[str, int], Message]] = _PIECE_WORDS
    mode: ClassVar[str] = "board"

    @property
    def players(self) -> tuple[str, str]:
        return self.rainbow, self.xeno

    def side(self, player: str) -> str:
        if player == self.rainbow:
            return "rainbow"
        if player == self.xeno:
            return "xeno"
        raise IllegalAction(
            refusal(
                "autumn_ash.board.stranger",
                "%(player)s is not playing this game (%(rainbow)s and %(xeno)s are)",
                player=repr(player),
                rainbow=self.rainbow,
                xeno=self.xeno,
            )
        )

    def player(self, side: str) -> str:
        return self.rainbow if side == "rainbow" else self.xeno

    def colours(self, player: str) -> tuple[str, ...]:
        return PROGRESSIONS[self.side(player)]

    @property
    def totals(self) -> dict[str, int]:
        if self.position is None:
            return dict.fromkeys(self.players, 0)
        return {self.rainbow: self.position.scores[0], self.xeno: self.position.scores[1]}

    @property
    def bags(self) -> tuple[tuple[str, BagScore], ...]:
        return tuple((p, t.bag) for p, t in self.turns if t.bag is not None)

    @property
    def last_bag(self) -> tuple[str, BagScore] | None:
        return self.bags[-1] if self.bags else None

    @property
    def outcome(self) -> Outcome | None:
        return outcome(self.position) if self.position else None

    @property
    def winner(self) -> str | None:
        result = self.outcome
        return self.player(result.winner) if result and result.winner else None

    @property
    def to_move(self) -> str | None:
        """The player whose turn it is (None before setup and after the end)."""
        if self.position is None or self.outcome:
            return None
        return self.player(self.position.turn)


def new_board_game(
    rainbow: str, xeno: str, *, beginner: bool = False, position: Position | None = None
) -> BoardGame:
    """A board game waiting for its start trios (X5), or going on from
    ``position`` (a game already under way on the table, a puzzle, a lesson).
    Raises :class:`RuleError` when the names are empty or the same."""
    new_game(rainbow, xeno)  # the same checks as the race
    if position is not None:
        return BoardGame(rainbow, xeno, position.beginner, position)
    return BoardGame(rainbow, xeno, beginner)


def apply_board(game: BoardGame, action: Any) -> BoardGame:
    """The board game after ``action``; never mutates ``game``.

    Raises :class:`IllegalAction` for a setup after the start or a move before
    it, a player out of turn, a Bag (the board bags by itself), and
    :class:`IllegalMove` for a turn the rules forbid.
    """
    if isinstance(action, SetUp):
        if game.position is not None:
            raise IllegalAction(
                refusal(
                    "autumn_ash.board.set-up",
                    "the pieces are already set up: undo to set them up again",
                )
            )
        first = game.side(action.first)
        position = start_position(action.placements, first, beginner=game.beginner)
        return BoardGame(game.rainbow, game.xeno, game.beginner, position, (), game.target)
    if isinstance(action, Bag):
        raise IllegalAction(
            refusal(
                "autumn_ash.board.no-bag",
                "on the board the companion bags the rows itself: make the move",
            )
        )
    if not isinstance(action, Play | Pass):
        raise IllegalAction(_not_an_action(action))
    if game.position is None:
        raise IllegalAction(
            refusal("autumn_ash.board.not-set-up", "place the six start pieces first")
        )
    side = game.side(action.player)
    if game.winner or game.outcome:
        raise IllegalAction(refusal("autumn_ash.board.over", "the game is over"))
    if side != game.position.turn:
        raise IllegalAction(
            refusal(
                "autumn_ash.board.not-your-turn",
                "it is %(turn)s's turn, not %(player)s's",
                turn=game.to_move or "?",
                player=action.player,
            )
        )
    if isinstance(action, Pass):
        result = play(game.position, None)
    else:
        move = Move.parse(action.move)
        board = _enter(game.position, move.entry) if move.entry else game.position
        top = board.top(move.origin)
        if top is None or str(top) != action.piece.strip().lower():
            if top is None:
                raise IllegalAction(
                    refusal(
                        "autumn_ash.board.changed-empty",
                        "the board changed: %(square)s holds nothing, not %(article)s "
                        "%(wanted)s; look again and retry",
                        square=str(move.origin),
                        article=_article(action.piece),
                        wanted=_piece_words(action.piece),
                    )
                )
            raise IllegalAction(
                refusal(
                    "autumn_ash.board.changed",
                    "the board changed: %(square)s holds the %(piece)s, not %(article)s "
                    "%(wanted)s; look again and retry",
                    square=str(move.origin),
                    piece=top.message,
                    article=_article(action.piece),
                    wanted=_piece_words(action.piece),
                )
            )
        result = play(game.position, move)
        if result.became is None or str(result.became) != action.becomes.strip().lower():
            raise IllegalAction(
                refusal(
                    "autumn_ash.board.becomes",
                    "the moved piece becomes %(article)s %(piece)s, not %(article_low)s %(wanted)s",
                    article=_article(result.became),
                    piece=result.became.message if result.became else "?",
                    article_low=_article(action.becomes),
                    wanted=_piece_words(action.becomes),
                )
            )
    return BoardGame(game.rainbow, game.xeno, game.beginner, result.position,
                     (*game.turns, (action.player, result)), game.target)  # fmt: skip


def _not_an_action(action: object) -> Message:
    return refusal(
        "autumn_ash.action.unknown", "%(action)s is not an Autumn Ash action", action=repr(action)
    )


def _piece_words(text: str) -> Param:
    """A piece named in a logged action, as a message when it is one."""
    try:
        return Piece.parse(text).message
    except RuleError:
        return text


ACTIONS: dict[str, type] = {"Bag": Bag, "SetUp": SetUp, "Play": Play, "Pass": Pass}
