"""docs/deploying.md's SQLite back-up line, run as written (issue 23, item 7):
taken while the app holds the database open, the copy opens as a Leafpile
database with every entry; restored in place, the table plays on."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from companion import create_app

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("LEAFPILE_TEST_DATABASE_URL")), reason="the SQLite lines"
)


def backup_lines() -> str:
    text = (ROOT / "docs" / "deploying.md").read_text(encoding="utf-8")
    section = text.split("## Back up and restore", 1)[1]
    block = re.search(r"```sh\n(python3 -c .*?)\n```", section, re.S)
    assert block, "the SQLite back-up lines"
    return block.group(1)


def test_the_documented_sqlite_backup_copies_a_live_database(tmp_path):
    instance = tmp_path / "instance"
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(instance)})
    store = app.extensions["leafpile_store"]
    table = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    store.act(table.token, 0, {"type": "AddRound", "scores": [3, 4]})
    backups = tmp_path / "backups"
    backups.mkdir()
    script = backup_lines().replace("/backups/", f"{backups}/")
    env = {**os.environ, "LEAFPILE_INSTANCE": str(instance)}
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (copy,) = backups.glob("leafpile-*.sqlite3")
    assert (backups / "secret_key").read_text() == (instance / "secret_key").read_text()
    store.act(table.token, 1, {"type": "AddRound", "scores": [5, 6]})  # after the backup
    store.engine.dispose()
    # Restore: the server stopped, the copy put back, the -wal and -shm removed.
    database = instance / "leafpile.sqlite3"
    for extra in ("-wal", "-shm"):
        Path(f"{database}{extra}").unlink(missing_ok=True)
    database.write_bytes(copy.read_bytes())
    again = create_app({"TESTING": True, "INSTANCE_PATH": str(instance)})
    restored = again.extensions["leafpile_store"]
    assert restored.version(table.token) == 1
    restored.act(table.token, 1, {"type": "AddRound", "scores": [7, 8]})
    assert restored.version(table.token) == 2
    restored.engine.dispose()
