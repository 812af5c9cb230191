"""Leaf's multiplayer score sheet as a table game (rulings L1-L5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import actions, leaf

from . import GameKind


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return leaf.new_game(players)


def _apply(state: Any, action: Mapping[str, Any]) -> Any:
    return leaf.apply(state, actions.from_dict(action, leaf.ACTIONS))


KIND = GameKind(
    key="leaf",
    title="Leaf scoring",
    min_players=2,
    max_players=4,
    new_state=_new_state,
    apply=_apply,
    blurb="End of a Leaf game: each player's count turns into acorns and a winner.",
)
