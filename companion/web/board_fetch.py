"""Board fetches answered without Flask's per-request machinery.

After each change every other phone of the table fetches its board
(``GET /t/<token>/poll?v=N``, ``poll`` in table.py): five requests a change
at a table of six, nearly all served from the shared render cache. Through
Flask such a fetch cost about 0.45 ms of CPU, and the view was a fifth of
it. The rest went to hooks with nothing to do on this route: the rate
limiter's (it has no limit), CSRF's (it is a GET), Flask-Compress's
bookkeeping (conditional requests, ETags) and the response and header
objects. At a club night that was a fifth of a serving process.

Here the same view runs in a request context of its own, so the session,
the device, the projection and the cache are exactly Flask's. Its answer
(a 204, or the board) is sent with the headers Flask's after-request hooks
would give it, in the same order, compressed the same way; any other
answer of the view (a redirect after Play again, a deleted table's 404) goes
through Flask's own finishing. Flask answers, from the start, a request with
other query parameters or conditional headers, a session the view had to
change (a phone's first token) and an error. ``tests/web/test_board_fetch.py`` proves
the answers are Flask's, status, headers and bytes, phone by phone, with
secrets at the table.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, Response, request, session
from werkzeug.http import http_date

from companion.tables.projection import board_view, viewer_from
from companion.tables.store import Store

from . import has_csrf_token, security_headers
from . import table as table_views
from .board_cache import cached_fragment, render_polled_board
from .i18n import COOKIE as LANGUAGE_COOKIE
from .i18n import language
from .sessions import VERIFIED_FOR_SECONDS
from .shared_bytes import COMPRESSION_KNOWN, chosen_encoding, encoded
from .viewer import known_device

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
Headers = list[tuple[str, str]]
Answer = tuple[Iterable[bytes], str, Headers]  # body, status line, headers

_POLL_PATH = re.compile(r"^/t/(?P<token>[A-Za-z0-9_-]{1,64})/poll$")
_ONLY_A_VERSION = re.compile(r"^v=\d{1,12}$")
# Headers that make werkzeug's conditional handling (run by Flask-Compress)
# answer differently: such a request goes to Flask.
_CONDITIONAL = (
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
    "HTTP_IF_RANGE",
    "HTTP_RANGE",
)
#: Phones and languages the lean path remembers, at most (the oldest go first).
REMEMBERED = 10_000


def _cookie(header: str, name: str) -> str | None:
    """The first cookie called ``name`` in a Cookie header, as werkzeug reads
    it; None when absent or quoted (werkzeug unquotes: Flask reads those)."""
    for pair in header.split(";"):
        key, equals, value = pair.partition("=")
        if equals and key.strip() == name:
            value = value.strip()
            return None if '"' in value or "\\" in value else value
    return None


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    memo[key] = value
    if len(memo) > REMEMBERED:
        del memo[next(iter(memo))]


class BoardFetches:
    """WSGI middleware: a phone's board fetch here, everything else to Flask."""

    def __init__(self, app: Flask, inner: WSGIApp) -> None:
        self.app = app
        self.inner = inner
        #: Fetches answered here rather than by Flask (the tests read it).
        self.answered = 0
        #: Of those, answered without a request context (the lean path).
        self.lean = 0
        # What a phone's session cookie told Flask (verified then): its
        # device and whether it holds its CSRF token; by the cookie's text.
        self._phones: dict[str, tuple[float, str, bool]] = {}
        # The language Flask chose for a language cookie and Accept-Language.
        self._languages: dict[tuple[str, str], str] = {}
        self._date = (0, "")

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if (
            not path.endswith("/poll")
            or environ.get("REQUEST_METHOD") != "GET"
            or not environ.get("HTTP_HX_REQUEST")
            or not _ONLY_A_VERSION.match(environ.get("QUERY_STRING", ""))
            or any(name in environ for name in _CONDITIONAL)
            or not COMPRESSION_KNOWN
            or (found := _POLL_PATH.match(path)) is None
        ):
            return self.inner(environ, start_response)
        answer = self._lean(environ, found["token"])
        if answer is not None:
            self.lean += 1
        else:
            answer = self._answer(environ, found["token"])
        if answer is None:
            return self.inner(environ, start_response)
        body, status, headers = answer
        self.answered += 1
        start_response(status, headers)
        return body

    def _answer(self, environ: dict[str, Any], token: str) -> Answer | None:
        """The view's answer as Flask would send it, or None for Flask to answer."""
        with self.app.request_context(environ):
            if request.endpoint != "table.poll":
                return None
            try:
                answer = table_views.poll(token)
            except Exception:  # Flask answers again, with its own error handling
                return None
            if session.modified:  # a phone's first token: Flask sends the new cookie
                return None
            self._learn(environ)
            plain = self._plain(answer, request.headers.get("Accept-Encoding", ""))
            if plain is None:  # a redirect (Play again, a deleted table): Flask finishes it
                body, status, headers = self.app.finalize_request(answer).get_wsgi_response(environ)
                return body, status, list(headers)
        return plain

    def _learn(self, environ: dict[str, Any]) -> None:
        """Remember what this request's cookies and headers told Flask, for
        the lean path: the phone (its device, its token) and its language."""
        cookie = _cookie(environ.get("HTTP_COOKIE", ""), self.app.config["SESSION_COOKIE_NAME"])
        device = known_device()
        if (
            cookie is not None
            and device is not None
            and request.cookies.get(self.app.config["SESSION_COOKIE_NAME"]) == cookie
        ):
            _remember(self._phones, cookie, (time.monotonic(), device, has_csrf_token()))
        chosen = _cookie(environ.get("HTTP_COOKIE", ""), LANGUAGE_COOKIE) or ""
        if request.cookies.get(LANGUAGE_COOKIE, "") == chosen:
            asked = (chosen, environ.get("HTTP_ACCEPT_LANGUAGE", ""))
            _remember(self._languages, asked, language())

    def _lean(self, environ: dict[str, Any], token: str) -> Answer | None:
        """The fetch of a phone Flask has seen lately, whose board is drawn
        already, without a request context: ``table.poll`` and
        ``render_polled_board`` step by step, from what Flask told
        :meth:`_learn` about this phone's cookies. None: Flask's turn.

        A board fetch through Flask spent most of its time on the request
        context (the session, the language, Flask-Babel's locale) rather
        than on the board (issue 41); a phone's cookie and headers tell the
        same things each time, and the one statement still reads the table.
        """
        header = environ.get("HTTP_COOKIE", "")
        cookie = _cookie(header, self.app.config["SESSION_COOKIE_NAME"])
        phone = self._phones.get(cookie) if cookie is not None else None
        words = self._languages.get(
            (_cookie(header, LANGUAGE_COOKIE) or "", environ.get("HTTP_ACCEPT_LANGUAGE", ""))
        )
        if phone is None or words is None or self.app.jinja_env.auto_reload:
            return None
        learned, device, has_token = phone
        if not has_token or time.monotonic() - learned >= VERIFIED_FOR_SECONDS:
            return None
        store: Store = self.app.extensions["leafpile_store"]
        try:
            read = store.board_read(token, device)
            if read.moved_to is not None:  # Play again: Flask sends the phone on
                return None
            encoding = chosen_encoding(environ.get("HTTP_ACCEPT_ENCODING", ""))
            if environ.get("QUERY_STRING", "")[2:] == str(read.version):
                return [], "204 NO CONTENT", self._headers(None, encoding)
            snap = store.snapshot_at(read.token, read.version)
            viewer = viewer_from(snap, device, read.facts)
            address = environ.get("HTTP_HX_CURRENT_URL", "").partition("?")[2]
            body = cached_fragment(board_view(snap, viewer), viewer, address, words)
        except Exception:  # a missing table, a database outage: Flask answers as always
            return None
        if body is None:  # not drawn yet: drawn in a request context, from this read
            return self._drawn(environ, snap, viewer)
        data, encoding = encoded(self.app, body, encoding)
        return [data], "200 OK", self._headers(len(data), encoding)

    def _drawn(self, environ: dict[str, Any], snap: Any, viewer: Any) -> Answer | None:
        """The board a known phone's fetch found undrawn, drawn (and cached)
        as ``table.poll`` draws it, from the table read once already; None
        for Flask to answer from the start."""
        with self.app.request_context(environ):
            if request.endpoint != "table.poll":
                return None
            try:
                answer = render_polled_board(snap, viewer)
            except Exception:
                return None
            if session.modified:
                return None
            return self._plain(answer, request.headers.get("Accept-Encoding", ""))

    def _plain(self, answer: Any, accept: str) -> Answer | None:
        """A 204 or a board, with Flask's headers; None for any other answer."""
        encoding = chosen_encoding(accept)
        if isinstance(answer, Response):
            if answer.status_code != 204 or len(answer.headers) != 1:  # e.g. HX-Redirect
                return None
            # Flask-Compress marks even an empty answer as compressed.
            return [], "204 NO CONTENT", self._headers(None, encoding)
        body, status = answer
        if status != 200 or not isinstance(body, str):
            return None
        # A shared render: encoded for the first phone, its bytes kept for the rest.
        data, encoding = encoded(self.app, body, encoding)
        return [data], "200 OK", self._headers(len(data), encoding)

    def _headers(self, length: int | None, encoding: str | None) -> Headers:
        """Flask's headers for a board fetch: the view's, then the after-request
        hooks' in the order they run (table.py's, the app's, Flask-Compress's)."""
        headers = [("Content-Type", "text/html; charset=utf-8")]
        if length is not None:
            headers.append(("Content-Length", str(length)))
        headers += [("Cache-Control", "no-store"), ("Vary", "Cookie, HX-Request, Accept-Encoding")]
        headers += security_headers()
        if encoding is not None:
            # Flask-Compress then asks werkzeug for a conditional answer, which dates it.
            headers += [("Content-Encoding", encoding), ("Date", self._now())]
        return headers

    def _now(self) -> str:
        """``http_date()`` of this second, formatted once a second."""
        second = int(time.time())
        if self._date[0] != second:
            self._date = (second, http_date(second))
        return self._date[1]


def init_board_fetches(app: Flask) -> None:
    """Put the board-fetch path in front of Flask (behind the streams)."""
    fetches = BoardFetches(app, app.wsgi_app)
    app.extensions["leafpile_board_fetches"] = fetches
    app.wsgi_app = fetches  # type: ignore[method-assign]
