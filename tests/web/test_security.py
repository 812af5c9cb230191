"""Security: nobody gets into a table they were not given, and nothing
another site or a stale page sends can change one.

CSRF on every POST route, unguessable table tokens checked in constant time,
join codes that expire and cannot be brute-forced, the security headers on
every response (a CSP that forbids inline script), a session key generated
into the instance folder, never debug mode, and a banner that says who can
reach the server.
"""

from __future__ import annotations

import base64
import io
import os
import re
import secrets
import socket
import stat
import sys
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, url_for

import companion.server as server_module
from companion import create_app
from companion.tables import models
from companion.tables import store as store_module
from companion.web import ratelimit

ROOT = Path(__file__).resolve().parents[2]


# --- helpers ----------------------------------------------------------------


def _argument_values(app: Flask, table: Any, code: str) -> dict[str, str]:
    return {
        "token": table.token,
        "view_token": table.view_token,
        "game": "scorepad",
        "code": code,
        "filename": "app.css",
    }


def _routes(app: Flask, method: str) -> list[Any]:
    return sorted(
        (r for r in app.url_map.iter_rules() if method in (r.methods or ())),
        key=lambda r: r.rule,
    )


def _url(app: Flask, rule: Any, values: dict[str, str]) -> str:
    with app.test_request_context():
        return url_for(rule.endpoint, **{a: values.get(a, "x") for a in rule.arguments})


def _everything(store: Any, table: Any) -> Any:
    """What a write could change: the table's log and version, and the table list."""
    return store.export(table.token), store.version(table.token), len(store.tables())


# --- CSRF -------------------------------------------------------------------


def test_every_post_route_is_in_the_csrf_check(app):
    # The check runs before every view, so a route added later is covered too;
    # this pins that the routes under test are the app's real POST routes.
    posts = {r.rule for r in _routes(app, "POST")}
    assert {"/t/<token>/act", "/t/<token>/undo", "/t/<token>/redo", "/import"} <= posts
    assert "/new/<game>" in posts


@pytest.mark.parametrize(
    "how",
    ["no token", "empty token", "wrong token", "token of another phone", "token in a GET query"],
)
def test_a_post_without_this_phones_csrf_token_is_refused_everywhere(
    app, store, make_table, phone, new_client_phone, how
):
    table = make_table("scorepad", ["Ana", "Ben"])
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2]})
    code, _ = store.join_code(table.token, 60)
    other = new_client_phone()
    values = _argument_values(app, table, code)
    for rule in _routes(app, "POST"):
        url = _url(app, rule, values)
        form = {
            "version": str(store.version(table.token)),
            "action": "add-round",
            "score0": "5",
            "score1": "6",
            "player1": "Eve",
            "seat": "Ana",
        }
        if how == "empty token":
            form["csrf_token"] = ""
        elif how == "wrong token":
            form["csrf_token"] = secrets.token_urlsafe(32)
        elif how == "token of another phone":
            form["csrf_token"] = other.csrf
        if how == "token in a GET query":
            url += f"?csrf_token={phone.csrf}"
        before = _everything(store, table)
        response = phone.client.post(url, data=form, headers={"HX-Request": "true"})
        assert response.status_code == 403, (rule.rule, how, response.status_code)
        assert "stale" in response.get_data(as_text=True)
        assert _everything(store, table) == before, (rule.rule, how)


def test_htmx_requests_pass_the_csrf_check_with_the_header_the_page_sets(
    app, store, make_table, phone
):
    table = make_table("scorepad", ["Ana", "Ben"])
    page = phone.get(f"/t/{table.token}").get_data(as_text=True)
    header = re.search(r"hx-headers='\{\"X-CSRF-Token\": \"([^\"]+)\"\}'", page)
    assert header, "the page gives htmx the CSRF token as a header"
    response = phone.client.post(
        f"/t/{table.token}/act",
        data={"version": "0", "action": "add-round", "score0": "1", "score1": "2"},
        headers={"HX-Request": "true", "X-CSRF-Token": header.group(1)},
    )
    assert response.status_code == 200
    assert store.version(table.token) == 1

    forged = phone.client.post(
        f"/t/{table.token}/act",
        data={"version": "1", "action": "add-round", "score0": "1", "score1": "2"},
        headers={"HX-Request": "true", "X-CSRF-Token": header.group(1)[:-2] + "xx"},
    )
    assert forged.status_code == 403
    assert 'id="board"' in forged.get_data(as_text=True), "htmx gets a fragment it can swap"
    assert store.version(table.token) == 1


def test_session_cookie_is_http_only_and_same_site(app, client):
    response = client.get("/")
    cookie = response.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie


# --- tokens -----------------------------------------------------------------


def _bits(token: str) -> int:
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    return len(raw) * 8


def test_table_and_spectator_tokens_carry_at_least_128_random_bits(make_table):
    tables = [make_table("scorepad", ["Ana"]) for _ in range(20)]
    tokens = [t.token for t in tables] + [t.view_token for t in tables]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)
    assert min(_bits(t) for t in tokens) >= 128
    assert len(set(tokens)) == len(tokens)


def test_table_tokens_are_checked_with_a_constant_time_compare(store, make_table, monkeypatch):
    table = make_table("scorepad", ["Ana"])
    calls: list[tuple[str, str]] = []
    real = secrets.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(secrets, "compare_digest", spy)
    store.table(table.token)
    store.table_by_view_token(table.view_token)
    assert (table.token, table.token) in calls
    assert (table.view_token, table.view_token) in calls


@pytest.mark.parametrize("kind", ["prefix", "one character changed", "view token", "other case"])
def test_a_near_miss_token_opens_nothing(app, make_table, phone, kind):
    table = make_table("scorepad", ["Ana"])
    token = {
        "prefix": table.token[:-1],
        "one character changed": table.token[:-1] + ("A" if table.token[-1] != "A" else "B"),
        "view token": table.view_token,
        "other case": table.token.swapcase()
        if table.token.swapcase() != table.token
        else table.token + "x",
    }[kind]
    for path in ("", "/board", "/poll", "/history", "/export.json", "/export.csv", "/join"):
        response = phone.get(f"/t/{token}{path}")
        assert response.status_code == 404, (path, response.status_code)
        assert table.title not in response.get_data(as_text=True)


# --- join codes -------------------------------------------------------------


def test_wrong_join_codes_are_rate_limited_per_address_even_for_a_right_code_after(
    app, store, make_table, client
):
    table = make_table("scorepad", ["Ana"])
    code, _ = store.join_code(table.token, 60)
    # A code that locates no live code (its first half differs): a miss of this
    # address only, not one against the table's code (issue 23).
    wrong = ("QQ" if not code.startswith("QQ") else "RR") + "QQQ"
    for _ in range(ratelimit.MAX_FAILURES):
        assert client.get(f"/join?code={wrong}").status_code == 404
    blocked = client.get(f"/join?code={code}")
    assert blocked.status_code == 429
    assert "Too many wrong codes" in blocked.get_data(as_text=True)
    assert client.get(f"/j/{code}", follow_redirects=True).status_code == 429
    # Another address is not blocked by this one's guesses.
    other = client.get(f"/join?code={code}", environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 303
    assert other.headers["Location"].endswith(f"/t/{table.token}")


def test_the_join_limit_lifts_after_its_window(app, store, make_table, client, monkeypatch):
    table = make_table("scorepad", ["Ana"])
    code, _ = store.join_code(table.token, 60)
    clock = [1_000_000.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: clock[0])
    wrong = ("QQ" if not code.startswith("QQ") else "RR") + "QQQ"
    for _ in range(ratelimit.MAX_FAILURES):
        client.get(f"/join?code={wrong}")
    assert client.get(f"/join?code={code}").status_code == 429
    clock[0] += ratelimit.WINDOW_SECONDS + 1
    assert client.get(f"/join?code={code}").status_code == 303


def test_a_join_code_stops_working_when_it_expires_and_a_fresh_one_replaces_it(
    app, store, make_table, client, monkeypatch
):
    table = make_table("scorepad", ["Ana"])
    minutes = app.config["JOIN_CODE_MINUTES"]
    code, expires = store.join_code(table.token, minutes)
    assert client.get(f"/join?code={code}").status_code == 303

    later = expires + timedelta(seconds=1)
    monkeypatch.setattr(models, "_now", lambda: later)
    expired = client.get(f"/join?code={code}")
    assert expired.status_code == 404
    assert "expire" in expired.get_data(as_text=True)
    fresh, fresh_expires = store.join_code(table.token, minutes)
    assert fresh != code
    assert fresh_expires > later
    assert client.get(f"/join?code={fresh}").status_code == 303


def test_join_codes_are_valid_for_a_bounded_time(app, store, make_table):
    table = make_table("scorepad", ["Ana"])
    _, expires = store.join_code(table.token, app.config["JOIN_CODE_MINUTES"])
    assert expires - store_module._now() <= timedelta(hours=12)


# --- headers ----------------------------------------------------------------


def _get_everything(app: Any, store: Any, table: Any, phone: Any) -> list[tuple[str, Any]]:
    code, _ = store.join_code(table.token, 60)
    values = _argument_values(app, table, code)
    responses = []
    for rule in _routes(app, "GET"):
        url = _url(app, rule, values)
        for htmx in (False, True):
            responses.append((url, phone.get(url, htmx=htmx)))
    responses.append(("/nowhere", phone.get("/nowhere")))
    responses.append(("/t/bad-token", phone.get("/t/not-a-real-token-at-all")))
    responses.append(("csrf", phone.client.post(f"/t/{table.token}/act", data={})))
    responses.append(("405", phone.client.put(f"/t/{table.token}/act")))
    return responses


def test_every_response_carries_the_security_headers(app, store, make_table, phone):
    table = make_table("scorepad", ["Ana", "Ben"])
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2]})
    for url, response in _get_everything(app, store, table, phone):
        headers = response.headers
        csp = headers.get("Content-Security-Policy", "")
        directives = dict(
            (part.split(" ", 1) + [""])[:2] for part in (p.strip() for p in csp.split(";")) if part
        )
        assert directives.get("script-src") == "'self'", (url, csp)
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, url
        assert directives.get("frame-ancestors") == "'none'", url
        assert directives.get("object-src") == "'none'", url
        assert headers.get("X-Content-Type-Options") == "nosniff", url
        assert headers.get("Referrer-Policy") == "no-referrer", url  # tokens live in URLs
        assert headers.get("X-Frame-Options") == "DENY", url


INLINE_HANDLER = re.compile(r"<[^>]*\s(on[a-z]+|hx-on[:\w-]*)\s*=", re.I)


def test_no_page_has_inline_script_or_inline_event_handlers(app, store, make_table, phone):
    table = make_table("scorepad", ["Ana", "Ben"])
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2]})
    for url, response in _get_everything(app, store, table, phone):
        if response.mimetype != "text/html":
            continue
        html = response.get_data(as_text=True)
        for tag in re.findall(r"<script\b[^>]*>", html, re.I):
            assert re.search(r'\ssrc="/static/', tag), (url, tag)
        assert not re.search(r"<script\b[^>]*>(?!</script>)", html, re.I), url
        assert not INLINE_HANDLER.search(html), (url, INLINE_HANDLER.search(html))
        assert "javascript:" not in html.lower(), url


def test_exports_are_downloads_not_pages(app, store, make_table, phone):
    table = make_table("scorepad", ["Ana"])
    for path, mimetype in (("export.json", "application/json"), ("export.csv", "text/csv")):
        response = phone.get(f"/t/{table.token}/{path}")
        assert response.mimetype == mimetype
        assert response.headers["Content-Disposition"].startswith("attachment;")
        assert response.headers["X-Content-Type-Options"] == "nosniff"


# --- the session key ----------------------------------------------------------


def test_the_session_key_is_generated_once_into_the_instance_folder(tmp_path):
    instance = tmp_path / "instance"
    config = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "INSTANCE_PATH": instance}
    first = create_app(dict(config))
    key_file = instance / "secret_key"
    assert key_file.is_file()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert first.config["SECRET_KEY"] == key_file.read_text().strip()
    assert len(bytes.fromhex(first.config["SECRET_KEY"])) >= 32
    second = create_app(dict(config))
    assert second.config["SECRET_KEY"] == first.config["SECRET_KEY"]

    elsewhere = create_app({**config, "INSTANCE_PATH": tmp_path / "other"})
    assert elsewhere.config["SECRET_KEY"] != first.config["SECRET_KEY"]
    for application in (first, second, elsewhere):
        application.extensions["leafpile_store"].engine.dispose()


def test_workers_starting_together_on_a_fresh_folder_share_one_key(tmp_path):
    from companion.app import _secret_key

    for attempt in range(5):
        folder = tmp_path / f"fresh{attempt}"
        folder.mkdir()
        barrier = threading.Barrier(6)
        keys: list[str] = []

        def start(
            folder: Path = folder, barrier: threading.Barrier = barrier, keys: list[str] = keys
        ) -> None:
            barrier.wait()
            keys.append(_secret_key(folder))

        threads = [threading.Thread(target=start) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(keys) == 6 and len(set(keys)) == 1
        assert sorted(p.name for p in folder.iterdir()) == ["secret_key"]


def test_no_session_key_is_written_in_the_source():
    pattern = re.compile(r"""SECRET_KEY["']?\s*[\]=:,]\s*["'][^"']+["']""")
    for path in list((ROOT / "companion").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not pattern.search(text), path


# --- debug mode and the banner ---------------------------------------------


class _FakeServer:
    def __init__(self, app: Flask, options: dict[str, Any]) -> None:
        self.app = app
        self.options = options

    def serve_forever(self) -> None:
        raise KeyboardInterrupt


def _serve(monkeypatch, tmp_path, host: str, lan: str | None) -> tuple[_FakeServer, str, int]:
    """The launcher serving on a port free at the moment (a fixed one was
    taken now and then by a test of another xdist worker), with a fake
    server; the served app, the banner, the port."""
    made: list[_FakeServer] = []
    with socket.socket() as probe:
        probe.bind((host, 0))
        port = probe.getsockname()[1]

    def fake_stream_server(listener: Any, app: Flask) -> _FakeServer:
        made.append(_FakeServer(app, {"port": listener.getsockname()[1]}))
        listener.close()
        return made[-1]

    out = io.StringIO()
    monkeypatch.setenv("FLASK_DEBUG", "1")
    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.setenv("LEAFPILE_DATABASE_URL", f"sqlite:///{tmp_path / 'serve.sqlite3'}")
    monkeypatch.delenv("LEAFPILE_PUBLIC_URL", raising=False)
    monkeypatch.setattr(server_module, "stream_server", fake_stream_server)
    monkeypatch.setattr(server_module, "cooperative", lambda: None)  # never gevent in pytest
    monkeypatch.setattr(server_module, "lan_address", lambda: lan)
    monkeypatch.setattr(server_module.sys, "stdout", out)
    assert server_module.serve(host=host, port=port) == 0
    made[0].app.extensions["leafpile_store"].engine.dispose()
    return made[0], out.getvalue(), port


def test_serving_the_lan_never_turns_debug_on_and_the_banner_lists_every_address(
    monkeypatch, tmp_path
):
    served, banner, port = _serve(monkeypatch, tmp_path, "0.0.0.0", "192.168.1.23")
    assert served.app.debug is False
    assert served.options["port"] == port
    assert f"http://192.168.1.23:{port}" in banner
    assert f"http://127.0.0.1:{port}" in banner
    assert f"Phones on this network: http://192.168.1.23:{port}" in banner
    assert served.app.config["PUBLIC_URL"] == f"http://192.168.1.23:{port}"


def test_the_banner_says_when_only_this_computer_can_reach_it(monkeypatch, tmp_path):
    served, banner, port = _serve(monkeypatch, tmp_path, "127.0.0.1", "192.168.1.23")
    assert served.app.debug is False
    assert "Only this computer can reach it" in banner
    assert "192.168.1.23" not in banner
    assert f"Reachable at: http://127.0.0.1:{port}" in banner


def test_the_banner_without_any_network_lists_only_loopback(monkeypatch, tmp_path):
    _, banner, port = _serve(monkeypatch, tmp_path, "0.0.0.0", None)
    assert "Only this computer can reach it" in banner
    assert f"Reachable at: http://127.0.0.1:{port}" in banner


def test_the_gunicorn_app_is_never_in_debug_mode(monkeypatch, tmp_path):
    import importlib

    monkeypatch.setenv("FLASK_DEBUG", "1")
    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.setenv("LEAFPILE_DATABASE_URL", f"sqlite:///{tmp_path / 'wsgi.sqlite3'}")
    if "companion.wsgi" in sys.modules:
        wsgi = importlib.reload(sys.modules["companion.wsgi"])
    else:
        wsgi = importlib.import_module("companion.wsgi")
    try:
        assert wsgi.app.debug is False
        assert (tmp_path / "instance" / "secret_key").is_file()
        assert wsgi.app.config["SECRET_KEY"] == (tmp_path / "instance" / "secret_key").read_text()
    finally:
        wsgi.app.extensions["leafpile_store"].engine.dispose()


def test_an_unexpected_error_shows_a_plain_page_without_a_traceback(
    app, store, make_table, phone, monkeypatch
):
    table = make_table("scorepad", ["Ana"])

    def broken(token: str) -> Any:
        raise RuntimeError("secret internals /home/host/.config")

    monkeypatch.setattr(store, "snapshot", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    app.testing = False
    response = phone.get(f"/t/{table.token}")
    body = response.get_data(as_text=True)
    assert response.status_code == 500
    assert "Nothing was changed" in body
    assert "Traceback" not in body and "secret internals" not in body
    assert response.headers["Content-Security-Policy"]


def test_the_instance_folder_comes_from_the_environment_not_the_code(monkeypatch, tmp_path):
    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path / "here"))
    monkeypatch.setenv("LEAFPILE_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite3'}")
    application = create_app()
    try:
        assert Path(application.instance_path) == tmp_path / "here"
        assert os.path.isfile(tmp_path / "here" / "secret_key")
    finally:
        application.extensions["leafpile_store"].engine.dispose()


def test_a_polled_board_never_carries_another_phones_csrf_token(
    app, store, make_table, new_client_phone
):
    # Polls of one version are rendered once per process and shared: a page
    # must still get its own token, never the first poller's, and a fragment
    # for htmx none (htmx sends the page's token as a header).
    table = make_table("scorepad", ["Ana", "Ben"])
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2]})
    phones = [new_client_phone() for _ in range(3)]
    assert len({p.csrf for p in phones}) == 3
    for htmx in (True, False):
        for phone in phones:
            body = phone.get(f"/t/{table.token}/poll?v=0", htmx=htmx).get_data(as_text=True)
            tokens = set(re.findall(r'name="csrf_token" value="([^"]+)"', body))
            tokens |= set(re.findall(r'"X-CSRF-Token": "([^"]+)"', body))
            assert tokens == (set() if htmx else {phone.csrf})
            assert not any(other.csrf in body for other in phones if other is not phone)
            assert 'data-version="1"' in body and "\x00" not in body
    # A later version is a fresh render, and every phone's token still works.
    for n, phone in enumerate(phones, start=1):
        body = phone.get(f"/t/{table.token}/poll?v=0", htmx=True).get_data(as_text=True)
        assert f'data-version="{n}"' in body
        response = phone.post(
            f"/t/{table.token}/act",
            {"version": str(n), "action": "add-round", "score0": "1", "score1": "1"},
        )
        assert response.status_code == 200
    assert store.version(table.token) == 4
