"""Bad input never poisons (issue 42): an imported string that cannot be
written as UTF-8 is refused with 422 and nothing stored; a ``Host`` header no
URL can be built for is a 400, never a 500; and a phone can take a table off
its own start page (the table stays for everyone else).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session
from werkzeug.test import EnvironBuilder

from companion.tables.store import TableError, TableRow
from tests.operations.test_production import _export as export

LONE = "\udc80"  # half of a UTF-16 pair: no character, and no UTF-8 for it


def upload(phone: Any, data: Any) -> Any:
    # json.dumps writes a lone surrogate as the escape \udc80, as a hostile file would.
    raw = json.dumps(data).encode()
    return phone.post(
        "/import",
        {"file": (io.BytesIO(raw), "table.json")},
        htmx=False,
        content_type="multipart/form-data",
    )


POISONED = {
    "a player's name": export(players=[f"A{LONE}na", "Ben"]),
    "the title": export(title=f"Game {LONE}night"),
    "an option": export(options={"lowest_wins": False, f"x{LONE}": 1}),
    "an event's payload": export(
        events=[{"kind": "action", "payload": {"type": f"AddRound{LONE}", "scores": [1, 2]}}]
    ),
    "a key deep in the log": export(
        events=[{"kind": "action", "payload": {"type": "AddRound", "scores": [1, 2], LONE: 0}}]
    ),
    "the game's name": export(game=f"scorepad{LONE}"),
}


@pytest.mark.parametrize("where", list(POISONED))
def test_an_import_with_a_lone_surrogate_is_a_422_and_stores_nothing(
    phone, store, error_message, where
):
    response = upload(phone, POISONED[where])
    assert response.status_code == 422, response.status_code
    message = error_message(response)
    assert "broken character" in message, message
    assert LONE not in response.get_data(as_text=True)
    assert store.tables() == []
    # The start page still opens, with nothing on it.
    assert phone.get("/").status_code == 200


def test_the_same_file_without_the_broken_character_is_imported(phone, store):
    response = upload(phone, export(players=["Ana", "Ben"], title="Game night"))
    assert response.status_code == 303
    assert [t.title for t in store.tables()] == ["Game night"]


def test_the_store_refuses_a_name_that_cannot_be_stored_and_drops_one_from_a_title(store):
    with pytest.raises(TableError, match="broken character"):
        store.create_table("scorepad", [f"A{LONE}na", "Ben"], {"lowest_wins": False})
    table = store.create_table("scorepad", ["Ana", "Ben"], {}, title=f"Game {LONE}night")
    assert table.title == "Game night"


# --- Host headers ---------------------------------------------------------------

BAD_HOSTS = {
    "a 64-character label": "a" * 64 + ".example",
    "an empty label": "game..example",
    "a leading dot": ".example",
    "a bad punycode label": "xn--.example",
    "only a port": ":8000",
}


def wsgi_status(app: Any, path: str, host: str) -> tuple[int, str]:
    """The app's own answer, below the test client (which chokes on some hosts itself)."""
    environ = EnvironBuilder(path=path, headers={"Host": host}).get_environ()
    said: list[str] = []
    body = b"".join(app.wsgi_app(environ, lambda status, headers, *_: said.append(status)))
    return int(said[0].split()[0]), body.decode()


@pytest.mark.parametrize("host", list(BAD_HOSTS.values()), ids=list(BAD_HOSTS))
@pytest.mark.parametrize("path", ["/", "/healthz", "/t/{token}", "/t/{token}/stream", "/nope"])
def test_a_host_header_no_url_can_be_built_for_is_a_400(app, make_table, host, path):
    app.testing = False  # as served: an error is answered, not raised into the test
    table = make_table("scorepad", ["Ana", "Ben"])
    status, body = wsgi_status(app, path.format(token=table.token), host)
    assert status == 400, (status, body[:200])
    assert "host name" in body


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:5000", "192.168.1.20:8000", "[::1]:8000", "game.example."]
)
def test_ordinary_hosts_are_served(app, host):
    app.testing = False
    assert wsgi_status(app, "/", host)[0] == 200


# --- taking a table off the start page ---------------------------------------------


def listed(phone: Any, table: Any) -> bool:
    return table.token in phone.get("/").get_data(as_text=True)


def drop(phone: Any, token: str) -> Any:
    """Drop on the start page, then the page that asks: the answer to its form."""
    home = phone.get("/").get_data(as_text=True)
    assert f'href="/t/{token}/forget"' in home
    asks = phone.get(f"/t/{token}/forget")
    assert asks.status_code == 200
    assert "off your list?" in asks.get_data(as_text=True)
    return phone.post(f"/t/{token}/forget", htmx=False)


def test_a_phone_drops_a_table_from_its_start_page_and_only_its_own(store, phone, new_client_phone):
    table = store.create_table("scorepad", ["Ana", "Ben"], {})
    guest = new_client_phone()
    phone.get(f"/t/{table.token}")
    guest.get(f"/t/{table.token}")
    assert listed(phone, table) and listed(guest, table)
    answer = drop(guest, table.token)
    assert answer.status_code == 303
    said = guest.client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "off your list" in said
    assert not listed(guest, table)
    assert listed(phone, table)  # the others keep it
    assert store.table(table.token).title == table.title  # the table stays
    guest.get(f"/t/{table.token}")  # its link brings it back
    assert listed(guest, table)


def test_dropping_a_table_never_shown_here_changes_nothing(store, phone, new_client_phone):
    table = store.create_table("scorepad", ["Ana", "Ben"], {})
    other = store.create_table("scorepad", ["Cy", "Di"], {})
    phone.get(f"/t/{table.token}")
    stranger = new_client_phone()
    stranger.get(f"/t/{other.token}")  # a phone with a device id, and a list of its own
    # The raw client: the test phone would first say who it is at that table.
    answer = stranger.client.post(f"/t/{table.token}/forget", data={"csrf_token": stranger.csrf})
    assert answer.status_code == 303
    assert "dropped" not in answer.headers["Location"]
    assert listed(phone, table) and listed(stranger, other)
    for junk in ("no-such-table-token", "x" * 500, "%00"):
        junk_drop = stranger.client.post(f"/t/{junk}/forget", data={"csrf_token": stranger.csrf})
        assert junk_drop.status_code == 404
        assert stranger.client.get(f"/t/{junk}/forget").status_code == 404


def test_the_page_that_asks_tells_the_host_it_stops_hosting(store, phone, new_client_phone):
    phone.post("/new/scorepad", {"player1": "Ana", "player2": "Ben"}, htmx=False)
    (mine,) = store.tables()
    assert "stops being its host" in phone.get(f"/t/{mine.token}/forget").get_data(as_text=True)
    guest = new_client_phone()
    guest.get(f"/t/{mine.token}")
    asked = guest.client.get(f"/t/{mine.token}/forget").get_data(as_text=True)
    assert "stops being its host" not in asked
    assert drop(phone, mine.token).status_code == 303
    assert store.role_of(mine.token, device_of(phone)) is None
    assert store.role_of(mine.token, device_of(guest)) == "guest"


def device_of(phone: Any) -> str:
    import hashlib

    with phone.client.session_transaction() as session:
        return hashlib.sha256(session["device"].encode()).hexdigest()


def test_the_drop_needs_the_pages_csrf_token(store, phone):
    table = store.create_table("scorepad", ["Ana", "Ben"], {})
    phone.get(f"/t/{table.token}")
    forged = phone.client.post(f"/t/{table.token}/forget")
    assert forged.status_code == 403
    assert listed(phone, table)


def test_a_table_poisoned_before_this_check_still_lets_the_start_page_open_and_drop_it(
    store, phone
):
    """A table stored before imports were checked, with a lone surrogate in a
    player's name (the JSON column escapes it, so it was stored): the start
    page used to be a 500 for every phone that had it."""
    table = store.create_table("scorepad", ["Ana", "Ben"], {})
    phone.get(f"/t/{table.token}")
    with Session(store.engine) as session, session.begin():
        setup = {"players": [f"A{LONE}na", "Ben"], "options": {}, "seed": 1}
        session.execute(update(TableRow).where(TableRow.id == table.id).values(setup=setup))
    page = phone.get("/")
    assert page.status_code == 200
    assert "A?na" in page.get_data(as_text=True)
    assert drop(phone, table.token).status_code == 303
    assert not listed(phone, table)
