"""The production setup, deploy/serve (nginx in front of gunicorn), started as
docs/deploying.md says, holds while hostile clients trickle their requests.

Gunicorn alone (2 workers x 1 thread) gave every worker to the first slow
clients and answered nobody else. Here 20 connections send headers and 5
announce a 1 MB upload, a byte at a time, and stay open; every ordinary
request must still be answered. Skipped where nginx is not installed, except
in CI, which installs it.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120  # bounds for a broken setup, not timings: a quiet machine takes ~2 s
ANSWER_TIMEOUT = 60


def _nginx() -> str | None:
    return shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=ANSWER_TIMEOUT)
    connection.request("GET", path)
    response = connection.getresponse()
    response.body = response.read()  # type: ignore[attr-defined]
    connection.close()
    return response


@dataclass(frozen=True)
class Deployment:
    port: int
    instance: Path  # LEAFPILE_INSTANCE: nginx.conf and the sockets are in its run/


@contextmanager
def _deploy(base: Path) -> Iterator[Deployment]:
    """deploy/serve on a port of its own, until the block ends."""
    if _nginx() is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing: .ci/run must install Debian's nginx")
        pytest.skip("no nginx here (apt-get install nginx)")
    port = _free_port()
    env = {
        **os.environ,
        "LEAFPILE_INSTANCE": str(base / "instance"),
        "LEAFPILE_DATABASE_URL": os.environ.get("LEAFPILE_TEST_DATABASE_URL")
        or f"sqlite:///{base / 'deploy.sqlite3'}",
        "LEAFPILE_LISTEN": f"127.0.0.1:{port}",
        "LEAFPILE_WORKERS": "2",
        "LEAFPILE_EXPIRE_DAYS": "0",
        "PYTHON": sys.executable,  # the venv's, whether or not it is activated
    }
    log = base / "serve.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["bash", str(ROOT / "deploy" / "serve")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, log.read_text()[-3000:]
            try:
                if _get(port, "/healthz").status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield Deployment(port, base / "instance")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
        if os.environ.get("LEAFPILE_TEST_DATABASE_URL"):
            from sqlalchemy import create_engine

            from companion.tables.store import Base

            engine = create_engine(env["LEAFPILE_DATABASE_URL"])
            Base.metadata.drop_all(engine)
            engine.dispose()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """One production setup for this file's tests, which only read it: a
    deploy is the costliest fixture of the suite after an install."""
    with _deploy(tmp_path_factory.mktemp("deploy")) as started:
        yield started


@pytest.fixture
def deployed(tmp_path: Path) -> Iterator[int]:
    """A production setup of the test's own (its port), for tests that kill
    or exhaust part of it."""
    with _deploy(tmp_path) as started:
        yield started.port


def _slow(port: int, request: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_TIMEOUT)
    s.sendall(request)
    return s


@pytest.mark.slow
def test_slow_clients_do_not_stall_the_production_setup(deployment: Deployment):
    port = deployment.port
    slow = [_slow(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") for _ in range(20)]
    slow += [
        _slow(
            port,
            b"POST /import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1048576\r\n\r\n",
        )
        for _ in range(5)
    ]
    try:
        for n in range(3):
            for s in slow:
                s.sendall(b"a")  # still trickling
            for path in ("/healthz", "/", "/print/"):
                response = _get(port, path)
                assert response.status == 200, (n, path, response.status)
    finally:
        for s in slow:
            s.close()


@pytest.mark.slow
def test_the_proxy_serves_hashed_static_files_for_a_year_and_pages_with_the_apps_headers(
    deployment: Deployment,
):
    page = _get(deployment.port, "/")
    assert page.getheader("Content-Security-Policy", "").startswith("default-src 'self'")
    assert page.getheader("Server") == "nginx"  # no version
    body = page.body.decode()  # type: ignore[attr-defined]
    assets = re.findall(r'(?:href|src)="(/static/[^"]+\.[0-9a-f]{12}\.\w+)"', body)
    assert assets
    for url in assets:
        asset = _get(deployment.port, url)
        assert asset.status == 200
        assert asset.getheader("Cache-Control") == "public, max-age=31536000, immutable"


@pytest.mark.slow
def test_the_proxy_refuses_a_hammered_costly_route_itself(deployment: Deployment):
    """One address hammering a costly route gets nginx's 429 after its burst,
    without a request reaching the app each time, and sent slowly (a loop
    on it asks about once a second); other routes are untouched."""
    answers = []
    for _ in range(60):  # a GET: the app says 405
        started = time.monotonic()
        answers.append(_get(deployment.port, "/import"))
        took = time.monotonic() - started
        if answers[-1].status == 429:
            break
    assert answers[0].status == 405  # the first ones reach the app
    refused = answers[-1]
    assert refused.status == 429, [a.status for a in answers]
    assert all(a.status == 405 for a in answers[:-1])
    assert took >= 0.8  # nginx's limit_rate: about a second for the refusal's bytes
    said = refused.body.decode()  # type: ignore[attr-defined]
    assert "Too many requests for hints, print files or imports" in said
    assert refused.getheader("Retry-After") == "10"
    started = time.monotonic()
    assert _get(deployment.port, "/healthz").status == 200  # not a costly route ...
    assert time.monotonic() - started < 0.8  # ... and not held back


def test_every_request_of_a_table_goes_to_the_same_app_process(deployment: Deployment):
    """deploy/serve starts one gunicorn a core (here 2), each on its own socket,
    and nginx picks the process by the table's token: a table's snapshots and
    renders are made once and its changes wake its streams in memory."""
    conf = (deployment.instance / "run" / "nginx.conf").read_text()
    sockets = re.findall(r"server unix:(\S+);", conf)
    assert len(sockets) == 2
    assert all(Path(socket_path).is_socket() for socket_path in sockets)
    assert "hash $leafpile_table consistent;" in conf
    found = re.search(r'"~(\^/t/[^"]+)"\s+\$1;', conf)
    assert found is not None
    table_path = re.compile(found[1])  # nginx's PCRE reads it as Python's re does
    for path in ("/t/Ab_-9/act", "/t/Ab_-9/poll", "/t/Ab_-9/stream", "/t/Ab_-9"):
        matched = table_path.match(path)
        assert matched is not None and matched[1] == "Ab_-9"
    assert table_path.match("/print/") is None and table_path.match("/v/Ab_-9/stream") is None
    assert _get(deployment.port, "/").status == 200


def _app_process_settings(instance: Path) -> list[dict[str, str]]:
    """The environment of every app process (gunicorn) serving ``instance``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            raw = (entry / "environ").read_bytes()
        except OSError:  # not a process, or one that ended meanwhile
            continue
        env = dict(
            item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item
        )
        if env.get("LEAFPILE_INSTANCE") == str(instance) and "LEAFPILE_SOCKET" in env:
            found.append(env)
    return found


@pytest.mark.slow
def test_app_processes_share_a_stock_postgresqls_connections(deployment: Deployment):
    """Each process keeps its pool open (companion/tables/core.py): deploy/serve
    sizes it so that every process's connections, and its listener, fit in
    PostgreSQL's default 100 (3 kept for the superuser): 40 each for 2."""
    settings = _app_process_settings(deployment.instance)
    assert settings, "no app process found"
    assert {env["LEAFPILE_DATABASE_POOL"] for env in settings} == {"40"}
