"""The score pad as a table game."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from companion.rules import scorepad
from companion.rules.messages import marked, named

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return scorepad.new_game(players, lowest_wins=bool(options.get("lowest_wins", False)))


def _depends_on(pad: scorepad.ScorePad, action: Mapping[str, Any]) -> Hashable | None:
    """A new round depends on how many rounds there are (two phones adding
    "round 3" at once is one round typed twice); a fix depends on its own
    cell only, so fixes of different entries commute."""
    if action.get("type") == "AddRound":
        return ("rounds", len(pad.rounds))
    if action.get("type") == "FixEntry":
        number, player = action.get("round"), action.get("player")
        if player in pad.players and isinstance(number, int) and 1 <= number <= len(pad.rounds):
            return ("cell", number, player, pad.rounds[number - 1][pad.players.index(player)])
    return None


KIND = GameKind(
    key="scorepad",
    title=named("game.scorepad", "Score pad"),
    min_players=1,
    max_players=12,
    new_state=_new_state,
    apply=applier(scorepad),
    blurb=marked("Any other game: one column per player, a row per round."),
    depends_on=_depends_on,
)
