"""The production entry point: ``gunicorn 'companion.wsgi:app'``.

Configuration comes from the environment, as for ``leafpile``:

* ``LEAFPILE_DATABASE_URL``: any SQLAlchemy URL, e.g.
  ``postgresql+psycopg://leafpile:secret@127.0.0.1/leafpile`` (install the
  ``postgres`` extra for the driver). Default: a SQLite file (WAL mode) in
  the instance folder, which several workers on one machine can share.
* ``LEAFPILE_INSTANCE``: the instance folder, where the generated session key
  (``secret_key``) and the default SQLite database live. Every worker must
  see the same folder, so they all sign cookies with the same key.
* ``LEAFPILE_PUBLIC_URL``: the address phones should use to join (shown as
  the QR code), e.g. ``http://192.168.1.20:8000``; default: the address of
  each request.
* ``LEAFPILE_PROXY_HOPS``: how many proxies stand in front (``deploy/serve``
  sets 1 for its nginx). Their ``X-Forwarded-For/-Proto/-Host`` headers are
  then trusted (werkzeug's ProxyFix), so rate limits count phones, not the
  proxy, and links use the public scheme and host. Default 0: the headers
  are ignored, as anybody can send them.
* ``LEAFPILE_SECURE_COOKIES``: ``1`` marks the session cookie ``Secure`` (sent
  over HTTPS only); set it when a TLS proxy serves the app.
* ``LEAFPILE_JOB_SLOTS``: how many solver or PDF jobs may run at once on this
  machine (default: cores - 1, at least 1); ``LEAFPILE_RATE_LIMITS=0`` turns
  the per-client limits off (a load test from one address).

The app keeps no game state in process memory, so any number of workers can
serve the same tables. Beyond the LAN, serve it with ``deploy/serve`` (nginx
in front of gunicorn; see docs/deploying.md): gunicorn alone can be stalled
by a few clients that send their requests slowly.

``--preload`` works too: the master builds the app once and each worker then
opens its own database connections. ``GET /healthz`` answers ``ok`` without
touching the database, for a proxy's health check.
"""

from __future__ import annotations

import os

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from . import create_app


def make_app() -> Flask:
    """Build the production app: configuration from the environment, never debug."""
    application = create_app()
    # Never the debugger or debug-mode error pages on a server other phones can
    # reach, whatever FLASK_DEBUG says.
    application.debug = False
    application.config["DEBUG"] = False
    public = os.environ.get("LEAFPILE_PUBLIC_URL")
    if public:
        application.config["PUBLIC_URL"] = public
    if _flag("LEAFPILE_SECURE_COOKIES"):
        application.config["SESSION_COOKIE_SECURE"] = True
    slots = os.environ.get("LEAFPILE_JOB_SLOTS", "").strip()
    if slots.isdecimal() and int(slots) > 0:
        application.config["JOB_SLOTS"] = int(slots)
    if os.environ.get("LEAFPILE_RATE_LIMITS", "").strip() == "0":
        application.config["LEAFPILE_RATE_LIMITS"] = False
    hops = os.environ.get("LEAFPILE_PROXY_HOPS", "0").strip()
    if hops.isdecimal() and int(hops) > 0:
        n = int(hops)
        application.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            application.wsgi_app, x_for=n, x_proto=n, x_host=n
        )

    # GET /healthz comes with every app (companion.app.create_app).
    # Connections opened while building the app (creating the tables) must not
    # be inherited by forked workers: each worker opens its own.
    application.extensions["leafpile_store"].engine.dispose()
    return application


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


app = make_app()
