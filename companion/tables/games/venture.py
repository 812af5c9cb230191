"""Venture as a table game: the setup and the logged actions of a Venture table.

Options: ``{"drafting": bool}`` (V9: shown, not refereed). The log holds the
actions of :mod:`companion.rules.venture` as JSON (``EnterSlug``, ``Bid``,
``ChangeBid``, ``WithdrawBid``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from companion.rules import venture
from companion.rules.messages import marked, named

from . import GameKind, applier, logged


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    # The deal happens at the real table, so the seed is not needed.
    return venture.new_game(players, drafting=options.get("drafting", False))


_OWN_BID = ("Bid", "ChangeBid", "WithdrawBid")


def _depends_on(state: venture.State, action: Mapping[str, Any]) -> Hashable | None:
    """A bid depends on the round and on the bidder's own bid, not on others' bids."""
    player = action.get("player")
    if action.get("type") not in _OWN_BID or player not in state.players:
        return None  # the slug: any change conflicts
    return (state.phase, state.round_number, state.bid_of(player), player in state.recheck)


def _personal(action: Mapping[str, Any]) -> tuple[str, ...]:
    player = action.get("player")
    return (player,) if action.get("type") in _OWN_BID and isinstance(player, str) else ()


def _open_round(state: venture.State) -> Hashable | None:
    return ("round", state.round_number) if state.phase == venture.BIDDING else None


def _redact(action: Mapping[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    shown = dict(action)
    if "card" in shown and shown.get("player") in hidden:
        shown["card"] = "hidden"
    return shown


def _withdraw(state: venture.State, player: str) -> dict[str, Any] | None:
    if state.phase == venture.BIDDING and state.has_bid(player):
        return logged(venture.WithdrawBid(player))
    return None


KIND = GameKind(
    key="venture",
    title=named("game.venture", "Venture"),
    min_players=venture.MIN_PLAYERS,
    max_players=venture.MAX_PLAYERS,
    new_state=_new_state,
    apply=applier(venture),
    blurb=marked(
        "Secret bids that capture cards, revealed together; 3 to 8 players, a Pairs deck."
    ),
    depends_on=_depends_on,
    personal=_personal,
    open_round=_open_round,
    redact=_redact,
    withdraw=_withdraw,
    player_view=venture.player_view,
    shows_seats=True,
)
