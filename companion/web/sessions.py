"""Flask's signed-cookie sessions and Flask-WTF's CSRF tokens, each verified
once a minute per cookie or token.

A phone sends the same session cookie with every board fetch and entry (it
changes only when the session does), and checking its signature, then
decoding it, was about a fifteenth of a serving process's time at a club
night (itsdangerous's HMAC, base64 and JSON on every request). So each
cookie's verified contents are remembered for ``VERIFIED_FOR_SECONDS``,
keyed by the app's secret key and the cookie's exact text: a forged or
altered cookie is different text, so it is verified like any new one, and
every request gets its own copy of the contents to change. Kept here, not
in a library: no session library offers this, and the rest is Flask's.

Each entry's CSRF token is checked the same way: Flask-WTF's check (its
serializer's HMAC and base64, then a compare with the session's half) cost
about a twentieth of a change's server time (issue 41). With no time limit
on the tokens (``WTF_CSRF_TIME_LIMIT = None``), the verdict on a token and a
session half is fixed by their text: a pair that passed is remembered for
``VERIFIED_FOR_SECONDS``; any other pair gets Flask-WTF's whole check.
"""

from __future__ import annotations

import copy
import time
from collections import OrderedDict
from threading import Lock
from typing import Any

from flask import Flask, Request, current_app, g, request, session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_wtf.csrf import CSRFProtect

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


class RememberingCSRFProtect(CSRFProtect):  # type: ignore[misc]  # Flask-WTF is untyped
    """Flask-WTF's :class:`CSRFProtect` with a short memory of the token
    pairs (the form's or header's token, the session's half) it passed."""

    def __init__(self, app: Flask | None = None) -> None:
        self._passed: OrderedDict[tuple[Any, ...], float] = OrderedDict()
        self._passed_lock = Lock()
        super().__init__(app)

    def protect(self, apply_exemptions: bool = False) -> None:
        pair = self._pair_to_check(apply_exemptions)
        now = time.monotonic()
        if pair is not None:
            with self._passed_lock:
                passed = self._passed.get(pair)
                if passed is not None and now - passed < VERIFIED_FOR_SECONDS:
                    self._passed.move_to_end(pair)
                    g.csrf_valid = True  # as Flask-WTF marks a request it passed
                    return
        super().protect(apply_exemptions)  # raises CSRFError when refused
        if pair is not None:
            with self._passed_lock:
                self._passed[pair] = now
                while len(self._passed) > REMEMBERED_COOKIES:
                    self._passed.popitem(last=False)

    def _pair_to_check(self, apply_exemptions: bool) -> tuple[Any, ...] | None:
        """What Flask-WTF's whole check of this request would read, when that
        check is only the token's (no exemption, no expiry, no Referer
        check): the keys, the token and the session's half. Else None."""
        config = current_app.config
        if (
            not apply_exemptions
            or not request.endpoint
            or self._is_exempt()
            or request.method not in config["WTF_CSRF_METHODS"]
            or config.get("WTF_CSRF_TIME_LIMIT", 3600) is not None
            or (request.is_secure and config["WTF_CSRF_SSL_STRICT"])
        ):
            return None
        token = self._get_csrf_token()
        half = session.get(config["WTF_CSRF_FIELD_NAME"])
        if not isinstance(token, str) or not isinstance(half, str) or not token or not half:
            return None
        secret = config.get("WTF_CSRF_SECRET_KEY") or current_app.secret_key
        return (secret, current_app.secret_key, token, half)
