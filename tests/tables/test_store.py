"""The table store: an append-only log, versioned writes, undo/redo, restarts."""

import pickle
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import create_app
from companion.rules import scorepad
from companion.tables import models
from companion.tables import store as store_module
from companion.tables.games import load as load_games
from companion.tables.import_export import check_import
from companion.tables.store import (
    JOIN_ALPHABET,
    Event,
    NoSuchTable,
    NothingToUndo,
    StaleVersion,
    Store,
    TableError,
    effective_actions,
    replay,
)


def add(store, table, *scores):
    return store.act(
        table.token, store.version(table.token), {"type": "AddRound", "scores": list(scores)}
    )


@pytest.fixture
def pad(store):
    return store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False}, seed=7)


# --- creating tables -------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ([], "Score pad takes 1 to 12 players; you entered 0"),
        (["Ana", "ana"], "two players are called 'Ana'"),
        (["Ana", "  "], None),  # blank names are dropped, not an error
        (["x" * 25], "is too long"),
        ([f"P{i}" for i in range(13)], "you entered 13"),
    ],
)
def test_creating_a_table_checks_the_player_names(store, players, message):
    if message is None:
        table = store.create_table("scorepad", players)
        assert table.players == ("Ana",)
    else:
        with pytest.raises(TableError, match=message):
            store.create_table("scorepad", players)
        assert store.tables() == []


def test_names_are_trimmed_and_inner_spaces_folded(store):
    table = store.create_table("scorepad", ["  Ana   Maria ", "Ben"])
    assert table.players == ("Ana Maria", "Ben")


def test_an_unknown_game_is_refused(store):
    with pytest.raises(TableError, match="no game called 'chess'"):
        store.create_table("chess", ["Ana", "Ben"])


def test_table_addresses_are_unguessable_and_distinct(store):
    tables = [store.create_table("scorepad", ["Ana"]) for _ in range(5)]
    tokens = {t.token for t in tables} | {t.view_token for t in tables}
    assert len(tokens) == 10
    # token_urlsafe(24): 24 random bytes = 192 bits, in 32 URL-safe characters.
    assert all(len(token) == 32 for token in tokens)


def test_tables_are_listed_most_recently_played_first(store):
    first = store.create_table("scorepad", ["Ana"], title="First")
    store.create_table("scorepad", ["Ana"], title="Second")
    assert [t.title for t in store.tables()] == ["Second", "First"]
    add(store, first, 3)
    assert [t.title for t in store.tables()] == ["First", "Second"]


# --- the log -----------------------------------------------------------------


def test_each_action_adds_one_event_and_one_version(store, pad):
    add(store, pad, 3, 4)
    snap = add(store, pad, 1, 1)
    assert snap.table.version == 2
    assert [e.seq for e in snap.events] == [1, 2]
    assert snap.state.totals() == {"Ana": 4, "Ben": 5}


def test_an_entry_reads_back_from_the_database_as_the_snapshot_it_answered_with(store, pad):
    """Entries are written with plain driver statements (writes.py), which
    store the payload, the time and the seat as SQLAlchemy's types would: a
    fresh process replaying the log sees exactly what the write answered."""
    add(store, pad, 3, 4)
    answered = store.act(
        pad.token, 1, {"type": "AddRound", "scores": [5, 6]}, seat="Ana", device="d" * 64
    )
    undone = store.undo(pad.token, 2, seat="Bén")
    again = Store(str(store.engine.url.render_as_string(hide_password=False)))
    try:
        replayed = again.snapshot(pad.token)
        assert replayed == undone
        with again._read() as session:  # the log as the ORM reads it back
            rows = session.query(models.EventRow).filter_by(table_id=pad.id).order_by("seq").all()
            logged = [(r.seq, r.kind, r.payload, r.seat, r.created_at, r.device) for r in rows]
            table = session.get(models.TableRow, pad.id)
            assert (table.version, table.updated_at) == (3, undone.table.updated_at)
    finally:
        again.engine.dispose()
    last_action = answered.events[-1]
    assert logged[1] == (
        2,
        "action",
        {"type": "AddRound", "scores": [5, 6]},
        "Ana",
        last_action.created_at,
        "d" * 64,
    )
    assert logged[2][:4] == (3, "undo", None, "Bén")


def test_a_stale_version_is_refused_and_changes_nothing(store, pad):
    add(store, pad, 3, 4)
    with pytest.raises(StaleVersion):
        store.act(pad.token, 0, {"type": "AddRound", "scores": [9, 9]})
    snap = store.snapshot(pad.token)
    assert snap.table.version == 1
    assert snap.state.totals() == {"Ana": 3, "Ben": 4}


@pytest.mark.parametrize(
    "action",
    [
        {"type": "AddRound", "scores": [1]},
        {"type": "AddRound", "scores": [1, "two"]},
        {"type": "FixEntry", "round": 5, "player": "Ana", "points": 1},
        {"type": "Teleport"},
        {"type": "AddRound"},
    ],
)
def test_an_illegal_action_is_refused_and_changes_nothing(store, pad, action):
    add(store, pad, 3, 4)
    before = store.snapshot(pad.token)
    with pytest.raises(TableError):
        store.act(pad.token, 1, action)
    after = store.snapshot(pad.token)
    assert after.table.version == before.table.version
    assert after.events == before.events


def test_an_action_that_is_not_json_is_refused(store, pad):
    with pytest.raises(TableError, match="cannot be recorded"):
        store.act(pad.token, 0, {"type": "AddRound", "scores": {1, 2}})
    assert store.version(pad.token) == 0


def test_unknown_tokens_are_not_found(store):
    for token in ("", "short", "x" * 32, "y" * 500):
        with pytest.raises(NoSuchTable):
            store.snapshot(token)


# --- undo and redo -----------------------------------------------------------


def ev(seq, kind, payload=None):
    return Event(seq, kind, payload, None, None)  # type: ignore[arg-type]


A, B, C = ({"n": 1}, {"n": 2}, {"n": 3})


@pytest.mark.parametrize(
    ("log", "done", "redoable"),
    [
        ([("action", A), ("action", B)], [A, B], []),
        ([("action", A), ("action", B), ("undo", None)], [A], [B]),
        ([("action", A), ("undo", None), ("redo", None)], [A], []),
        ([("action", A), ("action", B), ("undo", None), ("undo", None)], [], [B, A]),
        ([("action", A), ("undo", None), ("action", C)], [C], []),  # a new action clears redo
        ([("undo", None), ("redo", None)], [], []),  # nothing to undo: no effect
    ],
)
def test_undo_and_redo_resolve_to_the_effective_actions(log, done, redoable):
    events = [ev(i + 1, kind, payload) for i, (kind, payload) in enumerate(log)]
    effective, redo, _ = effective_actions(events)
    assert effective == done
    assert redo == redoable


def test_undo_then_redo_round_trips_the_state(store, pad):
    add(store, pad, 3, 4)
    add(store, pad, 10, 0)
    undone = store.undo(pad.token, 2)
    assert undone.state.totals() == {"Ana": 3, "Ben": 4}
    assert undone.can_redo
    assert [e.undone for e in undone.events] == [False, True, False]
    redone = store.redo(pad.token, 3)
    assert redone.state.totals() == {"Ana": 13, "Ben": 4}
    assert not redone.can_redo


def test_undo_with_nothing_to_undo_is_refused(store, pad):
    with pytest.raises(NothingToUndo):
        store.undo(pad.token, 0)
    with pytest.raises(NothingToUndo):
        store.redo(pad.token, 0)
    assert store.version(pad.token) == 0


moves = st.lists(
    st.one_of(
        st.tuples(st.just("action"), st.integers(-50, 50), st.integers(-50, 50)),
        st.just(("undo",)),
        st.just(("redo",)),
    ),
    max_size=12,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(moves=moves)
def test_the_state_is_always_a_fresh_replay_and_undo_restores_it_exactly(store, moves):
    table = store.create_table("scorepad", ["Ana", "Ben"])
    history = [scorepad.new_game(("Ana", "Ben"))]  # states the table passed through
    redo: list[object] = []
    for move in moves:
        version = store.version(table.token)
        if move[0] == "action":
            snap = store.act(table.token, version, {"type": "AddRound", "scores": list(move[1:])})
            history.append(snap.state)
            redo.clear()
        elif move[0] == "undo" and len(history) > 1:
            snap = store.undo(table.token, version)
            redo.append(history.pop())
            assert snap.state == history[-1]
        elif move[0] == "redo" and redo:
            snap = store.redo(table.token, version)
            history.append(redo.pop())
            assert snap.state == history[-1]
    snap = store.snapshot(table.token)
    assert snap.state == history[-1]
    assert replay(snap.table, snap.actions) == snap.state


# --- restarts, export and import ----------------------------------------------


def test_a_restart_loses_nothing(tmp_path):
    config = {
        "TESTING": True,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'game.sqlite3'}",
        "SECRET_KEY": "k",
        "INSTANCE_PATH": str(tmp_path / "instance"),
    }
    first = create_app(config).extensions["leafpile_store"]
    table = first.create_table("scorepad", ["Ana", "Ben"])
    add(first, table, 5, 6)
    add(first, table, 1, 2)
    first.undo(table.token, 2)
    first.engine.dispose()

    again = create_app(config).extensions["leafpile_store"]
    snap = again.snapshot(table.token)
    assert snap.table.version == 3
    assert snap.state.totals() == {"Ana": 5, "Ben": 6}
    assert snap.can_redo


def test_the_session_key_is_generated_once_and_kept_in_the_instance_folder(tmp_path):
    config = {"TESTING": True, "DATABASE_URL": "sqlite://", "INSTANCE_PATH": str(tmp_path)}
    key = create_app(config).config["SECRET_KEY"]
    assert (tmp_path / "secret_key").read_text().strip() == key
    assert len(key) >= 64
    assert create_app(config).config["SECRET_KEY"] == key


def test_export_then_import_gives_the_same_game_at_new_addresses(store, pad):
    add(store, pad, 3, 4)
    add(store, pad, 2, 2)
    store.undo(pad.token, 2)
    data = store.export(pad.token)
    copy = store.import_table(data)
    assert copy.token != pad.token
    assert store.snapshot(copy.token).state == store.snapshot(pad.token).state
    assert [e["kind"] for e in store.export(copy.token)["events"]] == ["action", "action", "undo"]


def _played(store, game):
    """A table of ``game`` played some way in (to its end where a finisher can)."""
    from tests.end_games import act
    from tests.web.test_end_screens import FINISHERS

    if game == "north_wind":
        table = store.create_table(game, ["Ana"], {"difficulty": "hard"}, seed=1)
        for action in (
            {"type": "SetupAnimals", "animals": ["fox", "owl", "frog"]},
            {"type": "EndHumanTurn"},
            {"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"},
        ):
            act(store, table, action)
        return table
    players, options, finish = FINISHERS[game]
    table = store.create_table(game, players, options, seed=1)
    finish(store, table)
    return table


@pytest.mark.parametrize("game", sorted(load_games()))
def test_every_games_checked_import_travels_to_a_job_worker_and_back(store, game):
    """A server checks an import in a job worker (companion/jobs.py), which
    sends back the checked value by pickle: every game's must travel whole
    (one that could not would be a failed import, not a refusal)."""
    table = _played(store, game)
    checked = check_import(store.export(table.token))
    back = pickle.loads(pickle.dumps(checked))
    assert back == checked
    copy = store.write_import(back)
    assert store.snapshot(copy.token).state == store.snapshot(table.token).state


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda d: {"hello": 1}, "not a Leafpile table export"),
        (lambda d: [1, 2], "not a Leafpile table export"),
        (lambda d: {**d, "events": "x"}, "no setup or no events"),
        (lambda d: {**d, "setup": {**d["setup"], "seed": "x"}}, "setup is damaged"),
        (
            lambda d: {**d, "events": [{"kind": "action", "payload": {"type": "Nope"}}]},
            "does not replay",
        ),
        (lambda d: {**d, "events": [{"kind": "explode"}]}, "damaged event"),
        (lambda d: {**d, "game": "chess"}, "no game called"),
    ],
)
def test_a_damaged_import_is_refused_and_creates_nothing(store, pad, mangle, message):
    add(store, pad, 3, 4)
    data = store.export(pad.token)
    with pytest.raises(TableError, match=message):
        store.import_table(mangle(data))
    assert len(store.tables()) == 1


# --- join codes -----------------------------------------------------------------


def test_join_codes_avoid_look_alike_characters():
    assert not set(JOIN_ALPHABET) & set("0O1IL2Z5S8B")


def test_a_join_code_is_reused_while_valid_and_finds_its_table(store, pad):
    code, _ = store.join_code(pad.token, minutes=30)
    assert store.join_code(pad.token, minutes=30)[0] == code
    assert store.table_for_code(code.lower()).token == pad.token
    assert store.table_for_code(f" {code[:2]} {code[2:]} ").token == pad.token


def test_an_expired_join_code_no_longer_works(store, pad, monkeypatch):
    code, _ = store.join_code(pad.token, minutes=30)
    later = store_module._now() + timedelta(minutes=31)
    monkeypatch.setattr(models, "_now", lambda: later)
    with pytest.raises(NoSuchTable, match="codes expire"):
        store.table_for_code(code)
    assert store.join_code(pad.token, minutes=30)[0] != code


def test_a_second_store_on_the_same_database_sees_the_same_table(store, pad, app):
    add(store, pad, 8, 1)
    other = Store(app.config["DATABASE_URL"])
    assert other.snapshot(pad.token).state == store.snapshot(pad.token).state
    other.engine.dispose()
