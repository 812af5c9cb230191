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

>>> table = load()
>>> sorted(table.levels) == sorted(LEVELS)
True
>>> seed = pick("easy", __import__("random").Random(1), table)
>>> seed in table.levels["easy"]
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from importlib import resources

from .errors import RuleError

LEVELS = ("easy", "medium", "hard")
WINNABLE = "winnable"  # any deal of the table, whatever its level
KINDS = ("any", WINNABLE, *LEVELS)  # "any": a random deal, winnable or not
FILE = "solitaire_deals.txt"


@dataclass(frozen=True)
class DealTable:
    """The won deals by level, and the effort (positions) at each cut."""

    levels: dict[str, tuple[int, ...]]
    cuts: tuple[int, int]
    tested: int = 0  # deals the benchmark ran: the table holds those it won

    @property
    def share_won(self) -> float:
        """The share of the deals tested that the solver won (0 if none)."""
        return len(self.winnable) / self.tested if self.tested else 0.0

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


def write(rows: list[tuple[int, int]], tested: int = 0) -> str:
    """The table's text for won deals ``(seed, positions)`` out of ``tested``
    deals run: thirds by effort."""
    ordered = sorted(rows, key=lambda row: (row[1], row[0]))
    n = len(ordered)
    first, second = ordered[n // 3][1] if n else 0, ordered[2 * n // 3][1] if n else 0
    levels: dict[str, list[int]] = {level: [] for level in LEVELS}
    for seed, positions in rows:
        level = "easy" if positions < first else "medium" if positions < second else "hard"
        levels[level].append(seed)
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
        raise RuleError(f"there are no {kind} deals in the table yet")
    return rng.choice(seeds)
