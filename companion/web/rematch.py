"""Play again: a finished table starts a new one with the same players and options.

The store starts it in one transaction (:mod:`companion.tables.rematches`):
the new table, the phones carried over and the link from the old table,
which sends every phone still polling the old table, spectators included,
to the new one on its next poll (:func:`companion.web.follow.follow_url`).
The old table stays as it was, readable at its address.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, redirect, request, url_for

from companion.tables.store import NoSuchTable, TableError

from . import sentence, store
from .board import render_board
from .i18n import message_of
from .table_names import next_name
from .viewer import known_device, viewer_for

bp = Blueprint("rematch", __name__)


@bp.post("/t/<token>/rematch")
def rematch(token: str) -> Any:
    """The host's phone starts the next game; every phone follows it."""
    try:
        new = store().rematch(token, known_device(), next_name)
    except NoSuchTable:
        abort(404)
    except TableError as exc:
        snap = store().snapshot(token)
        return render_board(snap, viewer_for(snap), error=sentence(message_of(exc)), status=422)
    target = url_for("table.page", token=new.token)
    if request.headers.get("HX-Request"):
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target, code=303)
