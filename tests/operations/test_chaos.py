"""Chaos on the production setup: it gets up by itself (issue 42).

deploy/serve (nginx in front of two gunicorns, deploy/supervise.py keeping
them running) on a PostgreSQL cluster of the test's own, over real HTTP.
Honest phones enter rounds all along, each tap with its own tap id and sent
again after a 502-504 or a dropped connection, as the phone's queue does.
Meanwhile the test kills, in turn and several times each: a gunicorn worker,
a gunicorn master, the nginx master (SIGKILL every time) and the database
(its postmaster and every backend SIGKILLed, then started again, so it goes
through crash recovery), and last a gunicorn master while the database is
down, so that its new worker boots before the database answers (it used to
fail create_schema, and gunicorn stopped: "Worker failed to boot").

After each fault the setup must answer an entry again by itself within
RECOVERY_BOUND seconds (from the kill; for the database, from its restart),
with its port held by the supervisor's own nginx again, never by an orphan. At the end
every acknowledged entry is in the log exactly once, no tap got a 500 (a 503
while the database is down is the app telling the phone to retry), and after
SIGTERM no process of the setup is left and the port is free.

The laptop server's crash safety (SIGKILL, SQLite) is tests/operations/test_crash_safety.py's.
Needs Debian's nginx and PostgreSQL (CI installs both; skipped elsewhere).
"""

from __future__ import annotations

import contextlib
import glob
import http.client
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import pytest

from companion.tables.store import Store
from tests.operations.test_concurrency import CSRF_RE, board_version
from tests.operations.test_deploy import _nginx

ROOT = Path(__file__).resolve().parents[2]
RECOVERY_BOUND = 30.0  # seconds: the stated bound for answering again after a fault
ROUNDS = 2  # each kind of fault this many times
WRITERS = 3
START_TIMEOUT = 120.0  # bounds for a broken setup, not timings
REQUEST_TIMEOUT = 20.0
RETRYABLE = {502, 503, 504}
WAITING = "leafpile: waiting for the database ("  # companion/tables/models.py
FAULTS = (
    "gunicorn worker",
    "gunicorn master",
    "nginx master",
    "database",
    "database, and a gunicorn master meanwhile",
)

pytestmark = [pytest.mark.slow, pytest.mark.rebuilds]  # with a PostgreSQL cluster of its own


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- a PostgreSQL cluster the test may crash ------------------------------------------


@dataclass
class Postgres:
    bin: Path
    data: Path
    port: int
    user: str | None  # run as this user (PostgreSQL refuses root)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://leafpile@127.0.0.1:{self.port}/leafpile"

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = list(argv)
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check, timeout=120)

    def start(self) -> None:
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.data / "log"),
            "-w", "-t", "60", "-o",
            f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )  # fmt: skip

    def crash(self) -> None:
        """SIGKILL the postmaster and every backend: a crash, not a shutdown."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        family = [postmaster, *_children(postmaster)]
        for pid in family:
            _kill(pid)
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in family) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop",
                  check=False)  # fmt: skip


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    pg_bin = _pg_bin()
    if pg_bin is None or _nginx() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL or nginx is missing: .ci/run installs both")
        pytest.skip("needs Debian's postgresql and nginx")
    # Not under pytest's own folder: PostgreSQL runs as its own user, who
    # must be able to reach the data folder.
    root = Path(tempfile.mkdtemp(prefix="leafpile-chaos-pg."))
    data = root / "data"
    user = None
    if os.geteuid() == 0:
        user = "postgres"
        try:
            pwd.getpwnam(user)
        except KeyError:
            pytest.skip("running as root without a postgres user to run PostgreSQL as")
        os.chmod(root, 0o755)
        data.mkdir(mode=0o700)
        shutil.chown(data, user)
    cluster = Postgres(pg_bin, data, _free_port(), user)
    cluster._run(str(pg_bin / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                 "-E", "UTF8")  # fmt: skip
    cluster.start()
    psql = [
        str(pg_bin / "psql"),
        "-q",
        "-h",
        "127.0.0.1",
        "-p",
        str(cluster.port),
        "-U",
        "postgres",
    ]
    cluster._run(*psql, "-c", "CREATE ROLE leafpile LOGIN")
    cluster._run(*psql, "-c", "CREATE DATABASE leafpile OWNER leafpile")
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


# --- processes --------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdecimal():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _listeners_on(port: int) -> set[int]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    holders = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdecimal():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    holders.add(int(entry.name))
                    break
        except OSError:
            continue
    return holders


@dataclass
class Setup:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def supervisor(self) -> int:
        return self.process.pid  # deploy/serve execs the supervisor

    def gunicorn_masters(self) -> list[int]:
        return [p for p in _children(self.supervisor) if "gunicorn" in _cmdline(p)]

    def nginx_master(self) -> int:
        (master,) = [p for p in _children(self.supervisor) if "nginx: master" in _cmdline(p)]
        return master

    def port_held_by_its_nginx(self) -> bool:
        """Whatever listens on the port is the supervisor's nginx master or a
        worker of it, and something does: never an orphan (a worker whose
        master died, even though the supervisor adopted it)."""
        holders = _listeners_on(self.port)
        masters = {p for p in _children(self.supervisor) if "nginx: master" in _cmdline(p)}
        return bool(holders) and all(
            pid in masters or _parent_of(pid) in masters for pid in holders
        )


def _start(tmp_path: Path, postgres: Postgres) -> Setup:
    """deploy/serve on ``postgres``, as docs/deploying.md runs it (not waited for)."""
    port = _free_port()
    env = {
        **os.environ,
        "LEAFPILE_INSTANCE": str(tmp_path / "instance"),
        "LEAFPILE_DATABASE_URL": postgres.url,
        "LEAFPILE_LISTEN": f"127.0.0.1:{port}",
        "LEAFPILE_WORKERS": "2",
        "LEAFPILE_EXPIRE_DAYS": "0",
        "LEAFPILE_RATE_LIMITS": "0",  # every phone here is one address
        "PYTHON": sys.executable,
    }
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["bash", str(ROOT / "deploy" / "serve")], cwd=ROOT, env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    return Setup(process, port, log)


def _end(served: Setup) -> None:
    family = _descendants(served.process.pid) | {served.process.pid}
    if served.process.poll() is None:
        os.killpg(served.process.pid, signal.SIGKILL)
        served.process.wait(timeout=30)
    for pid in family:
        _kill(pid)


def _until_healthy(served: Setup) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while _status(served.port, "GET", "/healthz") != 200:
        assert served.process.poll() is None, served.log.read_text()[-3000:]
        assert time.monotonic() < deadline, served.log.read_text()[-3000:]
        time.sleep(0.2)


@pytest.fixture
def setup(tmp_path: Path, postgres: Postgres) -> Iterator[Setup]:
    served = _start(tmp_path, postgres)
    try:
        _until_healthy(served)
        yield served
    finally:
        _end(served)


def test_deploy_serve_started_before_the_database_waits_for_it(tmp_path, postgres):
    """After a reboot deploy/serve (or systemd) may start before PostgreSQL:
    its workers wait, say so, and serve once the database answers."""
    postgres.stop()
    served = _start(tmp_path, postgres)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while WAITING not in served.log.read_text():
            assert served.process.poll() is None, served.log.read_text()[-3000:]
            assert time.monotonic() < deadline, served.log.read_text()[-3000:]
            time.sleep(0.2)
        assert served.process.poll() is None  # still up, and waiting
        postgres.start()
        started = time.monotonic()
        _until_healthy(served)
        assert time.monotonic() - started < RECOVERY_BOUND
        assert "the database answers; starting" in served.log.read_text()
        assert "Worker failed to boot" not in served.log.read_text()
    finally:
        _end(served)


def _status(port: int, method: str, path: str) -> int | None:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
        connection.request(method, path)
        status = connection.getresponse().status
        connection.close()
        return status
    except (OSError, http.client.HTTPException):
        return None


# --- honest phones ------------------------------------------------------------------------


@dataclass
class Tally:
    acknowledged: list[tuple[int, int]] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    last_ack: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Phone:
    """One phone: a cookie, a CSRF token, and a queue that resends a tap by its id."""

    def __init__(self, port: int, token: str, me: int, tally: Tally) -> None:
        self.port, self.token, self.me, self.tally = port, token, me, tally
        self.cookie = ""
        self.csrf = ""
        self.connection: http.client.HTTPConnection | None = None

    def _request(
        self, method: str, path: str, form: dict[str, str] | None = None
    ) -> tuple[int, str]:
        headers = {"HX-Request": "true"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.connection is None:
            self.connection = http.client.HTTPConnection(
                "127.0.0.1", self.port, timeout=REQUEST_TIMEOUT
            )
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            text = response.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            raise
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("session="):
                self.cookie = value.split(";", 1)[0]
        if response.getheader("Connection", "").lower() == "close":
            self.connection.close()
            self.connection = None
        with self.tally.lock:
            self.tally.statuses[response.status] += 1
        return response.status, text

    def _until_answered(self, method: str, path: str, form: dict[str, str] | None = None,
                        stop: threading.Event | None = None) -> tuple[int, str]:  # fmt: skip
        """Send (again) until an answer other than 502-504 comes, as the phone's queue does."""
        deadline = time.monotonic() + 4 * RECOVERY_BOUND
        while True:
            try:
                status, text = self._request(method, path, form)
                if status not in RETRYABLE:
                    return status, text
            except (OSError, http.client.HTTPException):
                pass
            assert time.monotonic() < deadline, f"{method} {path}: no answer in time"
            time.sleep(0.2)

    def run(self, stop: threading.Event) -> None:
        status, page = self._until_answered("GET", "/")
        found = CSRF_RE.search(page)
        assert status == 200 and found, status
        self.csrf = found.group(1)
        self._until_answered(
            "POST", f"/t/{self.token}/me", {"csrf_token": self.csrf, "mode": "shared"}
        )
        n = 0
        while not stop.is_set():
            status, board = self._until_answered("GET", f"/t/{self.token}/board")
            assert status == 200, status
            version = board_version(board)
            n += 1
            marker = (1000 * self.me + n, 7)
            form = {
                "csrf_token": self.csrf,
                "action": "add-round",
                "version": str(version),
                "score0": str(marker[0]),
                "score1": str(marker[1]),
                "tap": uuid.uuid4().hex,
            }
            status, _ = self._until_answered("POST", f"/t/{self.token}/act", form)
            if status == 200:
                with self.tally.lock:
                    self.tally.acknowledged.append(marker)
                    self.tally.last_ack = time.monotonic()
            else:
                assert status == 409, status  # the table moved on: not entered, tap anew


def _wait_for_an_entry(tally: Tally, since: float, what: str, setup: Setup) -> float:
    """Seconds from ``since`` until the port is held by the setup's own nginx
    (no orphan) and an entry has been acknowledged after that."""
    deadline = since + RECOVERY_BOUND
    healthy_at = None
    while time.monotonic() < deadline:
        if healthy_at is None:
            if setup.port_held_by_its_nginx():
                healthy_at = time.monotonic()
        else:
            with tally.lock:
                if tally.last_ack > healthy_at:
                    return tally.last_ack - since
        time.sleep(0.05)
    raise AssertionError(
        f"not answering within {RECOVERY_BOUND} s of {what} (port held by its nginx:"
        f" {healthy_at is not None}):\n" + setup.log.read_text()[-3000:]
    )


def _a_worker(setup: Setup) -> int:
    deadline = time.monotonic() + RECOVERY_BOUND
    while time.monotonic() < deadline:
        for master in setup.gunicorn_masters():
            workers = _children(master)
            if workers:
                return workers[0]
        time.sleep(0.1)
    raise AssertionError("no gunicorn worker to kill")


def test_the_production_setup_gets_up_by_itself_and_loses_no_entry(setup, postgres):
    store = Store(postgres.url)
    token = store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False}).token
    store.engine.dispose()
    tally = Tally()
    stop = threading.Event()
    failures: list[BaseException] = []

    def phone(me: int) -> None:
        try:
            Phone(setup.port, token, me, tally).run(stop)
        except BaseException as exc:  # reported by the test's thread below
            failures.append(exc)

    threads = [threading.Thread(target=phone, args=(me,), daemon=True) for me in range(WRITERS)]
    for thread in threads:
        thread.start()
    recoveries: dict[str, list[float]] = {}
    try:
        _wait_for_an_entry(tally, time.monotonic() - 1e-3, "the start", setup)
        for _ in range(ROUNDS):
            for fault in FAULTS:
                time.sleep(1.0)  # entries flowing before the fault
                assert not failures, failures
                if fault == "gunicorn worker":
                    _kill(_a_worker(setup))
                    since = time.monotonic()
                elif fault == "gunicorn master":
                    _kill(setup.gunicorn_masters()[0])
                    since = time.monotonic()
                elif fault == "nginx master":
                    _kill(setup.nginx_master())
                    since = time.monotonic()
                else:
                    postgres.crash()
                    time.sleep(2.0)  # down a while: the phones get 503s meanwhile
                    if fault == "database, and a gunicorn master meanwhile":
                        # Its new worker boots while the database is down: it
                        # waits, and says so in the log (then the database comes).
                        waits = setup.log.read_text().count(WAITING)
                        _kill(setup.gunicorn_masters()[-1])
                        deadline = time.monotonic() + RECOVERY_BOUND
                        while setup.log.read_text().count(WAITING) == waits:
                            assert time.monotonic() < deadline, setup.log.read_text()[-3000:]
                            time.sleep(0.1)
                    postgres.start()
                    since = time.monotonic()
                took = _wait_for_an_entry(tally, since, f"killing the {fault}", setup)
                recoveries.setdefault(fault, []).append(round(took, 2))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=4 * RECOVERY_BOUND)
    assert not failures, failures
    print("recovered after (s):", recoveries, "statuses:", dict(tally.statuses))

    assert 500 not in tally.statuses, (tally.statuses, setup.log.read_text()[-3000:])
    assert set(tally.statuses) <= {200, 409, 502, 503, 504}, tally.statuses

    # Every acknowledged entry is in the log exactly once.
    check = Store(postgres.url)
    events = check.export(token)["events"]
    check.engine.dispose()
    logged = Counter(tuple(e["payload"]["scores"]) for e in events if e["kind"] == "action")
    assert not [m for m, n in logged.items() if n > 1], "an entry logged twice"
    lost = set(tally.acknowledged) - set(logged)
    assert not lost, f"acknowledged entries lost: {sorted(lost)}"
    assert len(tally.acknowledged) == len(set(tally.acknowledged))

    # SIGTERM stops all of it: no process of the setup is left, the port is free.
    family = _descendants(setup.supervisor)
    setup.process.send_signal(signal.SIGTERM)
    setup.process.wait(timeout=60)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in family if _alive(pid)], "a process outlived deploy/serve"
    assert not _listeners_on(setup.port), "something still holds the port"
