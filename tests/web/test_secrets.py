"""Secrets belong to the phone that entered them (issue 19; rulings LT3-LT5).

The differential proof: the same table is played twice, the hidden cards
low in one world and high in the other. Every answer any *other* phone can
get — a late joiner before it chooses, a phone tapping the free seat a
shared phone bid for, a phone taking over a held seat, exports, history,
spectators — must be the same bytes in both worlds (apart from tokens and
times), before and after each step, and even after the round is revealed.

The scenario runs on anything with ``get(path)`` and ``post(path, form)``:
the Flask test client here, gunicorn over real HTTP in
``tests/operations/test_live_table_http.py``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pytest

from companion.tables.store import Store

VOLATILE = [
    re.compile(r'name="csrf_token" value="[^"]+"'),
    re.compile(r'CSRF-Token": "[^"]+"'),
    re.compile(r"CSRF-Token&quot;: &quot;[^&]+&quot;"),
    re.compile(r'"at": "[^"]+"'),
    re.compile(r"\d{4}-\d\d-\d\d[T ][\d:.]+Z?"),
    re.compile(r"\d\d:\d\d(:\d\d)?"),
    re.compile(r'"seed": \d+'),
]


class Client(Protocol):
    def get(self, path: str) -> tuple[int, str]: ...
    def post(self, path: str, form: dict[str, str]) -> tuple[int, str]: ...


def steady(body: str, tokens: list[str]) -> str:
    """An answer with what differs between any two tables (addresses, times) masked."""
    for i, token in enumerate(tokens):
        body = body.replace(token, f"TOKEN{i}")
    for pattern in VOLATILE:
        body = pattern.sub("X", body)
    return body


@dataclass
class Game:
    """How the scenario plays one game: its setup and its secret entry."""

    key: str
    players: list[str]
    opening: list[dict[str, str]]  # public actions before the secret round (by the host)
    action: str  # the form's action name for a secret entry
    extra: dict[str, str]

    def entry(self, player: str, card: int) -> dict[str, str]:
        return {"action": self.action, "player": player, "card": str(card), **self.extra}


VENTURE = Game(
    "venture",
    ["Ana", "Ben", "Cy", "Dan"],
    [{"action": "slug", "cards": "4 5 6"}],
    "bid",
    {},
)
AUTUMN_LEAVES = Game("autumn_leaves", ["Ana", "Ben", "Cy", "Dan"], [], "reveal", {})


def _version(client: Client, token: str) -> str:
    status, body = client.get(f"/t/{token}/board")
    found = re.search(r'data-version="(\d+)"', body)
    assert status == 200 and found, body[:300]
    return found[1]


def _act(client: Client, token: str, form: dict[str, str]) -> tuple[int, str]:
    return client.post(f"/t/{token}/act", {**form, "version": _version(client, token)})


def _look(client: Client, token: str, view: str, name: str, seen: dict[str, str]) -> None:
    """Everything a phone can ask for, filed under ``name``."""
    for suffix in (
        "", "/board", "/board.json", "/poll?v=0", "/history", "/export.json", "/export.csv"
    ):  # fmt: skip
        status, body = client.get(f"/t/{token}{suffix}")
        seen[f"{name} {suffix or 'page'}"] = f"{status}\n{steady(body, [token, view])}"
    for suffix in ("", "/board.json"):
        status, body = client.get(f"/v/{view}{suffix}")
        seen[f"{name} spectator{suffix}"] = f"{status}\n{steady(body, [token, view])}"


def play_world(
    game: Game, new_client: Callable[[], Client], host_create: Callable[[Client, Game], str],
    secret: int,
) -> dict[str, str]:  # fmt: skip
    """One world: Dan bids ``secret`` on the host's shared phone, Cy bids
    ``secret + 1`` on her own phone; then others join, tap, take over,
    export, and the round is finished by everyone again."""
    seen: dict[str, str] = {}
    host = new_client()
    token = host_create(host, game)
    _, join = host.get(f"/t/{token}/join")
    view = re.search(r"/v/([A-Za-z0-9_-]+)", join)
    assert view
    view_token = view[1]
    for form in game.opening:
        assert _act(host, token, form)[0] == 200
    ana, ben, cy = new_client(), new_client(), new_client()
    for phone, seat in ((ana, "Ana"), (ben, "Ben"), (cy, "Cy")):
        assert phone.post(f"/t/{token}/me", {"seat": seat})[0] == 200
    assert _act(host, token, game.entry("Dan", secret))[0] == 200
    assert _act(cy, token, game.entry("Cy", secret + 1))[0] == 200
    assert _act(ana, token, game.entry("Ana", 3))[0] == 200

    # A phone that joins late, before it says who it is: it is asked, and
    # anything it taps is refused without a word about the secret.
    late = new_client()
    _look(late, token, view_token, "late", seen)
    status, body = _act(late, token, game.entry("Ben", 7))
    seen["late enters for Ben"] = f"{status}\n{steady(body, [token, view_token])}"
    assert status == 422
    # It taps the free seat a shared phone bid for: asked first, shown nothing.
    status, body = late.post(f"/t/{token}/me", {"seat": "Dan"})
    seen["late taps Dan"] = f"{status}\n{steady(body, [token, view_token])}"
    assert status == 409
    _look(late, token, view_token, "late asked", seen)
    # It takes Dan's seat: Dan's bid is taken back unseen.
    status, body = late.post(f"/t/{token}/me", {"seat": "Dan", "take_over": "yes"})
    seen["late takes Dan"] = f"{status}\n{steady(body, [token, view_token])}"
    assert status == 200
    _look(late, token, view_token, "late as Dan", seen)
    # Ben's phone takes over Cy's seat: Cy's bid is taken back unseen.
    status, body = ben.post(f"/t/{token}/me", {"seat": "Cy", "take_over": "yes"})
    seen["ben takes Cy"] = f"{status}\n{steady(body, [token, view_token])}"
    assert status == 200
    _look(ben, token, view_token, "ben as Cy", seen)
    _look(ana, token, view_token, "ana", seen)
    _look(cy, token, view_token, "cy, seat lost", seen)
    # The round is finished with the same new entries in both worlds: the
    # taken-back entries stay sealed after the reveal too.
    assert _act(late, token, game.entry("Dan", 5))[0] == 200
    assert _act(ben, token, game.entry("Cy", 6))[0] == 200
    assert cy.post(f"/t/{token}/me", {"seat": "Ben"})[0] == 200
    assert _act(cy, token, game.entry("Ben", 7))[0] == 200
    for phone, name in ((late, "late"), (ben, "ben"), (ana, "ana"), (host, "host")):
        _look(phone, token, view_token, f"{name} after the reveal", seen)
    return seen


def assert_same_worlds(low: dict[str, str], high: dict[str, str]) -> None:
    assert low.keys() == high.keys()
    differing = [name for name in low if low[name] != high[name]]
    assert not differing, f"answers that give the secret away: {differing}"


# --- the Flask test client ------------------------------------------------------


class FlaskPhone:
    """A test-client phone speaking the scenario's protocol (its own cookies)."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        page = self.client.get("/").get_data(as_text=True)
        found = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert found
        self.csrf = found[1]

    def get(self, path: str) -> tuple[int, str]:
        answer = self.client.get(path, headers={"HX-Request": "true"} if "/board" in path else {})
        return answer.status_code, answer.get_data(as_text=True)

    def post(self, path: str, form: dict[str, str]) -> tuple[int, str]:
        answer = self.client.post(
            path, data={"csrf_token": self.csrf, **form}, headers={"HX-Request": "true"}
        )
        return answer.status_code, answer.get_data(as_text=True)


def create_through_the_form(host: Client, game: Game) -> str:
    form = {f"player{i}": name for i, name in enumerate(game.players, start=1)}
    status, body = host.post(f"/new/{game.key}", form)
    found = re.search(r"/t/([A-Za-z0-9_-]{20,})", body)
    assert status in (200, 303) and found, body[:300]
    return found[1]


@pytest.mark.parametrize("game", [VENTURE, AUTUMN_LEAVES], ids=lambda g: g.key)
def test_no_other_phone_can_tell_the_hidden_entries_apart(app, game):
    low = play_world(game, lambda: FlaskPhone(app), create_through_the_form, 1)
    high = play_world(game, lambda: FlaskPhone(app), create_through_the_form, 8)
    assert_same_worlds(low, high)


# --- the rules one by one ---------------------------------------------------------


def text(response: Any) -> str:
    return html.unescape(response.get_data(as_text=True))


def venture(store: Store, players=("Ana", "Ben", "Cy", "Dan")):
    table = store.create_table("venture", list(players), {}, seed=1)
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6]})
    return table


def test_a_phone_that_joined_is_asked_who_it_is_and_enters_nothing_before(
    store, new_client_phone, error_message
):
    table = venture(store)
    guest = new_client_phone().undecided()
    page = text(guest.get(f"/t/{table.token}"))
    assert "Who are you?" in page
    assert "pad-key" not in page  # no pad before the phone says who it is
    refused = guest.act(table, "bid", player="Ben", card="7")
    assert refused.status_code == 422
    assert "has not said who it is" in error_message(refused)
    assert store.snapshot(table.token).state.has_bid("Ben") is False
    assert store.version(table.token) == 1
    undo = guest.post(f"/t/{table.token}/undo", {"version": "1"})
    assert undo.status_code == 422 and store.version(table.token) == 1


def test_a_watching_phone_enters_nothing(store, new_client_phone, error_message):
    table = venture(store)
    watcher = new_client_phone().undecided()
    assert watcher.post(f"/t/{table.token}/me", {"mode": "watching"}).status_code == 200
    page = text(watcher.get(f"/t/{table.token}"))
    assert "Just watching" in page and "pad-key" not in page
    refused = watcher.act(table, "bid", player="Ben", card="7")
    assert refused.status_code == 422 and "just watching" in error_message(refused)


def test_the_phone_that_creates_a_table_is_its_shared_phone(phone, store):
    made = phone.post(
        "/new/venture", {"player1": "Ana", "player2": "Ben", "player3": "Cy"}, htmx=False
    )
    token = made.headers["Location"].rsplit("/", 1)[1]
    page = text(phone.client.get(f"/t/{token}"))
    assert "Shared phone" in page and "Who are you?" not in page


def test_a_free_seat_claimed_after_a_shared_phone_bid_takes_the_bid_back(store, new_client_phone):
    table = venture(store)
    shared = new_client_phone()
    assert shared.act(table, "bid", player="Dan", card="1").status_code == 200
    guest = new_client_phone().undecided()
    asked = guest.sit(table, "Dan")
    assert asked.status_code == 409
    assert "already entered something on another phone" in text(asked)
    assert store.snapshot(table.token).state.bid_of("Dan") == 1  # nothing changed yet
    taken = guest.sit(table, "Dan", take_over="yes")
    assert taken.status_code == 200
    state = store.snapshot(table.token).state
    assert not state.has_bid("Dan")
    assert "Dan bid a 1" not in text(taken) and "Dan bid face down" in text(taken)
    assert "Dan's seat moved to another phone" in text(taken)


def test_a_phone_sees_its_own_hidden_bid_only_while_it_holds_the_seat(store, new_client_phone):
    table = venture(store)
    dan = new_client_phone()
    assert dan.sit(table, "Dan").status_code == 200
    dan.act(table, "bid", player="Dan", card="9")
    history = text(dan.get(f"/t/{table.token}/history"))
    assert "Dan bid a 9" in history
    dan.post(f"/t/{table.token}/me", {"mode": "shared"})
    history = text(dan.get(f"/t/{table.token}/history"))
    assert "Dan bid a 9" not in history and "Dan bid face down" in history
    # Its own seat again: no takeover is needed for its own entry, and it sees it.
    assert dan.sit(table, "Dan").status_code == 200
    assert "Dan bid a 9" in text(dan.get(f"/t/{table.token}/history"))


def test_the_phone_that_lost_its_seat_is_told_and_can_take_it_back(store, new_client_phone):
    table = venture(store)
    cleo, ben = new_client_phone(), new_client_phone()
    assert cleo.sit(table, "Cy").status_code == 200
    assert ben.sit(table, "Ben").status_code == 200
    assert ben.sit(table, "Cy", take_over="yes").status_code == 200
    page = text(cleo.get(f"/t/{table.token}"))
    assert "Ben's phone took over your seat, Cy" in page
    assert "Take Cy's seat back" in page
    latest = text(ben.get(f"/t/{table.token}/board", htmx=True))
    assert "Cy's seat moved to Ben's phone" in latest
    back = cleo.sit(table, "Cy", take_over="yes")
    assert back.status_code == 200
    assert store.seats(table.token)["Cy"] != store.seats(table.token).get("Ben")


def test_the_host_role_follows_the_hosts_seat_and_can_be_handed_on(phone, store, new_client_phone):
    made = phone.post(
        "/new/venture", {"player1": "Ana", "player2": "Ben", "player3": "Cy"}, htmx=False
    )
    token = made.headers["Location"].rsplit("/", 1)[1]
    assert phone.sit(token, "Ana").status_code == 200
    other = new_client_phone()
    assert other.sit(token, "Ana", take_over="yes").status_code == 200
    assert "Delete this table" in text(other.get(f"/t/{token}"))
    assert "Delete this table" not in text(phone.get(f"/t/{token}"))
    # The new host hands the role to Ben's phone.
    ben = new_client_phone()
    assert ben.sit(token, "Ben").status_code == 200
    handed = other.post(f"/t/{token}/host", {"seat": "Ben"})
    assert handed.status_code == 200 and "Ben's phone is the host now" in text(handed)
    assert "Delete this table" in text(ben.get(f"/t/{token}"))
    refused = other.post(f"/t/{token}/host", {"seat": "Ana"})
    assert refused.status_code == 403


def test_undo_past_a_reveal_reopens_the_whole_round_for_everyone(store, new_client_phone):
    table = venture(store)
    phones = {name: new_client_phone() for name in ("Ana", "Ben", "Cy", "Dan")}
    for name, phone in phones.items():
        assert phone.sit(table, name).status_code == 200
    for name, card in (("Ana", 3), ("Ben", 7), ("Cy", 2), ("Dan", 10)):
        assert phones[name].act(table, "bid", player=name, card=str(card)).status_code == 200
    assert store.snapshot(table.token).state.rounds_played == 1
    # Not only the last bidder: Ana, who bid first, undoes the reveal.
    version = store.version(table.token)
    undone = phones["Ana"].post(f"/t/{table.token}/undo", {"version": str(version)})
    assert undone.status_code == 200
    state = store.snapshot(table.token).state
    assert state.rounds_played == 0
    assert all(not state.has_bid(name) for name in phones)  # everyone bids again
    told = text(phones["Ben"].get(f"/t/{table.token}/board", htmx=True))
    assert "all 4 entries of that round were taken back" in told
    # Redo brings the revealed round back whole.
    redone = phones["Dan"].post(f"/t/{table.token}/redo", {"version": str(version + 1)})
    assert redone.status_code == 200
    assert store.snapshot(table.token).state.rounds_played == 1


def test_a_hidden_bid_can_be_taken_back_only_by_the_phone_that_entered_it(
    store, new_client_phone, error_message
):
    table = venture(store)
    shared, ana = new_client_phone(), new_client_phone()
    assert ana.sit(table, "Ana").status_code == 200
    shared.act(table, "bid", player="Dan", card="4")
    refused = ana.post(f"/t/{table.token}/undo", {"version": str(store.version(table.token))})
    assert refused.status_code == 422
    assert "only the phone that entered it" in error_message(refused)
    fine = shared.post(f"/t/{table.token}/undo", {"version": str(store.version(table.token))})
    assert fine.status_code == 200 and not store.snapshot(table.token).state.has_bid("Dan")


# --- a tap sent twice is entered once ---------------------------------------------


def test_the_same_tap_posted_twice_is_entered_once_and_says_so(store, phone):
    pad = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    form = {"action": "add-round", "score0": "3", "score1": "4", "tap": "tap-0123456789"}
    first = phone.post(f"/t/{pad.token}/act", {**form, "version": "0"})
    assert first.status_code == 200
    again = phone.post(f"/t/{pad.token}/act", {**form, "version": "0"})
    assert again.status_code == 200
    assert "entered once; it was not entered again" in text(again)
    assert store.version(pad.token) == 1
    assert store.snapshot(pad.token).state.totals() == {"Ana": 3, "Ben": 4}


def test_a_database_from_before_phones_owned_their_entries_is_brought_up_to_date(tmp_path):
    """The columns this issue added are added to an older database on start."""
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    Store(url).engine.dispose()
    import sqlite3

    old = sqlite3.connect(tmp_path / "old.sqlite3")
    old.execute("DROP INDEX one_event_per_tap")
    for table, column in (("events", "device"), ("events", "tap"), ("members", "mode"),
                          ("members", "lost_seat"), ("members", "lost_to")):  # fmt: skip
        old.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    old.commit()
    old.close()
    store = Store(url)
    pad = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    store.act(pad.token, 0, {"type": "AddRound", "scores": [1, 2]}, device="d" * 64, tap="t" * 12)
    store.remember_member(pad.token, "d" * 64, "host")
    assert store.viewer_facts(pad.token, "d" * 64).mode == "shared"
    assert store.tap_entered(pad.token, "t" * 12)


# The property "whatever the phones do, a secret reaches no other phone" is
# tested on the phones' whole views in tests/tables/test_projection.py (Venture and
# Autumn Leaves, with takeovers, undo and redo): every page here is drawn
# from those views.


def test_a_failure_after_the_entry_was_saved_says_so_and_the_retry_is_entered_once(
    app, store, phone, monkeypatch
):
    """The truthful answer after a crash (issue 23, item 4): the server failed
    while answering a tap it had saved; the phone is told it was entered, and
    the phone's retry of the same tap id is not entered again."""
    app.config["PROPAGATE_EXCEPTIONS"] = False  # answer as production does
    pad = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    form = {"action": "add-round", "score0": "3", "score1": "4", "tap": "crash-tap-0001"}
    from companion.web import table as table_views

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the worker died while answering")

    with monkeypatch.context() as patched:
        patched.setattr(table_views, "render_polled_board", broken)
        failed = phone.post(f"/t/{pad.token}/act", {**form, "version": "0"})
    assert failed.status_code == 500
    assert "Your tap was entered all the same" in text(failed)
    retried = phone.post(f"/t/{pad.token}/act", {**form, "version": "0"})
    assert retried.status_code == 200 and "entered once" in text(retried)
    assert store.version(pad.token) == 1


def test_an_unreachable_database_after_a_tap_says_it_is_not_known(store, phone, monkeypatch):
    from sqlalchemy.exc import OperationalError

    pad = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    phone.get(f"/t/{pad.token}")

    def gone(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(type(store), "_write", gone)
    monkeypatch.setattr(type(store), "_plain_transaction", gone)  # SQLite's entries
    monkeypatch.setattr(type(store), "_tap_entered", gone)
    form = {"action": "add-round", "score0": "3", "score1": "4", "tap": "lost-tap-0001"}
    answer = phone.post(f"/t/{pad.token}/act", {**form, "version": "0"})
    assert answer.status_code == 503
    assert "not known whether your tap was entered" in text(answer)
