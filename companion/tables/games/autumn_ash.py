"""The Autumn Ash race to 21 as a table game.

Two players. Options: ``{"rainbow": name}``, the player who plays the
Rainbow colours (green → black); the other plays Xeno (clear → purple). The
log holds :class:`companion.rules.autumn_ash.Bag` actions as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import autumn_ash
from companion.rules.errors import RuleError

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    if len(players) != 2:
        raise RuleError(f"Autumn Ash is for 2 players, not {len(players)}")
    rainbow = options.get("rainbow", players[0])
    if rainbow not in players:
        raise RuleError(f"{rainbow!r} is not one of the players, so cannot play Rainbow")
    xeno = players[1] if rainbow == players[0] else players[0]
    return autumn_ash.new_game(rainbow, xeno)


KIND = GameKind(
    key="autumn_ash",
    title="Autumn Ash",
    min_players=2,
    max_players=2,
    new_state=_new_state,
    apply=applier(autumn_ash),
    blurb="Score the race to 21: tap the bagged pyramids, see the points and the bonuses.",
)
