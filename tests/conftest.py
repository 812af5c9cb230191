"""Fixtures: a fresh app and database per test, test-client phones, and real
headless Chromium phones (390x844) against a live server.

Test-client use::

    def test_x(make_table, phone):
        table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
        response = phone.act(table, "add-round", score0="3", score1="4")
        assert response.status_code == 200

Browser use::

    @pytest.mark.browser
    def test_y(live_server, new_phone):
        page = new_phone()
        page.goto(live_server.url + "/")
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import settings
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from werkzeug.serving import make_server

from companion import create_app
from companion.i18n import PSEUDO, write_pseudo
from companion.tables.store import Store, TableView
from companion.web import ratelimit

CHROMIUM = "/usr/bin/chromium"


class _CompiledTemplates(BytecodeCache):
    """Each test makes a fresh app, and each app's Jinja compiled every
    template it rendered anew: 60 % of a web test's time went to compiling
    the same templates again. Compiled once per test process here; Jinja
    checks each entry against the template's source, so an edited template
    is compiled afresh."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


# Every app made in this process (the app fixture, live servers) shares it.
Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": _CompiledTemplates()}

# In CI the property tests draw the same examples every run: a red CI run then
# means the change broke something, never that this run's draw was unlucky.
# Elsewhere they draw new examples each run, which is how PR7's endless
# tie-break was found; a failure prints the example to pin as a plain test.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the README's line): two workers more than the machine has
    cores. Much of the suite waits rather than computes (browsers drawing
    pages, servers booting, phones polling, installs reading the disk): the
    browser tests alone used 0.7 of a core in 3 workers on 2 cores. With one
    worker a core the cores sat idle for much of the run; the figures are in
    docs/developing.md, "CI's time". PYTEST_XDIST_AUTO_NUM_WORKERS still
    overrides it, as in pytest-xdist."""
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if chosen and chosen.isdigit():
        return int(chosen)
    return (os.cpu_count() or 1) + 2


def pytest_configure(config: pytest.Config) -> None:
    _one_test_at_a_time(config)
    _a_database_for_each_worker()


def _one_test_at_a_time(config: pytest.Config) -> None:
    """xdist hands its workers tests in runs: first a quarter of each one's
    share (228 tests each for 4 workers), in collection order. The long tests
    come first (``pytest_collection_modifyitems``), so the first worker got
    every one of them while the others ran quick tests and then waited for
    it: 6 of a run's 15 minutes were its tail, 20-50 % of the cores idle.
    Two tests at a time, refilled as each ends, spread them over every
    worker. ``--maxschedchunk`` on the command line still decides."""
    if getattr(config.option, "maxschedchunk", False) is None:
        config.option.maxschedchunk = 2


def _a_database_for_each_worker() -> None:
    """Under pytest-xdist (``-n auto``), each worker gets a PostgreSQL database
    of its own: the tests drop every table after each test, so two workers on
    one database would wipe each other's. The role needs CREATEDB (.ci/run
    grants it). SQLite needs nothing: every test has its own file."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = os.environ.get("LEAFPILE_TEST_DATABASE_URL", "")
    if not worker or not base.startswith("postgresql"):
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(base)
    own = f"{url.database}_{worker}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{own}"'))
        conn.execute(text(f'CREATE DATABASE "{own}"'))
    admin.dispose()
    # Every test, and every server a test starts, reads the address from here.
    os.environ["LEAFPILE_TEST_DATABASE_URL"] = url.set(database=own).render_as_string(
        hide_password=False
    )


PHONE_VIEWPORT = {"width": 390, "height": 844}
#: Test phones draw one device pixel per CSS pixel. Every test measures in
#: CSS pixels, which a screen's density does not change, and a quarter of
#: the pixels saved about an eighth of the browser tests' CPU (Chromium
#: rasterizes in software here; docs/developing.md, "CI's time").
#: Screenshots for people (LEAFPILE_SCREENSHOTS) get a phone's density.
PHONE_DENSITY = 2 if os.environ.get("LEAFPILE_SCREENSHOTS") else 1
#: A small phone: the language and pseudo-locale tests' screen, where long words wrap.
SMALL_PHONE = {"width": 360, "height": 740}
# The two phones the first-screen checks measure on: a common one and a small one.
PHONE_SIZES = [pytest.param((390, 844), id="390x844"), pytest.param((360, 740), id="360x740")]
CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def _config(tmp_path: Any) -> dict[str, Any]:
    return {
        "TESTING": True,
        "DATABASE_URL": os.environ.get("LEAFPILE_TEST_DATABASE_URL")
        or f"sqlite:///{tmp_path / 'leafpile-test.sqlite3'}",
        "SECRET_KEY": "test-secret-key",
        "INSTANCE_PATH": str(tmp_path / "instance"),
    }


@pytest.fixture
def app(tmp_path):
    ratelimit.reset()
    application = create_app(_config(tmp_path))
    yield application
    _drop_everything(application)


def _drop_everything(application) -> None:
    # With a shared database (PostgreSQL in CI) every test starts empty. Emptying
    # the tables keeps the schema: making it again cost each test about half a
    # second of DDL, a third of the PostgreSQL pass. A test that changed the
    # schema itself (or dropped it) gets it dropped whole, and the next test's
    # app makes it anew.
    engine = application.extensions["leafpile_store"].engine
    if os.environ.get("LEAFPILE_TEST_DATABASE_URL"):
        from sqlalchemy.exc import SQLAlchemyError

        from companion.tables.store import Base

        names = ", ".join(f'"{table.name}"' for table in Base.metadata.sorted_tables)
        try:
            with engine.begin() as conn:
                conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
        except SQLAlchemyError:
            Base.metadata.drop_all(engine)
    engine.dispose()


@pytest.fixture
def tarpit_sleeps(monkeypatch) -> list[float]:
    """As on a gevent server: each time a refusal is held back (the tarpit),
    its seconds, instead of sleeping them."""
    from companion import cooperative

    slept: list[float] = []
    monkeypatch.setattr(cooperative, "_gevent_server", lambda: True)
    real_sleep = ratelimit.time.sleep

    def sleep(seconds: float) -> None:
        # time.sleep is the time module's, shared by the whole process: a job
        # slot's 25 ms wait for its lock (a busy machine) is not the tarpit.
        if seconds == ratelimit.TARPIT_SECONDS:
            slept.append(seconds)
        else:
            real_sleep(seconds)

    monkeypatch.setattr(ratelimit.time, "sleep", sleep)
    return slept


@pytest.fixture
def a_second_apart(monkeypatch):
    """The limits' clock, moved on a second before each request a test
    makes: a person's pace, which the costly routes' shared allowance
    (test_costly_share.py) lets through, so the route's own limit shows."""
    now = [2_000_000.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: now[0])

    def tick(seconds: float = 1.0) -> None:
        now[0] += seconds

    return tick


@pytest.fixture
def store(app) -> Store:
    return app.extensions["leafpile_store"]


@pytest.fixture
def client(app):
    return app.test_client()


# Any address of one table but the seat chooser itself.
TABLE_ADDRESS = re.compile(r"/t/([A-Za-z0-9_-]+)(?:$|[/?](?!me$))")


class Phone:
    """A test-client phone: keeps its cookies and its CSRF token."""

    def __init__(self, client, store: Store) -> None:
        self.client = client
        self.store = store
        page = client.get("/")
        match = CSRF_RE.search(page.get_data(as_text=True))
        assert match, "the home page carries a CSRF token"
        self.csrf = match.group(1)
        self.declared: set[str] = set()
        self.declare_shared = True

    def _declare(self, url: str) -> None:
        # A phone says who it is before it enters anything (LT3); a test phone
        # that has not (no sit(), no choice) is the table's shared phone, as
        # a person would tap "Passed around the table".
        found = TABLE_ADDRESS.match(url)
        if found and found[1] not in self.declared and self.declare_shared:
            self.declared.add(found[1])
            # Only a phone the table asks (one that followed Play again keeps
            # the seat it had, and is not asked).
            board = self.client.get(f"/t/{found[1]}/board", headers={"HX-Request": "true"})
            if 'id="who-ask-h"' in board.get_data(as_text=True):
                form = {"csrf_token": self.csrf, "mode": "shared"}
                self.client.post(f"/t/{found[1]}/me", data=form, headers={"HX-Request": "true"})

    def get(self, url: str, *, htmx: bool = False, **kwargs):
        self._declare(url)
        headers = {"HX-Request": "true"} if htmx else {}
        return self.client.get(url, headers=headers, **kwargs)

    def post(self, url: str, data: dict[str, Any] | None = None, *, htmx: bool = True, **kw):
        self._declare(url)
        form = {"csrf_token": self.csrf, **(data or {})}
        headers = {"HX-Request": "true"} if htmx else {}
        return self.client.post(url, data=form, headers=headers, **kw)

    def act(self, table: TableView | str, action: str, *, version: int | None = None, **fields):
        """Post one action at the table's current version (or the given one)."""
        token = table if isinstance(table, str) else table.token
        if version is None:
            version = self.store.version(token)
        data = {"action": action, "version": str(version), **fields}
        return self.post(f"/t/{token}/act", data)

    def sit(self, table: TableView | str, seat: str, **fields: str):
        token = table if isinstance(table, str) else table.token
        answer = self.post(f"/t/{token}/me", {"seat": seat, **fields})
        if answer.status_code == 200:
            self.declared.add(token)
        return answer

    def undecided(self) -> Phone:
        """This phone enters nothing until it says who it is (as a real one)."""
        self.declare_shared = False
        return self


@pytest.fixture
def phone(client, store) -> Phone:
    return Phone(client, store)


@pytest.fixture
def pseudo(tmp_path) -> Iterator[tuple[Phone, Store]]:
    """A test-client phone reading the pseudo-locale (every marked string
    between ⟦ ⟧), at an app that offers it, and that app's store."""
    ratelimit.reset()
    config = {**_config(tmp_path), "I18N_PSEUDO_LOCALE": str(write_pseudo(tmp_path / "pseudo"))}
    application = create_app(config)
    store = application.extensions["leafpile_store"]
    phone = Phone(application.test_client(), store)
    assert phone.client.get(f"/language/{PSEUDO}?next=/").status_code == 303
    yield phone, store
    _drop_everything(application)


@pytest.fixture
def new_client_phone(app, store) -> Callable[[], Phone]:
    """More test-client phones, each with its own cookies (its own seat)."""
    return lambda: Phone(app.test_client(), store)


@pytest.fixture
def make_table(store) -> Callable[..., TableView]:
    def make(game: str, players, options: dict[str, Any] | None = None, seed: int = 1):
        return store.create_table(game, list(players), options or {}, seed=seed)

    return make


def message_in(response) -> str:
    """The error message a response shows (empty if none)."""
    found = re.findall(r'notice-error"[^>]*>(.*?)</p>', response.get_data(as_text=True), re.S)
    return " ".join(found).strip()


@pytest.fixture
def error_message():
    return message_in


# --- a live server and real browsers ---------------------------------------


@dataclass
class LiveServer:
    url: str
    app: Any
    store: Store


@contextmanager
def serving(folder: Path, *, pseudo: bool = False) -> Iterator[LiveServer]:
    """A real server (werkzeug, threaded, a free port) over a fresh store in
    ``folder``. ``pseudo``: its phones may pick the pseudo-locale, whose
    catalog is made from messages.pot into ``folder``."""
    ratelimit.reset()
    config = _config(folder)
    if pseudo:
        config["I18N_PSEUDO_LOCALE"] = str(write_pseudo(folder / "pseudo"))
    application = create_app(config)
    server = make_server("127.0.0.1", 0, application, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    application.config["PUBLIC_URL"] = url
    try:
        yield LiveServer(url, application, application.extensions["leafpile_store"])
    finally:
        server.shutdown()
        thread.join(timeout=5)
        _drop_everything(application)


@pytest.fixture
def live_server(tmp_path) -> Iterator[LiveServer]:
    with serving(tmp_path) as live:
        yield live


@pytest.fixture
def pseudo_live(tmp_path) -> Iterator[LiveServer]:
    """A live server whose phones may pick the pseudo-locale."""
    with serving(tmp_path, pseudo=True) as live:
        yield live


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run must install Debian's chromium")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield chromium
        chromium.close()


def assert_thumb_sized(page: Any, controls: str, width: int = 390) -> None:
    """Every visible control ``controls`` (a selector) is at least 44 px each
    way, and nothing makes the page scroll sideways on a ``width`` px phone."""
    for control in page.locator(controls).all():
        box = control.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, control.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def reload_at_version(pages: list[Any], version: int) -> None:
    """Each phone loads its table again and shows ``version``: after entries
    made by the store rather than on the phones, so every phone stands on
    the same board before the next tap (several landing at once kept a
    board swapping under a tap)."""
    from playwright.sync_api import expect

    for page in pages:
        page.reload()
        expect(page.locator("#board")).to_have_attribute("data-version", str(version))


def in_each_scheme(page: Any) -> Iterator[str]:
    """The open page in the light colour scheme, then in the dark one, without
    loading it again: the scheme changes colours, not what a page holds, so a
    test checks a screen in both on one phone. A second phone and every page
    loaded again, as such tests did, was the costliest half of them (a new
    browser context and a page load cost Chromium about a second of CPU
    here: docs/developing.md, "CI's time"). The page is left in the dark."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        yield scheme


def take_seat(page: Any, name: str) -> None:
    """A browser phone says it is ``name``: on the "Who are you?" question,
    or through *Change* in the bar once it has answered before."""
    if not page.locator(".who-names").first.is_visible():
        page.locator(".who-bar summary").click()
    pattern = re.compile(rf"^{re.escape(name)}\b")
    page.locator(".who-names").get_by_role("button", name=pattern).first.click()
    page.locator(".who-bar summary", has_text=f"You are {name}").wait_for()


def _answer_who_are_you(page: Any) -> None:
    plain_goto = page.goto

    def goto(url: str, **kwargs: Any) -> Any:
        answer = plain_goto(url, **kwargs)
        ask = page.locator("#who-ask-h")
        if ask.count():
            shared = page.get_by_role("button", name="Passed around the table")
            if shared.count():
                shared.click()
            else:
                page.locator(".who-names button").first.click()
            ask.wait_for(state="detached")
        return answer

    page.goto = goto


@pytest.fixture
def new_phone(browser) -> Iterator[Callable[..., Any]]:
    """Open a phone-sized page (a fresh browser context: its own cookies)."""
    contexts = []

    def open_phone(
        color_scheme: str = "light",
        *,
        shared: bool = True,
        locale: str = "en-US",
        viewport: dict[str, int] = PHONE_VIEWPORT,
    ):
        """``shared``: when a table page asks "Who are you?", answer as a
        person with one phone for the whole table would (the shared phone;
        the only seat of a one-player table). False: the test answers.
        ``locale``: the phone's language (its Accept-Language), English unless
        a test says otherwise, whatever the machine's own language.
        ``viewport``: its screen, a 390x844 phone unless said otherwise."""
        context = browser.new_context(
            viewport=viewport,
            device_scale_factor=PHONE_DENSITY,
            is_mobile=True,
            has_touch=True,
            color_scheme=color_scheme,
            locale=locale,
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        if shared:
            _answer_who_are_you(page)
        return page

    yield open_phone
    for context in contexts:
        context.close()


@pytest.fixture
def new_pseudo_phone(new_phone) -> Callable[[str], Any]:
    """Open a small phone (360x740), set to the pseudo-locale on the server
    at the given address, which offers it (``pseudo_live``). The test answers
    "Who are you?" itself."""

    def open_phone(url: str) -> Any:
        page = new_phone(shared=False, viewport=SMALL_PHONE)
        page.goto(f"{url}/language/{PSEUDO}")
        return page

    return open_phone


# --- the PostgreSQL pass runs what touches the database -------------------------

# CI runs the suite twice: on SQLite (everything) and again on PostgreSQL.
# The second pass proves the storage layer on a real server. Every statement
# the app sends comes from the store (companion/tables: the web layer may not
# build a query, companion/web/ruff.toml) or the rate limiter, so the pass
# runs the store's own tests and only those web tests that send a statement
# the store's tests do not, or whose point is a database: the secrecy tests
# (seat takeovers, tap ids, an old database's upgrade), bad and hostile input
# (a NUL byte, odd strings), the security headers' health check, the change
# streams, the cheap-reads counts and the costly pages' workers. The
# operations tests run once, in the first pass (the chaos test brings its own
# PostgreSQL), except those whose point is a production database: gunicorn's
# workers sharing one, LISTEN/NOTIFY between app servers, its outages, and
# the production setup in front of it. How the web files were chosen, and
# how to check the choice again: docs/developing.md, "The PostgreSQL pass".
_ON_POSTGRESQL = re.compile(
    r"(^|/)tests/("
    r"tables/"
    r"|web/test_(secrets|bad_input_never_poisons|hostile_input|security|stream"
    r"|cheap_reads|costly_pages_in_workers)\.py"
    r"|operations/test_(concurrency|stream_http|database_outage|deploy)\.py"
    r")"
)


#: The tests marked ``rebuilds`` make the app from nothing: the README's
#: first line in a fresh venv with Debian's Python, the solver compiled by
#: mypyc and gcc, the club deployment as written, the production setup
#: killed and restarted with a PostgreSQL cluster of its own. They are a
#: tenth of the suite's CPU, and a developer's test line has just made the
#: venv they would make again: CI runs them, once, in its second pass
#: (``.ci/run``), and ``LEAFPILE_TEST_REBUILDS=1`` runs them anywhere.
REBUILDS_HERE = os.environ.get("LEAFPILE_TEST_REBUILDS") == "1"
_REBUILDS_ELSEWHERE = pytest.mark.skip(
    reason="builds the app from nothing: CI's second pass runs it (LEAFPILE_TEST_REBUILDS=1 here)"
)


def pytest_collection_modifyitems(config, items):
    # The long tests first (stable: each file's order is kept): a browser
    # game or an install started last would leave the other worker idle at
    # the end of the run. (Not xdist's --dist worksteal: a worker whose queue
    # was taken ran its last test as the session's last and closed the
    # session's browser under the tests still to come to it.)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if not REBUILDS_HERE:
        for item in items:
            if item.get_closest_marker("rebuilds"):
                item.add_marker(_REBUILDS_ELSEWHERE)
    if not os.environ.get("LEAFPILE_TEST_DATABASE_URL"):
        return
    kept, dropped = [], []
    for item in items:
        on_postgresql = _ON_POSTGRESQL.search(item.nodeid.split("::", 1)[0]) or (
            REBUILDS_HERE and item.get_closest_marker("rebuilds")
        )
        (kept if on_postgresql else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
