"""Solo tables belong to the phone that dealt them, and backups come back
(issue 42): the solitaire page lists only this phone's deals; every solo
table has its starter as host; a browser's backup restores with
``leafpile restore`` and its records come back; a stranger's backup at
100,000 events is fast and limited; backup files are the owner's only; and a
backup or restore path that is wrong is one line and a non-zero exit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, insert
from sqlalchemy.orm import Session

from companion import create_app
from companion.cli import main
from companion.tables.backup import COUNTERS, backup, read_backup, restore, write_backup
from companion.tables.store import EventRow, Store
from companion.web import ratelimit
from tests.end_games import finish_scorepad

DEAL = 20


def device_of(phone: Any) -> str:
    with phone.client.session_transaction() as session:
        return hashlib.sha256(session["device"].encode()).hexdigest()


def deal(phone: Any, number: int = DEAL) -> str:
    """Deal from /solitaire on this phone; the new table's token."""
    answer = phone.post("/solitaire/new", {"deal": str(number), "name": "Solo"}, htmx=False)
    assert answer.status_code == 303
    return str(answer.headers["Location"].rsplit("/", 1)[-1])


# --- the solitaire page ----------------------------------------------------------------


def test_the_solitaire_page_lists_only_this_phones_deals(store, phone, new_client_phone):
    mine = deal(phone)
    stranger = new_client_phone()
    theirs = deal(stranger, 21)
    page = phone.get("/solitaire").get_data(as_text=True)
    assert mine in page and theirs not in page
    other = stranger.get("/solitaire").get_data(as_text=True)
    assert theirs in other and mine not in other
    # A phone that never dealt sees no deal at all, and no statistics of anybody's.
    nobody = new_client_phone().get("/solitaire").get_data(as_text=True)
    assert mine not in nobody and theirs not in nobody
    assert re.search(r'id="stat-played">0<', nobody)
    assert "/t/" not in re.sub(r'action="/solitaire/new"', "", nobody)


def test_a_deal_opened_by_its_link_is_on_that_phones_solitaire_page(store, phone, new_client_phone):
    mine = deal(phone)
    friend = new_client_phone()
    friend.get(f"/t/{mine}")  # the player shared the link
    assert mine in friend.get("/solitaire").get_data(as_text=True)


# --- who is host of a solo table ---------------------------------------------------------


def test_a_deal_and_its_replay_have_the_dealer_as_host(store, phone, new_client_phone):
    first = deal(phone)
    board = phone.get(f"/t/{first}").get_data(as_text=True)
    assert f"Replay deal #{DEAL}" in board
    replay = deal(phone)  # the board's Replay deal button posts the same form
    assert replay != first
    for token in (first, replay):
        assert store.role_of(token, device_of(phone)) == "host"
        assert token in phone.get("/").get_data(as_text=True)  # on the start page
    backed_up = json.loads(phone.get("/backup").get_data())
    tokens = {row[1] for row in backed_up["tables"]["tables"]["rows"]}
    assert tokens == {first, replay}
    # A stranger who opens the link is a guest, never the host.
    stranger = new_client_phone()
    stranger.get(f"/t/{first}")
    assert store.role_of(first, device_of(stranger)) == "guest"


# --- the web backup restores, records included -------------------------------------------


def finished_pad(phone: Any, store: Any) -> str:
    answer = phone.post("/new/scorepad", {"player1": "Ana", "player2": "Ben"}, htmx=False)
    token = str(answer.headers["Location"].rsplit("/", 1)[-1])
    finish_scorepad(store, store.table(token))
    return token


def test_a_browsers_backup_restores_with_leafpile_restore_and_its_records_come_back(
    app, store, phone, tmp_path
):
    token = finished_pad(phone, store)
    solo = deal(phone)
    records = phone.get("/records").get_data(as_text=True)
    assert "Ana" in records
    app.config["LEAFPILE_RATE_LIMITS"] = True  # counters in the database: not in the backup
    download = phone.get("/backup")
    assert download.status_code == 200
    data = json.loads(download.get_data())
    assert not set(data["tables"]) & COUNTERS
    file = tmp_path / "mine.json"
    file.write_bytes(download.get_data())
    # A fresh process, as a host runs it: it imports none of the web app.
    target = f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    leafpile = str(Path(sys.executable).parent / "leafpile")
    done = subprocess.run(
        [leafpile, "restore", str(file), "--database", target],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "restored" in done.stderr
    # The same server (its instance folder, so its session key) on the restored database.
    config = {**app.config, "DATABASE_URL": target}
    restored = create_app(
        {k: config[k] for k in ("TESTING", "DATABASE_URL", "SECRET_KEY")}
        | {"INSTANCE_PATH": app.instance_path}
    )
    try:
        again = restored.test_client()
        again.set_cookie("session", phone.client.get_cookie("session").value)
        shown = again.get("/records").get_data(as_text=True)
        assert "Ana" in shown and "Ben" in shown
        start = again.get("/").get_data(as_text=True)
        assert token in start and solo in start
        assert again.get("/achievements").status_code == 200
        assert restored.extensions["leafpile_store"].role_of(token, device_of(phone)) == "host"
    finally:
        restored.extensions["leafpile_store"].engine.dispose()


def test_a_backup_made_before_counters_were_left_out_still_restores(store, tmp_path):
    table = store.create_table("scorepad", ["Ana", "Ben"], {})
    data = backup(store.engine)
    data["tables"]["rate_limits"] = {
        "columns": ["key", "count", "expires_at"],
        "rows": [["leafpile/x", 3, 1.0]],
    }
    target = Store(f"sqlite:///{tmp_path / 'new.sqlite3'}")
    counts = restore(target.engine, json.loads(json.dumps(data)))
    assert counts["tables"] == 1 and "rate_limits" not in counts
    assert target.table(table.token).title == table.title


def test_a_restore_goes_into_a_database_a_server_already_counted_in(app, store, tmp_path):
    """A new server that already answered a few requests has rate-limit
    counters: they are the server's, not data, and never block a restore."""
    store.create_table("scorepad", ["Ana", "Ben"], {})
    data = backup(store.engine)
    target = Store(f"sqlite:///{tmp_path / 'new.sqlite3'}")
    with target.engine.begin() as conn:
        conn.execute(insert(ratelimit.RateLimitRow.__table__), [
            {"key": "leafpile/new-table/1.2.3.4", "count": 1, "expires_at": 9e9}
        ])  # fmt: skip
    assert restore(target.engine, data)["tables"] == 1


# --- files and messages ------------------------------------------------------------------


def test_backup_files_are_readable_by_their_owner_only(store, tmp_path):
    store.create_table("scorepad", ["Ana", "Ben"], {})
    old = os.umask(0o022)
    try:
        for name in ("night.json", "night.json.gz"):
            path = tmp_path / name
            path.write_text("an older, world-readable file")
            path.chmod(0o644)
            write_backup(backup(store.engine), path)
            assert path.stat().st_mode & 0o777 == 0o600, name
            assert read_backup(path.read_bytes())["format"] == "leafpile-backup"
        url = store.engine.url.render_as_string(hide_password=False)
        assert main(["backup", str(tmp_path / "cli.json"), "--database", url]) == 0
        assert (tmp_path / "cli.json").stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
    assert not list(tmp_path.glob("*.part"))  # nothing half-written left beside them


def _wrong(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    good = f"sqlite:///{tmp_path / 'good.sqlite3'}"
    Store(good).engine.dispose()
    a_backup = tmp_path / "ok.json"
    write_backup(backup(Store(good).engine), a_backup)
    return {
        "backup into a missing folder": (
            ["backup", str(tmp_path / "no" / "such" / "x.json"), "--database", good],
            "there is no folder",
        ),
        "backup into a folder": (["backup", str(tmp_path), "--database", good], "cannot write"),
        "backup of a missing SQLite file": (
            ["backup", str(tmp_path / "b.json"), "--database", f"sqlite:///{tmp_path / 'nope.db'}"],
            "there is no database at",
        ),
        "backup of no database URL": (
            ["backup", str(tmp_path / "b.json"), "--database", "not a url"],
            "is not a database URL",
        ),
        "restore of a missing file": (
            ["restore", str(tmp_path / "missing.json"), "--database", good],
            "cannot read",
        ),
        "restore of a folder": (["restore", str(tmp_path), "--database", good], "cannot read"),
        "restore of a file that is no backup": (
            ["restore", str(tmp_path / "good.sqlite3"), "--database", good],
            "not a Leafpile backup",
        ),
        "restore into no database URL": (
            ["restore", str(a_backup), "--database", "postgresql+nosuchdriver://x@y/z"],
            "no driver",
        ),
    }


WRONG = [
    "backup into a missing folder",
    "backup into a folder",
    "backup of a missing SQLite file",
    "backup of no database URL",
    "restore of a missing file",
    "restore of a folder",
    "restore of a file that is no backup",
    "restore into no database URL",
]


@pytest.mark.parametrize("case", WRONG)
def test_a_wrong_backup_or_restore_path_is_one_line_and_a_non_zero_exit(tmp_path, capsys, case):
    args, words = _wrong(tmp_path)[case]
    capsys.readouterr()
    code = main(args)
    said = capsys.readouterr().err
    assert code != 0
    assert said.count("\n") == 1 and said.startswith(f"leafpile {args[0]}: "), said
    assert words in said
    assert "Traceback" not in said


def test_an_unreachable_postgresql_is_one_line_with_no_password(tmp_path, capsys):
    pytest.importorskip("psycopg")
    url = "postgresql+psycopg://leafpile:hunter2@127.0.0.1:9/leafpile"
    assert main(["backup", str(tmp_path / "x.json"), "--database", url]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "cannot open the database" in said
    assert "hunter2" not in said


# --- a stranger's backup on a big server -------------------------------------------------

EVENTS = 100_000


@pytest.fixture
def big_server(store):
    """A server with 100,000 events: 400 score pads of 250 rounds each."""
    tables = [store.create_table("scorepad", ["Ana", "Ben"], {}) for _ in range(400)]
    payload = {"type": "AddRound", "scores": [1, 2]}
    rows = [
        {"table_id": t.id, "seq": seq, "kind": "action", "payload": payload, "seat": None}
        for t in tables
        for seq in range(1, EVENTS // len(tables) + 1)
    ]
    with store.engine.begin() as conn:
        conn.execute(insert(EventRow), rows)
    return tables


@pytest.mark.slow
def test_a_strangers_backup_at_100000_events_reads_no_rows_and_is_fast(
    app, store, big_server, phone
):
    phone.get(f"/t/{big_server[0].token}")  # a phone with a device, but hosting nothing
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        took = []
        for _ in range(3):
            started = time.thread_time()
            answer = phone.client.get("/backup")
            took.append(time.thread_time() - started)
            assert answer.status_code == 200
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
    data = json.loads(answer.get_data())
    assert data["tables"]["tables"]["rows"] == [] and data["tables"]["events"]["rows"] == []
    # The database chose the rows: every read of the events names the group.
    reads = [s for s in statements if re.search(r"FROM events\b", s)]
    assert reads and all("WHERE" in s for s in reads), reads
    # Milliseconds of work (it was seconds). Counted in this thread's CPU time,
    # not the wall clock: a busy machine (load 48, once) stretches the wall
    # clock past any bound, but not the work the request itself does.
    assert sorted(took)[1] < 1.0, took


@pytest.mark.slow
def test_the_hosts_own_backup_at_100000_events_holds_only_their_tables(store, big_server, phone):
    mine = finished_pad(phone, store)
    data = json.loads(phone.client.get("/backup").get_data())
    assert [row[1] for row in data["tables"]["tables"]["rows"]] == [mine]
    table_at = data["tables"]["events"]["columns"].index("table_id")
    assert {row[table_at] for row in data["tables"]["events"]["rows"]} == {store.table(mine).id}
    with Session(store.engine) as session:
        assert session.query(EventRow).count() > EVENTS


def test_backups_are_rate_limited_and_run_in_a_job_slot(app, store, phone, tmp_path):
    app.config["LEAFPILE_RATE_LIMITS"] = True
    ratelimit.reset()
    allowed = int(ratelimit.BACKUP_LIMIT.split()[0])
    answers = [phone.client.get("/backup").status_code for _ in range(allowed + 1)]
    assert answers == [200] * allowed + [429]
    refused = phone.client.get("/backup")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    # Every job slot busy (other workers' PDFs and hints): a backup waits its turn.
    app.config["LEAFPILE_RATE_LIMITS"] = False
    app.config["JOB_SLOTS"] = 1
    jobs = Path(app.instance_path) / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    script = (
        "import fcntl, os, sys\n"
        f"held = [os.open(os.path.join({str(jobs)!r}, n), os.O_RDWR | os.O_CREAT, 0o600)"
        " for n in ('slot-0', 'slot-light')]\n"
        "[fcntl.flock(fd, fcntl.LOCK_EX) for fd in held]\n"
        "print('held', flush=True); sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        busy = phone.client.get("/backup")
        assert busy.status_code == 503 and busy.headers["Retry-After"]
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)
    assert phone.client.get("/backup").status_code == 200


def test_the_records_pages_share_one_rate_limit(app, phone, a_second_apart):
    app.config["LEAFPILE_RATE_LIMITS"] = True
    ratelimit.reset()
    allowed = int(ratelimit.RECORDS_LIMIT.split()[0])
    pages = ["/records", "/achievements", "/records.csv", "/records/plays.csv"]
    answers = []
    for i in range(allowed):
        a_second_apart()
        answers.append(phone.client.get(pages[i % len(pages)]).status_code)
    assert set(answers) == {200}
    for page in pages:
        a_second_apart()
        assert phone.client.get(page).status_code == 429


def test_a_flooding_address_is_refused_in_front_of_flask_and_nobody_else_is(app, phone):
    """Once over a limit, an address's next requests on that route are refused
    by the gate in front of Flask (no request context, no session, no page),
    with Retry-After; its other routes and other addresses are served."""
    from flask import request_started

    app.config["LEAFPILE_RATE_LIMITS"] = True
    ratelimit.reset()
    allowed = int(ratelimit.BACKUP_LIMIT.split()[0])
    for _ in range(allowed + 1):
        phone.client.get("/backup")
    seen: list[str] = []

    def counted(sender: Any, **_: Any) -> None:
        seen.append("flask")

    request_started.connect(counted, app)
    try:
        plain = phone.client.get("/backup")
        fragment = phone.client.get("/backup", headers={"HX-Request": "true"})
        assert seen == []  # Flask never saw them
        home = phone.client.get("/")
        assert home.status_code == 200 and seen == ["flask"]  # its other routes are served
        other = app.test_client().get(
            "/backup", environ_base={"REMOTE_ADDR": "192.0.2.9"}
        )  # another address
        assert other.status_code == 200
    finally:
        request_started.disconnect(counted, app)
    assert plain.status_code == 429 and int(plain.headers["Retry-After"]) >= 1
    assert "Too many requests from this phone" in plain.get_data(as_text=True)
    assert fragment.status_code == 429
    assert fragment.get_data(as_text=True).startswith('<div id="board"')
    assert fragment.headers["Content-Security-Policy"]
    # The window ends: the address is served again, by Flask.
    ratelimit.clock = lambda: time.time() + 3600
    try:
        assert phone.client.get("/backup").status_code == 200
    finally:
        ratelimit.clock = time.time
