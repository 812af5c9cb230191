"""Following a rematch from the old table's polls.

Once a finished table has a rematch (:mod:`companion.web.rematch`), every
phone still polling the old table, spectators included, is sent on to the
new one. The poll views in :mod:`companion.web.table` ask :func:`follow_url`
with what their one read of the table found
(:meth:`companion.tables.store.Store.board_read`); it lives apart from the
rematch views so the imports run one way (rematch renders the table's
board; the table's polls follow rematches).
"""

from __future__ import annotations

from flask import url_for

from companion.tables.store import BoardRead


def follow_url(read: BoardRead, *, spectator: bool = False) -> str | None:
    """Where a phone polling this table (or its spectator view) should go now, if anywhere."""
    if read.moved_to is None:
        return None
    new_token, new_view_token = read.moved_to
    if spectator:
        return url_for("table.view", view_token=new_view_token)
    return url_for("table.page", token=new_token)
