"""The Autumn Leaves screen: reveal, play order, piles to tap, scoring, six hands.

Forms (all posted to the table's act URL with ``action`` set):

* ``reveal``: ``player``, ``card`` — one player's revealed card (a number pad).
* ``reveal-all``: ``card0`` ... ``cardN`` by seat — several players at once from
  one phone; blank seats are skipped.
* ``place``: ``player``, ``pile`` (the owner of the pile).
* ``take-back`` / ``discard-draw``: ``player``.
* ``highest`` / ``highest-all``: like the two reveal forms, for the highest
  card in hand at the end of a hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import autumn_leaves as al
from companion.rules.cards import parse_card
from companion.rules.errors import RuleError

from . import FormError, Screen


def _player(form: Mapping[str, str], state: al.State, field: str = "player") -> str:
    name = form.get(field, "")
    if name not in state.players:
        if not name:
            raise FormError("This form does not say which player it is for. Reload the page.")
        raise FormError(f"There is no player called {name[:40]!r} at this table.")
    return name


def _card(text: str, who: str) -> int:
    try:
        return parse_card(text)
    except RuleError as exc:
        raise FormError(f"{who}'s card: {exc}.") from exc


def _one(form: Mapping[str, str], state: al.State) -> list[list[Any]]:
    player = _player(form, state)
    return [[player, _card(form.get("card", ""), player)]]


def _many(form: Mapping[str, str], state: al.State, what: str) -> list[list[Any]]:
    entries: list[list[Any]] = []
    for i, player in enumerate(state.players):
        text = form.get(f"card{i}", "").strip()
        if text:
            entries.append([player, _card(text, player)])
    if not entries:
        raise FormError(f"Tap a card for at least one player ({what}).")
    return entries


def parse_action(form: Mapping[str, str], state: al.State, me: str | None) -> dict[str, Any]:
    """The posted form as a JSON action for :mod:`companion.rules.autumn_leaves`.

    Raises :class:`FormError` for an unknown button, an unknown player or a
    card that is not 1..10; whether the move is allowed now is the rules' call.
    """
    action = form.get("action", "")
    if action == "reveal":
        return {"type": "Reveal", "cards": _one(form, state)}
    if action == "reveal-all":
        return {"type": "Reveal", "cards": _many(form, state, "the revealed cards")}
    if action == "highest":
        return {"type": "Highest", "cards": _one(form, state)}
    if action == "highest-all":
        return {"type": "Highest", "cards": _many(form, state, "the highest cards in hand")}
    if action == "place":
        player = _player(form, state)
        if not form.get("pile"):
            raise FormError("Tap the pile the card goes on.")
        return {"type": "Place", "player": player, "pile": _player(form, state, "pile")}
    if action == "unreveal":
        return {"type": "Unreveal", "player": _player(form, state)}
    if action == "take-back":
        return {"type": "TakeBack", "player": _player(form, state)}
    if action == "discard-draw":
        return {"type": "DiscardDraw", "player": _player(form, state)}
    raise FormError("That button does nothing in Autumn Leaves. Reload the page.")


def summary(state: al.State) -> str:
    """One line for the list of tables."""
    if state.phase == al.OVER:
        return (
            "Game over: "
            + " and ".join(state.game_winners)
            + (" wins" if len(state.game_winners) == 1 else " share the win")
        )
    return f"Hand {state.hand} of {al.HANDS}, round {state.round}"


def _cards(entries: Any) -> str:
    try:
        return ", ".join(
            f"{player} (face down)" if card == "hidden" else f"{player} {card}"
            for player, card in entries
        )
    except (TypeError, ValueError):
        return str(entries)


def describe(action: Mapping[str, Any]) -> str:
    """One logged action in words for the history."""
    kind = action.get("type")
    player = action.get("player")
    if kind == "Reveal":
        return "Revealed: " + _cards(action.get("cards", ()))
    if kind == "Place":
        pile = action.get("pile")
        where = "their own pile" if pile == player else f"{pile}'s pile"
        return f"{player} placed their card on {where}"
    if kind == "TakeBack":
        return f"{player} took their card back"
    if kind == "Unreveal":
        return f"{player} took back the card they had entered"
    if kind == "DiscardDraw":
        return f"{player} discarded their card and drew"
    if kind == "Highest":
        return "Highest in hand: " + _cards(action.get("cards", ()))
    return str(kind)


SCREEN = Screen(
    game="autumn_leaves",
    board_template="autumn_leaves/_board.html",
    parse_action=parse_action,
    summary=summary,
    describe=describe,
    uses_seats=True,
)
