"""Push benchmark: a club night of phones holding change streams (issue 21).

Starts a server on loopback with a fresh database, opens TABLES score-pad
tables with PHONES phones each, and for the run's duration:

* every phone holds its table's stream (``--mode stream``, the app today) and,
  like the browser, fetches its board (the poll route) when a nudge names a
  newer version than it shows, plus its slow fallback poll every 60 s when
  its stream has said nothing (not even a heartbeat) for 32 s; or,
  for comparison, polls every 2 s and nothing else (``--mode poll``, the app
  before streams);
* every phone enters a round about every 20 s (a random pause of 10-30 s),
  carrying the version it shows; a 409 (stale) is counted, not an error.

Delivery latency is what a player feels: from the moment a write is answered
to the moment every *other* phone of the table has fetched a board at least
that new. A delivery later than 5 s, a failed request or a dropped stream is
an error. The run *holds* when there are no errors and delivery p95 <= 250 ms
(an absolute bound, not a ratio to another endpoint of the same server:
both wait in the same queue when it saturates).

It prints one JSON object with the figures, the server's CPU seconds and
peak memory per worker process, the load client's own CPU, the machine's
load average before and after, and the exact server command.

    python benchmarks/push.py --tables 100 --seconds 60                 # leafpile
    python benchmarks/push.py --server deploy --tables 500 --seconds 60 # nginx + gunicorn
    python benchmarks/push.py --server deploy --mode poll --tables 100  # the old way
    python benchmarks/push.py --server deploy --sweep 100,200,300,500   # find the knee
    python benchmarks/push.py --tables 500 --idle --seconds 60          # 3,000 idle streams
    python benchmarks/push.py --tables 20 --changes 600                 # CPU a change, alone

Everything stays on loopback and every loop ends with the run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from load import (
    ROOT,
    Connection,
    HttpError,
    cpu_seconds,
    descendants,
    free_port,
    gunicorn_workers,
    peak_rss_mb,
    percentiles,
    stop_server,
    wait_until_up,
)

POLL_SECONDS = 2.0  # --mode poll: the app before streams
FALLBACK_POLL_S = 60.0  # --mode stream: the app's slow fallback poll
HEARTBEAT_S = 20.0  # the stream's heartbeat; as stream.js, no fallback poll while it talks
LATE_SECONDS = 5.0
DELIVERY_P95_MS = 250.0
CSRF_RE = re.compile(rb'name="csrf_token" value="([^"]+)"')
VERSION_RE = re.compile(rb'data-version="(\d+)"')


# --- servers ----------------------------------------------------------------------


def start(
    kind: str, instance: Path, database_url: str | None, workers: int | None, log: str | None = None
) -> Any:
    port = free_port()
    env = {**os.environ, "LEAFPILE_INSTANCE": str(instance / "instance")}
    env["LEAFPILE_DATABASE_URL"] = database_url or f"sqlite:///{instance / 'push.sqlite3'}"
    env |= {"LEAFPILE_RATE_LIMITS": "0", "LEAFPILE_MAX_CONNECTIONS": "20000"}
    env.pop("FLASK_DEBUG", None)
    if kind == "leafpile":
        command = [sys.executable, "-m", "companion.cli", "--host", "127.0.0.1",
                   "--port", str(port)]  # fmt: skip
        shown = "leafpile --host 127.0.0.1 (gevent, one process)"
    elif kind == "gunicorn":
        n = workers or 2
        command = [sys.executable, "-m", "gunicorn", "--workers", str(n), "--worker-class",
                   "gevent", "--worker-connections", "10000", "--bind", f"127.0.0.1:{port}",
                   "--log-level", "warning", "companion.wsgi:app"]  # fmt: skip
        shown = f"gunicorn --workers {n} --worker-class gevent companion.wsgi:app"
    else:
        env |= {"LEAFPILE_LISTEN": f"127.0.0.1:{port}", "LEAFPILE_EXPIRE_DAYS": "0",
                "PYTHON": sys.executable}  # fmt: skip
        if workers:
            env["LEAFPILE_WORKERS"] = str(workers)
        command = ["bash", str(ROOT / "deploy" / "serve")]
        shown = f"deploy/serve (nginx -> gunicorn, {workers or '1 a core'} gevent workers)"
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
        stderr=open(log or instance / "gunicorn.log", "wb"),  # noqa: SIM115
    )  # fmt: skip
    wait_until_up(process, port, instance, 90, kind)
    return process, port, shown


def app_processes(kind: str, root: int) -> list[int]:
    """The processes that run the app: gunicorn's workers, or leafpile itself."""
    return [root] if kind == "leafpile" else gunicorn_workers(root)


# --- phones -----------------------------------------------------------------------


@dataclass
class Stats:
    delivery_ms: list[float] = field(default_factory=list)
    entry_ms: list[float] = field(default_factory=list)
    fetch_ms: list[float] = field(default_factory=list)
    entries: int = 0
    stale: int = 0
    requests: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


@dataclass
class Phone:
    requests: Connection
    csrf: str
    seen: int = 0
    busy: bool = False  # a fetch is on its way: one more waits (like htmx's queue)
    again: bool = False
    heard: float = -1e9  # when its stream last said anything (perf_counter)


@dataclass
class Table:
    token: str
    phones: list[Phone]
    # version -> (answered at, phones still to fetch it)
    pending: dict[int, tuple[float, set[int]]] = field(default_factory=dict)


async def new_phone(port: int, source: str = "") -> Phone:
    connection = Connection(port, source=source, compressed=True)
    status, body = await connection.request("GET", "/")
    match = CSRF_RE.search(body)
    if status != 200 or not match:
        raise SystemExit(f"the start page answered {status}")
    return Phone(connection, match.group(1).decode())


async def new_table(port: int, phones: int, n: int, source: str = "") -> Table:
    """A score pad with ``phones`` phones, made from loopback address ``source``."""
    host = await new_phone(port, source)
    form = {"csrf_token": host.csrf, "player1": "Ana", "player2": "Ben", "wins": "highest",
            "title": f"Push table {n}"}  # fmt: skip
    status, _ = await host.requests.request("POST", "/new/scorepad", form)
    if status != 303 or "/t/" not in host.requests.location:
        raise SystemExit(f"creating a table answered {status}")
    token = host.requests.location.rsplit("/t/", 1)[1]
    others = [await new_phone(port, source) for _ in range(phones - 1)]
    for phone in others:
        # A joined phone says who it is before it enters anything (LT3): here,
        # the table's shared phone, so that any of them may enter a round.
        form = {"csrf_token": phone.csrf, "mode": "shared"}
        status, _ = await phone.requests.request("POST", f"/t/{token}/me", form)
        if status not in (200, 303):
            raise SystemExit(f"choosing the shared phone answered {status}")
    return Table(token, [host, *others])


def delivered(table: Table, index: int, version: int, stats: Stats) -> None:
    """Phone ``index`` now shows ``version``: every write it completes is timed."""
    now = time.perf_counter()
    for written in sorted(table.pending):
        if written > version:
            break
        answered, waiting = table.pending[written]
        waiting.discard(index)
        if not waiting:
            stats.delivery_ms.append((now - answered) * 1000)
            del table.pending[written]


async def fetch(table: Table, index: int, stats: Stats) -> None:
    phone = table.phones[index]
    if phone.busy:
        phone.again = True
        return
    phone.busy = True
    try:
        while True:
            phone.again = False
            await fetch_once(table, index, stats)
            if not phone.again:
                return
    finally:
        phone.busy = False


async def fetch_once(table: Table, index: int, stats: Stats) -> None:
    phone = table.phones[index]
    started = time.perf_counter()
    path = f"/t/{table.token}/poll?v={phone.seen}"
    try:
        status, body = await asyncio.wait_for(
            phone.requests.request("GET", path, htmx=True), LATE_SECONDS * 2
        )
    except (TimeoutError, OSError, asyncio.IncompleteReadError, HttpError) as exc:
        stats.error(f"fetch: {type(exc).__name__}")
        return
    stats.requests += 1
    stats.fetch_ms.append((time.perf_counter() - started) * 1000)
    if status == 200:
        match = VERSION_RE.search(body)
        if match:
            phone.seen = max(phone.seen, int(match.group(1)))
    elif status != 204:
        stats.error(f"fetch: HTTP {status}")
    delivered(table, index, phone.seen, stats)


async def enter(
    table: Table, index: int, stats: Stats, end: float, entry_every: tuple[float, float]
) -> None:
    phone = table.phones[index]
    poster = Connection(  # the phone's own address, as its stream and fetches
        phone.requests.port,
        cookie=phone.requests.cookie,
        compressed=True,
        source=phone.requests.source,
    )
    # The first entry comes at a random point of one mean gap, the next ones
    # a whole gap apart: so the load is steady from the first second measured
    # (waiting a whole first gap left the first 10 s without an entry, and
    # the CPU per second read a third low).
    pause = random.uniform(0, sum(entry_every) / 2)
    while True:
        await asyncio.sleep(pause)
        pause = random.uniform(*entry_every)
        if time.perf_counter() >= end:
            break
        scores = {"score0": str(random.randint(0, 20)), "score1": str(random.randint(0, 20))}
        form = {"csrf_token": phone.csrf, "version": str(phone.seen), "action": "add-round"}
        form |= scores
        started = time.perf_counter()
        try:
            status, body = await asyncio.wait_for(
                poster.request("POST", f"/t/{table.token}/act", form, htmx=True), LATE_SECONDS * 2
            )
        except (TimeoutError, OSError, asyncio.IncompleteReadError, HttpError) as exc:
            stats.error(f"entry: {type(exc).__name__}")
            continue
        answered = time.perf_counter()
        stats.requests += 1
        stats.entry_ms.append((answered - started) * 1000)
        match = VERSION_RE.search(body)
        version = int(match.group(1)) if match else None
        if status == 200 and version is not None:
            stats.entries += 1
            others = {i for i in range(len(table.phones)) if i != index}
            others -= {i for i, p in enumerate(table.phones) if p.seen >= version}
            if others:
                table.pending[version] = (answered, others)
        elif status == 409:
            stats.stale += 1
        else:
            stats.error(f"entry: HTTP {status}")
        if status in (200, 409) and version is not None:
            # Either answer carries the table's board as it now is, and the
            # phone shows it: earlier changes still waiting for this phone
            # are delivered now (else they waited for its next fetch, which
            # its newer version may never need, and read seconds late).
            phone.seen = max(phone.seen, version)
            delivered(table, index, phone.seen, stats)
    poster.close()


async def poll_loop(table: Table, index: int, stats: Stats, every: float, end: float) -> None:
    phone = table.phones[index]
    await asyncio.sleep(random.uniform(0, every))
    while time.perf_counter() < end:
        if time.perf_counter() - phone.heard >= 1.5 * HEARTBEAT_S + 2:  # stream.js's talking()
            await fetch(table, index, stats)
        await asyncio.sleep(every)


async def read_chunked_events(reader: asyncio.StreamReader) -> Any:
    """(event type, data) of each event of a chunked text/event-stream, one at a time."""
    buffer = b""
    while True:
        size_line = await reader.readline()
        if not size_line:
            return
        size = int(size_line.strip() or b"0", 16)
        if size == 0:
            return
        buffer += await reader.readexactly(size)
        await reader.readexactly(2)
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            kind, data = "message", None
            for line in block.split(b"\n"):
                if line.startswith(b"event: "):
                    kind = line[7:].decode()
                elif line.startswith(b"data: "):
                    data = line[6:].decode()
            if data is not None:
                yield kind, data


async def stream_loop(table: Table, index: int, stats: Stats, ready: Any, end: float) -> None:
    phone = table.phones[index]
    port = phone.requests.port
    first = True
    while time.perf_counter() < end:
        try:
            # From the phone's own address, as its requests: a server that caps
            # connections per address (issue 42) sees each table's phones apart.
            source = phone.requests.source
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0) if source else None
            )
        except OSError as exc:
            stats.error(f"stream: {type(exc).__name__}")
            await asyncio.sleep(2)
            continue
        try:
            writer.write(f"GET /t/{table.token}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())  # fmt: skip
            status_line = await reader.readline()
            if b" 200 " not in status_line:
                stats.error(f"stream: {status_line[:40]!r}")
                await asyncio.sleep(2)
                continue
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            async for kind, data in read_chunked_events(reader):
                phone.heard = time.perf_counter()
                if first:
                    ready.append(1)
                    first = False
                if kind != "message":  # the heartbeat
                    continue
                version = int(data) if data.isdigit() else 1 << 30
                if version > phone.seen:
                    asyncio.ensure_future(fetch(table, index, stats))
            if time.perf_counter() < end:
                stats.error("stream: ended early")
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            if time.perf_counter() < end:
                stats.error(f"stream: {type(exc).__name__}")
        finally:
            writer.close()


async def loop_lag(lags: list[float], end: float) -> None:
    """How late this client's own event loop wakes (ms): a late wake delays
    every answer it reads, and would be timed as the server's delivery."""
    while (asked := time.perf_counter()) < end:
        await asyncio.sleep(0.01)
        lags.append((time.perf_counter() - asked - 0.01) * 1000)


async def until(end: float, job: Any) -> None:
    """Run ``job`` until the run ends (a stream never ends by itself)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(job, max(0.0, end - time.perf_counter()))


async def run(kind: str, port: int, root: int, args: argparse.Namespace, tables: int) -> dict:
    stats = Stats()
    opened: list[Table] = []
    for first in range(0, tables, 50):  # set up 50 tables at a time
        opened += await asyncio.gather(
            *(new_table(port, args.phones, n) for n in range(first, min(first + 50, tables)))
        )
    end_setup = time.perf_counter()
    end = end_setup + args.warmup + args.seconds
    ready: list[int] = []
    tasks = []
    for table in opened:
        for index in range(len(table.phones)):
            if args.mode == "stream":
                tasks.append(until(end + 2, stream_loop(table, index, stats, ready, end + 2)))
                tasks.append(until(end + 2, poll_loop(table, index, stats, FALLBACK_POLL_S, end)))
            else:
                tasks.append(until(end + 2, poll_loop(table, index, stats, POLL_SECONDS, end)))
    running = [asyncio.ensure_future(t) for t in tasks]
    entry_every = (args.entry_every * 0.5, args.entry_every * 1.5)
    await asyncio.sleep(args.warmup)  # every stream opens (the first nudges fetch nothing)
    # This one process stands for every phone; its cycle collector paused it
    # for 60-300 ms at a time (3,000 phones' connections are a lot to walk),
    # which delayed every answer it was reading and was timed as the server's.
    # No phone feels another phone's pauses: no collection while measuring.
    gc.collect()
    gc.freeze()
    gc.disable()
    processes = app_processes(kind, root)
    cpu_before = {pid: cpu_seconds(pid) for pid in processes}
    all_cpu_before = server_cpu(root)
    client_before = time.process_time()
    stats.delivery_ms.clear()
    stats.errors.clear()
    measured_from = time.perf_counter()
    lags: list[float] = []
    running.append(asyncio.ensure_future(loop_lag(lags, end)))
    running += [
        asyncio.ensure_future(until(end, enter(table, index, stats, end, entry_every)))
        for table in opened
        for index in range(len(table.phones))
        if not args.idle
    ]
    await asyncio.gather(*running)
    gc.enable()
    gc.unfreeze()
    seconds = end - measured_from
    late = sum(1 for t in opened for answered, _ in t.pending.values()
               if time.perf_counter() - answered > LATE_SECONDS)  # fmt: skip
    if late:
        stats.errors[f"delivery later than {LATE_SECONDS:g} s"] = late
    cpu = {pid: round(cpu_seconds(pid) - cpu_before.get(pid, 0.0), 2) for pid in processes}
    for table in opened:
        for phone in table.phones:
            phone.requests.close()
    return {
        "streams_open_at_start": len(ready),
        "seconds_measured": round(seconds, 1),
        "stats": stats,
        "cpu_per_process_s": list(cpu.values()),
        "server_cpu_s": round(server_cpu(root) - all_cpu_before, 2),
        "client_cpu_s": round(time.process_time() - client_before, 2),
        "client_loop_lag_ms": percentiles(lags),
        "peak_rss_mb": [peak_rss_mb(pid) for pid in processes],
    }


def server_cpu(root: int) -> float:
    total = 0.0
    for pid in [root, *descendants(root)]:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


def server_user_system(root: int) -> tuple[float, float]:
    """The server's CPU seconds so far, in its own code (user) and in the
    kernel's (system: the sockets' calls, the database file's)."""
    user = system = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in [root, *descendants(root)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            user += int(fields[11]) / tick
            system += int(fields[12]) / tick
    return user, system


def run_once(args: argparse.Namespace, tables: int) -> dict[str, Any]:
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="leafpile-push-") as folder:
        instance = Path(folder)
        process, port, shown = start(
            args.server, instance, args.database_url, args.workers, args.server_log
        )
        try:
            found = asyncio.run(run(args.server, port, process.pid, args, tables))
        except BaseException:
            log = (instance / "gunicorn.log").read_text(errors="replace")[-3000:]
            print(f"the run failed; the server said:\n{log}", file=sys.stderr)
            raise
        finally:
            stop_server(process)
    stats: Stats = found.pop("stats")
    delivery = percentiles(stats.delivery_ms)
    errors = sum(stats.errors.values())
    held = errors == 0 and delivery.get("p95", 0 if args.idle else 1e9) <= DELIVERY_P95_MS
    seconds = found["seconds_measured"]
    phones = tables * args.phones
    return {
        "benchmark": "leafpile push",
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_before": load_before,
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "server": {
            "command": shown,
            "database": "postgresql" if args.database_url else "sqlite (WAL)",
        },  # fmt: skip
        "load": {
            "mode": args.mode,
            "tables": tables,
            "phones_per_table": args.phones,
            "phones": phones,
            "seconds": seconds,
            "entry_every_s": "uniform 10-30 per phone",
        },  # fmt: skip
        "delivery_ms": delivery,
        "entry_answer_ms": percentiles(stats.entry_ms),
        "board_fetch_ms": percentiles(stats.fetch_ms),
        "entries": stats.entries,
        "stale_bounced": stats.stale,
        "stale_share": round(stats.stale / max(1, stats.entries + stats.stale), 4),
        "requests_per_phone_per_minute": round(stats.requests / phones / seconds * 60, 2),
        "errors": errors,
        "error_kinds": stats.errors,
        "streams_open": found["streams_open_at_start"],
        "cpu_seconds": {
            "per_app_process": found["cpu_per_process_s"],
            "server_total": found["server_cpu_s"],
            "server_cores_used": round(found["server_cpu_s"] / seconds, 2),
            "load_client": found["client_cpu_s"],
        },  # fmt: skip
        "client_loop_lag_ms": found["client_loop_lag_ms"],
        "peak_rss_mb_per_app_process": found["peak_rss_mb"],
        "held": held,
        "rule": f"0 errors and delivery p95 <= {DELIVERY_P95_MS:g} ms",
    }


async def one_change_at_a_time(port: int, root: int, args: argparse.Namespace) -> dict[str, Any]:
    """``--changes N``: N changes one after another, each an entry by a
    table's first phone and the other phones' fetches it sets off, with
    nothing else happening; the server's CPU a change, streams held but no
    heartbeat due. Rounds accumulate: N / TABLES a table."""
    stats = Stats()
    tables = [await new_table(port, args.phones, n) for n in range(args.tables)]
    ready: list[int] = []
    end = time.perf_counter() + 3600
    streams = [
        asyncio.ensure_future(stream_loop(t, i, stats, ready, end))
        for t in tables
        for i in range(len(t.phones))
    ]
    while len(ready) < len(streams):
        await asyncio.sleep(0.05)
    posters = [
        Connection(port, cookie=t.phones[0].requests.cookie, compressed=True) for t in tables
    ]

    async def change(k: int) -> None:
        table, poster = tables[k % len(tables)], posters[k % len(tables)]
        phone = table.phones[0]
        form = {"csrf_token": phone.csrf, "version": str(phone.seen), "action": "add-round"}
        form |= {f"score{n}": str(random.randint(0, 20)) for n in range(2)}
        status, body = await poster.request("POST", f"/t/{table.token}/act", form, htmx=True)
        found = VERSION_RE.search(body)
        if status != 200 or not found:
            stats.error(f"entry: HTTP {status}")
            return
        phone.seen = int(found.group(1))
        waited = time.perf_counter()
        while any(p.seen < phone.seen for p in table.phones):
            if time.perf_counter() - waited > LATE_SECONDS:
                stats.error("delivery later than 5 s")
                return
            await asyncio.sleep(0.002)

    for k in range(len(tables) * 2):  # every table drawn once; the phones known
        await change(k)
    gc.collect()
    gc.disable()
    split_before = server_user_system(root)
    cpu_before, started = server_cpu(root), time.perf_counter()
    for k in range(args.changes):
        await change(k)
    cpu, seconds = server_cpu(root) - cpu_before, time.perf_counter() - started
    user, system = (b - a for a, b in zip(split_before, server_user_system(root), strict=True))
    gc.enable()
    for task in streams:
        task.cancel()
    for t in tables:
        for phone in t.phones:
            phone.requests.close()
    for poster in posters:
        poster.close()
    return {
        "benchmark": "leafpile push, one change at a time",
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "changes": args.changes,
        "tables": args.tables,
        "phones_per_table": args.phones,
        "server_cpu_ms_a_change": round(cpu / max(1, args.changes) * 1000, 2),
        "of_which_user_ms": round(user / max(1, args.changes) * 1000, 2),
        "of_which_system_ms": round(system / max(1, args.changes) * 1000, 2),
        "wall_ms_a_change": round(seconds / max(1, args.changes) * 1000, 2),
        "errors": dict(stats.errors),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", choices=["leafpile", "gunicorn", "deploy"], default="leafpile")
    parser.add_argument("--mode", choices=["stream", "poll"], default="stream")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--phones", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds for streams to open")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--entry-every", type=float, default=20.0, help="seconds, on average")
    parser.add_argument(
        "--idle", action="store_true", help="nobody enters anything: what held streams cost"
    )
    parser.add_argument("--server-log", help="keep the server's error output in this file")
    parser.add_argument("--sweep", help="comma-separated table counts; stops at the first miss")
    parser.add_argument(
        "--changes", type=int, help="N changes one at a time: the server's CPU a change"
    )
    parser.add_argument("--database-url", default=os.environ.get("LEAFPILE_BENCH_DATABASE_URL"))
    args = parser.parse_args(argv)
    # Stopped from outside (a timeout, Ctrl+C): stop the server it started too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    random.seed(21)
    if args.changes:
        with tempfile.TemporaryDirectory(prefix="leafpile-push-") as folder:
            process, port, _ = start(
                args.server, Path(folder), args.database_url, args.workers, args.server_log
            )
            try:
                report = asyncio.run(one_change_at_a_time(port, process.pid, args))
            finally:
                stop_server(process)
        print(json.dumps(report, indent=2))
        return 0 if not report["errors"] else 1
    if not args.sweep:
        report = run_once(args, args.tables)
        print(json.dumps(report, indent=2))
        return 0 if report["held"] else 1
    steps = []
    for tables in (int(n) for n in args.sweep.split(",")):
        report = run_once(args, tables)
        steps.append(report)
        print(json.dumps({"tables": tables, "held": report["held"],
                          "delivery_ms": report["delivery_ms"], "errors": report["errors"],
                          "cores": report["cpu_seconds"]["server_cores_used"]}),
              file=sys.stderr)  # fmt: skip
        if not report["held"]:
            break
    held = [s["load"]["tables"] for s in steps if s["held"]]
    print(json.dumps({"benchmark": "leafpile push sweep", "steps": steps,
                      "largest_held_tables": max(held, default=0)}, indent=2))  # fmt: skip
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
