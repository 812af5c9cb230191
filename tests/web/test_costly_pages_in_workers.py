"""The records pages, their CSVs, the achievements and a browser's backup are
drawn in a job worker, and the light clients' slot is for hints (issue 42).

Under the abuse benchmark's flood the serving process spent about a quarter
of its CPU drawing records pages, CSVs and backups (a py-spy profile), while
every phone waited for it. Now a worker process of lower priority draws them
with an app and a store of its own (``costly.drawn_in_a_worker``): these
tests pin that the worker's answer is the one the serving process would
have given, for the same browser, and that a zip or an import no longer
runs in the slot kept for a phone's hint.
"""

from __future__ import annotations

import json
import re
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import event

from companion import jobs
from companion.web import costly

PAGES = ["/records", "/achievements", "/records.csv", "/records/plays.csv"]
TOKENS = re.compile(r'name="csrf_token" value="[^"]+"')


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch):
    pool = jobs.WorkerPool()
    monkeypatch.setattr(jobs, "POOL", pool)
    yield pool
    pool.stop()


@contextmanager
def every_slot_taken(app):
    """Somebody else's jobs hold the regular slot and the light clients' (taken
    outside any request, so each request below has its own context)."""
    app.config["JOB_SLOTS"] = 1
    folder = Path(app.instance_path) / "jobs"
    folder.mkdir(parents=True, exist_ok=True)
    held = [costly._try_lock(folder / name) for name in ("slot-0", "slot-light")]
    assert all(held)
    try:
        yield
    finally:
        for lock in held:
            lock.release()


def _answers(phone, monkeypatch, setting: str) -> dict[str, tuple[int, str]]:
    monkeypatch.setenv("LEAFPILE_JOB_PROCESSES", setting)
    found = {}
    for url in [*PAGES, "/backup", "/records/player/nobody"]:
        answer = phone.client.get(url)
        found[url] = (answer.status_code, TOKENS.sub("", answer.get_data(as_text=True)))
    return found


def test_a_worker_draws_the_records_pages_and_the_backup_as_the_server_would(
    app, phone, workers, monkeypatch
):
    # The worker's first job builds its app: seconds on a busy machine, which
    # count as this phone's job time; its share is not what this test is about.
    monkeypatch.setattr(costly, "JOB_SECONDS_PER_MINUTE", 10_000)
    made = phone.post("/new/scorepad", {"player1": "Ana", "player2": "Ben"}, htmx=False)
    token = made.headers["Location"].rsplit("/t/", 1)[1]
    here = _answers(phone, monkeypatch, "0")
    assert workers.done == 0
    there = _answers(phone, monkeypatch, "1")
    assert workers.done == len(there)  # the unknown player's 404 too
    for url in PAGES:
        assert there[url] == here[url], url
        assert there[url][0] == 200
    assert there["/records/player/nobody"][0] == here["/records/player/nobody"][0] == 404
    backups = [json.loads(answers["/backup"][1]) for answers in (here, there)]
    for backup in backups:
        backup.pop("created_at")
    assert backups[0] == backups[1]
    tables = backups[1]["tables"]["tables"]
    assert [row[tables["columns"].index("token")] for row in tables["rows"]] == [token]


def test_a_drawn_page_still_takes_a_job_slot(app, phone, workers, monkeypatch):
    monkeypatch.setenv("LEAFPILE_JOB_PROCESSES", "1")
    with every_slot_taken(app):
        busy = phone.client.get("/records")
    assert busy.status_code == 503
    assert busy.headers["Retry-After"] == str(costly.RETRY_AFTER_SECONDS)
    assert workers.done == 0


@pytest.mark.parametrize(
    ("path", "light"),
    [("/t/abc/solitaire/hint", True), ("/t/abc/solitaire/check", True),
     ("/print/deck.zip", False), ("/records.csv", False), ("/backup", False)],
)  # fmt: skip
def test_only_a_hint_or_a_check_may_run_in_the_light_clients_slot(app, path, light):
    app.config["JOB_SLOTS"] = 1
    with app.test_request_context(path), costly.job_slot(client="10.0.0.66"):
        if light:
            with costly.job_slot(client="10.0.0.5"):
                pass  # an occasional hint: the kept slot
        else:
            with pytest.raises(costly.ServerBusy), costly.job_slot(client="10.0.0.5"):
                pass  # a zip, a CSV, a backup waits for a regular slot


def test_a_busy_refusal_is_a_short_page_in_the_phones_words_and_a_hint_gets_the_notice(app, phone):
    token = phone.post("/solitaire/new", {"deal": "2"}, htmx=False).headers["Location"]
    with every_slot_taken(app):
        page = phone.client.get("/records.csv")
        assert phone.client.get("/language/de?next=/").status_code == 303
        german = phone.client.get("/records")
        hint = phone.get(f"{token.split('?')[0]}/solitaire/hint", htmx=True)
    assert page.status_code == german.status_code == hint.status_code == 503
    assert page.headers["Retry-After"] == str(costly.RETRY_AFTER_SECONDS)
    text = page.get_data(as_text=True)
    assert costly.ServerBusy.description in text
    assert 'href="/"' in text and "<script" not in text  # the words alone, a way home
    assert 'lang="de"' in german.get_data(as_text=True)
    assert "That did not work" not in german.get_data(as_text=True)  # its words in German
    assert "Versuch es gleich noch einmal." in hint.get_data(as_text=True)  # German too
    assert 'id="board"' in hint.get_data(as_text=True)  # the board's own notice


def test_a_limited_request_counts_once_and_reads_nothing_back_for_its_headers(app, phone):
    app.config["LEAFPILE_RATE_LIMITS"] = True
    engine = app.extensions["leafpile_store"].engine
    reads: list[str] = []

    def seen(conn, cursor, statement, parameters, context, executemany):
        keys = [v for v in (parameters.values() if isinstance(parameters, dict) else parameters)]
        if "FROM rate_limits WHERE key" in statement and not str(keys[0]).startswith("leafpile/"):
            reads.append(str(keys[0]))  # a limit's counter read back (not the job share's)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        first, second = phone.client.get("/records"), phone.client.get("/records")
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert first.status_code == second.status_code == 200
    limit = int(first.headers["X-RateLimit-Limit"])
    assert int(first.headers["X-RateLimit-Remaining"]) == limit - 1
    assert int(second.headers["X-RateLimit-Remaining"]) == limit - 2
    assert 0 < int(second.headers["X-RateLimit-Reset"]) - int(time.time()) <= 61  # rounded up
    assert reads == []


def test_a_boxed_address_waits_for_its_429_on_a_gevent_server_and_nobody_else_does(
    app, phone, monkeypatch, tarpit_sleeps
):
    app.config["LEAFPILE_RATE_LIMITS"] = True
    slept = tarpit_sleeps
    monkeypatch.setenv("LEAFPILE_JOB_PROCESSES", "0")  # the backups drawn here, as before
    flood = {"REMOTE_ADDR": "10.0.0.66"}
    answers = [phone.client.get("/backup", environ_base=flood).status_code for _ in range(6)]
    assert answers[-1] == 429  # over BACKUP_LIMIT: boxed for the rest of its window
    assert slept
    held = len(slept)
    assert phone.client.get("/backup").status_code == 200  # another address: no wait
    assert phone.client.get("/", environ_base=flood).status_code == 200  # another route
    assert len(slept) == held
