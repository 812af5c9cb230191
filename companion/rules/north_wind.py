"""The North Wind: Leaf's solo opponent as a state machine (rulings N1-N14).

The companion cannot see the table. On the North Wind's turn it asks for what
it needs (the card the player drew, the tips the chosen placement touches, the
animal mat, what a tree or season space gave) and says exactly what the North
Wind does, keeping all its tokens: sun, acorns, animals in its Forest and
Winter Den by type, mushrooms (15: babies and adults on the board, the rest in
the supply), its squirrel's climb and fork choices, the North Wind deck (13
cards with the Reshuffle card), which leaf piles are empty, the season
advances and the Frosts done.

The public decision helpers work on their own, for any front end:

>>> leaf_boost(3), leaf_boost(4)
(True, False)
>>> choose_placement("red", [
...     {"tips": {"red": 2, "green": 1}, "human_mushroom_leaves": 0},
...     {"tips": {"red": 2, "yellow": 2}, "human_mushroom_leaves": 1},
...     {"tips": {"red": 2, "brown": 1, "green": 1}, "human_mushroom_leaves": 0},
... ])
[2]
>>> choose_animal([("fox", False), ("owl", True), ("owl", False)], {"owl": 1}, "top-left")
1
>>> choose_animal([("fox", False), ("frog", False)], {}, "top-left") is None
True

A game is ``new_game(...)`` then ``apply(state, action)`` for each logged
action; every card the player drew is in the log, so undo (a replay without
the last action) never changes what was drawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import leaf
from .errors import IllegalAction, RuleError
from .leaf import (
    ANIMAL_PLURAL_WORDS,
    ANIMAL_WORDS,
    ANIMALS,
    COLOUR_WORDS,
    COLOURS,
    COPIES_PER_ANIMAL,
    GROUP_SIZE,
    LEAF_SHAPES,
    LEAF_WORDS,
    MUSHROOMS_PER_PLAYER,
    animal_count,
    check_animal,
    check_colour,
    check_leaf,
    listed,
)
from .messages import Message, Param, refusal, refusal_n

ARROWS: tuple[str, ...] = ("top-left", "bottom-right")
ARROW_WORDS: dict[str, Message] = {
    "top-left": refusal("nw.arrow.top-left", "top-left"),
    "bottom-right": refusal("nw.arrow.bottom-right", "bottom-right"),
}
#: At a fork on the tree, the arrow picks the path (N9).
FORK_PATH = {"top-left": "left", "bottom-right": "right"}
PATH_WORDS: dict[str, Message] = {
    "left": refusal("nw.path.left", "left"),
    "right": refusal("nw.path.right", "right"),
}
DIFFICULTY_WORDS: dict[str, Message] = {
    "easy": refusal("nw.difficulty.easy", "easy"),
    "normal": refusal("nw.difficulty.normal", "normal"),
    "hard": refusal("nw.difficulty.hard", "hard"),
}
#: The North Wind as a player is called in the rules' words.
THE_NORTH_WIND = refusal("nw.name.the", "the North Wind")
DIFFICULTIES: tuple[str, ...] = ("easy", "normal", "hard")
#: N1: the North Wind's starting sun and number of random animals.
STARTING = {"easy": (1, 0), "normal": (1, 2), "hard": (2, 3)}
#: The North Wind deck: 12 leaf cards and the Reshuffle card (N2).
DECK_SIZE = 13
MAT_SLOTS = 5
#: A leaf is boosted when it touches this many tips or fewer (N4).
BOOST_LIMIT = 3
SEASON_COST = 3
#: What a season advance can cross (the player reads it off the track).
CROSSINGS: tuple[str, ...] = ("none", "frost", "winter")
#: Ruling of our own (NX3): a season space or a tree space gives at most this.
MAX_REWARD = 6

Slot = tuple[str, bool] | None


# --- Public decision helpers -----------------------------------------------------------


def leaf_boost(connected_tips: int) -> bool:
    """Whether the North Wind puts a baby mushroom on the leaf it placed (N4).

    True when the leaf touches 3 tips or fewer. Raises :class:`RuleError` for
    a negative or non-integer count.

    >>> [leaf_boost(n) for n in (2, 3, 4, 5)]
    [True, True, False, False]
    """
    n = leaf._count(connected_tips, refusal("nw.what.tips", "the number of connected tips"))
    return n <= BOOST_LIMIT  # N4


def placement_key(card_colour: str, candidate: Mapping[str, object]) -> tuple[int, ...]:
    """The N3 sort key of one candidate placement: bigger is better.

    (A) tips of the card's colour, (B) tips in all, (C) fewer leaves with a
    human mushroom, then the tip counts of red, orange, brown, yellow, green.
    Raises :class:`RuleError` for a malformed candidate.
    """
    colour = check_colour(card_colour)
    if not isinstance(candidate, Mapping):
        raise RuleError(
            refusal(
                "nw.candidate.not-a-mapping",
                "a candidate placement must be a mapping, not %(candidate)s",
                candidate=repr(candidate),
            )
        )
    tips_value = candidate.get("tips")
    if not isinstance(tips_value, Mapping):
        raise RuleError(
            refusal(
                "nw.candidate.no-tips",
                "a candidate needs its tips by colour, got %(tips)s",
                tips=repr(tips_value),
            )
        )
    tips = leaf._tips(tips_value)
    total = sum(tips.values())
    human = leaf._count(
        candidate.get("human_mushroom_leaves", 0),
        refusal("nw.what.human-leaves", "leaves with the human's mushrooms"),
    )
    if human > total:
        raise RuleError(
            refusal(
                "nw.candidate.too-many-leaves",
                "a placement touching %(total)s tips cannot touch %(human)s leaves "
                "with the human's mushrooms",
                total=total,
                human=human,
            )
        )
    return (tips[colour], total, -human, *(tips[c] for c in COLOURS))  # N3 A, B, C, order


def choose_placement(card_colour: str, candidates: Sequence[Mapping[str, object]]) -> list[int]:
    """Indices of the best candidate placements for the North Wind (N3).

    Each candidate is ``{"tips": {colour: count}, "human_mushroom_leaves":
    int}``. More than one index means the candidates are tied on every
    priority and the human chooses. Raises :class:`RuleError` for an unknown
    colour, no candidates or a malformed candidate.

    >>> choose_placement("green", [{"tips": {"red": 1, "green": 1}},
    ...                            {"tips": {"red": 1, "green": 1}}])
    [0, 1]
    """
    if not candidates:
        raise RuleError(refusal("nw.candidate.none", "enter at least one candidate placement"))
    keys = [placement_key(card_colour, c) for c in candidates]
    best = max(keys)
    return [i for i, k in enumerate(keys) if k == best]


def _check_mat(mat: Sequence[tuple[str, bool]]) -> list[tuple[str, bool]]:
    checked: list[tuple[str, bool]] = []
    for slot in mat:
        if not isinstance(slot, tuple | list) or len(slot) != 2:
            raise RuleError(
                refusal(
                    "nw.mat.not-a-slot",
                    "an animal on the mat is (type, has acorn icon), not %(slot)s",
                    slot=repr(slot),
                )
            )
        animal, acorn = slot
        if not isinstance(acorn, bool):
            raise RuleError(
                refusal(
                    "nw.mat.acorn",
                    "the acorn icon of %(animal)s must be yes or no, not %(acorn)s",
                    animal=repr(animal),
                    acorn=repr(acorn),
                )
            )
        checked.append((check_animal(animal), acorn))
    return checked


def _check_forest(forest: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(forest, Mapping):
        raise RuleError(
            refusal(
                "nw.forest.not-counts",
                "the Forest must map animal types to counts, not %(forest)s",
                forest=repr(forest),
            )
        )
    return {
        check_animal(a): leaf._count(
            n,
            refusal("nw.what.forest", "%(animal)s count in the Forest", animal=ANIMAL_WORDS[a]),
            high=COPIES_PER_ANIMAL,
        )
        for a, n in forest.items()
    }


def animal_key(slot: tuple[str, bool], forest: Mapping[str, int]) -> tuple[int, int, int]:
    """The N8 preference of one animal, bigger is better (before position).

    (requirements met, meets requirement 1, makes a group of exactly 3).
    Requirement 1: its type is already in the Forest; requirement 2: it has
    an acorn icon.
    """
    animal, acorn = slot
    have = forest.get(animal, 0)
    req1 = have > 0
    return (int(req1) + int(acorn), int(req1), int(have == 2))


def _not_an_arrow(arrow: object) -> Message:
    return refusal(
        "nw.arrow.unknown",
        "%(arrow)s is not an arrow; it is top-left or bottom-right",
        arrow=repr(arrow),
    )


def choose_animal(
    mat: Sequence[tuple[str, bool]], forest: Mapping[str, int], arrow: str
) -> int | None:
    """The index of the mat animal the North Wind takes, or None to draw (N8).

    ``mat`` lists (animal type, has acorn icon) in reading order; ``forest``
    counts the North Wind's Forest by type; ``arrow`` is ``"top-left"`` (the
    first in reading order wins ties) or ``"bottom-right"`` (the last does).
    None means no animal meets either requirement: draw from the animal deck.
    Raises :class:`RuleError` for an unknown animal, arrow or a bad count.

    >>> mat = [("owl", False), ("fox", True), ("frog", True)]
    >>> choose_animal(mat, {}, "top-left"), choose_animal(mat, {}, "bottom-right")
    (1, 2)
    >>> choose_animal(mat, {"owl": 2}, "top-left")
    0
    """
    if arrow not in ARROWS:
        raise RuleError(_not_an_arrow(arrow))
    slots = _check_mat(mat)
    counts = _check_forest(forest)
    best: int | None = None
    best_key: tuple[int, ...] = (0,)
    order = range(len(slots)) if arrow == "top-left" else range(len(slots) - 1, -1, -1)
    for i in order:
        key = animal_key(slots[i], counts)
        if key[0] == 0:
            continue  # meets no requirement
        if best is None or key > best_key:  # strict: earlier in arrow order keeps ties
            best, best_key = i, key
    return best


def frost_choices(forest: Mapping[str, int], mat: Sequence[tuple[str, bool]] = ()) -> list[str]:
    """The animal types the North Wind may hibernate at a Frost (N12).

    Its largest Forest group; tie → the type with the fewest animals of that
    type on the mat; still tied → several types, and the human chooses. An
    empty Forest gives ``[]``. Raises :class:`RuleError` for bad input.

    >>> frost_choices({"fox": 2, "owl": 2, "frog": 1}, [("fox", False)])
    ['owl']
    >>> frost_choices({"fox": 2, "owl": 2}, [])
    ['fox', 'owl']
    """
    counts = {a: n for a, n in _check_forest(forest).items() if n > 0}
    slots = _check_mat(mat)
    if not counts:
        return []
    largest = max(counts.values())
    tied = [a for a in ANIMALS if counts.get(a, 0) == largest]
    on_mat = {a: sum(1 for s in slots if s[0] == a) for a in tied}
    fewest = min(on_mat.values())
    return [a for a in tied if on_mat[a] == fewest]


# --- Cards -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """A North Wind card: a leaf shape, an action colour and an arrow."""

    leaf: str
    colour: str
    arrow: str

    def __post_init__(self) -> None:
        check_leaf(self.leaf)
        check_colour(self.colour)
        if self.arrow not in ARROWS:
            raise RuleError(_not_an_arrow(self.arrow))

    def describe(self) -> str:
        return str(self.words())

    def words(self) -> Message:
        """The card in words: its leaf, its colour and its arrow."""
        return refusal(
            "nw.card",
            "%(leaf)s, %(colour)s, arrow %(arrow)s",
            leaf=LEAF_WORDS[self.leaf],
            colour=COLOUR_WORDS[self.colour],
            arrow=ARROW_WORDS[self.arrow],
        )


# --- State -----------------------------------------------------------------------------

Counts = tuple[tuple[str, int], ...]


def _counts(d: Mapping[str, int]) -> Counts:
    return tuple((a, d[a]) for a in ANIMALS if d.get(a, 0) > 0)


@dataclass(frozen=True)
class State:
    """Everything the companion knows about a solo game of Leaf.

    ``phase`` says what is awaited next:

    * ``"setup"``: the North Wind's random starting animals (N1);
    * ``"human"``: the human's turn (they may record a season advance, sun the
      North Wind gains from mushroom reactions, an emptied leaf pile);
    * ``"draw"``: the card the player drew for the North Wind (N2);
    * ``"place"``: the tips the North Wind's leaf touches (N3, N4);
    * ``"act"``: the next action in ``queue`` (N5-N10);
    * ``"season"``: what the season advance gave (N11);
    * ``"frost"``: which animals the North Wind hibernates (N12);
    * ``"scoring"``: the human's end-of-game tallies (N13);
    * ``"over"``: ``result`` is set; a winner may tick achievements (N14).
    """

    human: str
    difficulty: str
    phase: str
    sun: int
    acorns: int = 0
    forest: Counts = ()
    den: Counts = ()
    babies: int = 0
    adults: int = 0
    height: int = 0
    at_top: bool = False
    forks: tuple[str, ...] = ()
    turn: int = 0
    deck_drawn: int = 0
    draws: tuple[str, ...] = ()
    empty_piles: tuple[str, ...] = ()
    frosts: int = 0
    season_advances: int = 0
    human_advanced: bool = False
    winter: bool = False
    winter_reason: Message | None = None
    card: Card | None = None
    tips: Counts = ()
    boosted: bool = False
    queue: tuple[str, ...] = ()
    reds_done: int = 0
    mat: tuple[Slot, ...] = (None,) * MAT_SLOTS
    frost_then: str = ""
    #: What the North Wind did this turn, in words worded where they are shown.
    notes: tuple[Message, ...] = ()
    result: leaf.Result | None = None
    human_tally: leaf.Tally | None = None
    north_wind_tally: leaf.Tally | None = None
    achievements: tuple[str, ...] = ()

    @property
    def supply(self) -> int:
        """Mushrooms the North Wind has not put on the board yet."""
        return MUSHROOMS_PER_PLAYER - self.babies - self.adults

    @property
    def forest_counts(self) -> dict[str, int]:
        return dict(self.forest)

    @property
    def den_counts(self) -> dict[str, int]:
        return dict(self.den)

    @property
    def forest_size(self) -> int:
        return sum(n for _, n in self.forest)

    @property
    def deck_left(self) -> int:
        """Cards still in the North Wind deck (the Reshuffle card among them)."""
        return DECK_SIZE - self.deck_drawn

    @property
    def hibernated(self) -> bool:
        """Whether a Frost has happened: red actions then follow N7."""
        return self.frosts > 0

    @property
    def current(self) -> str | None:
        """The colour of the action awaited in the ``"act"`` phase."""
        return self.queue[0] if self.phase == "act" and self.queue else None

    @property
    def human_won(self) -> bool:
        return self.result is not None and self.human in self.result.winners


# --- Actions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupAnimals:
    """The random animals the North Wind starts with (N1): 0 easy, 2 normal, 3 hard."""

    animals: tuple[str, ...]


@dataclass(frozen=True)
class ReactionSun:
    """The North Wind's mushrooms earned sun from the human's placement."""

    sun: int


@dataclass(frozen=True)
class PileEmptied:
    """A leaf pile ran out (the third empty pile starts Winter)."""

    leaf: str


@dataclass(frozen=True)
class HumanSeason:
    """The human advanced the season; ``crossed`` is "none", "frost" or "winter"."""

    crossed: str


@dataclass(frozen=True)
class EndHumanTurn:
    """The human finished their turn; the North Wind plays."""


@dataclass(frozen=True)
class Draw:
    """The North Wind card the player drew (not the Reshuffle card)."""

    leaf: str
    colour: str
    arrow: str


@dataclass(frozen=True)
class Reshuffle:
    """The player drew the Reshuffle card (N2)."""


@dataclass(frozen=True)
class Place:
    """The North Wind's leaf is down; ``tips`` counts the tips it touches by colour."""

    tips: Mapping[str, int]


@dataclass(frozen=True)
class Done:
    """A yellow or green action was carried out (N5)."""


@dataclass(frozen=True)
class Red:
    """How a red action went: "baby", "grow" or "acorn" (N6, N7, N10)."""

    outcome: str


@dataclass(frozen=True)
class Orange:
    """An orange action (N8): the mat as seen (5 slots, None = empty) and, when
    no mat animal qualifies, the animal drawn from the deck."""

    mat: tuple[Slot, ...]
    drawn: tuple[str, bool] | None = None


@dataclass(frozen=True)
class Brown:
    """A brown action (N9): ``move`` is "up" (one space), "skip" (the next
    space held the human's squirrel, so two) or "top" (already at the top);
    ``fork`` says the squirrel reached a fork; the rest is the landing
    space's reward."""

    move: str
    fork: bool = False
    acorns: int = 0
    sun: int = 0
    leaf_cards: int = 0
    animals: int = 0


@dataclass(frozen=True)
class Season:
    """The North Wind's season advance (N11): acorns shown on the new space,
    and what line was crossed."""

    acorns: int
    crossed: str


@dataclass(frozen=True)
class Hibernate:
    """The North Wind's animals going to its Winter Den at a Frost (N12);
    ``animal`` is None when its Forest is empty."""

    animal: str | None
    mat: tuple[Slot, ...] = ()


@dataclass(frozen=True)
class FinalScore:
    """The human's end-of-game tally and the North Wind's adult mushroom groups."""

    human: Mapping[str, Any]
    north_wind_groups: tuple[int, ...]


@dataclass(frozen=True)
class Achieve:
    """After a solo win, tick up to two achievements, one per group (N14)."""

    ids: tuple[str, ...]


ACTIONS: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        SetupAnimals,
        ReactionSun,
        PileEmptied,
        HumanSeason,
        EndHumanTurn,
        Draw,
        Reshuffle,
        Place,
        Done,
        Red,
        Orange,
        Brown,
        Season,
        Hibernate,
        FinalScore,
        Achieve,
    )
}


# --- Setup -----------------------------------------------------------------------------


def new_game(human: str = "You", difficulty: str = "normal") -> State:
    """A solo game against the North Wind (N1).

    The North Wind starts with 1 sun (2 on hard); on normal and hard the first
    action records its 2 or 3 random animals. The human plays first.
    Raises :class:`RuleError` for an unknown difficulty or an empty name.
    """
    if difficulty not in DIFFICULTIES:
        raise RuleError(
            refusal(
                "nw.difficulty.unknown",
                "%(difficulty)s is not a difficulty; choose easy, normal or hard",
                difficulty=repr(difficulty),
            )
        )
    if not isinstance(human, str) or not human.strip():
        raise RuleError(refusal("nw.human.no-name", "the human player needs a name"))
    sun, animals = STARTING[difficulty]  # N1
    return State(
        human=human.strip(),
        difficulty=difficulty,
        phase="setup" if animals else "human",
        sun=sun,
        notes=(
            refusal(
                "nw.note.start",
                "Give the North Wind %(sun)s sun. %(human)s plays first.",
                sun=sun,
                human=human.strip(),
            ),
        ),
    )


# --- Apply -----------------------------------------------------------------------------


def apply(state: State, action: object) -> State:
    """The game after ``action``; never mutates ``state``.

    Raises :class:`IllegalAction` for an action the game is not waiting for
    now, and :class:`RuleError` (a ValueError) for entries that cannot be
    right (unknown cards or animals, more copies than exist, impossible
    counts, a choice the rulings forbid).
    """
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalAction(
            refusal(
                "nw.action.unknown", "%(action)s is not a North Wind action", action=repr(action)
            )
        )
    if state.phase == "over" and not isinstance(action, Achieve):
        raise IllegalAction(
            refusal("nw.over", "the game is over; only achievements can be ticked now")
        )
    new: State = handler(state, action)
    return new


def _expect(state: State, *phases: str, doing: Message) -> None:
    if state.phase not in phases:
        raise IllegalAction(
            refusal(
                "nw.not-now",
                "cannot %(doing)s now: %(waiting)s",
                doing=doing,
                waiting=waiting_for(state),
            )
        )


def waiting_for(state: State) -> Message:
    """What the game needs next, in words for the table."""
    phase = state.phase
    if phase == "setup":
        return refusal_n(
            "nw.waiting.setup",
            "first enter the North Wind's %(n)s starting animal",
            "first enter the North Wind's %(n)s starting animals",
            "n",
            n=STARTING[state.difficulty][1],
        )
    if phase == "human":
        return refusal("nw.waiting.human", "it is %(human)s's turn", human=state.human)
    if phase == "act":
        return refusal(
            "nw.waiting.act",
            "the North Wind is taking its %(colour)s action",
            colour=_colour(state.current),
        )
    waiting = {
        "draw": refusal("nw.waiting.draw", "the North Wind needs its card drawn"),
        "place": refusal("nw.waiting.place", "the North Wind's leaf has to be placed"),
        "season": refusal("nw.waiting.season", "the North Wind is advancing the season"),
        "frost": refusal("nw.waiting.frost", "the North Wind is hibernating its animals"),
        "scoring": refusal("nw.waiting.scoring", "the game is being scored"),
        "over": refusal("nw.waiting.over", "the game is over"),
    }
    return waiting.get(phase) or refusal("nw.waiting.phase", "%(phase)s", phase=phase)


def _colour(colour: str | None) -> Message | str:
    return COLOUR_WORDS.get(colour or "") or str(colour)


def _add(counts: Counts, animal: str, n: int = 1) -> Counts:
    d = dict(counts)
    d[animal] = d.get(animal, 0) + n
    return _counts(d)


def _check_copies(state: State, mat: Iterable[Slot] = (), extra: Iterable[str] = ()) -> None:
    """Reject entries needing more than 6 animals of a type (LX2)."""
    seen = dict(state.forest)
    for a, n in state.den:
        seen[a] = seen.get(a, 0) + n
    for slot in mat:
        if slot is not None:
            seen[slot[0]] = seen.get(slot[0], 0) + 1
    for a in extra:
        seen[a] = seen.get(a, 0) + 1
    for a, n in seen.items():
        if n > COPIES_PER_ANIMAL:
            raise RuleError(
                refusal(
                    "nw.animals.too-many",
                    "there are only %(copies)s %(animals)s in the animal deck, "
                    "but that would put %(n)s on the mat and with the North Wind",
                    copies=COPIES_PER_ANIMAL,
                    animals=ANIMAL_PLURAL_WORDS[a],
                    n=n,
                )
            )


def _setup(state: State, a: SetupAnimals) -> State:
    _expect(state, "setup", doing=refusal("nw.doing.setup", "deal the starting animals"))
    need = STARTING[state.difficulty][1]
    animals = tuple(
        check_animal(x)
        for x in _seq(a.animals, refusal("nw.what.starting", "the starting animals"))
    )
    if len(animals) != need:
        raise RuleError(
            refusal(
                "nw.setup.how-many",
                "the North Wind starts with %(need)s animals on %(difficulty)s, not %(n)s",
                need=need,
                difficulty=DIFFICULTY_WORDS[state.difficulty],
                n=len(animals),
            )
        )
    forest: Counts = ()
    for x in animals:
        forest = _add(forest, x)
    return replace(
        state,
        phase="human",
        forest=forest,
        notes=(
            refusal(
                "nw.note.forest", "The North Wind's Forest: %(animals)s.", animals=_describe(forest)
            ),
        ),
    )


def _seq(value: object, what: Message) -> tuple[Any, ...]:
    """``value`` as a tuple if it is a list or tuple; raises RuleError otherwise."""
    if not isinstance(value, list | tuple):
        raise RuleError(
            refusal(
                "nw.not-a-list",
                "%(what)s must be a list, not %(value)s",
                what=what,
                value=repr(value),
            )
        )
    return tuple(value)


def _describe(counts: Counts) -> Param:
    if not counts:
        return refusal("nw.nothing", "nothing")
    return listed([animal_count(a, n) for a, n in counts])


def _reaction(state: State, a: ReactionSun) -> State:
    _expect(state, "human", doing=refusal("nw.doing.reaction", "give the North Wind reaction sun"))
    n = leaf._count(
        a.sun, refusal("nw.what.reaction", "reaction sun"), low=1, high=MUSHROOMS_PER_PLAYER
    )
    if n > state.babies + state.adults:
        raise RuleError(
            refusal(
                "nw.reaction.too-much",
                "the North Wind has only %(mushrooms)s mushrooms on the board, "
                "so it cannot earn %(n)s sun from reactions",
                mushrooms=state.babies + state.adults,
                n=n,
            )
        )
    return replace(
        state,
        sun=state.sun + n,
        notes=(
            *state.notes,
            refusal("nw.note.reaction", "The North Wind gains %(n)s sun from its mushrooms.", n=n),
        ),
    )


def _start_winter(state: State, reason: Message) -> State:
    if state.winter:
        return state
    return replace(
        state,
        winter=True,
        winter_reason=reason,
        notes=(
            *state.notes,
            refusal(
                "nw.note.winter",
                "Winter begins (%(reason)s). The game ends after the "
                "North Wind's turn with one last Frost.",
                reason=reason,
            ),
        ),
    )


def _pile(state: State, a: PileEmptied) -> State:
    _expect(
        state,
        "human",
        "draw",
        "place",
        "act",
        "season",
        "frost",
        doing=refusal("nw.doing.pile", "mark a leaf pile empty"),
    )
    shape = check_leaf(a.leaf)
    if shape in state.empty_piles:
        raise RuleError(
            refusal(
                "nw.pile.again",
                "the %(leaf)s pile is already marked empty",
                leaf=LEAF_WORDS[shape],
            )
        )
    empty = tuple(s for s in LEAF_SHAPES if s in state.empty_piles or s == shape)
    note = refusal("nw.note.pile", "The %(leaf)s pile is empty.", leaf=LEAF_WORDS[shape])
    new = replace(state, empty_piles=empty, notes=(*state.notes, note))
    if len(empty) >= 3:  # the third empty pile starts Winter (Cold Snap at the round's end)
        new = _start_winter(new, refusal("nw.winter.piles", "a third leaf pile is empty"))
    return new


def _crossing(state: State, crossed: str, then: str) -> State:
    if crossed not in CROSSINGS:
        raise RuleError(
            refusal(
                "nw.season.unknown-line",
                "%(crossed)s is not a line on the season track; say none, frost or winter",
                crossed=repr(crossed),
            )
        )
    if crossed == "frost":
        return replace(state, phase="frost", frost_then=then)
    if crossed == "winter":
        state = _start_winter(
            state, refusal("nw.winter.line", "the season marker crossed the Winter line")
        )
    return state


def _human_season(state: State, a: HumanSeason) -> State:
    _expect(state, "human", doing=refusal("nw.doing.human-season", "record your season advance"))
    if state.human_advanced:
        raise IllegalAction(
            refusal(
                "nw.season.twice",
                "%(human)s already advanced the season this turn: only once per turn",
                human=state.human,
            )
        )
    state = replace(
        state,
        season_advances=state.season_advances + 1,
        human_advanced=True,
        notes=(
            *state.notes,
            refusal("nw.note.human-season", "%(human)s advanced the season.", human=state.human),
        ),
    )
    return _crossing(state, a.crossed, "human")


def _end_human(state: State, a: EndHumanTurn) -> State:
    _expect(state, "human", doing=refusal("nw.doing.end-turn", "end your turn"))
    new = replace(
        state,
        phase="draw",
        turn=state.turn + 1,
        card=None,
        tips=(),
        boosted=False,
        queue=(),
        reds_done=0,
        notes=(),
    )
    if len(state.empty_piles) == len(LEAF_SHAPES):  # NX4: no leaf to take at all
        return _end_north_wind_turn(
            replace(
                new,
                notes=(
                    refusal(
                        "nw.note.no-piles",
                        "Every leaf pile is empty: the North Wind cannot play a leaf this turn.",
                    ),
                ),
            )
        )
    return new


def _check_deck(state: State) -> None:
    if state.deck_drawn >= DECK_SIZE - 1:
        raise RuleError(
            refusal(
                "nw.deck.reshuffle-left",
                "all %(cards)s leaf cards of the North Wind deck have been drawn since the "
                "last shuffle, so the card left must be the Reshuffle card",
                cards=DECK_SIZE - 1,
            )
        )


def _draw(state: State, a: Draw) -> State:
    _expect(state, "draw", doing=refusal("nw.doing.draw", "draw a North Wind card"))
    card = Card(a.leaf, a.colour, a.arrow)
    _check_deck(state)
    drawn = replace(state, deck_drawn=state.deck_drawn + 1, draws=(*state.draws, card.describe()))
    if card.leaf in state.empty_piles:  # N2: draw again
        return replace(
            drawn,
            notes=(
                *state.notes,
                refusal(
                    "nw.note.draw-again",
                    "Drew %(card)s: the %(leaf)s pile is empty, draw again.",
                    card=card.words(),
                    leaf=LEAF_WORDS[card.leaf],
                ),
            ),
        )
    return replace(
        drawn,
        phase="place",
        card=card,
        notes=(
            *state.notes,
            refusal(
                "nw.note.draw",
                "Drew %(card)s: take the top %(leaf)s leaf.",
                card=card.words(),
                leaf=LEAF_WORDS[card.leaf],
            ),
        ),
    )


def _reshuffle(state: State, a: Reshuffle) -> State:
    _expect(state, "draw", doing=refusal("nw.doing.reshuffle", "reshuffle the North Wind deck"))
    return replace(
        state,
        deck_drawn=0,
        draws=(*state.draws, "Reshuffle"),
        notes=(
            *state.notes,
            refusal(
                "nw.note.reshuffle",
                "Reshuffle: shuffle all %(cards)s North Wind cards and draw again.",
                cards=DECK_SIZE,
            ),
        ),
    )


def _place(state: State, a: Place) -> State:
    _expect(state, "place", doing=refusal("nw.doing.place", "place the North Wind's leaf"))
    tips = leaf._tips(a.tips)
    total = sum(tips.values())
    if total < 2:
        raise RuleError(
            refusal("nw.place.too-few", "a leaf must touch at least 2 tips, not %(n)s", n=total)
        )
    notes = list(state.notes)
    boosted = False
    babies = state.babies
    if leaf_boost(total):  # N4
        if state.supply > 0:
            boosted, babies = True, babies + 1
            notes.append(
                refusal(
                    "nw.note.boost",
                    "Leaf boost: it touches only %(n)s tips, so put a North Wind baby "
                    "mushroom on it.",
                    n=total,
                )
            )
        else:
            notes.append(
                refusal(
                    "nw.note.boost-none", "Leaf boost, but the North Wind has no mushrooms left."
                )
            )
    queue = leaf.leaf_actions(tips)
    notes.append(refusal("nw.note.actions", "Actions: %(actions)s.", actions=tips_words(tips)))
    return replace(
        state,
        phase="act",
        tips=tuple((c, n) for c, n in tips.items() if n),
        boosted=boosted,
        babies=babies,
        queue=queue,
        notes=tuple(notes),
    )


def tips_words(tips: Mapping[str, int]) -> Param:
    """``"2 red, 1 green"``: tips by colour, in words."""
    counted = [
        refusal("nw.tips.colour", "%(n)s %(colour)s", n=n, colour=_colour(c))
        for c, n in tips.items()
        if n
    ]
    return listed(counted) if counted else ""


def _next(state: State, note: Message, **changes: Any) -> State:
    """Pop the current action and move on (to the season step at the end)."""
    new = replace(state, queue=state.queue[1:], notes=(*state.notes, note), **changes)
    if new.queue:
        return new
    return _end_of_actions(new)


def _end_of_actions(state: State) -> State:
    if state.sun >= SEASON_COST:  # N11
        return replace(state, phase="season")
    return _end_north_wind_turn(state)


def _end_north_wind_turn(state: State) -> State:
    refill = (None,) * MAT_SLOTS  # the mat refills at the end of the turn
    if state.winter:  # the round is over: one last Frost, then scoring
        return replace(
            state,
            phase="frost",
            frost_then="final",
            mat=refill,
            notes=(*state.notes, refusal("nw.note.last-frost", "Winter: the last Frost.")),
        )
    return replace(
        state,
        phase="human",
        mat=refill,
        human_advanced=False,
        notes=(
            *state.notes,
            refusal(
                "nw.note.turn-over",
                "The North Wind's turn is over; %(human)s plays.",
                human=state.human,
            ),
        ),
    )


def _done(state: State, a: Done) -> State:
    _expect(state, "act", doing=refusal("nw.doing.done", "finish a yellow or green action"))
    if state.current == "yellow":  # N5
        return _next(
            state,
            refusal("nw.note.yellow", "Yellow: the North Wind gains 1 sun."),
            sun=state.sun + 1,
        )
    if state.current == "green":  # N5: an acorn, never leaf cards
        return _next(
            state,
            refusal("nw.note.green", "Green: the North Wind gains 1 acorn."),
            acorns=state.acorns + 1,
        )
    raise IllegalAction(
        refusal(
            "nw.done.needs-answer",
            "the %(colour)s action needs an answer, not just 'done'",
            colour=_colour(state.current),
        )
    )


RED_OUTCOMES = ("baby", "grow", "acorn")


def red_options(state: State) -> tuple[str, ...]:
    """The outcomes a red action may have now, given what the companion counts.

    Before the first hibernation (N6): the first red places a baby on the
    played leaf (unless the leaf boost already did); later reds place a baby
    on the adjacent leaf with the most open tips, or grow a baby when every
    adjacent leaf has one. After it (N7): grow a baby if there is one, else
    place a baby next to the largest group under 3. Whatever cannot happen
    gives an acorn (N10).
    """
    babies, supply = state.babies, state.supply
    if not state.hibernated:
        if red_is_first(state):  # N6 first red: the played leaf
            return ("baby",) if supply else ("acorn",)
        opts = [o for o, ok in (("baby", supply > 0), ("grow", babies > 0)) if ok]
        if not supply or not babies:
            opts.append("acorn")
        return tuple(opts)
    if babies:  # N7: grow first
        return ("grow",)
    return ("baby", "acorn") if supply else ("acorn",)


def red_is_first(state: State) -> bool:
    """Whether the awaited red action is N6's first one (baby on the played leaf)."""
    return not state.hibernated and state.reds_done == 0 and not state.boosted


def _other_action(state: State, wanted: Message) -> Message:
    return refusal(
        "nw.act.other",
        "the North Wind is taking a %(colour)s action, not %(wanted)s",
        colour=_colour(state.current),
        wanted=wanted,
    )


def _red(state: State, a: Red) -> State:
    _expect(state, "act", doing=refusal("nw.doing.red", "resolve a red action"))
    if state.current != "red":
        raise IllegalAction(_other_action(state, COLOUR_WORDS["red"]))
    allowed = red_options(state)
    if a.outcome not in RED_OUTCOMES:
        raise RuleError(
            refusal(
                "nw.red.unknown",
                "%(outcome)s is not how a red action ends; say baby, grow or acorn",
                outcome=repr(a.outcome),
            )
        )
    if a.outcome not in allowed:
        raise RuleError(_red_refusal(state, a.outcome))
    done = state.reds_done + 1
    if a.outcome == "baby":
        return _next(
            state,
            refusal("nw.note.red-baby", "Red: a North Wind baby mushroom goes on the board."),
            babies=state.babies + 1,
            reds_done=done,
        )
    if a.outcome == "grow":
        return _next(
            state,
            refusal("nw.note.red-grow", "Red: a North Wind baby mushroom grows to an adult."),
            babies=state.babies - 1,
            adults=state.adults + 1,
            reds_done=done,
        )
    return _next(
        state,
        refusal(
            "nw.note.red-acorn", "Red: nothing to do, so the North Wind gains 1 acorn instead."
        ),
        acorns=state.acorns + 1,
        reds_done=done,
    )  # N10


def _red_refusal(state: State, outcome: str) -> Message:
    if outcome == "baby" and not state.supply:
        return refusal(
            "nw.red.no-supply", "the North Wind has no baby mushrooms left in its supply"
        )
    if outcome == "grow" and not state.babies:
        return refusal("nw.red.no-baby", "the North Wind has no baby mushroom on the board to grow")
    if outcome == "grow" and red_is_first(state):
        return refusal(
            "nw.red.first",
            "the first red action puts a baby on the leaf just played (N6), it grows nothing",
        )
    if outcome == "grow":
        return refusal("nw.red.nothing-to-grow", "nothing to grow here")
    if outcome == "baby" and state.hibernated:
        return refusal(
            "nw.red.grow-first", "after the first hibernation a red action grows a baby first (N7)"
        )
    return refusal(
        "nw.red.no-acorn",
        "the North Wind can still do this red action, so it gets no acorn instead (N10)",
    )


def _slots(mat: Sequence[Any]) -> tuple[Slot, ...]:
    if not isinstance(mat, tuple | list) or len(mat) != MAT_SLOTS:
        raise RuleError(
            refusal(
                "nw.mat.spaces",
                "the animal mat has %(n)s spaces; enter each (or leave it empty)",
                n=MAT_SLOTS,
            )
        )
    out: list[Slot] = []
    for slot in mat:
        if slot is None:
            out.append(None)
        else:
            out.append(_check_mat([slot])[0])
    return tuple(out)


def _orange(state: State, a: Orange) -> State:
    _expect(state, "act", doing=refusal("nw.doing.orange", "resolve an orange action"))
    if state.current != "orange":
        raise IllegalAction(_other_action(state, COLOUR_WORDS["orange"]))
    assert state.card is not None
    mat = _slots(a.mat)
    filled = [(i, s) for i, s in enumerate(mat) if s is not None]
    pick = choose_animal([s for _, s in filled], state.forest_counts, state.card.arrow)  # N8
    if pick is not None:
        if a.drawn is not None:
            raise RuleError(
                refusal(
                    "nw.orange.mat-qualifies",
                    "an animal on the mat qualifies, so the North Wind takes it "
                    "instead of drawing from the deck",
                )
            )
        index, chosen = filled[pick]
        _check_copies(state, mat)
        animal, acorn = chosen
        new_mat = tuple(None if i == index else s for i, s in enumerate(mat))
        if acorn:
            note = refusal(
                "nw.note.orange-mat-acorn",
                "Orange: the North Wind takes the %(animal)s from space %(space)s of the mat "
                "and 1 acorn for its acorn icon.",
                animal=ANIMAL_WORDS[animal],
                space=index + 1,
            )
        else:
            note = refusal(
                "nw.note.orange-mat",
                "Orange: the North Wind takes the %(animal)s from space %(space)s of the mat.",
                animal=ANIMAL_WORDS[animal],
                space=index + 1,
            )
    else:
        if a.drawn is None:
            raise RuleError(
                refusal(
                    "nw.orange.draw",
                    "no animal on the mat is wanted: draw the top animal card and enter it",
                )
            )
        animal, acorn = _check_mat([a.drawn])[0]
        _check_copies(state, mat, (animal,))
        new_mat = mat
        if acorn:
            note = refusal(
                "nw.note.orange-deck-acorn",
                "Orange: the North Wind takes the %(animal)s from the top of the animal deck "
                "and 1 acorn for its acorn icon.",
                animal=ANIMAL_WORDS[animal],
            )
        else:
            note = refusal(
                "nw.note.orange-deck",
                "Orange: the North Wind takes the %(animal)s from the top of the animal deck.",
                animal=ANIMAL_WORDS[animal],
            )
    return _next(
        state,
        note,
        forest=_add(state.forest, animal),
        acorns=state.acorns + int(acorn),
        mat=new_mat,
    )


BROWN_MOVES = ("up", "skip", "top")


def _brown(state: State, a: Brown) -> State:
    _expect(state, "act", doing=refusal("nw.doing.brown", "resolve a brown action"))
    if state.current != "brown":
        raise IllegalAction(_other_action(state, COLOUR_WORDS["brown"]))
    assert state.card is not None
    if a.move not in BROWN_MOVES:
        raise RuleError(
            refusal(
                "nw.brown.unknown",
                "%(move)s is not a squirrel move; say up, skip or top",
                move=repr(a.move),
            )
        )
    if a.move == "top":  # N9: past the top space: stay, +1 acorn
        if state.height == 0:  # NX5: the top is reached by climbing
            raise RuleError(
                refusal(
                    "nw.brown.not-at-top",
                    "the North Wind's squirrel is still on the start space, so it cannot be on "
                    "the top space: it moves up 1 space",
                )
            )
        if a.fork or a.acorns or a.sun or a.leaf_cards or a.animals:
            raise RuleError(
                refusal(
                    "nw.brown.top-lands-nowhere",
                    "a squirrel that stays on the top space lands nowhere: no fork, "
                    "no reward beyond its acorn",
                )
            )
        return _next(
            state,
            refusal(
                "nw.note.brown-top",
                "Brown: the squirrel is at the top, so it stays and the North Wind gains 1 acorn.",
            ),
            acorns=state.acorns + 1,
            at_top=True,
        )
    climb = 1 if a.move == "up" else 2
    _check_room_above(state, climb)
    acorns = leaf._count(
        a.acorns, refusal("nw.what.tree-acorns", "acorns on the tree space"), high=MAX_REWARD
    )
    sun = leaf._count(a.sun, refusal("nw.what.tree-sun", "sun on the tree space"), high=MAX_REWARD)
    cards = leaf._count(
        a.leaf_cards,
        refusal("nw.what.tree-cards", "leaf cards on the tree space"),
        high=MAX_REWARD,
    )
    animals = leaf._count(
        a.animals, refusal("nw.what.tree-animals", "animals on the tree space"), high=MAX_REWARD
    )
    if not isinstance(a.fork, bool):
        raise RuleError(
            refusal("nw.brown.fork", "fork must be yes or no, not %(fork)s", fork=repr(a.fork))
        )
    forks = (*state.forks, FORK_PATH[state.card.arrow]) if a.fork else state.forks  # N9
    bits: list[Message] = []
    if a.fork:
        bits.append(
            refusal(
                "nw.brown.bit.fork",
                "at the fork it takes the %(path)s path",
                path=PATH_WORDS[FORK_PATH[state.card.arrow]],
            )
        )
    gained = acorns + cards  # NX1: a leaf card on the tree is an acorn for the North Wind
    if gained:
        bits.append(
            refusal_n("nw.brown.bit.acorns", "+%(n)s acorn", "+%(n)s acorns", "n", n=gained)
        )
    if sun:
        bits.append(refusal("nw.brown.bit.sun", "+%(n)s sun", n=sun))
    if animals:
        bits.append(
            refusal_n(
                "nw.brown.bit.animals",
                "%(n)s more orange action for the animal",
                "%(n)s more orange actions for the animal",
                "n",
                n=animals,
            )
        )
    if bits:
        note = refusal_n(
            "nw.note.brown-gains",
            "Brown: the squirrel climbs %(n)s space (%(gains)s).",
            "Brown: the squirrel climbs %(n)s spaces (%(gains)s).",
            "n",
            n=climb,
            gains=_semicolons(bits),
        )
    else:
        note = refusal_n(
            "nw.note.brown",
            "Brown: the squirrel climbs %(n)s space.",
            "Brown: the squirrel climbs %(n)s spaces.",
            "n",
            n=climb,
        )
    new = replace(state, queue=(state.queue[0], *(["orange"] * animals), *state.queue[1:]))
    return _next(
        new,
        note,
        height=state.height + climb,
        forks=forks,
        acorns=state.acorns + gained,
        sun=state.sun + sun,
    )


def _semicolons(parts: Sequence[Message]) -> Message:
    if len(parts) == 1:
        return parts[0]
    return refusal("nw.parts", "%(first)s; %(rest)s", first=parts[0], rest=_semicolons(parts[1:]))


def _check_room_above(state: State, climb: int) -> None:
    """Refuse a climb the tree has no room for, saying why (N9, NX5, LX3).

    Once the North Wind's squirrel was found on the top space (``at_top``) it
    can only stay there; and no climb goes past the longest path up the tree.
    """
    stay = refusal(
        "nw.brown.stay",
        'past the top it stays and gains 1 acorn instead ("Already on the top space")',
    )
    if state.at_top:
        raise RuleError(
            refusal_n(
                "nw.brown.at-top",
                "the North Wind's squirrel is already on the top space of the tree "
                "(%(n)s space up), so it cannot move up; %(stay)s (N9, NX5)",
                "the North Wind's squirrel is already on the top space of the tree "
                "(%(n)s spaces up), so it cannot move up; %(stay)s (N9, NX5)",
                "n",
                n=state.height,
                stay=stay,
            )
        )
    if state.height + climb > leaf.MOST_SPACES_CLIMBED:
        raise RuleError(
            refusal_n(
                "nw.brown.too-high",
                "the North Wind's squirrel has climbed %(n)s space and no path up "
                "the tree is longer than %(most)s, so it cannot climb %(climb)s more: "
                "it must be on the top space, and %(stay)s (N9, LX3)",
                "the North Wind's squirrel has climbed %(n)s spaces and no path up "
                "the tree is longer than %(most)s, so it cannot climb %(climb)s more: "
                "it must be on the top space, and %(stay)s (N9, LX3)",
                "n",
                n=state.height,
                most=leaf.MOST_SPACES_CLIMBED,
                climb=climb,
                stay=stay,
            )
        )


def _season(state: State, a: Season) -> State:
    _expect(
        state, "season", doing=refusal("nw.doing.season", "advance the season for the North Wind")
    )
    acorns = leaf._count(
        a.acorns, refusal("nw.what.season-acorns", "acorns on the season space"), high=MAX_REWARD
    )
    new = replace(
        state,
        sun=state.sun - SEASON_COST,
        acorns=state.acorns + acorns,
        season_advances=state.season_advances + 1,
        notes=(
            *state.notes,
            refusal_n(
                "nw.note.season",
                "Season: the North Wind spends %(cost)s sun and gains %(n)s acorn.",
                "Season: the North Wind spends %(cost)s sun and gains %(n)s acorns.",
                "n",
                cost=SEASON_COST,
                n=acorns,
            ),
        ),
    )  # N11
    new = _crossing(new, a.crossed, "end")
    if new.phase == "frost":
        return new
    return _end_north_wind_turn(new)


def _hibernate(state: State, a: Hibernate) -> State:
    _expect(state, "frost", doing=refusal("nw.doing.hibernate", "hibernate animals"))
    mat = _slots(a.mat) if a.mat else state.mat
    choices = frost_choices(state.forest_counts, [s for s in mat if s is not None])  # N12
    if not choices:
        if a.animal is not None:
            raise RuleError(
                refusal("nw.frost.empty", "the North Wind's Forest is empty: it hibernates nothing")
            )
        note = refusal(
            "nw.note.frost-empty", "Frost: the North Wind's Forest is empty, nothing hibernates."
        )
        forest, den = state.forest, state.den
    else:
        animal = check_animal(a.animal)
        if animal not in choices:
            raise RuleError(
                refusal(
                    "nw.frost.largest",
                    "the North Wind hibernates its largest group (%(choices)s), "
                    "not the %(animal)s (N12)",
                    choices=_ors([ANIMAL_WORDS[c] for c in choices]),
                    animal=ANIMAL_WORDS[animal],
                )
            )
        n = state.forest_counts[animal]
        forest = tuple((x, k) for x, k in state.forest if x != animal)
        den = _add(state.den, animal, n)
        note = refusal(
            "nw.note.frost",
            "Frost: the North Wind moves its %(animals)s to its Winter Den.",
            animals=animal_count(animal, n),
        )
    new = replace(
        state, forest=forest, den=den, frosts=state.frosts + 1, mat=mat, notes=(*state.notes, note)
    )
    if state.frost_then == "human":
        return replace(new, phase="human", frost_then="")
    if state.frost_then == "final":
        return replace(
            new,
            phase="scoring",
            frost_then="",
            notes=(
                *new.notes,
                refusal("nw.note.final", "The game is over: count up for the final score."),
            ),
        )
    return _end_north_wind_turn(replace(new, frost_then=""))


def _ors(parts: Sequence[Message]) -> Message:
    if len(parts) == 1:
        return parts[0]
    return refusal("nw.or", "%(first)s or %(rest)s", first=parts[0], rest=_ors(parts[1:]))


def north_wind_tally(state: State, groups: Sequence[int]) -> leaf.Tally:
    """The North Wind's end-of-game tally from what the companion counted.

    ``groups`` are its adult mushroom groups as the human sees them; they
    must add up to the adults the companion counted. Raises RuleError if not.
    """
    sizes = _seq(groups, refusal("nw.what.groups", "the North Wind's mushroom groups"))
    for size in sizes:
        leaf._count(size, GROUP_SIZE, low=1, high=MUSHROOMS_PER_PLAYER)
    if sum(sizes) != state.adults:
        raise RuleError(
            refusal_n(
                "nw.groups.sum",
                "the North Wind has %(n)s adult mushroom, but the groups entered add up to %(sum)s",
                "the North Wind has %(n)s adult mushrooms, but the groups entered add up to "
                "%(sum)s",
                "n",
                n=state.adults,
                sum=sum(sizes),
            )
        )
    return leaf.Tally(
        den=state.den_counts,
        mushroom_groups=sizes,
        tree=state.height,
        sun=state.sun,
        acorn_tokens=state.acorns,
        forest=state.forest_size,
    )


def forest_bonus(north_wind_forest: int, human_forest: int) -> int:
    """N13: one acorn per North Wind Forest animal beyond the human's count.

    >>> forest_bonus(5, 2), forest_bonus(1, 3)
    (3, 0)
    """
    return max(
        0,
        leaf._count(north_wind_forest, refusal("nw.what.wind-forest", "North Wind Forest animals"))
        - leaf._count(human_forest, refusal("nw.what.your-forest", "your Forest animals")),
    )


NORTH_WIND = "North Wind"


def check_tree(state: State, human_height: int) -> None:
    """NX5: the top space of the tree holds one squirrel.

    Once a brown action found the North Wind's squirrel on the top space
    (``at_top``), it is the highest squirrel: the human's climbed fewer
    spaces. Raises :class:`RuleError` for a human height as high or higher.
    """
    if state.at_top and human_height >= state.height:
        raise RuleError(
            refusal(
                "nw.tree.top-taken",
                "the North Wind's squirrel is on the top space of the tree, %(n)s spaces "
                "up, and nobody can be higher: your squirrel climbed at most %(most)s",
                n=state.height,
                most=state.height - 1,
            )
        )


def _final(state: State, a: FinalScore) -> State:
    _expect(state, "scoring", doing=refusal("nw.doing.final", "enter the final score"))
    if not isinstance(a.human, Mapping):
        raise RuleError(refusal("nw.final.no-tally", "the final score needs your tally"))
    human = leaf.Tally.from_dict(a.human)
    check_tree(state, human.tree)  # NX5
    wind_animals = dict(state.den_counts)
    for animal, n in state.forest:
        wind_animals[animal] = wind_animals.get(animal, 0) + n
    leaf.check_animal_supply({state.human: human.den, THE_NORTH_WIND: wind_animals})  # LX2
    nw = north_wind_tally(state, a.north_wind_groups)
    bonus = forest_bonus(nw.forest, human.forest)  # N13
    result = leaf.score({state.human: human, NORTH_WIND: nw}, bonus={NORTH_WIND: bonus})
    return replace(state, phase="over", result=result, human_tally=human, north_wind_tally=nw)


# --- Achievements (N14) ------------------------------------------------------------------


@dataclass(frozen=True)
class Achievement:
    """One line of the achievement sheet, in our own words."""

    id: str
    group: str
    text: Message


ACHIEVEMENT_GROUPS: tuple[str, ...] = ("animals", "squirrel", "leaves and sun", "mushrooms")
GROUP_WORDS: dict[str, Message] = {
    "animals": refusal("nw.achievement.group.animals", "animals"),
    "squirrel": refusal("nw.achievement.group.squirrel", "squirrel"),
    "leaves and sun": refusal("nw.achievement.group.leaves", "leaves and sun"),
    "mushrooms": refusal("nw.achievement.group.mushrooms", "mushrooms"),
}

ACHIEVEMENTS: tuple[Achievement, ...] = (
    Achievement(
        "den-4-3-2",
        "animals",
        refusal("nw.achievement.den-4-3-2", "Winter Den holds three kinds: at least 4, 3 and 2"),
    ),
    Achievement(
        "den-5",
        "animals",
        refusal("nw.achievement.den-5", "Five animals of one kind in your Winter Den"),
    ),
    Achievement(
        "den-6",
        "animals",
        refusal("nw.achievement.den-6", "Six animals of one kind in your Winter Den"),
    ),
    Achievement(
        "eight-kinds",
        "animals",
        refusal("nw.achievement.eight-kinds", "Every one of the 8 kinds among your animals"),
    ),
    Achievement(
        "acorn-animals-6",
        "animals",
        refusal("nw.achievement.acorn-animals-6", "At least 6 of your animals carry an acorn"),
    ),
    Achievement(
        "acorn-animals-9",
        "animals",
        refusal("nw.achievement.acorn-animals-9", "At least 9 of your animals carry an acorn"),
    ),
    Achievement(
        "above-3",
        "squirrel",
        refusal("nw.achievement.above-3", "Your squirrel ends 3+ spaces over the North Wind's"),
    ),
    Achievement(
        "above-5",
        "squirrel",
        refusal("nw.achievement.above-5", "Your squirrel ends 5+ spaces over the North Wind's"),
    ),
    Achievement(
        "above-7",
        "squirrel",
        refusal("nw.achievement.above-7", "Your squirrel ends 7+ spaces over the North Wind's"),
    ),
    Achievement(
        "past-double",
        "squirrel",
        refusal("nw.achievement.past-double", "Your squirrel passed both double-acorn spaces"),
    ),
    Achievement(
        "top",
        "squirrel",
        refusal("nw.achievement.top", "Your squirrel sits on the very top of the tree"),
    ),
    Achievement(
        "sun-2",
        "leaves and sun",
        refusal("nw.achievement.sun-2", "You finish with 2 sun or more"),
    ),
    Achievement(
        "sun-5",
        "leaves and sun",
        refusal("nw.achievement.sun-5", "You finish with 5 sun or more"),
    ),
    Achievement(
        "distinct-3",
        "leaves and sun",
        refusal("nw.achievement.distinct-3", "3+ different leaf shapes among your cards"),
    ),
    Achievement(
        "distinct-5",
        "leaves and sun",
        refusal("nw.achievement.distinct-5", "5 different leaf shapes among your cards"),
    ),
    Achievement(
        "no-empty-piles",
        "leaves and sun",
        refusal("nw.achievement.no-empty-piles", "The game ends with no leaf pile empty"),
    ),
    Achievement(
        "empty-handed",
        "leaves and sun",
        refusal("nw.achievement.empty-handed", "You finish with no leaf cards and no sun"),
    ),
    Achievement(
        "adults-5",
        "mushrooms",
        refusal("nw.achievement.adults-5", "5 adult mushrooms of yours on the board"),
    ),
    Achievement(
        "two-threes",
        "mushrooms",
        refusal("nw.achievement.two-threes", "Two groups of 3 adult mushrooms"),
    ),
    Achievement(
        "adults-7",
        "mushrooms",
        refusal("nw.achievement.adults-7", "7 adult mushrooms of yours on the board"),
    ),
    Achievement(
        "four-alone",
        "mushrooms",
        refusal("nw.achievement.four-alone", "4+ adult mushrooms standing alone"),
    ),
    Achievement(
        "few-adults",
        "mushrooms",
        refusal("nw.achievement.few-adults", "You win with 2 adult mushrooms or fewer"),
    ),
)
ACHIEVEMENT_BY_ID: dict[str, Achievement] = {x.id: x for x in ACHIEVEMENTS}


def _not_an_achievement(achievement_id: object) -> Message:
    return refusal("nw.achieve.unknown", "%(id)s is not an achievement", id=repr(achievement_id))


def achievement_check(state: State, achievement_id: str) -> bool | None:
    """Whether the final tallies show the achievement: True, False, or None
    when the companion cannot know (the human's word is taken).

    Raises :class:`RuleError` for an unknown id or a game not scored yet.
    """
    if not isinstance(achievement_id, str) or achievement_id not in ACHIEVEMENT_BY_ID:
        raise RuleError(_not_an_achievement(achievement_id))
    t = state.human_tally
    if t is None:
        raise RuleError(
            refusal("nw.achieve.too-early", "achievements are ticked after the final score")
        )
    den = sorted((n for n in t.den.values() if n), reverse=True)
    adults = sum(t.mushroom_groups)
    above = t.tree - state.height
    checks: dict[str, bool | None] = {
        "den-4-3-2": len(den) >= 3 and den[0] >= 4 and den[1] >= 3 and den[2] >= 2,
        "den-5": bool(den) and den[0] >= 5,
        "den-6": bool(den) and den[0] >= 6,
        "eight-kinds": None,
        "acorn-animals-6": None,
        "acorn-animals-9": None,
        "above-3": above >= 3,
        "above-5": above >= 5,
        "above-7": above >= 7,
        "past-double": None,
        "top": None if t.tree > 0 and not state.at_top else False,  # NX5
        "sun-2": t.sun >= 2,
        "sun-5": t.sun >= 5,
        "distinct-3": None if t.leaf_cards >= 3 else False,
        "distinct-5": None if t.leaf_cards >= 5 else False,
        "no-empty-piles": not state.empty_piles,
        "empty-handed": t.leaf_cards == 0 and t.sun == 0,
        "adults-5": adults >= 5,
        "two-threes": sum(1 for g in t.mushroom_groups if g >= 3) >= 2,
        "adults-7": adults >= 7,
        "four-alone": sum(1 for g in t.mushroom_groups if g == 1) >= 4,
        "few-adults": adults <= 2,
    }
    return checks[achievement_id]


def _achieve(state: State, a: Achieve) -> State:
    _expect(state, "over", doing=refusal("nw.doing.achieve", "tick achievements"))
    if not state.human_won:
        raise IllegalAction(
            refusal("nw.achieve.no-win", "achievements are for a win against the North Wind")
        )
    if state.achievements:
        raise IllegalAction(
            refusal(
                "nw.achieve.again",
                "achievements for this game are already ticked (undo to change)",
            )
        )
    ids = _seq(a.ids, refusal("nw.what.achievements", "the achievements"))
    if not 1 <= len(ids) <= 2:
        raise RuleError(
            refusal("nw.achieve.how-many", "tick one or two achievements, not %(n)s", n=len(ids))
        )
    groups = []
    for x in ids:
        if not isinstance(x, str) or x not in ACHIEVEMENT_BY_ID:
            raise RuleError(_not_an_achievement(x))
        if achievement_check(state, x) is False:
            raise RuleError(
                refusal(
                    "nw.achieve.not-shown",
                    "your final tally does not show “%(achievement)s”",
                    achievement=ACHIEVEMENT_BY_ID[x].text,
                )
            )
        groups.append(ACHIEVEMENT_BY_ID[x].group)
    if len(set(groups)) != len(groups):
        raise RuleError(
            refusal(
                "nw.achieve.same-group",
                "only one achievement per group: both are in “%(group)s”",
                group=GROUP_WORDS[groups[0]],
            )
        )  # N14
    return replace(state, achievements=ids)


_HANDLERS: dict[type, Any] = {
    SetupAnimals: _setup,
    ReactionSun: _reaction,
    PileEmptied: _pile,
    HumanSeason: _human_season,
    EndHumanTurn: _end_human,
    Draw: _draw,
    Reshuffle: _reshuffle,
    Place: _place,
    Done: _done,
    Red: _red,
    Orange: _orange,
    Brown: _brown,
    Season: _season,
    Hibernate: _hibernate,
    FinalScore: _final,
    Achieve: _achieve,
}


def replay(actions: Iterable[object], human: str = "You", difficulty: str = "normal") -> State:
    """The state after applying ``actions`` to a new game (undo = replay minus one)."""
    state = new_game(human, difficulty)
    for action in actions:
        state = apply(state, action)
    return state
