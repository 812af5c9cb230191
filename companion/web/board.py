"""Drawing one phone's board from its :class:`~companion.tables.projection.BoardView`.

A board template is given the ``BoardView`` and names derived from it
(``view`` is the game's view for this phone, ``me`` and ``taken`` only when
the game draws anything per seat), never the rules state, the snapshot or
the viewer: what a template can print is what the phone may see. The phone's
own "who are you" bar is drawn here, apart, and handed in as ready HTML, so
that the rest of the board is the same for every phone with the same view
(``board_cache.py`` shares it).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from flask import current_app, render_template, request
from flask_babel import get_translations  # type: ignore[import-untyped]
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from companion.tables.log import SET_ASIDE, Event, Snapshot, undo_size
from companion.tables.projection import BoardView, Viewer, board_view

from .games import Screen
from .games import load as load_screens
from .i18n import gettext, language, words

HISTORY_ON_BOARD = 6


def screen_of(table_game: str) -> Screen:
    return load_screens()[table_game]


def is_htmx() -> bool:
    return bool(request.headers.get("HX-Request"))


def who_bar(board: BoardView, viewer: Viewer, confirm_seat: str | None, chosen: bool) -> Markup:
    """This phone's "who are you" bar (none on the spectator screen)."""
    if board.spectator:
        return Markup("")
    who = current_app.jinja_env.get_template("table/_who.html").module
    return Markup(who.who_bar(board.table, viewer, viewer.taken, confirm_seat, chosen))  # type: ignore[attr-defined]


def board_context(
    board: BoardView,
    *,
    who: Markup,
    phone: Viewer | None = None,
    error: str | None = None,
    notice: str | None = None,
    confirm_seat: str | None = None,
    confirm_reason: str = "held",
    chosen: bool = False,
    confirm_replace: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the board templates get: the ``BoardView`` and names made from
    it, this phone's bar as HTML, and the answer to its last tap. ``phone``
    (the viewer) only for a whole page, whose host controls are its own."""
    screen = screen_of(board.table.game)
    events = board.events
    here = language()  # looked up once: each line's memory is by language
    last = next((e for e in reversed(events) if e.kind == "action" and not e.undone), None)
    return {
        "board": board,
        "view": board.game,
        "table": board.table,
        "screen": screen,
        "me": board.me,
        "taken": board.taken,
        "readonly": board.readonly,
        "spectator": board.spectator,
        "events": events,
        "recent": list(reversed(events))[:HISTORY_ON_BOARD],
        "undo_title": described(screen, last, here) if last is not None else "",
        "undo_refusal": words(board.undo_refusal) if board.undo_refusal else None,
        "hidden_count": board.hidden_count,
        "describe": lambda ev: described(screen, ev, here),
        "who_bar": who,
        "phone": phone,
        "confirm_seat": confirm_seat,
        "confirm_reason": confirm_reason,
        "confirm_replace": confirm_replace,
        "chosen": chosen,  # the answer to a choice of who this phone is
        "error": error,
        "notice": notice,
        **catalog_words(),
    }


def catalog_words() -> dict[str, Any]:
    """Jinja's four gettext callables, bound to this phone's catalog once
    for the render, as Jinja's i18n extension makes them (new-style: the
    words autoescaped, then ``%`` filled from the variables, always).

    Flask-Babel installs callables that look up the request's locale and
    catalog on every call: through its context lookups a board's twenty or
    so words cost about a tenth of drawing it (issue 41). The catalog is
    the same for the whole render, so it is looked up once here; the
    render's own names win over the environment's, and a template imported
    without context (``_partials.html``) still uses Flask-Babel's."""
    catalog = get_translations()

    def worded(context: Context, text: str, variables: dict[str, Any]) -> Any:
        return (Markup(text) if context.eval_ctx.autoescape else text) % variables

    @pass_context
    def gettext(context: Context, string: str, /, **variables: Any) -> Any:
        return worded(context, catalog.ugettext(string), variables)

    @pass_context
    def ngettext(
        context: Context, singular: str, plural: str, num: int, /, **variables: Any
    ) -> Any:
        variables.setdefault("num", num)
        return worded(context, catalog.ungettext(singular, plural, num), variables)

    @pass_context
    def pgettext(context: Context, string_ctx: str, string: str, /, **variables: Any) -> Any:
        variables.setdefault("context", string_ctx)
        return worded(context, catalog.upgettext(string_ctx, string), variables)

    @pass_context
    def npgettext(
        context: Context,
        string_ctx: str,
        singular: str,
        plural: str,
        num: int,
        /,
        **variables: Any,
    ) -> Any:
        variables.setdefault("context", string_ctx)
        variables.setdefault("num", num)
        text = catalog.unpgettext(string_ctx, singular, plural, num)
        return worded(context, text, variables)

    return {"gettext": gettext, "ngettext": ngettext, "pgettext": pgettext, "npgettext": npgettext}


def phone_context(snap: Snapshot, viewer: Viewer, *, whole_page: bool) -> dict[str, Any]:
    """:func:`board_context` for this phone alone, with its bar drawn in."""
    board = board_view(snap, viewer)
    who = who_bar(board, viewer, None, False)
    return board_context(board, who=who, phone=viewer if whole_page else None)


# Each public log entry's line, by the entry (kept alive here, so its id
# stays its own) and the language: see described().
_LINES: OrderedDict[tuple[int, str], tuple[Event, str]] = OrderedDict()
_LINES_KEPT = 20_000


def described(screen: Screen, event: Event, here: str | None = None) -> str:
    """:func:`describe_event`, made once per language for each public copy of
    an entry (``projection._visible`` keeps one copy of an entry for every
    board that shows it alike, version after version). A board lists its
    latest six entries, and a change adds one: the five others' lines were
    worded for the board before, each some tens of microseconds of catalog
    lookups (issue 41). The line is made from that public copy alone, so a
    board never gets the line of an entry worded for another's view.
    ``here``: this request's language, when the caller has it already."""
    key = (id(event), here or language())
    found = _LINES.get(key)
    if found is not None and found[0] is event:
        return found[1]
    line = describe_event(screen, event)
    _LINES[key] = (event, line)
    while len(_LINES) > _LINES_KEPT:
        _LINES.popitem(last=False)
    return line


def describe_event(screen: Screen, event: Event) -> str:
    """One history line, in this phone's language."""
    if event.kind == "undo":
        entries = undo_size(event.payload)
        if event.payload and event.payload.get("type") == "ReopenRound":
            return gettext(
                "Undo of a reveal: all %(entries)s entries of that round were taken back, "
                "so everyone enters again",
                entries=entries,
            )
        return gettext("Undo")
    if event.kind == "redo":
        return gettext("Redo")
    if event.kind == SET_ASIDE:
        try:
            what = screen.describe(event.payload or {})
        except Exception:
            what = gettext("an entry")
        return gettext(
            "Set aside: %(what)s. An older version of Leafpile accepted this entry, but the "
            "rules as Leafpile reads them now do not allow it, so it no longer counts",
            what=what,
        )
    if event.kind == "seat":
        seat = str((event.payload or {}).get("seat", "?"))
        withdrawn = bool((event.payload or {}).get("action"))
        if event.seat and withdrawn:
            return gettext(
                "%(seat)s's seat moved to %(phone)s's phone (%(seat)s's hidden entry was "
                "taken back: %(seat)s enters again)",
                seat=seat,
                phone=event.seat,
            )
        if event.seat:
            return gettext(
                "%(seat)s's seat moved to %(phone)s's phone", seat=seat, phone=event.seat
            )
        if withdrawn:
            return gettext(
                "%(seat)s's seat moved to another phone (%(seat)s's hidden entry was "
                "taken back: %(seat)s enters again)",
                seat=seat,
            )
        return gettext("%(seat)s's seat moved to another phone", seat=seat)
    try:
        return screen.describe(event.payload or {})
    except Exception:  # a description is decoration: fall back to the raw fields
        return json.dumps(event.payload, ensure_ascii=False)


def render_board(
    snap: Snapshot,
    viewer: Viewer,
    *,
    error: str | None = None,
    status: int = 200,
    confirm_seat: str | None = None,
    confirm_reason: str = "held",
    notice: str | None = None,
    chosen: bool = False,
    confirm_replace: Mapping[str, Any] | None = None,
) -> tuple[str, int]:
    """The board fragment for htmx, else the whole page (same data, same
    status), drawn for this phone alone: the answer to a tap that carries
    words (an error, a notice, a question)."""
    board = board_view(snap, viewer)
    htmx = is_htmx()
    context = board_context(
        board,
        who=who_bar(board, viewer, confirm_seat, chosen),
        phone=None if htmx else viewer,
        error=error,
        notice=notice,
        confirm_seat=confirm_seat,
        confirm_reason=confirm_reason,
        chosen=chosen,
        confirm_replace=confirm_replace,
    )
    template = "table/_board.html" if htmx else "table/page.html"
    return render_template(template, **context), status
