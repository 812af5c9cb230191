"""Tables: a game, its setup and an append-only event log, in SQL.

A table's state is never stored: it is ``fold(apply, effective actions)``
over the log, where undo, redo and seat takeovers are events too. Writes
carry the version the phone saw, and a write made on an older version is
entered only when nothing it depends on changed since (see
:mod:`companion.tables.writes`). Seats bind a player's name to one phone;
members are the browsers that created or opened a table.

This module is the public face of the store: :class:`Store` puts together
one part per concern, each in its own module, and every name the rest of the
app imports from here is re-exported from where it now lives:

* :mod:`~companion.tables.models`: the ORM rows and creating the schema;
* :mod:`~companion.tables.errors`: what the store refuses, and why;
* :mod:`~companion.tables.checks`: tokens, tap ids, names and titles as typed;
* :mod:`~companion.tables.log`: events, snapshots and resolving a log;
* :mod:`~companion.tables.core`: engine, sessions, tables and the snapshot cache;
* :mod:`~companion.tables.writes`: actions, undo and redo;
* :mod:`~companion.tables.seats`: seats, members, viewer facts, the host role;
* :mod:`~companion.tables.import_export`: a table as a file;
* :mod:`~companion.tables.expiry`: archiving idle tables;
* :mod:`~companion.tables.join_codes`: short codes that open a table.
"""

from __future__ import annotations

from .checks import plain_text
from .errors import (
    AlreadyEntered,
    NoSuchTable,
    NothingToUndo,
    SeatHasEntry,
    SeatTaken,
    StaleVersion,
    TableError,
    TapUnknown,
)
from .expiry import ExpiryMixin
from .import_export import MAX_IMPORT_EVENTS
from .join_codes import JOIN_ALPHABET, JoinCodesMixin
from .log import Event, Snapshot, TableView, effective_actions, replay, resolve_log
from .models import (
    MAX_NAME_LENGTH,
    MAX_TITLE_LENGTH,
    Base,
    EventRow,
    TableRow,
    _create_schema,
    _now,
)
from .projection import BoardView, Viewer, board_view
from .records import RecordsMixin
from .rematches import RematchMixin
from .seats import BoardRead
from .writes import WritesMixin


class Store(RematchMixin, RecordsMixin, WritesMixin, ExpiryMixin, JoinCodesMixin):
    """All reads and writes of tables. One per app; safe across threads."""

    def board(self, token: str, viewer: Viewer, version: int | None = None) -> BoardView:
        """What ``viewer`` may see of the table now, or at ``version`` when
        this process has it cached (see :mod:`companion.tables.projection`)."""
        snap = self.snapshot(token) if version is None else self.snapshot_at(token, version)
        return board_view(snap, viewer)


# What the rest of the app, the tests and the benchmarks import from here
# (tests/code/test_dead_names.py keeps it to that: a name nobody imports
# from the store is imported from its own module instead).
__all__ = [
    "JOIN_ALPHABET",
    "MAX_IMPORT_EVENTS",
    "MAX_NAME_LENGTH",
    "MAX_TITLE_LENGTH",
    "AlreadyEntered",
    "Base",
    "BoardRead",
    "Event",
    "EventRow",
    "NoSuchTable",
    "NothingToUndo",
    "SeatHasEntry",
    "SeatTaken",
    "Snapshot",
    "StaleVersion",
    "Store",
    "TableError",
    "TableRow",
    "TableView",
    "TapUnknown",
    "effective_actions",
    "plain_text",
    "replay",
    "resolve_log",
    "_create_schema",
    "_now",
]
