"""The solitaire screen: tap a card (or the bottom card of a run), then a pile.

The whole layout is one form: every card that can move is a radio button
(``pick`` = ``"pile:count"``) and every pile has a "move here" button
(``target``), so it works without JavaScript; ``solitaire.js`` lets a tap on
a pile (or a drag on a desktop) stand in for that button.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from companion.rules import solitaire, solitaire_deals
from companion.rules.errors import RuleError
from companion.rules.messages import refusal_n
from companion.tables.games.solitaire import MAX_DEAL
from companion.web.i18n import gettext, message_of, words

from . import FormError, Screen


def _pile_number(text: str, not_a_pile: str, piles: int) -> int:
    """The pile a form names; ``not_a_pile`` says what was wrong with ``text``."""
    if not text.isdecimal() or not text.isascii() or len(text) > 2:
        raise FormError(not_a_pile)
    number = int(text)
    if not 0 <= number < piles:
        raise FormError(
            gettext(
                "There is no pile %(pile)s: the piles are 1 to %(piles)s.",
                pile=number + 1,
                piles=piles,
            )
        )
    return number


def parse_action(
    form: Mapping[str, str], state: solitaire.State, me: str | None
) -> solitaire.Move | solitaire.Deal:
    action = form.get("action", "")
    if action == "deal":
        return solitaire.Deal()
    if action != "move":
        raise FormError(gettext("That button does nothing in solitaire. Reload the page."))
    pick = form.get("pick", "")
    target = form.get("target", "")
    if not pick:
        raise FormError(gettext("Tap a card first, then the pile to move it to."))
    if not target:
        raise FormError(gettext("Now tap the pile to move the cards to."))
    source_text, _, count_text = pick.partition(":")
    piles = state.layout.piles
    source = _pile_number(
        source_text,
        gettext(
            "The card's pile %(typed)s is not a pile. Tap a card, then a pile.",
            typed=repr(source_text[:8]),
        ),
        piles,
    )
    target_pile = _pile_number(
        target,
        gettext(
            "The target %(typed)s is not a pile. Tap a card, then a pile.", typed=repr(target[:8])
        ),
        piles,
    )
    if not count_text.isdecimal() or not count_text.isascii() or len(count_text) > 2:
        raise FormError(gettext("That card choice is garbled. Tap the card again."))
    return solitaire.Move(source, target_pile, int(count_text))


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    """The deal: the number typed, else a random one of the kind chosen
    (any deal, or one the solver has won, of a difficulty: solitaire_deals).
    A typed number wins over the kind: it names one deal exactly."""
    text = form.get("deal", "").strip()
    kind = form.get("kind", "any").strip() or "any"
    if kind not in solitaire_deals.KINDS:
        raise FormError(
            gettext(
                "%(kind)s is not a kind of deal: choose one from the list.", kind=repr(kind[:12])
            )
        )
    if not text:
        if kind == "any":
            return {"deal": secrets.randbelow(MAX_DEAL + 1)}
        try:
            return {"deal": solitaire_deals.pick(kind, secrets.SystemRandom())}
        except RuleError as exc:
            raise FormError(words(message_of(exc))) from exc
    if not text.isdecimal() or not text.isascii() or len(text) > 9:
        raise FormError(
            gettext(
                "The deal number %(typed)s is not a whole number from 0 to %(most)s.",
                typed=repr(text[:12]),
                most=MAX_DEAL,
            )
        )
    return {"deal": int(text)}


def summary(state: solitaire.State) -> str:
    seed = str(state.seed)
    if state.won:
        return gettext("Deal #%(deal)s: won", deal=seed)
    return words(
        refusal_n(
            "solitaire.summary",
            "Deal #%(deal)s: %(n)s deal left, %(down)s face down",
            "Deal #%(deal)s: %(n)s deals left, %(down)s face down",
            "n",
            deal=seed,
            n=state.deals_left,
            down=state.face_down_count,
        )
    )


def describe(action: Mapping[str, Any]) -> str:
    if action.get("type") == "Deal":
        return gettext("Dealt a card onto every pile")
    if action.get("type") == "Move":
        count = action.get("count", 1)
        source, target = action.get("source"), action.get("target")
        if isinstance(source, int) and isinstance(target, int) and count == 1:
            return gettext(
                "Moved a card from pile %(source)s to pile %(target)s",
                source=source + 1,
                target=target + 1,
            )
        if isinstance(source, int) and isinstance(target, int) and isinstance(count, int):
            return words(
                refusal_n(
                    "solitaire.history.move",
                    "Moved %(n)s card from pile %(source)s to pile %(target)s",
                    "Moved %(n)s cards from pile %(source)s to pile %(target)s",
                    "n",
                    n=count,
                    source=source + 1,
                    target=target + 1,
                )
            )
    return str(action.get("type", "?"))


SCREEN = Screen(
    game="solitaire",
    board_template="solitaire/_board.html",
    parse_action=parse_action,
    options_template="solitaire/_options.html",
    parse_options=parse_options,
    summary=summary,
    describe=describe,
)
