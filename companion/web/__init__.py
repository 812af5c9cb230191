"""Flask wiring: the store, CSRF, security headers, errors and blueprints."""

from __future__ import annotations

import importlib
import secrets
from typing import Any

from flask import Flask, abort, current_app, g, render_template, request, session
from werkzeug.exceptions import HTTPException

from companion.tables import games
from companion.tables.store import Store

from . import games as screens

# One module a blueprint; each defines ``bp``. Add a line to register one.
BLUEPRINTS = (
    "home",
    "table",
    "achievements",
    "print",
    "solitaire_pages",
)

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    )
)


def store() -> Store:
    """The app's store (one per app, shared across threads)."""
    return current_app.extensions["leafpile_store"]  # type: ignore[no-any-return]


def sentence(message: str) -> str:
    """A message as a sentence: first letter capital, the rest untouched."""
    message = message.strip()
    return message[:1].upper() + message[1:]


def csrf_token() -> str:
    token = session.get(CSRF_FIELD)
    if not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
        session.permanent = True
    return str(token)


def _check_csrf() -> None:
    if request.method != "POST":
        return
    sent = request.form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER) or ""
    expected = session.get(CSRF_FIELD) or ""
    if not expected or not secrets.compare_digest(str(sent), str(expected)):
        g.csrf_failed = True
        abort(403)


def _security_headers(response: Any) -> Any:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if request.headers.get("HX-Request"):
        response.headers.setdefault("Cache-Control", "no-store")
    response.vary.add("HX-Request")
    return response


def _error_page(error: HTTPException) -> Any:
    status = error.code or 500
    if status == 403 and g.get("csrf_failed"):
        message = "This page had gone stale, so nothing was changed. Reload the page and try again."
    elif status == 404:
        message = "There is nothing here. The link may be mistyped, or the table was deleted."
    elif status == 405:
        message = "That address does not take this kind of request."
    elif status == 413:
        message = "That was far more data than any form here sends."
    else:
        message = error.description or "Something went wrong."
    template = "_error_fragment.html" if request.headers.get("HX-Request") else "error.html"
    return render_template(template, status=status, message=message), status


def _server_error(error: Exception) -> Any:
    current_app.logger.exception("unexpected error", exc_info=error)
    message = "Something went wrong on the host's computer. Nothing was changed; try again."
    return render_template("error.html", status=500, message=message), 500


def init_web(app: Flask) -> None:
    app.extensions["leafpile_store"] = Store(app.config["DATABASE_URL"])
    # Flask's defaults hold these keys already (as None), so setdefault would
    # never apply them: fill in only what no configuration chose.
    for key, value in (
        ("MAX_CONTENT_LENGTH", 2 * 1024 * 1024),
        ("SESSION_COOKIE_SAMESITE", "Lax"),
        ("SESSION_COOKIE_HTTPONLY", True),
    ):
        if app.config.get(key) is None:
            app.config[key] = value
    # Phones poll every 2 s: re-signing and re-sending the session cookie on
    # each poll costs time and bytes for nothing (it is sent when it changes).
    app.config["SESSION_REFRESH_EACH_REQUEST"] = False
    games.load()
    screens.load()
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["csrf_field"] = CSRF_FIELD
    app.before_request(_check_csrf)
    app.after_request(_security_headers)
    app.register_error_handler(HTTPException, _error_page)
    app.register_error_handler(Exception, _server_error)
    for name in BLUEPRINTS:
        module = importlib.import_module(f"{__name__}.{name}")
        app.register_blueprint(module.bp)
