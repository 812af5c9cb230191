"""Leaf's North Wind solo opponent as a table game (rulings N1-N14).

Every card the player draws for the North Wind is an action in the log, so
undo replays the same draws and never changes what was drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import north_wind
from companion.rules.messages import marked, named

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return north_wind.new_game(players[0], str(options.get("difficulty", "normal")))


KIND = GameKind(
    key="north_wind",
    title=named("game.north_wind", "Leaf solo: the North Wind"),
    min_players=1,
    max_players=1,
    new_state=_new_state,
    apply=applier(north_wind),
    blurb=marked("Play Leaf alone: the app runs the North Wind, one card at a time."),
)
