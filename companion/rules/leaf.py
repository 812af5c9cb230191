"""Leaf: end-of-game scoring for every player (rulings L1-L5).

The companion never sees the forest floor. At the end of a game each player
counts what is in front of them (Winter Den animals by type, the sizes of
their groups of adult mushrooms, how high their squirrel climbed, sun tokens,
leaf cards, acorn tokens, "-3" tokens) and this module turns those tallies
into acorns, a breakdown per player and the winner.

>>> animal_acorns(2), animal_acorns(4), mushroom_acorns(3), mushroom_acorns(5)
(3, 7, 8, 10)
>>> leftover_acorns(sun=2, leaf_cards=3)
2
>>> tree_acorns({"Ana": 7, "Ben": 7, "Cleo": 5})
{'Ana': 6, 'Ben': 6, 'Cleo': 0}
>>> from collections import Counter
>>> sorted(Counter(leaf_actions({"orange": 2, "yellow": 1, "brown": 2})).items())
[('brown', 2), ('orange', 2), ('yellow', 1)]

A multiplayer score sheet is a small state machine too: each player enters
a :class:`Tally` (``EnterTally``) and the :class:`Result` appears once all
have.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import IllegalAction, RuleError, TooManyCopies
from .messages import Message, Param, plain, refusal, refusal_n

#: The five leaf colours; the order is the North Wind's preference (N3).
COLOURS: tuple[str, ...] = ("red", "orange", "brown", "yellow", "green")

#: The colours and what a tip of each lets the player do (our own short
#: words), worded where they are shown.
COLOUR_WORDS: dict[str, Message] = {
    "red": refusal("leaf.colour.red", "red"),
    "orange": refusal("leaf.colour.orange", "orange"),
    "brown": refusal("leaf.colour.brown", "brown"),
    "yellow": refusal("leaf.colour.yellow", "yellow"),
    "green": refusal("leaf.colour.green", "green"),
}
ACTION_WORDS: dict[str, Message] = {
    "red": refusal("leaf.action.red", "grow a mushroom"),
    "orange": refusal("leaf.action.orange", "gain an animal"),
    "brown": refusal("leaf.action.brown", "climb the tree"),
    "yellow": refusal("leaf.action.yellow", "gain a sun token"),
    "green": refusal("leaf.action.green", "draw a leaf card"),
}

#: The six leaf shapes of the Leaf box, as keys; ``LEAF_WORDS`` spells them.
LEAF_SHAPES: tuple[str, ...] = (
    "sweetgum",
    "tulip-poplar",
    "ginkgo",
    "sassafras",
    "silver-maple",
    "trident-maple",
)

#: The leaf shapes' names as words for people (the trees' names in each language).
LEAF_WORDS: dict[str, Message] = {
    "sweetgum": refusal("leaf.shape.sweetgum", "sweetgum"),
    "tulip-poplar": refusal("leaf.shape.tulip-poplar", "tulip poplar"),
    "ginkgo": refusal("leaf.shape.ginkgo", "ginkgo"),
    "sassafras": refusal("leaf.shape.sassafras", "sassafras"),
    "silver-maple": refusal("leaf.shape.silver-maple", "silver maple"),
    "trident-maple": refusal("leaf.shape.trident-maple", "trident maple"),
}

#: The eight animal types of the animal deck.
ANIMALS: tuple[str, ...] = (
    "fox",
    "turtle",
    "frog",
    "owl",
    "hedgehog",
    "squirrel",
    "blackbird",
    "raven",
)
ANIMAL_PLURALS: dict[str, str] = {
    "fox": "foxes",
    "turtle": "turtles",
    "frog": "frogs",
    "owl": "owls",
    "hedgehog": "hedgehogs",
    "squirrel": "squirrels",
    "blackbird": "blackbirds",
    "raven": "ravens",
}

#: The animals' names for people: one animal, and a type's cards together.
ANIMAL_WORDS: dict[str, Message] = {
    "fox": refusal("leaf.animal.fox", "fox"),
    "turtle": refusal("leaf.animal.turtle", "turtle"),
    "frog": refusal("leaf.animal.frog", "frog"),
    "owl": refusal("leaf.animal.owl", "owl"),
    "hedgehog": refusal("leaf.animal.hedgehog", "hedgehog"),
    "squirrel": refusal("leaf.animal.squirrel", "squirrel"),
    "blackbird": refusal("leaf.animal.blackbird", "blackbird"),
    "raven": refusal("leaf.animal.raven", "raven"),
}
ANIMAL_PLURAL_WORDS: dict[str, Message] = {
    "fox": refusal("leaf.animals.fox", "foxes"),
    "turtle": refusal("leaf.animals.turtle", "turtles"),
    "frog": refusal("leaf.animals.frog", "frogs"),
    "owl": refusal("leaf.animals.owl", "owls"),
    "hedgehog": refusal("leaf.animals.hedgehog", "hedgehogs"),
    "squirrel": refusal("leaf.animals.squirrel", "squirrels"),
    "blackbird": refusal("leaf.animals.blackbird", "blackbirds"),
    "raven": refusal("leaf.animals.raven", "ravens"),
}


def animal_count(animal: str, count: int) -> Message:
    """``"1 fox"``, ``"2 foxes"`` as a message (each language its plural forms)."""
    n = {"n": count}
    counted = {
        "fox": refusal_n("leaf.count.fox", "%(n)s fox", "%(n)s foxes", "n", **n),
        "turtle": refusal_n("leaf.count.turtle", "%(n)s turtle", "%(n)s turtles", "n", **n),
        "frog": refusal_n("leaf.count.frog", "%(n)s frog", "%(n)s frogs", "n", **n),
        "owl": refusal_n("leaf.count.owl", "%(n)s owl", "%(n)s owls", "n", **n),
        "hedgehog": refusal_n("leaf.count.hedgehog", "%(n)s hedgehog", "%(n)s hedgehogs", "n", **n),
        "squirrel": refusal_n("leaf.count.squirrel", "%(n)s squirrel", "%(n)s squirrels", "n", **n),
        "blackbird": refusal_n(
            "leaf.count.blackbird", "%(n)s blackbird", "%(n)s blackbirds", "n", **n
        ),
        "raven": refusal_n("leaf.count.raven", "%(n)s raven", "%(n)s ravens", "n", **n),
    }
    return counted.get(animal) or plain(plural(animal, count))


def what(words: str | Message) -> Message:
    """What a count is, as a message (plain English words get no id)."""
    return words if isinstance(words, Message) else plain(words)


#: Ruling of our own (LX2): 48 animal cards in 8 types, so 6 of each.
COPIES_PER_ANIMAL = 6
#: Each player has 15 mushroom tokens (babies and adults together).
MUSHROOMS_PER_PLAYER = 15
#: The leaf deck has 36 cards.
LEAF_CARD_COUNT = 36
#: Typo guard: no placed leaf touches more tips than this.
MAX_TIPS = 12
#: Ruling of our own (LX3): no squirrel climbs more spaces than this. The rule
#: texts do not number the tree's spaces, so this is a bound on every path from
#: the start space to the top (a skipped space counted), not the board's count;
#: kept here alone so it can be set to the board once it is known.
MOST_SPACES_CLIMBED = 15


def _count(value: object, named: str | Message, *, low: int = 0, high: int | None = None) -> int:
    """``value`` as an int in ``low..high``; raises RuleError naming what it counts."""
    thing = what(named)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(
            refusal(
                "leaf.count.not-whole",
                "%(what)s must be a whole number, not %(value)s",
                what=thing,
                value=repr(value),
            )
        )
    if value < low:
        raise RuleError(
            refusal(
                "leaf.count.too-few",
                "%(what)s cannot be %(value)s: it must be at least %(low)s",
                what=thing,
                value=value,
                low=low,
            )
        )
    if high is not None and value > high:
        raise RuleError(
            refusal(
                "leaf.count.too-many",
                "%(what)s cannot be %(value)s: it is at most %(high)s",
                what=thing,
                value=value,
                high=high,
            )
        )
    return value


THE_SQUIRREL = refusal("leaf.what.the-squirrel", "the squirrel")


def check_climb(
    spaces: object, squirrel: str | Message = THE_SQUIRREL, height: str | Message = ""
) -> int:
    """``spaces`` climbed by ``squirrel``, if the tree can hold it (LX3).

    ``height`` names the count in a message about its type (by default
    "<squirrel>'s height").

    Raises :class:`RuleError` for a negative or non-integer count, and for a
    climb longer than any path up the tree, saying why.

    >>> check_climb(7, "Ana's squirrel")
    7
    >>> check_climb(40, "Ana's squirrel")
    Traceback (most recent call last):
    ...
    companion.rules.errors.RuleError: Ana's squirrel cannot have climbed 40 spaces: no path up \
the tree is longer than 15 spaces, start space to top (LX3)
    """
    who = what(squirrel)
    n = _count(spaces, height or refusal("leaf.what.height", "%(squirrel)s's height", squirrel=who))
    if n > MOST_SPACES_CLIMBED:
        raise RuleError(
            refusal_n(
                "leaf.tree.too-high",
                "%(squirrel)s cannot have climbed %(n)s space: no path up the tree is longer "
                "than %(most)s spaces, start space to top (LX3)",
                "%(squirrel)s cannot have climbed %(n)s spaces: no path up the tree is longer "
                "than %(most)s spaces, start space to top (LX3)",
                "n",
                squirrel=who,
                n=n,
                most=MOST_SPACES_CLIMBED,
            )
        )
    return n


def spaces(count: int) -> str:
    """``"1 space"``, ``"7 spaces"``: a climb in words."""
    return f"{count} space{'' if count == 1 else 's'}"


def plural(animal: str, count: int) -> str:
    """``"1 fox"``, ``"2 foxes"``."""
    return f"{count} {animal if count == 1 else ANIMAL_PLURALS.get(animal, animal + 's')}"


def check_animal(animal: object) -> str:
    """``animal`` if it is one of :data:`ANIMALS`; raises RuleError otherwise."""
    if not isinstance(animal, str) or animal not in ANIMALS:
        raise RuleError(
            refusal(
                "leaf.animal.unknown",
                "%(animal)s is not an animal of Leaf; the types are %(types)s",
                animal=repr(animal),
                types=", ".join(ANIMALS),
            )
        )
    return animal


def check_colour(colour: object) -> str:
    """``colour`` if it is one of :data:`COLOURS`; raises RuleError otherwise."""
    if not isinstance(colour, str) or colour not in COLOURS:
        raise RuleError(
            refusal(
                "leaf.colour.unknown",
                "%(colour)s is not a leaf colour; the colours are %(colours)s",
                colour=repr(colour),
                colours=", ".join(COLOURS),
            )
        )
    return colour


def check_leaf(shape: object) -> str:
    """``shape`` if it is one of :data:`LEAF_SHAPES`; raises RuleError otherwise."""
    if not isinstance(shape, str) or shape not in LEAF_SHAPES:
        raise RuleError(
            refusal(
                "leaf.shape.unknown",
                "%(shape)s is not a leaf shape; the shapes are %(shapes)s",
                shape=repr(shape),
                shapes=", ".join(LEAF_SHAPES),
            )
        )
    return shape


# --- L1-L4: the scoring tables --------------------------------------------------------


def animal_acorns(count: int) -> int:
    """Acorns for ``count`` animals of one type in a Winter Den (L1).

    1 → 1, 2 → 3, 3 → 6, then +1 for each animal past the third; 0 → 0.
    Raises :class:`RuleError` for a negative count or a non-integer.

    >>> [animal_acorns(n) for n in range(7)]
    [0, 1, 3, 6, 7, 8, 9]
    """
    n = _count(count, refusal("leaf.what.animals", "the number of animals"))
    return (0, 1, 3, 6)[n] if n <= 3 else 6 + (n - 3)  # L1


GROUP_SIZE = refusal("leaf.what.group-size", "the size of a mushroom group")
SUN_TOKENS = refusal("leaf.what.sun", "sun tokens")
LEAF_CARDS = refusal("leaf.what.leaf-cards", "leaf cards")


def mushroom_acorns(group_size: int) -> int:
    """Acorns for one group of ``group_size`` connected adult mushrooms (L2).

    1 → 1, 2 → 3, 3 → 8, then +1 for each mushroom past the third; 0 → 0.
    Raises :class:`RuleError` for a negative size or a non-integer.

    >>> [mushroom_acorns(n) for n in range(7)]
    [0, 1, 3, 8, 9, 10, 11]
    """
    n = _count(group_size, GROUP_SIZE)
    return (0, 1, 3, 8)[n] if n <= 3 else 8 + (n - 3)  # L2


def leftover_acorns(sun: int, leaf_cards: int) -> int:
    """One acorn per two of sun tokens and leaf cards together, rounded down (L3).

    Raises :class:`RuleError` for a negative or non-integer count.

    >>> leftover_acorns(1, 1), leftover_acorns(0, 5)
    (1, 2)
    """
    return (_count(sun, SUN_TOKENS) + _count(leaf_cards, LEAF_CARDS)) // 2  # L3


def tree_acorns(heights: Mapping[str, int]) -> dict[str, int]:
    """Tree awards by squirrel height: highest 6, second 3 (L4).

    ``heights`` maps each player to how many spaces their squirrel climbed.
    Ties use competition ranking: everyone tied for highest gets 6 and then
    nobody gets 3 (the next rank is third); everyone tied for second gets 3.
    Ruling of our own (LX1): a squirrel still on the start space (height 0)
    has not climbed the tree and gets nothing.
    Raises :class:`RuleError` for a negative or non-integer height, or one
    no path up the tree allows (LX3).

    >>> tree_acorns({"Ana": 4, "Ben": 2, "Cleo": 2, "Dev": 1})
    {'Ana': 6, 'Ben': 3, 'Cleo': 3, 'Dev': 0}
    >>> tree_acorns({"Ana": 0, "Ben": 0})
    {'Ana': 0, 'Ben': 0}
    """
    checked = {
        p: check_climb(
            h,
            refusal("leaf.what.squirrel-of", "%(player)s's squirrel", player=p),
            refusal("leaf.what.height-of", "%(player)s's squirrel height", player=p),
        )
        for p, h in heights.items()
    }
    awards = {p: 0 for p in checked}
    for player, height in checked.items():
        if height == 0:  # LX1
            continue
        rank = 1 + sum(1 for other in checked.values() if other > height)  # L4 competition
        awards[player] = 6 if rank == 1 else 3 if rank == 2 else 0
    return awards


def leaf_actions(tips: Mapping[str, int]) -> tuple[str, ...]:
    """One action per connected tip, of that tip's colour, in colour order.

    The colour of the placed leaf itself gives nothing; only the tips it
    touches count. Raises :class:`RuleError` for an unknown colour or a bad
    count.

    >>> leaf_actions({"green": 1, "red": 2})
    ('red', 'red', 'green')
    """
    counts = _tips(tips)
    return tuple(colour for colour in COLOURS for _ in range(counts[colour]))


def _tips(tips: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(tips, Mapping):
        raise RuleError(
            refusal(
                "leaf.tips.not-counts",
                "tips must map colours to counts, not %(tips)s",
                tips=repr(tips),
            )
        )
    counts = dict.fromkeys(COLOURS, 0)
    for colour, n in tips.items():
        counts[check_colour(colour)] = 0
        counts[colour] = _count(
            n,
            refusal("leaf.what.tips", "the number of %(colour)s tips", colour=COLOUR_WORDS[colour]),
            high=MAX_TIPS,
        )
    total = sum(counts.values())
    if total > MAX_TIPS:
        raise RuleError(
            refusal(
                "leaf.tips.too-many",
                "%(total)s tips in all is too many: a leaf touches at most %(most)s",
                total=total,
                most=MAX_TIPS,
            )
        )
    return counts


def listed(items: Sequence[Param]) -> Param:
    """Items (names, numbers or messages) as one comma-separated value."""
    if len(items) == 1:
        return items[0]
    return refusal("leaf.list", "%(first)s, %(rest)s", first=items[0], rest=listed(items[1:]))


def check_animal_supply(holders: Mapping[str | Message, Mapping[str, int]]) -> None:
    """Refuse animal counts that need more cards of a type than the deck has (LX2).

    ``holders`` maps who holds animals (a player's Winter Den, the North
    Wind's Forest ...) to counts by type. Together they may hold at most
    :data:`COPIES_PER_ANIMAL` of each type. Raises :class:`TooManyCopies`
    naming the type and who holds them.

    >>> check_animal_supply({"Ana": {"fox": 4}, "Ben": {"fox": 2}})
    >>> check_animal_supply({"Ana": {"fox": 4}, "Ben": {"fox": 3}})
    Traceback (most recent call last):
    ...
    companion.rules.errors.TooManyCopies: there are only 6 foxes in the animal deck, \
but these counts hold 7 (Ana 4, Ben 3)
    """
    for animal in ANIMALS:
        held = [(who, n) for who, counts in holders.items() if (n := counts.get(animal, 0))]
        total = sum(n for _, n in held)
        if total > COPIES_PER_ANIMAL:
            who = listed(
                [refusal("leaf.holds", "%(who)s %(n)s", who=name, n=n) for name, n in held]
            )
            raise TooManyCopies(
                refusal(
                    "leaf.animals.too-many",
                    "there are only %(copies)s %(animals)s in the animal deck, "
                    "but these counts hold %(total)s (%(who)s)",
                    copies=COPIES_PER_ANIMAL,
                    animals=ANIMAL_PLURAL_WORDS[animal],
                    total=total,
                    who=who,
                )
            )


# --- Tallies, breakdowns and the winner (L5) -------------------------------------------


def _not_a_den(den: object) -> Message:
    return refusal(
        "leaf.den.not-counts",
        "the Winter Den must map animal types to counts, not %(den)s",
        den=repr(den),
    )


@dataclass(frozen=True)
class Tally:
    """What one player counts at the end of the game.

    ``den`` maps animal types to how many are in the Winter Den (Forest
    animals score nothing, L1); ``mushroom_groups`` lists the size of each
    group of connected adult mushrooms (L2); ``tree`` is how many spaces the
    squirrel climbed (L4); ``forest`` is how many animals are left in the
    Forest (used only by the North Wind's bonus, N13).
    """

    den: Mapping[str, int] = field(default_factory=dict)
    mushroom_groups: tuple[int, ...] = ()
    tree: int = 0
    sun: int = 0
    leaf_cards: int = 0
    acorn_tokens: int = 0
    minus_three: int = 0
    forest: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.den, Mapping):
            raise RuleError(_not_a_den(self.den))
        for animal, n in self.den.items():
            check_animal(animal)
            _count(
                n,
                refusal(
                    "leaf.what.den",
                    "the number of %(animals)s in the Winter Den",
                    animals=ANIMAL_PLURAL_WORDS[animal],
                ),
                high=COPIES_PER_ANIMAL,
            )
        groups = tuple(self.mushroom_groups)
        for size in groups:
            _count(size, GROUP_SIZE, low=1, high=MUSHROOMS_PER_PLAYER)
        if sum(groups) > MUSHROOMS_PER_PLAYER:
            raise RuleError(
                refusal(
                    "leaf.groups.too-many",
                    "mushroom groups of %(groups)s make %(adults)s adults, "
                    "but a player has only %(most)s mushrooms",
                    groups="+".join(map(str, groups)),
                    adults=sum(groups),
                    most=MUSHROOMS_PER_PLAYER,
                )
            )
        object.__setattr__(self, "mushroom_groups", groups)
        check_climb(self.tree)  # LX3
        _count(self.sun, SUN_TOKENS)
        _count(self.leaf_cards, LEAF_CARDS, high=LEAF_CARD_COUNT)
        _count(self.acorn_tokens, refusal("leaf.what.acorn-tokens", "acorn tokens"))
        _count(self.minus_three, refusal("leaf.what.minus-three", '"-3" tokens'))
        _count(
            self.forest,
            refusal("leaf.what.forest", "animals in the Forest"),
            high=COPIES_PER_ANIMAL * len(ANIMALS),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        """Build a tally from JSON-ready data (as stored in an action).

        Raises :class:`RuleError` for unknown or badly typed fields.
        """
        if not isinstance(data, Mapping):
            raise RuleError(
                refusal(
                    "leaf.tally.not-counts",
                    "a tally must be a mapping of counts, not %(data)s",
                    data=repr(data),
                )
            )
        known = {
            "den",
            "mushroom_groups",
            "tree",
            "sun",
            "leaf_cards",
            "acorn_tokens",
            "minus_three",
            "forest",
        }
        extra = set(data) - known
        if extra:
            raise RuleError(
                refusal(
                    "leaf.tally.no-field",
                    "a tally has no field %(field)s",
                    field=repr(sorted(extra)[0]),
                )
            )
        den = data.get("den", {})
        if not isinstance(den, Mapping):
            raise RuleError(_not_a_den(den))
        groups = data.get("mushroom_groups", ())
        if not isinstance(groups, list | tuple):
            raise RuleError(
                refusal(
                    "leaf.groups.not-a-list",
                    "mushroom groups must be a list of sizes, not %(groups)s",
                    groups=repr(groups),
                )
            )
        return cls(
            den=dict(den),
            mushroom_groups=tuple(groups),
            tree=data.get("tree", 0),
            sun=data.get("sun", 0),
            leaf_cards=data.get("leaf_cards", 0),
            acorn_tokens=data.get("acorn_tokens", 0),
            minus_three=data.get("minus_three", 0),
            forest=data.get("forest", 0),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data; ``Tally.from_dict(t.to_dict()) == t``."""
        return {
            "den": {a: n for a, n in self.den.items() if n},
            "mushroom_groups": list(self.mushroom_groups),
            "tree": self.tree,
            "sun": self.sun,
            "leaf_cards": self.leaf_cards,
            "acorn_tokens": self.acorn_tokens,
            "minus_three": self.minus_three,
            "forest": self.forest,
        }


@dataclass(frozen=True)
class Breakdown:
    """One player's acorns, line by line (L5); ``total`` is their sum."""

    tokens: int
    penalty: int
    animals: int
    mushrooms: int
    leftover: int
    tree: int
    bonus: int = 0

    @property
    def total(self) -> int:
        return (
            self.tokens
            - self.penalty
            + self.animals
            + self.mushrooms
            + self.leftover
            + self.tree
            + self.bonus
        )


@dataclass(frozen=True)
class Result:
    """A finished game: each player's breakdown and the winners (shared if several)."""

    breakdowns: dict[str, Breakdown]
    winners: tuple[str, ...]
    #: How the winner was decided: "acorns", "leaf cards and sun" or "shared".
    decided_by: str


def score(tallies: Mapping[str, Tally], *, bonus: Mapping[str, int] | None = None) -> Result:
    """Score every player's tally (L1-L5) and name the winner.

    Most acorns wins; a tie goes to the most leaf cards plus sun tokens; still
    tied, the win is shared (L5). ``bonus`` adds acorns per player (the North
    Wind's Forest bonus, N13). Raises :class:`RuleError` with no players and
    :class:`TooManyCopies` when the Winter Dens together hold more than 6
    animals of a type (LX2).

    Example 13 of the rule text: Hera scores 33.

    >>> hera = Tally(den={"raven": 2, "fox": 4, "owl": 1}, mushroom_groups=(2, 4), tree=1,
    ...              sun=2, leaf_cards=3, acorn_tokens=8, minus_three=1)
    >>> cleo = Tally(tree=2)
    >>> r = score({"Hera": hera, "Cleo": cleo})
    >>> r.breakdowns["Hera"].total, r.winners
    (33, ('Hera',))
    """
    if not tallies:
        raise RuleError(
            refusal("leaf.score.nobody", "nobody to score: enter at least one player's tally")
        )
    check_animal_supply({p: t.den for p, t in tallies.items()})  # LX2
    trees = tree_acorns({p: t.tree for p, t in tallies.items()})
    extra = dict(bonus or {})
    breakdowns: dict[str, Breakdown] = {}
    for player, t in tallies.items():
        breakdowns[player] = Breakdown(
            tokens=t.acorn_tokens,
            penalty=3 * t.minus_three,  # L5
            animals=sum(animal_acorns(n) for n in t.den.values()),  # L1
            mushrooms=sum(mushroom_acorns(g) for g in t.mushroom_groups),  # L2
            leftover=leftover_acorns(t.sun, t.leaf_cards),  # L3
            tree=trees[player],  # L4
            bonus=_count(
                extra.get(player, 0),
                refusal("leaf.what.bonus", "%(player)s's bonus", player=player),
            ),
        )
    best = max(b.total for b in breakdowns.values())
    leaders = [p for p, b in breakdowns.items() if b.total == best]
    if len(leaders) == 1:
        return Result(breakdowns, (leaders[0],), "acorns")
    spare = {p: tallies[p].leaf_cards + tallies[p].sun for p in leaders}  # L5 tie-break
    most = max(spare.values())
    winners = tuple(p for p in leaders if spare[p] == most)
    return Result(breakdowns, winners, "leaf cards and sun" if len(winners) == 1 else "shared")


# --- The multiplayer score sheet as a state machine ------------------------------------


@dataclass(frozen=True)
class State:
    """A Leaf score sheet: the players, the tallies entered so far, the result."""

    players: tuple[str, ...]
    tallies: tuple[tuple[str, Tally], ...] = ()
    result: Result | None = None

    def tally(self, player: str) -> Tally | None:
        return dict(self.tallies).get(player)

    @property
    def missing(self) -> tuple[str, ...]:
        entered = dict(self.tallies)
        return tuple(p for p in self.players if p not in entered)


@dataclass(frozen=True)
class EnterTally:
    """``player`` enters (or corrects) their end-of-game counts."""

    player: str
    tally: Mapping[str, Any]


ACTIONS: dict[str, type] = {"EnterTally": EnterTally}


def new_game(players: Sequence[str]) -> State:
    """An empty score sheet for 2 to 4 players (1 is the North Wind's game).

    Raises :class:`RuleError` for too few or too many players or a repeated name.
    """
    names = tuple(players)
    if not 2 <= len(names) <= 4:
        raise RuleError(
            refusal(
                "leaf.players.how-many",
                "Leaf is scored for 2 to 4 players, not %(n)s",
                n=len(names),
            )
        )
    if len(set(names)) != len(names):
        raise RuleError(refusal("leaf.players.same-name", "two players have the same name"))
    return State(players=names)


def apply(state: State, action: object) -> State:
    """The score sheet after ``action``; never mutates ``state``.

    Raises :class:`IllegalAction` for a player not at the table and
    :class:`RuleError` for a tally that cannot be right, alone or with the
    tallies already entered (more than 6 animals of a type in all: LX2).
    """
    if not isinstance(action, EnterTally):
        raise IllegalAction(
            refusal(
                "leaf.action.unknown",
                "%(action)s is not an action of a Leaf score sheet",
                action=type(action).__name__,
            )
        )
    if action.player not in state.players:
        raise IllegalAction(
            refusal(
                "leaf.player.unknown",
                "%(player)s is not playing at this table",
                player=repr(action.player),
            )
        )
    tally = Tally.from_dict(action.tally)
    entered = dict(state.tallies)
    entered[action.player] = tally
    check_animal_supply({p: t.den for p, t in entered.items()})  # LX2, before the last tally too
    ordered = tuple((p, entered[p]) for p in state.players if p in entered)
    result = score(dict(ordered)) if len(ordered) == len(state.players) else None
    return State(players=state.players, tallies=ordered, result=result)
