"""Leafpile: the table companion web app.

``create_app(test_config=None)`` builds the Flask app; the referees live in
:mod:`companion.rules` and never depend on anything here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> object:
    # The app factory (and Flask with it) is imported when first asked for,
    # not with the package: the print kit and the catalog tools use Flask-free
    # modules of it (companion.rules, companion.i18n) and must not load Flask.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
