"""Flask wiring: the store, CSRF, security headers, compression, static files,
rate limits, errors and blueprints.

The plumbing is well-kept libraries: Flask-WTF's CSRFProtect, Flask-Limiter
(see :mod:`.ratelimit`) and Flask-Compress. The security headers are five
fixed lines below rather than flask-talisman: its other features (HTTPS
redirects, HSTS) belong to the TLS proxy in front (``deploy/``), and the CSP
here never varies by page.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import stat
from pathlib import Path
from typing import Any

from flask import (
    Flask,
    Response,
    current_app,
    g,
    render_template,
    request,
    send_from_directory,
    session,
)
from flask.globals import request_ctx
from flask_compress import Compress
from flask_wtf.csrf import CSRFError, generate_csrf
from werkzeug.exceptions import Forbidden, HTTPException
from werkzeug.security import safe_join

from companion.rules.messages import Message, marked
from companion.tables import games
from companion.tables.store import Store
from companion.version import leafpile_version

from . import games as screens
from .i18n import for_this_phone, gettext, init_i18n, words
from .names import short_names
from .outage import (
    RETRY_AFTER_SECONDS,
    OutageGuard,
    SoundHostGuard,
    database_unavailable,
    note,
)
from .ratelimit import init_limits_before_flask, limiter
from .routing import remember_matches
from .sessions import RememberingCSRFProtect, RememberingSessionInterface
from .stream import init_stream
from .words import for_players, with_article, without_ids

# One module a blueprint; each defines ``bp``. Add a line to register one.
BLUEPRINTS = (
    "home",
    "table",
    "achievements",
    "print",
    "solitaire_pages",
    "help",
    "end",
    "records",
    "rematch",
    "exports",
)

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
_SIGNED_CSRF = "csrf_signed"  # the session's signed token, so every page shows the same one

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

# A year: a static file's URL names its content, so a changed file is a new URL.
STATIC_MAX_AGE = 365 * 24 * 3600

csrf = RememberingCSRFProtect()  # Flask-WTF's, remembering passed tokens (sessions.py)
compress = Compress()


def store() -> Store:
    """The app's store (one per app, shared across threads)."""
    return current_app.extensions["leafpile_store"]  # type: ignore[no-any-return]


def sentence(message: str | Message) -> str:
    """A message as a sentence for a player: first letter capital, a full
    stop at the end, no ruling ids, agreeing articles (see ``words``), in
    this phone's language (``i18n.py``: a message value is worded in it)."""
    return for_this_phone(words(message))


def has_csrf_token() -> bool:
    """Whether this session already holds its CSRF token (a page gave it one)."""
    return bool(session.get(_SIGNED_CSRF) and session.get(CSRF_FIELD))


def csrf_token() -> str:
    """This session's CSRF token, the same on every page of the session.

    Flask-WTF signs its token afresh (with a timestamp) on each request; one
    signed token kept in the session lets boards rendered once and shared by
    many phones carry each phone's own token unchanged. Tokens never expire
    (``WTF_CSRF_TIME_LIMIT`` is off): a table stays open on a phone all evening.
    """
    signed = session.get(_SIGNED_CSRF)
    if not signed or not session.get(CSRF_FIELD):
        signed = generate_csrf()  # also creates the session's secret half
        session[_SIGNED_CSRF] = signed
        session.permanent = True
    return str(signed)


def _csrf_refused(error: CSRFError) -> Any:
    g.csrf_failed = True
    return _error_page(Forbidden())


def security_headers() -> list[tuple[str, str]]:
    """The headers every answer carries (``board_fetch`` sends them too)."""
    return [
        ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]


def _security_headers(response: Any) -> Any:
    for name, value in security_headers():
        response.headers.setdefault(name, value)
    if response.status_code == 503:
        # Every 503 says when to ask again (a view's own, such as a write that
        # could not learn whether its tap went in, included): the phone's
        # queue waits that long before it sends the tap again.
        response.headers.setdefault("Retry-After", str(RETRY_AFTER_SECONDS))
        response.headers.setdefault("Cache-Control", "no-store")
    # Pages differ per browser (its own tables, its seat): no shared cache keeps one.
    if request.headers.get("HX-Request") or response.mimetype == "text/html":
        response.headers.setdefault("Cache-Control", "no-store")
    response.vary.add("HX-Request")
    return response


#: What an error page says, by status; any other status says SOMETHING_WRONG.
STALE_PAGE = marked(
    "This page had gone stale, so nothing was changed. Reload the page and try again."
)
NOTHING_HERE = marked("There is nothing here. The link may be mistyped, or the table was deleted.")
WRONG_METHOD = marked("That address does not take this kind of request.")
FAR_TOO_LARGE = marked("That was far more data than any form here sends.")
IMPORT_TOO_LARGE = marked("That file is larger than %(kb)s KB: it is not a Leafpile table export.")
UNREADABLE = marked("This server could not read that request. Reload the page and try again.")
SOMETHING_WRONG = marked("Something went wrong.")
WAIT_A_MINUTE = marked("Wait a minute, then try again.")
_SAID_BY_STATUS = {400: UNREADABLE, 404: NOTHING_HERE, 405: WRONG_METHOD, 413: FAR_TOO_LARGE}


def _error_page(error: HTTPException) -> Any:
    status = error.code or 500
    if request_ctx.url_adapter is None:
        # Routing failed before it began (werkzeug's BadHost): no page can be
        # drawn, since its links need the adapter; the words alone, plainly.
        return Response(f"{gettext(UNREADABLE)}\n", status, mimetype="text/plain")
    retry_after = getattr(error, "retry_after", None)
    if status == 403 and g.get("csrf_failed"):
        message = gettext(STALE_PAGE)
    elif status == 413 and request.endpoint == "home.import_table":
        # A file too large to be an export is a malformed import like any other.
        # Refused by its length before it was read: the start page says so.
        from .home import import_refused
        from .imports import MAX_IMPORT_BYTES

        return import_refused(gettext(IMPORT_TOO_LARGE, kb=MAX_IMPORT_BYTES // 1024))
    elif status == 429:
        message = _too_many(error, retry_after)
    elif status == 500 and database_unavailable(getattr(error, "original_exception", None)):
        # An outage met after the view (Flask wraps it in a 500): a 503 all the same.
        return _database_unavailable(error.original_exception)  # type: ignore[attr-defined]
    elif status in _SAID_BY_STATUS:
        message = gettext(_SAID_BY_STATUS[status])
    else:
        message = gettext(_own_words(error) or SOMETHING_WRONG)
    template = "_error_fragment.html" if request.headers.get("HX-Request") else "error.html"
    headers = {}
    if status in (429, 503) and retry_after:
        headers["Retry-After"] = str(retry_after)
    return render_template(template, status=status, message=message), status, headers


def _own_words(error: HTTPException) -> str | None:
    """The marked words of one of the app's own refusals (``worded``: the job
    slots' in costly.py); None for werkzeug's, whose English descriptions
    no catalog holds."""
    return error.description if getattr(error, "worded", False) else None


def _too_many(error: HTTPException, retry_after: int | None) -> str:
    """A 429's words. To the phone's script (htmx) only what was refused:
    the script adds when to try again from ``Retry-After``, in the phone's
    own words (``static/app.js``), as for the refusals made before Flask."""
    from .ratelimit import SECONDS, TOO_MANY, TRY_AGAIN_IN

    said = gettext(_own_words(error) or TOO_MANY)
    if request.headers.get("HX-Request"):
        return said
    if not retry_after:
        return f"{said} {gettext(WAIT_A_MINUTE)}"
    return f"{said} {gettext(TRY_AGAIN_IN, wait=gettext(SECONDS, s=retry_after))}"


def _server_error(error: Exception) -> Any:
    if database_unavailable(error):
        return _database_unavailable(error)
    current_app.logger.exception("unexpected error", exc_info=error)
    return render_template("error.html", status=500, message=_what_happened_to_the_tap()), 500


def _database_unavailable(error: BaseException) -> Any:
    """503 + Retry-After for a database that does not answer (see :mod:`.outage`).

    A tap is not said to be entered or not: the database cannot be asked, and
    a commit may have reached it just before the connection went. The
    phone's queue sends it again by its tap id, which enters it once."""
    note(error)
    if request.method in ("GET", "HEAD"):
        then = gettext("Nothing was changed. Try again in a few seconds.")
    elif request.headers.get("HX-Request"):
        then = gettext(
            "Your phone sends the tap again by itself as soon as the table answers; "
            "a tap sent twice is still entered once."
        )
    else:
        then = gettext(
            "Go back and send it again in a few seconds; a tap sent twice is entered once."
        )
    # WAITING's words, in this phone's language (outage.py's bare WSGI answer has none).
    waiting = gettext(
        "Waiting for the table: the host's database is not answering just now "
        "(it may be restarting)."
    )
    template = "_error_fragment.html" if request.headers.get("HX-Request") else "error.html"
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
    return render_template(template, status=503, message=f"{waiting} {then}"), 503, headers


def healthz() -> tuple[str, int, dict[str, str]]:
    """For a proxy, a load balancer, a supervisor or a script: 200 ``ok`` when
    the database answers a trivial query, else 503 with ``Retry-After``. No
    session, no template, no rate limit."""
    plain = {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"}
    try:
        store().ping()
    except Exception as error:
        if not database_unavailable(error):
            raise
        note(error)
        plain["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return "the database does not answer\n", 503, plain
    return "ok\n", 200, plain


def _what_happened_to_the_tap() -> str:
    """The truth about a failed request: a GET changed nothing; a tap carrying
    an id is looked up in the table's log; otherwise we say we do not know."""
    if request.method in ("GET", "HEAD"):
        return gettext(
            "Something went wrong on the host's computer. Nothing was changed; try again."
        )
    token = (request.view_args or {}).get("token")
    tap = request.form.get("tap", "")
    if isinstance(token, str) and tap:
        try:
            entered = store().tap_entered(token, tap)
        except Exception:  # the database itself may be what failed
            entered = None
        if entered is True:
            return gettext(
                "Something went wrong on the host's computer. "
                "Your tap was entered all the same: reload the table to see it."
            )
        if entered is False:
            return gettext(
                "Something went wrong on the host's computer. "
                "Your tap was not entered; reload the table and try again."
            )
    return gettext(
        "Something went wrong on the host's computer. It is not known whether your tap "
        "was entered: reload the table and look before you tap again."
    )


def _content_hash(name: str) -> str | None:
    """The first 12 hex digits of a static file's SHA-256: None if ``name``
    is no file of the static folder (a folder such as ".", a path out of
    it, nothing at all), whose URL then stays as it was asked for. The
    path is checked as serving checks it (werkzeug's ``safe_join``): a string
    check, with no look at the disk on every page's URLs but the one stat."""
    path = safe_join(current_app.static_folder or "", name)
    if path is None:
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    key = (name, info.st_mtime_ns, info.st_size)
    found = _HASHES.get(key)
    if found is None:
        found = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
        _HASHES[key] = found
    return found


_HASHES: dict[tuple[str, int, int], str] = {}
_HASHED_NAME = re.compile(r"(?P<stem>.+)\.(?P<hash>[0-9a-f]{12})(?P<ext>\.[A-Za-z0-9]+)")


def _hashed_static_urls(endpoint: str, values: dict[str, Any]) -> None:
    """``url_for('static', filename='app.css')`` names the content: ``app.<hash>.css``."""
    if endpoint != "static" or "filename" not in values:
        return
    name = values["filename"]
    digest = _content_hash(name)
    if digest:
        stem, dot, ext = name.rpartition(".")
        values["filename"] = f"{stem}.{digest}.{ext}" if dot else f"{name}.{digest}"


def _static_file(filename: str) -> Any:
    """A content-named file is cached for a year; a plain name is revalidated each time."""
    folder = current_app.static_folder or ""
    named = _HASHED_NAME.fullmatch(filename)
    if named:
        real = named["stem"] + named["ext"]
        if _content_hash(real) == named["hash"]:
            response = send_from_directory(folder, real, max_age=STATIC_MAX_AGE)
            response.cache_control.public = True
            response.cache_control.immutable = True
            return response
    return send_from_directory(folder, filename, max_age=0)


def _private_instance_folder(app: Flask) -> None:
    """The instance folder holds the session key and the database: owner only."""
    folder = Path(app.instance_path)
    getuid = getattr(os, "getuid", None)  # POSIX only: on Windows the folder keeps its ACL
    if getuid is None:
        return
    try:
        if folder.stat().st_uid == getuid():
            folder.chmod(0o700)
    except OSError:
        pass  # a folder the admin made read-only for us: their choice


def init_web(app: Flask) -> None:
    _private_instance_folder(app)
    app.extensions["leafpile_store"] = Store(
        app.config["DATABASE_URL"],
        pool_size=app.config.get("DATABASE_POOL"),
        make_schema=app.config.get("DATABASE_MAKE_SCHEMA", True),
    )
    # Flask's defaults hold these keys already (as None), so setdefault would
    # never apply them: fill in only what no configuration chose.
    for key, value in (
        ("MAX_CONTENT_LENGTH", 2 * 1024 * 1024),
        ("SESSION_COOKIE_SAMESITE", "Lax"),
        ("SESSION_COOKIE_HTTPONLY", True),
    ):
        if app.config.get(key) is None:
            app.config[key] = value
    # Phones fetch their board on every change: re-signing and re-sending the session cookie on
    # each poll costs time and bytes for nothing (it is sent when it changes).
    app.config["SESSION_REFRESH_EACH_REQUEST"] = False
    app.session_interface = RememberingSessionInterface()
    defaults: tuple[tuple[str, object], ...] = (
        # The per-client limits (see ratelimit.py) are on, except in the test
        # suite's app, whose tests make dozens of tables from one address.
        ("LEAFPILE_RATE_LIMITS", not app.testing),
        ("WTF_CSRF_FIELD_NAME", CSRF_FIELD),
        ("WTF_CSRF_HEADERS", [CSRF_HEADER, "X-CSRFToken"]),
        ("WTF_CSRF_TIME_LIMIT", None),
        # Flask-WTF also wants a same-site Referer on HTTPS, but our pages send
        # none (Referrer-Policy: no-referrer keeps table tokens out of other
        # sites' logs); the token and the SameSite cookie are the protection.
        ("WTF_CSRF_SSL_STRICT", False),
        ("COMPRESS_ALGORITHM", ["br", "gzip"]),
        ("COMPRESS_ALGORITHM_STREAMING", ["br", "deflate"]),
        ("COMPRESS_MIMETYPES", _COMPRESSED_TYPES),
    )
    for name, setting in defaults:
        app.config.setdefault(name, setting)
    games.load()
    screens.load()
    # The rate limits first: a client over its limit is refused before its
    # request's form (up to 2 MB of an import) is read for the CSRF check
    # (issue 23: a flood of refused imports was parsed one by one).
    limiter.init_app(app)  # it also caps an import's length (ratelimit._not_limited)
    csrf.init_app(app)
    compress.init_app(app)
    app.jinja_env.globals["csrf_token"] = csrf_token
    # Flask-WTF also puts its own csrf_token (freshly timestamped) in every
    # template's context, which beats the global: a polled board then carried
    # a token the poll cache did not recognise, and other phones got it.
    app.context_processor(lambda: {"csrf_token": csrf_token})
    app.jinja_env.globals["csrf_field"] = CSRF_FIELD
    app.jinja_env.globals["leafpile_version"] = leafpile_version()  # base.html's footer
    app.jinja_env.filters["for_players"] = for_players
    app.jinja_env.filters["short_names"] = short_names
    app.jinja_env.filters["with_article"] = with_article
    app.jinja_env.filters["without_ids"] = without_ids
    init_i18n(app)  # each phone its language; for_players in that language (i18n.py)
    app.view_functions["static"] = _static_file
    app.url_defaults(_hashed_static_urls)
    app.after_request(_security_headers)
    app.register_error_handler(CSRFError, _csrf_refused)
    app.register_error_handler(HTTPException, _error_page)
    from .costly import register_cheap_refusals

    register_cheap_refusals(app)  # a job slot's refusals without a page (issue 42)
    app.register_error_handler(Exception, _server_error)
    app.add_url_rule("/healthz", "healthz", healthz, methods=["GET"])
    for name in BLUEPRINTS:
        module = importlib.import_module(f"{__name__}.{name}")
        app.register_blueprint(module.bp)
    remember_matches(app)  # every route is in: no per-request garbage (routing.py)
    from .board_fetch import init_board_fetches  # it reads the views: after them

    init_board_fetches(app)  # a phone's board fetch, in front of Flask (board_fetch.py)
    init_stream(app)  # the phones' change streams, in front of Flask (stream.py)
    init_limits_before_flask(app)  # a flood's refusals, before Flask (ratelimit.py)
    # Outermost of ours: an outage met before Flask (a stream opening) is a 503 too,
    # and a Host header no URL can be built for is a 400 before anything routes it.
    app.wsgi_app = OutageGuard(app.wsgi_app)  # type: ignore[method-assign]
    app.wsgi_app = SoundHostGuard(app.wsgi_app)  # type: ignore[method-assign]


_COMPRESSED_TYPES = [
    "text/html",
    "text/css",
    "text/plain",
    "text/csv",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
]
