"""Every costly request has a bounded cost and a fair share (issue 23, item 1).

Imports are bounded by size, event count and replay time and run in the job
slots; every PDF, zip, solver and import route is rate limited (the card-image
zip was not); one client address runs one job at a time and at most
``JOB_SECONDS_PER_MINUTE`` seconds of jobs a minute; a table's entries never
wait behind a job (they take no slot).
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from companion import create_app
from companion.tables import store as store_module
from companion.web import costly, imports, ratelimit


def _export(events: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": "leafpile-table",
        "format_version": 1,
        "game": "scorepad",
        "title": "Imported",
        "setup": {"players": ["Ana", "Ben"], "options": {"lowest_wins": False}, "seed": 1},
        "events": events,
    }


def _rounds(count: int) -> list[dict[str, Any]]:
    return [{"kind": "action", "payload": {"type": "AddRound", "scores": [1, 2]}}] * count


def _import(phone: Any, raw: bytes, address: str = "127.0.0.1") -> Any:
    return phone.client.post(
        "/import",
        data={"csrf_token": phone.csrf, "file": (io.BytesIO(raw), "table.json")},
        content_type="multipart/form-data",
        environ_base={"REMOTE_ADDR": address},
    )


# --- imports: bounded --------------------------------------------------------------


def test_an_import_over_the_event_limit_is_refused_with_the_number(phone, store, error_message):
    raw = json.dumps(_export(_rounds(imports.MAX_IMPORT_EVENTS + 1))).encode()
    assert len(raw) < imports.MAX_IMPORT_BYTES  # refused for its count, not its size
    response = _import(phone, raw)
    assert response.status_code == 422
    assert f"more than {imports.MAX_IMPORT_EVENTS:,} events" in error_message(response)
    assert store.tables() == []


def test_an_import_at_the_event_limit_is_taken(phone, store, monkeypatch):
    # Here the count is what is tested, not the time: a busy machine may take
    # longer than the replay limit, which has its own test below.
    monkeypatch.setattr(imports, "MAX_REPLAY_SECONDS", 600.0)
    raw = json.dumps(_export(_rounds(imports.MAX_IMPORT_EVENTS))).encode()
    assert _import(phone, raw).status_code == 303
    (table,) = store.tables()
    assert store.version(table.token) == imports.MAX_IMPORT_EVENTS


def test_an_import_over_the_size_limit_is_refused_before_it_is_read(
    phone, store, error_message, monkeypatch
):
    def never(raw: bytes) -> Any:
        raise AssertionError("a file over the size limit was parsed")

    monkeypatch.setattr(imports, "read_export", never)
    raw = b" " * imports.MAX_IMPORT_BYTES + b"{}"
    response = _import(phone, raw)
    assert response.status_code == 422
    assert f"larger than {imports.MAX_IMPORT_BYTES // 1024} KB" in error_message(response)
    assert store.tables() == []


def test_an_import_that_replays_too_long_is_stopped_and_leaves_nothing(
    phone, store, error_message, monkeypatch
):
    monkeypatch.setattr(imports, "MAX_REPLAY_SECONDS", 1e-9)
    raw = json.dumps(_export(_rounds(200))).encode()
    response = _import(phone, raw)
    assert response.status_code == 422
    assert "takes too long to check" in error_message(response)
    assert store.tables() == []


def test_the_store_keeps_its_own_ceiling_whatever_the_caller_asks(store):
    data = _export(_rounds(3))
    with pytest.raises(store_module.TableError, match="more than 2 events"):
        store.import_table(data, max_events=2)
    assert store.import_table(data, max_events=store_module.MAX_IMPORT_EVENTS * 10).token


def test_an_import_runs_in_a_job_slot(app, phone, store):
    app.config["JOB_SLOTS"] = 1
    raw = json.dumps(_export(_rounds(3))).encode()
    with (
        app.test_request_context(),
        costly.job_slot(client="someone else"),
        costly.job_slot(client="a light client"),  # holds the kept slot too
    ):
        busy = _import(phone, raw)
    assert busy.status_code == 503
    assert busy.headers["Retry-After"] == str(costly.RETRY_AFTER_SECONDS)
    assert store.tables() == []
    assert _import(phone, raw).status_code == 303


# --- every costly route is limited --------------------------------------------------


COSTLY_ENDPOINTS = (
    "home.import_table",
    "print.download",
    "print.images",
    "solitaire.hint",
    "solitaire.check",
)


@pytest.mark.parametrize("endpoint", COSTLY_ENDPOINTS)
def test_every_costly_route_carries_a_rate_limit(app, endpoint):
    assert ratelimit.is_limited(app.view_functions[endpoint]), endpoint


def test_polls_and_entries_carry_no_rate_limit(app):
    for endpoint in ("table.poll", "table.act", "table.page"):
        if endpoint in app.view_functions:
            assert not ratelimit.is_limited(app.view_functions[endpoint]), endpoint


@pytest.fixture
def limited(tmp_path):
    application = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": os.environ.get("LEAFPILE_TEST_DATABASE_URL")
            or f"sqlite:///{tmp_path / 'limits.sqlite3'}",
            "SECRET_KEY": "test-secret-key",
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "LEAFPILE_RATE_LIMITS": True,
        }
    )
    yield application
    if os.environ.get("LEAFPILE_TEST_DATABASE_URL"):
        store_module.Base.metadata.drop_all(application.extensions["leafpile_store"].engine)
    application.extensions["leafpile_store"].engine.dispose()


def test_the_card_image_zip_is_rate_limited(limited, monkeypatch, a_second_apart):
    import printables.images  # the print routes import it when first asked

    monkeypatch.setattr(printables.images, "card_images", lambda deck, options, dpi: b"PK\x05\x06")
    client = limited.test_client()
    allowed = int(ratelimit.PDF_LIMIT.split()[0])
    answers = []
    for _ in range(allowed + 1):
        a_second_apart()
        answers.append(client.get("/print/deck.zip").status_code)
    assert answers[:allowed] == [200] * allowed and answers[-1] == 429, answers


# --- one job at a time, a share of job time a minute -----------------------------------


def test_one_address_runs_one_job_at_a_time_while_another_gets_a_slot(app):
    app.config["JOB_SLOTS"] = 2
    with app.test_request_context(environ_base={"REMOTE_ADDR": "10.0.0.6"}):
        with costly.job_slot():
            with pytest.raises(costly.OneAtATime) as refused, costly.job_slot():
                pass
            assert refused.value.code == 503
            with costly.job_slot(client="10.0.0.7"):
                pass  # another address gets the second slot meanwhile
        with costly.job_slot():
            pass  # the first job over: the address may run the next


def test_a_second_job_of_an_address_is_refused_before_its_share_and_lock_files(app, monkeypatch):
    """Issue 42: a flood's refusals of one job at a time had each read the
    address's share from the database and tried its lock file; in the
    process that runs its job they cost neither now."""
    with app.test_request_context(environ_base={"REMOTE_ADDR": "10.0.0.6"}), costly.job_slot():
        asked: list[str] = []
        monkeypatch.setattr(costly, "_check_share", lambda client: asked.append("share"))
        monkeypatch.setattr(costly, "_try_lock", lambda path: asked.append(path.name))
        with pytest.raises(costly.OneAtATime), costly.job_slot():
            pass
        assert asked == []


def test_an_address_that_used_its_share_of_job_time_gets_429_with_retry_after(
    app, make_table, phone, monkeypatch
):
    from companion.web import solitaire_pages

    table = make_table("solitaire", ["Solo"], {"deal": 1})
    for budget in ("HERE_BUDGET", "START_BUDGET"):
        if hasattr(solitaire_pages, budget):
            monkeypatch.setattr(solitaire_pages, budget, 0.01)
    hint = f"/t/{table.token}/solitaire/hint"
    assert phone.get(hint, htmx=True).status_code == 200
    with app.test_request_context():
        costly._charge("127.0.0.1", costly.JOB_SECONDS_PER_MINUTE)
    refused = phone.get(hint, htmx=True)
    assert refused.status_code == 429
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    # The phone's script adds when to try again, from Retry-After; a page says it itself.
    said = refused.get_data(as_text=True)
    assert "used its share" in said and "try again" not in said.lower()
    page = phone.client.get(hint)
    assert page.status_code == 429
    wait = page.headers["Retry-After"]
    assert "used its share of the host's computer" in page.get_data(as_text=True)
    assert f"Try again in {wait} s." in page.get_data(as_text=True)
    # Another phone's hint is not held back by this one's share.
    other = phone.client.get(hint, headers={"HX-Request": "true"},
                             environ_base={"REMOTE_ADDR": "10.9.9.9"})  # fmt: skip
    assert other.status_code == 200


def test_an_entry_goes_in_while_every_job_slot_is_held(app, make_table, phone, store):
    app.config["JOB_SLOTS"] = 1
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    with app.test_request_context(), costly.job_slot(client="the flood"):
        entered = phone.act(table, "add-round", score0="3", score1="4")
        assert entered.status_code == 200
        assert store.version(table.token) == 1


def test_a_slot_lock_is_a_portable_file_lock(app):
    # The slots are filelock locks (flock on POSIX, msvcrt on Windows): the
    # module names no POSIX-only module (see tests/operations/test_portable.py).
    source = Path(costly.__file__).read_text(encoding="utf-8")
    assert not re.search(r"^\s*import (fcntl|msvcrt)", source, re.M)
    assert "from filelock import" in source


def test_a_client_over_a_limit_is_refused_without_a_database_write_each_time(
    limited, monkeypatch, a_second_apart
):
    """The penalty box: once over, the next refusals cost no write (issue 23)."""
    import printables.images  # the print routes import it when first asked

    monkeypatch.setattr(printables.images, "card_images", lambda deck, options, dpi: b"PK\x05\x06")
    client = limited.test_client()
    allowed = int(ratelimit.PDF_LIMIT.split()[0])
    for _ in range(allowed):
        a_second_apart()
        assert client.get("/print/deck.zip").status_code == 200
    a_second_apart()
    assert client.get("/print/deck.zip").status_code == 429  # the breach: counted
    writes: list[str] = []
    real = ratelimit.DatabaseStorage.incr

    def counting(self, key, expiry, amount=1):
        writes.append(key)
        return real(self, key, expiry, amount)

    monkeypatch.setattr(ratelimit.DatabaseStorage, "incr", counting)
    for _ in range(50):
        refused = client.get("/print/deck.zip")
        assert refused.status_code == 429
        assert 0 < int(refused.headers["Retry-After"]) <= 61  # the window, rounded up
    assert writes == []
    # The PDFs share the scope, so they are refused too; another address is not.
    assert client.get("/print/board.pdf").status_code == 429
    other = client.get("/print/deck.zip", environ_base={"REMOTE_ADDR": "10.4.4.4"})
    assert other.status_code == 200


def test_the_penalty_box_opens_when_the_window_ends(limited, monkeypatch, a_second_apart):
    import printables.images  # the print routes import it when first asked

    monkeypatch.setattr(printables.images, "card_images", lambda deck, options, dpi: b"PK\x05\x06")
    client = limited.test_client()
    allowed = int(ratelimit.PDF_LIMIT.split()[0])
    answers = []
    for _ in range(allowed + 2):
        a_second_apart()  # 22 s: the window, a minute, is not over at the end
        answers.append(client.get("/print/deck.zip"))
    assert [a.status_code for a in answers[-2:]] == [429, 429]
    assert "X-RateLimit-Limit" in answers[-2].headers  # the route's own limit: boxed
    a_second_apart(61)
    assert client.get("/print/deck.zip").status_code == 200


def test_a_light_client_gets_the_kept_slot_while_a_flooding_address_holds_the_regular_ones(app):
    # Six addresses at their full share ask for more than one slot's minute:
    # the kept slot is how an honest phone's occasional hint still runs.
    app.config["JOB_SLOTS"] = 1
    with app.test_request_context():
        costly._charge("10.0.0.66", costly.LIGHT_SECONDS)  # the flood is no longer light
        with costly.job_slot(client="10.0.0.66"):
            with costly.job_slot(client="10.0.0.5"):
                pass  # light: runs in the kept slot
            with (
                costly.job_slot(client="10.0.0.8"),
                pytest.raises(costly.ServerBusy),
                costly.job_slot(client="10.0.0.9"),
            ):
                pass  # both slots taken: the next light client is refused too


def test_a_heavy_client_is_refused_when_the_regular_slots_are_taken(app):
    app.config["JOB_SLOTS"] = 1
    with app.test_request_context():
        costly._charge("10.0.0.66", costly.LIGHT_SECONDS)
        costly._charge("10.0.0.67", costly.LIGHT_SECONDS)
        with (
            costly.job_slot(client="10.0.0.66"),
            pytest.raises(costly.ServerBusy),
            costly.job_slot(client="10.0.0.67"),
        ):
            pass  # the kept slot is free, but not for an address past its light seconds


def test_a_flooding_address_stays_out_of_the_kept_slot_in_the_next_minutes(app, monkeypatch):
    # Counted by the minute alone, every flooding address was light again for
    # the first job or two of each new minute and took the kept slot from the
    # honest phones then.
    clock = [3_000_000.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: clock[0])
    app.config["JOB_SLOTS"] = 1
    with app.test_request_context():
        costly._charge("10.0.0.66", costly.LIGHT_SECONDS)
        clock[0] += 61  # a new minute: its count starts again from nothing
        costly._charge("10.0.0.67", 0.1)  # a light client, now and then
        with costly.job_slot(client="10.0.0.68"):  # somebody holds the regular slot
            with pytest.raises(costly.ServerBusy), costly.job_slot(client="10.0.0.66"):
                pass  # still heavy: the kept slot is not for it
            with costly.job_slot(client="10.0.0.67"):
                pass  # the light client gets it
        clock[0] += costly.HEAVY_MEMORY_SECONDS
        with costly.job_slot(client="10.0.0.68"), costly.job_slot(client="10.0.0.66"):
            pass  # quiet for long enough: light again
