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
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from companion.rules import north_wind as nw
from companion.tables.results import ResultRow, Scope, ensure_backfilled
from companion.tables.store import Store, TableRow

from . import store
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
    ensure_backfilled(source)
    ticks: dict[str, list[Tick]] = {a.id: [] for a in nw.ACHIEVEMENTS}
    with Session(source.engine) as session:
        games, wins = session.execute(
            select(
                func.count(ResultRow.id),
                func.count(ResultRow.id).filter(ResultRow.outcome.in_(("won", "shared"))),
            ).where(ResultRow.game == "north_wind", *_within(scope))
        ).one()
        ticked = session.execute(
            select(TableRow.title, TableRow.token, ResultRow.finished_at, ResultRow.achievements)
            .join(TableRow, TableRow.id == ResultRow.table_id)
            .where(ResultRow.game == "north_wind", ResultRow.achievements != "", *_within(scope))
            .order_by(ResultRow.finished_at.desc(), ResultRow.id.desc())
        ).all()
    for title, token, when, ids in ticked:
        for achievement_id in ids.split(","):
            if achievement_id in ticks:
                ticks[achievement_id].append(Tick(title, token, when))
    return Record(int(games or 0), int(wins or 0), ticks)


def _within(scope: Scope) -> tuple[Any, ...]:
    return () if scope is None else (ResultRow.table_id.in_(scope),)


@bp.get("/achievements")
@records_limit
def page() -> Any:
    from .records import scope

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
    )
