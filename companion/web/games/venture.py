"""The Venture screen: slug entry, secret bids, the reveal step by step, scoring.

Bids can be entered on one shared phone for everybody or by each player on
their own phone (the phone picks its seat). A seated phone only bids for its
own seat. Until the last bid of a round is in, the board shows who has bid,
never what; the rules engine fires the round when the last bid arrives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from companion.rules import cards, venture
from companion.rules.errors import RuleError
from companion.web.i18n import gettext, names_and

from . import FormError, Screen

_SEPARATORS = re.compile(r"[\s,;/+]+")
MAX_CARDS_TEXT = 80


def parse_cards(text: str) -> list[int]:
    """Cards typed as ``"4 5 6 8"`` or ``"4,5,6,8"``; FormError names a bad one."""
    if len(text) > MAX_CARDS_TEXT:
        raise FormError(gettext("That is far more than a slug: type only the slug's cards."))
    parts = [part for part in _SEPARATORS.split(text.strip()) if part]
    if not parts:
        raise FormError(gettext("No cards were entered: tap or type the slug's cards."))
    found: list[int] = []
    for part in parts:
        try:
            found.append(cards.parse_card(part))
        except RuleError:
            raise FormError(_not_a_card(part)) from None
    return found


def _card(form: Mapping[str, str]) -> int:
    raw = form.get("card", "")
    try:
        return cards.parse_card(raw)
    except RuleError:
        if not raw.strip():
            raise FormError(gettext("Tap a card from 1 to 10 for the bid.")) from None
        raise FormError(_not_a_card(raw.strip())) from None


def _not_a_card(typed: str) -> str:
    return gettext(
        "%(typed)s is not a card of the Pairs deck: ranks go from 1 to 10.", typed=repr(typed[:12])
    )


def _player(form: Mapping[str, str], state: venture.State, me: str | None) -> str:
    player = form.get("player", "").strip() or (me or "")
    if not player:
        raise FormError(gettext("Choose whose bid this is."))
    if player not in state.players:
        raise FormError(
            gettext("There is no player called %(name)s at this table.", name=repr(player[:40]))
        )
    if me is not None and player != me:
        raise FormError(
            gettext(
                "This phone is %(me)s's, so it only enters %(me)s's bid. "
                "Ask %(player)s to use their own phone, or switch this phone to Shared.",
                me=me,
                player=player,
            )
        )
    return player


def parse_action(form: Mapping[str, str], state: venture.State, me: str | None) -> venture.Action:
    """The action a posted Venture form means, or FormError with the reason."""
    action = form.get("action", "")
    if action == "slug":
        return venture.EnterSlug(tuple(parse_cards(form.get("cards", ""))))
    if action in ("bid", "change"):
        player = _player(form, state, me)
        bid = venture.Bid if action == "bid" else venture.ChangeBid
        return bid(player, _card(form))
    if action == "withdraw":
        return venture.WithdrawBid(_player(form, state, me))
    raise FormError(gettext("That button does nothing in Venture. Reload the page."))


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    drafting = form.get("drafting", "")
    if drafting not in ("", "on"):
        raise FormError(gettext("Drafting is either ticked or not."))
    return {"drafting": drafting == "on"}


def summary(state: venture.State) -> str:
    phase = state.phase
    if phase == venture.SLUG:
        return gettext("Waiting for the slug")
    if phase == venture.OVER:
        outcome = state.outcome
        assert outcome is not None
        best = outcome.winners
        score = outcome.scores[best[0]]
        if len(best) == 1:
            return gettext(
                "Game over · %(player)s wins with %(score)s", player=best[0], score=score
            )
        return gettext(
            "Game over · %(players)s share the win with %(score)s",
            players=names_and(best),
            score=score,
        )
    waiting = state.waiting_for()
    return gettext(
        "Round %(round)s of %(rounds)s · %(waiting)s bids to come",
        round=state.round_number,
        rounds=state.hand_size,
        waiting=len(waiting),
    )


def describe(action: Mapping[str, Any]) -> str:
    """One history line. It names a bid's card only when the log shown holds
    it: the viewer's projection (``companion.web.viewer``) turns every bid
    still hidden from this phone into ``"hidden"``."""
    kind = action.get("type")
    player = str(action.get("player", "?"))
    card = action.get("card")
    if isinstance(card, int) and not isinstance(card, bool):
        if kind == "Bid":
            return gettext(
                "%(player)s bid %(article)s %(card)s",
                player=player,
                article=cards.article(card),
                card=card,
            )
        if kind == "ChangeBid":
            return gettext(
                "%(player)s changed their bid to %(article)s %(card)s",
                player=player,
                article=cards.article(card),
                card=card,
            )
    if kind == "EnterSlug":
        shown = action.get("cards", [])
        listed = " ".join(str(c) for c in shown) if isinstance(shown, list) else "?"
        return gettext("Slug turned up: %(cards)s", cards=listed)
    if kind == "Bid":
        return gettext("%(player)s bid face down", player=player)
    if kind == "ChangeBid":
        return gettext("%(player)s changed their bid", player=player)
    if kind == "WithdrawBid":
        return gettext("%(player)s took back their bid", player=player)
    return str(kind or "?")


SCREEN = Screen(
    game="venture",
    board_template="venture/_board.html",
    parse_action=parse_action,
    options_template="venture/_options.html",
    parse_options=parse_options,
    summary=summary,
    describe=describe,
)
