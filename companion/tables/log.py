"""A table's log and what it adds up to, without a database.

A table's state is never stored: it is ``fold(apply, effective actions)``
over the log, where undo, redo and seat takeovers are events too. This
module holds the read models (:class:`Event`, :class:`TableView`,
:class:`Snapshot`) and the pure functions that resolve a log
(:func:`resolve_log`, :func:`replay`, :func:`reopened_round`); the store
and the web layer both use them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from companion.rules.errors import RuleError

from .errors import TableError
from .games import GameKind, load

if TYPE_CHECKING:
    from .models import TableRow


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    payload: dict[str, Any] | None
    seat: str | None
    created_at: datetime
    undone: bool = False  # an action later taken back (and not redone)
    device: str | None = None  # the phone that made it (a hash; never shown or exported)


@dataclass(frozen=True)
class TableView:
    """What the views and templates need to know about one table."""

    id: int
    token: str
    view_token: str
    game: str
    title: str
    players: tuple[str, ...]
    options: dict[str, Any]
    seed: int
    version: int
    created_at: datetime
    updated_at: datetime

    @property
    def kind(self) -> GameKind:
        return load()[self.game]


@dataclass(frozen=True)
class Snapshot:
    """A table at one version: its state and what undo/redo would do."""

    table: TableView
    state: Any
    actions: tuple[dict[str, Any], ...]  # the effective actions, in order
    events: tuple[Event, ...]
    can_undo: bool
    can_redo: bool


def entry_maker(snap: Snapshot, player: str) -> str | None:
    """The phone that made ``player``'s latest entry that still counts (a
    hidden bid or card, when the round is open), or None if unknown."""
    kind = snap.table.kind
    for ev in reversed(snap.events):
        counts = ev.kind == "action" and not ev.undone and ev.payload is not None
        if counts and player in kind.personal(ev.payload or {}):
            return ev.device
    return None


@dataclass(frozen=True)
class LogResolution:
    """What a log adds up to: the actions that count, the redo stack, the
    seqs of actions that do not count now, and how many of the counting
    actions can no longer be undone (they came before a seat takeover)."""

    actions: list[dict[str, Any]]
    redo: list[dict[str, Any]]
    undone: set[int]
    floor: int
    seqs: tuple[int, ...] = ()  # the event each counting action came from


def undo_size(payload: Mapping[str, Any] | None) -> int:
    """How many actions one undo event takes back: one, or every entry of
    the secret round it reopens (LT4)."""
    entries = (payload or {}).get("entries", 1)
    return (
        entries if isinstance(entries, int) and not isinstance(entries, bool) and entries > 0 else 1
    )


def resolve_log(events: Sequence[Event]) -> LogResolution:
    """Resolve undo, redo and seat takeovers over a table's log."""
    done: list[tuple[int, dict[str, Any]]] = []
    redo: list[list[tuple[int, dict[str, Any]]]] = []  # what each undo took back
    floor = 0
    for ev in events:
        if ev.kind == "action" and ev.payload is not None:
            done.append((ev.seq, ev.payload))
            redo.clear()
        elif ev.kind == "undo" and len(done) > floor:
            size = min(undo_size(ev.payload), len(done) - floor)
            redo.append(done[-size:])
            del done[-size:]
        elif ev.kind == "redo" and redo:
            done.extend(redo.pop())
        elif ev.kind == "seat":
            # A seat moved to another phone, taking back what the seat had
            # hidden. Nothing before it can be undone or redone: an undo
            # would hand the seat's old secret to the new phone.
            withdrawn = (ev.payload or {}).get("action")
            if isinstance(withdrawn, dict):
                done.append((ev.seq, withdrawn))
            redo.clear()
            floor = len(done)
    # Undone: every action that does not count now, whether it can still be
    # redone or a later action closed the redo stack. (Only the redo stack
    # used to count, so a fresh replay lost the mark that the writing
    # process kept, and two workers showed two different histories.)
    counting = {seq for seq, _ in done}
    undone = {
        ev.seq
        for ev in events
        if ev.kind == "action" and ev.payload is not None and ev.seq not in counting
    }
    redoable = [a for group in redo for _, a in reversed(group)]
    return LogResolution(
        [a for _, a in done], redoable, undone, floor, tuple(seq for seq, _ in done)
    )


def reopened_round(snap: Snapshot) -> dict[str, Any] | None:
    """The payload of an undo made now: None to take back the last entry
    alone, or ``{"type": "ReopenRound", "entries": n}`` when the last entry
    completed a secret round (LT4).

    Undoing only the entry that revealed a round would let its maker see
    every bid and then bid again while the others' revealed bids stand. So
    the undo takes back every entry of that round, everyone enters again,
    and the log says so. A round a seat takeover cut in two cannot be
    reopened: its entries before the takeover cannot be undone (LT1).
    """
    kind = snap.table.kind
    if not snap.actions:
        return None
    states = [kind.new_state(snap.table.players, snap.table.options, snap.table.seed)]
    for action in snap.actions:
        states.append(kind.apply(states[-1], action))
    last = len(snap.actions) - 1
    key = kind.open_round(states[last])
    if key is None or kind.open_round(states[last + 1]) == key:
        return None
    floor = resolve_log(snap.events).floor
    start = last
    while start > 0 and kind.open_round(states[start - 1]) == key:
        start -= 1
    if start < floor:
        raise TableError(
            "that undo would reopen the round just revealed, but a seat moved to another "
            "phone during that round, so the round stays as it was revealed"
        )
    return {"type": "ReopenRound", "entries": last - start + 1}


def effective_actions(
    events: Sequence[Event],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[int]]:
    """Resolve undo/redo: (effective actions, redo stack, seqs of undone actions)."""
    resolved = resolve_log(events)
    return resolved.actions, resolved.redo, resolved.undone


def replay(table: TableView, actions: Sequence[Mapping[str, Any]]) -> Any:
    """Fold the game's ``apply`` over the actions from the table's setup."""
    kind = table.kind
    state = kind.new_state(table.players, table.options, table.seed)
    for action in actions:
        state = kind.apply(state, action)
    return state


#: The kind an action event is read as when this version of the referee
#: refuses it (see :func:`playable`). It is never written to the database.
SET_ASIDE = "set-aside"


def playable(table: TableView, events: Sequence[Event]) -> tuple[list[Event], LogResolution, Any]:
    """The log as this version of the referee can replay it, its resolution
    and the state it adds up to.

    Ruling (docs/live-table.md, *Tables kept from an older version*): a
    stored entry that the rules now refuse (an older version accepted it
    before a ruling tightened, such as XA8 on Autumn Ash bags) is read as
    set aside: it no longer counts, the history says so, and the table
    goes on from the entries that do. A table never becomes unreadable
    after an upgrade, and nothing in the database is rewritten.
    """
    events = list(events)
    kind = table.kind
    while True:
        resolved = resolve_log(events)
        state = kind.new_state(table.players, table.options, table.seed)
        for index, action in enumerate(resolved.actions):
            try:
                state = kind.apply(state, action)
            except RuleError:
                refused = resolved.seqs[index]
                events = [replace(e, kind=SET_ASIDE) if e.seq == refused else e for e in events]
                break
        else:
            return events, resolved, state


def _view(row: TableRow) -> TableView:
    setup = row.setup or {}
    return TableView(
        id=row.id,
        token=row.token,
        view_token=row.view_token,
        game=row.game,
        title=row.title,
        players=tuple(setup.get("players", ())),
        options=dict(setup.get("options", {})),
        seed=int(setup.get("seed", 0)),
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )
