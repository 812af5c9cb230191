"""Achievements against the North Wind (N14), across every solo game on this server.

Each won solo table keeps its ticks as an ``Achieve`` action in its own log
(so undo works as everywhere else); this page adds them up by asking the
store for every North Wind table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, render_template

from companion.rules import north_wind as nw
from companion.tables.store import Store

from . import store

bp = Blueprint("achievements", __name__)

MAX_TABLES = 10_000  # a home server never holds this many solo games


@dataclass(frozen=True)
class Tick:
    title: str
    token: str
    when: datetime


@dataclass(frozen=True)
class Record:
    """Wins and ticks over all solo games."""

    games: int
    wins: int
    ticks: dict[str, list[Tick]]


def collect(source: Store) -> Record:
    """Every tick of every North Wind table, newest table first."""
    ticks: dict[str, list[Tick]] = {a.id: [] for a in nw.ACHIEVEMENTS}
    games = wins = 0
    for table in source.tables(game="north_wind", limit=MAX_TABLES):
        try:
            state = source.snapshot(table.token).state
        except Exception:  # one broken table must not hide the others
            continue
        games += 1
        if not isinstance(state, nw.State) or not state.human_won:
            continue
        wins += 1
        for achievement_id in state.achievements:
            if achievement_id in ticks:
                ticks[achievement_id].append(Tick(table.title, table.token, table.updated_at))
    return Record(games, wins, ticks)


@bp.get("/achievements")
def page() -> Any:
    record = collect(store())
    groups = [(g, [a for a in nw.ACHIEVEMENTS if a.group == g]) for g in nw.ACHIEVEMENT_GROUPS]
    done = sum(1 for v in record.ticks.values() if v)
    return render_template(
        "north_wind/achievements.html",
        record=record,
        groups=groups,
        done=done,
        total=len(nw.ACHIEVEMENTS),
    )
