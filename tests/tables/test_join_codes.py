"""Join codes that cannot be farmed (issue 23, item 3).

A code's first half locates it; a wrong second half is a miss against that
code from whatever address it comes, and after ``MAX_MISSES`` the code is
retired and the host's Join page shows a new one. A public server uses
8-character codes (``LEAFPILE_JOIN_CODE_LENGTH``, set by ``deploy/serve``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.tables import join_codes
from companion.tables.store import JOIN_ALPHABET, NoSuchTable
from companion.web import ratelimit

ROOT = Path(__file__).resolve().parents[2]


def _wrong_secret(code: str) -> str:
    """The same first half, another second half."""
    half = join_codes.locator_length(len(code))
    last = code[-1]
    other = JOIN_ALPHABET[(JOIN_ALPHABET.index(last) + 1) % len(JOIN_ALPHABET)]
    return code[:half] + code[half:-1] + other


def _join(client, code: str, address: str):
    return client.get(f"/join?code={code}", environ_base={"REMOTE_ADDR": address})


@pytest.mark.parametrize("length", [5, 8])
def test_a_code_locks_after_the_allowed_wrong_tries_from_many_addresses(
    app, store, make_table, client, length
):
    app.config["JOIN_CODE_LENGTH"] = length
    table = make_table("scorepad", ["Ana", "Ben"])
    page = client.get(f"/t/{table.token}/join").get_data(as_text=True)
    shown = re.search(r'aria-label="Join code">([^<]+)<', page)
    assert shown
    code = join_codes.normalise(shown.group(1))
    assert len(code) == length and set(code) <= set(JOIN_ALPHABET)
    wrong = _wrong_secret(code)
    # Each address stays far below its own limit: one wrong try each.
    assert join_codes.MAX_MISSES < ratelimit.MAX_FAILURES
    for n in range(join_codes.MAX_MISSES - 1):
        assert _join(client, wrong, f"10.0.{n}.1").status_code == 404
    assert _join(client, code, "10.1.0.1").status_code == 303  # not locked yet
    locked = _join(client, wrong, "10.0.99.1")
    assert locked.status_code == 404
    assert "locked after too many wrong tries" in locked.get_data(as_text=True)
    # The right code no longer opens the table, from any address...
    refused = _join(client, code, "10.1.0.2")
    assert refused.status_code == 404
    # ...and the host's Join page shows a new one that works.
    page = client.get(f"/t/{table.token}/join").get_data(as_text=True)
    found = re.search(r'aria-label="Join code">([^<]+)<', page)
    assert found
    fresh = join_codes.normalise(found.group(1))
    assert fresh != code and len(fresh) == length
    assert _join(client, fresh, "10.1.0.3").headers["Location"].endswith(f"/t/{table.token}")


def test_a_guess_that_locates_no_live_code_counts_against_no_code(store, make_table):
    table = make_table("scorepad", ["Ana"])
    code, _ = store.join_code(table.token, 60)
    half = join_codes.locator_length(len(code))
    elsewhere = ("Q" * half if not code.startswith("Q" * half) else "R" * half) + code[half:]
    for _ in range(join_codes.MAX_MISSES * 3):
        with pytest.raises(NoSuchTable, match="no table has the code"):
            store.table_for_code(elsewhere)
    assert store.table_for_code(code).token == table.token


def test_no_two_live_codes_share_a_first_half(store, make_table):
    codes = [store.join_code(make_table("scorepad", ["Ana"]).token, 60, 5)[0] for _ in range(40)]
    assert len({c[:2] for c in codes}) == len(codes)


def test_codes_are_typed_with_spaces_dashes_or_small_letters(store, make_table):
    table = make_table("scorepad", ["Ana"])
    code, _ = store.join_code(table.token, 60, 8)
    assert join_codes.shown(code) == f"{code[:4]} {code[4:]}"
    for typed in (code.lower(), f"{code[:4]}-{code[4:]}", f" {code[:4]} {code[4:]} "):
        assert store.table_for_code(typed).token == table.token


@pytest.mark.parametrize("junk", ["", "AB", "A" * 11, "ÄÖÜÄÖ", "AB%CD", "AB_CD"])
def test_junk_is_no_table_and_no_miss(store, make_table, junk):
    table = make_table("scorepad", ["Ana"])
    store.join_code(table.token, 60)
    with pytest.raises(NoSuchTable):
        store.table_for_code(junk)


def test_the_length_is_a_setting_and_deploy_serve_makes_it_8(app, monkeypatch):
    from companion.web.table import join_code_length

    with app.app_context():
        app.config.pop("JOIN_CODE_LENGTH", None)
        monkeypatch.delenv("LEAFPILE_JOIN_CODE_LENGTH", raising=False)
        assert join_code_length() == 5
        monkeypatch.setenv("LEAFPILE_JOIN_CODE_LENGTH", "8")
        assert join_code_length() == 8
        for silly, meant in (("2", 5), ("99", 10), ("eight", 5)):
            monkeypatch.setenv("LEAFPILE_JOIN_CODE_LENGTH", silly)
            assert join_code_length() == meant
    serve = (ROOT / "deploy" / "serve").read_text()
    assert 'LEAFPILE_JOIN_CODE_LENGTH="${LEAFPILE_JOIN_CODE_LENGTH:-8}"' in serve


def test_expected_hits_for_a_realistic_attacker_stay_tiny():
    """The figures docs/deploying.md gives, computed from the constants."""
    alphabet = len(JOIN_ALPHABET)
    per_code_long = join_codes.MAX_MISSES / alphabet ** (8 - join_codes.locator_length(8))
    per_code_short = join_codes.MAX_MISSES / alphabet ** (5 - join_codes.locator_length(5))
    assert per_code_long < 1.3e-5 and per_code_short < 3.3e-4
    # 300 addresses, each at its limit (10 wrong codes a minute) for the 2 hours
    # a code lives, against 50 live 8-character codes.
    guesses = 300 * ratelimit.MAX_FAILURES * 120
    locate = 50 / alphabet**4
    hits = guesses * locate / alphabet**4  # each located guess: one secret in 25^4
    assert hits < 2e-4
