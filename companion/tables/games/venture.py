"""Venture as a table game: the setup and the logged actions of a Venture table.

Options: ``{"drafting": bool}`` (V9: shown, not refereed). The log holds the
actions of :mod:`companion.rules.venture` as JSON (``EnterSlug``, ``Bid``,
``ChangeBid``, ``WithdrawBid``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import venture

from . import GameKind, applier


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    # The deal happens at the real table, so the seed is not needed.
    return venture.new_game(players, drafting=options.get("drafting", False))


KIND = GameKind(
    key="venture",
    title="Venture",
    min_players=venture.MIN_PLAYERS,
    max_players=venture.MAX_PLAYERS,
    new_state=_new_state,
    apply=applier(venture),
    blurb="Secret bids that capture cards, revealed together; 3 to 8 players, a Pairs deck.",
)
