"""A full backup restores everything, on another machine and into PostgreSQL (issue 25)."""

from __future__ import annotations

import gzip
import json
import os
import re
from typing import Any

import pytest
from sqlalchemy.orm import Session

from companion.cli import main
from companion.tables import results
from companion.tables.backup import BackupError, backup, read_backup, restore, write_backup
from companion.tables.store import Base, Store
from tests.end_games import (
    SOLITAIRE_DEAL,
    act,
    finish_autumn_ash,
    finish_autumn_leaves,
    finish_leaf,
    finish_pairs,
    finish_scorepad,
    finish_solitaire,
    finish_venture,
)

FINISHED = (
    ("pairs", ["Ana", "Ben", "Cy"], {}, finish_pairs),
    ("venture", ["Ana", "Ben", "Cy"], {}, finish_venture),
    ("autumn_leaves", ["Ana", "Ben", "Cy"], {}, finish_autumn_leaves),
    ("leaf", ["Ana", "Ben", "Cy"], {}, finish_leaf),
    ("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"}, finish_autumn_ash),
    ("scorepad", ["Ana", "Ben", "Cy"], {}, finish_scorepad),
    ("solitaire", ["Solo"], {"deal": SOLITAIRE_DEAL}, finish_solitaire),
)


def fill(store: Store) -> dict[str, Any]:
    """A server after a game night: every game finished, one still open with an
    undo, a seat on a phone, a host's browser, a name merge, an unusual name."""
    tokens = {}
    for game, players, options, finish in FINISHED:
        table = store.create_table(game, players, options, title=f"Friday {game}", seed=4)
        finish(store, table)
        tokens[game] = table.token
    open_pad = store.create_table("scorepad", ["Ana", "Zoë ✓"], {"lowest_wins": True}, seed=9)
    act(store, open_pad, {"type": "AddRound", "scores": [3, -2]})
    act(store, open_pad, {"type": "AddRound", "scores": [5, 1]})
    store.undo(open_pad.token, store.version(open_pad.token))
    store.take_seat(open_pad.token, "Ana", "d" * 64)
    store.remember_member(open_pad.token, "e" * 64, "host")
    with Session(store.engine) as session, session.begin():
        results.rename(session, "Cy", "Cyrus")
    tokens["open"] = open_pad.token
    return tokens


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """A backup without what differs between two databases holding the same rows."""
    return {name: part for name, part in data["tables"].items()}


def everything_the_app_shows(store: Store, tokens: dict[str, str]) -> dict[str, Any]:
    shown = {}
    for name, token in tokens.items():
        snap = store.snapshot(token)
        shown[name] = (store.export(token), snap.can_undo, snap.can_redo, store.seats(token))
    with Session(store.engine) as session:
        shown["results"] = [
            (line.player, line.game, line.score, line.place, line.outcome)
            for line in results.result_lines(session)
        ]
    return shown


def test_a_backup_restores_every_table_result_and_record(store, tmp_path):
    tokens = fill(store)
    data = backup(store.engine)
    path = tmp_path / "night.json.gz"
    write_backup(data, path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # gzip'd by its name

    target = Store(f"sqlite:///{tmp_path / 'other-machine.sqlite3'}")
    counts = restore(target.engine, read_backup(path.read_bytes()))
    assert counts["tables"] == len(FINISHED) + 1
    assert counts["events"] == sum(len(store.snapshot(t).events) for t in tokens.values())

    again = backup(target.engine)
    assert comparable(again) == comparable(json.loads(json.dumps(data)))
    assert everything_the_app_shows(target, tokens) == everything_the_app_shows(store, tokens)
    # The restored server goes on: the open table takes the next entry.
    snap = target.snapshot(tokens["open"])
    target.act(tokens["open"], snap.table.version, {"type": "AddRound", "scores": [1, 1]})
    assert len(target.snapshot(tokens["open"]).state.rounds) == 2


@pytest.mark.skipif(
    not os.environ.get("LEAFPILE_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="needs LEAFPILE_TEST_DATABASE_URL=postgresql+psycopg://… (as .ci/run sets it)",
)
def test_a_sqlite_backup_restores_into_postgresql_and_back(tmp_path):
    source = Store(f"sqlite:///{tmp_path / 'laptop.sqlite3'}")
    tokens = fill(source)
    url = os.environ["LEAFPILE_TEST_DATABASE_URL"]
    postgres = Store(url)
    Base.metadata.drop_all(postgres.engine)
    try:
        postgres = Store(url)
        restore(postgres.engine, read_backup(json.dumps(backup(source.engine)).encode()))
        assert everything_the_app_shows(postgres, tokens) == everything_the_app_shows(
            source, tokens
        )
        # New rows get new ids after the restored ones (the sequences moved on).
        table = postgres.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
        assert table.id > max(postgres.table(t).id for t in tokens.values())
        # And back again, into a new SQLite file.
        back = Store(f"sqlite:///{tmp_path / 'back.sqlite3'}")
        restore(back.engine, backup(postgres.engine))
        assert everything_the_app_shows(back, tokens) == everything_the_app_shows(source, tokens)
    finally:
        Base.metadata.drop_all(postgres.engine)
        postgres.engine.dispose()


def test_a_restore_never_goes_into_a_database_with_tables(store, tmp_path):
    fill(store)
    data = backup(store.engine)
    with pytest.raises(BackupError, match="already holds data"):
        restore(store.engine, data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": "leafpile-table"}, "not a Leafpile backup"),
        ({"format": "leafpile-backup", "format_version": 9}, "format version 9"),
        ({"format": "leafpile-backup", "format_version": 1}, "has no tables"),
        (
            {"format": "leafpile-backup", "format_version": 1, "tables": {"dragons": {}}},
            "a table this Leafpile does not know",
        ),
        (
            {
                "format": "leafpile-backup",
                "format_version": 1,
                "tables": {"tables": {"columns": ["id", "colour"], "rows": []}},
            },
            "a column this Leafpile does not know",
        ),
        (
            {
                "format": "leafpile-backup",
                "format_version": 1,
                "tables": {"tables": {"columns": ["id"], "rows": [[1, 2]]}},
            },
            "a row of the backup's 'tables' table is damaged",
        ),
    ],
)
def test_a_damaged_backup_is_refused_and_writes_nothing(tmp_path, data, message):
    target = Store(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    with pytest.raises(BackupError, match=message):
        restore(target.engine, data)
    assert backup(target.engine)["tables"]["tables"]["rows"] == []


def test_a_file_that_is_not_json_is_refused():
    with pytest.raises(BackupError, match="not JSON"):
        read_backup(b"PK\x03\x04 a zip")
    with pytest.raises(BackupError, match="not JSON"):
        read_backup(gzip.compress(b"{broken"))


def test_the_commands_back_up_and_restore(store, tmp_path, monkeypatch, capsys):
    tokens = fill(store)
    url = str(store.engine.url.render_as_string(hide_password=False))
    file = tmp_path / "night.json"
    assert main(["backup", str(file), "--database", url]) == 0
    assert "8 tables written" in capsys.readouterr().err
    target = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    assert main(["restore", str(file), "--database", target]) == 0
    assert re.search(r"restored .*, 8 tables, \d+ events,", capsys.readouterr().err)
    assert everything_the_app_shows(Store(target), tokens) == everything_the_app_shows(
        store, tokens
    )
    assert main(["restore", str(file), "--database", target]) == 1  # not into a full database
    assert "already holds data" in capsys.readouterr().err
    monkeypatch.setenv("LEAFPILE_DATABASE_URL", target)
    assert main(["backup", str(tmp_path / "again.json")]) == 0  # the server's own by default
    again = json.loads((tmp_path / "again.json").read_text())
    assert len(again["tables"]["tables"]["rows"]) == 8
