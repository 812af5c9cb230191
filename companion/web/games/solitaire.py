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
from companion.tables.games.solitaire import MAX_DEAL

from . import FormError, Screen


def _pile_number(text: str, what: str, piles: int) -> int:
    if not text.isdecimal() or not text.isascii() or len(text) > 2:
        raise FormError(f"{what} {text[:8]!r} is not a pile. Tap a card, then a pile.")
    number = int(text)
    if not 0 <= number < piles:
        raise FormError(f"There is no pile {number + 1}: the piles are 1 to {piles}.")
    return number


def parse_action(
    form: Mapping[str, str], state: solitaire.State, me: str | None
) -> solitaire.Move | solitaire.Deal:
    action = form.get("action", "")
    if action == "deal":
        return solitaire.Deal()
    if action != "move":
        raise FormError("That button does nothing in solitaire. Reload the page.")
    pick = form.get("pick", "")
    target = form.get("target", "")
    if not pick:
        raise FormError("Tap a card first, then the pile to move it to.")
    if not target:
        raise FormError("Now tap the pile to move the cards to.")
    source_text, _, count_text = pick.partition(":")
    piles = state.layout.piles
    source = _pile_number(source_text, "The card's pile", piles)
    target_pile = _pile_number(target, "The target", piles)
    if not count_text.isdecimal() or not count_text.isascii() or len(count_text) > 2:
        raise FormError("That card choice is garbled. Tap the card again.")
    return solitaire.Move(source, target_pile, int(count_text))


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    """The deal: the number typed, else a random one of the kind chosen
    (any deal, or one the solver has won, of a difficulty: solitaire_deals).
    A typed number wins over the kind: it names one deal exactly."""
    text = form.get("deal", "").strip()
    kind = form.get("kind", "any").strip() or "any"
    if kind not in solitaire_deals.KINDS:
        raise FormError(f"{kind[:12]!r} is not a kind of deal: choose one from the list.")
    if not text:
        if kind == "any":
            return {"deal": secrets.randbelow(MAX_DEAL + 1)}
        try:
            return {"deal": solitaire_deals.pick(kind, secrets.SystemRandom())}
        except RuleError as exc:
            raise FormError(str(exc)) from exc
    if not text.isdecimal() or not text.isascii() or len(text) > 9:
        raise FormError(
            f"The deal number {text[:12]!r} is not a whole number from 0 to {MAX_DEAL}."
        )
    return {"deal": int(text)}


def summary(state: solitaire.State) -> str:
    if state.won:
        return f"Deal #{state.seed}: won"
    return (
        f"Deal #{state.seed}: {state.deals_left} deal{'s' if state.deals_left != 1 else ''} left, "
        f"{state.face_down_count} face down"
    )


def describe(action: Mapping[str, Any]) -> str:
    if action.get("type") == "Deal":
        return "Dealt a card onto every pile"
    if action.get("type") == "Move":
        count = action.get("count", 1)
        cards = "a card" if count == 1 else f"{count} cards"
        source, target = action.get("source"), action.get("target")
        if isinstance(source, int) and isinstance(target, int):
            return f"Moved {cards} from pile {source + 1} to pile {target + 1}"
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
