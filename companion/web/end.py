"""The end screen: what a finished table shows above its board.

Every game's board template includes ``end/_end.html``, which asks
:func:`end_screen` for the table's summary; it is None while the game is on,
so the include costs one check per render. The end screen is cached per table
version and language (a finished table's polls all render the same version;
the chart's words are this phone's).

The summary's words come from ``companion/tables/summaries.py`` as messages
(the headline, the facts) or as English words marked for the catalogs (the
chart's axis and step labels): they are worded here, in the phone's language.
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
from .i18n import gettext, language
from .plays import bgstats_link

bp = Blueprint("end", __name__)


@dataclass(frozen=True)
class EndScreen:
    summary: Summary
    chart: Chart
    headline_kind: str  # "win" only for a win; "loss" or "info" otherwise
    bgstats: str = ""  # BG Stats' push-plays link for this play (exports.py)


_CACHE: OrderedDict[tuple[str, int, str], EndScreen] = OrderedDict()
_CACHE_LOCK = Lock()
_CACHE_SIZE = 128


def _label(label: str) -> str:
    """A chart step's label: a number stays, marked English words are worded."""
    return label if label.isdigit() else gettext(label)


def _build(board: BoardView, summary: Summary) -> EndScreen:
    # Players' names stay as typed; solitaire's one line is words ("Face-down cards").
    named = not summary.standings
    chart = line_chart(
        [(gettext(s.player) if named else s.player, s.points) for s in summary.series],
        [_label(label) for label in summary.x_labels],
        gettext(summary.x_title),
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
    key = (board.table.token, board.table.version, language())
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
