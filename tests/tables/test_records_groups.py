"""Records belong to the people who played (issue 23, item 2).

A browser's records, CSV and achievements are those of its group: the tables
it is a member of. A stranger reads none and renames none; a host's rename
changes its own tables only; the list of every table is the operator's
(``LEAFPILE_OPERATOR_TOKEN``). Runs on SQLite and, in CI, on PostgreSQL.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from companion.tables.results import name_key
from tests.end_games import finish_north_wind, finish_scorepad
from tests.tables.test_records import records_table
from tests.web.test_end_screens import host_table

TOKEN = "operator-token-for-the-tests-0123456789"


def _csv_players(phone) -> list[str]:
    rows = list(csv.reader(io.StringIO(phone.get("/records.csv").get_data(as_text=True))))
    return sorted(row[1] for row in rows[1:])


@pytest.fixture
def evening(phone, store, new_client_phone):
    """Two groups on one server: Vera's table (host phone, guest Ana's phone) and
    another club's table (their own host) where someone also typed "Vera"."""
    vera_table = host_table(phone, store, "scorepad", ["Vera", "Ana"])
    finish_scorepad(store, vera_table, [[9, 3]])
    ana = new_client_phone()
    assert ana.get(f"/t/{vera_table.token}").status_code == 200  # Ana opened its link
    other_host = new_client_phone()
    other = host_table(other_host, store, "scorepad", ["Vera", "Olaf"], title="Other club")
    finish_scorepad(store, other, [[1, 7]])
    return {"host": phone, "ana": ana, "other_host": other_host, "table": vera_table}


def test_a_stranger_reads_no_records_csv_player_page_or_achievements(
    evening, new_client_phone, store, make_table
):
    solo = make_table("north_wind", ["Vera"], {"difficulty": "easy"})
    host = evening["host"]
    assert host.get(f"/t/{solo.token}").status_code == 200
    finish_north_wind(host, solo)
    stranger = new_client_phone()
    page = stranger.get("/records").get_data(as_text=True)
    assert records_table(page) == {}
    assert "Vera" not in page and "Olaf" not in page
    assert _csv_players(stranger) == []
    assert stranger.get("/records/player/vera").status_code == 404
    achievements = stranger.get("/achievements").get_data(as_text=True)
    assert "0 wins in 0 solo games" in achievements
    # The host's group sees its own tables (and only those): not the other club's Olaf.
    own = records_table(host.get("/records").get_data(as_text=True))
    assert {name_key(n) for n in own} == {"vera", "ana"}
    assert own["Vera"] == (2, 2, 0)  # the score pad and the solo game
    assert _csv_players(host) == ["Ana", "Vera", "Vera"]
    assert "Other club" not in host.get("/records.csv").get_data(as_text=True)
    assert host.get("/records/player/vera").status_code == 200
    assert "1 win in 1 solo game" in host.get("/achievements").get_data(as_text=True)
    # A guest of the table is of the group too.
    guest = records_table(evening["ana"].get("/records").get_data(as_text=True))
    assert guest == {"Vera": (1, 1, 0), "Ana": (1, 0, 1)}


def test_a_stranger_cannot_rename_and_a_guest_must_ask_the_host(
    evening, new_client_phone, error_message
):
    stranger = new_client_phone()
    refused = stranger.post("/records/names", {"old": "Vera", "new": "Loser"}, htmx=False)
    assert refused.status_code == 422
    assert "Nobody called &#39;Vera&#39; has a finished game at your tables" in error_message(
        refused
    )
    guest = evening["ana"]
    refused = guest.post("/records/names", {"old": "Vera", "new": "Loser"}, htmx=False)
    assert refused.status_code == 422 and "ask the host" in error_message(refused)
    shown = records_table(evening["host"].get("/records").get_data(as_text=True))
    assert "Loser" not in shown and "Vera" in shown


def test_a_hosts_rename_changes_its_own_tables_only(evening, error_message):
    other_host, host, guest = evening["other_host"], evening["host"], evening["ana"]
    done = other_host.post("/records/names", {"old": "vera", "new": "Veronika"}, htmx=False)
    assert done.status_code == 303 and "done=" not in done.headers["Location"]
    page = other_host.get("/records").get_data(as_text=True)
    assert "Vera now shows as Veronika at your tables." in page  # a sentence starts high
    assert set(records_table(page)) == {"Veronika", "Olaf"}
    # Vera's own group is untouched.
    assert set(records_table(host.get("/records").get_data(as_text=True))) == {"Vera", "Ana"}
    assert set(records_table(guest.get("/records").get_data(as_text=True))) == {"Vera", "Ana"}
    # The host's merge shows for everyone of its group, guest included; chains follow.
    host.post("/records/names", {"old": "Ana", "new": "Anabel"}, htmx=False)
    host.post("/records/names", {"old": "Anabel", "new": "Bel"}, htmx=False)
    assert set(records_table(guest.get("/records").get_data(as_text=True))) == {"Vera", "Bel"}
    assert host.get("/records/player/bel").status_code == 200
    assert "Olaf" in records_table(other_host.get("/records").get_data(as_text=True))


def test_the_done_parameter_prints_nothing(evening):
    page = (
        evening["host"]
        .get("/records?done=Your+account+is+closed.+Call+0900")
        .get_data(as_text=True)
    )
    assert "Your account is closed" not in page and "0900" not in page


def test_nobody_is_the_operator_without_a_token(app, evening, error_message):
    app.config["OPERATOR_TOKEN"] = ""
    host = evening["host"]
    refused = host.post("/records/operator", {"token": ""}, htmx=False)
    assert refused.status_code == 422
    assert "no operator token" in error_message(refused)
    assert "Olaf" not in host.get("/records").get_data(as_text=True)


def test_the_operator_signs_in_with_the_token_and_sees_every_table(
    app, evening, new_client_phone, error_message
):
    app.config["OPERATOR_TOKEN"] = TOKEN
    operator = new_client_phone()
    wrong = operator.post("/records/operator", {"token": TOKEN[:-1]}, htmx=False)
    assert wrong.status_code == 422
    assert "not this server&#39;s operator token" in error_message(wrong)
    assert records_table(operator.get("/records").get_data(as_text=True)) == {}
    signed_in = operator.post("/records/operator", {"token": TOKEN}, htmx=False)
    assert signed_in.status_code == 303
    everything = records_table(operator.get("/records").get_data(as_text=True))
    assert everything == {"Vera": (2, 1, 1), "Ana": (1, 0, 1), "Olaf": (1, 1, 0)}
    assert _csv_players(operator) == ["Ana", "Olaf", "Vera", "Vera"]
    assert "signed in as the operator" in operator.get("/records").get_data(as_text=True)
    # The session holds a hash of the token, never the token.
    cookie = operator.client.get_cookie("session")
    assert cookie is not None and TOKEN not in cookie.value
    # A new token signs every operator out.
    app.config["OPERATOR_TOKEN"] = TOKEN + "-new"
    assert "Olaf" not in operator.get("/records").get_data(as_text=True)
    app.config["OPERATOR_TOKEN"] = TOKEN
    operator.post("/records/operator", {"sign_out": "1"}, htmx=False)
    assert "Olaf" not in operator.get("/records").get_data(as_text=True)


def test_the_operator_token_can_come_from_the_environment(app, evening, new_client_phone,
                                                          monkeypatch):  # fmt: skip
    app.config.pop("OPERATOR_TOKEN", None)
    monkeypatch.setenv("LEAFPILE_OPERATOR_TOKEN", TOKEN)
    operator = new_client_phone()
    assert operator.post("/records/operator", {"token": TOKEN}, htmx=False).status_code == 303
    assert re.search(r">Olaf<", operator.get("/records").get_data(as_text=True))
