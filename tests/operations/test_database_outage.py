"""A database that does not answer is a 503 with Retry-After on every route,
never a 500, and a tap sent again once it answers is entered once.

The outage is made for real where the machine allows it: the store's engine
pointed at a SQLite file that cannot be opened, at a PostgreSQL port where
nobody listens, or at a pool with no connection free; PostgreSQL's "in
recovery mode" (which needs a server in recovery) is the driver's own
exception raised where the statement would run.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import create_engine, event
from sqlalchemy import exc as sa

from companion.web import ratelimit
from companion.web.outage import RETRY_AFTER_SECONDS, database_unavailable

TAP = "outage-tap-0001"


@contextmanager
def engine_swapped(store: Any, engine: Any) -> Iterator[None]:
    """Every read and write of the store goes to ``engine`` for the block."""
    working = store.engine
    store.engine = engine
    try:
        yield
    finally:
        store.engine = working
        engine.dispose()


def dead_sqlite(tmp_path: Any) -> Any:
    return create_engine(f"sqlite:///{tmp_path / 'no-such-folder' / 'gone.sqlite3'}")


def assert_outage_answer(response: Any) -> None:
    assert response.status_code == 503, response.get_data(as_text=True)[:300]
    assert response.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response.headers["Cache-Control"] == "no-store"


def bid_pad(store: Any) -> Any:
    return store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})


def add_round(phone: Any, pad: Any, tap: str = TAP) -> Any:
    return phone.act(pad, "add-round", version=0, score0="3", score1="4", tap=tap)


def test_a_tap_and_a_page_on_a_dead_database_get_503_with_retry_after_and_the_tap_is_entered_once_later(  # noqa: E501
    store, phone, tmp_path, caplog
):
    pad = bid_pad(store)
    phone.get(f"/t/{pad.token}")  # the phone has the table open and said who it is
    with engine_swapped(store, dead_sqlite(tmp_path)), caplog.at_level(logging.WARNING):
        tap = add_round(phone, pad)
        page = phone.get(f"/t/{pad.token}")
        start = phone.get("/")
    for response in (tap, page, start):
        assert_outage_answer(response)
    said = tap.get_data(as_text=True)
    assert "Waiting for the table" in said
    assert "sends the tap again by itself" in said
    assert "Waiting for the table" in page.get_data(as_text=True)
    # One line a request in the log, never a traceback.
    assert not [r for r in caplog.records if r.exc_info]
    assert any("answered 503" in r.getMessage() for r in caplog.records)
    # The database is back: the phone's queue sends the same tap id again.
    assert store.version(pad.token) == 0
    assert add_round(phone, pad).status_code == 200
    again = add_round(phone, pad)
    assert again.status_code == 200
    assert "already" in again.get_data(as_text=True)
    assert store.version(pad.token) == 1


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/t/{token}",
        "/t/{token}/board",
        "/t/{token}/history",
        "/v/{view}",
        "/solitaire",
        "/records",
        "/achievements",
        "/backup",
        "/records.csv",
        "/join?code=ABCDE",
    ],
)
def test_every_page_answers_a_dead_database_with_503(store, phone, tmp_path, path):
    pad = bid_pad(store)
    phone.get(f"/t/{pad.token}")
    with engine_swapped(store, dead_sqlite(tmp_path)):
        response = phone.get(path.format(token=pad.token, view=pad.view_token))
    assert_outage_answer(response)


def test_a_board_fetch_and_a_change_stream_answer_503_too(store, phone, tmp_path):
    pad = bid_pad(store)
    phone.get(f"/t/{pad.token}")
    with engine_swapped(store, dead_sqlite(tmp_path)):
        poll = phone.get(f"/t/{pad.token}/poll?v=0", htmx=True)  # the fast path in front of Flask
        stream = phone.client.get(f"/t/{pad.token}/stream")  # answered before Flask
    assert_outage_answer(poll)
    assert_outage_answer(stream)
    assert "Waiting for the table" in stream.get_data(as_text=True)


def test_rate_limited_routes_answer_503_when_their_counter_cannot_be_reached(
    app, store, phone, tmp_path
):
    app.config["LEAFPILE_RATE_LIMITS"] = True
    ratelimit.reset()
    with engine_swapped(store, dead_sqlite(tmp_path)):
        response = phone.post("/new/scorepad", {"player1": "Ana"}, htmx=False)
    assert_outage_answer(response)
    assert "Go back and send it again" in response.get_data(as_text=True)


def test_a_pool_with_no_connection_free_in_time_is_503(store, phone, tmp_path):
    pad = bid_pad(store)
    phone.get(f"/t/{pad.token}")
    url = store.engine.url
    busy = create_engine(url, pool_size=1, max_overflow=0, pool_timeout=0.05)
    held = busy.connect()  # the only connection, taken by somebody else
    try:
        with engine_swapped(store, busy):
            response = add_round(phone, pad)
    finally:
        held.close()
    assert_outage_answer(response)
    assert store.version(pad.token) == 0


def test_postgresql_in_recovery_mode_is_503(store, phone, monkeypatch):
    psycopg = pytest.importorskip("psycopg")
    pad = bid_pad(store)
    phone.get(f"/t/{pad.token}")

    def in_recovery(*_: Any) -> None:
        raise psycopg.errors.CannotConnectNow("the database system is in recovery mode")

    def plain_in_recovery(_cursor: Any, sql: str, params: Any) -> None:
        try:
            in_recovery()
        except psycopg.Error as error:
            raise sa.DBAPIError.instance(sql, params, error, psycopg.Error) from error

    # Every statement meets the error, as each new connection would while
    # PostgreSQL replays its log after a crash: those through SQLAlchemy, and
    # an entry's own (on SQLite, all of them go straight to the driver).
    event.listen(store.engine, "before_cursor_execute", in_recovery)
    monkeypatch.setattr(store, "_plain", plain_in_recovery)
    try:
        response = add_round(phone, pad)
    finally:
        event.remove(store.engine, "before_cursor_execute", in_recovery)
    assert_outage_answer(response)


def test_a_postgresql_that_refuses_connections_is_503(store, phone):
    pytest.importorskip("psycopg")
    pad = bid_pad(store)
    phone.get(f"/t/{pad.token}")
    # Port 9 (discard): nobody listens there on a test machine, so connecting is refused.
    dead = create_engine(
        "postgresql+psycopg://leafpile@127.0.0.1:9/leafpile", connect_args={"connect_timeout": 2}
    )
    with engine_swapped(store, dead):
        tap = add_round(phone, pad)
        health = phone.client.get("/healthz")
    assert_outage_answer(tap)
    assert_outage_answer(health)


def test_healthz_says_whether_the_database_answers(client, store, tmp_path):
    answer = client.get("/healthz")
    assert (answer.status_code, answer.get_data(as_text=True)) == (200, "ok\n")
    with engine_swapped(store, dead_sqlite(tmp_path)):
        down = client.get("/healthz")
    assert_outage_answer(down)
    assert down.get_data(as_text=True) == "the database does not answer\n"
    assert "Set-Cookie" not in down.headers  # no session, as before
    assert client.get("/healthz").status_code == 200


def test_a_bug_is_still_a_500_and_not_hidden_as_an_outage(app, phone, store, monkeypatch):
    pad = bid_pad(store)

    def broken(*_: Any, **__: Any) -> Any:
        raise sa.OperationalError("SELECT nothing", {}, sqlite3.OperationalError("no such table"))

    monkeypatch.setattr(type(store), "snapshot", broken)
    response = phone.get(f"/t/{pad.token}")
    assert response.status_code == 500
    assert "Retry-After" not in response.headers


def _psycopg_error(name: str, message: str) -> BaseException:
    psycopg = pytest.importorskip("psycopg")
    return getattr(psycopg.errors, name)(message)


def _sqlite_error(code: int, message: str) -> BaseException:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    return error


def _wrapped(orig: BaseException, kind: type[sa.DBAPIError] = sa.OperationalError) -> Any:
    return kind("SELECT 1", {}, orig)


# (what went wrong, outage?): the table the one test of "outage" is held to.
PG = _psycopg_error
CASES = [
    ("pool timeout", lambda: sa.TimeoutError("QueuePool limit of size 40 reached"), True),
    ("connection lost", lambda: sa.DisconnectionError("an idle connection had gone"), True),
    ("SQLite busy", lambda: _wrapped(_sqlite_error(5, "database is locked")), True),
    ("SQLite cannot open", lambda: _wrapped(_sqlite_error(14, "unable to open database")), True),
    ("SQLite disk I/O", lambda: _sqlite_error(10, "disk I/O error"), True),  # the raw driver path
    ("SQLite no such table", lambda: _wrapped(_sqlite_error(1, "no such table: x")), False),
    ("PG recovery", lambda: _wrapped(_psycopg_error("CannotConnectNow", "in recovery mode")), True),
    ("PG admin shutdown", lambda: _psycopg_error("AdminShutdown", "terminating connection"), True),
    ("PG too many connections", lambda: _psycopg_error("TooManyConnections", "too many"), True),
    ("PG read-only", lambda: _wrapped(_psycopg_error("ReadOnlySqlTransaction", "read-only")), True),
    ("PG deadlock", lambda: _wrapped(_psycopg_error("DeadlockDetected", "deadlock")), True),
    ("PG undefined table", lambda: _wrapped(PG("UndefinedTable", "x"), sa.ProgrammingError), False),
    ("PG unique violation", lambda: _wrapped(PG("UniqueViolation", "x"), sa.IntegrityError), False),
    ("a bug", lambda: ZeroDivisionError("division by zero"), False),
]  # fmt: skip


@pytest.mark.parametrize(("make", "outage"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_what_counts_as_the_database_not_answering(make, outage):
    assert database_unavailable(make()) is outage


def test_an_outage_that_caused_another_error_is_still_an_outage():
    try:
        try:
            raise sa.TimeoutError("QueuePool limit reached")
        except sa.TimeoutError as lost:
            raise RuntimeError("could not read the table") from lost
    except RuntimeError as error:
        assert database_unavailable(error)


@pytest.mark.skipif(
    not os.environ.get("LEAFPILE_TEST_DATABASE_URL", "").startswith("postgresql"),
    reason="needs LEAFPILE_TEST_DATABASE_URL=postgresql+psycopg://… (as .ci/run sets it)",
)
def test_postgresql_cutting_every_connection_gives_503s_then_the_tap_once_never_a_500(store, phone):
    """The real thing on PostgreSQL: every connection the app holds is cut
    (as a restart cuts them); the phone sends its tap until it is answered."""
    from sqlalchemy import text
    from sqlalchemy.pool import NullPool

    pad = bid_pad(store)
    phone.get(f"/t/{pad.token}")
    phone.get(f"/t/{pad.token}/poll?v=0", htmx=True)  # the pool holds live connections
    admin = create_engine(store.engine.url, poolclass=NullPool)
    with admin.connect() as conn:
        cut = conn.execute(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        ).scalar_one()
    admin.dispose()
    assert cut >= 1
    answers = []
    for _ in range(20):  # the phone's queue: the same tap id until it is answered
        answer = add_round(phone, pad)
        answers.append(answer.status_code)
        if answer.status_code == 503:
            assert answer.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
            continue
        break
    assert 500 not in answers
    assert answers[-1] == 200, answers
    assert store.version(pad.token) == 1  # entered once
