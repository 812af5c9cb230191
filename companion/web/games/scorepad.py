"""The score pad screen: a column per player, a row per round."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import scorepad
from companion.web.i18n import gettext, names_and

from . import FormError, Screen


def parse_points(text: str, who: str) -> int:
    """A whole number typed by a person, or FormError naming who it was for."""
    cleaned = text.strip().replace("−", "-")  # a typographic minus from some keyboards
    if not cleaned:
        raise FormError(gettext("Enter a score for %(player)s (0 if none).", player=who))
    sign = -1 if cleaned.startswith("-") else 1
    digits = cleaned.lstrip("+-")
    if not digits.isdecimal() or not digits.isascii() or len(digits) > 6:
        raise FormError(
            gettext(
                "%(player)s's score %(typed)s is not a whole number.",
                player=who,
                typed=repr(text.strip()[:12]),
            )
        )
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
            raise FormError(
                gettext("There is no player called %(name)s at this table.", name=repr(player[:40]))
            )
        round_text = form.get("round", "")
        if not round_text.isdecimal() or len(round_text) > 4:
            raise FormError(gettext("Choose which round to fix."))
        points = parse_points(form.get("points", ""), player)
        return scorepad.FixEntry(int(round_text), player, points)
    if action == "finish":
        return scorepad.Finish()
    raise FormError(gettext("That button does nothing on a score pad. Reload the page."))


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    wins = form.get("wins", "highest")
    if wins not in ("highest", "lowest"):
        raise FormError(gettext("Choose whether the highest or the lowest total wins."))
    return {"lowest_wins": wins == "lowest"}


def summary(state: scorepad.ScorePad) -> str:
    if not state.rounds:
        return gettext("No rounds yet")
    totals = state.totals()
    leaders = state.leaders()
    rounds = len(state.rounds)
    if len(leaders) == 1:
        return gettext(
            "Round %(round)s · %(player)s ahead with %(score)s",
            round=rounds,
            player=leaders[0],
            score=totals[leaders[0]],
        )
    return gettext(
        "Round %(round)s · %(players)s ahead with %(score)s",
        round=rounds,
        players=names_and(leaders),
        score=totals[leaders[0]],
    )


def describe(action: Mapping[str, Any]) -> str:
    if action.get("type") == "AddRound":
        return gettext(
            "Round entered: %(scores)s",
            scores=", ".join(str(s) for s in action.get("scores", [])),
        )
    if action.get("type") == "FixEntry":
        return gettext(
            "Fixed round %(round)s: %(player)s now %(points)s",
            round=str(action.get("round")),
            player=str(action.get("player")),
            points=str(action.get("points")),
        )
    if action.get("type") == "Finish":
        return gettext("Game finished")
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
