"""Game nights that leave the app: BG Stats links, BoardGameGeek CSVs, a backup.

Thin views over :mod:`companion.tables.exports` and
:mod:`companion.tables.backup`:

* ``/t/<token>/bgg.csv``: a finished table's play, BGG-ready (one row a player);
* ``/records/plays.csv``: every finished play on this server, BGG-ready (the
  same plays the records page counts, one row per player per play);
* ``/backup``: a backup of the tables this browser hosts (created or
  imported), with their results and name merges, restorable with
  ``leafpile restore``. A whole-server backup holds every table's address,
  so it is the host's command line (``leafpile backup``), never a web page.

The end screen's "Send to BG Stats" link comes from :mod:`.plays`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, abort

from companion.tables.exports import (
    bgg_csv,
    plays_from_results,
)
from companion.tables.results import hosted_tables
from companion.tables.store import NoSuchTable
from companion.tables.summaries import summarise

from . import store
from .costly import drawn_in_a_worker
from .groups import is_operator, scope
from .i18n import gettext
from .plays import bgg_ids, play_of
from .ratelimit import backup_limit, records_limit
from .viewer import known_device

bp = Blueprint("exports", __name__)


def _csv(body: str, filename: str) -> Response:
    return Response(
        body,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.get("/t/<token>/bgg.csv")
def table_plays(token: str) -> Any:
    try:
        snap = store().snapshot(token)
    except NoSuchTable:
        abort(404)
    table = snap.table
    summary = summarise(
        table.game, table.players, table.options, table.seed, snap.actions, snap.state
    )
    if summary is None:
        return Response(
            gettext("This game is not finished yet: its play can be logged once it is over.")
            + "\n",
            status=409,
            mimetype="text/plain",
        )
    return _csv(bgg_csv([play_of(snap, summary)]), "leafpile-play-bgg.csv")


@bp.get("/records/plays.csv")
@records_limit
@drawn_in_a_worker
def all_plays() -> Any:
    """Every finished play this browser's group may read (the records' rule:
    its own tables; every table only for the operator)."""
    tables = scope()
    lines = store().result_lines(tables, server_names=is_operator())
    # When each play began: the first event of the group's tables only (it
    # read every table's events for a stranger too, issue 42).
    started = store().plays_started(tables)
    plays = plays_from_results(lines, started, bgg_ids())
    return _csv(bgg_csv(plays), "leafpile-plays-bgg.csv")


@bp.get("/backup")
@backup_limit
@drawn_in_a_worker
def download_backup() -> Any:
    """The tables this browser hosts, chosen by the database (an indexed query
    a table), in one of the server's job slots and within the backup limit:
    a stranger's backup is empty and cheap, and a loop of them is refused."""
    data = store().backup_of(hosted_tables(known_device()))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    return Response(
        json.dumps(data, ensure_ascii=False),
        mimetype="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="leafpile-backup-{stamp}.json"',
            "Cache-Control": "no-store",
        },
    )
