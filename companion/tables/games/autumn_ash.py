"""Autumn Ash as a table game, in two modes.

Two players. Options: ``{"rainbow": name, "mode": "race" | "board",
"rules": "standard" | "beginner", "position": text}``
(``position``, optional: go on from a position already on the table, in the
text form of :class:`companion.rules.autumn_ash.Position`). ``rainbow`` plays
the Rainbow colours (green → black); the other plays Xeno (clear → purple). The *race* (the
default, and what older tables are) keeps the score from tapped bags; the
*board* referees every move on a mirror of the board (X5-X14). The log holds
the actions of :mod:`companion.rules.autumn_ash` as JSON: ``Bag`` in a race;
``SetUp``, ``Play`` and ``Pass`` on the board. The board is a turn-based game
for two, so any change to the table made meanwhile is a real conflict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.rules import autumn_ash
from companion.rules.errors import RuleError
from companion.rules.messages import marked, named, refusal

from . import GameKind, applier

MODES = ("race", "board")
RULES = ("standard", "beginner")


def _new_state(players: tuple[str, ...], options: Mapping[str, Any], seed: int) -> Any:
    if len(players) != 2:
        raise RuleError(
            refusal(
                "autumn_ash.players.two", "Autumn Ash is for 2 players, not %(n)s", n=len(players)
            )
        )
    rainbow = options.get("rainbow", players[0])
    if rainbow not in players:
        raise RuleError(
            refusal(
                "autumn_ash.options.rainbow",
                "%(name)s is not one of the players, so cannot play Rainbow",
                name=repr(rainbow),
            )
        )
    xeno = players[1] if rainbow == players[0] else players[0]
    mode = options.get("mode", "race")
    if mode not in MODES:
        raise RuleError(
            refusal(
                "autumn_ash.options.mode",
                "%(mode)s is not an Autumn Ash mode: race or board",
                mode=repr(mode),
            )
        )
    rules = options.get("rules", "standard")
    if rules not in RULES:
        raise RuleError(
            refusal(
                "autumn_ash.options.rules",
                "%(rules)s is not an Autumn Ash rule set: standard or beginner",
                rules=repr(rules),
            )
        )
    if mode == "board":
        text = options.get("position")  # a game under way: its position text
        position = autumn_ash.Position.parse(text) if text else None
        return autumn_ash.new_board_game(
            rainbow, xeno, beginner=rules == "beginner", position=position
        )
    return autumn_ash.new_game(rainbow, xeno)


KIND = GameKind(
    key="autumn_ash",
    title=named("game.autumn_ash", "Autumn Ash"),
    min_players=2,
    max_players=2,
    new_state=_new_state,
    apply=applier(autumn_ash),
    blurb=marked("Referee the board move by move, or just score the race to 21."),
    # Turns alternate and each move depends on the whole board: any change
    # made since the phone's version is a real conflict (refused, not entered).
    depends_on=None,
    shows_seats=True,  # this phone's own player's sheet or pad
)
