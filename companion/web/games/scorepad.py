"""The score pad screen: a column per player, a row per round."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import scorepad

from . import FormError, Screen


def parse_points(text: str, who: str) -> int:
    """A whole number typed by a person, or FormError naming who it was for."""
    cleaned = text.strip().replace("−", "-")  # a typographic minus from some keyboards
    if not cleaned:
        raise FormError(f"Enter a score for {who} (0 if none).")
    sign = -1 if cleaned.startswith("-") else 1
    digits = cleaned.lstrip("+-")
    if not digits.isdecimal() or not digits.isascii() or len(digits) > 6:
        raise FormError(f"{who}'s score {text.strip()[:12]!r} is not a whole number.")
    return sign * int(digits)


def parse_action(
    form: Mapping[str, str], state: scorepad.ScorePad, me: str | None
) -> scorepad.Action:
    action = form.get("action", "")
    if action == "add-round":
        scores = [parse_points(form.get(f"score{i}", ""), p) for i, p in enumerate(state.players)]
        return scorepad.AddRound(tuple(scores))
    if action == "fix":
        player = form.get("player", "")
        if player not in state.players:
            raise FormError(f"There is no player called {player[:40]!r} at this table.")
        round_text = form.get("round", "")
        if not round_text.isdecimal() or len(round_text) > 4:
            raise FormError("Choose which round to fix.")
        points = parse_points(form.get("points", ""), player)
        return scorepad.FixEntry(int(round_text), player, points)
    if action == "finish":
        return scorepad.Finish()
    raise FormError("That button does nothing on a score pad. Reload the page.")


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    wins = form.get("wins", "highest")
    if wins not in ("highest", "lowest"):
        raise FormError("Choose whether the highest or the lowest total wins.")
    return {"lowest_wins": wins == "lowest"}


def summary(state: scorepad.ScorePad) -> str:
    if not state.rounds:
        return "No rounds yet"
    totals = state.totals()
    leaders = " and ".join(state.leaders())
    rounds = len(state.rounds)
    return f"Round {rounds} · {leaders} ahead with {totals[state.leaders()[0]]}"


def describe(action: Mapping[str, Any]) -> str:
    if action.get("type") == "AddRound":
        return "Round entered: " + ", ".join(str(s) for s in action.get("scores", []))
    if action.get("type") == "FixEntry":
        return (
            f"Fixed round {action.get('round')}: {action.get('player')} now {action.get('points')}"
        )
    if action.get("type") == "Finish":
        return "Game finished"
    return str(action.get("type", "?"))


SCREEN = Screen(
    game="scorepad",
    board_template="scorepad/_board.html",
    parse_action=parse_action,
    options_template="scorepad/_options.html",
    parse_options=parse_options,
    summary=summary,
    describe=describe,
)
