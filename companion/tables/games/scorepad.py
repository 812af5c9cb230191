"""The score pad as a table game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import scorepad

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return scorepad.new_game(players, lowest_wins=bool(options.get("lowest_wins", False)))


KIND = GameKind(
    key="scorepad",
    title="Score pad",
    min_players=1,
    max_players=12,
    new_state=_new_state,
    apply=applier(scorepad),
    blurb="Any other game: one column per player, a row per round.",
)
