"""A table as a file: the export, and importing one as a new table with
every event checked.

An import is checked by folding it once with the game's ``apply``
(:func:`check_import`, pure: a server runs it in a job worker), so its cost
is linear in the log, and it is written in one transaction
(:meth:`ImportExportMixin.write_import`), so a refused file leaves nothing
behind.
"""

from __future__ import annotations

import copy
import gc
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from companion.rules.errors import RuleError
from companion.rules.messages import Grouped, Message, refusal

from . import results
from .checks import _clip, plain_text
from .core import LOG_SLICE_ROWS, StoreCore, new_table_row
from .errors import NOTHING_TO_REDO, NOTHING_TO_UNDO, TableError
from .games import GameKind, load
from .log import (
    SET_ASIDE,
    Event,
    LogWalk,
    Snapshot,
    TableView,
    _view,
    depth,
    let_others_run,
    undo_size,
)
from .models import MAX_NAME_LENGTH, TableRow, _now
from .writes import _driver_cursor, _WriteStatements

MAX_IMPORT_EVENTS = 100_000  # the 2 MB upload limit allows about 40,000
MAX_IMPORT_DEPTH = 32  # no table's export nests deeper than a handful of levels
MAX_SEED = 2**53  # a whole number every JSON reader keeps exactly


class _DamagedEvent(TableError):
    """An event that is not an event at all (said as is, not as "does not replay")."""


def _damaged_event(seq: int) -> Message:
    return refusal(
        "import.damaged_event", "this export has a damaged event (number %(number)s)", number=seq
    )


def _depth(data: Any) -> int:
    """How deeply lists and dicts nest in ``data`` (without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)] if isinstance(data, dict | list) else []
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_IMPORT_DEPTH:
            return deepest
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return deepest


def _fold_import(
    kind: GameKind, state: Any, events: Sequence[Any], deadline: float | None = None
) -> tuple[LogWalk, list[dict[str, Any]]]:
    """Check an export's events in one pass; the walk they add up to and the
    rows to write.

    The import is walked as the live table is (:class:`LogWalk`), with
    ``_append``'s checks: an action must be legal where it stands, an undo
    needs an action after the last seat takeover, a redo needs something
    undone. The walk keeps the state before each action, so undo and redo
    cost nothing, and the table's first snapshot is this walk (no second
    replay).
    """
    # The walk holds tens of thousands of young objects: the cyclic garbage
    # collector would scan them again and again (it doubled the time). The
    # fold makes no cycles, so it runs with the collector paused.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _fold(kind, state, events, deadline)
    finally:
        if collecting:
            gc.enable()


_IMPORTED_AT = datetime(2000, 1, 1)  # the walk reads no times; the rows get the real one


def _fold(
    kind: GameKind, state: Any, events: Sequence[Any], deadline: float | None = None
) -> tuple[LogWalk, list[dict[str, Any]]]:
    walk = LogWalk(kind, state)
    records: list[dict[str, Any]] = []
    for seq, ev in enumerate(events, start=1):
        if deadline is not None and seq % 64 == 0 and time.monotonic() > deadline:
            raise _DamagedEvent(
                refusal("import.too_long", "this export takes too long to check on this server")
            )
        if not isinstance(ev, Mapping) or ev.get("kind") not in ("action", "undo", "redo", "seat"):
            raise _DamagedEvent(_damaged_event(seq))
        kind_of = ev["kind"]
        seat = ev.get("seat") if isinstance(ev.get("seat"), str) else None
        payload = ev.get("payload")
        if kind_of in ("action", "seat"):
            if not isinstance(payload, Mapping) or (
                kind_of == "seat" and not isinstance(payload.get("seat"), str)
            ):
                raise _DamagedEvent(_damaged_event(seq))
            payload = json.loads(json.dumps(dict(payload)))
        elif kind_of == "undo":
            if not walk.can_undo:
                raise TableError(NOTHING_TO_UNDO)
            reopen = payload if isinstance(payload, Mapping) else None
            size = min(undo_size(reopen), depth(walk.done) - walk.floor)
            payload = {"type": "ReopenRound", "entries": size} if reopen and size > 1 else None
        else:
            if not walk.can_redo:
                raise TableError(NOTHING_TO_REDO)
            payload = None
        try:
            walk = walk.then(Event(seq, kind_of, payload, None, _IMPORTED_AT), strict=True)
        except RuleError as exc:
            raise TableError(exc.message) from exc
        records.append(
            {
                "seq": seq,
                "kind": kind_of,
                "payload": payload,
                "seat": (plain_text(seat)[: MAX_NAME_LENGTH * 4] or None) if seat else None,
            }
        )
    return walk, records


class ImportExportMixin(StoreCore):
    """Exporting a table and importing an export as a new table."""

    def export(
        self,
        token: str,
        *,
        events: Sequence[Event] | None = None,
        snapshot: Snapshot | None = None,
    ) -> dict[str, Any]:
        """The table as a JSON-ready dict; ``events`` replaces the log (the
        web layer passes the log as the person exporting may see it)."""
        snap = snapshot or self.snapshot(token)
        t = snap.table
        # A deep copy: the payloads are the cached snapshot's own objects, and a
        # caller editing the export must not change what the table shows.
        return copy.deepcopy(
            {
                "format": "leafpile-table",
                "format_version": 1,
                "game": t.game,
                "title": t.title,
                "setup": {"players": list(t.players), "options": t.options, "seed": t.seed},
                "created_at": t.created_at.isoformat() + "Z",
                "events": [
                    {
                        "seq": e.seq,
                        # A set-aside entry (LT6) is exported as it is stored.
                        "kind": "action" if e.kind == SET_ASIDE else e.kind,
                        "payload": e.payload,
                        "seat": e.seat,
                        "at": e.created_at.isoformat() + "Z",
                    }
                    for e in (snap.events if events is None else events)
                ],
            }
        )

    def import_table(
        self,
        data: Any,
        check_options: CheckOptions | None = None,
        *,
        max_events: int = 0,
        max_seconds: float = 0.0,
    ) -> TableView:
        """Create a new table (new addresses) from an export, checking every
        event (:func:`check_import`), then write it (:meth:`write_import`)."""
        return self.write_import(check_import(data, check_options, max_events, max_seconds))

    def write_import(self, checked: CheckedImport) -> TableView:
        """Write a checked import as a new table, with all its events, in one
        transaction: a database that refuses it keeps nothing.

        The table's snapshot is not kept: the walk that checked it may have
        been made in a job worker (a walk holds a state per action, too much
        to send back), and the table's first reader walks it again.
        """
        row = TableRow(
            token=secrets.token_urlsafe(24),  # 192 bits: the table's URL is its key
            view_token=secrets.token_urlsafe(24),
            game=checked.game,
            title=checked.title,
            setup=checked.setup,
            version=len(checked.records),
        )
        statements = _WriteStatements.for_store(self._marker, postgres=not self.is_sqlite)
        stamp = statements.timestamp(_now())
        # Every row made before the write begins, letting the server's other
        # requests run now and then: the write (and on SQLite every other
        # writer) then waits only for the insert itself.
        events = []
        for n, r in enumerate(checked.records, 1):
            events.append((r["seq"], r["kind"], json.dumps(r["payload"]), r["seat"], stamp))
            if n % LOG_SLICE_ROWS == 0:
                let_others_run()
        with self._write() as session:
            session.add(row)
            session.flush()
            if events:  # one executemany straight to the driver, as an entry's own insert
                with closing(_driver_cursor(session)) as cursor:
                    cursor.executemany(
                        statements.append, [(row.id, *event, None, None) for event in events]
                    )
            view = _view(row)
            results.record_finished(session, view, checked.state, checked.actions)
        return view


CheckOptions = Callable[[str, tuple[str, ...], Mapping[str, Any]], None]


@dataclass(frozen=True)
class CheckedImport:
    """An export checked event by event: the new table's setup and the rows
    to write, and the state and actions the game came to (for its results).

    A plain value, so a job worker can check an upload and send this back.
    """

    game: str
    title: str
    setup: dict[str, Any]
    records: tuple[dict[str, Any], ...]
    state: Any
    actions: tuple[dict[str, Any], ...]


def check_import(
    data: Any,
    check_options: CheckOptions | None = None,
    max_events: int = 0,
    max_seconds: float = 0.0,
) -> CheckedImport:
    """An export checked for a new table, or :class:`TableError` saying why not.

    Pure (no database), and linear in the log's length: the log is folded
    once with the game's ``apply``, keeping the state before each action
    that counts, so an undo pops a state and a redo pushes one back
    (replaying the log per event, as before, cost minutes for a few thousand
    undos). ``check_options(game, players, options)`` checks the options as
    the new-table form would (the web layer knows the forms); it raises
    :class:`TableError`. ``max_events`` and ``max_seconds`` (0: the store's
    own ceiling, no time limit) bound what one import may cost: the web
    layer passes its limits (issue 23).
    """
    if not isinstance(data, Mapping) or data.get("format") != "leafpile-table":
        raise TableError(refusal("import.not_export", "this file is not a Leafpile table export"))
    setup = data.get("setup")
    events = data.get("events")
    if not isinstance(setup, Mapping) or not isinstance(events, list):
        raise TableError(refusal("import.no_events", "this export has no setup or no events"))
    most = min(max_events or MAX_IMPORT_EVENTS, MAX_IMPORT_EVENTS)
    if len(events) > most:
        raise TableError(
            refusal(
                "import.too_many",
                "this export has more than %(most)s events",
                most=Grouped(most),
            )
        )
    game = data.get("game")
    players = setup.get("players")
    seed = setup.get("seed")
    options = setup.get("options", {})
    if not isinstance(game, str) or game not in load():
        raise TableError(
            refusal(
                "import.no_game",
                "there is no game called %(game)s on this server",
                game=repr(_clip(game, 24)),
            )
        )
    if not isinstance(players, list) or not isinstance(options, Mapping):
        raise TableError(refusal("import.damaged_setup", "this export's setup is damaged"))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise TableError(
            refusal(
                "import.damaged_seed",
                "this export's setup is damaged: its seed is not a whole number from 0 to 2⁵³",
            )
        )
    if _depth(data) > MAX_IMPORT_DEPTH:
        raise TableError(
            refusal("import.too_deep", "this export is nested far deeper than any Leafpile table")
        )
    title = data.get("title")
    row, state = new_table_row(
        game,
        [str(p)[:200] for p in players],
        options,
        title if isinstance(title, str) else "",
        seed,
    )
    if check_options is not None:
        check_options(game, tuple(row.setup["players"]), options)
    try:
        deadline = time.monotonic() + max_seconds if max_seconds else None
        walk, records = _fold_import(load()[game], state, events, deadline)
    except _DamagedEvent:
        raise
    except TableError as exc:
        raise TableError(
            refusal("import.no_replay", "this export does not replay: %(why)s", why=exc.message)
        ) from exc
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # A file's actions are anybody's JSON: a game that meets a field of
        # the wrong type (null scores, say) may fail outside its rule checks.
        raise TableError(
            refusal("import.damaged_action", "this export does not replay: it has a damaged action")
        ) from exc
    return CheckedImport(
        game=game,
        title=row.title,
        setup=row.setup,
        records=tuple(records),
        state=walk.state,
        actions=walk.actions,
    )
