"""Who is looking at a table, and what they may see and do.

The one place that decides a viewer's rights. A *viewer* is a browser at a
table: a phone holding a seat, a shared pass-around phone (no seat), or a
spectator screen (read only). Every output of a table — page, board
fragment, poll, history, export, error message, cached board — goes through
:func:`viewer_for` and :func:`visible_events`, so an entry a player has not
revealed reaches no other phone in any form.

A browser is known by a random device id kept in its signed session cookie;
the database stores only its SHA-256, so a leaked database cannot be used to
act as somebody's phone.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from threading import Lock
from typing import Any

from flask import session

from companion.tables.games import GameKind
from companion.tables.store import Event, NoSuchTable, Snapshot

from . import store

_DEVICE_KEY = "device"


def device_id() -> str:
    """This browser's device hash, creating its id on first use."""
    raw = session.get(_DEVICE_KEY)
    if not isinstance(raw, str) or len(raw) < 16:
        raw = secrets.token_urlsafe(24)
        session[_DEVICE_KEY] = raw
        session.permanent = True  # a phone keeps its seats across browser restarts
    return hashlib.sha256(raw.encode()).hexdigest()


def known_device() -> str | None:
    """The device hash if this browser has one already (never creates it)."""
    raw = session.get(_DEVICE_KEY)
    if not isinstance(raw, str) or len(raw) < 16:
        return None
    return hashlib.sha256(raw.encode()).hexdigest()


@dataclass(frozen=True)
class Viewer:
    """One browser at one table."""

    seat: str | None  # the seat this phone holds, or None (shared phone, spectator)
    readonly: bool  # a spectator screen
    taken: frozenset[str]  # seats held by other phones
    host: bool = False  # the browser that started the table (may start the next game)

    @property
    def cache_key(self) -> tuple[Any, ...]:
        """Everything about the viewer that a board's HTML depends on."""
        return (self.seat, self.readonly, self.taken, self.host)

    def may_enter_for(self, player: str) -> bool:
        """Whether this browser may make or take back ``player``'s own hidden entry:
        its own seat, or a seat no phone holds (a shared phone, or "enter for
        the others"); never a seat another phone holds, never from a spectator."""
        return not self.readonly and player not in self.taken


SPECTATOR = Viewer(seat=None, readonly=True, taken=frozenset())


def viewer_for(snap: Snapshot, *, readonly: bool = False) -> Viewer:
    """The viewer this request is, at this table."""
    if readonly:
        return SPECTATOR
    device = known_device()
    try:
        held, role = store().seats_and_role(snap.table.token, device)
    except NoSuchTable:
        held, role = {}, None
    mine = next((seat for seat, holder in held.items() if holder == device), None)
    if mine not in snap.table.players:
        mine = None
    return Viewer(
        seat=mine,
        readonly=False,
        taken=frozenset(s for s in held if s != mine),
        host=role == "host",
    )


def is_host(token: str) -> bool:
    """Whether this browser created (or imported) the table: it may delete
    it and start a rematch."""
    device = known_device()
    if device is None:
        return False
    try:
        return store().role_of(token, device) == "host"
    except NoSuchTable:
        return False


def my_tables() -> frozenset[str]:
    """The addresses (player and spectator tokens) of the tables this browser
    started or opened: pages that list tables of the whole server (records,
    achievements) link only to these (LT2)."""
    device = known_device()
    if device is None:
        return frozenset()
    tables = store().tables_of(device, limit=10_000)
    return frozenset(t.token for t in tables) | frozenset(t.view_token for t in tables)


# --- what stays hidden ------------------------------------------------------

# The hidden entries of a table version, per process (cheap to rebuild: one
# replay of the log with its intermediate states).
_HIDDEN: OrderedDict[tuple[str, int], dict[int, frozenset[str]]] = OrderedDict()
_HIDDEN_LOCK = Lock()


def hidden_entries(snap: Snapshot) -> dict[int, frozenset[str]]:
    """seq -> the players whose entries in that event are still hidden.

    An entry stays hidden while the secret round it was made in is still
    open (the game's ``open_round`` key is the same now as just before the
    entry was made). The entry that completes a round reveals it, so it and
    every entry before it are shown.
    """
    kind = snap.table.kind
    current = kind.open_round(snap.state)
    if current is None:
        return {}
    key = (snap.table.token, snap.table.version)
    with _HIDDEN_LOCK:
        found = _HIDDEN.get(key)
    if found is not None:
        return found
    found = _scan_hidden(snap, kind, current)
    with _HIDDEN_LOCK:
        _HIDDEN[key] = found
        while len(_HIDDEN) > 256:
            _HIDDEN.popitem(last=False)
    return found


def _scan_hidden(snap: Snapshot, kind: GameKind, current: Any) -> dict[int, frozenset[str]]:
    table = snap.table
    state = kind.new_state(table.players, table.options, table.seed)
    done: list[Any] = []  # the states before each counting action
    redo: list[tuple[Any, Any]] = []
    floor = 0
    hidden: dict[int, frozenset[str]] = {}
    for ev in snap.events:
        if ev.kind == "action" and ev.payload is not None:
            personal = kind.personal(ev.payload)
            if personal and kind.open_round(state) == current:
                hidden[ev.seq] = frozenset(personal)
            done.append(state)
            state = kind.apply(state, ev.payload)
            redo.clear()
        elif ev.kind == "undo" and len(done) > floor:
            redo.append((state, done[-1]))
            state = done.pop()
        elif ev.kind == "redo" and redo:
            after, before = redo.pop()
            done.append(before)
            state = after
        elif ev.kind == "seat":
            withdrawn = (ev.payload or {}).get("action")
            if isinstance(withdrawn, dict):
                done.append(state)
                state = kind.apply(state, withdrawn)
            redo.clear()
            floor = len(done)
    return hidden


def visible_events(snap: Snapshot, viewer: Viewer) -> tuple[Event, ...]:
    """The table's log as this viewer may see it: other players' hidden
    entries blanked out (the action's ``card`` becomes ``"hidden"``)."""
    hidden = hidden_entries(snap)
    if not hidden:
        return snap.events
    kind = snap.table.kind
    shown = []
    for ev in snap.events:
        players = hidden.get(ev.seq, frozenset()) - {viewer.seat}
        if players and ev.payload is not None:
            ev = replace(ev, payload=kind.redact(ev.payload, frozenset(players)))
        shown.append(ev)
    return tuple(shown)


def hidden_count(snap: Snapshot, viewer: Viewer) -> int:
    """How many entries of the open round this viewer cannot see."""
    return sum(1 for players in hidden_entries(snap).values() if players - {viewer.seat})


def last_entry_owner(snap: Snapshot) -> tuple[str, ...]:
    """The players whose own entry the last counting action is (what undo takes back)."""
    if not snap.actions:
        return ()
    return snap.table.kind.personal(snap.actions[-1])


def refusal_for(snap: Snapshot, viewer: Viewer, action: Mapping[str, Any]) -> str | None:
    """Why this viewer may not enter ``action``, or None when it may."""
    for player in snap.table.kind.personal(action):
        if player in snap.table.players and not viewer.may_enter_for(player):
            return (
                f"Your tap was not entered: {player}'s seat is on {player}'s own phone, "
                f"so only that phone enters or takes back {player}'s card."
            )
    return None
