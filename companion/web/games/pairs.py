"""The Pairs / Continuous Pairs screen: deal, low-card tie-break, hit or fold.

One phone (or every phone) at the table enters the face-up cards as they are
dealt or drawn on a big 1-10 pad; the referee in :mod:`companion.rules.pairs`
works out who starts, pairs, scores, whose turn it is, the deck count and when
to reshuffle. Forms post an ``action`` name:

* ``deal`` (``player``, ``card``) — the round's face-up card for a player;
* ``tiebreak`` (``player``, ``card``) — one more card for a player tied for low;
* ``hit`` (``player``, ``card``) — the card the player drew;
* ``fold`` (``player``, optional ``card`` and ``owner``) — take a card for points
  (empty = the lowest card in play, which the companion proposes);
* ``reshuffle`` — the discards were shuffled into a new deck and 5 burned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import pairs
from companion.rules.cards import article, parse_card
from companion.rules.errors import InvalidCard
from companion.web.i18n import gettext, names_and, words

from . import FormError, Screen

_CARD_ACTIONS: dict[str, type[pairs.Deal | pairs.TieBreak | pairs.Hit]] = {
    "deal": pairs.Deal,
    "tiebreak": pairs.TieBreak,
    "hit": pairs.Hit,
}


def _player(form: Mapping[str, str], state: pairs.State, field: str = "player") -> str:
    name = form.get(field, "")
    if not name:
        raise FormError(
            gettext("Say which player this is for: the form had no player. Reload the page.")
        )
    if name not in state.players:
        raise FormError(
            gettext(
                "There is no player called %(name)s at this table (players: %(players)s).",
                name=repr(name[:40]),
                players=", ".join(state.players),
            )
        )
    return name


def _card(form: Mapping[str, str], who: str) -> int:
    text = form.get("card", "")
    try:
        return parse_card(text[:20])
    except InvalidCard as exc:
        raise FormError(
            gettext("Card for %(player)s: %(why)s.", player=who, why=words(exc.message))
        ) from exc


def parse_action(form: Mapping[str, str], state: pairs.State, me: str | None) -> pairs.Action:
    """Turn a posted form into a Pairs action, or raise FormError.

    Only the shape is checked here (a known action, a player at the table, a
    rank 1..10); whether the move is allowed now is the referee's call.
    """
    action = form.get("action", "")
    if action in _CARD_ACTIONS:
        player = _player(form, state)
        return _CARD_ACTIONS[action](player, _card(form, player))
    if action == "fold":
        player = _player(form, state)
        card: int | None = None
        if form.get("card", ""):
            card = _card(form, player)
        owner = _player(form, state, "owner") if form.get("owner", "") else None
        return pairs.Fold(player, card, owner)
    if action == "reshuffle":
        return pairs.Reshuffle()
    raise FormError(gettext("That button does nothing in Pairs. Reload the page."))


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    """Read the new-table options: ``target`` (empty = the standard, P1) and ``continuous``."""
    text = form.get("target", "").strip()
    target: int | None = None
    if text:
        if not (text.isascii() and text.isdecimal()) or len(text) > 3:
            raise FormError(
                gettext(
                    "The losing score %(typed)s is not a whole number: "
                    "leave it empty for the standard score.",
                    typed=repr(text[:12]),
                )
            )
        target = int(text)
        if not 1 <= target <= pairs.MAX_TARGET:
            raise FormError(
                gettext(
                    "The losing score must be from 1 to %(most)s, not %(target)s.",
                    most=pairs.MAX_TARGET,
                    target=target,
                )
            )
    continuous = form.get("continuous", "") in ("on", "1", "true", "yes")
    return {"target": target, "continuous": continuous}


def summary(state: pairs.State) -> str:
    """One line for the list of tables."""
    name = gettext("Continuous Pairs") if state.continuous else "Pairs"
    if state.is_over and state.loser:
        return gettext(
            "%(game)s · %(loser)s lost with %(score)s of %(target)s",
            game=name,
            loser=state.loser,
            score=state.total(state.loser),
            target=state.target,
        )
    totals = state.totals()
    top = max(totals.values())
    if top == 0:
        return gettext("%(game)s to %(target)s · no points yet", game=name, target=state.target)
    highest = [p for p, t in totals.items() if t == top]
    return gettext(
        "%(game)s to %(target)s · round %(round)s · %(players)s on %(score)s",
        game=name,
        target=state.target,
        round=state.round,
        players=names_and(highest),
        score=top,
    )


def describe(action: Mapping[str, Any]) -> str:
    """A log line for one action."""
    kind = action.get("type")
    player, card = action.get("player"), action.get("card")
    if kind == "Deal":
        return gettext(
            "Dealt %(player)s %(article)s %(card)s",
            player=str(player),
            article=article(card) if isinstance(card, int) else "a",
            card=str(card),
        )
    if kind == "TieBreak":
        return gettext(
            "Tie-break card for %(player)s: %(card)s", player=str(player), card=str(card)
        )
    if kind == "Hit":
        return gettext("%(player)s hit: %(card)s", player=str(player), card=str(card))
    if kind == "Fold":
        owner = action.get("owner")
        if card is None:
            return gettext("%(player)s folded (lowest card)", player=str(player))
        if owner in (None, player):
            return gettext("%(player)s folded, taking %(card)s", player=str(player), card=str(card))
        return gettext(
            "%(player)s folded, taking %(owner)s's %(card)s",
            player=str(player),
            owner=str(owner),
            card=str(card),
        )
    if kind == "Reshuffle":
        return gettext("Discards reshuffled, 5 burned")
    return str(kind or "?")


SCREEN = Screen(
    game="pairs",
    board_template="pairs/_board.html",
    parse_action=parse_action,
    options_template="pairs/_options.html",
    parse_options=parse_options,
    summary=summary,
    describe=describe,
)
