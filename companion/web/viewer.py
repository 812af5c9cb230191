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
from companion.tables.store import (
    PHONE_MODES,
    Event,
    NoSuchTable,
    Snapshot,
    ViewerFacts,
    undo_size,
)

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
    """One browser at one table.

    ``mode`` is what the browser said it is: ``"seat"`` (it holds
    ``seat``), ``"shared"`` (passed around the table), ``"watching"``,
    ``"undecided"`` (it has not said yet, so it enters nothing) or
    ``"spectator"`` (the read-only address).
    """

    seat: str | None  # the seat this phone holds, or None
    readonly: bool  # a spectator screen, or a phone that is just watching
    taken: frozenset[str]  # seats held by other phones
    host: bool = False  # may start the next game, delete the table, hand the role on
    mode: str = "shared"
    device: str | None = None  # this browser's device hash (never rendered)
    lost_seat: str | None = None  # a seat another phone took over from this one
    lost_to: str | None = None  # the seat that phone held before, if any
    sees: frozenset[int] = frozenset()  # seqs of hidden entries shown back to this phone

    @property
    def cache_key(self) -> tuple[Any, ...]:
        """Everything about the viewer that a board's HTML depends on: not the
        device itself, but which hidden entries it is shown (LT3)."""
        return (
            self.seat,
            self.readonly,
            self.taken,
            self.host,
            self.mode,
            self.lost_seat,
            self.lost_to,
            self.sees,
        )

    @property
    def may_act(self) -> bool:
        """Whether this phone may enter anything at all (it said who it is)."""
        return self.mode in ("seat", "shared")

    def may_enter_for(self, player: str) -> bool:
        """Whether this browser may make or take back ``player``'s own hidden entry:
        its own seat, or a seat no phone holds (a shared phone, or "enter for
        the others"); never a seat another phone holds, never from a phone
        that has not said who it is or is watching."""
        return self.may_act and player not in self.taken


SPECTATOR = Viewer(seat=None, readonly=True, taken=frozenset(), mode="spectator")


def viewer_for(snap: Snapshot, *, readonly: bool = False) -> Viewer:
    """The viewer this request is, at this table."""
    if readonly:
        return SPECTATOR
    device = known_device()
    try:
        facts = store().viewer_facts(snap.table.token, device)
    except NoSuchTable:
        facts = ViewerFacts({}, None, None, None, None)
    return viewer_from(snap, device, facts)


def viewer_from(snap: Snapshot, device: str | None, facts: ViewerFacts) -> Viewer:
    """The viewer a browser is, from what the database knows of it."""
    held = facts.seats
    mine = next((seat for seat, holder in held.items() if holder == device), None)
    if mine not in snap.table.players:
        mine = None
    if mine is not None:
        mode = "seat"
    elif facts.mode in PHONE_MODES:
        mode = facts.mode
    elif len(snap.table.players) == 1:
        mode = "shared"  # a one-player table has nobody to keep a secret from: no question
    else:
        mode = "undecided"
    return Viewer(
        seat=mine,
        readonly=mode == "watching",
        taken=frozenset(s for s in held if s != mine),
        host=facts.role == "host",
        mode=mode,
        device=device,
        lost_seat=facts.lost_seat if mine is None else None,
        lost_to=facts.lost_to if mine is None else None,
        sees=shown_back(snap, mine, device),
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
_HIDDEN: OrderedDict[tuple[str, int], Secrets] = OrderedDict()
_HIDDEN_LOCK = Lock()


@dataclass(frozen=True)
class Secrets:
    """What a table version keeps hidden.

    ``open``: seq -> the players whose entries in that event are hidden
    while their round is still open (shown back only to the phone that
    made them). ``sealed``: seq -> players whose entries are never shown to
    anyone: taken back when another phone took the seat, or never turned
    up by a reveal (changed, taken back or undone before it) (LT3).
    """

    open: dict[int, frozenset[str]]
    sealed: dict[int, frozenset[str]]

    def hidden_from_all(self, seq: int) -> frozenset[str]:
        return self.open.get(seq, frozenset()) | self.sealed.get(seq, frozenset())


NO_SECRETS = Secrets({}, {})


def hidden_entries(snap: Snapshot) -> Secrets:
    """The table's hidden entries at this version (see :class:`Secrets`).

    An entry is shown to everybody only once a reveal has turned it up: the
    entry that completes a secret round reveals, for each player, the last
    entry of theirs that counts in that round. Until then it is hidden
    (``open`` while its round is open, ``sealed`` once the round is gone
    without revealing it).
    """
    kind = snap.table.kind
    if not any(e.kind == "action" and kind.personal(e.payload or {}) for e in snap.events):
        return NO_SECRETS  # nobody ever entered anything in secret here
    key = (snap.table.token, snap.table.version)
    with _HIDDEN_LOCK:
        found = _HIDDEN.get(key)
    if found is not None:
        return found
    found = _scan_hidden(snap, kind, kind.open_round(snap.state))
    with _HIDDEN_LOCK:
        _HIDDEN[key] = found
        while len(_HIDDEN) > 256:
            _HIDDEN.popitem(last=False)
    return found


def _scan_hidden(snap: Snapshot, kind: GameKind, current: Any) -> Secrets:
    """One replay of the log, following undo, redo and seat events as
    :func:`companion.tables.store.resolve_log` does, noting which entries
    each reveal turned up."""
    table = snap.table
    state = kind.new_state(table.players, table.options, table.seed)
    done: list[tuple[int, Any]] = []  # (seq, state before) of each counting action
    redo: list[list[tuple[int, Any, Any]]] = []  # (seq, after, before) each undo took back
    floor = 0
    made_in: dict[int, tuple[Any, frozenset[str]]] = {}  # seq -> (round key, players)
    revealed: set[tuple[int, str]] = set()  # (seq, player) turned up by a reveal
    taken_back: dict[int, set[str]] = {}  # sealed by a seat moving to another phone
    for ev in snap.events:
        if ev.kind == "action" and ev.payload is not None:
            personal = kind.personal(ev.payload)
            round_key = kind.open_round(state)
            if personal and round_key is not None:
                made_in[ev.seq] = (round_key, frozenset(personal))
            done.append((ev.seq, state))
            state = kind.apply(state, ev.payload)
            redo.clear()
            if round_key is not None and kind.open_round(state) != round_key:
                revealed |= _turned_up(done, made_in, round_key)
        elif ev.kind == "undo" and len(done) > floor:
            size = min(undo_size(ev.payload), len(done) - floor)
            group = []
            for _ in range(size):
                seq, before = done.pop()
                group.append((seq, state, before))
                state = before
            redo.append(group)
        elif ev.kind == "redo" and redo:
            for seq, after, before in reversed(redo.pop()):
                done.append((seq, before))
                state = after
        elif ev.kind == "seat":
            seat = (ev.payload or {}).get("seat")
            withdrawn = (ev.payload or {}).get("action")
            if isinstance(withdrawn, dict):
                # Every entry the seat made in this round so far was made on
                # another phone: sealed for good.
                round_key = kind.open_round(state)
                for seq, (made, players) in made_in.items():
                    if made == round_key and seat in players:
                        taken_back.setdefault(seq, set()).add(seat)
                done.append((ev.seq, state))
                state = kind.apply(state, withdrawn)
            redo.clear()
            floor = len(done)
    still_open: dict[int, frozenset[str]] = {}
    sealed: dict[int, frozenset[str]] = {}
    for seq, (made, players) in made_in.items():
        hidden = frozenset(p for p in players if (seq, p) not in revealed)
        gone = frozenset(taken_back.get(seq, ())) & hidden
        if made == current and current is not None and hidden - gone:
            still_open[seq] = hidden - gone
        if gone or (hidden and made != current):
            sealed[seq] = gone if made == current else hidden
    return Secrets(still_open, sealed)


def _turned_up(
    done: list[tuple[int, Any]], made_in: dict[int, tuple[Any, frozenset[str]]], round_key: Any
) -> set[tuple[int, str]]:
    """What a reveal shows: each player's last counting entry of the round."""
    last: dict[str, int] = {}
    for seq, _ in done:
        made = made_in.get(seq)
        if made is not None and made[0] == round_key:
            for player in made[1]:
                last[player] = seq
    return {(seq, player) for player, seq in last.items()}


def shown_back(snap: Snapshot, seat: str | None, device: str | None) -> frozenset[int]:
    """The hidden entries shown back to this phone: the ones it made itself
    for the seat it holds now (LT3). A phone that holds no seat (a shared
    phone, a watcher) is shown none: a shared phone's screen is passed on."""
    if seat is None or device is None:
        return frozenset()
    secrets_now = hidden_entries(snap)
    if not secrets_now.open:
        return frozenset()
    made_here = {ev.seq for ev in snap.events if ev.device == device}
    return frozenset(
        seq
        for seq, players in secrets_now.open.items()
        if seat in players and seq in made_here and seat not in secrets_now.sealed.get(seq, ())
    )


def _hidden_from(secrets_now: Secrets, seq: int, viewer: Viewer) -> frozenset[str]:
    hidden = secrets_now.hidden_from_all(seq)
    if seq in viewer.sees and viewer.seat is not None:
        hidden = hidden - {viewer.seat}
    return hidden


def visible_events(snap: Snapshot, viewer: Viewer) -> tuple[Event, ...]:
    """The table's log as this viewer may see it: every hidden entry not
    shown back to this phone blanked out (the action's ``card`` becomes
    ``"hidden"``)."""
    secrets_now = hidden_entries(snap)
    if not secrets_now.open and not secrets_now.sealed:
        return snap.events
    kind = snap.table.kind
    shown = []
    for ev in snap.events:
        players = _hidden_from(secrets_now, ev.seq, viewer)
        if players and ev.payload is not None:
            ev = replace(ev, payload=kind.redact(ev.payload, players))
        shown.append(ev)
    return tuple(shown)


def hidden_count(snap: Snapshot, viewer: Viewer) -> int:
    """How many entries of the open round this viewer cannot see."""
    secrets_now = hidden_entries(snap)
    return sum(1 for seq in secrets_now.open if _hidden_from(secrets_now, seq, viewer))


def last_entry(snap: Snapshot) -> Event | None:
    """The log event of the last action that counts (what a plain undo takes back)."""
    return next(
        (e for e in reversed(snap.events) if e.kind == "action" and not e.undone and e.payload),
        None,
    )


def undo_refusal(snap: Snapshot, viewer: Viewer) -> str | None:
    """Why this viewer may not undo now, or None when it may.

    An undo that would take back a hidden entry of the open round is only
    for the phone that made it. An undo that reopens a revealed round (LT4)
    is for any phone that may enter: it shows nobody anything new.
    """
    if not viewer.may_act:
        return not_chosen_message(viewer)
    entry = last_entry(snap)
    if entry is None or entry.payload is None:
        return None
    owners = hidden_entries(snap).open.get(entry.seq)  # None: revealed, or never hidden
    if owners and entry.device != viewer.device:
        owner = sorted(owners)[0]
        return (
            f"Your tap was not entered: the last entry is {owner}'s own, "
            f"and only the phone that entered it can take it back."
        )
    return None


def not_chosen_message(viewer: Viewer) -> str:
    """What a phone that may not enter anything is told."""
    if viewer.mode == "watching":
        return (
            "Your tap was not entered: this phone is just watching. "
            "Tap your name at the top to play on it."
        )
    if viewer.mode == "spectator":
        return "Your tap was not entered: this is the spectator view, which changes nothing."
    return (
        "Your tap was not entered: this phone has not said who it is yet. "
        "Choose your name at the top first."
    )


def refusal_for(snap: Snapshot, viewer: Viewer, action: Mapping[str, Any]) -> str | None:
    """Why this viewer may not enter ``action``, or None when it may."""
    if not viewer.may_act:
        return not_chosen_message(viewer)
    for player in snap.table.kind.personal(action):
        if player in snap.table.players and not viewer.may_enter_for(player):
            return (
                f"Your tap was not entered: {player}'s seat is on {player}'s own phone, "
                f"so only that phone enters or takes back {player}'s card."
            )
    return None
