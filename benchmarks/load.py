"""Load benchmark: a busy games night against the production server.

Starts gunicorn (``companion.wsgi:app``) on 127.0.0.1 with a fresh instance
folder, opens TABLES score-pad tables, and then for the run's duration:

* every table has PHONES phones, each polling the table every 2 s (the poll
  answers 204 while nothing changed, else the fresh board, as in the app);
* every table gets one entry per second (a round on the score pad), posted
  by its phones in turn with their own session and CSRF token;
* one more client asks a trivial endpoint (``/healthz``: no database, no
  session) 20 times a second, as the baseline for the same server.

It prints one JSON object: p50/p95/p99 latency in ms for polls, actions and
the trivial endpoint, the number of requests and errors, the peak resident
memory of each gunicorn worker (VmHWM), and whether the targets were met;
the exit status is 0 when they were. Everything stays on loopback, and every
loop is bounded by the run's duration.

    python benchmarks/load.py            # 60 s
    python benchmarks/load.py --quick    # 10 s
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
POLL_SECONDS = 2.0
ACTION_SECONDS = 1.0
TRIVIAL_PER_SECOND = 20
TARGETS = {
    "errors": 0,
    "action_p95_ms": 25.0,
    "poll_p95_ms": 10.0,
    "poll_p95_vs_trivial": 3.0,
    "worker_peak_mb": 150.0,
}
CSRF_RE = re.compile(rb'name="csrf_token" value="([^"]+)"')
VERSION_RE = re.compile(rb'data-version="(\d+)"')


# --- the server ---------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def heartbeat_dir() -> list[str]:
    """Workers touch a file on every loop as a heartbeat: keep it in memory.

    On a disk-backed /tmp each touch can cost a good part of a millisecond
    (gunicorn's docs recommend /dev/shm in containers for the same reason).
    """
    return ["--worker-tmp-dir", "/dev/shm"] if os.path.isdir("/dev/shm") else []


def start_server(
    instance: Path, database_url: str | None, workers: int, threads: int
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "LEAFPILE_INSTANCE": str(instance)}
    env["LEAFPILE_DATABASE_URL"] = database_url or f"sqlite:///{instance / 'load.sqlite3'}"
    env.pop("FLASK_DEBUG", None)
    command = [
        sys.executable, "-m", "gunicorn",
        "--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads),
        "--keep-alive", "10", "--bind", f"127.0.0.1:{port}", *heartbeat_dir(),
        "--log-level", "warning", "companion.wsgi:app",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=open(instance / "gunicorn.log", "wb"),  # noqa: SIM115
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit((instance / "gunicorn.log").read_text()[-3000:])
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return process, port
        except OSError:
            time.sleep(0.1)
    stop_server(process)
    raise SystemExit("gunicorn did not start within 30 s")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def worker_pids(master: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == master:
                pids.append(int(entry.name))
    return sorted(pids)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


# --- a minimal keep-alive HTTP/1.1 client ---------------------------------------


class HttpError(Exception):
    pass


@dataclass
class Connection:
    port: int
    cookie: bytes = b""
    location: str = ""  # the Location of the last redirect
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, form: dict[str, str] | None = None, htmx: bool = False
    ) -> tuple[int, bytes]:
        body = urlencode(form).encode() if form is not None else b""
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: keep-alive"]
        if htmx:
            head.append("HX-Request: true")
        if self.cookie:
            head.append("Cookie: " + self.cookie.decode())
        if form is not None:
            head.append("Content-Type: application/x-www-form-urlencoded")
            head.append(f"Content-Length: {len(body)}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            assert self.reader is not None
            try:
                self.writer.write(data)
                await self.writer.drain()
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionResetError("closed before answering")
            except (ConnectionError, OSError):
                # The server closed an idle kept-alive connection before it read
                # this request: nothing was processed, so send it again once.
                self.close()
                if attempt == 2:
                    raise
                continue
            return await self._response(status_line)
        raise HttpError("unreachable")

    async def _response(self, status_line: bytes) -> tuple[int, bytes]:
        assert self.reader is not None
        status = int(status_line.split()[1])
        length, close = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"set-cookie" and value.strip().startswith(b"session="):
                self.cookie = value.strip().split(b";", 1)[0]
            elif name == b"location":
                self.location = value.strip().decode()
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
            elif name == b"transfer-encoding":
                raise HttpError("chunked answers are not expected here")
        body = await self.reader.readexactly(length) if length else b""
        if close:
            self.close()
        return status, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# --- the load -----------------------------------------------------------------


@dataclass
class Results:
    latencies: dict[str, list[float]] = field(
        default_factory=lambda: {"poll": [], "action": [], "trivial": []}
    )
    errors: dict[str, int] = field(default_factory=dict)
    poll_changed: int = 0
    cpu_before: tuple[float, float] = (0.0, 0.0)
    cpu_during: tuple[float, float] = (0.0, 0.0)  # (server, this client) while loaded

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


@dataclass
class Phone:
    """One phone: like a browser, it polls and posts on separate connections."""

    connection: Connection
    csrf: str = ""
    seen: int = 0
    poster: Connection | None = None


@dataclass
class Table:
    token: str
    phones: list[Phone]
    version: int = 0


async def timed(results: Results, kind: str, call: Any) -> tuple[int, bytes] | None:
    start = time.perf_counter()
    try:
        status, body = await asyncio.wait_for(call, timeout=10)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, HttpError) as exc:
        results.error(f"{kind}: {type(exc).__name__}")
        return None
    results.latencies[kind].append((time.perf_counter() - start) * 1000)
    return status, body


async def open_phone(port: int) -> Phone:
    phone = Phone(Connection(port))
    status, body = await phone.connection.request("GET", "/")
    match = CSRF_RE.search(body)
    if status != 200 or not match:
        raise SystemExit(f"the home page answered {status} without a CSRF token")
    phone.csrf = match.group(1).decode()
    phone.poster = Connection(port, cookie=phone.connection.cookie)
    return phone


async def open_table(port: int, phones: int, n: int) -> Table:
    host = await open_phone(port)
    form = {"csrf_token": host.csrf, "player1": "Ana", "player2": "Ben", "wins": "highest",
            "title": f"Load table {n}"}  # fmt: skip
    conn = host.connection
    status, _ = await conn.request("POST", "/new/scorepad", form)
    if status != 303 or "/t/" not in conn.location:
        raise SystemExit(f"creating a table answered {status}")
    token = conn.location.rsplit("/t/", 1)[1]
    table = Table(token, [host] + [await open_phone(port) for _ in range(phones - 1)])
    for phone in table.phones:  # warm each worker's templates and snapshot cache
        status, _ = await phone.connection.request("GET", f"/t/{token}")
        if status != 200:
            raise SystemExit(f"the table page answered {status}")
    return table


async def poller(table: Table, phone: Phone, results: Results, start: float, end: float) -> None:
    next_at = start + random.uniform(0, POLL_SECONDS)
    while True:
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        if time.perf_counter() >= end:
            return
        path = f"/t/{table.token}/poll?v={phone.seen}"
        answer = await timed(results, "poll", phone.connection.request("GET", path, htmx=True))
        if answer is not None:
            status, body = answer
            if status == 200:
                results.poll_changed += 1
                match = VERSION_RE.search(body)
                phone.seen = int(match.group(1)) if match else phone.seen
            elif status != 204:
                results.error(f"poll: HTTP {status}")
        next_at += POLL_SECONDS


async def entries(table: Table, results: Results, start: float, end: float) -> None:
    next_at = start + random.uniform(0, ACTION_SECONDS)
    turn = 0
    while True:
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        if time.perf_counter() >= end:
            return
        phone = table.phones[turn % len(table.phones)]
        turn += 1
        scores = {"score0": str(random.randint(0, 20)), "score1": str(random.randint(0, 20))}
        form = {"csrf_token": phone.csrf, "version": str(table.version), "action": "add-round"}
        assert phone.poster is not None
        call = phone.poster.request("POST", f"/t/{table.token}/act", form | scores, htmx=True)
        answer = await timed(results, "action", call)
        if answer is not None:
            status, body = answer
            match = VERSION_RE.search(body)
            if status == 200 and match:
                table.version = int(match.group(1))
                phone.seen = table.version
            else:
                results.error(f"action: HTTP {status}")
        next_at += ACTION_SECONDS


async def trivial(port: int, results: Results, start: float, end: float) -> None:
    connection = Connection(port)
    next_at = start
    while True:
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        if time.perf_counter() >= end:
            break
        answer = await timed(results, "trivial", connection.request("GET", "/healthz"))
        if answer is not None and answer[0] != 200:
            results.error(f"trivial: HTTP {answer[0]}")
        next_at += 1 / TRIVIAL_PER_SECOND
    connection.close()


def server_cpu(master: int) -> float:
    return sum(cpu_seconds(pid) for pid in [master, *worker_pids(master)])


async def run_load(port: int, master: int, tables: int, phones: int, seconds: float) -> Results:
    results = Results()
    opened = [await open_table(port, phones, n) for n in range(tables)]
    results.cpu_before = (server_cpu(master), time.process_time())
    start = time.perf_counter() + 0.5
    end = start + seconds
    tasks = [trivial(port, results, start, end)]
    for table in opened:
        tasks.append(entries(table, results, start, end))
        tasks += [poller(table, phone, results, start, end) for phone in table.phones]
    await asyncio.gather(*tasks)
    results.cpu_during = (
        round(server_cpu(master) - results.cpu_before[0], 2),
        round(time.process_time() - results.cpu_before[1], 2),
    )
    for table in opened:
        for phone in table.phones:
            phone.connection.close()
            if phone.poster is not None:
                phone.poster.close()
    return results


# --- the report -----------------------------------------------------------------


def percentiles(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"count": len(ordered), "p50": at(0.50), "p95": at(0.95), "p99": at(0.99),
            "max": round(ordered[-1], 2)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 10 s run instead of 60 s")
    parser.add_argument("--seconds", type=float, help="run this long instead")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--phones", type=int, default=6, help="phones per table")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--database-url", default=os.environ.get("LEAFPILE_BENCH_DATABASE_URL"),
        help="an empty database to use (default: a fresh SQLite file)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    seconds = args.seconds or (10.0 if args.quick else 60.0)
    random.seed(7)
    load_before = [round(x, 2) for x in os.getloadavg()]

    with tempfile.TemporaryDirectory(prefix="leafpile-load-") as folder:
        instance = Path(folder)
        process, port = start_server(instance, args.database_url, args.workers, args.threads)
        try:
            results = asyncio.run(run_load(port, process.pid, args.tables, args.phones, seconds))
        except Exception:
            log = (instance / "gunicorn.log").read_text(errors="replace")[-3000:]
            print(f"the load failed; gunicorn said:\n{log}", file=sys.stderr)
            stop_server(process)
            raise
        try:
            workers = worker_pids(process.pid)
            worker_peaks = [peak_rss_mb(pid) for pid in workers]
            master_peak = peak_rss_mb(process.pid)
        finally:
            stop_server(process)

    poll = percentiles(results.latencies["poll"])
    action = percentiles(results.latencies["action"])
    base = percentiles(results.latencies["trivial"])
    errors = sum(results.errors.values())
    ratio = round(poll["p95"] / base["p95"], 2) if base.get("p95") and poll.get("p95") else None
    met = {
        "zero_errors": errors == TARGETS["errors"],
        "action_p95_le_25ms": action.get("p95", 1e9) <= TARGETS["action_p95_ms"],
        "poll_p95_le_10ms": poll.get("p95", 1e9) <= TARGETS["poll_p95_ms"],
        "poll_p95_within_3x_trivial": ratio is not None and ratio <= TARGETS["poll_p95_vs_trivial"],
        "worker_peak_le_150mb": bool(worker_peaks)
        and max(worker_peaks) <= TARGETS["worker_peak_mb"],
    }
    report = {
        "benchmark": "leafpile load",
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            # Other work on the machine shows here: the targets assume a quiet one.
            "load_average_before": load_before,
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "server": {
            "command": f"gunicorn --workers {args.workers} --worker-class gthread "
            f"--threads {args.threads} --keep-alive 10 {' '.join(heartbeat_dir())} "
            "companion.wsgi:app",
            "database": "postgresql" if args.database_url else "sqlite (WAL)",
        },
        "load": {
            "seconds": seconds,
            "tables": args.tables,
            "phones_per_table": args.phones,
            "poll_every_s": POLL_SECONDS,
            "entries_per_table_per_s": 1 / ACTION_SECONDS,
            "trivial_per_s": TRIVIAL_PER_SECOND,
        },
        "poll_ms": poll,
        "polls_with_a_fresh_board": results.poll_changed,
        "action_ms": action,
        "trivial_ms": base,
        "poll_p95_over_trivial_p95": ratio,
        "errors": errors,
        "error_kinds": results.errors,
        "cpu_seconds_under_load": {
            "server": results.cpu_during[0],
            "load_client": results.cpu_during[1],
        },
        "server_peak_rss_mb": {
            "per_worker": worker_peaks,
            "worker_max": max(worker_peaks, default=0.0),
            "master": master_peak,
        },
        "targets_met": met,
        "ok": all(met.values()),
    }
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
