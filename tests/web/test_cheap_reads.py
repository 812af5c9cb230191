"""Cheap reads (issue 21, item 4): a board fetch reads its table once, a
render is shared by every phone that sees the same projection, and the board
and stream paths open nothing they do not need.

Statements are counted at the driver (see ``statements``), so these hold on
SQLite and on PostgreSQL alike.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from companion.tables.statements import watch_statements
from companion.tables.store import TableError
from companion.web import board_cache
from tests.web.test_board_fetch import GAMES, a_table

HTMX = {"HX-Request": "true"}
FOUR = ["Ana", "Ben", "Cy", "Dan"]


@contextmanager
def statements(store) -> Iterator[list[str]]:
    """Every SQL statement the driver runs for the store while the block runs
    (counted at the driver: companion/tables/statements.py)."""
    seen: list[str] = []
    stop = watch_statements(store, seen.append)
    try:
        yield seen
    finally:
        stop()


@pytest.fixture
def renders(monkeypatch) -> Counter:
    """How many boards the poll cache's views rendered (not served from the cache)."""
    counted: Counter = Counter()
    real = board_cache.render_template

    def counting(template: str, **context: Any) -> str:
        counted[template] += 1
        return real(template, **context)

    monkeypatch.setattr(board_cache, "render_template", counting)
    return counted


def seated(new_client_phone, table, seats: list[str | None]) -> list[Any]:
    """One phone a seat (None: a phone just watching)."""
    phones = []
    for seat in seats:
        phone = new_client_phone().undecided()
        if seat is None:
            assert phone.post(f"/t/{table.token}/me", {"mode": "watching"}).status_code == 200
        else:
            assert phone.sit(table, seat).status_code == 200
        phones.append(phone)
    return phones


def fetch(phone, table, version: int) -> str:
    answer = phone.get(f"/t/{table.token}/poll?v={version}", htmx=True)
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


# --- a board fetch reads its table once -------------------------------------------


def test_a_board_fetch_and_an_unchanged_poll_are_one_statement_each(
    store, make_table, new_client_phone
):
    table = make_table("scorepad", FOUR)
    ana, ben = seated(new_client_phone, table, ["Ana", "Ben"])
    ana.act(table, "add-round", score0="1", score1="2", score2="3", score3="4")
    version = store.version(table.token)
    with statements(store) as fetched:
        fetch(ben, table, version - 1)
    assert len(fetched) == 1, fetched
    with statements(store) as unchanged:
        assert ben.get(f"/t/{table.token}/poll?v={version}", htmx=True).status_code == 204
    assert len(unchanged) == 1, unchanged
    with statements(store) as spectator:
        view = f"/v/{table.view_token}/poll?v={version - 1}"
        assert ben.client.get(view, headers=HTMX).status_code == 200
    assert len(spectator) == 1, spectator


def test_on_postgresql_a_board_fetch_runs_its_one_statement_outside_a_transaction(
    store, make_table, new_client_phone
):
    """No BEGIN and no ROLLBACK around the fetch's one read: under gevent each
    round trip waits for the event loop's next turn. The connection goes back
    to the pool as the ORM expects it (not in autocommit)."""
    if store.is_sqlite:
        pytest.skip("SQLite's connections run without a transaction already")
    import psycopg
    from sqlalchemy import event

    ran: list[tuple[str, bool]] = []

    class Watching(psycopg.Cursor):  # type: ignore[type-arg]
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            ran.append((str(query).split()[0].upper(), self.connection.autocommit))
            return super().execute(query, params, **kwargs)

    def watch(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.cursor_factory = Watching

    table = make_table("scorepad", FOUR)
    ana, ben = seated(new_client_phone, table, ["Ana", "Ben"])
    ana.act(table, "add-round", score0="1", score1="2", score2="3", score3="4")
    version = store.version(table.token)
    event.listen(store.engine, "connect", watch)
    store.engine.dispose()
    try:
        fetch(ben, table, version - 1)
    finally:
        event.remove(store.engine, "connect", watch)
    reads = [autocommit for first, autocommit in ran if first == "WITH" or first == "SELECT"]
    assert reads and all(reads), ran
    with store.engine.connect() as connection:
        assert connection.connection.driver_connection.autocommit is False
    store.engine.dispose()


def _watch_pings(store) -> list[str]:
    """Every statement a PostgreSQL connection of the store runs from now on,
    as its first word (the checkout's ping is sent straight to the driver)."""
    import psycopg
    from sqlalchemy import event

    ran: list[str] = []

    class Watching(psycopg.Cursor):  # type: ignore[type-arg]
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            ran.append(str(query).strip())
            return super().execute(query, params, **kwargs)

    def watch(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.cursor_factory = Watching

    event.listen(store.engine, "connect", watch)
    store.engine.dispose()
    return ran


def test_on_postgresql_a_connection_in_steady_use_is_not_pinged_and_an_idle_one_is(
    store, make_table, new_client_phone, monkeypatch
):
    """pool_pre_ping pinged before every request: a round trip that waits for
    the event loop's next turn. Only a connection left idle is pinged now,
    and one that had gone (a database restart) is replaced, not an error."""
    if store.is_sqlite:
        pytest.skip("SQLite has no connection to lose")
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    from companion.tables import core

    table = make_table("scorepad", FOUR)
    ana, ben = seated(new_client_phone, table, ["Ana", "Ben"])
    ran = _watch_pings(store)
    for _ in range(3):
        ana.act(table, "add-round", score0="1", score1="2", score2="3", score3="4")
        fetch(ben, table, store.version(table.token) - 1)
    assert "SELECT 1" not in ran, ran
    monkeypatch.setattr(core, "PING_AFTER_IDLE_SECONDS", 0.0)
    # The database drops every connection the store holds (as a restart would).
    outside = create_engine(store.engine.url, poolclass=NullPool)
    with outside.connect() as connection:
        connection.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
        connection.commit()
    outside.dispose()
    ran.clear()
    answer = ana.act(table, "add-round", score0="1", score1="2", score2="3", score3="4")
    assert answer.status_code == 200, "the gone connection was replaced, not an error"
    assert "SELECT 1" in ran
    store.engine.dispose()


def test_on_postgresql_a_process_keeps_its_connections_open_through_a_burst(store):
    """SQLAlchemy's default pool kept 5 connections and opened (and closed
    again) up to 10 more for every burst, so under gevent PostgreSQL started
    a backend every few milliseconds. The pool now keeps DEFAULT_POOL_SIZE
    open and opens none beyond it: a second burst meets the same backends."""
    if store.is_sqlite:
        pytest.skip("SQLite keeps its own default pool")
    from sqlalchemy import text

    from companion.tables import core

    assert store.engine.pool.size() == core.DEFAULT_POOL_SIZE
    store.engine.dispose()

    def burst() -> set[int]:
        connections = [store.engine.connect() for _ in range(30)]  # 30 requests at once
        try:
            return {c.execute(text("SELECT pg_backend_pid()")).scalar_one() for c in connections}
        finally:
            for connection in connections:
                connection.close()

    first = burst()
    assert len(first) == 30
    assert burst() == first, "the burst's connections were closed and opened again"
    store.engine.dispose()


def test_on_postgresql_an_entry_sends_its_statements_in_two_batches(
    store, make_table, new_client_phone, monkeypatch
):
    """BEGIN with the lock, then the event, the version and the nudge: each
    batch one round trip (psycopg's pipeline mode), COMMIT the third; six
    round trips before, each waiting for gevent's next turn."""
    if store.is_sqlite:
        pytest.skip("SQLite has no round trips")
    import psycopg

    batches: list[int] = []
    real = psycopg.Connection.pipeline

    def counting(self: Any) -> Any:
        batches.append(1)
        return real(self)

    table = make_table("scorepad", FOUR)
    (ana,) = seated(new_client_phone, table, ["Ana"])
    monkeypatch.setattr(psycopg.Connection, "pipeline", counting)
    with statements(store) as sent:
        answer = ana.act(table, "add-round", score0="1", score1="2", score2="3", score3="4")
    assert answer.status_code == 200
    assert len(batches) == 2
    assert [s.split()[0].upper() for s in sent][-3:] == ["SELECT", "INSERT", "UPDATE"]


def test_the_connection_pool_setting_is_checked_at_start(store, tmp_path, monkeypatch):
    from companion.app import create_app, database_pool

    assert database_pool("") is None
    assert database_pool(" 12 ") == 12
    for wrong in ("0", "-3", "ten", "2.5", "5000"):
        with pytest.raises(ValueError, match="LEAFPILE_DATABASE_POOL must be a whole number"):
            database_pool(wrong)
    if store.is_sqlite:
        return  # SQLite keeps its own default pool
    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path))
    monkeypatch.setenv("LEAFPILE_DATABASE_POOL", "7")
    monkeypatch.setenv("LEAFPILE_DATABASE_URL", store.engine.url.render_as_string(False))
    other = create_app().extensions["leafpile_store"]
    assert other.engine.pool.size() == 7
    other.engine.dispose()


def test_an_entry_reads_the_table_once_and_not_again_after_writing(
    store, make_table, new_client_phone
):
    """Was: version, snapshot, seats, the write, then seats and snapshot again."""
    table = make_table("scorepad", FOUR)
    (ana,) = seated(new_client_phone, table, ["Ana"])
    ana.act(table, "add-round", score0="1", score1="2", score2="3", score3="4")  # warm the cache
    version = store.version(table.token)
    with statements(store) as sent:
        answer = ana.act(
            table, "add-round", version=version, score0="5", score1="6", score2="7", score3="8"
        )
    assert answer.status_code == 200 and "You are <strong>Ana</strong>" in answer.text
    kinds = [s.split()[0].upper() for s in sent]
    # One read (version, seats, this phone), then the write's own transaction:
    # lock the row, append the event, bump the version. Nothing after it.
    assert kinds == ["SELECT", "SELECT", "INSERT", "UPDATE"], sent
    assert "FOR UPDATE" in sent[1].upper() or store.is_sqlite


def test_a_fetch_of_a_rematched_table_follows_it_in_the_same_statement(
    phone, store, new_client_phone
):
    from tests.end_games import finish_scorepad
    from tests.web.test_end_screens import host_table

    table = host_table(phone, store, "scorepad", ["Ana", "Ben"])
    guest = new_client_phone()
    assert guest.sit(table, "Ben").status_code == 200
    finish_scorepad(store, table)
    assert phone.post(f"/t/{table.token}/rematch", htmx=False).status_code == 303
    with statements(store) as sent:
        moved = guest.get(f"/t/{table.token}/poll?v=0", htmx=True)
    assert moved.headers.get("HX-Redirect", "").startswith("/t/")
    assert len(sent) == 1


# --- a render is shared by every phone that sees the same board view ---------------


def test_phones_that_see_the_same_board_share_one_render_with_their_own_bar_and_no_token(
    store, make_table, new_client_phone, renders
):
    table = make_table("scorepad", FOUR)
    phones = seated(new_client_phone, table, ["Ana", "Ben", "Cy", "Dan", None, None])
    ana = phones[0]
    renders.clear()
    ana.act(table, "add-round", score0="1", score1="2", score2="3", score3="4")
    version = store.version(table.token)
    bodies = [fetch(phone, table, version - 1) for phone in phones]
    # Four players who may enter, two watching: two board views, two renders
    # (the players' is the very render Ana's entry was answered with).
    assert renders["table/_board.html"] == 2
    for seat, body in zip(["Ana", "Ben", "Cy", "Dan", None, None], bodies, strict=True):
        who = f"You are <strong>{seat}</strong>" if seat else "<strong>Just watching</strong>"
        assert who in body
        # No token at all: htmx sends the page's as a header (app.js fills
        # the fields for a form sent without htmx), so no phone's is in a board.
        tokens = set(re.findall(r'name="csrf_token" value="([^"]*)"', body))
        assert tokens == {""}
        assert not any(other.csrf in body for other in phones)
        assert ("Add the round" in body) == (seat is not None)
    # The shared part is the same bytes for the four players; the two
    # watchers, with one viewer key, get the very same board.
    cut = [re.sub(r'<details class="who-bar".*?</details>', "", b, flags=re.S) for b in bodies]
    assert len(set(cut[:4])) == 1 and len(set(bodies[4:])) == 1


def test_the_hosts_phone_shares_the_players_render_until_the_game_is_over(
    phone, store, new_client_phone, renders
):
    """The end screen reads whether a phone is the host's (only it offers Play
    again), and draws nothing while the game is on: so the host's phone and a
    guest's share one render until the end, and not after."""
    from tests.end_games import finish_scorepad
    from tests.web.test_end_screens import host_table

    table = host_table(phone, store, "scorepad", ["Ana", "Ben"])
    assert phone.sit(table, "Ana").status_code == 200
    guest = new_client_phone().undecided()
    assert guest.sit(table, "Ben").status_code == 200
    store.act(table.token, store.version(table.token), {"type": "AddRound", "scores": [1, 2]})
    version = store.version(table.token)
    renders.clear()
    on = [fetch(p, table, version - 1) for p in (phone, guest)]
    assert renders["table/_board.html"] == 1
    finish_scorepad(store, table)
    version = store.version(table.token)
    renders.clear()
    over = [fetch(p, table, version - 1) for p in (phone, guest)]
    assert renders["table/_board.html"] == 2
    assert "Play again" in over[0] and "Play again" not in over[1]
    assert not any("Play again" in body for body in on)


@pytest.mark.parametrize("game", GAMES)
def test_the_end_screen_draws_nothing_while_the_game_is_on(app, store, game):
    """A game in play has no summary in its board view, so the end screen
    draws nothing, and a host's phone is no different from a guest's."""
    from flask import render_template_string

    from companion.tables.projection import Viewer, board_view

    snap = store.snapshot(a_table(store, game).token)
    host = Viewer(seat=None, readonly=False, taken=frozenset(), host=True)
    board = board_view(snap, host)
    assert board.end is None and not board.host
    assert board == board_view(snap, Viewer(seat=None, readonly=False, taken=frozenset()))
    with app.test_request_context("/"):
        drawn = render_template_string(
            '{% include "end/_end.html" %}', board=board, table=snap.table, readonly=False
        )
    assert drawn.strip() == ""


def _venture_world(app, store, new_client_phone, card: int) -> tuple[str, list[str]]:
    """Ana bids ``card`` in secret; Ben and Cy then fetch the board after her."""
    table = store.create_table("venture", FOUR, {"drafting": False}, seed=1)
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6]})
    ana, ben, cy = seated(new_client_phone, table, ["Ana", "Ben", "Cy"])
    version = store.version(table.token)
    mine = ana.act(table, "bid", version=version, player="Ana", card=str(card))
    assert mine.status_code == 200
    # Ana's own board (her bid shown back to her) is rendered for her fetch
    # and cached, where any phone of the same projection would find it.
    board_cache.forget_renders()
    own = fetch(ana, table, version)
    others = [fetch(ben, table, version), fetch(cy, table, version)]
    tokens = [table.token, table.view_token, ana.csrf, ben.csrf, cy.csrf]

    def steady(body: str) -> str:
        for i, token in enumerate(tokens):
            body = body.replace(token, f"TOKEN{i}")
        return re.sub(r"\d\d:\d\d(:\d\d)?", "X", html.unescape(body))

    return steady(own), [steady(body) for body in others]


def test_two_phones_with_different_projections_never_get_each_others_render(
    app, store, new_client_phone
):
    """The cache's differential test: Ana bids 7 in one world and 9 in the
    other and her board (which shows her bid) is rendered and cached first;
    Ben's and Cy's boards, fetched after it, are the same bytes in both worlds."""
    own_7, others_7 = _venture_world(app, store, new_client_phone, 7)
    own_9, others_9 = _venture_world(app, store, new_client_phone, 9)
    assert own_7 != own_9, "Ana's own board shows her bid back"
    assert others_7 == others_9


GAMES = ["scorepad", "venture", "autumn_leaves", "north_wind", "pairs", "leaf", "autumn_ash"]


@pytest.mark.parametrize("game", GAMES)
def test_phones_with_equal_board_views_are_drawn_the_same(app, store, game):
    """Why sharing is safe, checked on the renders themselves: for every
    game, phones of every kind (seated, shared, watching, undecided), drawn
    one by one with nothing cached from their ``BoardView`` alone (no state,
    no snapshot, no viewer in the context), give the same bytes whenever
    their views are equal; and phones that may act alike share one view
    unless the game draws something per seat."""
    from markupsafe import Markup

    from companion.tables.projection import board_view, viewer_from
    from companion.web.board import board_context

    for players in (FOUR, FOUR[:3], FOUR[:2]):
        try:
            table = store.create_table(game, players, {}, seed=3)
            break
        except TableError:
            continue
    else:
        pytest.skip(f"{game}: no setup of 2-4 players")
    devices = [f"{n:064x}" for n in range(1, 7)]
    store.take_seat(table.token, players[0], devices[0])
    store.take_seat(table.token, players[1], devices[1])
    store.set_mode(table.token, devices[2], "shared")
    store.set_mode(table.token, devices[3], "watching")
    store.remember_member(table.token, devices[4])  # undecided
    snap = store.snapshot(table.token)
    drawn: dict[Any, set[str]] = {}
    for device in devices[:5]:
        with app.test_request_context(f"/t/{table.token}/poll?v=0", headers=HTMX):
            viewer = viewer_from(snap, device, store.viewer_facts(table.token, device))
            board = board_view(snap, viewer)
            hash(board)
            context = board_context(board, who=Markup("WHO"))
            body = board_cache.render_template("table/_board.html", **context)
            drawn.setdefault(board, set()).add(board_cache.without_tokens(body))
    assert all(len(bodies) == 1 for bodies in drawn.values())
    # Two seated phones, the shared one, a watcher, an undecided one: the
    # watcher and the undecided phone see one board, and so do the three
    # that may act when the game draws nothing per seat.
    assert len(drawn) == (4 if table.kind.shows_seats else 2)


def test_the_render_cache_is_bounded(store, make_table, new_client_phone, monkeypatch):
    monkeypatch.setattr(board_cache, "_SIZE", 3)
    board_cache.forget_renders()
    table = make_table("scorepad", FOUR)
    (ana,) = seated(new_client_phone, table, ["Ana"])
    for n in range(6):
        ana.act(table, "add-round", score0=str(n), score1="0", score2="0", score3="0")
    assert board_cache.cached_renders() <= 3
    assert board_cache._chars == sum(len(v) for v in board_cache._RENDERS.values())


# --- nothing on the board or stream path opens what it does not need ----------------


def test_board_fetches_and_streams_open_no_limiter_csrf_check_or_session_write(
    app, store, make_table, new_client_phone, monkeypatch
):
    from flask_wtf.csrf import CSRFProtect

    from companion.web import ratelimit

    table = make_table("scorepad", FOUR)
    (ben,) = seated(new_client_phone, table, ["Ben"])
    version = store.version(table.token)
    opened: Counter = Counter()

    def refuse(name: str):
        def called(*args: Any, **kwargs: Any) -> Any:
            opened[name] += 1
            raise AssertionError(f"{name} ran on a board fetch")

        return called

    monkeypatch.setattr(ratelimit.DatabaseStorage, "incr", refuse("the limiter's count"))
    monkeypatch.setattr(ratelimit.DatabaseStorage, "get", refuse("the limiter's count"))
    # (Flask-WTF's hook runs on every request; on a GET it returns before it
    # looks for a token.)
    monkeypatch.setattr(CSRFProtect, "_get_csrf_token", refuse("the CSRF check"))
    saved = app.session_interface.save_session

    def save(app_: Any, session: Any, response: Any) -> None:
        if session.modified:
            opened["a session write"] += 1
        saved(app_, session, response)

    monkeypatch.setattr(app.session_interface, "save_session", save)
    for path in (
        f"/t/{table.token}/poll?v={version}",
        f"/t/{table.token}/poll?v=0",
        f"/v/{table.view_token}/poll?v=0",
    ):
        answer = ben.client.get(path, headers=HTMX)
        assert answer.status_code in (200, 204)
        assert "Set-Cookie" not in answer.headers
    app.config["LEAFPILE_STREAM_LIFETIME"] = 0.01
    with app.test_client() as fresh:
        stream = fresh.get(f"/t/{table.token}/stream", buffered=True)
        assert stream.status_code == 200 and "Set-Cookie" not in stream.headers
    assert not opened, opened


@pytest.mark.parametrize(
    "page",
    [
        "",
        "no token here",
        '<input type="hidden" name="csrf_token" value="Ij.abc-_">',
        '<input name="csrf_token" value=""><input name="csrf_token" value="x.y">',
        '<body hx-headers=\'{"X-CSRF-Token": "tok.en"}\'>',
        'unclosed name="csrf_token" value="abc',
        'name="csrf_token" value="a" CSRF-Token": "b" name="csrf_token" value="c',
    ],
)
@pytest.mark.parametrize("slot", ["", "\x00csrf\x00"])
def test_tokens_are_cut_exactly_where_the_pattern_finds_them(page, slot):
    """The cut is plain string splitting (a tenth of a regular expression's
    time on a board); it must cut what the expression would, and nothing else."""
    pattern = re.compile(r'(name="csrf_token" value=")[^"]*(")|(CSRF-Token": ")[^"]*(")')
    expected = pattern.sub(lambda m: f"{m[1] or m[3]}{slot}{m[2] or m[4]}", page)
    assert board_cache.without_tokens(page, slot) == expected


# --- route matching leaves no garbage (companion/web/routing.py) -------------------


def test_a_route_match_leaves_no_garbage_for_the_cycle_collector(app):
    """werkzeug's own matcher leaves a reference cycle a match: a serving
    process remembers each address's match, so a fetch leaves none."""
    import gc

    adapter = app.url_map.bind("localhost")
    adapter.match("/t/sometoken/poll", "GET")  # the first match of an address is werkzeug's
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(50):
            assert adapter.match("/t/sometoken/poll", "GET") == (
                "table.poll",
                {"token": "sometoken"},
            )
        gc.collect()
        left = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []


def test_remembered_matches_are_werkzeugs_own(app):
    """Every rule's address, and addresses that fail in each way, match (or
    fail) exactly as in a plain werkzeug map of the same rules."""
    from werkzeug.exceptions import HTTPException
    from werkzeug.routing import Map, RequestRedirect

    plain = Map([rule.empty() for rule in app.url_map.iter_rules()])
    ours, theirs = app.url_map.bind("localhost"), plain.bind("localhost")

    def outcome(adapter, path: str, method: str) -> Any:
        try:
            return ("matched", *adapter.match(path, method))
        except RequestRedirect as redirect:
            return ("redirect", redirect.new_url)
        except HTTPException as refused:
            allowed = getattr(refused, "valid_methods", None)  # in set order: compare as sets
            return (type(refused).__name__, allowed and frozenset(allowed))

    addresses = []
    for rule in app.url_map.iter_rules():
        values = {name: "x1" for name in rule.arguments}
        values |= {name: 3 for name, c in rule._converters.items() if c.regex == r"\d+"}
        path = ours.build(rule.endpoint, values, append_unknown=False)
        addresses += [(path, m) for m in sorted(rule.methods or {"GET"})]
    addresses += [("/no/such/page", "GET"), ("/t/x1/poll", "DELETE"), ("/t/x1/poll/", "GET")]
    for path, method in addresses * 2:  # the second time from what was kept
        first = outcome(ours, path, method)
        assert first == outcome(theirs, path, method), (path, method)
        if first[0] == "matched" and first[2]:
            ours.match(path, method)[1].clear()  # a request's own copy of the arguments
            assert outcome(ours, path, method) == first
