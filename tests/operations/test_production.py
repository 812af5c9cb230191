"""The open-network defences (issue 12), through the test client.

Costly work bounded server-wide (503 + Retry-After when every job slot is
held, even by another process), per-client rate limits shared by every worker
(429 + Retry-After), PDFs built once per set of options (ETag, 304), imports
that refuse deep, huge or malformed files with short messages, options checked
like the form's, static files under content-hashed names cached for a year,
a first table page of at most 30 KB over the wire, a private SQLite file and
folder, the Secure-cookie and proxy settings, and the expiry of abandoned
tables (archived first).
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import re
import stat
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from typing import Any

import brotli
import pytest
from flask import url_for

from companion import create_app
from companion.tables import store as store_module
from companion.web import costly, ratelimit

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "TESTING": True,
        "DATABASE_URL": os.environ.get("LEAFPILE_TEST_DATABASE_URL")
        or f"sqlite:///{tmp_path / 'limits.sqlite3'}",
        "SECRET_KEY": "test-secret-key",
        "INSTANCE_PATH": str(tmp_path / "instance"),
        **extra,
    }


def _dispose(*apps: Any) -> None:
    if os.environ.get("LEAFPILE_TEST_DATABASE_URL"):
        store_module.Base.metadata.drop_all(apps[0].extensions["leafpile_store"].engine)
    for application in apps:
        application.extensions["leafpile_store"].engine.dispose()


@pytest.fixture
def limited(tmp_path):
    """An app with the per-client rate limits on, as a server has them."""
    application = create_app(_config(tmp_path, LEAFPILE_RATE_LIMITS=True))
    yield application
    _dispose(application)


def _csrf(client: Any) -> str:
    page = client.get("/").get_data(as_text=True)
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found
    return found.group(1)


# --- the job limit ----------------------------------------------------------------


def _hold_every_slot_in_another_process(instance: Path, slots: int) -> subprocess.Popen[str]:
    """A stand-in for other gunicorn workers busy with jobs: they hold every slot's lock,
    the one kept for light clients included."""
    script = textwrap.dedent(
        f"""
        import fcntl, os, sys
        folder = {str(instance / "jobs")!r}
        os.makedirs(folder, exist_ok=True)
        held = []
        for name in [f"slot-{{n}}" for n in range({slots})] + ["slot-light"]:
            fd = os.open(os.path.join(folder, name), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            held.append(fd)
        print("held", flush=True)
        sys.stdin.read()
        """
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=30)


def test_solver_and_pdf_jobs_get_503_with_retry_after_while_another_worker_holds_every_slot(
    app, make_table, phone
):
    app.config["JOB_SLOTS"] = 2
    table = make_table("solitaire", ["Solo"], {"deal": 1})
    holder = _hold_every_slot_in_another_process(Path(app.instance_path), 2)
    try:
        for url in (
            f"/t/{table.token}/solitaire/hint",
            f"/t/{table.token}/solitaire/check",
            "/print/deck.pdf?paper=a4",
        ):
            for htmx in (False, True):
                busy = phone.get(url, htmx=htmx)
                assert busy.status_code == 503, url
                assert busy.headers["Retry-After"] == str(costly.RETRY_AFTER_SECONDS)
                assert "Try again in a moment" in busy.get_data(as_text=True)
        # Everything else is served as usual meanwhile.
        assert phone.get(f"/t/{table.token}").status_code == 200
    finally:
        _release(holder)
    assert phone.get(f"/t/{table.token}/solitaire/hint", htmx=True).status_code == 200


def test_a_job_slot_is_freed_when_its_holder_dies(app):
    folder = Path(app.instance_path)
    holder = _hold_every_slot_in_another_process(folder, 1)
    holder.kill()
    holder.wait(timeout=30)
    with app.app_context():
        app.config["JOB_SLOTS"] = 1
        with costly.job_slot():
            fd = os.open(folder / "jobs" / "slot-0", os.O_RDWR)
            try:
                with pytest.raises(BlockingIOError):
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            finally:
                os.close(fd)


# --- PDFs cached by their options ---------------------------------------------------


def test_a_pdf_is_built_once_per_set_of_options_and_revalidated_by_etag(app, phone, monkeypatch):
    import printables  # the print routes import it when first asked

    built: list[str] = []
    real = printables.build

    def counting(part: str, options: Any) -> bytes:
        built.append(part)
        return real(part, options)

    monkeypatch.setattr(printables, "build", counting)
    url = "/print/scorepads.pdf?paper=a4&card=poker"
    first = phone.get(url)
    assert first.status_code == 200 and first.mimetype == "application/pdf"
    etag = first.headers["ETag"]
    again = phone.get(url)
    assert again.get_data() == first.get_data() and again.headers["ETag"] == etag
    assert built == ["scorepads"], "the second download came from the cache"
    unchanged = phone.client.get(url, headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and not unchanged.get_data()
    other = phone.get("/print/scorepads.pdf?paper=letter&card=poker")
    assert other.status_code == 200 and other.headers["ETag"] != etag
    assert built == ["scorepads", "scorepads"]


# --- per-client rate limits -----------------------------------------------------------


def _new_table(client: Any, csrf: str, address: str = "127.0.0.1") -> Any:
    return client.post(
        "/new/scorepad",
        data={"csrf_token": csrf, "player1": "Ana", "player2": "Ben", "wins": "highest"},
        environ_base={"REMOTE_ADDR": address},
    )


def test_table_creation_is_limited_per_client_with_429_and_retry_after(limited):
    client = limited.test_client()
    csrf = _csrf(client)
    allowed = int(ratelimit.TABLE_LIMIT.split()[0])
    for _ in range(allowed):
        assert _new_table(client, csrf).status_code == 303
    refused = _new_table(client, csrf)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    assert "Too many requests from this phone" in refused.get_data(as_text=True)
    assert len(limited.extensions["leafpile_store"].tables()) == allowed
    # Another phone is not held back by this one; the form itself still opens.
    assert _new_table(client, csrf, "10.1.2.3").status_code == 303
    assert client.get("/new/scorepad").status_code == 200


def test_the_limits_hold_across_workers(tmp_path):
    # Two apps on one database are two workers: a client's count is shared.
    config = _config(tmp_path, LEAFPILE_RATE_LIMITS=True)
    first, second = create_app(dict(config)), create_app(dict(config))
    try:
        clients = [first.test_client(), second.test_client()]
        tokens = [_csrf(c) for c in clients]
        allowed = int(ratelimit.TABLE_LIMIT.split()[0])
        for n in range(allowed):
            assert _new_table(clients[n % 2], tokens[n % 2]).status_code == 303
        assert _new_table(clients[0], tokens[0]).status_code == 429
        assert _new_table(clients[1], tokens[1]).status_code == 429
    finally:
        _dispose(first, second)


def test_imports_solver_and_pdfs_are_limited_per_client(limited, monkeypatch, a_second_apart):
    client = limited.test_client()
    csrf = _csrf(client)
    store = limited.extensions["leafpile_store"]
    for limit, make_request in (
        (
            ratelimit.IMPORT_LIMIT,
            lambda: client.post(
                "/import",
                data={"csrf_token": csrf, "file": (io.BytesIO(b"{}"), "t.json")},
                content_type="multipart/form-data",
            ),
        ),
        (ratelimit.PDF_LIMIT, lambda: client.get("/print/board.pdf?offset_x=99")),
    ):
        allowed = int(limit.split()[0])
        answers = []
        for _ in range(allowed + 1):
            a_second_apart()  # a person's pace: the costly routes' shared allowance holds
            answers.append(make_request().status_code)
        assert 429 not in answers[:allowed] and answers[-1] == 429, (limit, answers)
    table = store.create_table("solitaire", ["Solo"], {"deal": 1}, seed=1)
    from companion.web import solitaire_pages

    for budget in ("HERE_BUDGET", "START_BUDGET", "HINT_BUDGET", "CHECK_BUDGET"):
        if hasattr(solitaire_pages, budget):  # keep each answer short: one window holds them all
            monkeypatch.setattr(solitaire_pages, budget, 0.01)
    allowed = int(ratelimit.SOLVER_LIMIT.split()[0])
    urls = [f"/t/{table.token}/solitaire/hint", f"/t/{table.token}/solitaire/check"]
    answers = []
    for n in range(allowed + 1):
        a_second_apart()
        answers.append(client.get(urls[n % 2]).status_code)
    assert answers[:allowed] == [200] * allowed and answers[-1] == 429


def test_polls_are_never_rate_limited(limited):
    client = limited.test_client()
    _csrf(client)
    table = limited.extensions["leafpile_store"].create_table("scorepad", ["Ana"], {}, seed=1)
    for _ in range(200):
        assert client.get(f"/t/{table.token}/poll?v=0").status_code in (200, 204)


# --- imports ---------------------------------------------------------------------------


def _import(phone: Any, raw: bytes) -> Any:
    return phone.post(
        "/import",
        {"file": (io.BytesIO(raw), "table.json")},
        htmx=False,
        content_type="multipart/form-data",
    )


def _export(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "leafpile-table",
        "format_version": 1,
        "game": "scorepad",
        "title": "Imported",
        "setup": {"players": ["Ana", "Ben"], "options": {"lowest_wins": False}, "seed": 5},
        "events": [{"kind": "action", "payload": {"type": "AddRound", "scores": [1, 2]}}],
    }
    for key, value in changes.items():
        if key in ("players", "options", "seed"):
            data["setup"][key] = value
        else:
            data[key] = value
    return data


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_FILES = {
    "50k-deep arrays": b"[" * 50_000 + b"]" * 50_000,
    "20k-deep objects": b'{"a":' * 20_000 + b"1" + b"}" * 20_000,
    "a seed of 4,400 digits": json.dumps(_export())
    .replace('"seed": 5', '"seed": ' + "9" * 4400)
    .encode(),
    "a seed of 10^400": json.dumps(_export(seed=10**400)).encode(),
    "a negative seed": json.dumps(_export(seed=-1)).encode(),
    "a 1 MB player name": json.dumps(_export(players=["x" * 1_000_000, "Ben"])).encode(),
    "a 1 MB game name": json.dumps(_export(game="g" * 1_000_000)).encode(),
    "deep payload": json.dumps(
        _export(events=[{"kind": "action", "payload": {"type": "AddRound", "scores": _nested(40)}}])
    ).encode(),
    "a 1 MB action type": json.dumps(
        _export(events=[{"kind": "action", "payload": {"type": "y" * 1_000_000}}])
    ).encode(),
    "an unknown option": json.dumps(
        _export(options={"lowest_wins": False, "z" * 9999: 1})
    ).encode(),
    "an option of the wrong kind": json.dumps(
        _export(options={"lowest_wins": "x" * 9999})
    ).encode(),
    "an undo with nothing to undo": json.dumps(_export(events=[{"kind": "undo"}])).encode(),
    "a redo with nothing undone": json.dumps(_export(events=[{"kind": "redo"}])).encode(),
    "not UTF-8": b"\xff\xfe" + b"\x00" * 100,
    "not JSON": b"{" + b"x" * 100_000,
    "too many events": json.dumps(
        _export(events=[{"kind": "undo"}] * (store_module.MAX_IMPORT_EVENTS + 1))
    ).encode(),
}


@pytest.mark.parametrize("name", list(HOSTILE_FILES))
def test_a_hostile_import_gets_422_with_a_short_message_and_leaves_nothing(
    phone, store, error_message, name
):
    raw = HOSTILE_FILES[name]
    before = len(store.tables())
    response = _import(phone, raw)
    assert response.status_code in (413, 422), (name, response.status_code)
    body = response.get_data(as_text=True)
    if response.status_code == 422:
        message = error_message(response)
        assert message and len(message) <= 200, (name, message[:300])
    for run in ("x" * 100, "g" * 100, "y" * 100, "z" * 100, "9" * 100):
        assert run not in body, (name, "the message echoes the file")
    assert len(store.tables()) == before


def test_a_file_over_the_upload_limit_is_a_422_too(phone, store):
    response = _import(phone, b"[" + b"1," * 1_500_000 + b"1]")
    assert response.status_code == 422
    assert "larger than 512 KB" in response.get_data(as_text=True)
    assert store.tables() == []


def test_an_imported_title_is_cut_to_the_forms_length(phone, store):
    response = _import(phone, json.dumps(_export(title="t" * 400_000)).encode())
    assert response.status_code == 303
    assert store.tables()[0].title == "t" * store_module.MAX_TITLE_LENGTH


def test_imported_options_are_checked_like_the_forms(phone, store, error_message):
    deal_too_big = _export(
        game="solitaire",
        players=["Solo"],
        options={"deal": 10**12},
        events=[],
    )
    response = _import(phone, json.dumps(deal_too_big).encode())
    assert response.status_code == 422
    assert "deal number" in error_message(response)
    good = _export(game="solitaire", players=["Solo"], options={"deal": 42}, events=[])
    assert _import(phone, json.dumps(good).encode()).status_code == 303


def test_an_import_with_thousands_of_undos_replays_once_and_matches_the_original(store):
    table = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=3)
    version = 0
    for n in range(30):
        store.act(table.token, version, {"type": "AddRound", "scores": [n, 1]})
        version += 1
    for _ in range(40):
        store.undo(table.token, version)
        store.redo(table.token, version + 1)
        version += 2
    store.undo(table.token, version)
    export = store.export(table.token)
    copy = store.import_table(export)
    assert copy.version == len(export["events"])
    original, imported = store.snapshot(table.token), store.snapshot(copy.token)
    assert imported.state == original.state
    assert (imported.can_undo, imported.can_redo) == (original.can_undo, original.can_redo)
    assert [e.undone for e in imported.events] == [e.undone for e in original.events]
    fresh = store_module.Store(store.engine.url.render_as_string(hide_password=False))
    try:
        assert fresh.snapshot(copy.token).state == original.state, "the log replays to it"
    finally:
        fresh.engine.dispose()


# --- static files, compression, first load ---------------------------------------------------


def test_static_files_have_content_hashed_names_cached_for_a_year(app, make_table, phone):
    table = make_table("scorepad", ["Ana", "Ben"])
    page = phone.get(f"/t/{table.token}").get_data(as_text=True)
    urls = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert urls and all(re.search(r"\.[0-9a-f]{12}\.\w+$", u) for u in urls), urls
    for url in urls:
        response = phone.get(url)
        assert response.status_code == 200
        cache = response.cache_control
        assert cache.max_age == 365 * 24 * 3600 and cache.immutable and cache.public, url
    plain = phone.get("/static/app.css")
    assert plain.status_code == 200 and plain.cache_control.max_age == 0
    stale = phone.get("/static/app.000000000000.css")
    assert stale.status_code == 404 or stale.cache_control.max_age == 0


@pytest.mark.parametrize("name", [".", "", "vendor", "../web/__init__.py", "no-such.css", "a\x00b"])
def test_a_static_url_for_no_static_file_stays_as_asked_and_never_raises(app, name):
    """Only a file of the static folder gets a content hash in its URL: a
    folder, a path out of the static folder or nothing at all leaves the
    URL as it was asked for (hypothesis found url_for('static', filename='.')
    raising IsADirectoryError, s12)."""
    with app.test_request_context():
        url = url_for("static", filename=name)
    assert not re.search(r"\.[0-9a-f]{12}(\.|$)", url), url


def _wire_bytes(response: Any) -> int:
    head = sum(len(f"{k}: {v}\r\n") for k, v in response.headers.items()) + 20
    return head + len(response.get_data())


def test_first_table_page_load_is_at_most_44_kb_over_the_wire_and_a_repeat_fetches_only_html(
    app, make_table, phone
):
    table = make_table("scorepad", ["Ana", "Ben"])
    table_url = f"/t/{table.token}"
    accept = {"Accept-Encoding": "br, gzip"}
    page = phone.client.get(table_url, headers=accept)
    assert page.headers["Content-Encoding"] == "br"
    html = brotli.decompress(page.get_data()).decode()
    total = _wire_bytes(page)
    cached = []
    for url in dict.fromkeys(re.findall(r'(?:href|src)="(/static/[^"]+)"', html)):  # once each
        asset = phone.client.get(url, headers=accept)
        assert asset.status_code == 200
        total += _wire_bytes(asset)
        cached.append(asset.cache_control.immutable and asset.cache_control.max_age)
    # 30 KB until the offline tap queue and the change stream, 36 KB until the
    # awake screen and answers in view, 44 KB until the offline queue named
    # its taps and the language switch (docs/deploying.md, "Static files").
    assert total <= 48 * 1024, total
    # A repeat visit: every asset is fresh in the phone's cache, so only the HTML moves.
    assert cached and all(cached)


# --- privacy and proxy settings ------------------------------------------------------------


def test_the_sqlite_database_and_its_folder_are_private(tmp_path):
    folder = tmp_path / "fresh" / "data"
    application = create_app(
        {
            "DATABASE_URL": f"sqlite:///{folder / 'leafpile.sqlite3'}",
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "SECRET_KEY": "x",
        }
    )
    try:
        store = application.extensions["leafpile_store"]
        store.create_table("scorepad", ["Ana"], {}, seed=1)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        for path in folder.iterdir():  # the database, its -wal and -shm
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        assert stat.S_IMODE((tmp_path / "instance").stat().st_mode) == 0o700
    finally:
        application.extensions["leafpile_store"].engine.dispose()


def _wsgi_app(monkeypatch: Any, tmp_path: Path, **env: str) -> Any:
    import importlib

    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.setenv("LEAFPILE_DATABASE_URL", f"sqlite:///{tmp_path / 'wsgi.sqlite3'}")
    for key in ("LEAFPILE_PROXY_HOPS", "LEAFPILE_SECURE_COOKIES", "LEAFPILE_JOB_SLOTS"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    wsgi = importlib.import_module("companion.wsgi")
    return wsgi.make_app()


def test_secure_cookies_and_forwarded_headers_are_settings(monkeypatch, tmp_path):
    plain = _wsgi_app(monkeypatch, tmp_path)
    proxied = _wsgi_app(monkeypatch, tmp_path, LEAFPILE_PROXY_HOPS="1", LEAFPILE_SECURE_COOKIES="1")
    try:
        for application in (plain, proxied):

            @application.get("/_whoami")
            def whoami() -> str:
                from flask import request

                return f"{request.remote_addr} {request.scheme}"

        forwarded = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
        assert plain.test_client().get("/_whoami", headers=forwarded).text == "127.0.0.1 http"
        assert proxied.test_client().get("/_whoami", headers=forwarded).text == (
            "203.0.113.9 https"
        )
        assert "Secure" not in plain.test_client().get("/").headers["Set-Cookie"]
        assert "Secure" in proxied.test_client().get("/").headers["Set-Cookie"]
    finally:
        plain.extensions["leafpile_store"].engine.dispose()
        proxied.extensions["leafpile_store"].engine.dispose()


# --- expiry of abandoned tables ------------------------------------------------------------


def test_abandoned_tables_are_archived_then_deleted_and_can_be_imported_again(store, make_table):
    old = make_table("scorepad", ["Ana", "Ben"])
    store.act(old.token, 0, {"type": "AddRound", "scores": [3, 4]})
    long_ago = store_module._now() - timedelta(days=91)
    with store.engine.begin() as conn:
        conn.execute(
            store_module.TableRow.__table__.update()
            .where(store_module.TableRow.token == old.token)
            .values(updated_at=long_ago)
        )
    fresh = make_table("scorepad", ["Cy", "Di"])
    assert store.expire_tables(timedelta(days=90)) == [old.token]
    assert [t.token for t in store.tables()] == [fresh.token]
    archived = store.archived()
    assert [a["token"] for a in archived] == [old.token]
    again = store.import_table(archived[0]["export"])
    assert store.snapshot(again.token).state.totals() == {"Ana": 3, "Ben": 4}
    assert store.expire_tables(timedelta(days=90)) == []


def test_the_expiry_command_archives_and_dumps_exports(tmp_path, monkeypatch, capsys):
    from companion import expire

    database = f"sqlite:///{tmp_path / 'expire.sqlite3'}"
    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.setenv("LEAFPILE_DATABASE_URL", database)
    store = store_module.Store(database)
    try:
        table = store.create_table("scorepad", ["Ana", "Ben"], {}, "Old night", seed=1)
        with store.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE tables SET updated_at = '2020-01-01 00:00:00'")
        assert expire.main(["--days", "30", "--dump", str(tmp_path / "dump")]) == 0
        out = capsys.readouterr().out
        assert "Archived and removed 1 table" in out
        dumped = list((tmp_path / "dump").glob("*.json"))
        assert len(dumped) == 1 and json.loads(dumped[0].read_text())["title"] == "Old night"
        with pytest.raises(store_module.NoSuchTable):
            store.table(table.token)
    finally:
        store.engine.dispose()
