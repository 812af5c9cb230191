"""The change stream over real HTTP (issue 21): the `leafpile` server, two app
servers on one PostgreSQL, and the production setup (nginx + gunicorn's gevent
workers). A write made through one server must reach a stream held by another;
the `leafpile` server closes idle connections and caps how many it holds.

Timeouts here bound a broken setup; nothing depends on the machine being quiet.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.tables.store import Base, Store
from tests.operations.test_concurrency import (
    HttpPhone,
    Served,
    board_version,
    database_url,
    free_port,
    serve,
)

ROOT = Path(__file__).resolve().parents[2]
WAIT = 30.0  # seconds: a bound for a broken server, never a timing


class StreamReader:
    """A raw HTTP/1.1 GET of a stream; ``next()`` is the next event's data."""

    def __init__(self, port: int, path: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        self.buffer = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.headers = head.decode("latin-1").lower()

    def _until(self, mark: bytes) -> bytes:
        while mark not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError(self.buffer)
            self.buffer += chunk
        found, self.buffer = self.buffer.split(mark, 1)
        return found

    def next(self) -> str:
        """The data of the next event (heartbeats, ``event: beat``, skipped;
        chunk sizes ignored)."""
        while True:
            block = self._until(b"\n\n").decode()
            lines = block.splitlines()
            data = [line[6:] for line in lines if line.startswith("data: ")]
            if data and "event: beat" not in lines:
                return data[0]

    def close(self) -> None:
        self.sock.close()


def _new_table(db_url: str) -> tuple[str, str]:
    store = Store(db_url)
    table = store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    store.engine.dispose()
    return table.token, table.view_token


def _enter(url: str, token: str, score: int) -> int:
    phone = HttpPhone(url).open()
    board = phone.request("GET", f"/t/{token}/board")
    version = board_version(board.body)
    answer = phone.post(
        f"/t/{token}/act",
        {"action": "add-round", "version": str(version), "score0": str(score), "score1": "1"},
    )
    assert answer.status == 200, answer.body[:500]
    phone.close()
    return version + 1


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    url = database_url(tmp_path)
    yield url
    if os.environ.get("LEAFPILE_TEST_DATABASE_URL"):
        engine = Store(url).engine
        Base.metadata.drop_all(engine)
        engine.dispose()


# --- the `leafpile` server --------------------------------------------------------


def test_a_write_nudges_a_stream_on_the_leafpile_server(tmp_path, db_url):
    served = serve("leafpile", tmp_path, db_url)
    try:
        token, view_token = _new_table(db_url)
        player = StreamReader(served.port, f"/t/{token}/stream")
        spectator = StreamReader(served.port, f"/v/{view_token}/stream")
        assert player.status == 200 and "text/event-stream" in player.headers
        assert "set-cookie" not in player.headers
        assert player.next() == "0" and spectator.next() == "0"
        new_version = _enter(served.url, token, 5)
        assert player.next() == str(new_version)
        assert spectator.next() == str(new_version)
        player.close()
        spectator.close()
    finally:
        served.stop()
    assert "Traceback" not in served.log.read_text(), served.log.read_text()[-3000:]


def _serve_with(env: dict[str, str], tmp_path: Path, db_url: str) -> Served:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return serve("leafpile", tmp_path, db_url)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_the_leafpile_server_closes_idle_connections_and_caps_how_many_it_holds(tmp_path, db_url):
    served = _serve_with(
        {"LEAFPILE_IDLE_SECONDS": "1", "LEAFPILE_MAX_CONNECTIONS": "4"}, tmp_path, db_url
    )
    try:
        idle = [socket.create_connection(("127.0.0.1", served.port), timeout=WAIT)]
        time.sleep(0.2)
        assert idle[0].recv(1) == b""  # closed by the server, after its idle second
        # Four silent connections fill the server; a fifth request waits its turn
        # and is answered once the idle ones are closed.
        opened = time.monotonic()
        idle = [
            socket.create_connection(("127.0.0.1", served.port), timeout=WAIT) for _ in range(4)
        ]
        phone = HttpPhone(served.url, timeout=WAIT)
        assert phone.request("GET", "/healthz", htmx=False).status == 200
        # It waited for a place: the first idle second ends after `opened`.
        assert time.monotonic() - opened >= 1.0
        phone.close()
        for s in idle:
            s.close()
    finally:
        served.stop()


def test_the_leafpile_server_closes_a_kept_alive_connection_sooner_than_a_new_one(tmp_path, db_url):
    """Once it has answered a request, the server waits LEAFPILE_KEEPALIVE_SECONDS
    (not the idle time) for the next: an idle phone holds its stream only."""
    served = _serve_with(
        {"LEAFPILE_IDLE_SECONDS": "30", "LEAFPILE_KEEPALIVE_SECONDS": "1"}, tmp_path, db_url
    )
    try:
        kept = socket.create_connection(("127.0.0.1", served.port), timeout=WAIT)
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            head += kept.recv(4096)
        assert head.startswith(b"HTTP/1.1 200")
        answered = time.monotonic()
        while kept.recv(4096):  # the rest of the body, then the server's close
            pass
        assert 0.5 <= time.monotonic() - answered < 10
        fresh = socket.create_connection(("127.0.0.1", served.port), timeout=2.5)
        with pytest.raises(socket.timeout):  # a new connection still has its idle time
            fresh.recv(1)
        fresh.close()
        kept.close()
    finally:
        served.stop()


# --- across processes: PostgreSQL LISTEN/NOTIFY -------------------------------------


def _gunicorn(tmp_path: Path, db_url: str, name: str) -> Served:
    port = free_port()
    env = {
        **os.environ,
        "LEAFPILE_INSTANCE": str(tmp_path / f"instance-{name}"),
        "LEAFPILE_DATABASE_URL": db_url,
        # Heartbeats all the time: a change must be told from them, not be one.
        "LEAFPILE_STREAM_HEARTBEAT": "0.2",
    }
    log = tmp_path / f"gunicorn-{name}.log"
    command = [
        sys.executable, "-m", "gunicorn", "--workers", "2", "--worker-class", "gevent",
        "--bind", f"127.0.0.1:{port}", "--graceful-timeout", "2", "companion.wsgi:app",
    ]  # fmt: skip
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    served = Served("gunicorn", port, process, log)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            HttpPhone(served.url, timeout=2).request("GET", "/healthz", htmx=False)
            return served
        except OSError:
            time.sleep(0.2)
    served.stop(signal.SIGKILL)
    raise AssertionError(log.read_text()[-3000:])


def test_a_write_through_one_app_server_reaches_a_stream_on_another(tmp_path, db_url):
    # PostgreSQL: LISTEN/NOTIFY. SQLite (two servers on one file, one machine):
    # each process watches the file's data_version.
    one = _gunicorn(tmp_path, db_url, "one")
    other = _gunicorn(tmp_path, db_url, "other")
    try:
        token, _ = _new_table(db_url)
        streams = [StreamReader(other.port, f"/t/{token}/stream") for _ in range(4)]
        assert [s.next() for s in streams] == ["0"] * 4
        version = _enter(one.url, token, 3)
        assert [s.next() for s in streams] == [str(version)] * 4
        # and back: the other server's write reaches streams on the first
        mine = StreamReader(one.port, f"/t/{token}/stream")
        assert mine.next() == str(version)
        version = _enter(other.url, token, 4)
        assert mine.next() == str(version)
        for s in [*streams, mine]:
            s.close()
    finally:
        one.stop()
        other.stop()
    for served in (one, other):
        assert "Traceback" not in served.log.read_text(), served.log.read_text()[-3000:]


# --- the production setup: nginx + gunicorn (gevent), twice, on one PostgreSQL ---------


def _deploy(tmp_path: Path, db_url: str, name: str) -> Served:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(nginx):
        if os.environ.get("CI"):
            pytest.fail("nginx is missing: .ci/run must install Debian's nginx")
        pytest.skip("no nginx here (apt-get install nginx)")
    port = free_port()
    env = {
        **os.environ,
        "LEAFPILE_INSTANCE": str(tmp_path / f"deploy-{name}"),
        "LEAFPILE_DATABASE_URL": db_url,
        "LEAFPILE_LISTEN": f"127.0.0.1:{port}",
        "LEAFPILE_WORKERS": "2",
        "LEAFPILE_EXPIRE_DAYS": "0",
        "PYTHON": sys.executable,
    }
    log = tmp_path / f"deploy-{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            ["bash", str(ROOT / "deploy" / "serve")], cwd=ROOT, env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    served = Served("deploy", port, process, log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-3000:]
        try:
            if (
                HttpPhone(served.url, timeout=5).request("GET", "/healthz", htmx=False).status
                == 200
            ):
                return served
        except OSError:
            pass
        time.sleep(0.2)
    served.stop(signal.SIGKILL)
    raise AssertionError(log.read_text()[-3000:])


@pytest.mark.slow
def test_two_production_setups_on_one_database_nudge_each_others_phones(tmp_path, db_url):
    # In CI's PostgreSQL pass: two app servers on one PostgreSQL behind nginx.
    one = _deploy(tmp_path, db_url, "one")
    other = _deploy(tmp_path, db_url, "other")
    try:
        token, view_token = _new_table(db_url)
        # Streams through nginx on the other setup: passed on unbuffered.
        streams = [StreamReader(other.port, f"/t/{token}/stream") for _ in range(3)]
        streams.append(StreamReader(other.port, f"/v/{view_token}/stream"))
        assert all("x-accel-buffering" not in s.headers for s in streams)  # nginx keeps it
        assert [s.next() for s in streams] == ["0"] * 4
        version = _enter(one.url, token, 3)
        assert [s.next() for s in streams] == [str(version)] * 4
        for s in streams:
            s.close()
    finally:
        one.stop()
        other.stop()


# --- the push benchmark still runs ------------------------------------------------------


@pytest.mark.slow
def test_the_push_benchmark_runs_and_reports_every_figure(tmp_path):
    # A tiny run of benchmarks/push.py on the leafpile server: every stream opens,
    # entries are made and delivered, nothing fails. (Timings are not asserted.)
    import json

    result = subprocess.run(
        [sys.executable, "benchmarks/push.py", "--tables", "2", "--phones", "3",
         "--seconds", "6", "--warmup", "2", "--entry-every", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
        env={k: v for k, v in os.environ.items() if k != "LEAFPILE_BENCH_DATABASE_URL"},
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert report["errors"] == 0, report["error_kinds"]
    assert report["streams_open"] == 6
    assert report["entries"] >= 1 and report["delivery_ms"]["count"] >= 1
    assert len(report["peak_rss_mb_per_app_process"]) == 1
    assert report["held"] == (result.returncode == 0)
    # The client's own loop was watched (about every 10 ms) while it measured.
    assert report["client_loop_lag_ms"]["count"] >= 100
