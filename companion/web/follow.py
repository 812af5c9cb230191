"""Following a rematch from the old table's polls.

Once a finished table has a rematch (:mod:`companion.web.rematch`), every
phone still polling the old table, spectators included, is sent on to the
new one. The poll views in :mod:`companion.web.table` ask :func:`follow_url`;
it lives apart from the rematch views so the imports run one way (rematch
renders the table's board; the table's polls follow rematches).
"""

from __future__ import annotations

from flask import url_for

from . import store

_FOLLOW_SQL = (
    "SELECT n.token, n.view_token FROM rematches r"
    " JOIN tables o ON o.id = r.old_table_id"
    " JOIN tables n ON n.id = r.new_table_id"
    " WHERE o.{column} = {marker}"
)


def follow_url(token: str, *, spectator: bool = False) -> str | None:
    """Where a phone polling this table (or its spectator view) should go now, if anywhere.

    One indexed query straight to the driver, like ``Store.version``: it is
    asked on every poll.
    """
    source = store()
    marker = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(
        source.engine.dialect.paramstyle, "?"
    )
    sql = _FOLLOW_SQL.format(column="view_token" if spectator else "token", marker=marker)
    connection = source.engine.raw_connection()
    try:
        cursor = connection.cursor()
        try:
            cursor.execute(sql, (token,))
            found = cursor.fetchone()
        finally:
            cursor.close()
    finally:
        connection.close()
    if not found:
        return None
    new_token, new_view_token = found
    if spectator:
        return url_for("table.view", view_token=new_view_token)
    return url_for("table.page", token=new_token)
