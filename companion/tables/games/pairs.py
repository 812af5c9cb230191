"""Pairs and Continuous Pairs as a table game (options: losing score, Continuous)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import pairs
from companion.rules.messages import marked, named

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    # The companion never shuffles for Pairs: people enter the cards they see,
    # so the seed is not needed.
    return pairs.new_game(
        players,
        continuous=bool(options.get("continuous", False)),
        target=options.get("target"),
    )


KIND = GameKind(
    key="pairs",
    title=named("game.pairs", "Pairs"),
    min_players=2,
    max_players=8,
    new_state=_new_state,
    apply=applier(pairs),
    blurb=marked("Press your luck with the Pairs deck; Continuous Pairs too. Points are bad."),
)
