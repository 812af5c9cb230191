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

from .checks import _TOKEN, TAP_ID, _check_token, _clip, check_player_names, plain_text
from .core import StoreCore, _short_date
from .errors import (
    ALREADY_ENTERED_MESSAGE,
    STALE_MESSAGE,
    TAP_UNKNOWN_MESSAGE,
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
from .import_export import (
    MAX_IMPORT_DEPTH,
    MAX_IMPORT_EVENTS,
    MAX_SEED,
    ImportExportMixin,
    _apply,
    _DamagedEvent,
    _depth,
    _fold,
    _fold_import,
)
from .join_codes import JOIN_ALPHABET, JOIN_CODE_LENGTH, JoinCodesMixin
from .log import (
    NO_SECRETS,
    SET_ASIDE,
    Event,
    LogResolution,
    LogWalk,
    Secrets,
    Snapshot,
    TableView,
    _view,
    effective_actions,
    entry_maker,
    reopened_round,
    replay,
    resolve_log,
    snapshot_of,
    undo_size,
    walk_log,
)
from .models import (
    _SCHEMA_LOCK,
    MAX_NAME_LENGTH,
    MAX_TITLE_LENGTH,
    TAP_ID_LENGTH,
    ArchivedTableRow,
    Base,
    EventRow,
    JoinCodeRow,
    MemberRow,
    SeatRow,
    TableRow,
    _add_missing_columns,
    _create_schema,
    _now,
    _private_sqlite_file,
    _sqlite_pragmas,
)
from .projection import BoardView, Viewer, board_view
from .records import RecordsMixin
from .rematches import RematchMixin
from .seats import MEMBER_ROLES, PHONE_MODES, BoardRead, ViewerFacts
from .writes import WritesMixin


class Store(RematchMixin, RecordsMixin, WritesMixin, ExpiryMixin, JoinCodesMixin):
    """All reads and writes of tables. One per app; safe across threads."""

    def board(self, token: str, viewer: Viewer, version: int | None = None) -> BoardView:
        """What ``viewer`` may see of the table now, or at ``version`` when
        this process has it cached (see :mod:`companion.tables.projection`)."""
        snap = self.snapshot(token) if version is None else self.snapshot_at(token, version)
        return board_view(snap, viewer)


__all__ = [
    "ALREADY_ENTERED_MESSAGE",
    "JOIN_ALPHABET",
    "JOIN_CODE_LENGTH",
    "MAX_IMPORT_DEPTH",
    "MAX_IMPORT_EVENTS",
    "MAX_NAME_LENGTH",
    "MAX_SEED",
    "MAX_TITLE_LENGTH",
    "MEMBER_ROLES",
    "PHONE_MODES",
    "STALE_MESSAGE",
    "TAP_ID",
    "TAP_ID_LENGTH",
    "TAP_UNKNOWN_MESSAGE",
    "_SCHEMA_LOCK",
    "_TOKEN",
    "AlreadyEntered",
    "ArchivedTableRow",
    "Base",
    "BoardRead",
    "Event",
    "EventRow",
    "ImportExportMixin",
    "JoinCodeRow",
    "LogResolution",
    "MemberRow",
    "NoSuchTable",
    "NothingToUndo",
    "SeatHasEntry",
    "SeatRow",
    "SeatTaken",
    "Snapshot",
    "StaleVersion",
    "Store",
    "StoreCore",
    "TableError",
    "TableRow",
    "TableView",
    "TapUnknown",
    "ViewerFacts",
    "_DamagedEvent",
    "_add_missing_columns",
    "_apply",
    "_check_token",
    "_clip",
    "_create_schema",
    "_depth",
    "_fold",
    "_fold_import",
    "_now",
    "_private_sqlite_file",
    "_short_date",
    "_sqlite_pragmas",
    "_view",
    "check_player_names",
    "effective_actions",
    "entry_maker",
    "plain_text",
    "reopened_round",
    "replay",
    "resolve_log",
    "SET_ASIDE",
    "walk_log",
    "snapshot_of",
    "LogWalk",
    "Secrets",
    "NO_SECRETS",
    "undo_size",
]
