"""Per-client rate limits: Flask-Limiter, counting in the app's own database.

Every gunicorn worker (and every machine on one PostgreSQL) must see the same
counts, or a client could multiply its allowance by the number of workers.
Flask-Limiter's shared stores are Redis, Memcached or MongoDB: one more
server to run and secure for a few writes a minute. The app already has a
database that every worker shares, so the counts live there, in the
``rate_limits`` table (one atomic upsert a limited request). Only costly or
guessable routes are limited, so polls never touch it.

The numbers are the constants below, per client address (behind a proxy,
``LEAFPILE_PROXY_HOPS`` makes that the phone's address, not the proxy's);
docs/deploying.md lists them for people.
"""

from __future__ import annotations

import html
import math
import random
import re
import secrets
import time
from collections.abc import Callable
from threading import Lock
from typing import Any, TypeVar

from flask import current_app, has_app_context, has_request_context, request
from flask_limiter import Limiter, RequestLimit
from limits import RateLimitItemPerMinute
from limits.storage import Storage
from limits.strategies import FixedWindowRateLimiter
from sqlalchemy import Float, String, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Mapped, mapped_column
from werkzeug.exceptions import TooManyRequests

from companion.rules.messages import marked
from companion.tables.store import Base

# --- the numbers ------------------------------------------------------------------

#: New tables (the start page's forms and new solitaire deals). A host starts a
#: few an evening; a script making thousands would bury the real ones.
TABLE_LIMIT = "10 per minute; 60 per hour"
#: Imports replay a whole log: costly, and each makes a table.
IMPORT_LIMIT = "5 per minute; 30 per hour"
#: Hints and "winnable?" run the solver for up to a few seconds each.
SOLVER_LIMIT = "12 per minute"
#: PDF downloads (a cached kit is cheap, but a new set of options is seconds of CPU).
PDF_LIMIT = "20 per minute"
#: A browser's backup (/backup): a few a day is plenty; a loop of them is not
#: a backup, and each reads every row of the group's tables.
BACKUP_LIMIT = "4 per minute; 20 per hour"
#: The records pages, CSVs and achievements: counted by the database over the
#: group's results (and every result for the operator), so a script reloading
#: them in a loop is kept to what a person browsing them does.
RECORDS_LIMIT = "20 per minute"
#: Operator sign-in attempts (the token is long; this only keeps the log quiet).
OPERATOR_LIMIT = "10 per minute"
#: Wrong join codes, so codes cannot be guessed by brute force. Only misses count.
MAX_FAILURES = 10
WINDOW_SECONDS = 60

clock: Callable[[], float] = time.time  # tests move time forward through this


class RateLimitRow(Base):
    """One counter: a client's hits on one limit in the current window."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    count: Mapped[int] = mapped_column(default=0)
    expires_at: Mapped[float] = mapped_column(Float, index=True)


# SQLite (3.35+) and PostgreSQL both take this upsert: one statement, atomic,
# so two workers counting the same client at once both count.
_INCREMENT = text(
    "INSERT INTO rate_limits (key, count, expires_at) VALUES (:key, :amount, :until) "
    "ON CONFLICT (key) DO UPDATE SET "
    "count = CASE WHEN rate_limits.expires_at <= :now THEN :amount "
    "ELSE rate_limits.count + :amount END, "
    "expires_at = CASE WHEN rate_limits.expires_at <= :now THEN :until "
    "ELSE rate_limits.expires_at END "
    "RETURNING count, expires_at"
)
#: The request's environ key for the counters it has just counted: the
#: limiter reads each one back for its headers (the count left, the window's
#: end), and those two reads a limited request were a tenth of the costly
#: routes' cost in the serving process under the abuse benchmark (issue 42).
_COUNTED = "leafpile.rate_limits_counted"


def _engine() -> Engine:
    return current_app.extensions["leafpile_store"].engine  # type: ignore[no-any-return]


class DatabaseStorage(Storage):
    """A ``limits`` storage in the current app's database (fixed windows).

    It looks the engine up per call, so one Limiter serves every app a process
    builds (the tests build many), each counting in its own database.
    """

    STORAGE_SCHEME = ["leafpile-db"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any):
        super().__init__(uri, wrap_exceptions=wrap_exceptions)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return SQLAlchemyError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = clock()
        with _engine().begin() as conn:
            count, until = conn.execute(
                _INCREMENT, {"key": key, "amount": amount, "until": now + expiry, "now": now}
            ).one()
            if random.random() < 0.02:  # now and then, forget windows long gone
                conn.execute(text("DELETE FROM rate_limits WHERE expires_at < :now"), {"now": now})
        if has_request_context():
            request.environ.setdefault(_COUNTED, {})[key] = (int(count), float(until))
        return int(count)

    def _row(self, key: str) -> tuple[int, float] | None:
        counted = request.environ.get(_COUNTED) if has_request_context() else None
        if counted and key in counted:  # counted by this request a moment ago
            count, until = counted[key]
            return (count, until) if until > clock() else None
        with _engine().connect() as conn:
            found = conn.execute(
                text("SELECT count, expires_at FROM rate_limits WHERE key = :key"), {"key": key}
            ).first()
        if found is None or found[1] <= clock():
            return None
        return int(found[0]), float(found[1])

    def get(self, key: str) -> int:
        row = self._row(key)
        return row[0] if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._row(key)
        return row[1] if row else clock()

    def check(self) -> bool:
        if not has_app_context():
            return True
        with _engine().connect() as conn:
            conn.execute(text("SELECT 1"))
        return True

    def reset(self) -> int | None:
        if has_request_context():
            request.environ.pop(_COUNTED, None)
        with _engine().begin() as conn:
            return conn.execute(text("DELETE FROM rate_limits")).rowcount

    def clear(self, key: str) -> None:
        if has_request_context():
            request.environ.get(_COUNTED, {}).pop(key, None)
        with _engine().begin() as conn:
            conn.execute(text("DELETE FROM rate_limits WHERE key = :key"), {"key": key})


def client_address() -> str:
    """Whom a limit counts: the client's address (the phone's, once ProxyFix ran)."""
    return request.remote_addr or "unknown"


def _limits_off() -> bool:
    # The route limits are on unless a configuration turns them off: the test
    # suite's app does (tests that make dozens of tables from one address are
    # not spam); tests of the limits themselves turn them on.
    return not current_app.config.get("LEAFPILE_RATE_LIMITS", True)


limiter = Limiter(
    client_address,
    storage_uri="leafpile-db://",
    strategy="fixed-window",
    headers_enabled=True,  # Retry-After on every 429
    key_prefix="leafpile",
)

F = TypeVar("F", bound=Callable[..., Any])


_LIMITED = "_leafpile_rate_limited"  # the view's (scope, methods)

# --- the penalty box ----------------------------------------------------------------
# A client over a limit stays over it until its window ends, so each process
# remembers that (scope, client) and answers its next requests 429 at once,
# without a database write each (issue 23: a flood of refused imports still
# cost a write apiece, and on SQLite those writes queued with the tables'
# entries). Per process and per app; the database stays the one count.
_BOXED: dict[tuple[str, str, str], float] = {}
#: How many of the box's entries each address has: the gate in front of Flask
#: (:class:`LimitsBeforeFlask`) asks this first, so a request from an address
#: with none costs it one lookup.
_BOXED_ADDRESSES: dict[str, int] = {}
_BOXED_LOCK = Lock()
_BOXED_MAX = 10_000  # addresses remembered at most (the oldest go first)


def _app_key() -> str:
    """This app's own name in the box (tests build many apps in one process)."""
    return str(current_app.extensions.setdefault("leafpile_penalty_box", secrets.token_hex(8)))


def _box(scope: str) -> Callable[[RequestLimit], None]:
    def on_breach(limit: RequestLimit) -> None:
        key = (_app_key(), scope, client_address())
        with _BOXED_LOCK:
            if key not in _BOXED:
                _BOXED_ADDRESSES[key[2]] = _BOXED_ADDRESSES.get(key[2], 0) + 1
            _BOXED[key] = float(limit.reset_at)
            while len(_BOXED) > _BOXED_MAX:
                _forget(next(iter(_BOXED)))

    return on_breach


class StillOverTheLimit(TooManyRequests):
    def __init__(self, seconds: int) -> None:
        super().__init__(retry_after=seconds)


def _forget(key: tuple[str, str, str]) -> None:
    """Take one entry out of the box (the caller holds the lock)."""
    del _BOXED[key]
    left = _BOXED_ADDRESSES.get(key[2], 0) - 1
    if left > 0:
        _BOXED_ADDRESSES[key[2]] = left
    else:
        _BOXED_ADDRESSES.pop(key[2], None)


def _boxed_until(scope: str) -> float | None:
    key = (_app_key(), scope, client_address())
    with _BOXED_LOCK:
        until = _BOXED.get(key)
        if until is not None and until <= clock():
            _forget(key)
            return None
    return until


def _route_limit(limit: str, name: str, methods: list[str] | None = None) -> Callable[[F], F]:
    # Shared by scope: the two "new table" routes (or the two solver routes)
    # draw on one allowance.
    decorate = limiter.shared_limit(
        limit,
        scope=name,
        methods=methods,
        exempt_when=_limits_off,
        key_func=client_address,
        on_breach=_box(name),
    )

    def mark(view: F) -> F:
        limited = decorate(view)
        # The request filter below knows a limited route by this mark, so a
        # decorated route can never be left out of a hand-kept list (the
        # card-image zip was, issue 23).
        setattr(limited, _LIMITED, (name, tuple(m.upper() for m in methods or ())))
        return limited  # type: ignore[return-value]

    return mark


def is_limited(view: Any) -> bool:
    """Whether a view function carries one of the limits above."""
    return getattr(view, _LIMITED, None) is not None


@limiter.request_filter
def _not_limited() -> bool:
    """Every other request (every poll) skips Flask-Limiter's per-request bookkeeping;
    a client in the penalty box gets its 429 here, with no database write."""
    endpoint = request.endpoint
    if endpoint is None:
        return True
    if endpoint == "home.import_table":
        # An import larger than any export is refused by its length (413, said
        # as a 422 on the start page), before CSRF's check reads its form: a
        # flood of 1.9 MB uploads was read in full, each, only for its size to
        # refuse it afterwards (issue 42). Here, as the first hook to run.
        from .imports import MAX_IMPORT_FORM_BYTES

        request.max_content_length = MAX_IMPORT_FORM_BYTES
    marked = getattr(current_app.view_functions.get(endpoint), _LIMITED, None)
    if marked is None:
        return True
    scope, methods = marked
    if (not methods or request.method in methods) and not _limits_off():
        until = _boxed_until(scope)
        if until is not None:
            raise StillOverTheLimit(max(1, math.ceil(until - clock())))
    return False


new_table_limit = _route_limit(TABLE_LIMIT, "new-table", methods=["POST"])
import_limit = _route_limit(IMPORT_LIMIT, "import")
solver_limit = _route_limit(SOLVER_LIMIT, "solver")
pdf_limit = _route_limit(PDF_LIMIT, "pdf")
operator_limit = _route_limit(OPERATOR_LIMIT, "operator", methods=["POST"])
backup_limit = _route_limit(BACKUP_LIMIT, "backup")
records_limit = _route_limit(RECORDS_LIMIT, "records", methods=["GET"])


# --- wrong join codes -------------------------------------------------------------

_JOIN_WINDOW = RateLimitItemPerMinute(MAX_FAILURES, WINDOW_SECONDS // 60)
_join_counter = FixedWindowRateLimiter(DatabaseStorage())


def too_many_attempts(address: str) -> bool:
    """True when ``address`` has had MAX_FAILURES wrong codes in the window."""
    return not _join_counter.test(_JOIN_WINDOW, "join-code", address)


def record_failure(address: str) -> None:
    _join_counter.hit(_JOIN_WINDOW, "join-code", address)


def reset() -> None:
    """Forget the penalty box (the counts live in each app's database, which a test
    starts empty)."""
    with _BOXED_LOCK:
        _BOXED.clear()
        _BOXED_ADDRESSES.clear()


# --- the costly routes' fair share ---------------------------------------------------

#: The limits' scopes whose every request may cost seconds of CPU or a read
#: of many tables: imports, print files, the solver, the web backup and the
#: records pages. nginx's costly location (deploy/nginx.conf) names the
#: same routes: its pattern is :func:`costly_paths`, and a test holds the two equal.
COSTLY_SCOPES = frozenset({"import", "pdf", "solver", "backup", "records"})
#: At most this many costly requests from one address at the app at once
#: (nginx: ``limit_conn costly_per_address``); one more is answered 503.
COSTLY_AT_ONCE = 2
#: And on average one costly request a second from one address, with a burst
#: of this many more at once (nginx: ``rate=60r/m`` and ``burst=5 nodelay``);
#: over it, 429. A person taps a hint, a print file or a records page a few
#: seconds apart, and each answer takes a moment, so a person does not meet
#: it; a script does, and is refused here, before Flask. With a burst of 20
#: (nginx's number before), six flooding addresses got 126 requests into
#: the laptop server's Flask in their first second, and every table's
#: entries waited up to 0.4 s behind them.
COSTLY_PER_SECOND = 1.0
COSTLY_BURST = 5
#: Seconds a phone refused for having COSTLY_AT_ONCE under way waits (nginx's @busy).
COSTLY_BUSY_RETRY_AFTER = 5
_SHARES_MAX = 10_000  # addresses remembered at most (the longest unseen go first)


def costly_paths(app: Any) -> str:
    """The paths of the app's costly routes as one regular expression (each
    argument one path segment), written as nginx's costly location has it."""
    paths = set()
    for rule in app.url_map.iter_rules():
        mark = getattr(app.view_functions.get(rule.endpoint), _LIMITED, None)
        if mark is not None and mark[0] in COSTLY_SCOPES:
            pieces = re.split(r"<[^>]+>", rule.rule.removeprefix("/"))
            paths.add("[^/]+".join(re.escape(piece) for piece in pieces))
    return "^/(" + "|".join(sorted(paths)) + ")$"


class CostlyShare:
    """Each address's share of the costly routes in this process: at most
    :data:`COSTLY_AT_ONCE` under way, and a bucket of ``1 + COSTLY_BURST``
    requests that refills :data:`COSTLY_PER_SECOND` (nginx's leaky bucket
    with ``nodelay``). What nginx keeps in front of the production setup,
    kept for the laptop server, which has no nginx (issue 42)."""

    def __init__(self, now: Callable[[], float] | None = None) -> None:
        self._now = now  # None: the module's clock, looked up each time (tests move it)
        self._lock = Lock()
        self._under_way: dict[str, int] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # address: (requests left, when)

    def admit(self, address: str) -> tuple[int, int] | None:
        """None, and the request counts as under way until :meth:`done` (the
        app has made its answer); else the refusal's status and its
        ``Retry-After`` seconds."""
        now = self._now() if self._now else clock()
        full = 1.0 + COSTLY_BURST
        with self._lock:
            if self._under_way.get(address, 0) >= COSTLY_AT_ONCE:
                return 503, COSTLY_BUSY_RETRY_AFTER
            left, then = self._buckets.pop(address, (full, now))
            left = min(full, left + (now - then) * COSTLY_PER_SECOND)
            if left < 1.0:
                self._buckets[address] = (left, now)
                return 429, max(1, math.ceil((1.0 - left) / COSTLY_PER_SECOND))
            self._buckets[address] = (left - 1.0, now)  # last in order: the latest seen
            while len(self._buckets) > _SHARES_MAX:
                del self._buckets[next(iter(self._buckets))]
            self._under_way[address] = self._under_way.get(address, 0) + 1
        return None

    def done(self, address: str) -> None:
        with self._lock:
            left = self._under_way.get(address, 0) - 1
            if left > 0:
                self._under_way[address] = left
            else:
                self._under_way.pop(address, None)


# --- the limits in front of Flask ---------------------------------------------------

#: What a refusal in front of Flask says, in the phone's language. The first
#: two are the phone's own words (``phone_words.py``), so a script that reads
#: an htmx answer's notice says the same as one that had no answer to read.
TOO_MANY = marked("Too many requests from this phone just now.")
TRY_AGAIN_IN = marked("Try again in %(wait)s.")
SECONDS = marked("%(s)s s")
ALREADY_UNDER_WAY = marked(
    "This phone already has requests for hints, print files, imports or records under way. "
    "Try again once they have finished."
)


def refusal_words(environ: dict[str, Any], status: int, seconds: int) -> str:
    """A refusal made in front of Flask, worded for the phone that asked
    (its remembered choice of language, else its browser's). A 429 to the
    phone's script leaves out when to try again: the script adds it from
    ``Retry-After``, in the same words (``static/app.js``)."""
    from .i18n import catalog_before_flask

    words = catalog_before_flask(environ)
    if status == 503:
        return words.gettext(ALREADY_UNDER_WAY)
    if environ.get("HTTP_HX_REQUEST"):
        return words.gettext(TOO_MANY)
    wait = words.gettext(SECONDS) % {"s": seconds}
    return f"{words.gettext(TOO_MANY)} {words.gettext(TRY_AGAIN_IN) % {'wait': wait}}"


class LimitsBeforeFlask:
    """WSGI middleware: the refusals a flood meets most, made before Flask
    makes a request of it (issue 42).

    A flooding address is refused thousands of times a minute, and through
    Flask each refusal still cost a request context, the session, routing,
    the limiter's count in the database and an error page: CPU the honest
    tables' entries waited for. Here:

    * an address in the penalty box for the route it asks gets its 429 (one
      lookup by address, which nearly every request passes at once);
    * a costly route (:func:`costly_paths`, one regular expression) is
      refused 503 to an address with :data:`COSTLY_AT_ONCE` costly requests
      under way, and 429 over its :class:`CostlyShare`, as nginx refuses
      them in front of the production setup. Each route's own limit per
      minute, the job slots and one job at a time per address stay in the
      app: these only keep a flood's requests from reaching it.

    The refusal is short, in the phone's language; an htmx request gets it
    as the notice its script reads (``static/app.js`` says it in place).
    """

    def __init__(self, app: Any, inner: Any) -> None:
        self.app = app
        self.inner = inner
        self.costly = re.compile(costly_paths(app))
        self.share = CostlyShare()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        address = environ.get("REMOTE_ADDR") or "unknown"
        if address in _BOXED_ADDRESSES:
            seconds = self._boxed_for(environ, address)
            if seconds is not None:
                return self._refuse(environ, start_response, 429, seconds)
        if not self.costly.match(environ.get("PATH_INFO") or "") or not self._limits_on():
            return self.inner(environ, start_response)
        refused = self.share.admit(address)
        if refused is not None:
            return self._refuse(environ, start_response, *refused)
        try:
            return self.inner(environ, start_response)  # the view's work: a job, a page
        finally:
            self.share.done(address)  # its bytes may still be on their way: no work

    def _limits_on(self) -> bool:
        return bool(self.app.config.get("LEAFPILE_RATE_LIMITS", True))

    def _refuse(
        self, environ: dict[str, Any], start_response: Any, status: int, seconds: int
    ) -> list[bytes]:
        _hold_back()
        from . import security_headers

        said = html.escape(refusal_words(environ, status, seconds), quote=False)
        if environ.get("HTTP_HX_REQUEST"):
            body = (
                '<div id="board" class="board"><p class="notice notice-error" role="alert">'
                f"{said}</p></div>"
            ).encode()
        else:
            body = f"{said}\n".encode()
        kind = "text/html" if environ.get("HTTP_HX_REQUEST") else "text/plain"
        start_response(
            "429 Too Many Requests" if status == 429 else "503 Service Unavailable",
            [
                ("Content-Type", f"{kind}; charset=utf-8"),
                ("Content-Length", str(len(body))),
                ("Retry-After", str(seconds)),
                ("Cache-Control", "no-store"),
                *security_headers(),
            ],
        )
        return [body]

    def _boxed_for(self, environ: dict[str, Any], address: str) -> int | None:
        app_key = self.app.extensions.get("leafpile_penalty_box")
        if app_key is None or not self._limits_on():
            return None
        try:
            endpoint, _ = self.app.url_map.bind_to_environ(environ).match(
                method=environ.get("REQUEST_METHOD")
            )
        except Exception:  # no route, a redirect, a bad host: Flask answers it
            return None
        marked = getattr(self.app.view_functions.get(endpoint), _LIMITED, None)
        if marked is None:
            return None
        scope, methods = marked
        if methods and environ.get("REQUEST_METHOD") not in methods:
            return None
        with _BOXED_LOCK:
            until = _BOXED.get((str(app_key), scope, address))
        if until is None or until <= clock():
            return None
        return max(1, math.ceil(until - clock()))


#: How long a boxed address waits for its 429 on a gevent server (issue 42).
#: A script looping on refusals was answered as fast as it asked: on the
#: laptop server six such addresses got about 17,000 429s in 30 s of the abuse
#: benchmark, and answering them took twice the CPU the 50 tables' phones
#: needed. Held back a second (a sleeping greenlet: no CPU, no thread), each
#: loop asks once a second. Nothing honest waits: only an address already
#: refused for this route, until its window ends.
TARPIT_SECONDS = 1.0


def _hold_back() -> None:
    from companion.cooperative import _gevent_server

    if _gevent_server():  # elsewhere a sleep would hold a thread
        time.sleep(TARPIT_SECONDS)  # gevent's: the loop serves the others meanwhile


def init_limits_before_flask(app: Any) -> None:
    """Put the limits in front of the app's own WSGI app (behind ProxyFix, so
    the address they read is the phone's), once every route is in."""
    app.wsgi_app = LimitsBeforeFlask(app, app.wsgi_app)
