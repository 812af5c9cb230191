"""A table's log and what it adds up to, without a database.

A table's state is never stored: it is ``fold(apply, effective actions)``
over the log, where undo, redo and seat takeovers are events too. This
module holds the read models (:class:`Event`, :class:`TableView`,
:class:`Snapshot`) and the pure functions that resolve a log
(:func:`resolve_log`, :func:`replay`, :func:`reopened_round`); the store
and the web layer both use them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from companion.rules.errors import RuleError
from companion.rules.messages import refusal

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

    def __hash__(self) -> int:
        # Equal views have equal tokens and versions; the options dict is
        # left out (a table's options never change).
        return hash((self.token, self.version))


@dataclass(frozen=True)
class Snapshot:
    """A table at one version: its state and what undo/redo would do."""

    table: TableView
    state: Any
    actions: tuple[dict[str, Any], ...]  # the effective actions, in order
    events: tuple[Event, ...]
    can_undo: bool
    can_redo: bool
    # How the log was walked: states, redo groups and secrets (a means, not
    # part of what the snapshot says).
    walk: LogWalk = field(compare=False, repr=False)

    @property
    def secrets(self) -> Secrets:
        return self.walk.secrets


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
    """Resolve undo, redo and seat takeovers over a table's log, without
    the game: which actions count (the same walk as :class:`LogWalk`, which
    also keeps the states and the secrets; this one needs no rules)."""
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
            withdrawn = (ev.payload or {}).get("action")
            if isinstance(withdrawn, dict):
                done.append((ev.seq, withdrawn))
            redo.clear()
            floor = len(done)
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


# --- one walk: what counts, the states, and what stays hidden ---------------


class _Refused:
    """The state after an entry the rules now refuse (see :func:`walk_log`):
    nothing is applied to it, and only an undo past that entry leaves it."""

    def __repr__(self) -> str:
        return "<refused>"


REFUSED: Any = _Refused()


@dataclass(frozen=True, eq=False)
class Counted:
    """One action that counts (or counted, before an undo): the event it
    came from, the action, the state just before it (so an undo needs no
    replay) and, for a hidden entry, the secret round it was made in and
    whose entry it is."""

    seq: int
    action: dict[str, Any]
    before: Any
    round_key: Hashable | None = None
    players: frozenset[str] = frozenset()


T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Stack(Generic[T]):
    """A persistent stack: pushing or popping makes a new one and leaves
    this one as it was, in time independent of its depth (a walk of a long
    log must not copy it per event)."""

    top: T
    below: Stack[T] | None
    depth: int

    def items(self) -> tuple[T, ...]:
        """Bottom to top."""
        found: list[T] = []
        node: Stack[T] | None = self
        while node is not None:
            found.append(node.top)
            node = node.below
        return tuple(reversed(found))

    def newest(self, count: int) -> tuple[tuple[T, ...], Stack[T] | None]:
        """The ``count`` items on top (bottom to top) and what is under them."""
        taken: list[T] = []
        node: Stack[T] | None = self
        for _ in range(count):
            assert node is not None
            taken.append(node.top)
            node = node.below
        return tuple(reversed(taken)), node


def push(stack: Stack[T] | None, *items: T) -> Stack[T]:
    for item in items:
        stack = Stack(item, stack, (stack.depth if stack else 0) + 1)
    assert stack is not None
    return stack


def depth(stack: Stack[Any] | None) -> int:
    return stack.depth if stack is not None else 0


@dataclass(frozen=True)
class Secrets:
    """What a table version keeps hidden.

    ``open``: seq -> the players whose entries in that event are hidden
    while their round is still open (shown back only to the phone that
    made them). ``sealed``: seq -> players whose entries are never shown to
    anyone: taken back when another phone took the seat, or never turned
    up by a reveal (changed, taken back or undone before it) (LT3).
    """

    open: Mapping[int, frozenset[str]]
    sealed: Mapping[int, frozenset[str]]

    def hidden_from_all(self, seq: int) -> frozenset[str]:
        return self.open.get(seq, frozenset()) | self.sealed.get(seq, frozenset())

    @property
    def any(self) -> bool:
        return bool(self.open or self.sealed)


NO_SECRETS = Secrets({}, {})


@dataclass(frozen=True, eq=False)
class LogWalk:
    """A table's log walked event by event: the actions that count with the
    state before each, what undo and redo would do, and which entries a
    reveal has turned up. :meth:`then` extends it by one event with at most
    one rules ``apply`` (none for an undo or redo, which restore states
    already known), so a snapshot is extended, never replayed; secrets are
    found in the same walk (no second replay anywhere).

    A walk is a value: its stacks are persistent, so a cached snapshot's
    walk stays true while a newer one is built from it.
    """

    kind: GameKind
    state: Any
    done: Stack[Counted] | None = None
    # What each undo took back, oldest undo first: (entry, state after it).
    redo: Stack[tuple[tuple[Counted, Any], ...]] | None = None
    floor: int = 0  # entries before a seat takeover can no longer be undone
    # Secrets (LT3): every hidden entry ever made, counting or not ...
    made: Stack[Counted] | None = None
    # ... which (seq, player) a reveal turned up, and which a takeover sealed.
    revealed: frozenset[tuple[int, str]] = frozenset()
    taken_back: Mapping[int, frozenset[str]] = field(default_factory=dict)
    # ... and which a reveal passed over (changed, taken back or undone
    # before it): hidden for good, even once an undo reopens their round.
    passed: Mapping[int, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def start(cls, table: TableView) -> LogWalk:
        kind = table.kind
        return cls(kind, kind.new_state(table.players, table.options, table.seed))

    @property
    def refused(self) -> bool:
        """Whether an entry the rules refuse still counts (see :func:`walk_log`)."""
        return self.state is REFUSED

    def _applied(self, state: Any, action: Mapping[str, Any], *, strict: bool) -> Any:
        if state is REFUSED:
            return REFUSED
        try:
            return self.kind.apply(state, action)
        except RuleError:
            if strict:
                raise
            return REFUSED

    def _round(self, state: Any) -> Hashable | None:
        return None if state is REFUSED else self.kind.open_round(state)

    def then(self, ev: Event, *, strict: bool = False) -> LogWalk:
        """The walk with one more event. ``strict``: an action the rules
        refuse raises their ``RuleError`` (a new entry) instead of being
        carried as refused (an old log)."""
        if ev.kind == "action" and ev.payload is not None:
            return self._action(ev.seq, ev.payload, strict=strict)
        if ev.kind == "undo" and depth(self.done) > self.floor:
            assert self.done is not None
            size = min(undo_size(ev.payload), self.done.depth - self.floor)
            taken, rest = self.done.newest(size)
            afters = (*(c.before for c in taken[1:]), self.state)
            group = tuple(zip(taken, afters, strict=True))
            return replace(self, state=taken[0].before, done=rest, redo=push(self.redo, group))
        if ev.kind == "redo" and self.redo is not None:
            group = self.redo.top
            return replace(
                self,
                state=group[-1][1],
                done=push(self.done, *(c for c, _ in group)),
                redo=self.redo.below,
            )
        if ev.kind == "seat":
            return self._seat(ev, strict=strict)
        return self  # an undo or redo with nothing to do, or an entry set aside

    def _action(self, seq: int, action: dict[str, Any], *, strict: bool) -> LogWalk:
        round_key = self._round(self.state)
        personal = self.kind.personal(action)
        hidden = bool(personal) and round_key is not None
        counted = Counted(
            seq, action, self.state, round_key if hidden else None, frozenset(personal)
        )
        after = self._applied(self.state, action, strict=strict)
        done = push(self.done, counted)
        made = push(self.made, counted) if hidden else self.made
        revealed, passed = self.revealed, self.passed
        if round_key is not None and after is not REFUSED and self._round(after) != round_key:
            turned = _turned_up(done, round_key, self._round)
            revealed = revealed | turned
            passed = _passed_over(made, round_key, turned, passed)
        return replace(
            self,
            state=after,
            done=done,
            redo=None,
            made=made,
            revealed=revealed,
            passed=passed,
        )

    def _seat(self, ev: Event, *, strict: bool) -> LogWalk:
        """A seat moved to another phone, taking back what the seat had
        hidden. Nothing before it can be undone or redone: an undo would
        hand the seat's old secret to the new phone (LT1)."""
        seat = (ev.payload or {}).get("seat")
        withdrawn = (ev.payload or {}).get("action")
        if not isinstance(withdrawn, dict):
            return replace(self, redo=None, floor=depth(self.done))
        # Every entry the seat made in this round so far was made on another
        # phone: sealed for good.
        round_key = self._round(self.state)
        taken_back = dict(self.taken_back)
        for made in self.made.items() if self.made is not None else ():
            if made.round_key == round_key and seat in made.players:
                taken_back[made.seq] = taken_back.get(made.seq, frozenset()) | {str(seat)}
        done = push(self.done, Counted(ev.seq, withdrawn, self.state))
        return replace(
            self,
            state=self._applied(self.state, withdrawn, strict=strict),
            done=done,
            redo=None,
            floor=done.depth,
            taken_back=taken_back,
        )

    # --- what the walk adds up to

    @cached_property
    def secrets(self) -> Secrets:
        """The entries hidden at this point of the log (see :class:`Secrets`).

        An entry is shown to everybody only once a reveal has turned it up:
        the entry that completes a secret round reveals, for each player,
        the last entry of theirs that counts in that round. Until then it is
        hidden (``open`` while its round is open, ``sealed`` once the round
        is gone without revealing it).
        """
        if self.made is None:
            return NO_SECRETS
        current = self._round(self.state)
        still_open: dict[int, frozenset[str]] = {}
        sealed: dict[int, frozenset[str]] = {}
        for made in self.made.items():
            hidden = frozenset(p for p in made.players if (made.seq, p) not in self.revealed)
            gone = (
                self.taken_back.get(made.seq, frozenset()) | self.passed.get(made.seq, frozenset())
            ) & hidden
            if made.round_key == current and current is not None and hidden - gone:
                still_open[made.seq] = hidden - gone
            if gone or (hidden and made.round_key != current):
                sealed[made.seq] = gone if made.round_key == current else hidden
        return Secrets(still_open, sealed)

    @cached_property
    def counted(self) -> tuple[Counted, ...]:
        """The actions that count, oldest first."""
        return self.done.items() if self.done is not None else ()

    @property
    def actions(self) -> tuple[dict[str, Any], ...]:
        return tuple(c.action for c in self.counted)

    @property
    def can_undo(self) -> bool:
        return depth(self.done) > self.floor

    @property
    def can_redo(self) -> bool:
        return self.redo is not None

    def first_refused(self) -> int | None:
        """The seq of the earliest counting entry the rules refuse, if any."""
        if not self.refused:
            return None
        counted = self.counted
        afters = (*(c.before for c in counted[1:]), self.state)
        return next(
            c.seq
            for c, after in zip(counted, afters, strict=True)
            if after is REFUSED and c.before is not REFUSED
        )


def _turned_up(
    done: Stack[Counted], round_key: Hashable, round_of: Callable[[Any], Hashable | None]
) -> frozenset[tuple[int, str]]:
    """What a reveal shows: each player's last counting entry of the round.
    The round's entries are the top of the stack (nothing under the round's
    start can be undone without reopening it), so only they are read."""
    last: dict[str, int] = {}
    node: Stack[Counted] | None = done
    while node is not None and round_of(node.top.before) == round_key:
        made = node.top
        if made.round_key == round_key:
            for player in made.players:
                last.setdefault(player, made.seq)
        node = node.below
    return frozenset((seq, player) for player, seq in last.items())


def _passed_over(
    made: Stack[Counted] | None,
    round_key: Hashable,
    turned: frozenset[tuple[int, str]],
    passed: Mapping[int, frozenset[str]],
) -> Mapping[int, frozenset[str]]:
    """``passed`` with the round's hidden entries its reveal did not turn up
    (changed, taken back or undone before it): an undo that reopens the
    round later must not show them again, not even to the phone that made
    them (LT3; ``docs/live-table.md``, *Who sees what*). The round's entries
    are the top of the stack of hidden entries, so only they are read."""
    more: dict[int, frozenset[str]] = {}
    node = made
    while node is not None and node.top.round_key == round_key:
        entry = node.top
        over = frozenset(p for p in entry.players if (entry.seq, p) not in turned)
        if over:
            more[entry.seq] = passed.get(entry.seq, frozenset()) | over
        node = node.below
    return {**passed, **more} if more else passed


#: The kind an action event is read as when this version of the referee
#: refuses it (see :func:`walk_log`). It is never written to the database.
SET_ASIDE = "set-aside"


#: How long a walk for a reader runs before it lets the server's other
#: requests have a turn (:func:`walk_log`'s ``share_the_loop``).
WALK_SLICE_SECONDS = 0.005


def let_others_run() -> None:
    # time's sleep, which gevent's server makes cooperative. Not sleep(0):
    # gevent then runs the other greenlets already awake but polls no socket
    # and fires no timer, so a phone's request waited for the whole walk
    # all the same. Elsewhere the thread gives up its turn for as long.
    time.sleep(0.0001)


def walk_log(
    table: TableView, events: Sequence[Event], *, share_the_loop: bool = False
) -> tuple[list[Event], LogWalk]:
    """The log as this version of the referee can replay it, and its walk.

    ``share_the_loop``: a walk made for a reader (never inside a write,
    whose locks the others would then wait on) lets the server's other
    requests run every :data:`WALK_SLICE_SECONDS`. A table of 5,000 rounds
    takes half a second to walk, the first time a process reads it (an
    import, a restart); on the laptop server's one loop every phone waited
    for it (issue 42).

    Ruling (docs/live-table.md, *Tables kept from an older version*): a
    stored entry that the rules now refuse (an older version accepted it
    before a ruling tightened, such as XA8 on Autumn Ash bags) is read as
    set aside: it no longer counts, the history says so, and the table
    goes on from the entries that do. A table never becomes unreadable
    after an upgrade, and nothing in the database is rewritten. (An entry
    refused but later undone never counted, so it is not set aside.)
    """
    events = list(events)
    while True:
        walk = LogWalk.start(table)
        slice_began = time.perf_counter()
        for n, ev in enumerate(events, 1):
            walk = walk.then(ev)
            if (
                share_the_loop
                and n % 16 == 0  # the clock is read now and then, not per event
                and time.perf_counter() - slice_began > WALK_SLICE_SECONDS
            ):
                let_others_run()
                slice_began = time.perf_counter()
        refused = walk.first_refused()
        if refused is None:
            return events, walk
        events = [replace(e, kind=SET_ASIDE) if e.seq == refused else e for e in events]


def snapshot_of(table: TableView, events: Sequence[Event], walk: LogWalk) -> Snapshot:
    """The snapshot a walk adds up to, each event marked undone or not:
    every action that does not count now, whether it can still be redone or
    a later action closed the redo stack."""
    counting = {c.seq for c in walk.counted}
    undone = {e.seq for e in events if e.kind == "action" and e.payload is not None} - counting
    marked = tuple(
        e if e.undone == (e.seq in undone) else replace(e, undone=e.seq in undone) for e in events
    )
    return Snapshot(table, walk.state, walk.actions, marked, walk.can_undo, walk.can_redo, walk)


def extended(snap: Snapshot, table: TableView, new: Sequence[Event]) -> Snapshot | None:
    """``snap`` with the events that came after it, applying only their
    actions; None when one of them is refused (a full walk sets it aside)."""
    walk = snap.walk
    for ev in new:
        walk = walk.then(ev)
    if walk.refused:
        return None
    return snapshot_of(table, (*snap.events, *new), walk)


def reopened_round(snap: Snapshot) -> dict[str, Any] | None:
    """The payload of an undo made now: None to take back the last entry
    alone, or ``{"type": "ReopenRound", "entries": n}`` when the last entry
    completed a secret round (LT4).

    Undoing only the entry that revealed a round would let its maker see
    every bid and then bid again while the others' revealed bids stand. So
    the undo takes back every entry of that round, everyone enters again,
    and the log says so. A round a seat takeover cut in two cannot be
    reopened: its entries before the takeover cannot be undone (LT1).
    The states come from the walk: no replay.
    """
    kind = snap.table.kind
    done = snap.walk.counted
    if not done:
        return None
    key = kind.open_round(done[-1].before)
    if key is None or kind.open_round(snap.state) == key:
        return None
    start = len(done) - 1
    while start > 0 and kind.open_round(done[start - 1].before) == key:
        start -= 1
    if start < snap.walk.floor:
        raise TableError(
            refusal(
                "table.undo.seat-moved",
                "that undo would reopen the round just revealed, but a seat moved to another "
                "phone during that round, so the round stays as it was revealed",
            )
        )
    return {"type": "ReopenRound", "entries": len(done) - start}


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
