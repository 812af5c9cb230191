"""Players' names cut short enough for a narrow score table, never so short
that two players read the same (issue 43: Anna, Anne and Andrew all read
"An…" when the browser cut them)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

#: A head shorter than this reads as a code rather than a name ("B", "Cl").
LEAST = 3


def _letters(name: str) -> list[str]:
    """The name in letters as a reader sees them: an accent that Unicode
    writes as a character of its own stays with the letter before it."""
    letters: list[str] = []
    for char in name:
        if letters and unicodedata.combining(char):
            letters[-1] += char
        else:
            letters.append(char)
    return letters


def _folded(text: str) -> str:
    """What a reader compares: the same letters in any case or encoding."""
    return unicodedata.normalize("NFC", text).casefold()


def short_names(players: Sequence[str], least: int = LEAST) -> dict[str, str]:
    """Each player's shortest beginning that no other player's name starts
    with (ignoring case), at least ``least`` letters; the whole name when
    nothing shorter tells it apart.

    >>> short_names(["Anna", "Anne", "Andrew", "Ben"])
    {'Anna': 'Anna', 'Anne': 'Anne', 'Andrew': 'And', 'Ben': 'Ben'}
    >>> short_names(["Ann", "Anna", "Christopher", "Christina"])
    {'Ann': 'Ann', 'Anna': 'Anna', 'Christopher': 'Christo', 'Christina': 'Christi'}
    """
    folded = {p: _folded(p) for p in players}
    short: dict[str, str] = {}
    for player in players:
        letters = _letters(player)
        others = [folded[p] for p in players if p != player]
        short[player] = player
        for size in range(least, len(letters)):
            head = "".join(letters[:size])
            if head != head.rstrip():  # "Jo " would read as "Jo"
                continue
            if not any(other.startswith(_folded(head)) for other in others):
                short[player] = head
                break
    return short
