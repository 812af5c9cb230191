"""The stream each phone holds open: server-sent events that say only
"table T is at version V now".

``GET /t/<token>/stream`` (a player's phone) and ``GET /v/<view_token>/stream``
(a spectator screen) answer ``text/event-stream``. The first event is the
table's version at the moment the stream opens, so a phone that reconnects
(after a dropped stream, a sleep, a server restart) learns at once whether it
missed anything; then one event per change, and a ``beat`` event every
``LEAFPILE_STREAM_HEARTBEAT`` seconds that keeps proxies and the server's idle
timeout from closing a quiet stream, finds phones that went away, and tells
the phone its stream is alive, so it skips its slow fallback poll. A
deleted table, or one a rematch replaced, sends ``data: moved``. On any event
newer than the board it shows, the phone fetches its own board through the
usual poll route (companion/static/stream.js), where the projection decides
what that phone may see: no card, name or board ever travels here.

Why server-sent events and not a websocket: the traffic is one way, a few
bytes a change; EventSource reconnects by itself, passes through nginx as a
plain unbuffered HTTP response, and needs nothing but a WSGI server that can
hold an open response cheaply (gevent). A websocket would need an upgrade
path through every proxy and a client-side reconnect loop, for nothing the
phone ever sends on it.

The stream is plain WSGI in front of Flask, not a Flask view: it reads no
session cookie, passes no rate limiter, CSRF check or compression, and holds
no request context for the hours it stays open. It costs one version query
when it opens.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from flask import Flask

from companion.tables.notify import MOVED, Notifier, PostgresBridge, SqliteBridge, attach
from companion.tables.store import NoSuchTable, Store

_STREAM_PATH = re.compile(r"^/(?P<kind>[tv])/(?P<token>[A-Za-z0-9_-]{1,64})/stream$")

#: Seconds between two heartbeats (``event: beat``) on a quiet stream.
HEARTBEAT_SECONDS = 20.0
#: A stream ends after about this long and the phone reconnects on its own:
#: streams spread again over the servers, and none lives for ever.
LIFETIME_SECONDS = 15 * 60
#: The slow fallback poll that covers a stream that died without a word
#: (iOS Safari drops them when the app is switched away).
FALLBACK_POLL_SECONDS = 60
#: What EventSource waits before it reconnects a dropped stream (milliseconds).
RETRY_MS = 2000

_HEADERS = [
    ("Content-Type", "text/event-stream; charset=utf-8"),
    ("Cache-Control", "no-store"),
    ("X-Accel-Buffering", "no"),  # nginx: pass each event on at once
    ("X-Content-Type-Options", "nosniff"),
]

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def _number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else default


def init_stream(app: Flask) -> None:
    """Give ``app`` its notifier and put the stream routes in front of it."""
    store: Store = app.extensions["leafpile_store"]
    notifier = Notifier()
    attach(store.engine, notifier)
    app.extensions["leafpile_notifier"] = notifier
    for key, env, default in (
        ("LEAFPILE_STREAM_HEARTBEAT", "LEAFPILE_STREAM_HEARTBEAT", HEARTBEAT_SECONDS),
        ("LEAFPILE_STREAM_LIFETIME", "LEAFPILE_STREAM_LIFETIME", LIFETIME_SECONDS),
        ("LEAFPILE_FALLBACK_POLL_SECONDS", "LEAFPILE_FALLBACK_POLL_SECONDS", FALLBACK_POLL_SECONDS),
    ):
        app.config.setdefault(key, _number(env, default))
    bridge_kind = SqliteBridge if store.is_sqlite else PostgresBridge
    app.extensions["leafpile_bridge"] = bridge_kind(store.engine, notifier)
    app.wsgi_app = StreamRoutes(app, app.wsgi_app)  # type: ignore[method-assign]


class StreamRoutes:
    """WSGI middleware: the two stream addresses here, everything else to Flask."""

    def __init__(self, app: Flask, inner: WSGIApp) -> None:
        self.app = app
        self.inner = inner

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        found = _STREAM_PATH.match(path) if path.endswith("/stream") else None
        if found is None:
            return self.inner(environ, start_response)
        if environ.get("REQUEST_METHOD") != "GET":
            return _plain(start_response, "405 Method Not Allowed", "Streams are read with GET.\n")
        store: Store = self.app.extensions["leafpile_store"]
        notifier: Notifier = self.app.extensions["leafpile_notifier"]
        self.app.extensions["leafpile_bridge"].start()
        token = found["token"]
        try:
            if found["kind"] == "v":
                token = store.table_by_view_token(token).token
            # Watch first, then read: a change committed in between still wakes us.
            watch = notifier.watch(token, 0)
            try:
                version = store.version(token)
            except BaseException:
                notifier.forget(watch)
                raise
        except NoSuchTable:
            return _plain(start_response, "404 Not Found", "There is no table here.\n")
        watch.version = max(watch.version, version)
        start_response("200 OK", list(_HEADERS))
        config = self.app.config
        lifetime = float(config["LEAFPILE_STREAM_LIFETIME"]) * random.uniform(0.8, 1.0)
        return _events(
            notifier, watch, version, float(config["LEAFPILE_STREAM_HEARTBEAT"]), lifetime
        )


def _plain(start_response: StartResponse, status: str, text: str) -> list[bytes]:
    body = text.encode()
    start_response(
        status,
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ],
    )
    return [body]


def nudge(version: int) -> bytes:
    """One event: the version, or ``moved``."""
    data = "moved" if version == MOVED else str(version)
    return f"id: {data}\ndata: {data}\n\n".encode()


def beat(version: int) -> bytes:
    """A heartbeat: an event of its own type (the phone's stream.js notes when
    it last heard one), repeating the version last sent, which is no news."""
    return f"event: beat\ndata: {version}\n\n".encode()


def _events(
    notifier: Notifier, watch: Any, version: int, heartbeat: float, lifetime: float
) -> Iterator[bytes]:
    try:
        yield f"retry: {RETRY_MS}\n".encode() + nudge(version)
        end = time.monotonic() + lifetime
        sent = version
        while (left := end - time.monotonic()) > 0:
            # Whether the wait was woken is not the test: a publish that lands
            # between the wait's timeout and its clearing of the wake-up
            # leaves "not woken" with a newer version, and that nudge would be
            # lost until the next change (seen under load: a stream kept
            # beating the old version for 13 minutes). The version decides.
            watch.wait(min(heartbeat, left))
            if watch.version == MOVED:
                yield nudge(MOVED)
                return
            if watch.version > sent:  # not the version it opened with, again
                sent = watch.version
                yield nudge(sent)
            else:
                yield beat(sent)
    finally:
        notifier.forget(watch)
