"""Flask's signed-cookie sessions, verified once a minute per cookie.

A phone sends the same session cookie with every board fetch and entry (it
changes only when the session does), and checking its signature, then
decoding it, was about a fifteenth of a serving process's time at a club
night (itsdangerous's HMAC, base64 and JSON on every request). So each
cookie's verified contents are remembered for ``VERIFIED_FOR_SECONDS``,
keyed by the app's secret key and the cookie's exact text: a forged or
altered cookie is different text, so it is verified like any new one, and
every request gets its own copy of the contents to change. Kept here, not
in a library: no session library offers this, and the rest is Flask's.
"""

from __future__ import annotations

import copy
import time
from collections import OrderedDict
from threading import Lock
from typing import Any

from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface

#: How long a verified cookie is trusted without checking its signature again.
VERIFIED_FOR_SECONDS = 60.0
#: Cookies remembered at most per process (the least recently used go first).
REMEMBERED_COOKIES = 10_000


class RememberingSessionInterface(SecureCookieSessionInterface):
    """:class:`SecureCookieSessionInterface` with a short memory of verified cookies."""

    def __init__(self) -> None:
        self._verified: OrderedDict[tuple[Any, str], tuple[float, dict[str, Any]]] = OrderedDict()
        self._lock = Lock()

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        cookie = request.cookies.get(self.get_cookie_name(app))
        if not cookie or not app.secret_key:
            return super().open_session(app, request)
        key = (app.secret_key, cookie)
        now = time.monotonic()
        with self._lock:
            found = self._verified.get(key)
            if found is not None and now - found[0] < VERIFIED_FOR_SECONDS:
                self._verified.move_to_end(key)
                return self.session_class(copy.deepcopy(found[1]))
        session = super().open_session(app, request)
        if session is not None and dict(session):  # a bad cookie opens an empty session
            with self._lock:
                self._verified[key] = (now, copy.deepcopy(dict(session)))
                while len(self._verified) > REMEMBERED_COOKIES:
                    self._verified.popitem(last=False)
        return session
