"""The board-fetch path in front of Flask (companion/web/board_fetch.py, issue 21):
it answers a phone's board fetch exactly as Flask does, status, headers and
bytes, for every kind of phone and every encoding, keeps secrets where the
projection puts them, and leaves to Flask everything it does not answer.

Each request is made twice, once through the fetch path and once through
Flask alone (the path's ``inner`` app), on the same app, so the two share
the session, the snapshot and the render caches.
"""

from __future__ import annotations

import gzip
from typing import Any

import brotli
import pytest
from werkzeug.test import EnvironBuilder, run_wsgi_app

from companion.tables.store import TableError
from companion.web import board_cache

FOUR = ["Ana", "Ben", "Cy", "Dan"]
GAMES = ["scorepad", "venture", "autumn_leaves", "north_wind", "pairs", "leaf", "autumn_ash"]
ENCODINGS = [None, "", "br, gzip", "gzip, deflate", "gzip;q=0.5, br;q=0.1", "br;q=0", "*"]


def fetches(app) -> Any:
    return app.extensions["leafpile_board_fetches"]


def call(wsgi: Any, path: str, cookie: str | None, headers: dict[str, str]) -> tuple:
    all_headers = {"HX-Request": "true", **headers}
    if cookie:
        all_headers["Cookie"] = f"session={cookie}"
    environ = EnvironBuilder(path=path, headers=all_headers).get_environ()
    body_iter, status, answer_headers = run_wsgi_app(wsgi, environ, buffered=True)
    body = b"".join(body_iter)
    listed = [(name, "DATE" if name == "Date" else value) for name, value in answer_headers]
    if answer_headers.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)  # gzip stamps the time in its header
    return status, listed, body


def both(app, path: str, cookie: str | None, headers: dict[str, str], first: str) -> tuple:
    """The same request through the fetch path and through Flask alone."""
    path_, flask = fetches(app), fetches(app).inner
    order = [path_, flask] if first == "path" else [flask, path_]
    answers = [call(wsgi, path, cookie, headers) for wsgi in order]
    return tuple(answers) if first == "path" else tuple(reversed(answers))


def session_cookie(phone) -> str | None:
    found = phone.client.get_cookie("session")
    return found.value if found else None


def a_table(store, game: str):
    for players in (FOUR, FOUR[:3], FOUR[:2], FOUR[:1]):
        try:
            return store.create_table(game, players, {}, seed=3)
        except TableError:
            continue
    pytest.fail(f"{game}: no setup of 1-4 players")


@pytest.mark.parametrize("game", GAMES)
def test_every_phone_gets_flasks_own_answer_to_a_board_fetch(app, store, new_client_phone, game):
    table = a_table(store, game)
    players = table.players
    phones = {
        "seated": new_client_phone().undecided(),
        "other seat": new_client_phone().undecided(),
        "shared": new_client_phone().undecided(),
        "watching": new_client_phone().undecided(),
        "undecided": new_client_phone().undecided(),
    }
    assert phones["seated"].sit(table, players[0]).status_code == 200
    if len(players) > 1:  # (the North Wind has one seat)
        assert phones["other seat"].sit(table, players[1]).status_code == 200
    for kind, mode in (("shared", "shared"), ("watching", "watching")):
        answer = phones[kind].post(f"/t/{table.token}/me", {"mode": mode})
        assert answer.status_code == 200
    phones["undecided"].get(f"/t/{table.token}")  # a member who has not said who it is
    version = store.version(table.token)
    before = fetches(app).answered
    compared = 0
    for n, (kind, phone) in enumerate(phones.items()):
        cookie = session_cookie(phone)
        for asked in (version, 0):
            for m, encoding in enumerate(ENCODINGS):
                headers = {} if encoding is None else {"Accept-Encoding": encoding}
                if m % 3 == 1:  # the page htmx reports (Venture's shared phone keeps its bidder)
                    headers["HX-Current-URL"] = f"http://x/t/{table.token}?bidder={players[0]}"
                first = "path" if (n + m) % 2 else "flask"
                board_cache.forget_renders() if m == 0 else None
                path = f"/t/{table.token}/poll?v={asked}"
                via_path, via_flask = both(app, path, cookie, headers, first)
                assert via_path == via_flask, f"{game}, {kind} phone, v={asked}, {encoding!r}"
                compared += 1
    # Every one of these phones has its session: the path answered them all, once each.
    assert fetches(app).answered - before == compared
    # Most without a request context (the lean path): a phone Flask had seen, a board drawn.
    assert fetches(app).lean > compared // 3


LANGUAGE_ASKED = [
    ("", {}),
    ("", {"Accept-Language": "de-AT,de;q=0.9"}),
    ("", {"Accept-Language": "pt-PT, en;q=0.5"}),
    ("fr", {"Accept-Language": "de"}),
    ("nl", {}),
    ("xx", {"Accept-Language": "it"}),
]


def test_the_lean_path_answers_each_phone_in_its_own_language(app, store, new_client_phone):
    """Two phones see one board, each in its own language (a cookie, else its
    browser's): the path gives each Flask's bytes, never the other's words,
    once it has learned a phone and a language from Flask."""
    table = a_table(store, "scorepad")
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2, 3, 4]})
    phone = new_client_phone().undecided()
    assert phone.post(f"/t/{table.token}/me", {"mode": "shared"}).status_code == 200
    cookie = session_cookie(phone)
    version = store.version(table.token)
    bodies = {}
    for chosen, headers in LANGUAGE_ASKED:
        with_language = f"{cookie}; leafpile_lang={chosen}" if chosen else cookie
        path = f"/t/{table.token}/poll?v={version - 1}"
        lean_before = fetches(app).lean
        for first in ("flask", "path", "path"):  # Flask first: the path then learns
            via_path, via_flask = both(app, path, with_language, headers, first)
            assert via_path == via_flask, (chosen, headers)
        assert fetches(app).lean > lean_before, (chosen, headers)
        bodies[chosen, tuple(headers.values())] = via_path[2]
    assert bodies["", ()] != bodies["", ("de-AT,de;q=0.9",)]  # German words, not English
    assert bodies["fr", ("de",)] != bodies["", ("de-AT,de;q=0.9",)]  # the cookie wins
    assert bodies["xx", ("it",)] != bodies["", ()]  # an unknown choice: the browser's


def test_the_lean_path_leaves_an_unknown_cookie_to_flask(app, store, new_client_phone):
    table = a_table(store, "scorepad")
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2, 3, 4]})
    phone = new_client_phone().undecided()
    assert phone.post(f"/t/{table.token}/me", {"mode": "shared"}).status_code == 200
    cookie = session_cookie(phone)
    path = f"/t/{table.token}/poll?v=0"
    for first in ("path", "path"):
        both(app, path, cookie, {}, first)  # learned, and drawn
    lean = fetches(app).lean
    altered = cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB")
    via_path, via_flask = both(app, path, altered, {}, "path")
    assert fetches(app).lean == lean  # an altered cookie is Flask's to verify
    assert via_path[0] == via_flask[0]
    assert any(name == "Set-Cookie" for name, _ in via_path[1])  # a new session, as Flask gives
    assert both(app, path, cookie, {}, "path")[0][0] == "200 OK"
    assert fetches(app).lean == lean + 1


def test_a_secret_reaches_no_other_phone_through_the_fetch_path(app, store, new_client_phone):
    """The differential test with the path on: Ana bids 7 in one world and 9 in the
    other; every other phone's fetched board is the same bytes in both, and the
    path (not Flask) answered each of those fetches."""

    def world(card: int) -> tuple[bytes, list[bytes]]:
        table = store.create_table("venture", FOUR, {"drafting": False}, seed=1)
        store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6]})
        ana, ben, cy = (new_client_phone().undecided() for _ in range(3))
        for phone, seat in ((ana, "Ana"), (ben, "Ben"), (cy, "Cy")):
            assert phone.sit(table, seat).status_code == 200
        watcher = new_client_phone().undecided()
        assert watcher.post(f"/t/{table.token}/me", {"mode": "watching"}).status_code == 200
        version = store.version(table.token)
        bid = ana.act(table, "bid", version=version, player="Ana", card=str(card))
        assert bid.status_code == 200
        # Ana's own board (her bid shown back to her) is drawn and cached
        # first, where a phone of any other projection must not find it.
        board_cache.forget_renders()
        before = fetches(app).answered
        own = call(fetches(app), f"/t/{table.token}/poll?v={version}", session_cookie(ana), {})
        others = [
            call(fetches(app), f"/t/{table.token}/poll?v={version}", session_cookie(p), {})[2]
            for p in (ben, cy, watcher)
        ]
        assert fetches(app).answered - before == 4
        tokens = [table.token, table.view_token, ana.csrf, ben.csrf, cy.csrf, watcher.csrf]

        def steady(body: bytes) -> bytes:
            text = body.decode()
            for i, token in enumerate(tokens):
                text = text.replace(token, f"TOKEN{i}")
            return text.encode()

        return steady(own[2]), [steady(body) for body in others]

    own_7, others_7 = world(7)
    own_9, others_9 = world(9)
    assert own_7 != own_9, "Ana's own board shows her bid back to her"
    assert others_7 == others_9


def test_phones_that_see_one_board_get_the_bytes_of_one_compression(
    app, store, new_client_phone, make_table, monkeypatch
):
    """Four phones passed round the table see one board: it is compressed once
    for each encoding asked for, the entry's own answer included, and every
    phone gets those very bytes."""
    import flask_compress.flask_compress

    from companion.web import shared_bytes

    made: list[str] = []

    def counted(app_: Any, data: bytes, encoding: str) -> bytes:
        made.append(encoding)
        return compress_data(app_, data, encoding)

    compress_data = shared_bytes._compress_data
    monkeypatch.setattr(shared_bytes, "_compress_data", counted)
    monkeypatch.setattr(flask_compress.flask_compress, "_compress_data", counted)
    table = make_table("scorepad", FOUR)
    phones = [new_client_phone().undecided() for _ in range(4)]
    for phone in phones:
        assert phone.post(f"/t/{table.token}/me", {"mode": "shared"}).status_code == 200
    version = store.version(table.token)
    fields = {"csrf_token": phones[0].csrf, "version": str(version), "action": "add-round"}
    fields |= {f"score{n}": str(n) for n in range(4)}
    headers = {"HX-Request": "true", "Accept-Encoding": "br"}
    entry = phones[0].client.post(f"/t/{table.token}/act", data=fields, headers=headers)
    assert entry.status_code == 200 and entry.headers["Content-Encoding"] == "br"
    path = f"/t/{table.token}/poll?v={version}"
    answers = {
        encoding: [
            call(fetches(app), path, session_cookie(p), {"Accept-Encoding": encoding})
            for p in phones
        ]
        for encoding in ("br", "gzip", "")
    }
    assert sorted(made) == ["br", "gzip"]
    assert answers["br"][0][2] == entry.get_data()
    for encoding, same in answers.items():
        assert all(answer == same[0] for answer in same), encoding
        status, _, body = same[0]
        body = brotli.decompress(body) if encoding == "br" else body
        assert status == "200 OK" and b'name="csrf_token" value=""' in body


def test_flask_answers_what_the_fetch_path_does_not(app, store, new_client_phone, make_table):
    table = make_table("scorepad", FOUR)
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2, 3, 4]})
    ben = new_client_phone().undecided()
    assert ben.sit(table, "Ben").status_code == 200
    cookie = session_cookie(ben)
    version = store.version(table.token)
    cases = {
        "a phone with no session yet (its first token is a new cookie)": (
            f"/t/{table.token}/poll?v=0",
            None,
            {},
        ),
        "a query beyond the version": (f"/t/{table.token}/poll?v=0&x=1", cookie, {}),
        "a conditional request": (
            f"/t/{table.token}/poll?v=0",
            cookie,
            {"If-None-Match": '"x"'},
        ),
        "no htmx": (f"/t/{table.token}/poll?v=0", cookie, {"HX-Request": ""}),
    }
    for why, (path, with_cookie, headers) in cases.items():
        before = fetches(app).answered
        via_path, via_flask = both(app, path, with_cookie, headers, "path")
        assert fetches(app).answered == before, why
        assert via_path[0] == via_flask[0], why
    fresh = call(fetches(app), f"/t/{table.token}/poll?v=0", None, {})
    assert any(name == "Set-Cookie" for name, _ in fresh[1])
    # Its page's header token cannot match the new session: the fields carry one.
    assert b'name="csrf_token" value=""' not in fresh[2]
    assert b'name="csrf_token" value="' in fresh[2]
    # A deleted table's 404 is the view's answer, finished by Flask's hooks.
    for encoding in ("br", ""):
        gone = both(app, "/t/nosuchtable/poll?v=0", cookie, {"Accept-Encoding": encoding}, "path")
        assert gone[0] == gone[1]
        assert gone[0][0].startswith("404") and ("HX-Redirect", "/?gone=1") in gone[0][1]
    assert call(fetches(app), f"/t/{table.token}/poll?v={version}", cookie, {})[0] == (
        "204 NO CONTENT"
    )


def name(function: Any) -> str:
    return str(getattr(function, "func", function).__qualname__)


def test_the_fetch_path_skips_only_hooks_with_nothing_to_do_on_a_board_fetch(app):
    """The path runs no before- or after-request hook. It may skip the
    before-request ones only because each has nothing to do on this GET
    (the limiter: the route has no limit; CSRF: a GET carries no form), and
    it sends what the after-request ones add. A new hook must be taught to
    board_fetch.py (or the fetch left to Flask) before this passes again."""
    before = [name(f) for f in app.before_request_funcs[None]]
    assert before == ["Limiter._check_request_limit", "CSRFProtect.init_app.<locals>.csrf_protect"]
    after = {
        blueprint: [name(f) for f in hooks]
        for blueprint, hooks in app.after_request_funcs.items()
        if blueprint in (None, "table")
    }
    assert after == {
        None: [
            "Limiter.__inject_headers",  # adds nothing where no limit was checked
            "Compress.after_request",
            "_security_headers",
        ],
        "table": ["_never_cached"],
    }


@pytest.mark.parametrize("game", ["venture", "scorepad"])
def test_a_polled_board_is_the_very_board_of_the_page(app, store, client, game):
    """A board swapped in by htmx leaves the page as a fresh load would draw
    it, to the byte: no leading whitespace (an outerHTML swap adds it before
    the board every time) and none that depends on how the phone's choices
    were read (Venture's slug: a page reads them from its address, a poll
    from HX-Current-URL). The browser differential compares whole pages, and
    a poll that landed after a reload in one world only had made them differ
    (CI, 29 Nov)."""
    from tests.web.test_secrets import steady

    table = store.create_table(game, ["Ana", "Ben", "Cy", "Dan"], {}, seed=1)
    if game == "venture":
        store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6]})
    page = client.get(f"/t/{table.token}").get_data(as_text=True)
    polled = client.get(f"/t/{table.token}/poll?v=-1", headers={"HX-Request": "true"}).get_data(
        as_text=True
    )
    assert polled.startswith('<div id="board"')
    tokens = [table.token, table.view_token]
    board = steady(page, tokens).split('<div id="board"', 1)[1]
    # A fragment's token fields are empty (app.js fills them): the page's hold its token.
    polled = polled.replace('name="csrf_token" value=""', "X")
    assert board.startswith(steady(polled, tokens).split('<div id="board"', 1)[1])
