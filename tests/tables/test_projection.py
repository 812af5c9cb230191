"""The projection: what each phone may see is one value, equal across worlds.

``companion/tables/projection.py`` builds one :class:`BoardView` per phone.
These tests pin it at the value level, below any template or HTTP: random
Venture and Autumn Leaves tables are played in two worlds that differ only
in one phone's hidden entries (seat moves, takeovers, undo and redo
included), and every other phone's view, and the spectator's, must be
equal. The byte-level proofs over the test client, HTTP and the browser
(``test_secrets*.py``, ``test_live_table*.py``) stay as they are.

It also pins the walk's cost: an entry and a fetch apply the rules the same
number of times at event 10 and at event 300 (no replay hides in them).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.tables.errors import TableError
from companion.tables.games import load
from companion.tables.projection import SPECTATOR, BoardView, board_view, viewer_from
from companion.tables.store import Store

PLAYERS = ["Ana", "Ben", "Cy", "Dan"]  # Dan never enters: the secret round stays open
DEVICES = [f"{i}" * 64 for i in range(5)]
SECRET_MAKER = 4  # this phone's entries differ between the worlds


@dataclass(frozen=True)
class Game:
    key: str
    setup: Callable[[Store, str], None]  # what happens before the secret round
    entry: Callable[[str, int, Any], dict[str, Any]]  # (player, card, state) -> action
    take_back: Callable[[str], dict[str, Any]]
    secret: tuple[int, int]  # the secret maker's card in each world
    other_card: int  # every other phone's card


def _venture_setup(store: Store, token: str) -> None:
    store.act(token, 0, {"type": "EnterSlug", "cards": [4, 5, 6]})


def _venture_entry(player: str, card: int, state: Any) -> dict[str, Any]:
    kind = "ChangeBid" if state.has_bid(player) else "Bid"
    return {"type": kind, "player": player, "card": card}


def _al_entry(player: str, card: int, state: Any) -> dict[str, Any]:
    return {"type": "Reveal", "cards": [[player, card]]}


GAMES = {
    "venture": Game(
        "venture",
        _venture_setup,
        _venture_entry,
        lambda player: {"type": "WithdrawBid", "player": player},
        (7, 8),
        9,
    ),
    "autumn_leaves": Game(
        "autumn_leaves",
        lambda store, token: None,
        _al_entry,
        lambda player: {"type": "Unreveal", "player": player},
        (3, 4),
        9,
    ),
}

OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(
            ["enter", "enter", "take back", "claim", "take over", "share", "undo", "redo"]
        ),
        st.integers(0, len(DEVICES) - 1),
        st.sampled_from(PLAYERS[:3]),
    ),
    max_size=16,
)


def _play(tmp: str, game: Game, operations: list[tuple[str, int, str]], world: int) -> list[Any]:
    """Every phone's view but the secret maker's, and the spectator's, after
    ``operations`` (each refused one changes nothing, as the web refuses it)."""
    store = Store(f"sqlite:///{tmp}/{game.key}-{world}.sqlite3")
    table = store.create_table(game.key, PLAYERS, {}, seed=1)
    game.setup(store, table.token)
    for device in DEVICES:
        store.set_mode(table.token, device, "shared")
    kind = load()[game.key]

    def viewer(device: str) -> Any:
        snap = store.snapshot(table.token)
        return snap, viewer_from(snap, device, store.viewer_facts(table.token, device))

    from companion.tables.projection import refusal_for, undo_refusal

    for operation, who, player in operations:
        device = DEVICES[who]
        snap, me = viewer(device)
        card = game.secret[world] if who == SECRET_MAKER else game.other_card
        version = snap.table.version
        try:
            if operation in ("enter", "take back"):
                action = (
                    game.entry(player, card, snap.state)
                    if operation == "enter"
                    else game.take_back(player)
                )
                if refusal_for(snap, me, action) is None:
                    store.act(table.token, version, action, device=device)
            elif operation in ("claim", "take over"):
                store.take_seat(
                    table.token,
                    player,
                    device,
                    take_over=operation == "take over",
                    withdraw=kind.withdraw,
                )
            elif operation == "share":
                store.set_mode(table.token, device, "shared")
            elif operation == "undo" and undo_refusal(snap, me) is None:
                store.undo(table.token, version, device=device)
            elif operation == "redo" and me.may_act:
                store.redo(table.token, version, device=device)
        except (TableError, ValueError):
            pass  # refused: nothing written
    views: list[Any] = []
    snap = store.snapshot(table.token)
    for device in DEVICES[:SECRET_MAKER]:
        _, me = viewer(device)
        views.append(board_view(snap, me))
    views.append(board_view(snap, SPECTATOR))
    store.engine.dispose()
    return views


def _comparable(view: BoardView) -> tuple[Any, ...]:
    """The view without the table's timestamps (two databases, two clocks)."""
    events = tuple((e.seq, e.kind, e.payload, e.seat, e.undone) for e in view.events)
    table = (view.table.game, view.table.players, view.table.version)
    return (table, view.game, events, *(getattr(view, f) for f in _PLAIN))


_PLAIN = (
    "shown",
    "me",
    "taken",
    "may_act",
    "spectator",
    "can_undo",
    "can_redo",
    "undo_refusal",
    "hidden_count",
    "host",
    "moves_made",
)


@pytest.mark.parametrize("game", sorted(GAMES))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_no_other_phone_can_tell_the_worlds_apart_by_its_view(game, operations):
    """One phone enters one card in one world and another in the other; the
    other phones enter, claim seats, take them over, pass the phone round,
    undo and redo in any order. Every other phone's BoardView, and the
    spectator's, is the same in both worlds (LT3)."""
    with tempfile.TemporaryDirectory() as tmp:
        first = _play(tmp, GAMES[game], operations, 0)
        second = _play(tmp, GAMES[game], operations, 1)
    assert [_comparable(v) for v in first] == [_comparable(v) for v in second]


def test_a_phone_sees_its_own_hidden_bid_and_no_other(store):
    table = store.create_table("venture", PLAYERS, {}, seed=1)
    _venture_setup(store, table.token)
    for seat, device in zip(PLAYERS[:2], DEVICES, strict=False):
        store.take_seat(table.token, seat, device)
    version = store.version(table.token)
    store.act(table.token, version, {"type": "Bid", "player": "Ana", "card": 7}, device=DEVICES[0])
    snap = store.snapshot(table.token)
    ana, ben = (
        board_view(snap, viewer_from(snap, device, store.viewer_facts(table.token, device)))
        for device in DEVICES[:2]
    )
    assert ana.game.bid_of("Ana") == 7 and ana.shown == {"Ana"}
    assert ben.game.bid_of("Ana") is None and ben.game.has_bid("Ana")
    assert ben.hidden_count == 1 and ana.hidden_count == 0
    assert ben.game.shown_bids == () and ana.game.shown_bids == (("Ana", 7),)
    assert [e.payload for e in ben.events][-1] == {"type": "Bid", "player": "Ana", "card": "hidden"}
    assert all(e.device is None for e in (*ana.events, *ben.events))
    hash(ana), hash(ben)


# --- the walk: an entry or a fetch costs the same however long the game -------------


@pytest.mark.parametrize("events", [10, 300])
def test_an_entry_and_a_fetch_cost_the_same_rules_applies_at_any_length(
    tmp_path, monkeypatch, events
):
    """One entry, an undo, a redo, a seat takeover and another process's
    fetch of each: each applies the rules at most once, at event 10 as at
    event 300 (there used to be 2N+2 applies for one bid)."""
    import dataclasses

    kind = load()["scorepad"]
    calls = [0]
    real = kind.apply

    def counted(state: Any, action: Any) -> Any:
        calls[0] += 1
        return real(state, action)

    monkeypatch.setitem(load(), "scorepad", dataclasses.replace(kind, apply=counted))
    url = f"sqlite:///{tmp_path / 'walk.sqlite3'}"
    writer = Store(url)
    table = writer.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    for n in range(events - 4):
        writer.act(table.token, n, {"type": "AddRound", "scores": [n % 7, 1]})
    reader = Store(url)  # another process: it has the last version cached
    reader.snapshot(table.token)
    costs = []
    for step in ("act", "undo", "redo", "seat"):
        calls[0] = 0
        version = writer.version(table.token)
        if step == "act":
            writer.act(table.token, version, {"type": "AddRound", "scores": [1, 2]})
        elif step == "undo":
            writer.undo(table.token, version)
        elif step == "redo":
            writer.redo(table.token, version)
        else:
            writer.take_seat(table.token, "Ana", "a" * 64)
            writer.take_seat(table.token, "Ana", "b" * 64, take_over=True)
        written = calls[0]
        calls[0] = 0
        reader.snapshot(table.token)  # another phone's fetch, served by the other process
        costs.append((step, written, calls[0]))
    assert costs == [
        ("act", 1, 1),
        ("undo", 0, 0),
        ("redo", 0, 0),
        ("seat", 0, 0),
    ]
    writer.engine.dispose()
    reader.engine.dispose()


# --- templates see the view, never the state ----------------------------------------


@pytest.mark.parametrize("game", ["venture", "autumn_leaves", "solitaire"])
def test_a_board_template_is_given_no_rules_state(app, store, game):
    """What a board template can print is what its context holds: for a game
    with hidden cards, the context holds the game's view and no value of
    the rules state type, however deep one looks into it."""
    import dataclasses

    from markupsafe import Markup

    from companion.tables.projection import Viewer
    from companion.web.board import board_context

    players = {"solitaire": ["Ana"]}.get(game, PLAYERS)
    table = store.create_table(game, players, {}, seed=1)
    if game == "venture":
        _venture_setup(store, table.token)
    snap = store.snapshot(table.token)
    state_type = type(snap.state)
    board = board_view(snap, Viewer(seat=None, readonly=False, taken=frozenset()))
    with app.test_request_context("/"):
        context = board_context(board, who=Markup(""))
    assert not {"state", "snap", "viewer"} & set(context)

    def reachable(value: Any, depth: int = 0) -> list[Any]:
        if depth > 6:
            return []
        found = [value]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                found += reachable(getattr(value, f.name), depth + 1)
        elif isinstance(value, dict):
            for v in value.values():
                found += reachable(v, depth + 1)
        elif isinstance(value, list | tuple | frozenset | set):
            for v in value:
                found += reachable(v, depth + 1)
        return found

    everything = [v for value in context.values() for v in reachable(value)]
    assert not [v for v in everything if isinstance(v, state_type)]
    assert context["view"] is board.game and not isinstance(board.game, state_type)
