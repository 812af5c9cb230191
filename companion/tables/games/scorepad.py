"""The score pad as a table game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import actions, scorepad

from . import GameKind


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return scorepad.new_game(players, lowest_wins=bool(options.get("lowest_wins", False)))


def _apply(state: Any, action: Mapping[str, Any]) -> Any:
    return scorepad.apply(state, actions.from_dict(action, scorepad.ACTIONS))


KIND = GameKind(
    key="scorepad",
    title="Score pad",
    min_players=1,
    max_players=12,
    new_state=_new_state,
    apply=_apply,
    blurb="Any other game: one column per player, a row per round.",
)
