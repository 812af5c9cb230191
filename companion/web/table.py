"""One table: the page, its live board, actions, undo/redo, history, export, join.

Every view here is generic: the game's :class:`~companion.web.games.Screen`
reads its forms and draws its board; the store checks versions and rules.
"""

from __future__ import annotations

import csv
import io
import json
from collections import OrderedDict
from datetime import UTC, datetime
from functools import lru_cache
from threading import Lock
from typing import Any

import qrcode
import qrcode.image.svg
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from markupsafe import Markup

from companion.tables.store import (
    NoSuchTable,
    Snapshot,
    StaleVersion,
    TableError,
)

from . import csrf_token, sentence, store
from .games import FormError, Screen
from .games import load as load_screens

bp = Blueprint("table", __name__)

HISTORY_ON_BOARD = 6


# --- helpers --------------------------------------------------------------


def _screen(snap: Snapshot) -> Screen:
    return load_screens()[snap.table.game]


def _is_htmx() -> bool:
    return bool(request.headers.get("HX-Request"))


def _snapshot(token: str) -> Snapshot:
    try:
        return store().snapshot(token)
    except NoSuchTable:
        abort(404)


def my_seat(snap: Snapshot) -> str | None:
    """The seat this phone picked at this table, if it still exists."""
    seat = session.get("seats", {}).get(snap.table.token[:16])
    return seat if seat in snap.table.players else None


def public_url() -> str:
    """Where phones reach this server: the LAN URL `leafpile` found, else this request's."""
    return str(current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


@lru_cache(maxsize=128)
def qr_svg(text: str) -> Markup:
    """An inline SVG QR code (cached: the same URL always draws the same code)."""
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    svg = image.to_string(encoding="unicode")
    svg = svg[svg.index("<svg") :]
    return Markup(svg.replace("<svg ", '<svg role="img" aria-label="QR code to join" ', 1))


def board_context(snap: Snapshot, *, error: str | None, readonly: bool) -> dict[str, Any]:
    screen = _screen(snap)
    recent = [e for e in reversed(snap.events)][:HISTORY_ON_BOARD]
    return {
        "table": snap.table,
        "snap": snap,
        "state": snap.state,
        "screen": screen,
        "me": None if readonly else my_seat(snap),
        "error": error,
        "readonly": readonly,
        "recent": recent,
        "describe": lambda ev: describe_event(screen, ev),
    }


def describe_event(screen: Screen, event: Any) -> str:
    if event.kind == "undo":
        return "Undo"
    if event.kind == "redo":
        return "Redo"
    try:
        return screen.describe(event.payload or {})
    except Exception:  # a description is decoration: fall back to the raw fields
        return json.dumps(event.payload, ensure_ascii=False)


def render_board(
    snap: Snapshot, *, error: str | None = None, status: int = 200, readonly: bool = False
) -> Any:
    """The board fragment for htmx, else the whole page (same data, same status)."""
    context = board_context(snap, error=error, readonly=readonly)
    template = "table/_board.html" if _is_htmx() else "table/page.html"
    return render_template(template, **context), status


# Six phones at a table poll the same version of the same board: render it
# once per (table, version, seat, view) in this process and give each phone
# its own copy with its own CSRF token. Only for plain polls (no query but
# ``v``) and for the board a successful write answers with (the next polls
# ask for exactly that version): no board template renders these two
# differently per request.
_POLLED: OrderedDict[tuple[str, int, str | None, bool, bool], str] = OrderedDict()
_POLLED_LOCK = Lock()
_POLLED_SIZE = 256
_CSRF_SLOT = "\x00csrf\x00"  # a NUL never occurs in a rendered page


def render_polled_board(snap: Snapshot, *, readonly: bool = False) -> Any:
    """``render_board`` for a poll or a successful write, through a small per-process cache."""
    if set(request.args) - {"v"}:
        return render_board(snap, readonly=readonly)
    me = None if readonly else my_seat(snap)
    key = (snap.table.token, snap.table.version, me, readonly, _is_htmx())
    token = csrf_token()
    with _POLLED_LOCK:
        cached = _POLLED.get(key)
        if cached is not None:
            _POLLED.move_to_end(key)
    if cached is not None:
        return cached.replace(_CSRF_SLOT, token), 200
    html, status = render_board(snap, readonly=readonly)
    with _POLLED_LOCK:
        _POLLED[key] = html.replace(token, _CSRF_SLOT)
        while len(_POLLED) > _POLLED_SIZE:
            _POLLED.popitem(last=False)
    return html, status


def _posted_version(snap: Snapshot) -> int:
    raw = request.form.get("version", "")
    if not raw.isdecimal() or len(raw) > 12:
        raise FormError("This page is missing its table version; reload it and try again.")
    return int(raw)


# --- pages ----------------------------------------------------------------


@bp.get("/t/<token>")
def page(token: str) -> Any:
    snap = _snapshot(token)
    return render_template("table/page.html", **board_context(snap, error=None, readonly=False))


@bp.get("/t/<token>/board")
def board(token: str) -> Any:
    return render_board(_snapshot(token))


@bp.get("/t/<token>/poll")
def poll(token: str) -> Any:
    """204 (no body) while the table is unchanged, else the fresh board."""
    try:
        version = store().version(token)
    except NoSuchTable:
        return Response(status=404)
    if request.args.get("v") == str(version):
        return Response(status=204)
    return render_polled_board(_snapshot(token))


@bp.get("/v/<view_token>")
def view(view_token: str) -> Any:
    try:
        table = store().table_by_view_token(view_token)
    except NoSuchTable:
        abort(404)
    snap = store().snapshot(table.token)
    return render_template("table/page.html", **board_context(snap, error=None, readonly=True))


@bp.get("/v/<view_token>/poll")
def view_poll(view_token: str) -> Any:
    try:
        table = store().table_by_view_token(view_token)
    except NoSuchTable:
        return Response(status=404)
    if request.args.get("v") == str(table.version):
        return Response(status=204)
    return render_polled_board(store().snapshot(table.token), readonly=True)


# --- writes ---------------------------------------------------------------


def _write(token: str, do: Any) -> Any:
    """Run one write; answer with the fresh board, the message and the right status."""
    snap = _snapshot(token)
    try:
        version = _posted_version(snap)
        after = do(snap, version)
    except StaleVersion as exc:
        return render_board(store().snapshot(token), error=sentence(str(exc)), status=409)
    except (FormError, TableError) as exc:
        return render_board(store().snapshot(token), error=sentence(str(exc)), status=422)
    if _is_htmx():
        return render_polled_board(after)
    return redirect(url_for("table.page", token=token), code=303)


@bp.post("/t/<token>/act")
def act(token: str) -> Any:
    def do(snap: Snapshot, version: int) -> Snapshot:
        me = my_seat(snap)
        action = _screen(snap).parse_action(request.form, snap.state, me)
        return store().act(token, version, action, seat=me)

    return _write(token, do)


@bp.post("/t/<token>/undo")
def undo(token: str) -> Any:
    return _write(token, lambda snap, version: store().undo(token, version, my_seat(snap)))


@bp.post("/t/<token>/redo")
def redo(token: str) -> Any:
    return _write(token, lambda snap, version: store().redo(token, version, my_seat(snap)))


@bp.post("/t/<token>/me")
def choose_seat(token: str) -> Any:
    """Remember which player holds this phone (or nobody: a shared phone)."""
    snap = _snapshot(token)
    seat = request.form.get("seat", "")
    seats = dict(session.get("seats", {}))
    if seat in snap.table.players:
        seats[token[:16]] = seat
    elif seat == "":
        seats.pop(token[:16], None)
    else:
        return render_board(snap, error=f"There is no player called {seat[:40]!r}.", status=422)
    session["seats"] = seats
    if _is_htmx():
        return render_board(snap)
    return redirect(url_for("table.page", token=token), code=303)


# --- history, export, join ------------------------------------------------


@bp.get("/t/<token>/history")
def history(token: str) -> Any:
    snap = _snapshot(token)
    context = board_context(snap, error=None, readonly=False)
    return render_template("table/history.html", **context)


@bp.get("/t/<token>/export.json")
def export_json(token: str) -> Any:
    try:
        data = store().export(token)
    except NoSuchTable:
        abort(404)
    body = json.dumps(data, ensure_ascii=False, indent=2)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{_filename(data)}.json"'},
    )


@bp.get("/t/<token>/export.csv")
def export_csv(token: str) -> Any:
    snap = _snapshot(token)
    screen = _screen(snap)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["seq", "time_utc", "kind", "undone", "phone", "description", "action_json"])
    for ev in snap.events:
        writer.writerow(
            [
                ev.seq,
                ev.created_at.isoformat(timespec="seconds"),
                ev.kind,
                "yes" if ev.undone else "",
                _csv_safe(ev.seat or ""),
                _csv_safe(describe_event(screen, ev)),
                _csv_safe(json.dumps(ev.payload, ensure_ascii=False) if ev.payload else ""),
            ]
        )
    name = _filename({"game": snap.table.game, "title": snap.table.title})
    return Response(
        out.getvalue(),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


def _csv_safe(text: str) -> str:
    # A cell starting with = + - @ would run as a formula in a spreadsheet.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _filename(data: dict[str, Any]) -> str:
    title = "".join(c if c.isalnum() else "-" for c in str(data.get("title", "")))[:40]
    return f"leafpile-{data.get('game', 'table')}-{title}".strip("-") or "leafpile-table"


@bp.get("/t/<token>/join")
def join(token: str) -> Any:
    snap = _snapshot(token)
    url = public_url() + url_for("table.page", token=token)
    view_url = public_url() + url_for("table.view", view_token=snap.table.view_token)
    code, expires = store().join_code(token, int(current_app.config["JOIN_CODE_MINUTES"]))
    return render_template(
        "table/join.html",
        table=snap.table,
        url=url,
        view_url=view_url,
        qr=qr_svg(url),
        view_qr=qr_svg(view_url),
        code=code,
        minutes_left=max(
            1, round((expires - datetime.now(UTC).replace(tzinfo=None)).total_seconds() / 60)
        ),
        join_page=public_url() + url_for("home.join"),
    )
