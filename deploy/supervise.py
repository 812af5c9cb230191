"""deploy/serve's supervisor: keeps the production setup's processes running.

deploy/serve prepares the instance folder and nginx's configuration, then
hands over to this (``exec``). It starts one gunicorn a socket and nginx in
front, and from then on:

* a gunicorn or nginx that ends, however (a crash, SIGKILL, the OOM killer),
  is started again: at once the first time, then with backoff (0.5 s doubled
  up to 30 s) while it keeps dying within 10 s of starting;
* nothing it started is left behind. It is Linux's "child subreaper"
  (prctl PR_SET_CHILD_SUBREAPER), so the workers of a master that died
  become its children: it stops them before it starts the master again. An
  nginx worker left holding the port had made every restart fail with
  ``bind() ... Address already in use`` (issue 42). Before nginx starts, an
  orphaned nginx worker still listening on its port (from a run whose
  supervisor was itself killed) is stopped too, and a gunicorn's stale socket
  file is removed;
* the daily expiry of abandoned tables runs as a job of its own;
* SIGTERM or SIGINT (Ctrl-C) stops everything, and it exits 0.

Each line it logs starts with ``deploy/serve:``. The choice of a small
supervisor of our own over supervisord or runit: deploy/serve is the quick
start on any Debian box, with nothing to install but nginx; a real service
manager is what docs/deploying.md's systemd units are for.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
QUICK_DEATH_SECONDS = 10.0  # a process that ends sooner than this after its start backs off
FIRST_BACKOFF, LAST_BACKOFF = 0.5, 30.0
STOP_GRACE_SECONDS = 12.0  # gunicorn's graceful_timeout is 10
SOCKET_WAIT_SECONDS = 30.0  # nginx starts after the app's sockets, or after this anyway
EXPIRE_EVERY_SECONDS = 86_400.0
TICK = 0.1

_libc = ctypes.CDLL(None, use_errno=True)


def say(text: str) -> None:
    print(f"deploy/serve: {text}", file=sys.stderr, flush=True)


def _die_with_parent() -> None:
    """In a child, before exec: SIGKILL when the supervisor dies, so that a
    supervisor killed outright takes its servers with it."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


@dataclass
class Service:
    name: str
    argv: list[str]
    env: dict[str, str]
    socket_file: Path | None = None  # a Unix socket it binds (removed if stale)
    port: int | None = None  # a TCP port it listens on (an orphan holding it is stopped)
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    quick_deaths: int = 0
    start_after: float = 0.0
    starts: int = 0
    history: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None


def _described(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit code {os.WEXITSTATUS(status)}"


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _name_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _my_children() -> list[int]:
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdecimal() and _parent_of(int(entry.name)) == me:
            found.append(int(entry.name))
    return found


def _listeners_on(port: int) -> set[int]:
    """The pids of processes holding a listening TCP socket on ``port``."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    holders: set[int] = set()
    if not inodes:
        return holders
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


class Supervisor:
    def __init__(self, services: list[Service], expire: list[str] | None, env: dict[str, str]):
        self.services = services
        self.expire = expire
        self.env = env
        self.expire_job: subprocess.Popen[bytes] | None = None
        self.next_expiry = time.monotonic()
        self.stopping = False

    # --- the parts -------------------------------------------------------------

    def start(self, service: Service) -> None:
        self._clear_what_it_owns(service)
        service.process = subprocess.Popen(
            service.argv, env=service.env, preexec_fn=_die_with_parent
        )
        service.started_at = time.monotonic()
        service.starts += 1
        if service.starts > 1:
            say(f"{service.name} started again (pid {service.pid})")

    def _clear_what_it_owns(self, service: Service) -> None:
        if service.socket_file is not None and service.socket_file.exists():
            service.socket_file.unlink()  # a stale socket: its process is gone
        if service.port is not None:
            for pid in _listeners_on(service.port):
                parent = _parent_of(pid)
                if _name_of(pid) == "nginx" and parent is not None and _name_of(parent) != "nginx":
                    say(f"stopping an orphaned nginx worker (pid {pid}) on port {service.port}")
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and any(
                _name_of(pid) == "nginx" for pid in _listeners_on(service.port)
            ):
                self._reap()
                time.sleep(TICK)

    def _stop_orphans(self) -> None:
        """Every child that is not one of ours is the orphan of a master that
        died (its workers): stop it, and wait until it is gone."""
        ours = {s.pid for s in self.services} | {self.expire_job.pid if self.expire_job else None}
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            orphans = [pid for pid in _my_children() if pid not in ours]
            if not orphans:
                return
            for pid in orphans:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self._reap()
            time.sleep(TICK / 2)

    def _reap(self) -> list[tuple[int, int]]:
        ended = []
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            ended.append((pid, status))
            self._ended_pid(pid, status)
        # Popen.send_signal polls first (bpo-38630), so a child that was already
        # gone when _stop_all signalled it was reaped there, not by waitpid above:
        # without this, stopping waited out its whole grace for it (17 s).
        for service in self.services:
            code = service.process.returncode if service.process is not None else None
            if code is not None:  # back to waitpid's status: a signal's number, or code << 8
                self._ended(service, -code if code < 0 else code << 8)
        return ended

    def _ended_pid(self, pid: int, status: int) -> None:
        for service in self.services:
            if service.pid == pid and service.process is not None:
                service.process.returncode = status  # Popen must not wait for it again
                self._ended(service, status)
        if self.expire_job is not None and self.expire_job.pid == pid:
            if status != 0:
                say(f"the expiry of old tables ended with {_described(status)}")
            self.expire_job.returncode = status
            self.expire_job = None

    def _ended(self, service: Service, status: int) -> None:
        lived = time.monotonic() - service.started_at
        service.process = None
        if self.stopping:
            return
        service.quick_deaths = service.quick_deaths + 1 if lived < QUICK_DEATH_SECONDS else 0
        delay = 0.0
        if service.quick_deaths > 1:
            delay = min(FIRST_BACKOFF * 2 ** (service.quick_deaths - 2), LAST_BACKOFF)
        service.start_after = time.monotonic() + delay
        say(
            f"{service.name} (after {lived:.0f} s) ended: {_described(status)}; "
            f"starting it again in {delay:g} s"
        )

    # --- the loop ----------------------------------------------------------------

    def run(self) -> int:
        _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        signal.signal(signal.SIGTERM, self._stop_signal)
        signal.signal(signal.SIGINT, self._stop_signal)
        apps = [s for s in self.services if s.socket_file is not None]
        fronts = [s for s in self.services if s.socket_file is None]
        for service in apps:
            self.start(service)
        deadline = time.monotonic() + SOCKET_WAIT_SECONDS
        while not self.stopping and time.monotonic() < deadline:
            if all(s.socket_file is not None and s.socket_file.exists() for s in apps):
                break
            self._reap()
            time.sleep(TICK)
        for service in fronts:
            if not self.stopping:
                self.start(service)
        while not self.stopping:
            self._reap()
            down = [s for s in self.services if s.process is None]
            if down:
                self._stop_orphans()
            for service in down:
                if time.monotonic() >= service.start_after and not self.stopping:
                    self.start(service)
            self._expire_if_due()
            time.sleep(TICK)
        return self._stop_all()

    def _expire_if_due(self) -> None:
        if self.expire is None or self.expire_job is not None:
            return
        if time.monotonic() >= self.next_expiry:
            self.expire_job = subprocess.Popen(
                self.expire, env=self.env, preexec_fn=_die_with_parent
            )
            self.next_expiry = time.monotonic() + EXPIRE_EVERY_SECONDS

    def _stop_signal(self, number: int, _frame: object) -> None:
        self.stopping = True

    def _stop_all(self) -> int:
        running = [s.process for s in self.services if s.process is not None]
        if self.expire_job is not None:
            running.append(self.expire_job)
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < deadline and any(s.process is not None for s in self.services):
            self._reap()
            time.sleep(TICK)
        for service in self.services:
            if service.process is not None:
                service.process.kill()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(s.process is not None for s in self.services):
            self._reap()
            time.sleep(TICK / 2)
        self._stop_orphans()
        return 0


def _port_of(listen: str) -> int | None:
    tail = listen.rsplit(":", 1)[-1].split()[0]
    return int(tail) if tail.isdecimal() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--run", required=True, help="the run folder (sockets, nginx.conf)")
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--listen", required=True)
    parser.add_argument("--nginx", required=True)
    parser.add_argument("--expire-days", default="0")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent
    run = Path(args.run)
    env = dict(os.environ)
    services = [
        Service(
            f"gunicorn {i}",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(here / "gunicorn.conf.py"),
                "companion.wsgi:app",
            ],  # fmt: skip
            {**env, "LEAFPILE_SOCKET": str(run / f"app-{i}.sock"), "LEAFPILE_WORKERS": "1"},
            socket_file=run / f"app-{i}.sock",
        )
        for i in range(args.workers)
    ]
    services.append(
        Service(
            "nginx",
            [
                args.nginx,
                "-p",
                str(run),
                "-c",
                str(run / "nginx.conf"),
                "-e",
                "stderr",
                "-g",
                "daemon off;",
            ],  # fmt: skip
            env,
            port=_port_of(args.listen),
        )
    )
    expire = None
    if args.expire_days not in ("0", ""):
        expire = [sys.executable, "-m", "companion.expire", "--days", args.expire_days]
    return Supervisor(services, expire, env).run()


if __name__ == "__main__":
    sys.exit(main())
