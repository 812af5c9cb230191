"""Expiry: tables nobody has played for a while are archived, then deleted.

An expired table's export is kept in ``archived_tables`` so nothing is lost
silently: it can be imported again.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from .errors import NoSuchTable
from .import_export import ImportExportMixin
from .models import ArchivedTableRow, TableRow, _now


class ExpiryMixin(ImportExportMixin):
    """Archiving and deleting idle tables (an archive is an export)."""

    def expire_tables(self, idle: timedelta, limit: int = 1000) -> list[str]:
        """Archive, then delete, tables nobody has played for ``idle``; their tokens.

        Each table's export goes into ``archived_tables`` first (see
        :meth:`archived`), so an expired table can still be imported again.
        """
        cutoff = _now() - idle
        with self._read() as session:
            tokens = list(
                session.scalars(
                    select(TableRow.token)
                    .where(TableRow.updated_at < cutoff)
                    .order_by(TableRow.updated_at)
                    .limit(limit)
                )
            )
        expired = []
        for token in tokens:
            try:
                export = self.export(token)
                with self._write() as session:
                    row = self._row(session, token)
                    if row.updated_at >= cutoff:
                        continue  # played again a moment ago
                    known = session.scalar(
                        select(ArchivedTableRow.id).where(ArchivedTableRow.token == token)
                    )
                    if known is None:
                        session.add(
                            ArchivedTableRow(
                                token=token,
                                game=row.game,
                                title=row.title,
                                last_played_at=row.updated_at,
                                export=export,
                            )
                        )
                self.delete_table(token)
            except NoSuchTable:
                continue  # deleted meanwhile
            except Exception:  # one table that cannot be exported must not stop the rest
                logging.getLogger(__name__).exception("table %s was not expired", token[:8])
                continue
            expired.append(token)
        return expired

    def archived(self, limit: int = 1000) -> list[dict[str, Any]]:
        """Archived tables, newest first: each an export that ``import_table`` takes."""
        with self._read() as session:
            rows = session.scalars(
                select(ArchivedTableRow).order_by(ArchivedTableRow.id.desc()).limit(limit)
            )
            return [
                {
                    "token": r.token,
                    "title": r.title,
                    "archived_at": r.archived_at,
                    "export": r.export,
                }
                for r in rows
            ]
