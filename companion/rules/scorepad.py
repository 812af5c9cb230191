"""A score pad for any game: named columns, one row per round.

>>> pad = new_game(("Ana", "Ben"), lowest_wins=False)
>>> pad = apply(pad, AddRound((5, 3)))
>>> pad = apply(pad, FixEntry(round=1, player="Ben", points=7))
>>> pad.totals(), pad.leaders()
({'Ana': 5, 'Ben': 7}, ('Ben',))
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import IllegalAction, RuleError
from .messages import refusal

MAX_POINTS = 100_000  # one entry; anything larger is a typo


@dataclass(frozen=True)
class AddRound:
    """One round: a score per player, in seat order."""

    scores: tuple[int, ...]


@dataclass(frozen=True)
class FixEntry:
    """Correct one past entry (rounds are numbered from 1)."""

    round: int
    player: str
    points: int


@dataclass(frozen=True)
class Finish:
    """The table says the game is over: the totals stand (undo reopens the pad)."""


Action = AddRound | FixEntry | Finish
ACTIONS: dict[str, type] = {"AddRound": AddRound, "FixEntry": FixEntry, "Finish": Finish}


@dataclass(frozen=True)
class ScorePad:
    players: tuple[str, ...]
    lowest_wins: bool
    rounds: tuple[tuple[int, ...], ...] = ()
    finished: bool = False

    def totals(self) -> dict[str, int]:
        return {p: sum(r[i] for r in self.rounds) for i, p in enumerate(self.players)}

    def leaders(self) -> tuple[str, ...]:
        """The players ahead now (all of them while no round is in)."""
        totals = self.totals()
        if not self.rounds:
            return ()
        best = min(totals.values()) if self.lowest_wins else max(totals.values())
        return tuple(p for p in self.players if totals[p] == best)


def new_game(players: tuple[str, ...], *, lowest_wins: bool = False) -> ScorePad:
    """An empty pad; raises RuleError with no players."""
    if not players:
        raise RuleError(refusal("scorepad.players.none", "a score pad needs at least one player"))
    return ScorePad(tuple(players), bool(lowest_wins))


def apply(pad: ScorePad, action: Action) -> ScorePad:
    """The pad after ``action``; raises IllegalAction for a bad entry."""
    if pad.finished:
        raise IllegalAction(
            refusal("scorepad.finished", "the game is finished: undo the finish to change the pad")
        )
    if isinstance(action, Finish):
        if not pad.rounds:
            raise IllegalAction(
                refusal(
                    "scorepad.finish.empty", "enter at least one round before finishing the game"
                )
            )
        return replace(pad, finished=True)
    if isinstance(action, AddRound):
        if len(action.scores) != len(pad.players):
            raise IllegalAction(
                refusal(
                    "scorepad.round.count",
                    "a round needs one score per player (%(players)s), not %(scores)s",
                    players=len(pad.players),
                    scores=len(action.scores),
                )
            )
        for player, points in zip(pad.players, action.scores, strict=True):
            _check_points(player, points)
        # Concatenated, not unpacked: a long import adds thousands of rounds.
        return replace(pad, rounds=pad.rounds + (tuple(action.scores),))
    if isinstance(action, FixEntry):
        if action.player not in pad.players:
            raise IllegalAction(
                refusal(
                    "scorepad.player.stranger",
                    "there is no player called %(player)s at this table",
                    player=repr(action.player),
                )
            )
        if isinstance(action.round, bool) or not 1 <= action.round <= len(pad.rounds):
            raise IllegalAction(
                refusal(
                    "scorepad.fix.no-round",
                    "there is no round %(round)s to fix",
                    round=repr(action.round),
                )
            )
        _check_points(action.player, action.points)
        column = pad.players.index(action.player)
        row = list(pad.rounds[action.round - 1])
        row[column] = action.points
        rounds = list(pad.rounds)
        rounds[action.round - 1] = tuple(row)
        return replace(pad, rounds=tuple(rounds))
    raise IllegalAction(
        refusal(
            "scorepad.action.unknown", "%(action)s is not a score pad action", action=repr(action)
        )
    )


def _check_points(player: str, points: object) -> None:
    if isinstance(points, bool) or not isinstance(points, int):
        raise IllegalAction(
            refusal(
                "scorepad.points.not-whole",
                "%(player)s's score must be a whole number, not %(points)s",
                player=player,
                points=repr(points),
            )
        )
    if abs(points) > MAX_POINTS:
        raise IllegalAction(
            refusal(
                "scorepad.points.too-large",
                "%(player)s's score %(points)s is too large (at most %(most)s)",
                player=player,
                points=points,
                most=MAX_POINTS,
            )
        )
