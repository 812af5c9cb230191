"""Leaf's multiplayer score sheet as a table game (rulings L1-L5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import leaf
from companion.rules.messages import marked, named

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return leaf.new_game(players)


KIND = GameKind(
    key="leaf",
    title=named("game.leaf", "Leaf scoring"),
    min_players=2,
    max_players=4,
    new_state=_new_state,
    apply=applier(leaf),
    blurb=marked("End of a Leaf game: each player's count turns into acorns and a winner."),
    shows_seats=True,  # this phone's own player's sheet or pad
)
