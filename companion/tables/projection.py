"""Who is looking at a table, and what they may see and do: one projection.

The one place that decides a viewer's rights. A *viewer* is a browser at a
table: a phone holding a seat, the shared pass-around phone, a phone just
watching, a phone that has not said who it is (it enters nothing), or a
spectator screen. What it may see is a value, :class:`BoardView`, built by
:func:`board_view` from a snapshot: the game's own ``player_view`` of the
state (``companion.tables.games``), the log with every entry it may not see
blanked out, and what this phone may do and why not. Templates, the JSON
board, exports and the render cache get that value, never the rules state,
so an entry a player has not revealed reaches no other phone in any form: a
hidden entry is shown back only to the phone that made it, while it holds
that seat (rulings LT3-LT5, ``docs/live-table.md``). Two phones with equal
views share one render by construction.

The secrets themselves are found by the walk that resolves the log
(:class:`companion.tables.log.LogWalk`), extended event by event with the
snapshot: nothing here replays anything.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from threading import Lock
from typing import Any

from companion.rules.messages import Message, refusal

from .errors import NoSuchTable
from .log import Event, Secrets, Snapshot, TableView
from .seats import PHONE_MODES, ViewerFacts
from .summaries import Summary, is_over, summarise


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
        """Everything about the viewer that its "who are you" bar depends
        on: not the device itself."""
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
NOBODY = ViewerFacts({}, None, None, None, None)


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


# --- what stays hidden ------------------------------------------------------


def shown_back(snap: Snapshot, seat: str | None, device: str | None) -> frozenset[int]:
    """The hidden entries shown back to this phone: the ones it made itself
    for the seat it holds now (LT3). A phone that holds no seat (a shared
    phone, a watcher) is shown none: a shared phone's screen is passed on."""
    if seat is None or device is None:
        return frozenset()
    secrets_now = snap.secrets
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


def _shown_players(viewer: Viewer) -> frozenset[str]:
    """Whose hidden entries of the open round this viewer sees: its own
    seat's, when it made them on this phone."""
    return frozenset({viewer.seat}) if viewer.sees and viewer.seat is not None else frozenset()


def visible_events(snap: Snapshot, viewer: Viewer) -> tuple[Event, ...]:
    """The table's log as this viewer may see it: every hidden entry not
    shown back to this phone blanked out (the action's ``card`` becomes
    ``"hidden"``). The phones' device hashes are never in it."""
    return _visible(snap, _hidden_key(snap, viewer))


def _hidden_key(snap: Snapshot, viewer: Viewer) -> tuple[tuple[int, frozenset[str]], ...]:
    secrets_now = snap.secrets
    seqs = sorted({*secrets_now.open, *secrets_now.sealed})
    key = ((seq, _hidden_from(secrets_now, seq, viewer)) for seq in seqs)
    return tuple((seq, hidden) for seq, hidden in key if hidden)


# The visible log of one table version for one set of hidden entries: the
# phones that see the same entries share one tuple (and so one render key).
_VISIBLE: OrderedDict[tuple[Any, ...], tuple[Event, ...]] = OrderedDict()
_VISIBLE_LOCK = Lock()
# Each log entry's public copy (no device), by table, entry, mark and blanking.
_PUBLIC: dict[tuple[Any, ...], Event] = {}


def _visible(snap: Snapshot, hidden: tuple[tuple[int, frozenset[str]], ...]) -> tuple[Event, ...]:
    key = (snap.table.token, snap.table.version, hidden)
    with _VISIBLE_LOCK:
        found = _VISIBLE.get(key)
        if found is not None:
            _VISIBLE.move_to_end(key)
            return found
    blank = dict(hidden)
    kind = snap.table.kind
    token = snap.table.token
    shown = []
    made: dict[tuple[Any, ...], Event] = {}
    for ev in snap.events:
        # An entry of the log never changes but for its undone mark, the
        # set-aside kind and what is blanked out of it: its public copy is
        # made once and kept, so a new version costs only its new entries.
        mark = (token, ev.seq, ev.kind, ev.undone, blank.get(ev.seq))
        public = _PUBLIC.get(mark)
        if public is None:
            payload = ev.payload
            if mark[4] and payload is not None:
                payload = kind.redact(payload, mark[4])
            public = Event(ev.seq, ev.kind, payload, ev.seat, ev.created_at, ev.undone)
            made[mark] = public
        shown.append(public)
    with _VISIBLE_LOCK:
        _PUBLIC.update(made)
        _VISIBLE[key] = tuple(shown)
        while len(_VISIBLE) > 512:
            _VISIBLE.popitem(last=False)
        while len(_PUBLIC) > 200_000:
            _PUBLIC.pop(next(iter(_PUBLIC)))
    return tuple(shown)


def hidden_count(snap: Snapshot, viewer: Viewer) -> int:
    """How many entries of the open round this viewer cannot see."""
    secrets_now = snap.secrets
    return sum(1 for seq in secrets_now.open if _hidden_from(secrets_now, seq, viewer))


def last_entry(snap: Snapshot) -> Event | None:
    """The log event of the last action that counts (what a plain undo takes back)."""
    return next(
        (e for e in reversed(snap.events) if e.kind == "action" and not e.undone and e.payload),
        None,
    )


# --- what this phone may do -------------------------------------------------


def undo_refusal(snap: Snapshot, viewer: Viewer) -> Message | None:
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
    owners = snap.secrets.open.get(entry.seq)  # None: revealed, or never hidden
    if owners and entry.device != viewer.device:
        owner = sorted(owners)[0]
        return refusal(
            "table.undo.not-yours",
            "Your tap was not entered: the last entry is %(owner)s's own, "
            "and only the phone that entered it can take it back.",
            owner=owner,
        )
    return None


def not_chosen_message(viewer: Viewer) -> Message:
    """What a phone that may not enter anything is told."""
    if viewer.lost_seat is not None and viewer.mode == "undecided":
        return refusal(
            "table.tap.seat-lost",
            "Your tap was not entered: another phone took over your seat, %(seat)s. "
            "Take it back at the top, or choose who this phone is now.",
            seat=viewer.lost_seat,
        )
    if viewer.mode == "watching":
        return refusal(
            "table.tap.watching",
            "Your tap was not entered: this phone is just watching. "
            "Tap your name at the top to play on it.",
        )
    if viewer.mode == "spectator":
        return refusal(
            "table.tap.spectator",
            "Your tap was not entered: this is the spectator view, which changes nothing.",
        )
    return refusal(
        "table.tap.undecided",
        "Your tap was not entered: this phone has not said who it is yet. "
        "Choose your name at the top first.",
    )


def refusal_for(snap: Snapshot, viewer: Viewer, action: Mapping[str, Any]) -> Message | None:
    """Why this viewer may not enter ``action``, or None when it may."""
    if not viewer.may_act:
        return not_chosen_message(viewer)
    for player in snap.table.kind.personal(action):
        if player in snap.table.players and not viewer.may_enter_for(player):
            return refusal(
                "table.tap.not-your-seat",
                "Your tap was not entered: %(player)s's seat is on %(player)s's own phone, "
                "so only that phone enters or takes back %(player)s's card.",
                player=player,
            )
    return None


def replaces_anothers_entry(
    snap: Snapshot, viewer: Viewer, action: Mapping[str, Any]
) -> str | None:
    """The player whose hidden entry ``action`` would replace or take back
    although another phone made it, or None (LT3).

    A seat's phone may leave the seat with its sealed bid still standing;
    the seat is then free, and a shared phone may enter for it. Replacing
    that entry from here is what claiming the seat does, so it is asked
    first, as a claim is: the answer needs the person's yes (``replace``).
    Nothing of the entry is shown either way.
    """
    secrets_now = snap.secrets
    if not secrets_now.open:
        return None
    for player in snap.table.kind.personal(action):
        if player == viewer.seat:
            continue
        made = [seq for seq, players in secrets_now.open.items() if player in players]
        if not made:
            continue
        latest = max(made)
        device = next((ev.device for ev in snap.events if ev.seq == latest), None)
        if device != viewer.device:
            return player
    return None


# --- the board a phone sees -------------------------------------------------


@dataclass(frozen=True)
class BoardView:
    """Everything one phone's board shows, and nothing else: the game's
    view for this phone, the log as it may see it, and what it may do.

    Hashable: the fields left out of the hash (the game's view, which may
    hold dicts, and the log) are functions of the hashed ones (the table
    version and whose hidden entries are shown), so equal views hash
    alike. Phones with equal views get the same bytes.
    """

    table: TableView
    shown: frozenset[str]  # whose hidden entries of the open round this board shows
    me: str | None  # this phone's seat, when the game draws anything per seat
    taken: frozenset[str]  # seats on other phones, likewise
    may_act: bool  # pads and undo are drawn
    spectator: bool  # the read-only address: no "who are you" bar, no forms
    can_undo: bool
    can_redo: bool
    undo_refusal: Message | None  # worded in each phone's language where shown
    hidden_count: int  # entries of the open round this phone cannot see
    host: bool  # the host's phone, on a finished table (it offers Play again)
    moves_made: int  # actions that count
    game: Any = field(hash=False)  # the game's player_view for this phone
    events: tuple[Event, ...] = field(hash=False)  # the log as this phone may see it
    end: Summary | None = field(hash=False, default=None)  # a finished table's summary

    @property
    def readonly(self) -> bool:
        """No pad or button: a spectator, a watcher, an undecided phone."""
        return not self.may_act

    @property
    def over(self) -> bool:
        return self.end is not None


def board_view(snap: Snapshot, viewer: Viewer) -> BoardView:
    """What ``viewer`` may see of the table at ``snap`` (see :class:`BoardView`)."""
    kind = snap.table.kind
    shown = _shown_players(viewer)
    end = _summary(snap)
    per_seat = kind.shows_seats and viewer.may_act
    return BoardView(
        table=snap.table,
        shown=shown,
        me=viewer.seat if per_seat else None,
        taken=viewer.taken if per_seat else frozenset(),
        may_act=viewer.may_act,
        spectator=viewer.mode == "spectator",
        can_undo=snap.can_undo,
        can_redo=snap.can_redo,
        undo_refusal=undo_refusal(snap, viewer) if viewer.may_act else None,
        hidden_count=hidden_count(snap, viewer),
        host=viewer.host and end is not None,
        moves_made=len(snap.actions),
        game=_game_view(snap, shown),
        events=visible_events(snap, viewer),
        end=end,
    )


# Per table version and per set of shown players: the phones that see the
# same share one game view (and one summary per finished version).
_VIEWS: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_VIEWS_LOCK = Lock()


def _memo(key: tuple[Any, ...], make: Any) -> Any:
    with _VIEWS_LOCK:
        if key in _VIEWS:
            _VIEWS.move_to_end(key)
            return _VIEWS[key]
    value = make()
    with _VIEWS_LOCK:
        _VIEWS[key] = value
        while len(_VIEWS) > 512:
            _VIEWS.popitem(last=False)
    return value


def _game_view(snap: Snapshot, shown: frozenset[str]) -> Any:
    key = (snap.table.token, snap.table.version, "view", shown)
    return _memo(key, lambda: snap.table.kind.player_view(snap.state, shown))


def _summary(snap: Snapshot) -> Summary | None:
    table = snap.table
    if not is_over(table.game, snap.state):
        return None
    key = (table.token, table.version, "end")
    return _memo(  # type: ignore[no-any-return]
        key,
        lambda: summarise(
            table.game, table.players, table.options, table.seed, snap.actions, snap.state
        ),
    )


__all__ = [
    "NOBODY",
    "SPECTATOR",
    "BoardView",
    "NoSuchTable",
    "Viewer",
    "board_view",
    "hidden_count",
    "last_entry",
    "not_chosen_message",
    "refusal_for",
    "replaces_anothers_entry",
    "shown_back",
    "undo_refusal",
    "viewer_from",
    "visible_events",
]
