"""The session cookie's remembered verification (companion/web/sessions.py)."""

from __future__ import annotations

import pytest
from flask import Flask, session

from companion.web import sessions
from companion.web.sessions import RememberingSessionInterface


def _app(secret: str = "one key") -> Flask:
    app = Flask(__name__)
    app.secret_key = secret
    app.session_interface = RememberingSessionInterface()

    @app.get("/set")
    def set_value() -> str:
        session["device"] = "phone-a"
        session["tables"] = ["t1"]
        return "set"

    @app.get("/read")
    def read_value() -> str:
        return f"{session.get('device')} {session.get('tables')}"

    @app.get("/scribble")
    def scribble() -> str:
        session["tables"].append("t2")  # changes this request's copy in place
        return "ok"

    return app


def _cookie(app: Flask) -> str:
    client = app.test_client()
    client.get("/set")
    found = client.get_cookie("session")
    assert found is not None
    return found.value


def _read(app: Flask, cookie: str) -> str:
    client = app.test_client()
    client.set_cookie("session", cookie)
    return client.get("/read").get_data(as_text=True)


def test_a_verified_cookie_reads_the_same_the_second_time():
    app = _app()
    cookie = _cookie(app)
    assert _read(app, cookie) == "phone-a ['t1']"
    assert _read(app, cookie) == "phone-a ['t1']"


def test_an_altered_cookie_is_refused_even_just_after_the_real_one_was_verified():
    app = _app()
    cookie = _cookie(app)
    assert _read(app, cookie) == "phone-a ['t1']"
    forged = cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB")
    assert _read(app, forged) == "None None"


def test_another_secret_key_never_gets_the_remembered_contents():
    first = _app("one key")
    cookie = _cookie(first)
    assert _read(first, cookie) == "phone-a ['t1']"
    second = _app("another key")
    second.session_interface = first.session_interface  # even sharing the memory
    assert _read(second, cookie) == "None None"


def test_changing_a_session_in_place_never_changes_what_the_next_request_gets():
    app = _app()
    cookie = _cookie(app)
    assert _read(app, cookie) == "phone-a ['t1']"
    client = app.test_client()
    client.set_cookie("session", cookie)
    assert client.get("/scribble").status_code == 200
    assert _read(app, cookie) == "phone-a ['t1']"


def test_a_cookie_is_verified_again_after_a_minute(monkeypatch: pytest.MonkeyPatch):
    app = _app()
    cookie = _cookie(app)
    checked: list[str] = []
    real = sessions.SecureCookieSessionInterface.open_session

    def counting(self, app, request):  # type: ignore[no-untyped-def]
        checked.append("signature")
        return real(self, app, request)

    monkeypatch.setattr(sessions.SecureCookieSessionInterface, "open_session", counting)
    now = [1000.0]
    monkeypatch.setattr(sessions.time, "monotonic", lambda: now[0])
    _read(app, cookie)
    _read(app, cookie)
    assert len(checked) == 1
    now[0] += sessions.VERIFIED_FOR_SECONDS + 1
    _read(app, cookie)
    assert len(checked) == 2


# --- CSRF tokens (RememberingCSRFProtect) ------------------------------------


def _csrf_app(checks: list[str], monkeypatch: pytest.MonkeyPatch) -> Flask:
    from flask_wtf import csrf as flask_wtf_csrf
    from flask_wtf.csrf import generate_csrf

    from companion.web.sessions import RememberingCSRFProtect

    real = flask_wtf_csrf.validate_csrf

    def counted(data: str | None, *args: object, **kwargs: object) -> None:
        checks.append(data or "")
        real(data, *args, **kwargs)

    monkeypatch.setattr(flask_wtf_csrf, "validate_csrf", counted)
    app = _app()
    app.config["WTF_CSRF_TIME_LIMIT"] = None
    RememberingCSRFProtect(app)

    @app.get("/token")
    def token() -> str:
        return str(generate_csrf())

    @app.post("/tap")
    def tap() -> str:
        return "entered"

    return app


def _tap(client: object, token: str) -> int:
    return client.post("/tap", data={"csrf_token": token}).status_code  # type: ignore[attr-defined]


def test_a_csrf_token_that_passed_passes_again_without_the_whole_check(monkeypatch):
    checks: list[str] = []
    app = _csrf_app(checks, monkeypatch)
    client = app.test_client()
    token = client.get("/token").get_data(as_text=True)
    assert [_tap(client, token), _tap(client, token)] == [200, 200]
    assert checks == [token]  # Flask-WTF checked it once


def test_a_csrf_token_is_refused_after_its_pair_passed_when_altered_or_elsewhere(monkeypatch):
    checks: list[str] = []
    app = _csrf_app(checks, monkeypatch)
    client = app.test_client()
    token = client.get("/token").get_data(as_text=True)
    assert _tap(client, token) == 200
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert _tap(client, forged) == 400
    assert _tap(client, "") == 400
    other = app.test_client()  # another phone's session: the same token is not its pair
    other.get("/token")
    assert _tap(other, token) == 400
    assert _tap(client, token) == 200


def test_a_csrf_token_is_checked_again_after_a_minute(monkeypatch):
    checks: list[str] = []
    app = _csrf_app(checks, monkeypatch)
    client = app.test_client()
    token = client.get("/token").get_data(as_text=True)
    clock = [1000.0]
    monkeypatch.setattr(sessions.time, "monotonic", lambda: clock[0])
    assert _tap(client, token) == 200
    clock[0] += sessions.VERIFIED_FOR_SECONDS + 1
    assert _tap(client, token) == 200
    assert checks == [token, token]
