"""Leafpile: the table companion web app.

``create_app(test_config=None)`` builds the Flask app; the referees live in
:mod:`companion.rules` and never depend on anything here.
"""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
