"""Autumn Leaves as a table game: the setup and the logged actions.

No options. The table's seed decides exact ties in play order (A3), so a
replay of the log always gives the same order. The log holds the actions of
:mod:`companion.rules.autumn_leaves` as JSON (``Reveal``, ``Place``,
``TakeBack``, ``DiscardDraw``, ``Highest``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import autumn_leaves

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return autumn_leaves.new_game(players, seed)


KIND = GameKind(
    key="autumn_leaves",
    title="Autumn Leaves",
    min_players=autumn_leaves.MIN_PLAYERS,
    max_players=autumn_leaves.MAX_PLAYERS,
    new_state=_new_state,
    apply=applier(autumn_leaves),
    blurb="Race to empty your hand onto the leaf piles; six hands, 3 to 6 players, a Pairs deck.",
)
