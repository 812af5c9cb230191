"""The Pairs deck: 55 cards, rank *n* has *n* copies (one 1, two 2s ... ten 10s).

>>> len(PAIRS_DECK), PAIRS_DECK[:4], copies(7)
(55, (1, 2, 2, 3), 7)
>>> parse_card(" 10 ")
10
>>> f"{article(8)} {8}", f"{article(7)} {7}"
('an 8', 'a 7')
>>> check_composition([3, 3, 3, 3])
Traceback (most recent call last):
...
companion.rules.errors.TooManyCopies: there are only 3 cards of rank 3, not 4
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .errors import InvalidCard, TooManyCopies
from .messages import Message, refusal, refusal_n

LOWEST_RANK = 1
HIGHEST_RANK = 10
RANKS = tuple(range(LOWEST_RANK, HIGHEST_RANK + 1))
PAIRS_DECK: tuple[int, ...] = tuple(rank for rank in RANKS for _ in range(rank))
DECK_SIZE = len(PAIRS_DECK)


def copies(rank: int) -> int:
    """How many cards of ``rank`` the deck holds (rank *n* has *n* copies).

    Raises :class:`InvalidCard` (a ValueError) for anything but an int 1..10.
    """
    if (
        isinstance(rank, bool)
        or not isinstance(rank, int)
        or not LOWEST_RANK <= rank <= HIGHEST_RANK
    ):
        raise InvalidCard(not_a_card(rank))
    return rank


def not_a_card(value: object) -> Message:
    """The refusal of something that is not a rank 1..10 (it names the value)."""
    return refusal(
        "card.not-a-card",
        "%(card)s is not a card of the Pairs deck (ranks are 1 to 10)",
        card=repr(value),
    )


def parse_card(text: str | int) -> int:
    """Read a card typed by a person: ``"7"``, ``" 10 "`` or the int ``7``.

    Raises :class:`InvalidCard` naming the input for ``0``, ``11``, ``ace``,
    ``7.5``, an empty string or anything else that is not a rank 1..10.
    """
    if isinstance(text, bool):
        raise InvalidCard(not_a_card(text))
    if isinstance(text, int):
        copies(text)
        return text
    if not isinstance(text, str):
        raise InvalidCard(not_a_card(text))
    stripped = text.strip()
    if not stripped:
        raise InvalidCard(refusal("card.none", "no card was entered: type a rank from 1 to 10"))
    # isdecimal() alone would let through any Unicode digit ("٣", "１０"): ASCII only.
    if not (stripped.isascii() and stripped.isdecimal()) or len(stripped) > 2:
        raise InvalidCard(not_a_card(text))
    rank = int(stripped)
    if not LOWEST_RANK <= rank <= HIGHEST_RANK:
        raise InvalidCard(not_a_card(text))
    return rank


def check_composition(cards: Iterable[int]) -> None:
    """Reject any multiset holding more copies of a rank than the deck has.

    Raises :class:`InvalidCard` for a non-card and :class:`TooManyCopies` for
    the lowest rank that is over its count.
    """
    counts = Counter(cards)

    def order(rank: object) -> tuple[bool, int]:
        return (not isinstance(rank, int), rank if isinstance(rank, int) else 0)

    for rank in sorted(counts, key=order):
        if counts[rank] > copies(rank):
            have = copies(rank)
            raise TooManyCopies(
                refusal_n(
                    "card.too-many",
                    "there is only %(have)s card of rank %(rank)s, not %(count)s",
                    "there are only %(have)s cards of rank %(rank)s, not %(count)s",
                    "have",
                    have=have,
                    rank=rank,
                    count=counts[rank],
                )
            )


def remaining(cards_seen: Iterable[int]) -> Counter[int]:
    """The copies of each rank not in ``cards_seen`` (checked for composition)."""
    seen = Counter(cards_seen)
    check_composition(seen.elements())
    return Counter({rank: copies(rank) - seen[rank] for rank in RANKS})


def article(number: int) -> str:
    """The indefinite article spoken before a number: "an 8" but "a 7".

    Said aloud, a number takes "an" when its name starts with a vowel sound:
    eight, eleven, eighteen, eighty-..., eight hundred, eleven thousand.

    >>> [f"{article(n)} {n}" for n in (1, 7, 8, 10)]
    ['a 1', 'a 7', 'an 8', 'a 10']
    >>> [article(n) for n in (11, 18, 21, 80, 83, 100, 800, 11_000, 110)]
    ['an', 'an', 'a', 'an', 'an', 'a', 'an', 'an', 'a']
    """
    if number < 0:
        return "a"  # "a minus 8"
    digits = str(number)
    if digits.startswith("8"):
        return "an"
    # 11 and 18 are "eleven" and "eighteen" when they lead a group of
    # thousands: 11, 18, 11,000, 18,500,000 (but 110 is "a hundred and ten").
    if len(digits) % 3 == 2 and digits[:2] in ("11", "18"):
        return "an"
    return "a"
