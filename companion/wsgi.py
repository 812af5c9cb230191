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

The app keeps no game state in process memory, so any number of workers can
serve the same tables. A typical command (see the README's deploy section)::

    gunicorn --workers 2 --worker-class gthread --threads 1 --keep-alive 10 \\
        --worker-tmp-dir /dev/shm --bind 0.0.0.0:8000 'companion.wsgi:app'

``--preload`` works too: the master builds the app once and each worker then
opens its own database connections. ``GET /healthz`` answers ``ok`` without
touching the database, for a proxy's health check.
"""

from __future__ import annotations

import os

from flask import Flask

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

    # GET /healthz comes with every app (companion.app.create_app).
    # Connections opened while building the app (creating the tables) must not
    # be inherited by forked workers: each worker opens its own.
    application.extensions["leafpile_store"].engine.dispose()
    return application


app = make_app()
