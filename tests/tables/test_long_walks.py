"""A long table walked for a reader lets the server's other requests run,
never inside a write, and once per table however many ask at once (issue 42).

A score pad of 5,000 rounds (the largest import) takes about half a second
to walk the first time a process reads it; on the laptop server's one loop
every phone at every table waited for it, several times a minute under the
abuse benchmark's imports.
"""

from __future__ import annotations

import threading

import pytest

from companion.tables import core, log, writes
from companion.tables.import_export import check_import
from companion.tables.store import Store

ROUNDS = 400


def _long_table(store: Store) -> str:
    export = {
        "format": "leafpile-table",
        "format_version": 1,
        "game": "scorepad",
        "title": "Long",
        "setup": {"players": ["Ana", "Ben"], "options": {"lowest_wins": False}, "seed": 1},
        "events": [
            {"kind": "action", "payload": {"type": "AddRound", "scores": [n % 7, n % 5]}}
            for n in range(ROUNDS)
        ],
    }
    return store.write_import(check_import(export)).token


@pytest.fixture
def turns(monkeypatch) -> list[bool]:
    """Each time a walk let others run: whether a write of the store was open then."""
    taken: list[bool] = []
    writing: list[bool] = []
    monkeypatch.setattr(log, "WALK_SLICE_SECONDS", 0.0)  # every chance is taken
    monkeypatch.setattr(log, "let_others_run", lambda: taken.append(bool(writing)))

    def marked(real_write):
        def marked_write(self, *args, **kwargs):
            class Marked:
                def __enter__(inner):
                    writing.append(True)
                    inner.context = real_write(self, *args, **kwargs)
                    return inner.context.__enter__()

                def __exit__(inner, *exc):
                    try:
                        return inner.context.__exit__(*exc)
                    finally:
                        writing.pop()

            return Marked()

        return marked_write

    # A write's transaction: the ORM's, or an entry's plain one on SQLite.
    monkeypatch.setattr(core.StoreCore, "_write", marked(core.StoreCore._write))
    plain = writes.WritesMixin._plain_transaction
    monkeypatch.setattr(writes.WritesMixin, "_plain_transaction", marked(plain))
    return taken


def _cold(store: Store) -> Store:
    """Another process's store on the same database: nothing cached yet."""
    return Store(store.engine.url.render_as_string(hide_password=False), make_schema=False)


def test_a_reader_walking_a_long_table_lets_others_run_every_slice(store, turns):
    token = _long_table(store)
    cold = _cold(store)
    try:
        assert cold.snapshot(token).table.version == ROUNDS
    finally:
        cold.engine.dispose()
    assert len(turns) == ROUNDS // 16  # a look at the clock every 16 events
    assert not any(turns)


def test_a_walk_needed_by_a_write_is_made_before_the_write_opens(store, turns):
    token = _long_table(store)
    cold = _cold(store)
    try:
        cold.act(token, ROUNDS, {"type": "AddRound", "scores": [1, 2]})
        assert cold.snapshot(token).table.version == ROUNDS + 1
    finally:
        cold.engine.dispose()
    assert turns  # the walk let others run ...
    assert not any(turns)  # ... and never while the write held its locks


def test_a_walk_inside_a_write_never_lets_others_run(store, turns):
    # A seat taken at a table nobody has read here: the snapshot is warmed
    # first; the write itself only extends it.
    token = _long_table(store)
    cold = _cold(store)
    try:
        cold.take_seat(token, "Ana", "phone-1")  # a free seat: bound, nothing logged
    finally:
        cold.engine.dispose()
    assert turns and not any(turns)


def test_many_readers_of_a_cold_long_table_walk_it_once(store, monkeypatch):
    token = _long_table(store)
    cold = _cold(store)
    walks: list[int] = []
    real_walk = core.walk_log

    def counted(*args, **kwargs):
        walks.append(1)
        return real_walk(*args, **kwargs)

    monkeypatch.setattr(core, "walk_log", counted)
    # Each slice hands the turn on for a moment, so the readers overlap.
    monkeypatch.setattr(log, "WALK_SLICE_SECONDS", 0.0)
    monkeypatch.setattr(log, "let_others_run", lambda: threading.Event().wait(0.001))
    versions: list[int] = []
    readers = [
        threading.Thread(target=lambda: versions.append(cold.snapshot(token).table.version))
        for _ in range(6)
    ]
    try:
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(60)
    finally:
        cold.engine.dispose()
    assert versions == [ROUNDS] * 6
    assert walks == [1]
    assert cold._rebuilding == {}  # nothing left behind
