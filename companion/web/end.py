"""The end screen: what a finished table shows above its board.

Every game's board template includes ``end/_end.html``, which asks
:func:`end_screen` for the table's summary; it is None while the game is on,
so the include costs one check per render. The summary is cached per table
version (a finished table's polls all render the same version).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from threading import Lock
from typing import Any

from flask import Blueprint

from companion.tables.projection import BoardView
from companion.tables.summaries import Summary

from .charts import Chart, line_chart
from .plays import bgstats_link

bp = Blueprint("end", __name__)


@dataclass(frozen=True)
class EndScreen:
    summary: Summary
    chart: Chart
    headline_kind: str  # "win" only for a win; "loss" or "info" otherwise
    bgstats: str = ""  # BG Stats' push-plays link for this play (exports.py)


_CACHE: OrderedDict[tuple[str, int], EndScreen] = OrderedDict()
_CACHE_LOCK = Lock()
_CACHE_SIZE = 128


def _build(board: BoardView, summary: Summary) -> EndScreen:
    chart = line_chart(
        [(s.player, s.points) for s in summary.series], summary.x_labels, summary.x_title
    )
    if summary.losers and not summary.winners:
        kind = "loss"
    elif summary.winners:
        kind = "win"
    else:
        kind = "info"
    return EndScreen(summary, chart, kind, bgstats_link(board, summary))


@bp.app_template_global()
def end_screen(board: Any) -> EndScreen | None:
    """The finished table's end screen, or None while it is being played
    (the summary comes with the phone's :class:`BoardView`)."""
    if not isinstance(board, BoardView) or board.end is None:
        return None
    key = (board.table.token, board.table.version)
    with _CACHE_LOCK:
        found = _CACHE.get(key)
    if found is not None:
        return found
    screen = _build(board, board.end)
    with _CACHE_LOCK:
        _CACHE[key] = screen
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return screen
