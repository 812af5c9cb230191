"""The top bar's language switch: one route that remembers a phone's choice.

A blueprint of its own: the words themselves are chosen in ``i18n.py``, which
every blueprint imports, and blueprints never import each other.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, redirect, request
from werkzeug.wrappers import Response

from .i18n import COOKIE, YEAR, offered

bp = Blueprint("language", __name__)


@bp.get("/language/<code>")
def switch(code: str) -> Response:
    """The top bar's switch: remember ``code`` on this phone, back to the page."""
    back = request.args.get("next", "/")
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or not back.startswith("/") or back.startswith("//"):
        back = "/"
    response = redirect(back, code=303)
    if code in offered():
        response.set_cookie(
            COOKIE, code, max_age=YEAR, samesite="Lax", httponly=True, secure=request.is_secure
        )
    else:
        response.delete_cookie(COOKIE)
    return response
