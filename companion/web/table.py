"""One table: the page, its live board, actions, undo/redo, history, export, join.

Every view here is generic: the game's :class:`~companion.web.games.Screen`
reads its forms and draws its board; the store checks versions and rules.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from threading import Lock
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
from jinja2 import Environment, meta, nodes
from markupsafe import Markup

from companion.tables.store import (
    SET_ASIDE,
    AlreadyEntered,
    NoSuchTable,
    SeatHasEntry,
    SeatTaken,
    Snapshot,
    StaleVersion,
    TableError,
    TapUnknown,
    undo_size,
)
from companion.tables.summaries import is_over

from . import csrf_token, has_csrf_token, sentence, store
from .follow import follow_url
from .games import FormError, FormPrompt, Screen
from .games import load as load_screens
from .shared_bytes import COMPRESSION_KNOWN, SharedRender, chosen_encoding, encoded
from .viewer import (
    Viewer,
    device_id,
    hidden_count,
    known_device,
    not_chosen_message,
    refusal_for,
    undo_refusal,
    viewer_for,
    viewer_from,
    visible_events,
)

bp = Blueprint("table", __name__)

HISTORY_ON_BOARD = 6


@bp.after_request
def _never_cached(response: Response) -> Response:
    """A table's pages differ per phone and hold what that phone may see:
    no browser or proxy cache may keep one and hand it to somebody else."""
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Cookie")
    return response


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
    """The seat this phone holds at this table, if any."""
    return viewer_for(snap).seat


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


def board_context(
    snap: Snapshot,
    *,
    error: str | None,
    readonly: bool,
    viewer: Viewer | None = None,
    confirm_seat: str | None = None,
    confirm_reason: str = "held",
    notice: str | None = None,
    chosen: bool = False,
) -> dict[str, Any]:
    """What every board template gets. Events come through the viewer's
    projection, so no template can show another player's hidden entry."""
    screen = _screen(snap)
    viewer = viewer or viewer_for(snap, readonly=readonly)
    events = visible_events(snap, viewer)
    recent = [e for e in reversed(events)][:HISTORY_ON_BOARD]
    last = next((e for e in reversed(events) if e.kind == "action" and not e.undone), None)
    return {
        "table": snap.table,
        "snap": snap,
        "state": snap.state,
        "screen": screen,
        "viewer": viewer,
        "me": viewer.seat,
        "taken": viewer.taken,
        "confirm_seat": confirm_seat,
        "confirm_reason": confirm_reason,
        "chosen": chosen,  # the answer to a choice of who this phone is
        "error": error,
        "notice": notice,
        # Game templates draw no pad or button when readonly: a spectator, a
        # phone that is just watching, and one that has not said who it is.
        "readonly": readonly or not viewer.may_act,
        "spectator": readonly,
        "events": events,
        "recent": recent,
        "undo_title": describe_event(screen, last) if last is not None else "",
        "undo_refusal": undo_refusal(snap, viewer) if viewer.may_act else None,
        "hidden_count": hidden_count(snap, viewer),
        "describe": lambda ev: describe_event(screen, ev),
    }


def describe_event(screen: Screen, event: Any) -> str:
    if event.kind == "undo":
        entries = undo_size(event.payload)
        if event.payload and event.payload.get("type") == "ReopenRound":
            return (
                f"Undo of a reveal: all {entries} entries of that round were taken back, "
                "so everyone enters again"
            )
        return "Undo"
    if event.kind == "redo":
        return "Redo"
    if event.kind == SET_ASIDE:
        try:
            what = screen.describe(event.payload or {})
        except Exception:
            what = "an entry"
        return (
            f"Set aside: {what}. An older version of Leafpile accepted this entry, but the "
            "rules as Leafpile reads them now do not allow it, so it no longer counts"
        )
    if event.kind == "seat":
        seat = (event.payload or {}).get("seat", "?")
        by = f"{event.seat}'s phone" if event.seat else "another phone"
        withdrawn = (
            f" ({seat}'s hidden entry was taken back: {seat} enters again)"
            if (event.payload or {}).get("action")
            else ""
        )
        return f"{seat}'s seat moved to {by}{withdrawn}"
    try:
        return screen.describe(event.payload or {})
    except Exception:  # a description is decoration: fall back to the raw fields
        return json.dumps(event.payload, ensure_ascii=False)


def render_board(
    snap: Snapshot,
    *,
    error: str | None = None,
    status: int = 200,
    readonly: bool = False,
    confirm_seat: str | None = None,
    confirm_reason: str = "held",
    notice: str | None = None,
    chosen: bool = False,
) -> Any:
    """The board fragment for htmx, else the whole page (same data, same status)."""
    context = board_context(
        snap,
        error=error,
        readonly=readonly,
        confirm_seat=confirm_seat,
        confirm_reason=confirm_reason,
        notice=notice,
        chosen=chosen,
    )
    template = "table/_board.html" if _is_htmx() else "table/page.html"
    return render_template(template, **context), status


# Six phones at a table fetch the same version of the same board after each
# change. The board fragment is rendered once per *projection* (see
# ``_projection``) and shared: the phones of four seated players who see the
# same cards get one render, with each phone's own "who are you" bar put back
# into the shared copy (it is cut out of it). A fragment for htmx carries no
# CSRF token at all (its fields are empty: htmx sends the page's token as a
# header, and app.js fills the fields for a form sent without htmx), so the
# phones with one projection and one viewer key get the very same string,
# a ``SharedRender``, whose compressed bytes are made once (shared_bytes.py).
# A full page gets this phone's token back. Only for plain polls (no query
# but ``v``) and for the board a successful write answers with (the next
# fetches ask for exactly that version). The key also holds the page
# address htmx reports (Venture's shared phone keeps the bidder there), so a
# phone never gets a board rendered for anybody who may see something else.
# The "who are you" bars are kept here too, one per table version and viewer
# key (``_shared_who_bar``).
#
# Bounded: at most _POLLED_SIZE renders and _POLLED_CHARS characters (a score
# pad's fragment is about 10,000), the least recently used going first, so
# the cache holds at most about 24 MB a process.
_POLLED: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_POLLED_LOCK = Lock()
_POLLED_SIZE = 4096
_POLLED_CHARS = 24_000_000
_polled_chars = 0
_CSRF_SLOT = "\x00csrf\x00"  # a NUL never occurs in a rendered page
_WHO_SLOT = "\x00who\x00"
# Every CSRF token a board carries (form fields, htmx headers): the cached copy
# keeps none of them, whichever token the rendering request happened to sign.
_CSRF_VALUES = ('name="csrf_token" value="', 'CSRF-Token": "')  # each up to the next quote

# What a game's board template may read and still be shared between phones
# (board_context's names that are the same for every phone with one
# projection key), and the names that tell phones apart, which go into the key.
_SAME_FOR_THE_KEY = frozenset(
    {
        "table",
        "snap",
        "state",
        "screen",
        "events",
        "recent",
        "readonly",
        "spectator",
        "error",
        "notice",
        "undo_title",
        "undo_refusal",
        "hidden_count",
        "describe",
        "confirm_seat",
        "confirm_reason",
        "chosen",
    }
)
_PHONE_FACTS = frozenset({"me", "taken", "viewer"})
# Flask's per-request globals. A template that reads ``request`` is shared only
# on a GET, whose request holds nothing but its address (in the key) and
# cookies (the CSRF slot): not the answer to a write, which could echo its form.
_NEVER_SHARED = frozenset({"session", "g"})


def _without_tokens(html: str, slot: str = _CSRF_SLOT) -> str:
    # str.split finds the markers far faster than a regular expression with
    # two alternatives, which tries every position of a 10,000-character board.
    for marker in _CSRF_VALUES:
        first, *rest = html.split(marker)
        if rest:
            html = first + "".join(marker + _token_cut(piece, slot) for piece in rest)
    return html


def _token_cut(piece: str, slot: str) -> str:
    """``piece`` (what follows a token's opening quote) with the token up to
    its closing quote made ``slot``; unchanged if it never closes."""
    end = piece.find('"')
    return piece if end < 0 else slot + piece[end:]


@dataclass(frozen=True)
class _Reads:
    """What a board template (with what it includes) reads from outside itself."""

    names: frozenset[str]
    # The attributes of ``viewer`` it reads, when it reads nothing else of it
    # (``viewer.host``, ``viewer is defined``); None when it passes the whole viewer on.
    viewer_attributes: frozenset[str] | None


# The end screen draws nothing while the game is on (all of it sits under
# ``{% if end %}``), so what it reads of the phone (``viewer.host``: only the
# host's phone offers Play again) tells phones apart only once the game is
# over; before that the host's phone shares the players' render.
# tests/test_cheap_reads.py pins both.
_SILENT_WHILE_ON = frozenset({"end/_end.html"})


@lru_cache(maxsize=64)
def _names_read(
    env: Environment, name: str, leave_out: frozenset[str] = frozenset()
) -> _Reads | None:
    """Every name a template reads from outside itself (the context or the
    app's globals), with every template it includes or imports (but those in
    ``leave_out``); None when it includes one named only at render time.

    Parsed without the app's globals, which Jinja would otherwise leave out
    (a read of ``request`` must show). A name one of these templates sets
    (``{% set end = ... %}`` read by the template it includes) is its own,
    unless it is one of the names that tell phones apart: those always count.
    """
    assert env.loader is not None
    bare = Environment()
    bare.filters, bare.tests = env.filters, env.tests
    names: set[str] = set()
    assigned: set[str] = set()
    attributes: set[str] = set()
    whole_viewer = False
    seen: set[str] = set(leave_out)
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        tree = bare.parse(env.loader.get_source(env, current)[0])
        names |= meta.find_undeclared_variables(tree)
        assigned |= {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
        assigned |= {n.target for n in tree.find_all(nodes.Import)}
        assigned |= {
            n if isinstance(n, str) else n[1]
            for i in tree.find_all(nodes.FromImport)
            for n in i.names
        }
        loads = sum(1 for n in tree.find_all(nodes.Name) if n.name == "viewer" and n.ctx == "load")
        got = [
            n.attr
            for n in tree.find_all(nodes.Getattr)
            if isinstance(n.node, nodes.Name) and n.node.name == "viewer"
        ]
        tested = sum(
            1
            for n in tree.find_all(nodes.Test)
            if n.name == "defined" and isinstance(n.node, nodes.Name) and n.node.name == "viewer"
        )
        attributes |= set(got)
        whole_viewer |= loads != len(got) + tested
        for referenced in meta.find_referenced_templates(tree):
            if referenced is None:
                return None
            todo.append(referenced)
    return _Reads(
        frozenset(names - (assigned - _PHONE_FACTS - _NEVER_SHARED)),
        None if whole_viewer else frozenset(attributes),
    )


def _projection(snap: Snapshot, viewer: Viewer) -> tuple[Any, ...] | None:
    """What a phone's board fragment shows, apart from its "who are you" bar
    and CSRF token: two phones with the same projection get the same bytes.

    Everything the board draws per phone is a value here: whether it may
    enter (pads, undo), why it may not undo, which hidden entries are shown
    back to it (LT3: ``sees``, and its seat when it sees any), how many it
    cannot see; and whichever of ``me``, ``taken`` and ``viewer`` the game's
    own template reads (found in the template itself, so a template that
    starts reading one is keyed by it). None (no sharing: keyed by the whole
    viewer) when the template reads anything else, while templates reload,
    and for spectators and full pages, which are keyed as before.
    """
    env = current_app.jinja_env
    if viewer.readonly and viewer.mode == "spectator" or env.auto_reload:
        return None
    silent = frozenset() if is_over(snap.table.game, snap.state) else _SILENT_WHILE_ON
    found = _names_read(env, _screen(snap).board_template, silent)
    if found is None:
        return None
    reads = found.names
    if reads - _SAME_FOR_THE_KEY - _PHONE_FACTS - (set(env.globals) - _NEVER_SHARED):
        return None
    if "request" in reads and request.method != "GET":
        return None
    seen = found.viewer_attributes
    facts = {
        "me": viewer.seat,
        "taken": viewer.taken,
        "viewer": viewer.cache_key
        if seen is None
        else tuple((a, getattr(viewer, a, None)) for a in sorted(seen)),
    }
    return (
        viewer.readonly,
        viewer.may_act,
        undo_refusal(snap, viewer) if viewer.may_act else None,
        hidden_count(snap, viewer),
        viewer.sees,
        viewer.seat if viewer.sees else None,
        tuple((name, facts[name]) for name in sorted(reads & _PHONE_FACTS)),
    )


def _who_bar(snap: Snapshot, viewer: Viewer) -> str:
    """This phone's "who are you" bar, as the board template draws it."""
    who = current_app.jinja_env.get_template("table/_who.html").module
    return str(who.who_bar(snap.table, viewer, viewer.taken, None, False))  # type: ignore[attr-defined]


def _shared_who_bar(snap: Snapshot, viewer: Viewer) -> str:
    """:func:`_who_bar` with its CSRF token cut out, drawn once per table
    version and viewer key (which holds all of the viewer that the bar reads)
    and then shared: the phones passed round a table, or all watching, have
    the same bar, and drawing it was a third of the view's own time in a
    cached board fetch."""
    key = (snap.table.token, snap.table.version, "who", viewer.cache_key)
    with _POLLED_LOCK:
        bar = _POLLED.get(key)
        if bar is not None:
            _POLLED.move_to_end(key)
    if bar is None:
        bar = _without_tokens(_who_bar(snap, viewer))
        _remember_render(key, bar)
    return bar


def _remember_render(key: tuple[Any, ...], html: str) -> None:
    global _polled_chars
    with _POLLED_LOCK:
        old = _POLLED.pop(key, None)
        _polled_chars += len(html) - len(old or "")
        _POLLED[key] = html
        while len(_POLLED) > _POLLED_SIZE or _polled_chars > _POLLED_CHARS:
            _polled_chars -= len(_POLLED.popitem(last=False)[1])


def forget_renders() -> None:
    """Empty the shared render cache (tests)."""
    global _polled_chars
    with _POLLED_LOCK:
        _POLLED.clear()
        _polled_chars = 0


def render_polled_board(
    snap: Snapshot, *, readonly: bool = False, viewer: Viewer | None = None
) -> Any:
    """``render_board`` for a poll or a successful write, through a small per-process cache."""
    htmx = _is_htmx()
    if set(request.args) - {"v"} or (htmx and not has_csrf_token()):
        # A phone whose session lost its token gets a new one in its board's
        # fields (its page's header token no longer matches): drawn for it alone.
        return render_board(snap, readonly=readonly)
    viewer = viewer or viewer_for(snap, readonly=readonly)
    address = request.headers.get("HX-Current-URL", "").partition("?")[2]
    projection = _projection(snap, viewer) if htmx else None
    table = (snap.table.token, snap.table.version, htmx, address)
    mine = (*table, "phone", viewer.cache_key)
    keys = [(*table, "shared", projection), mine] if projection is not None else [mine]
    cached = None
    with _POLLED_LOCK:
        for key in keys:
            cached = _POLLED.get(key)
            if cached is not None:
                _POLLED.move_to_end(key)
                break
    if cached is None:
        context = board_context(snap, error=None, readonly=readonly, viewer=viewer)
        template = "table/_board.html" if htmx else "table/page.html"
        html = render_template(template, **context)
        who = _who_bar(snap, viewer) if projection is not None else ""
        if who and html.count(who) == 1:
            # Shared: this phone's bar out, a slot for the next phone's.
            key, html = keys[0], html.replace(who, _WHO_SLOT)
        else:
            key = mine
        # A fragment's token fields stay empty; a page's get a slot for this phone's.
        cached = _without_tokens(html, "" if htmx else _CSRF_SLOT)
        cached = SharedRender.of(cached) if htmx else cached
        _remember_render(key, cached)
    if not htmx:
        if _WHO_SLOT in cached:
            cached = cached.replace(_WHO_SLOT, _shared_who_bar(snap, viewer), 1)
        return cached.replace(_CSRF_SLOT, csrf_token()), 200
    if _WHO_SLOT in cached:
        cached = _fragment_with_bar(key, cached, snap, viewer)
    return cached, 200


def _fragment_with_bar(key: tuple[Any, ...], cached: str, snap: Snapshot, viewer: Viewer) -> str:
    """A shared fragment with this viewer's bar in its slot: one string per
    viewer key (and so one compression), kept beside the render."""
    mine = (*key, "with bar", viewer.cache_key)
    with _POLLED_LOCK:
        whole = _POLLED.get(mine)
        if whole is not None:
            _POLLED.move_to_end(mine)
            return whole
    bar = _shared_who_bar(snap, viewer).replace(_CSRF_SLOT, "")
    whole = SharedRender.of(cached.replace(_WHO_SLOT, bar, 1))
    _remember_render(mine, whole)
    return whole


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
    return render_template("table/page.html", **board_context(snap, error=None, readonly=False))


@bp.get("/t/<token>/board")
def board(token: str) -> Any:
    return render_board(_snapshot(token))


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
    return render_polled_board(snap, viewer=viewer_from(snap, device, read.facts))


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
        read = store().board_read(view_token, None, spectator=True)
    except NoSuchTable:
        return Response(status=404, headers={"HX-Redirect": url_for("home.index", gone=1)})
    if (rematch := follow_url(read, spectator=True)) is not None:
        return Response(status=204, headers={"HX-Redirect": rematch})
    if request.args.get("v") == str(read.version):
        return Response(status=204)
    return render_polled_board(store().snapshot_at(read.token, read.version), readonly=True)


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
        template = "_error_fragment.html" if _is_htmx() else "error.html"
        return render_template(template, status=503, message=sentence(str(exc))), 503
    except AlreadyEntered as exc:
        # The same tap again (a retry, a double tap): entered once, and said so.
        return render_board(store().snapshot(token), notice=sentence(str(exc)), status=200)
    except StaleVersion as exc:
        return render_board(store().snapshot(token), error=sentence(str(exc)), status=409)
    except FormPrompt as exc:  # the game's next question: nothing is wrong
        return render_board(store().snapshot(token), notice=sentence(str(exc)))
    except (FormError, TableError) as exc:
        return render_board(store().snapshot(token), error=_not_entered(str(exc)), status=422)
    if _is_htmx():
        board = render_polled_board(after, viewer=viewer_from(after, device, read.facts))
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


def _not_entered(message: str) -> str:
    """A refusal says plainly that the tap changed nothing."""
    message = sentence(message)
    if "not entered" in message.lower():
        return message
    return f"{message} This tap was not entered."


def _tap() -> str | None:
    """The id the phone's script gave this tap (a tap sent twice is entered once)."""
    return request.form.get("tap") or None


@bp.post("/t/<token>/act")
def act(token: str) -> Any:
    def do(snap: Snapshot, viewer: Viewer, version: int) -> Snapshot:
        if not viewer.may_act:
            raise FormError(not_chosen_message(viewer))
        action = _screen(snap).parse_action(request.form, snap.state, viewer.seat)
        refusal = refusal_for(snap, viewer, action)
        if refusal is not None:
            raise FormError(refusal)
        return store().act(
            token, version, action, seat=viewer.seat, device=viewer.device, tap=_tap()
        )

    return _write(token, do)


@bp.post("/t/<token>/undo")
def undo(token: str) -> Any:
    def do(snap: Snapshot, viewer: Viewer, version: int) -> Snapshot:
        refusal = undo_refusal(snap, viewer)
        if refusal is not None:
            raise FormError(refusal)
        return store().undo(token, version, viewer.seat, device=viewer.device, tap=_tap())

    return _write(token, do)


@bp.post("/t/<token>/redo")
def redo(token: str) -> Any:
    def do(snap: Snapshot, viewer: Viewer, version: int) -> Snapshot:
        if not viewer.may_act:
            raise FormError(not_chosen_message(viewer))
        return store().redo(token, version, viewer.seat, device=viewer.device, tap=_tap())

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
            return render_board(snap, error=message, status=422)
    except SeatHasEntry:
        return render_board(
            store().snapshot(token), confirm_seat=seat, confirm_reason="entry", status=409
        )
    except SeatTaken:
        return render_board(store().snapshot(token), confirm_seat=seat, status=409)
    except NoSuchTable:
        abort(404)
    if _is_htmx():
        return render_board(store().snapshot(token), chosen=True)
    return redirect(url_for("table.page", token=token), code=303)


@bp.post("/t/<token>/host")
def hand_host(token: str) -> Any:
    """The host's phone makes another seated phone the host (LT5)."""
    snap = _snapshot(token)
    viewer = viewer_for(snap)
    seat = request.form.get("seat", "")
    if not viewer.host:
        message = "Only the host's phone can hand the host role on. Nothing changed."
        return render_board(snap, error=message, status=403)
    if seat not in viewer.taken:
        message = (
            f"{seat[:40] or 'That player'} has no phone of their own at this table, "
            "so it cannot be host. Nothing changed."
        )
        return render_board(snap, error=message, status=422)
    store().hand_host(token, viewer.device or device_id(), seat)
    if _is_htmx():
        return render_board(store().snapshot(token), notice=f"{seat}'s phone is the host now.")
    return redirect(url_for("table.page", token=token), code=303)


@bp.post("/t/<token>/delete")
def delete(token: str) -> Any:
    """The host deletes the table for everyone (its phones go to the start page)."""
    snap = _snapshot(token)
    if not viewer_for(snap).host:
        message = "Only the host's phone can delete this table. Nothing was deleted."
        return render_board(snap, error=message, status=403)
    if request.form.get("confirm") != "yes":
        return render_board(snap, error="Tick the box to delete the table.", status=422)
    store().delete_table(token)
    target = url_for("home.index", deleted=1)
    if _is_htmx():
        return Response(status=204, headers={"HX-Redirect": target})
    return redirect(target, code=303)


# --- history, export, join ------------------------------------------------


@bp.get("/t/<token>/history")
def history(token: str) -> Any:
    snap = _snapshot(token)
    context = board_context(snap, error=None, readonly=False)
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
    screen = _screen(snap)
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
