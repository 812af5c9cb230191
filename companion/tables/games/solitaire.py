"""Autumn Leaves solitaire as a table game: one player, one deal.

Options: ``{"deal": N}``, the deal number (the solitaire seed, S1); without
it the table's own seed is the deal. The log holds the ``Move`` and ``Deal``
actions of :mod:`companion.rules.solitaire` as JSON, so the core's undo is
the solitaire's undo.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import solitaire
from companion.rules.errors import RuleError
from companion.rules.messages import marked, named, refusal

from . import GameKind, applier

MAX_DEAL = 999_999_999


def deal_number(options: Mapping[str, Any], seed: int) -> int:
    """The deal a table plays; raises RuleError for a bad number in the options."""
    deal = options.get("deal", seed)
    if isinstance(deal, bool) or not isinstance(deal, int) or not 0 <= deal <= MAX_DEAL:
        raise RuleError(
            refusal(
                "solitaire.options.deal",
                "a deal number is a whole number from 0 to %(most)s, not %(deal)s",
                most=MAX_DEAL,
                deal=repr(deal),
            )
        )
    return deal


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    if len(players) != 1:
        raise RuleError(
            refusal(
                "solitaire.players.one", "solitaire is for one player, not %(n)s", n=len(players)
            )
        )
    return solitaire.new_game(deal_number(options, seed))


KIND = GameKind(
    key="solitaire",
    title=named("game.solitaire", "Autumn Leaves solitaire"),
    min_players=1,
    max_players=1,
    new_state=_new_state,
    apply=applier(solitaire),
    player_view=solitaire.player_view,
    blurb=marked(
        "Toby Ord's patience for a standard deck: sort each suit King to Ace. Hints, a solver."
    ),
)
