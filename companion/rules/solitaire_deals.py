"""Deals the solver has won, sorted by how hard it found them: for players
who want a deal that can be won, or a deal of a chosen difficulty.

The table (``solitaire_deals.txt``, shipped with the package) is written by
``python benchmarks/solitaire.py table`` from the benchmark's file of
decided deals: every seed there that the solver won, with its winning line
replayed through the rules engine. The level is the solver's effort, the
positions it expanded before it found the win: a third of the won deals
each, cut at the thirds of that file (the cut points are in the table's
first line). Effort is the solver's, not a player's; it still tells the
deals that fall out from the ones that need many parkings and spaces.

The deals of the table that take the solver longest (more than
``LINES_ABOVE`` positions) also ship with the winning line it found
(``solitaire_lines.txt``, written by ``python benchmarks/solitaire.py
lines``): a phone's few seconds may not find it again, and a deal offered as
one that can be won should be answered "yes" at once (:func:`winning_line`).

>>> table = load()
>>> sorted(table.levels) == sorted(LEVELS)
True
>>> seed = pick("easy", __import__("random").Random(1), table)
>>> seed in table.levels["easy"]
True
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from .errors import RuleError
from .messages import refusal
from .solitaire import STANDARD, Deal, Move, State, new_game, replay

LEVELS = ("easy", "medium", "hard")
WINNABLE = "winnable"  # any deal of the table, whatever its level
KINDS = ("any", WINNABLE, *LEVELS)  # "any": a random deal, winnable or not
FILE = "solitaire_deals.txt"
LINES_FILE = "solitaire_lines.txt"
# The deals whose winning lines ship: those the solver needed more than this
# many positions for. A phone waits 0.5-1.5 s for an answer, which is 20,000
# positions or fewer on a slow server (s15's machine: 30,000-60,000 a second).
LINES_ABOVE = 20_000


@dataclass(frozen=True)
class DealTable:
    """The won deals by level, and the effort (positions) at each cut."""

    levels: dict[str, tuple[int, ...]]
    cuts: tuple[int, int]
    tested: int = 0  # deals the benchmark ran: the table holds those it won

    @property
    def winnable(self) -> tuple[int, ...]:
        return tuple(sorted(seed for seeds in self.levels.values() for seed in seeds))


def parse(text: str) -> DealTable:
    """Read the table: ``# cuts A B`` then ``level: seed seed ...`` lines."""
    levels: dict[str, tuple[int, ...]] = {level: () for level in LEVELS}
    cuts = (0, 0)
    tested = 0
    for line in text.splitlines():
        if line.startswith("# tested"):
            tested = int(line.split()[2])
            continue
        if line.startswith("# cuts"):
            first, second = line.split()[2:4]
            cuts = (int(first), int(second))
            continue
        if not line.strip() or line.startswith("#"):
            continue
        name, _, seeds = line.partition(":")
        if name.strip() not in levels:
            raise RuleError(f"{name!r} is not a difficulty level ({', '.join(LEVELS)})")
        levels[name.strip()] = tuple(int(word) for word in seeds.split())
    return DealTable(levels, cuts, tested)


def write(rows: list[tuple[int, int]], tested: int = 0, also_hard: Sequence[int] = ()) -> str:
    """The table's text for won deals ``(seed, positions)`` out of ``tested``
    deals run: thirds by effort. ``also_hard``: deals other searches won
    that the solver left undecided (hard by any measure), cuts unchanged."""
    ordered = sorted(rows, key=lambda row: (row[1], row[0]))
    n = len(ordered)
    first, second = ordered[n // 3][1] if n else 0, ordered[2 * n // 3][1] if n else 0
    levels: dict[str, list[int]] = {level: [] for level in LEVELS}
    for seed, positions in rows:
        level = "easy" if positions < first else "medium" if positions < second else "hard"
        levels[level].append(seed)
    listed = {seed for seed, _ in rows}
    levels["hard"] += [seed for seed in also_hard if seed not in listed]
    lines = [
        "# Deals the solver won (benchmarks/solitaire-deals.jsonl), by the positions it expanded.",
        f"# cuts {first} {second}",
        f"# tested {max(tested, n)}",
    ]
    lines += [f"{level}: {' '.join(map(str, sorted(levels[level])))}" for level in LEVELS]
    return "\n".join(lines) + "\n"


_TABLE: DealTable | None = None


def load() -> DealTable:
    """The shipped table (read once)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = parse(resources.files(__package__).joinpath(FILE).read_text())
    return _TABLE


def pick(kind: str, rng: random.Random, table: DealTable | None = None) -> int:
    """A seed of ``kind`` (``"winnable"`` or a level) from the table.

    Raises :class:`RuleError` for an unknown kind or an empty level.
    """
    table = table or load()
    if kind == WINNABLE:
        seeds = table.winnable
    elif kind in LEVELS:
        seeds = table.levels[kind]
    else:
        raise RuleError(f"{kind!r} is not a kind of deal: choose {', '.join(KINDS)}")
    if not seeds:
        raise RuleError(
            refusal(
                "solitaire.deals.none-of-kind",
                "there are no %(kind)s deals in the table yet",
                kind=str(kind),
            )
        )
    return rng.choice(seeds)


def format_line(moves: Sequence[Move | Deal]) -> str:
    """A line as the lines file writes it, a word a move: ``D`` deals; a
    move is its source and target piles (1-6), then how many cards when more
    than one moves: ``"16 D 2513"`` (pile 1 onto 6, deal, 13 cards from 2 onto 5)."""
    words = []
    for move in moves:
        if isinstance(move, Deal):
            words.append("D")
        else:
            count = str(move.count) if move.count > 1 else ""
            words.append(f"{move.source + 1}{move.target + 1}{count}")
    return " ".join(words)


def parse_line(text: str) -> tuple[Move | Deal, ...]:
    """The moves of :func:`format_line`'s text. Raises :class:`RuleError`
    naming the first word that is not a move."""
    moves: list[Move | Deal] = []
    for word in text.split():
        if word == "D":
            moves.append(Deal())
        elif len(word) >= 2 and word.isascii() and word.isdigit() and "0" not in word[:2]:
            count = int(word[2:]) if len(word) > 2 else 1
            if not 1 <= count <= 13:
                raise RuleError(f"{word!r}: a run moves 1 to 13 cards")
            moves.append(Move(int(word[0]) - 1, int(word[1]) - 1, count))
        else:
            raise RuleError(f"{word!r} is not a move: write D, or two piles and a count")
    return tuple(moves)


def parse_lines(text: str) -> dict[int, str]:
    """The lines file: ``seed: moves`` a line, ``#`` comments. The moves
    stay text until a deal's line is asked for (:func:`winning_line`)."""
    lines: dict[int, str] = {}
    for row in text.splitlines():
        if not row.strip() or row.startswith("#"):
            continue
        seed, colon, moves = row.partition(":")
        if not colon or not (seed.strip().isascii() and seed.strip().isdigit()):
            raise RuleError(f"{row[:40]!r} is not a deal's line: write 'seed: moves'")
        lines[int(seed)] = moves.strip()
    return lines


def write_lines(lines: dict[int, str], header: Sequence[str] = ()) -> str:
    """The lines file's text: ``header`` as comments, then the deals by seed."""
    rows = [f"# {words}" for words in header]
    rows += [f"{seed}: {lines[seed]}" for seed in sorted(lines)]
    return "\n".join(rows) + "\n"


class _ShippedLines:
    """The shipped lines, read once; each deal's replayed the first time it is
    asked for, so a line that does not win is never given out."""

    def __init__(self) -> None:
        self._text: dict[int, str] | None = None
        self._checked: dict[int, tuple[Move | Deal, ...] | None] = {}
        self._lock = threading.Lock()

    def text(self) -> dict[int, str]:
        with self._lock:
            if self._text is None:
                source = resources.files(__package__).joinpath(LINES_FILE)
                self._text = parse_lines(source.read_text()) if source.is_file() else {}
            return self._text

    def line(self, seed: int) -> tuple[Move | Deal, ...] | None:
        text = self.text().get(seed)
        if text is None:
            return None
        with self._lock:
            if seed not in self._checked:
                self._checked[seed] = _winning(seed, text)
            return self._checked[seed]


def _winning(seed: int, text: str) -> tuple[Move | Deal, ...] | None:
    """The moves of ``text`` if they win deal ``seed``; None if they do not
    (or are not moves at all)."""
    try:
        moves = parse_line(text)
        return moves if replay(new_game(seed), moves).won else None
    except RuleError:
        return None


_SHIPPED = _ShippedLines()


def winning_line(state: State) -> tuple[Move | Deal, ...] | None:
    """The shipped winning line from ``state`` when it is the very start of a
    standard deal that has one; else None (the solver must search)."""
    seed = state.seed
    if seed is None or state.layout != STANDARD or seed not in _SHIPPED.text():
        return None
    start = new_game(seed)
    if (state.piles, state.hidden, state.hand) != (start.piles, start.hidden, start.hand):
        return None
    return _SHIPPED.line(seed)
