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

from . import FormError, Screen

_SEPARATORS = re.compile(r"[\s,;/+]+")
MAX_CARDS_TEXT = 80


def parse_cards(text: str) -> list[int]:
    """Cards typed as ``"4 5 6 8"`` or ``"4,5,6,8"``; FormError names a bad one."""
    if len(text) > MAX_CARDS_TEXT:
        raise FormError("That is far more than a slug: type only the slug's cards.")
    parts = [part for part in _SEPARATORS.split(text.strip()) if part]
    if not parts:
        raise FormError("No cards were entered: tap or type the slug's cards.")
    found: list[int] = []
    for part in parts:
        try:
            found.append(cards.parse_card(part))
        except RuleError:
            raise FormError(
                f"{part[:12]!r} is not a card of the Pairs deck: ranks go from 1 to 10."
            ) from None
    return found


def _card(form: Mapping[str, str]) -> int:
    raw = form.get("card", "")
    try:
        return cards.parse_card(raw)
    except RuleError:
        if not raw.strip():
            raise FormError("Tap a card from 1 to 10 for the bid.") from None
        raise FormError(
            f"{raw.strip()[:12]!r} is not a card of the Pairs deck: ranks go from 1 to 10."
        ) from None


def _player(form: Mapping[str, str], state: venture.State, me: str | None) -> str:
    player = form.get("player", "").strip() or (me or "")
    if not player:
        raise FormError("Choose whose bid this is.")
    if player not in state.players:
        raise FormError(f"There is no player called {player[:40]!r} at this table.")
    if me is not None and player != me:
        raise FormError(
            f"This phone is {me}'s, so it only enters {me}'s bid. "
            f"Ask {player} to use their own phone, or switch this phone to Shared."
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
    raise FormError("That button does nothing in Venture. Reload the page.")


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    drafting = form.get("drafting", "")
    if drafting not in ("", "on"):
        raise FormError("Drafting is either ticked or not.")
    return {"drafting": drafting == "on"}


def summary(state: venture.State) -> str:
    phase = state.phase
    if phase == venture.SLUG:
        return "Waiting for the slug"
    if phase == venture.OVER:
        outcome = state.outcome
        assert outcome is not None
        best = outcome.winners
        verb = "wins" if len(best) == 1 else "share the win"
        return f"Game over · {' and '.join(best)} {verb} with {outcome.scores[best[0]]}"
    waiting = state.waiting_for()
    return f"Round {state.round_number} of {state.hand_size} · {len(waiting)} bids to come"


def describe(action: Mapping[str, Any]) -> str:
    """One history line. It names a bid's card only when the log shown holds
    it: the viewer's projection (``companion.web.viewer``) turns every bid
    still hidden from this phone into ``"hidden"``."""
    kind = action.get("type")
    player = str(action.get("player", "?"))
    card = action.get("card")
    if isinstance(card, int) and not isinstance(card, bool):
        if kind == "Bid":
            return f"{player} bid {cards.article(card)} {card}"
        if kind == "ChangeBid":
            return f"{player} changed their bid to {cards.article(card)} {card}"
    if kind == "EnterSlug":
        shown = action.get("cards", [])
        listed = " ".join(str(c) for c in shown) if isinstance(shown, list) else "?"
        return f"Slug turned up: {listed}"
    if kind == "Bid":
        return f"{player} bid face down"
    if kind == "ChangeBid":
        return f"{player} changed their bid"
    if kind == "WithdrawBid":
        return f"{player} took back their bid"
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
