"""One render per board that several phones see alike.

Six phones at a table fetch the same version of the same board after each
change. The board fragment is rendered once per
:class:`~companion.tables.projection.BoardView` (with the page address htmx
reports, which Venture's shared phone keeps its bidder in) and shared: two
phones with equal views get the very same string, a ``SharedRender``, whose
compressed bytes are made once (``shared_bytes.py``). Equal views are equal
by construction: the view holds everything the board template can read, so
no template is parsed to find out what a render depends on.

What differs from phone to phone is put back into the shared copy: each
phone's "who are you" bar (drawn once per table version and viewer key) in
its slot, and, in a whole page, this phone's CSRF token. A fragment for htmx
carries no token at all (its fields are empty: htmx sends the page's token
as a header, and app.js fills the fields for a form sent without htmx).

Only plain polls (no query but ``v``) and the board a successful write
answers with come from here (the next fetches ask for exactly that
version). Bounded: at most _SIZE renders and _CHARS characters (a score
pad's fragment is about 10,000), the least recently used going first, so
the cache holds at most about 24 MB a process.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any

from flask import current_app, render_template, request
from markupsafe import Markup

from companion.tables.log import Snapshot
from companion.tables.projection import BoardView, Viewer, board_view

from . import csrf_token, has_csrf_token
from .board import board_context, is_htmx, render_board, who_bar
from .i18n import language
from .shared_bytes import SharedRender

_RENDERS: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_LOCK = Lock()
_SIZE = 4096
_CHARS = 24_000_000
_chars = 0
_CSRF_SLOT = "\x00csrf\x00"  # a NUL never occurs in a rendered page
_WHO_SLOT = "\x00who\x00"
# Every CSRF token a board carries (form fields, htmx headers): the cached copy
# keeps none of them, whichever token the rendering request happened to sign.
_CSRF_VALUES = ('name="csrf_token" value="', 'CSRF-Token": "')  # each up to the next quote


def without_tokens(html: str, slot: str = _CSRF_SLOT) -> str:
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


def _remember(key: tuple[Any, ...], html: str) -> None:
    global _chars
    with _LOCK:
        old = _RENDERS.pop(key, None)
        _chars += len(html) - len(old or "")
        _RENDERS[key] = html
        while len(_RENDERS) > _SIZE or _chars > _CHARS:
            _chars -= len(_RENDERS.popitem(last=False)[1])


def _recall(key: tuple[Any, ...]) -> str | None:
    with _LOCK:
        found = _RENDERS.get(key)
        if found is not None:
            _RENDERS.move_to_end(key)
        return found


def forget_renders() -> None:
    """Empty the shared render cache (tests)."""
    global _chars
    with _LOCK:
        _RENDERS.clear()
        _chars = 0


def cached_renders() -> int:
    """How many renders the cache holds (tests)."""
    with _LOCK:
        return len(_RENDERS)


def shared_who_bar(board: BoardView, viewer: Viewer) -> str:
    """This phone's bar with its CSRF token cut out, drawn once per table
    and viewer key and then shared: the phones passed round a table, or all
    watching, have the same bar. It reads nothing of the table but its
    address and players, which never change, so a new version of the table
    draws no bar again."""
    key = _who_key(board, viewer, language())
    bar = _recall(key)
    if bar is None:
        bar = without_tokens(str(who_bar(board, viewer, None, False)))
        _remember(key, bar)
    return bar


def render_polled_board(snap: Snapshot, viewer: Viewer) -> Any:
    """The board for a poll or a successful write, through the shared cache."""
    htmx = is_htmx()
    if (
        set(request.args) - {"v"}
        or (htmx and not has_csrf_token())
        or current_app.jinja_env.auto_reload  # templates change under a developer
    ):
        # A phone whose session lost its token gets a new one in its board's
        # fields (its page's header token no longer matches): drawn for it alone.
        return render_board(snap, viewer)
    board = board_view(snap, viewer)
    address = request.headers.get("HX-Current-URL", "").partition("?")[2]
    # A whole page also holds this phone's own controls (the host's): keyed by it.
    # The words are this phone's language's (i18n.py): a render depends on it too.
    key: tuple[Any, ...] = (board, address, language())
    if not htmx:
        key += ("page", viewer.cache_key)
    cached = _recall(key)
    if cached is None:
        context = board_context(board, who=Markup(_WHO_SLOT), phone=None if htmx else viewer)
        template = "table/_board.html" if htmx else "table/page.html"
        html = without_tokens(render_template(template, **context), "" if htmx else _CSRF_SLOT)
        cached = SharedRender.of(html) if htmx else html
        _remember(key, cached)
    if not htmx:
        page = cached.replace(_WHO_SLOT, shared_who_bar(board, viewer), 1)
        return page.replace(_CSRF_SLOT, csrf_token()), 200
    if _WHO_SLOT in cached:
        cached = _fragment_with_bar(key, cached, board, viewer)
    return cached, 200


def cached_fragment(board: BoardView, viewer: Viewer, address: str, words: str) -> str | None:
    """The fragment a phone with this view, page address (``HX-Current-URL``'s
    query) and language gets, with its bar, if the board and the bar were
    drawn already; else None. The board-fetch path's lean answer
    (``board_fetch.py``): the same keys as :func:`render_polled_board`, so
    the same string.

    The first phone with a new bar to fetch a new version puts its bar
    (drawn once per table) into the shared render here too, rather than in
    a request context of its own: after each change that was the one fetch
    of five that Flask's machinery still served (issue 41)."""
    key = (board, address, words)
    cached = _recall(key)
    if cached is None or _WHO_SLOT not in cached:
        return cached
    bar = _recall(_who_key(board, viewer, words))
    return None if bar is None else _with_bar(key, cached, bar)


def _who_key(board: BoardView, viewer: Viewer, words: str) -> tuple[Any, ...]:
    return (board.table.token, "who", viewer.cache_key, words)


def _fragment_with_bar(key: tuple[Any, ...], cached: str, board: BoardView, viewer: Viewer) -> str:
    """A shared fragment with this viewer's bar in its slot."""
    return _with_bar(key, cached, shared_who_bar(board, viewer))


def _with_bar(key: tuple[Any, ...], cached: str, bar: str) -> str:
    """The shared fragment with ``bar`` in its slot (a fragment carries no
    token): one string per bar, and so one compression, kept beside the
    render. Keyed by the bar's words rather than by the viewer: phones whose
    bars read alike (the host's phone and the phones passed round, whose bar
    does not show the host role) get one string, the same bytes they would
    each have been sent, compressed once rather than once per viewer key."""
    mine = (*key, "with bar", bar)
    whole = _recall(mine)
    if whole is None:
        whole = SharedRender.of(cached.replace(_WHO_SLOT, bar.replace(_CSRF_SLOT, ""), 1))
        _remember(mine, whole)
    return whole
