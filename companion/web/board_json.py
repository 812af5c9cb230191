"""A phone's board as JSON: the same :class:`BoardView` the page is drawn from.

``GET /t/<token>/board.json`` (and ``/v/<view_token>/board.json`` for the
spectator screen) serve what that phone may see, as data: a TV view or
another client needs no scraping, and obeys the same secrecy as the page
because it reads the very same value. The format is versioned
(``format_version``); ``docs/api.md`` describes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from typing import Any

from companion.rules.messages import Message
from companion.tables.projection import BoardView

from .board import describe_event, screen_of
from .i18n import words

FORMAT = "leafpile-board"
FORMAT_VERSION = 1


def plain(value: Any) -> Any:
    """``value`` as JSON data: dataclasses as objects of their fields, tuples
    and sets as lists (sets sorted), mappings with string keys; words the
    rules keep as values (a North Wind note) in this phone's language."""
    if isinstance(value, Message):
        return words(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return plain(value.value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def board_json(board: BoardView) -> dict[str, Any]:
    """The JSON document for one phone's board."""
    table = board.table
    screen = screen_of(table.game)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "table": {
            "game": table.game,
            "title": table.title,
            "players": list(table.players),
            "options": plain(table.options),
            "version": table.version,
        },
        "phone": {
            "seat": board.me,
            "seats_on_other_phones": sorted(board.taken),
            "may_act": board.may_act,
            "spectator": board.spectator,
            "shown_hidden_entries_of": sorted(board.shown),
            "hidden_entries": board.hidden_count,
            "can_undo": board.can_undo and board.undo_refusal is None,
            "can_redo": board.can_redo and board.may_act,
            "why_no_undo": words(board.undo_refusal) if board.undo_refusal else None,
        },
        "game": plain(board.game),
        "over": board.over,
        "end": plain(board.end),
        "events": [
            {
                "seq": ev.seq,
                "kind": ev.kind,
                "time_utc": ev.created_at.isoformat(timespec="seconds"),
                "phone": ev.seat,
                "undone": ev.undone,
                "words": describe_event(screen, ev),
                "action": plain(ev.payload),
            }
            for ev in board.events
        ],
    }
