"""The Autumn Ash screen: tap the pyramids a move bagged, see the points.

Each player has a bag form with their own five colours; every pyramid of a
colour and size is a toggle (two of each, one for the starting colours).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import autumn_ash
from companion.rules.errors import RuleError

from . import FormError, Screen


def piece_field(colour: str, pips: int, copy: int) -> str:
    """The form field of one pyramid toggle: ``red-2-0``."""
    return f"{colour}-{pips}-{copy}"


def toggles(side: str) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """For the template: each colour of ``side`` with its (pips, copy, field) toggles,
    largest first."""
    rows = []
    for colour in autumn_ash.PROGRESSIONS[side]:
        fields = [
            (pips, copy, piece_field(colour, pips, copy))
            for pips in (autumn_ash.QUEEN, autumn_ash.DRONE, autumn_ash.PAWN)
            for copy in range(autumn_ash.TRIOS[colour])
        ]
        rows.append((colour, fields))
    return rows


def parse_action(form: Mapping[str, str], state: autumn_ash.Race, me: str | None) -> dict[str, Any]:
    if form.get("action") != "bag":
        raise FormError("That button does nothing in Autumn Ash. Reload the page.")
    player = form.get("player", "")
    if player not in state.players:
        raise FormError(f"There is no player called {player[:40]!r} in this race.")
    side = state.side(player)
    pieces = [
        [colour, pips]
        for colour, fields in toggles(side)
        for pips, _, field in fields
        if form.get(field)
    ]
    if not pieces:
        raise FormError(f"Tap the pyramids {player} bagged first, then score the bag.")
    return {"type": "Bag", "player": player, "pieces": pieces}


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    choice = form.get("rainbow", "1")
    if choice not in ("1", "2"):
        raise FormError("Choose which player plays the Rainbow colours.")
    index = int(choice) - 1
    if len(players) != 2:
        raise FormError(f"Autumn Ash is for 2 players; {len(players)} were entered.")
    return {"rainbow": players[index]}


def summary(state: autumn_ash.Race) -> str:
    totals = state.totals
    if state.winner:
        return f"{state.winner} won with {totals[state.winner]}"
    return " · ".join(f"{p} {totals[p]}" for p in state.players)


def describe(action: Mapping[str, Any]) -> str:
    if action.get("type") != "Bag":
        return str(action.get("type", "?"))
    try:
        score = autumn_ash.score_bag(tuple(tuple(p) for p in action.get("pieces", ())))
    except (RuleError, TypeError):
        return f"{action.get('player')} bagged {action.get('pieces')}"
    names = ", ".join(autumn_ash.piece_name(p) for p in score.pieces)
    return f"{action.get('player')} bagged {names}: {score.describe()}"


SCREEN = Screen(
    game="autumn_ash",
    board_template="autumn_ash/_board.html",
    parse_action=parse_action,
    options_template="autumn_ash/_options.html",
    parse_options=parse_options,
    summary=summary,
    describe=describe,
)
