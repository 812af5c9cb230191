"""A finished play as the outside world logs it: BG Stats' link and BGG's ids.

Shared by the end screen and the exports (blueprints take it from here,
never from each other).
"""

from __future__ import annotations

from flask import current_app

from companion.tables.exports import Play, bgstats_url, play_from_summary
from companion.tables.log import Snapshot
from companion.tables.projection import BoardView
from companion.tables.summaries import Summary

from .i18n import words


def play_of(snap: Snapshot | BoardView, summary: Summary) -> Play:
    """The play a finished table's snapshot and summary describe."""
    counted = [e for e in snap.events if not e.undone]
    started = counted[0].created_at if counted else snap.table.created_at
    finished = counted[-1].created_at if counted else snap.table.updated_at
    table = snap.table
    return play_from_summary(
        table.token,
        table.title,
        table.players,
        summary,
        finished,
        started,
        bgg_ids(),
        comment=words(summary.headline),  # in the language of the phone that logs it
    )


def bgg_ids() -> dict[str, int]:
    """The server's BoardGameGeek ids (``LEAFPILE_BGG_IDS``, checked at start)."""
    return dict(current_app.config.get("BGG_IDS") or {})


def bgstats_link(snap: Snapshot | BoardView, summary: Summary) -> str:
    """The end screen's "Send to BG Stats" address (BG Stats' push-plays format)."""
    return bgstats_url(play_of(snap, summary))
