"""Autumn Leaves as a table game: the setup and the logged actions.

No options. The table's seed decides exact ties in play order (A3), so a
replay of the log always gives the same order. The log holds the actions of
:mod:`companion.rules.autumn_leaves` as JSON (``Reveal``, ``Place``,
``TakeBack``, ``DiscardDraw``, ``Highest``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from companion.rules import autumn_leaves
from companion.rules.messages import marked, named

from . import GameKind, applier, logged


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    return autumn_leaves.new_game(players, seed)


def _entered(action: Mapping[str, Any]) -> tuple[str, ...]:
    """The players a reveal (or its taking back) is for."""
    kind = action.get("type")
    if kind == "Unreveal" and isinstance(action.get("player"), str):
        return (action["player"],)
    if kind == "Reveal" and isinstance(action.get("cards"), list):
        return tuple(
            entry[0]
            for entry in action["cards"]
            if isinstance(entry, list | tuple) and entry and isinstance(entry[0], str)
        )
    return ()


def _depends_on(state: autumn_leaves.State, action: Mapping[str, Any]) -> Hashable | None:
    """A reveal depends on the round and on its own players' cards, not on others'."""
    players = _entered(action)
    if not players or any(p not in state.players for p in players):
        return None  # turns on the piles: any change conflicts
    mine = tuple(
        (state.card_of(p), state.known_in_hand[state.seat(p)], p in state.recheck) for p in players
    )
    return (state.phase, state.hand, state.round, mine)


def _open_round(state: autumn_leaves.State) -> Hashable | None:
    return ("reveal", state.hand, state.round) if state.phase == autumn_leaves.REVEAL else None


def _redact(action: Mapping[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    shown = dict(action)
    if shown.get("type") == "Reveal" and isinstance(shown.get("cards"), list):
        shown["cards"] = [
            [entry[0], "hidden"]
            if isinstance(entry, list | tuple) and entry and entry[0] in hidden
            else entry
            for entry in shown["cards"]
        ]
    return shown


def _withdraw(state: autumn_leaves.State, player: str) -> dict[str, Any] | None:
    if state.phase == autumn_leaves.REVEAL and state.card_of(player) is not None:
        return logged(autumn_leaves.Unreveal(player))
    return None


KIND = GameKind(
    key="autumn_leaves",
    title=named("game.autumn_leaves", "Autumn Leaves"),
    min_players=autumn_leaves.MIN_PLAYERS,
    max_players=autumn_leaves.MAX_PLAYERS,
    new_state=_new_state,
    apply=applier(autumn_leaves),
    blurb=marked(
        "Race to empty your hand onto the leaf piles; six hands, 3 to 6 players, a Pairs deck."
    ),
    depends_on=_depends_on,
    personal=_entered,
    open_round=_open_round,
    redact=_redact,
    withdraw=_withdraw,
    player_view=autumn_leaves.player_view,
    shows_seats=True,
)
