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

from collections.abc import Mapping, Sequence
from typing import Any

from companion.rules import autumn_leaves as al
from companion.rules.cards import article, parse_card
from companion.rules.errors import RuleError
from companion.tables.store import Event, resolve_log
from companion.web.i18n import gettext, message_of, names_and, words

from . import FormError, Screen


def _player(form: Mapping[str, str], state: al.State, field: str = "player") -> str:
    name = form.get(field, "")
    if name not in state.players:
        if not name:
            raise FormError(
                gettext("This form does not say which player it is for. Reload the page.")
            )
        raise FormError(
            gettext("There is no player called %(name)s at this table.", name=repr(name[:40]))
        )
    return name


def _card(text: str, who: str) -> int:
    try:
        return parse_card(text)
    except RuleError as exc:
        raise FormError(
            gettext("%(player)s's card: %(why)s.", player=who, why=words(message_of(exc)))
        ) from exc


Entries = tuple[tuple[str, int], ...]


def _one(form: Mapping[str, str], state: al.State) -> Entries:
    player = _player(form, state)
    return ((player, _card(form.get("card", ""), player)),)


def _many(form: Mapping[str, str], state: al.State, nothing: str) -> Entries:
    entries: list[tuple[str, int]] = []
    for i, player in enumerate(state.players):
        text = form.get(f"card{i}", "").strip()
        if text:
            entries.append((player, _card(text, player)))
    if not entries:
        raise FormError(nothing)
    return tuple(entries)


def parse_action(form: Mapping[str, str], state: al.State, me: str | None) -> al.Action:
    """The posted form as an action of :mod:`companion.rules.autumn_leaves`.

    Raises :class:`FormError` for an unknown button, an unknown player or a
    card that is not 1..10; whether the move is allowed now is the rules' call.
    """
    action = form.get("action", "")
    if action == "reveal":
        return al.Reveal(_one(form, state))
    if action == "reveal-all":
        return al.Reveal(
            _many(form, state, gettext("Tap a card for at least one player (the revealed cards)."))
        )
    if action == "highest":
        return al.Highest(_one(form, state))
    if action == "highest-all":
        return al.Highest(
            _many(
                form,
                state,
                gettext("Tap a card for at least one player (the highest cards in hand)."),
            )
        )
    if action == "place":
        player = _player(form, state)
        if not form.get("pile"):
            raise FormError(gettext("Tap the pile the card goes on."))
        return al.Place(player, _player(form, state, "pile"))
    if action == "unreveal":
        return al.Unreveal(_player(form, state))
    if action == "take-back":
        return al.TakeBack(_player(form, state))
    if action == "discard-draw":
        return al.DiscardDraw(_player(form, state))
    raise FormError(gettext("That button does nothing in Autumn Leaves. Reload the page."))


def summary(state: al.State) -> str:
    """One line for the list of tables."""
    if state.phase == al.OVER:
        if len(state.game_winners) == 1:
            return gettext("Game over: %(player)s wins", player=state.game_winners[0])
        return gettext(
            "Game over: %(players)s share the win", players=names_and(state.game_winners)
        )
    return gettext(
        "Hand %(hand)s of %(hands)s, round %(round)s",
        hand=state.hand,
        hands=al.HANDS,
        round=state.round,
    )


def _cards(entries: Any) -> str:
    try:
        return ", ".join(
            gettext("%(player)s (face down)", player=player)
            if card == "hidden"
            else f"{player} {card}"
            for player, card in entries
        )
    except (TypeError, ValueError):
        return str(entries)


def describe(action: Mapping[str, Any]) -> str:
    """One logged action in words for the history."""
    kind = action.get("type")
    player = str(action.get("player"))
    if kind == "Reveal":
        return gettext("Revealed: %(cards)s", cards=_cards(action.get("cards", ())))
    if kind == "Place":
        return _placed(action, None)
    if kind == "TakeBack":
        return gettext("%(player)s took their card back", player=player)
    if kind == "Unreveal":
        return gettext("%(player)s took back the card they had entered", player=player)
    if kind == "DiscardDraw":
        return gettext("%(player)s discarded their card and drew", player=player)
    if kind == "Highest":
        return gettext("Highest in hand: %(cards)s", cards=_cards(action.get("cards", ())))
    return str(kind)


def _placed(action: Mapping[str, Any], card: int | None) -> str:
    """A placement in words, naming the card put down when it is known."""
    player, pile = str(action.get("player")), str(action.get("pile"))
    if card is None:
        if pile == player:
            return gettext("%(player)s placed their card on their own pile", player=player)
        return gettext("%(player)s placed their card on %(pile)s's pile", player=player, pile=pile)
    if pile == player:
        return gettext(
            "%(player)s placed %(article)s %(card)s on their own pile",
            player=player,
            article=article(card),
            card=card,
        )
    return gettext(
        "%(player)s placed %(article)s %(card)s on %(pile)s's pile",
        player=player,
        article=article(card),
        card=card,
        pile=pile,
    )


def describe_events(events: Sequence[Event], shown: Sequence[Event]) -> dict[int, str]:
    """The placements among ``shown`` in words that name the card put down.

    A logged Place holds only the player and the pile (the card is the one
    they revealed), so the card is read from the actions that counted when
    the Place was entered: undo and redo resolved as the store resolves them.

    >>> from datetime import datetime
    >>> log = [Event(1, "action", {"type": "Reveal", "cards": [["Ana", 8], ["Ben", 3]]},
    ...              None, datetime(2026, 1, 1)),
    ...        Event(2, "action", {"type": "Place", "player": "Ana", "pile": "Ben"},
    ...              "Ana", datetime(2026, 1, 1))]
    >>> describe_events(log, log)
    {2: "Ana placed an 8 on Ben's pile"}
    """
    told = {}
    for event in shown:
        action = event.payload or {}
        if event.kind != "action" or action.get("type") != "Place":
            continue
        counted = resolve_log([e for e in events if e.seq < event.seq]).actions
        card = _revealed_card(counted, action.get("player"))
        if card is not None:
            told[event.seq] = _placed(action, card)
    return told


def _revealed_card(actions: Sequence[Mapping[str, Any]], player: Any) -> int | None:
    """The card ``player`` has revealed and not yet dealt with, after ``actions``."""
    for action in reversed(actions):
        kind = action.get("type")
        if kind == "Reveal":
            for entry in action.get("cards") or ():
                if isinstance(entry, list | tuple) and len(entry) == 2 and entry[0] == player:
                    card = entry[1]
                    return card if isinstance(card, int) and not isinstance(card, bool) else None
        elif kind in ("Place", "TakeBack", "DiscardDraw", "Unreveal") and (
            action.get("player") == player
        ):
            return None  # that card was dealt with: nothing revealed since
    return None


SCREEN = Screen(
    game="autumn_leaves",
    board_template="autumn_leaves/_board.html",
    parse_action=parse_action,
    summary=summary,
    describe=describe,
    describe_events=describe_events,
)
