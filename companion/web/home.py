"""Home: start a table, list this browser's tables, join by code, import.

The start page lists only the tables this browser created or opened: a
table's address is its key, and a passer-by on the network must not find
other people's tables here (issue 10).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion.rules.messages import marked
from companion.tables.checks import shown_safely
from companion.tables.games import load as load_games
from companion.tables.store import NoSuchTable, TableError, TableView, plain_text

from . import sentence, store
from .games import FormError
from .games import load as load_screens
from .i18n import gettext, message_of, words
from .imports import MAX_IMPORT_BYTES, import_upload
from .ratelimit import import_limit, new_table_limit, record_failure, too_many_attempts
from .table_names import default_name
from .viewer import device_id, known_device

bp = Blueprint("home", __name__)

MAX_SEATS = 8


# The order of the "Start a table" menu: card games, Leaf, the rest, the pad.
MENU_ORDER = (
    "pairs",
    "venture",
    "autumn_leaves",
    "north_wind",
    "leaf",
    "autumn_ash",
    "solitaire",
)


def _games_in_menu() -> list[Any]:
    screens = load_screens()
    kinds = [kind for key, kind in load_games().items() if key in screens]
    rank = {key: i for i, key in enumerate(MENU_ORDER)}
    return sorted(kinds, key=lambda kind: (kind.key == "scorepad", rank.get(kind.key, 99)))


def _my_tables() -> list[Any]:
    device = known_device()
    tables = store().tables_of(device) if device is not None else []
    # A title or name stored before imports were checked (issue 42) may hold a
    # lone surrogate, which no page can carry: shown as "?", so the start page
    # still opens and the table can be dropped from it.
    return [_shown_safely(t) for t in tables]


def _shown_safely(table: TableView) -> TableView:
    return replace(
        table,
        title=shown_safely(table.title),
        players=tuple(shown_safely(p) for p in table.players),
    )


@bp.get("/")
def index() -> Any:
    tables = _my_tables()
    summaries = {t.token: _summary(t) for t in tables}
    return render_template(
        "home/index.html", games=_games_in_menu(), tables=tables, summaries=summaries
    )


#: Ruling LT7 (docs/live-table.md): the start page reads a table's whole log
#: for its summary only up to this many entries; a longer table is summarised
#: once this server has read it anyway (its page opened since the server
#: started). A flood of imports of 5,000 rounds had each walked in the
#: serving process for its importer's start page (issue 42).
SUMMARY_READS_AT_MOST = 500

TOO_MANY_WRONG_CODES = marked(
    "Too many wrong codes from this phone. Wait a minute, then try again."
)


def _summary(table: Any) -> str:
    screen = load_screens().get(table.game)
    if screen is None:
        return ""
    try:
        if table.version > SUMMARY_READS_AT_MOST:
            snap = store().cached_snapshot(table.token, table.version)
        else:
            snap = store().snapshot(table.token)
        return shown_safely(screen.summary(snap.state)) if snap is not None else ""
    except Exception:  # a summary is decoration: never let it break the home page
        return ""


@bp.route("/new/<game>", methods=["GET", "POST"])
@new_table_limit
def new_table(game: str) -> Any:
    kind = load_games().get(game)
    screen = load_screens().get(game)
    if kind is None or screen is None:
        abort(404)
    seats = min(MAX_SEATS, kind.max_players)
    if request.method == "GET":
        return render_template("home/new.html", kind=kind, screen=screen, seats=seats, form={})
    form = request.form
    players = tuple(" ".join(form.get(f"player{i}", "").split()) for i in range(1, seats + 1))
    players = tuple(p for p in players if p)
    try:
        options = screen.parse_options(form, players)
        typed = form.get("title", "")
        title = typed if plain_text(typed) else default_name(kind)  # in the host's words
        table = store().create_table(game, players, options, title)
    except (FormError, TableError) as exc:
        return (
            render_template(
                "home/new.html",
                kind=kind,
                screen=screen,
                seats=seats,
                form=form,
                error=words(message_of(exc)),
            ),
            422,
        )
    store().remember_member(table.token, device_id(), "host")
    return redirect(url_for("table.page", token=table.token), code=303)


@bp.route("/t/<token>/forget", methods=["GET", "POST"])
def forget_table(token: str) -> Any:
    """Take a table off this browser's start page (the table stays for the
    others): a page that asks, then the form that does it."""
    try:
        table = _shown_safely(store().table(token))
    except NoSuchTable:
        abort(404)
    device = known_device()
    if request.method == "GET":
        host = device is not None and store().role_of(token, device) == "host"
        return render_template("home/forget.html", table=table, host=host)
    dropped = device is not None and store().forget_table(token, device)
    return redirect(url_for("home.index", dropped=1 if dropped else None), code=303)


@bp.get("/join")
def join() -> Any:
    code = request.args.get("code", "")
    if not code:
        return render_template("home/join.html")
    if too_many_attempts(request.remote_addr or "?"):
        return render_template(
            "home/join.html",
            code=code[:24],
            error=gettext(TOO_MANY_WRONG_CODES),
        ), 429
    try:
        table = store().table_for_code(code[:24])
    except NoSuchTable as exc:
        record_failure(request.remote_addr or "?")
        return render_template(
            "home/join.html", code=code[:24], error=sentence(message_of(exc))
        ), 404
    return redirect(url_for("table.page", token=table.token), code=303)


@bp.get("/j/<code>")
def join_short(code: str) -> Any:
    return redirect(url_for("home.join", code=code), code=303)


@bp.post("/import")
@import_limit
def import_table() -> Any:
    upload = request.files.get("file")
    error = None
    if upload is None or not upload.filename:
        error = gettext("Choose a Leafpile table file (.json) to import.")
    else:
        try:
            table = import_upload(upload.read(MAX_IMPORT_BYTES + 1))
        except TableError as exc:
            error = sentence(message_of(exc))[:200]
        else:
            store().remember_member(table.token, device_id(), "host")
            return redirect(url_for("table.page", token=table.token), code=303)
    return import_refused(error)


def import_refused(error: str) -> Any:
    """The start page again, saying why the import was refused (422)."""
    tables = _my_tables()
    return (
        render_template(
            "home/index.html",
            games=_games_in_menu(),
            tables=tables,
            summaries={t.token: _summary(t) for t in tables},
            import_error=error,
        ),
        422,
    )
