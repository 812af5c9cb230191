"""A database that does not answer: 503 with ``Retry-After``, never a 500;
and a ``Host`` header no URL can be built for: 400, never a 500.

PostgreSQL restarting or in recovery, a connection refused or cut, a pool
with no connection free in time, a SQLite file locked past its wait: none
of these is a fault of the request, and each passes within seconds. So the
app answers them ``503 Service Unavailable`` with ``Retry-After``, which a
phone's queue (``static/app.js``) keeps and sends again by the tap's id (a
tap is entered once however often it is sent), instead of the 500 that
made a phone drop the tap (issue 42).

:func:`database_unavailable` is the one test of "is this an outage"; the
app's error handler (``companion.web._server_error``) and
:class:`OutageGuard`, in front of the parts that answer before Flask (the
change streams), both use it, so every route answers an outage the same way.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from sqlalchemy import exc as sa

from companion.rules.messages import marked

from .i18n import catalog_before_flask

#: Seconds a phone waits before it asks again (``Retry-After``): a database
#: restart or a failover takes a few.
RETRY_AFTER_SECONDS = 3

#: The words every outage answer says, for people and for the phone's queue
#: (marked: the bare answer below says them in the phone's language).
WAITING = marked(
    "Waiting for the table: the host's database is not answering just now (it may be restarting)."
)
TRY_AGAIN = marked("Try again in a few seconds.")

_log = logging.getLogger("companion.outage")

# PostgreSQL SQLSTATEs that pass by themselves: a connection lost or refused
# (class 08), too many connections or no memory (53), the server shutting
# down, starting up or in recovery (57P), a statement cancelled by a
# timeout (57014), a read-only transaction after a failover (25006), and a
# transaction rolled back for a conflict or deadlock (40001, 40P01): each is
# safe to send again, since a tap is entered once.
_PASSING_CLASSES = ("08", "53", "57P")
_PASSING_STATES = frozenset({"57014", "25006", "40001", "40P01"})

# SQLite's result codes for a file that is busy or cannot be reached now:
# BUSY, LOCKED, READONLY, IOERR, FULL, CANTOPEN (not for a statement that is
# wrong: "no such table" stays a 500, a bug).
_SQLITE_PASSING = frozenset({5, 6, 8, 10, 13, 14})


def database_unavailable(error: BaseException | None) -> bool:
    """Whether ``error`` (or what caused it) is the database not answering now.

    True for SQLAlchemy's pool timeout and lost connections, for
    ``OperationalError`` and ``InterfaceError`` from the driver (through
    SQLAlchemy or straight from it: the hot reads use the driver's own
    cursor), judged by PostgreSQL's SQLSTATE or SQLite's message when
    there is one; False for everything else, which stays a 500.
    """
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if _passes(error):
            return True
        error = error.__cause__ or error.__context__
    return False


def _passes(error: BaseException) -> bool:
    if isinstance(error, (sa.TimeoutError, sa.DisconnectionError)):
        return True
    if isinstance(error, sa.DBAPIError):
        if error.connection_invalidated:
            return True
        if error.orig is not None:
            return _driver_passes(error.orig)
        return isinstance(error, (sa.OperationalError, sa.InterfaceError))
    return _driver_passes(error)


def _driver_passes(error: BaseException) -> bool:
    """A driver's own exception (PEP 249 names), judged as precisely as it allows."""
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        return isinstance(code, int) and code & 0xFF in _SQLITE_PASSING  # the primary code
    kinds = {kind.__name__ for kind in type(error).__mro__}
    if not kinds & {"OperationalError", "InterfaceError", "InternalError"}:
        return False
    state = getattr(error, "sqlstate", None)
    if isinstance(state, str) and state:
        return state.startswith(_PASSING_CLASSES) or state in _PASSING_STATES
    # No SQLSTATE: the client library lost or never got its connection
    # (refused, reset, closed), which is what an outage looks like.
    return "InternalError" not in kinds


def note(error: BaseException) -> None:
    """One line in the log per outage answer (not a traceback a request)."""
    cause = error
    while cause.__cause__ is not None:
        cause = cause.__cause__
    first = (str(cause).strip().splitlines() or [""])[0][:200]
    _log.warning("database unavailable, answered 503: %s: %s", type(cause).__name__, first)


StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class OutageGuard:
    """WSGI middleware, outermost of the app's own: an outage met by a part
    that answers before Flask (a change stream opening) is a plain 503 with
    ``Retry-After``, as Flask's error handler answers it everywhere else."""

    def __init__(self, inner: WSGIApp) -> None:
        self.inner = inner

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        try:
            return self.inner(environ, start_response)
        except Exception as error:
            if not database_unavailable(error):
                raise
            note(error)
            body = waiting_words(environ).encode()
            start_response(
                "503 Service Unavailable",
                [
                    ("Content-Type", "text/plain; charset=utf-8"),
                    ("Content-Length", str(len(body))),
                    ("Retry-After", str(RETRY_AFTER_SECONDS)),
                    ("Cache-Control", "no-store"),
                ],
            )
            return [body]


def waiting_words(environ: dict[str, Any]) -> str:
    """The outage answer's words in the phone's language (its remembered
    choice, else its browser's), read from the request as it came: no
    database and no Flask, which may be what is not answering."""
    words = catalog_before_flask(environ)
    return f"{words.gettext(WAITING)} {words.gettext(TRY_AGAIN)}\n"


UNKNOWN_HOST = marked(
    "This address's host name is not one this server can answer: check the address."
)


@lru_cache(maxsize=256)  # every request asks; a server is called by a handful of names
def host_is_sound(host: str) -> bool:
    """Whether a ``Host`` header names a host werkzeug can route for.

    Its name (before the first colon, as werkzeug splits it) must go through
    IDNA both ways: an empty or 64-character label, or a bad ``xn--`` label,
    made werkzeug's ``BadHost`` and then a 500 from the error page, which
    could build no URL without a routing adapter (issue 42). No header at
    all is sound (werkzeug then uses the server's own name).
    """
    name = host.partition(":")[0]
    if not name:
        return not host
    try:
        ascii_name = name.encode("idna").decode("ascii")
        ascii_name.encode("ascii").decode("idna")
    except UnicodeError:
        return False
    return True


class SoundHostGuard:
    """WSGI middleware: a request whose ``Host`` no URL can be built for is a
    plain 400, before anything routes it (Flask, the streams, the board fetches)."""

    def __init__(self, inner: WSGIApp) -> None:
        self.inner = inner

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if host_is_sound(environ.get("HTTP_HOST", "")):
            return self.inner(environ, start_response)
        words = catalog_before_flask(environ)
        body = f"{words.gettext(UNKNOWN_HOST)}\n".encode()
        start_response(
            "400 Bad Request",
            [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", str(len(body))),
                ("Cache-Control", "no-store"),
            ],
        )
        return [body]
