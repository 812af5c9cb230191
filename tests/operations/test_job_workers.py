"""Costly pure work runs in worker processes of lower priority (issue 42).

A solver hint, a PDF, the card images and an import's replay went to a
native thread of the serving process, which shared the interpreter with the
loop serving every phone: a flood of them slowed every entry. Now a serving
process hands them to worker processes at ``nice`` +10 (companion/jobs.py):
these tests pin that the work runs there (another process, lower priority),
answers and raises as it would here, survives a killed worker, keeps work
that cannot travel here, and that a real ``leafpile`` uses its workers and
leaves none behind when it stops.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import signal
import time
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from companion import jobs
from companion.cooperative import off_the_loop
from companion.rules import solitaire
from companion.rules.solitaire_solver import solve
from companion.web import costly
from tests.operations.test_concurrency import database_url, serve

WAIT = 60.0  # a bound for a broken server, never a timing


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LEAFPILE_JOB_PROCESSES", "1")
    pool = jobs.WorkerPool()
    monkeypatch.setattr(jobs, "POOL", pool)
    yield pool
    pool.stop()


def test_a_job_runs_in_another_process_of_lower_priority(workers: jobs.WorkerPool) -> None:
    here = os.nice(0)
    assert off_the_loop(os.getpid) != os.getpid()
    assert off_the_loop(os.nice, 0) == min(19, here + jobs.NICENESS)
    assert workers.done == 2


def test_a_job_answers_and_raises_as_it_would_here(workers: jobs.WorkerPool) -> None:
    state = solitaire.new_game(2)
    there = off_the_loop(solve, state, 5.0, max_nodes=20_000)
    here = solve(state, 5.0, max_nodes=20_000)
    assert (there.result, there.moves) == (here.result, here.moves)  # not its seconds
    with pytest.raises(ValueError, match="invalid literal"):
        off_the_loop(int, "not a number")
    # Work that cannot travel (a closure) runs here instead, and still answers.
    done = workers.done
    assert off_the_loop(lambda n: n + 1, 41) == 42
    assert workers.done == done


def test_a_worker_dying_in_its_job_fails_it_and_the_next_job_gets_a_new_one(
    workers: jobs.WorkerPool,
) -> None:
    first = off_the_loop(os.getpid)
    with pytest.raises(jobs.JobFailed):
        off_the_loop(os._exit, 1)  # the worker ends in the middle of the job
    second = off_the_loop(os.getpid)
    assert second not in (first, os.getpid())


def test_an_idle_worker_killed_meanwhile_is_replaced_before_the_next_job(
    workers: jobs.WorkerPool,
) -> None:
    first = off_the_loop(os.getpid)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + WAIT
    while _state(first) != "Z":  # dead (not yet reaped: this process is its parent)
        assert time.monotonic() < deadline
        time.sleep(0.01)
    second = off_the_loop(os.getpid)
    assert second not in (first, os.getpid())


def _state(pid: int) -> str:
    """The process's state letter ("R", "S", "Z" for dead but not reaped)."""
    return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]


def _children(pid: int) -> list[tuple[int, int, str]]:
    """(pid, niceness, command line) of ``pid``'s child processes."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat[1]) == pid:
            found.append((int(entry.name), int(stat[16]), command))
    return found


def test_the_laptop_server_answers_a_hint_from_a_worker_and_leaves_none(tmp_path: Path) -> None:
    served = serve("leafpile", tmp_path, database_url(tmp_path))
    try:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        page = opener.open(f"{served.url}/", timeout=WAIT).read()
        found = re.search(rb'name="csrf_token" value="([^"]+)"', page)
        assert found is not None
        form = urllib.parse.urlencode({"csrf_token": found.group(1).decode(), "deal": "2"})
        table = opener.open(f"{served.url}/solitaire/new", data=form.encode(), timeout=WAIT)
        hint = urllib.request.Request(
            f"{table.geturl()}/solitaire/hint", headers={"HX-Request": "true"}
        )
        with opener.open(hint, timeout=WAIT) as answer:
            assert answer.status == 200
        server = served.process.pid
        workers = [c for c in _children(server) if "companion.jobs" in c[2]]
        assert len(workers) == 1, _children(server)
        assert workers[0][1] == min(19, os.nice(0) + jobs.NICENESS)
        worker = workers[0][0]
    finally:
        served.stop()
    deadline = time.monotonic() + WAIT
    while Path(f"/proc/{worker}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # it reads the end of its stdin, and ends
    assert (
        not Path(f"/proc/{worker}").exists()
        or "Z" in Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()[0]
    )


def test_an_import_is_read_and_checked_by_a_worker_and_written_here(
    workers: jobs.WorkerPool, store, new_client_phone, monkeypatch
) -> None:
    """The costly part of an import (the JSON, the replay that checks every
    event) runs in a worker process; only the rows are written by the serving
    process, at full priority (on SQLite a worker of lower priority would
    hold the one write lock, and the loop would wait for it). A refusal made
    in the worker still says why."""
    from tests.operations.test_production import _export as export

    # A job is charged its wall time, and a worker of lower priority on a
    # machine busy with the rest of the suite can take the phone's whole
    # share of a minute: the second import was then refused 429 (CI, 29 Nov).
    monkeypatch.setattr(costly, "JOB_SECONDS_PER_MINUTE", 10_000)
    phone = new_client_phone()
    good = json.dumps(export(players=["Ana", "Ben"])).encode()
    answer = phone.post(
        "/import", {"file": (io.BytesIO(good), "t.json")}, htmx=False,
        content_type="multipart/form-data",
    )  # fmt: skip
    assert answer.status_code == 303
    token = answer.headers["Location"].rsplit("/t/", 1)[1]
    assert store.snapshot(token).table.players == ("Ana", "Ben")
    assert workers.done == 1
    refused = phone.post(
        "/import", {"file": (io.BytesIO(b"[1, 2"), "t.json")}, htmx=False,
        content_type="multipart/form-data",
    )  # fmt: skip
    assert refused.status_code == 422 and b"not JSON" in refused.data
    assert workers.done == 2


def test_a_worker_checks_the_largest_import_and_sends_back_only_its_rows(
    workers: jobs.WorkerPool, store
) -> None:
    """A walk keeps a state per action (5,000 score pads of up to 5,000
    rounds here): what comes back from the worker is the rows and the last
    state, small enough that the serving process reads it in milliseconds."""
    from companion.web.imports import MAX_IMPORT_EVENTS, check_upload
    from tests.operations.test_fair_share import _export as export
    from tests.operations.test_fair_share import _rounds as rounds

    raw = json.dumps(export(rounds(MAX_IMPORT_EVENTS))).encode()
    checked = off_the_loop(check_upload, raw, MAX_IMPORT_EVENTS, 600.0)
    assert workers.done == 1
    assert len(checked.records) == MAX_IMPORT_EVENTS
    # The walk itself would be about 12.5 million references (each state's rounds).
    assert len(pickle.dumps(checked)) < 4 * len(raw)
    table = store.write_import(checked)
    assert store.version(table.token) == MAX_IMPORT_EVENTS
    assert len(store.snapshot(table.token).state.rounds) == MAX_IMPORT_EVENTS
