"""One table's routes: the page, its live board, taps, undo/redo, seats,
history, exports and joining.

Every view here is thin: the store walks the log and the projection
(:mod:`companion.tables.projection`) decides what this phone may see and do;
:mod:`.board` draws it and :mod:`.board_cache` shares the drawing among
phones that see the same. The game's :class:`~companion.web.games.Screen`
reads its forms.
"""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup

from companion.rules.messages import Message
from companion.tables.games import logged
from companion.tables.projection import (
    Viewer,
    board_view,
    hidden_count,
    not_chosen_message,
    refusal_for,
    replaces_anothers_entry,
    undo_refusal,
    viewer_from,
    visible_events,
)
from companion.tables.store import (
    AlreadyEntered,
    NoSuchTable,
    SeatHasEntry,
    SeatTaken,
    Snapshot,
    StaleVersion,
    TableError,
    TapUnknown,
)

from . import sentence, store
from .board import describe_event, is_htmx, phone_context, render_board, screen_of
from .board_cache import render_polled_board
from .board_json import board_json
from .follow import follow_url
from .games import FormError, FormPrompt
from .i18n import gettext, message_of
from .shared_bytes import COMPRESSION_KNOWN, SharedRender, chosen_encoding, encoded
from .viewer import SPECTATOR, device_id, known_device, viewer_for

bp = Blueprint("table", __name__)


@bp.after_request
def _never_cached(response: Response) -> Response:
    """A table's pages differ per phone and hold what that phone may see:
    no browser or proxy cache may keep one and hand it to somebody else."""
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Cookie")
    return response


def _snapshot(token: str) -> Snapshot:
    try:
        return store().snapshot(token)
    except NoSuchTable:
        abort(404)


def public_url() -> str:
    """Where phones reach this server: the LAN URL `leafpile` found, else this request's."""
    return str(current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


@lru_cache(maxsize=128)
def qr_svg(text: str) -> Markup:
    """An inline SVG QR code (cached: the same URL always draws the same code)."""
    import qrcode  # when a join code is shown: it brings Pillow, megabytes a process
    import qrcode.image.svg

    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    svg = image.to_string(encoding="unicode")
    svg = svg[svg.index("<svg") :]
    return Markup(svg.replace("<svg ", '<svg role="img" aria-label="QR code to join" ', 1))


def _page(snap: Snapshot, viewer: Viewer) -> str:
    """The whole table page for this phone."""
    return render_template("table/page.html", **phone_context(snap, viewer, whole_page=True))


def _fresh(token: str) -> tuple[Snapshot, Viewer]:
    """The table now, and this phone at it: what a tap's answer is drawn from."""
    snap = _snapshot(token)
    return snap, viewer_for(snap)


def _posted_version(snap: Snapshot) -> int:
    raw = request.form.get("version", "")
    if not raw.isdecimal() or len(raw) > 12:
        raise FormError("This page is missing its table version; reload it and try again.")
    return int(raw)


# --- pages ----------------------------------------------------------------


@bp.get("/t/<token>")
def page(token: str) -> Any:
    snap = _snapshot(token)
    # Opening a table's address puts it on this browser's start page.
    store().remember_member(token, device_id())
    return _page(snap, viewer_for(snap))


@bp.get("/t/<token>/board")
def board(token: str) -> Any:
    snap = _snapshot(token)
    return render_board(snap, viewer_for(snap))


@bp.get("/t/<token>/poll")
def poll(token: str) -> Any:
    """204 (no body) while the table is unchanged, else the fresh board.

    One statement reads the version, the rematch to follow and this
    phone's seat facts; an unchanged table stops there, and a changed one
    is drawn from the cached snapshot (and usually a cached render).
    """
    device = known_device()
    try:
        read = store().board_read(token, device)
    except NoSuchTable:
        # Deleted by its host (or never there): phones still showing it go home.
        return Response(status=404, headers={"HX-Redirect": url_for("home.index", gone=1)})
    if (rematch := follow_url(read)) is not None:  # Play again: every phone follows
        return Response(status=204, headers={"HX-Redirect": rematch})
    if request.args.get("v") == str(read.version):
        return Response(status=204)
    snap = store().snapshot_at(read.token, read.version)
    return render_polled_board(snap, viewer_from(snap, device, read.facts))


def _spectated(view_token: str) -> Snapshot:
    """The table behind a spectator address, or 404."""
    try:
        return store().snapshot(store().table_by_view_token(view_token).token)
    except NoSuchTable:
        abort(404)


@bp.get("/v/<view_token>")
def view(view_token: str) -> Any:
    return _page(_spectated(view_token), SPECTATOR)


@bp.get("/v/<view_token>/poll")
def view_poll(view_token: str) -> Any:
    try:
        read = store().board_read(view_token, None, spectator=True)
    except NoSuchTable:
        return Response(status=404, headers={"HX-Redirect": url_for("home.index", gone=1)})
    if (rematch := follow_url(read, spectator=True)) is not None:
        return Response(status=204, headers={"HX-Redirect": rematch})
    if request.args.get("v") == str(read.version):
        return Response(status=204)
    return render_polled_board(store().snapshot_at(read.token, read.version), SPECTATOR)


@bp.get("/t/<token>/board.json")
def board_data(token: str) -> Response:
    """This phone's board as data (``docs/board-json.md``): the view the page is drawn from."""
    snap = _snapshot(token)
    return _json(board_json(board_view(snap, viewer_for(snap))))


@bp.get("/v/<view_token>/board.json")
def view_board_data(view_token: str) -> Response:
    """The spectator screen's board as data."""
    return _json(board_json(board_view(_spectated(view_token), SPECTATOR)))


def _json(data: dict[str, Any]) -> Response:
    return Response(json.dumps(data, ensure_ascii=False), mimetype="application/json")


# --- writes ---------------------------------------------------------------


def _write(token: str, do: Any) -> Any:
    """Run one write; answer with the fresh board, the message and the right status.

    The table is read once before the write (version, seats, this phone:
    one statement, the snapshot from the cache); the write's own
    transaction returns the new snapshot, and a write changes no seat, so
    the answer is drawn from those two without reading again.
    """
    device = known_device()
    try:
        read = store().board_read(token, device)
    except NoSuchTable:
        abort(404)
    snap = store().snapshot_at(read.token, read.version)
    try:
        version = _posted_version(snap)
        after = do(snap, viewer_from(snap, device, read.facts), version)
    except TapUnknown as exc:
        # The database is unreachable: no board to draw, only the truth.
        template = "_error_fragment.html" if is_htmx() else "error.html"
        return render_template(template, status=503, message=sentence(message_of(exc))), 503
    except AlreadyEntered as exc:
        # The same tap again (a retry, a double tap): entered once, and said so.
        return render_board(*_fresh(token), notice=sentence(message_of(exc)), status=200)
    except StaleVersion as exc:
        return render_board(*_fresh(token), error=sentence(message_of(exc)), status=409)
    except AskFirst as exc:  # replacing another phone's hidden entry: the person says yes
        return render_board(*_fresh(token), confirm_replace=exc.question, status=409)
    except FormPrompt as exc:  # the game's next question: nothing is wrong
        return render_board(*_fresh(token), notice=sentence(message_of(exc)))
    except (FormError, TableError) as exc:
        return render_board(*_fresh(token), error=_not_entered(message_of(exc)), status=422)
    if is_htmx():
        board = render_polled_board(after, viewer_from(after, device, read.facts))
        return _encoded_once(*board)
    return redirect(url_for("table.page", token=token), code=303)


def _encoded_once(body: Any, status: int) -> Any:
    """A shared board as the response, already in the encoding Flask-Compress
    would choose (it leaves an encoded answer alone): the entry's answer and
    the other phones' fetches of the same board share one compression."""
    if not isinstance(body, SharedRender) or not COMPRESSION_KNOWN:
        return body, status
    encoding = chosen_encoding(request.headers.get("Accept-Encoding", ""))
    data, encoding = encoded(current_app, body, encoding)
    response = Response(data, status=status, content_type="text/html; charset=utf-8")
    if encoding is not None:
        response.headers["Content-Encoding"] = encoding
    return response


def _refused(message: Message) -> FormError:
    """A refusal of the projection as a form error that keeps its words as a
    value (``message_of`` finds them), to be worded in the phone's language."""
    error = FormError(str(message))
    error.message = message  # type: ignore[attr-defined]
    return error


def _not_entered(message: str | Message) -> str:
    """A refusal says plainly that the tap changed nothing (in this phone's
    language: whether it says so already is read from the English words)."""
    worded = sentence(message)
    if "not entered" in str(message).lower():
        return worded
    not_entered = gettext("This tap was not entered.")
    return f"{worded} {not_entered}"


def _tap() -> str | None:
    """The id the phone's script gave this tap (a tap sent twice is entered once)."""
    return request.form.get("tap") or None


def _follows() -> list[str]:
    """The ids of the taps this phone queued before this one and sent first
    (app.js's offline queue): their entries are not a conflict with it."""
    return request.form.getlist("follows")[:20]


def _legal_now(snap: Snapshot, action: Any) -> bool:
    """Whether the rules would take ``action`` on the table as it is."""
    try:
        snap.table.kind.apply(snap.state, action)
    except ValueError:  # a RuleError: the entry itself says why it is refused
        return False
    return True


class AskFirst(Exception):
    """The tap needs the person's yes before it is entered (nothing was written)."""

    def __init__(self, question: dict[str, Any]) -> None:
        super().__init__(question["player"])
        self.question = question


# What a form carries besides the tap itself: not sent back with the question.
_NOT_ASKED_AGAIN = frozenset({"csrf_token", "version", "tap", "follows", "replace"})


@bp.post("/t/<token>/act")
def act(token: str) -> Any:
    def do(snap: Snapshot, viewer: Viewer, version: int) -> Snapshot:
        if not viewer.may_act:
            raise _refused(not_chosen_message(viewer))
        action = screen_of(snap.table.game).parse_action(request.form, snap.state, viewer.seat)
        refusal = refusal_for(snap, viewer, logged(action))
        if refusal is not None:
            raise _refused(refusal)
        # Another phone's hidden entry is replaced only after a yes, as
        # claiming its seat is (LT3): the question says whose, never what.
        player = replaces_anothers_entry(snap, viewer, logged(action))
        if (
            player is not None
            and request.form.get("replace") != "yes"
            and _legal_now(snap, logged(action))  # else the rules' refusal says why
        ):
            fields = [
                (key, value[:200])
                for key, value in request.form.items(multi=True)
                if key not in _NOT_ASKED_AGAIN
            ][:40]
            raise AskFirst({"player": player, "fields": fields})
        return store().act(
            token,
            version,
            action,
            seat=viewer.seat,
            device=viewer.device,
            tap=_tap(),
            follows=_follows(),
        )

    return _write(token, do)


@bp.post("/t/<token>/undo")
def undo(token: str) -> Any:
    def do(snap: Snapshot, viewer: Viewer, version: int) -> Snapshot:
        refusal = undo_refusal(snap, viewer)
        if refusal is not None:
            raise _refused(refusal)
        return store().undo(
            token, version, viewer.seat, device=viewer.device, tap=_tap(), follows=_follows()
        )

    return _write(token, do)


@bp.post("/t/<token>/redo")
def redo(token: str) -> Any:
    def do(snap: Snapshot, viewer: Viewer, version: int) -> Snapshot:
        if not viewer.may_act:
            raise _refused(not_chosen_message(viewer))
        return store().redo(
            token, version, viewer.seat, device=viewer.device, tap=_tap(), follows=_follows()
        )

    return _write(token, do)


@bp.post("/t/<token>/me")
def choose_seat(token: str) -> Any:
    """This phone says who it is: a player's seat, the shared phone, or watching.

    A seat held by another phone, or a free seat whose hidden entry another
    phone made, is only taken when the person confirms it; the claim is
    announced to the table and takes back that hidden entry, so the new
    phone learns nothing of it (LT1, LT3).
    """
    snap = _snapshot(token)
    seat = request.form.get("seat", "")
    mode = request.form.get("mode", "")
    device = device_id()
    try:
        if mode in ("shared", "watching") or (seat == "" and mode == ""):
            store().set_mode(token, device, mode or "shared")
        elif seat in snap.table.players:
            store().take_seat(
                token,
                seat,
                device,
                take_over=request.form.get("take_over") == "yes",
                withdraw=snap.table.kind.withdraw,
            )
        else:
            message = f"There is no player called {seat[:40]!r} at this table. Nothing changed."
            return render_board(snap, viewer_for(snap), error=message, status=422)
    except SeatHasEntry:
        return render_board(*_fresh(token), confirm_seat=seat, confirm_reason="entry", status=409)
    except SeatTaken:
        return render_board(*_fresh(token), confirm_seat=seat, status=409)
    except NoSuchTable:
        abort(404)
    if is_htmx():
        return render_board(*_fresh(token), chosen=True)
    return redirect(url_for("table.page", token=token), code=303)


@bp.post("/t/<token>/host")
def hand_host(token: str) -> Any:
    """The host's phone makes another seated phone the host (LT5)."""
    snap = _snapshot(token)
    viewer = viewer_for(snap)
    seat = request.form.get("seat", "")
    if not viewer.host:
        message = "Only the host's phone can hand the host role on. Nothing changed."
        return render_board(snap, viewer, error=message, status=403)
    if seat not in viewer.taken:
        message = (
            f"{seat[:40] or 'That player'} has no phone of their own at this table, "
            "so it cannot be host. Nothing changed."
        )
        return render_board(snap, viewer, error=message, status=422)
    store().hand_host(token, viewer.device or device_id(), seat)
    if is_htmx():
        return render_board(*_fresh(token), notice=f"{seat}'s phone is the host now.")
    return redirect(url_for("table.page", token=token), code=303)


@bp.post("/t/<token>/delete")
def delete(token: str) -> Any:
    """The host deletes the table for everyone (its phones go to the start page)."""
    snap = _snapshot(token)
    viewer = viewer_for(snap)
    if not viewer.host:
        message = "Only the host's phone can delete this table. Nothing was deleted."
        return render_board(snap, viewer, error=message, status=403)
    if request.form.get("confirm") != "yes":
        return render_board(snap, viewer, error="Tick the box to delete the table.", status=422)
    store().delete_table(token)
    target = url_for("home.index", deleted=1)
    if is_htmx():
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target, code=303)


# --- history, export, join ------------------------------------------------


@bp.get("/t/<token>/history")
def history(token: str) -> Any:
    snap = _snapshot(token)
    context = phone_context(snap, viewer_for(snap), whole_page=True)
    return render_template("table/history.html", **context)


@bp.get("/t/<token>/export.json")
def export_json(token: str) -> Any:
    snap = _snapshot(token)
    viewer = viewer_for(snap)
    data = store().export(token, events=visible_events(snap, viewer), snapshot=snap)
    hidden = hidden_count(snap, viewer)
    if hidden:
        data["hidden_entries"] = (
            f"{hidden} entries of the round in play are hidden until everyone has entered "
            'theirs (their card reads "hidden"); export again after the reveal for the full log.'
        )
    body = json.dumps(data, ensure_ascii=False, indent=2)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{_filename(data)}.json"'},
    )


@bp.get("/t/<token>/export.csv")
def export_csv(token: str) -> Any:
    snap = _snapshot(token)
    screen = screen_of(snap.table.game)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["seq", "time_utc", "kind", "undone", "phone", "description", "action_json"])
    for ev in visible_events(snap, viewer_for(snap)):
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


def join_code_length() -> int:
    """LEAFPILE_JOIN_CODE_LENGTH (5 to 10; default 5; deploy/serve sets 8: issue 23)."""
    from companion.tables import join_codes

    configured = current_app.config.get("JOIN_CODE_LENGTH")
    if configured is None:
        configured = os.environ.get("LEAFPILE_JOIN_CODE_LENGTH", "").strip() or None
    try:
        length = int(configured) if configured is not None else join_codes.SHORTEST
    except ValueError:
        length = join_codes.SHORTEST
    return min(max(length, join_codes.SHORTEST), join_codes.LONGEST)


@bp.get("/t/<token>/join")
def join(token: str) -> Any:
    from companion.tables.join_codes import shown

    snap = _snapshot(token)
    url = public_url() + url_for("table.page", token=token)
    view_url = public_url() + url_for("table.view", view_token=snap.table.view_token)
    code, expires = store().join_code(
        token, int(current_app.config["JOIN_CODE_MINUTES"]), join_code_length()
    )
    code = shown(code)
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
