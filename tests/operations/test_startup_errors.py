"""A host's mistakes stop the server with one line and a non-zero exit (issue 42, item 7).

A bad data folder, an unwritable HOME, a wrong or unreachable database URL,
or a setting out of range printed a 15-122 line traceback, or was silently
clamped (``LEAFPILE_JOIN_CODE_LENGTH=11`` or ``eight``). Each is run here as
a host would run it: ``leafpile`` in a fresh process, and ``deploy/serve``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _clean_env(tmp_path: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAFPILE_")}
    env["LEAFPILE_INSTANCE"] = str(tmp_path / "instance")
    env.update(settings)
    return {k: v for k, v in env.items() if v != "<unset>"}


def _leafpile(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "--host", "127.0.0.1", "--port", str(_free_port())],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _a_file(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a folder\n")
    return path


# (what the host set, what the one line must say)
CASES = {
    "a data folder that is a file": (
        lambda tmp: {"LEAFPILE_INSTANCE": str(_a_file(tmp))},
        "cannot use the data folder",
    ),
    "a data folder inside a file": (
        lambda tmp: {"LEAFPILE_INSTANCE": str(_a_file(tmp) / "leafpile")},
        "cannot use the data folder",
    ),
    # /proc takes no new folder, even from root (tests may run as root, who
    # may write in any folder of an ordinary file system).
    "an unwritable HOME": (
        lambda tmp: {"LEAFPILE_INSTANCE": "<unset>", "HOME": "/proc", "XDG_DATA_HOME": "<unset>"},
        "is HOME (/proc) a folder this user can write",
    ),
    "a database URL that is no URL": (
        lambda tmp: {"LEAFPILE_DATABASE_URL": "my database"},
        "LEAFPILE_DATABASE_URL is not a database URL",
    ),
    "a database Leafpile cannot use": (
        lambda tmp: {"LEAFPILE_DATABASE_URL": "couchdb://h/d"},
        "LEAFPILE_DATABASE_URL names a database Leafpile cannot use",
    ),
    "an unreachable database": (
        lambda tmp: {
            "LEAFPILE_DATABASE_URL": f"postgresql+psycopg://leafpile:s3cret@127.0.0.1:{_free_port()}/x"
        },
        "cannot reach the database postgresql+psycopg://leafpile:***@127.0.0.1:",
    ),
    "a SQLite file in a folder that cannot be": (
        lambda tmp: {"LEAFPILE_DATABASE_URL": f"sqlite:///{_a_file(tmp)}/x.sqlite3"},
        "cannot open the database sqlite:///",
    ),
    "a join code of 11 characters": (
        lambda tmp: {"LEAFPILE_JOIN_CODE_LENGTH": "11"},
        "LEAFPILE_JOIN_CODE_LENGTH must be a whole number of characters, 5 to 10 (not '11')",
    ),
    "a join code length in words": (
        lambda tmp: {"LEAFPILE_JOIN_CODE_LENGTH": "eight"},
        "LEAFPILE_JOIN_CODE_LENGTH must be a whole number of characters, 5 to 10 (not 'eight')",
    ),
    "a connection cap of 0": (
        lambda tmp: {"LEAFPILE_MAX_CONNECTIONS": "0"},
        "LEAFPILE_MAX_CONNECTIONS must be a whole number of connections",
    ),
    "a header deadline in words": (
        lambda tmp: {"LEAFPILE_HEADER_SECONDS": "ten"},
        "LEAFPILE_HEADER_SECONDS must be a whole number of seconds",
    ),
    "a database wait that is no number": (
        lambda tmp: {"LEAFPILE_DATABASE_WAIT": "a while"},
        "LEAFPILE_DATABASE_WAIT must be a number of seconds",
    ),
    "a pool of no connections": (
        lambda tmp: {"LEAFPILE_DATABASE_POOL": "0"},
        "LEAFPILE_DATABASE_POOL must be a whole number of connections",
    ),
    "a negative heartbeat": (
        lambda tmp: {"LEAFPILE_STREAM_HEARTBEAT": "-1"},
        "LEAFPILE_STREAM_HEARTBEAT must be a number of seconds",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_leafpile_stops_with_one_line(case: str, tmp_path: Path):
    settings, said = CASES[case]
    answer = _leafpile(_clean_env(tmp_path, **settings(tmp_path)))
    assert answer.returncode != 0
    lines = answer.stderr.splitlines()
    assert len(lines) == 1, answer.stderr
    assert lines[0].startswith("leafpile: ") and said in lines[0], lines[0]
    assert "Traceback" not in answer.stdout + answer.stderr
    assert "s3cret" not in answer.stderr  # never the database password
    assert "Leafpile is running" not in answer.stdout


def test_deploy_serve_stops_with_one_line_for_a_setting_out_of_range(tmp_path: Path):
    env = _clean_env(
        tmp_path,
        LEAFPILE_LISTEN=f"127.0.0.1:{_free_port()}",
        LEAFPILE_JOIN_CODE_LENGTH="11",
        PYTHON=sys.executable,
    )
    answer = subprocess.run(
        ["bash", str(ROOT / "deploy" / "serve")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode != 0
    assert answer.stderr.splitlines() == [
        "deploy/serve: LEAFPILE_JOIN_CODE_LENGTH must be a whole number of characters,"
        " 5 to 10 (not '11')"
    ], answer.stderr


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"LEAFPILE_DATABASE_URL": "my database"}, "LEAFPILE_DATABASE_URL is not a database URL"),
        ({"LEAFPILE_DATABASE_URL": "mysql://u@h/d"}, "the database driver MySQLdb"),
        ({"LEAFPILE_INSTANCE": "<a file>"}, "cannot use the data folder"),
    ],
)
def test_the_units_check_stops_with_one_line(settings: dict[str, str], said: str, tmp_path: Path):
    """``python -m companion.startup`` (deploy/serve and the systemd units run it
    first): a wrong URL's form is said once, not by a worker failing to boot
    again and again; a database that does not answer is not its business."""
    if settings.get("LEAFPILE_INSTANCE") == "<a file>":
        settings = {"LEAFPILE_INSTANCE": str(_a_file(tmp_path))}
    answer = subprocess.run(
        [sys.executable, "-m", "companion.startup"],
        cwd=ROOT,
        env=_clean_env(tmp_path, **settings),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 1
    lines = answer.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("leafpile: ") and said in lines[0], lines


def test_the_units_check_passes_a_database_that_does_not_answer_yet(tmp_path: Path):
    url = f"postgresql+psycopg://leafpile@127.0.0.1:{_free_port()}/leafpile"
    answer = subprocess.run(
        [sys.executable, "-m", "companion.startup"],
        cwd=ROOT,
        env=_clean_env(tmp_path, LEAFPILE_DATABASE_URL=url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0 and not answer.stderr, answer.stderr
