"""What the records pages, the exports and the health check read: store calls,
each in a session of its own, so the web layer never opens one.

The pages decide *whose* records a browser may read (its group, or every
table for the operator); they hand that here as a :data:`Scope` made by
:func:`group_tables`, :func:`hosted_tables` or :func:`every_table`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, text

from .core import StoreCore
from .models import EventRow, TableRow
from .results import (
    GroupTotals,
    ResultLine,
    ResultRow,
    Scope,
    aliases,
    ensure_backfilled,
    group_totals,
    rename_at,
    result_lines,
    shown_keys,
)


def every_table() -> Select[Any]:
    """The operator's scope: every table's results."""
    return select(TableRow.id)


@dataclass(frozen=True)
class NorthWindTicks:
    """The North Wind achievements ticked at the tables in a scope."""

    games: int
    wins: int
    # (table title, table token, finished at, comma-separated ids), newest first
    ticked: list[tuple[str, str, datetime, str]]


class RecordsMixin(StoreCore):
    """Reads of the records (and one write: a rename), for the web layer."""

    def result_lines(self, scope: Scope, *, server_names: bool = False) -> list[ResultLine]:
        """Every result row at the tables in ``scope``, oldest first (see
        :func:`companion.tables.results.result_lines`)."""
        ensure_backfilled(self)
        with self._read() as session:
            return result_lines(session, scope=scope, server_names=server_names)

    def totals(
        self, scope: Scope, since: datetime | None = None
    ) -> tuple[list[GroupTotals], dict[str, str]]:
        """The results in ``scope`` counted per player, game and variant, and
        the server-wide name merges (for the operator's list)."""
        ensure_backfilled(self)
        with self._read() as session:
            return group_totals(session, since, scope=scope), aliases(session)

    def shown_keys(self, scope: Scope) -> set[str]:
        """The name keys players show under at the tables in ``scope``."""
        with self._read() as session:
            return shown_keys(session, scope)

    def rename_player(self, scope: Scope, old: str, new: str) -> int:
        """At the tables in ``scope``, everyone shown as ``old`` shows as ``new``
        from now on (one transaction); how many tables changed."""
        with self._write() as session:
            return rename_at(session, every_table() if scope is None else scope, old, new)

    def plays_started(self, scope: Scope) -> dict[str, datetime]:
        """When each table in ``scope`` began: its first event (only those tables are read)."""
        first = (
            select(TableRow.token, func.min(EventRow.created_at))
            .join(EventRow, EventRow.table_id == TableRow.id)
            .group_by(TableRow.token)
        )
        if scope is not None:
            first = first.where(TableRow.id.in_(scope))
        with self._read() as session:
            return {token: begun for token, begun in session.execute(first)}

    def north_wind_ticks(self, scope: Scope) -> NorthWindTicks:
        """Games, wins and achievement ticks of the finished North Wind tables in ``scope``."""
        ensure_backfilled(self)
        within: tuple[Any, ...] = () if scope is None else (ResultRow.table_id.in_(scope),)
        with self._read() as session:
            games, wins = session.execute(
                select(
                    func.count(ResultRow.id),
                    func.count(ResultRow.id).filter(ResultRow.outcome.in_(("won", "shared"))),
                ).where(ResultRow.game == "north_wind", *within)
            ).one()
            ticked = session.execute(
                select(
                    TableRow.title, TableRow.token, ResultRow.finished_at, ResultRow.achievements
                )
                .join(TableRow, TableRow.id == ResultRow.table_id)
                .where(ResultRow.game == "north_wind", ResultRow.achievements != "", *within)
                .order_by(ResultRow.finished_at.desc(), ResultRow.id.desc())
            ).all()
        return NorthWindTicks(
            int(games or 0),
            int(wins or 0),
            [(str(title), str(token), when, str(ids)) for title, token, when, ids in ticked],
        )

    def backup_of(self, scope: Scope) -> dict[str, Any]:
        """A backup of the tables in ``scope`` (see :func:`companion.tables.backup.backup`)."""
        from .backup import backup  # backup.py reads the store's schema: imported when used

        return backup(self.engine, table_ids=scope)

    def ping(self) -> None:
        """Ask the database a trivial question (the health check); what it
        raises when it does not answer is left to the caller to read."""
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
