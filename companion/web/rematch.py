"""Play again: a finished table starts a new one with the same players and options.

The new table is linked to the old one (the ``rematches`` table), and every
phone still polling the old table, spectators included, is sent to the new
one on its next poll (:func:`companion.web.follow.follow_url`, asked by the
poll views). The old
table stays as it was, readable at its address.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, abort, redirect, request, url_for
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from companion.tables.results import RematchRow, rematch_of
from companion.tables.store import MAX_TITLE_LENGTH, NoSuchTable, TableError, TableView
from companion.tables.summaries import is_over

from . import sentence, store
from .board import render_board
from .viewer import is_host, viewer_for

bp = Blueprint("rematch", __name__)

# Ruling (docs/records.md): none of our games picks its first player by seat
# except the score pad, whose first column is usually the table's first
# player; there the seating turns by one so somebody else starts. Everywhere
# else the seating stays as it was.
ROTATE_SEATING = frozenset({"scorepad"})

_GAME_NUMBER = re.compile(r"^(.*) \(game (\d+)\)$")


def next_players(game: str, players: tuple[str, ...]) -> tuple[str, ...]:
    """The seating of the rematch: the first seat moves to the end where it matters."""
    if game in ROTATE_SEATING and len(players) > 1:
        return (*players[1:], players[0])
    return players


def next_title(title: str) -> str:
    """'Friday' -> 'Friday (game 2)' -> 'Friday (game 3)' ..."""
    found = _GAME_NUMBER.match(title)
    base, number = (found.group(1), int(found.group(2)) + 1) if found else (title, 2)
    suffix = f" (game {number})"
    return base[: MAX_TITLE_LENGTH - len(suffix)] + suffix


def start_rematch(token: str) -> TableView:
    """The rematch of a finished table: the existing one, or a new one."""
    source = store()
    snap = source.snapshot(token)
    old = snap.table
    with Session(source.engine) as session:
        existing = rematch_of(session, old.id)
        if existing is not None:
            return source.table(existing.token)
    if not is_over(old.game, snap.state):
        raise TableError("this game is not over yet: finish it before starting another")
    new = source.create_table(
        old.game, next_players(old.game, old.players), old.options, next_title(old.title)
    )
    # Every phone keeps its seat at the new table (issue 10's seats), carried
    # over BEFORE the link is written: the link is what sends the old table's
    # polls on, and a phone that arrived at the new table before its seats and
    # membership were carried made carry_over's insert collide with the
    # phone's own membership row, which was taken for a double tap and deleted
    # the new table (test_end_browser's Play again test, under load: issue 23).
    source.carry_over(old.token, new.token)
    try:
        with Session(source.engine) as session, session.begin():
            session.add(RematchRow(old_table_id=old.id, new_table_id=new.id))
    except IntegrityError:
        # Two phones tapped Play again at once: the other one's table wins.
        source.delete_table(new.token)
        with Session(source.engine) as session:
            existing = rematch_of(session, old.id)
            assert existing is not None
            return source.table(existing.token)
    return new


@bp.post("/t/<token>/rematch")
def rematch(token: str) -> Any:
    try:
        store().table(token)
    except NoSuchTable:
        abort(404)
    try:
        if not is_host(token):
            raise TableError("only the host's phone can start another game at this table")
        new = start_rematch(token)
    except NoSuchTable:
        abort(404)
    except TableError as exc:
        snap = store().snapshot(token)
        return render_board(snap, viewer_for(snap), error=sentence(str(exc)), status=422)
    target = url_for("table.page", token=new.token)
    if request.headers.get("HX-Request"):
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target, code=303)
