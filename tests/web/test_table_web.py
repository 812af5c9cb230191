"""Every generic route, as a full page and as an htmx fragment; bad input → 422."""

import io
import json
import re

import pytest

from companion.server import banner, reachable_urls


@pytest.fixture
def pad(make_table):
    return make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})


def board_of(response) -> str:
    return response.get_data(as_text=True)


# --- home -------------------------------------------------------------------


def test_home_lists_the_games_and_the_tables_most_recent_first(phone, make_table, store):
    older = make_table("scorepad", ["Ana"])
    newer = make_table("scorepad", ["Bea"])
    for table in (older, newer):
        phone.get(f"/t/{table.token}")  # the start page lists the tables this browser opened
    store.act(older.token, 0, {"type": "AddRound", "scores": [1]})  # played last
    page = phone.get("/").get_data(as_text=True)
    assert "Start a table" in page
    assert 'href="/new/scorepad"' in page
    assert page.index(older.token) < page.index(newer.token)


def test_starting_a_table_from_the_form_opens_it(phone, store):
    form = phone.get("/new/scorepad")
    assert form.status_code == 200
    response = phone.post(
        "/new/scorepad",
        {"player1": "Ana", "player2": " Ben ", "wins": "lowest", "title": "Friday"},
        htmx=False,
    )
    assert response.status_code == 303
    token = response.headers["Location"].rsplit("/", 1)[1]
    table = store.table(token)
    assert table.players == ("Ana", "Ben")
    assert table.options == {"lowest_wins": True}
    assert table.title == "Friday"


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"player1": "Ana", "player2": "ana"}, "two players are called"),
        ({"player1": "", "player2": ""}, "you entered 0"),
        ({"player1": "Ana", "wins": "sideways"}, "highest or the lowest"),
        ({"player1": "A" * 200}, "too long"),
    ],
)
def test_a_bad_new_table_form_says_why_and_creates_nothing(phone, store, form, message):
    response = phone.post("/new/scorepad", form, htmx=False)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True).replace("&#39;", "'")
    assert store.tables() == []


def test_an_unknown_game_page_is_a_friendly_404(phone):
    response = phone.get("/new/chess")
    assert response.status_code == 404
    assert "There is nothing here" in response.get_data(as_text=True)


# --- the table page, board and poll -------------------------------------------


def test_the_table_page_is_a_full_page_and_the_board_a_fragment(phone, pad):
    page = phone.get(f"/t/{pad.token}")
    assert page.status_code == 200
    assert "<html" in page.get_data(as_text=True)
    fragment = phone.get(f"/t/{pad.token}/board", htmx=True)
    text = fragment.get_data(as_text=True)
    assert text.lstrip().startswith('<div id="board"')
    assert "<html" not in text
    assert "HX-Request" in fragment.headers["Vary"]
    full = phone.get(f"/t/{pad.token}/board")
    assert "<html" in full.get_data(as_text=True)


INVITE = re.compile(r'<a class="btn btn-small" href="/t/[^"]+/join">Invite</a>')


@pytest.mark.parametrize(
    ("game", "players", "options", "invite"),
    [
        ("scorepad", ["Ana", "Ben"], {}, True),
        ("pairs", ["Ana", "Ben", "Cy"], {}, True),
        ("scorepad", ["Ana"], {}, False),  # a one-player score pad
        ("solitaire", ["Solo"], {"deal": 20}, False),
        ("north_wind", ["Ana"], {"difficulty": "easy"}, False),
    ],
)
def test_only_a_table_for_several_players_offers_invite(
    phone, make_table, game, players, options, invite
):
    table = make_table(game, players, options)
    page = phone.get(f"/t/{table.token}").get_data(as_text=True)
    assert bool(INVITE.search(page)) is invite


def test_a_long_title_is_shortened_in_the_top_bar_and_a_tap_shows_all(phone, store):
    title = "Friday night at the cabin with the whole family (game 2)"
    table = store.create_table("scorepad", ["Ana", "Ben"], {}, title)
    page = phone.get(f"/t/{table.token}").get_data(as_text=True)
    top = page.split('<header class="topbar">')[1].split("</header>")[0]
    assert (
        '<details class="topbar-title topbar-title-long">'
        f'<summary title="{title}">{title}</summary>' in top
    )
    short = store.create_table("scorepad", ["Ana", "Ben"], {}, "Friday night")
    page = phone.get(f"/t/{short.token}").get_data(as_text=True)
    assert (
        '<span class="topbar-title">Friday night</span>' in page
        and '<details class="topbar' not in page
    )


def test_every_latest_line_is_number_words_and_whose_phone(phone, pad, store):
    phone.sit(pad, "Ana")
    phone.act(pad, "add-round", score0="3", score1="4")
    phone.sit(pad, "")
    phone.act(pad, "add-round", score0="5", score1="6")
    board = phone.get(f"/t/{pad.token}/board", htmx=True).get_data(as_text=True)
    section = board.split('class="recent"')[1].split("</section>")[0]
    lines = re.findall(r"<li[^>]*>(.*?)</li>", section, re.S)
    assert len(lines) >= 2
    cell = (
        r'<span class="seq">#\d+</span><span class="what">.*?</span><span class="who">(.*?)</span>$'
    )
    cells = [re.fullmatch(cell, line, re.S) for line in lines]
    assert all(cells), lines  # every line has the same three cells, even with no phone named
    who = [re.sub(r"<[^>]+>", "", c.group(1)) for c in cells]
    assert who[0] == "" and "Ana" in who[-1]


def test_an_unknown_table_is_a_friendly_404(phone):
    for url in ("/t/nope-nope-nope", "/t/nope-nope-nope/board", "/t/nope-nope-nope/history"):
        response = phone.get(url)
        assert response.status_code == 404
        assert "The link may be mistyped" in response.get_data(as_text=True)
    assert phone.get("/t/nope-nope-nope/poll?v=0").status_code == 404


def test_the_poll_is_an_empty_204_until_the_table_changes(phone, pad, store):
    unchanged = phone.get(f"/t/{pad.token}/poll?v=0", htmx=True)
    assert unchanged.status_code == 204
    assert unchanged.data == b""
    store.act(pad.token, 0, {"type": "AddRound", "scores": [4, 2]})
    changed = phone.get(f"/t/{pad.token}/poll?v=0", htmx=True)
    assert changed.status_code == 200
    assert 'data-version="1"' in changed.get_data(as_text=True)
    assert phone.get(f"/t/{pad.token}/poll?v=1", htmx=True).status_code == 204


# --- acting -----------------------------------------------------------------


def test_an_htmx_action_answers_with_the_fresh_board(phone, pad, store):
    response = phone.act(pad, "add-round", score0="7", score1="-2")
    assert response.status_code == 200
    assert 'data-version="1"' in board_of(response)
    assert store.snapshot(pad.token).state.totals() == {"Ana": 7, "Ben": -2}


def test_without_javascript_an_action_redirects_back_to_the_table(phone, pad, store):
    data = {"action": "add-round", "version": "0", "score0": "1", "score1": "2"}
    response = phone.post(f"/t/{pad.token}/act", data, htmx=False)
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/t/{pad.token}")
    assert store.version(pad.token) == 1


BAD_ACTIONS = [
    (
        {"action": "add-round", "score0": "x", "score1": "1"},
        "Ana's score 'x' is not a whole number",
    ),
    ({"action": "add-round", "score0": "", "score1": "1"}, "Enter a score for Ana"),
    ({"action": "add-round", "score0": "1.5", "score1": "1"}, "not a whole number"),
    ({"action": "add-round", "score0": "9999999", "score1": "1"}, "not a whole number"),
    ({"action": "add-round", "score0": "٣", "score1": "1"}, "not a whole number"),
    ({"action": "fix", "round": "1", "player": "Zed", "points": "1"}, "no player called 'Zed'"),
    ({"action": "fix", "round": "9", "player": "Ana", "points": "1"}, "no round 9 to fix"),
    ({"action": "fix", "round": "-1", "player": "Ana", "points": "1"}, "Choose which round"),
    ({"action": "explode"}, "That button does nothing"),
    (
        {"action": "add-round", "score0": "1", "score1": "1", "version": "abc"},
        "missing its table version",
    ),
    (
        {"action": "add-round", "score0": "1", "score1": "1", "version": ""},
        "missing its table version",
    ),
]


@pytest.mark.parametrize(("form", "message"), BAD_ACTIONS)
def test_bad_input_shows_a_message_gives_422_and_changes_nothing(
    phone, pad, store, error_message, form, message
):
    store.act(pad.token, 0, {"type": "AddRound", "scores": [1, 1]})
    before = store.export(pad.token)["events"]
    data = {"version": "1", **form}
    response = phone.post(f"/t/{pad.token}/act", data)
    assert response.status_code == 422
    assert message in error_message(response).replace("&#39;", "'")
    assert store.export(pad.token)["events"] == before


def test_a_stale_phone_gets_409_the_fresh_board_and_a_message(phone, pad, store, error_message):
    store.act(pad.token, 0, {"type": "AddRound", "scores": [1, 1]})
    response = phone.act(pad, "add-round", version=0, score0="5", score1="5")
    assert response.status_code == 409
    assert "Your tap was not entered" in error_message(response)
    assert 'data-version="1"' in board_of(response)
    assert store.version(pad.token) == 1


def test_a_post_without_the_csrf_token_is_refused(client, pad, store):
    response = client.post(f"/t/{pad.token}/act", data={"action": "add-round", "version": "0"})
    assert response.status_code == 403
    assert "gone stale" in response.get_data(as_text=True)
    assert store.version(pad.token) == 0


def test_undo_and_redo_from_any_phone(phone, new_client_phone, pad, store):
    phone.act(pad, "add-round", score0="3", score1="4")
    other = new_client_phone()
    assert other.post(f"/t/{pad.token}/undo", {"version": "1"}).status_code == 200
    assert store.snapshot(pad.token).state.rounds == ()
    assert phone.post(f"/t/{pad.token}/redo", {"version": "2"}).status_code == 200
    assert store.snapshot(pad.token).state.rounds == ((3, 4),)
    nothing = phone.post(f"/t/{pad.token}/redo", {"version": "3"})
    assert nothing.status_code == 422
    assert "nothing to redo" in nothing.get_data(as_text=True)


def test_fixing_a_past_entry_of_the_score_pad(phone, pad, store):
    phone.act(pad, "add-round", score0="3", score1="4")
    phone.act(pad, "add-round", score0="1", score1="1")
    response = phone.act(pad, "fix", round="1", player="Ben", points="10")
    assert response.status_code == 200
    assert store.snapshot(pad.token).state.totals() == {"Ana": 4, "Ben": 11}
    assert "Fixed round 1: Ben now 10" in phone.get(f"/t/{pad.token}/history").get_data(
        as_text=True
    )


def test_a_phone_can_say_which_player_holds_it(phone, pad, store):
    assert phone.sit(pad, "Ben").status_code == 200
    assert list(store.seats(pad.token)) == ["Ben"]
    refused = phone.sit(pad, "Zed")
    assert refused.status_code == 422
    assert phone.sit(pad, "").status_code == 200
    assert store.seats(pad.token) == {}


# --- history, export, import ---------------------------------------------------


def test_history_lists_every_event_and_marks_the_undone(phone, pad, store):
    phone.act(pad, "add-round", score0="3", score1="4")
    phone.post(f"/t/{pad.token}/undo", {"version": "1"})
    page = phone.get(f"/t/{pad.token}/history").get_data(as_text=True)
    assert "Round entered: 3, 4" in page
    assert "undone" in page
    assert "#2" in page


def test_export_json_and_csv_download_the_log(phone, pad):
    phone.act(pad, "add-round", score0="3", score1="4")
    exported = phone.get(f"/t/{pad.token}/export.json")
    assert "attachment" in exported.headers["Content-Disposition"]
    data = json.loads(exported.data)
    assert data["events"][0]["payload"] == {"type": "AddRound", "scores": [3, 4]}
    rows = phone.get(f"/t/{pad.token}/export.csv").get_data(as_text=True).splitlines()
    assert rows[0].startswith("seq,time_utc,kind")
    assert "Round entered: 3, 4" in rows[1]


def test_csv_export_defuses_spreadsheet_formulas(phone, make_table):
    table = make_table("scorepad", ["=HYPERLINK(1)", "Ben"])
    phone.act(table, "add-round", score0="1", score1="2")
    phone.sit(table, "=HYPERLINK(1)")
    phone.act(table, "add-round", score0="1", score1="2")
    text = phone.get(f"/t/{table.token}/export.csv").get_data(as_text=True)
    assert ",'=HYPERLINK(1)," in text
    assert ",=HYPERLINK" not in text


def test_importing_an_export_creates_a_copy(phone, pad, store):
    phone.act(pad, "add-round", score0="3", score1="4")
    exported = phone.get(f"/t/{pad.token}/export.json").data
    response = phone.post(
        "/import",
        {"file": (io.BytesIO(exported), "game.json")},
        htmx=False,
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    token = response.headers["Location"].rsplit("/", 1)[1]
    assert token != pad.token
    assert store.snapshot(token).state == store.snapshot(pad.token).state


def _imported_pad(phone, rounds: int) -> str:
    export = {
        "format": "leafpile-table",
        "format_version": 1,
        "game": "scorepad",
        "title": f"Long {rounds}",
        "setup": {"players": ["Ana", "Ben"], "options": {"lowest_wins": False}, "seed": 1},
        "events": [{"kind": "action", "payload": {"type": "AddRound", "scores": [2, 1]}}] * rounds,
    }
    response = phone.post(
        "/import",
        {"file": (io.BytesIO(json.dumps(export).encode()), "long.json")},
        htmx=False,
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[1]


def test_the_start_page_reads_a_long_table_for_its_summary_only_once_it_is_open(phone, monkeypatch):
    """Ruling LT7: a table over SUMMARY_READS_AT_MOST entries is listed
    without its summary until its page has been opened on this server."""
    from companion.tables import core
    from companion.web import home

    short = _imported_pad(phone, home.SUMMARY_READS_AT_MOST)
    long = _imported_pad(phone, home.SUMMARY_READS_AT_MOST + 1)
    walks: list[int] = []
    real_walk = core.walk_log

    def counted(table, events, **kwargs):
        walks.append(len(events))
        return real_walk(table, events, **kwargs)

    monkeypatch.setattr(core, "walk_log", counted)
    start = phone.get("/").get_data(as_text=True)
    assert f"Round {home.SUMMARY_READS_AT_MOST} · Ana ahead" in start  # read: short enough
    assert f"Long {home.SUMMARY_READS_AT_MOST + 1}" in start  # listed ...
    assert f"Round {home.SUMMARY_READS_AT_MOST + 1} " not in start  # ... without its summary
    assert walks == [home.SUMMARY_READS_AT_MOST]
    assert phone.get(f"/t/{long}").status_code == 200  # opened: read now
    assert f"Round {home.SUMMARY_READS_AT_MOST + 1} · Ana ahead" in phone.get("/").text
    assert walks == [home.SUMMARY_READS_AT_MOST, home.SUMMARY_READS_AT_MOST + 1]
    assert short != long


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "not JSON"),
        (b'{"format": "other"}', "not a Leafpile table export"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_importing_junk_says_why_and_creates_nothing(phone, store, content, message):
    response = phone.post(
        "/import",
        {"file": (io.BytesIO(content), "x.json")},
        htmx=False,
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert store.tables() == []


# --- joining ------------------------------------------------------------------------


def test_the_join_page_shows_a_qr_code_of_the_public_url_and_a_short_code(app, phone, pad, store):
    app.config["PUBLIC_URL"] = "http://192.168.1.20:5000"
    page = phone.get(f"/t/{pad.token}/join").get_data(as_text=True)
    assert "<svg" in page
    assert f"http://192.168.1.20:5000/t/{pad.token}" in page
    assert "127.0.0.1" not in page
    code = re.search(r'class="join-code"[^>]*>(\w+)<', page).group(1)
    assert store.table_for_code(code).token == pad.token
    joined = phone.get(f"/join?code={code.lower()}")
    assert joined.status_code == 303
    assert joined.headers["Location"].endswith(f"/t/{pad.token}")
    assert phone.get(f"/j/{code}").status_code == 303


def test_a_wrong_code_says_so_and_too_many_are_refused_for_a_while(phone):
    wrong = phone.get("/join?code=QQQQQ")
    assert wrong.status_code == 404
    assert "no table has the code" in wrong.get_data(as_text=True).lower()
    for _ in range(12):
        last = phone.get("/join?code=QQQQQ")
    assert last.status_code == 429
    assert "Too many wrong codes" in last.get_data(as_text=True)


def test_the_spectator_view_follows_the_table_but_has_no_forms(phone, pad, store):
    store.act(pad.token, 0, {"type": "AddRound", "scores": [6, 1]})
    page = phone.get(f"/v/{pad.view_token}").get_data(as_text=True)
    assert "Spectator view" in page
    assert "<form" not in page.split('id="board"', 1)[1]
    assert phone.get(f"/v/{pad.view_token}/poll?v=1").status_code == 204
    assert phone.get(f"/v/{pad.view_token}/poll?v=0").status_code == 200
    assert phone.get(f"/v/{pad.token}").status_code == 404  # a table token is not a view token


def test_security_headers_are_on_every_page(phone, pad):
    response = phone.get(f"/t/{pad.token}")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert "<script>" not in response.get_data(as_text=True)


# --- the command line -----------------------------------------------------------------


def test_serving_the_lan_never_advertises_loopback(monkeypatch):
    monkeypatch.setattr("companion.server.lan_address", lambda: "192.168.1.20")
    public, urls = reachable_urls("0.0.0.0", 5000)
    assert public == "http://192.168.1.20:5000"
    assert urls == ["http://192.168.1.20:5000", "http://127.0.0.1:5000"]
    assert reachable_urls("127.0.0.1", 5000) == (None, ["http://127.0.0.1:5000"])


def test_the_banner_prints_the_address_and_a_qr_code():
    out = io.StringIO()
    banner("http://192.168.1.20:5000", ["http://192.168.1.20:5000", "http://127.0.0.1:5000"], out)
    text = out.getvalue()
    assert "Phones on this network: http://192.168.1.20:5000" in text
    assert "Reachable at: http://192.168.1.20:5000, http://127.0.0.1:5000" in text
    assert "█" in text or "▀" in text  # the QR code, drawn in block characters
