"""Achievements against the North Wind (N14), across the solo games a browser played.

Each won solo table keeps its ticks as an ``Achieve`` action in its own log
(so undo works as everywhere else). A finished table's result row carries
its ticks (``companion.tables.results``), so this page reads those rows, one
per finished solo game, instead of replaying every table's log.

Like the records (issue 23), the page reads only this browser's group: the
tables it is a member of (the operator: every table).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, render_template

from companion.rules import north_wind as nw
from companion.tables.results import Scope
from companion.tables.store import Store

from . import store
from .costly import drawn_in_a_worker
from .groups import scope
from .i18n import words
from .ratelimit import records_limit
from .viewer import my_tables

bp = Blueprint("achievements", __name__)


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


def collect(source: Store, scope: Scope = None) -> Record:
    """Every tick of every finished North Wind table in ``scope`` (None: all), newest first."""
    ticks: dict[str, list[Tick]] = {a.id: [] for a in nw.ACHIEVEMENTS}
    found = source.north_wind_ticks(scope)
    for title, token, when, ids in found.ticked:
        for achievement_id in ids.split(","):
            if achievement_id in ticks:
                ticks[achievement_id].append(Tick(title, token, when))
    return Record(found.games, found.wins, ticks)


@bp.get("/achievements")
@records_limit
@drawn_in_a_worker  # issue 42: drawn in a job worker, not by the serving process
def page() -> Any:
    record = collect(store(), scope())
    groups = [(g, [a for a in nw.ACHIEVEMENTS if a.group == g]) for g in nw.ACHIEVEMENT_GROUPS]
    done = sum(1 for v in record.ticks.values() if v)
    return render_template(
        "north_wind/achievements.html",
        record=record,
        groups=groups,
        done=done,
        total=len(nw.ACHIEVEMENTS),
        mine=my_tables(),
        group_names=nw.GROUP_WORDS,
        say=words,
    )
