"""Plays that leave the app: BG Stats' push-plays link and BoardGameGeek-ready CSV (issue 25)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from datetime import datetime, timedelta
from urllib.parse import unquote, urlsplit

import pytest
from sqlalchemy.orm import Session

from companion.tables import exports
from companion.tables.exports import Play, PlayerLine, bgg_rows, bgstats_data, ranked
from companion.tables.results import result_lines
from tests.end_games import (
    SOLITAIRE_DEAL,
    act,
    finish_autumn_ash,
    finish_autumn_leaves,
    finish_leaf,
    finish_north_wind,
    finish_pairs,
    finish_scorepad,
    finish_solitaire,
    finish_venture,
)

FINISHERS = {
    "pairs": (["Ana", "Ben", "Cy"], {}, finish_pairs),
    "venture": (["Ana", "Ben", "Cy"], {}, finish_venture),
    "autumn_leaves": (["Ana", "Ben", "Cy"], {}, finish_autumn_leaves),
    "leaf": (["Ana", "Ben", "Cy"], {}, finish_leaf),
    "autumn_ash": (["Ana", "Ben"], {"rainbow": "Ana"}, finish_autumn_ash),
    "scorepad": (["Ana", "Ben", "Cy"], {}, finish_scorepad),
    "solitaire": (["Solo"], {"deal": SOLITAIRE_DEAL}, finish_solitaire),
}

# BG Stats' documented push-plays fields (bgstatsapp.com, "Push plays to BG Stats
# from other apps or websites"): the play, its game and each player.
PLAY_FIELDS = {
    "sourceName": str,
    "sourcePlayId": str,
    "playDate": str,
    "durationMin": int,
    "location": str,
    "comments": str,
    "board": str,
    "game": dict,
    "players": list,
}
GAME_FIELDS = {"bggId": int, "name": str, "highestWins": bool, "noPoints": bool,
               "sourceGameId": str}  # fmt: skip
PLAYER_FIELDS = {"name": str, "score": (int, float), "rank": int, "winner": bool,
                 "startPlayer": bool, "sourcePlayerId": str, "role": str}  # fmt: skip
REQUIRED_PLAY = {"sourceName", "sourcePlayId", "playDate", "location", "game", "players"}
REQUIRED_GAME = {"name", "highestWins", "noPoints", "sourceGameId"}
# winner and startPlayer are documented as optional, but BG Stats on Android
# refuses a player without them: always sent.
REQUIRED_PLAYER = {"name", "rank", "winner", "startPlayer", "sourcePlayerId"}


def check_documented(data):
    assert REQUIRED_PLAY <= set(data) <= set(PLAY_FIELDS)
    for name, kind in PLAY_FIELDS.items():
        if name in data:
            assert isinstance(data[name], kind), name
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", data["playDate"])
    assert REQUIRED_GAME <= set(data["game"]) <= set(GAME_FIELDS)
    for name, kind in GAME_FIELDS.items():
        if name in data["game"]:
            assert isinstance(data["game"][name], kind), name
    assert data["players"]
    for player in data["players"]:
        assert REQUIRED_PLAYER <= set(player) <= set(PLAYER_FIELDS)
        for name, kind in PLAYER_FIELDS.items():
            if name in player:
                value = player[name]
                assert isinstance(value, kind), name
                assert kind is bool or not isinstance(value, bool), name  # 1 is not True
        assert player["rank"] >= 1


def bgstats_link(page: str) -> str:
    found = re.search(r'<a class="btn" href="([^"]+)"[^>]*>Send to BG Stats</a>', page)
    assert found, "no BG Stats link on the end screen"
    return html.unescape(found.group(1))


def decoded(link: str) -> dict:
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "app.bgstatsapp.com",
        "/createPlay.html",
    )
    assert parts.query.startswith("data=") and "&" not in parts.query
    return json.loads(unquote(parts.query[len("data=") :]))


def end_page(phone, table) -> str:
    return phone.get(f"/t/{table.token}").get_data(as_text=True)


@pytest.mark.parametrize("game", sorted(FINISHERS))
def test_every_finished_game_offers_a_bg_stats_link_in_the_documented_format(
    phone, store, make_table, game
):
    players, options, finish = FINISHERS[game]
    table = make_table(game, players, options)
    assert "Send to BG Stats" not in end_page(phone, table)  # only once there is a result
    finish(store, table)
    data = decoded(bgstats_link(end_page(phone, table)))
    check_documented(data)
    assert data["sourceName"] == "Leafpile" and data["game"]["sourceGameId"] == f"leafpile:{game}"
    assert table.token not in json.dumps(data) and table.view_token not in json.dumps(data)
    assert sorted(p["name"] for p in data["players"]) == sorted(players)
    assert data["durationMin"] >= 1


def test_pairs_points_are_bad_and_nobody_wins_one_loses_p2(phone, store, make_table):
    table = make_table("pairs", ["Ana", "Ben", "Cy"], {})
    final = finish_pairs(store, table)
    data = decoded(bgstats_link(end_page(phone, table)))
    assert data["game"]["highestWins"] is False and data["game"]["noPoints"] is False
    assert not any(p["winner"] for p in data["players"])  # P2: nobody wins
    by_rank = sorted(data["players"], key=lambda p: p["rank"])
    assert by_rank[-1]["name"] == final.loser and by_rank[-1]["rank"] == 3  # the one loser, last
    assert [p["score"] for p in by_rank] == sorted(p["score"] for p in by_rank)  # low is good
    assert {p["name"]: p["score"] for p in data["players"]} == final.totals()


def test_the_north_wind_is_a_solo_play_of_leaf_n13(phone, store, make_table):
    table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
    state = finish_north_wind(phone, table)
    data = decoded(bgstats_link(end_page(phone, table)))
    check_documented(data)
    assert data["game"]["name"] == "Leaf" and data["game"]["highestWins"] is True
    assert data["board"] == "easy"
    [ana] = data["players"]
    assert ana["name"] == "Ana" and ana["startPlayer"] is True
    assert ana["winner"] is state.human_won and ana["rank"] == 1
    assert ana["score"] == state.result.breakdowns["Ana"].total
    assert "North Wind" in data["comments"]


def test_the_solitaire_has_no_points_and_a_win(phone, store, make_table):
    table = make_table("solitaire", ["Solo"], {"deal": SOLITAIRE_DEAL})
    finish_solitaire(store, table)
    data = decoded(bgstats_link(end_page(phone, table)))
    assert data["game"]["noPoints"] is True
    assert data["players"] == [
        {"name": "Solo", "sourcePlayerId": "leafpile:solo", "rank": 1, "winner": True,
         "startPlayer": True},
    ]  # fmt: skip


def play(*lines, game="leaf"):
    now = datetime(2026, 11, 20, 21, 0)
    return Play("p1", game, "", "Friday", now, now - timedelta(minutes=40), tuple(lines))


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # Leaf's tie-break (L5): Dee and Cal level, Dee won: Dee ranks first.
        (
            [PlayerLine("Cal", 20, 1, "lost"), PlayerLine("Dee", 20, 1, "won"),
             PlayerLine("Eve", 5, 3, "lost")],
            [("Dee", 1, True), ("Cal", 2, False), ("Eve", 3, False)],
        ),
        # A shared win: both first, both winners.
        (
            [PlayerLine("Ana", 9, 1, "shared"), PlayerLine("Ben", 9, 1, "shared"),
             PlayerLine("Cy", 2, 3, "lost")],
            [("Ana", 1, True), ("Ben", 1, True), ("Cy", 3, False)],
        ),
        # Pairs (P2): one loser, nobody wins.
        (
            [PlayerLine("Ana", 21, 3, "lost"), PlayerLine("Ben", 4, 1, "played"),
             PlayerLine("Cy", 9, 2, "played")],
            [("Ben", 1, False), ("Cy", 2, False), ("Ana", 3, False)],
        ),
    ],
)  # fmt: skip
def test_ranks_settle_tie_breaks_and_winners_follow_the_result(lines, expected):
    assert [(line.name, rank, won) for line, rank, won in ranked(play(*lines))] == expected


def test_a_table_left_open_overnight_sends_no_length():
    long = Play("p", "leaf", "", "", datetime(2026, 11, 21, 9), datetime(2026, 11, 20, 18), ())
    assert long.duration_min is None and "durationMin" not in bgstats_data(long)
    assert play().duration_min == 40


def test_a_score_pad_is_logged_under_the_name_the_host_gave_it():
    assert exports.scorepad_name("Catan") == "Catan"
    assert exports.scorepad_name("Score pad, 20 Nov 21:00") == "Score pad"


# --- BoardGameGeek-ready CSV -------------------------------------------------------------


def parse_plays(body: str) -> dict[str, list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(body))
    assert tuple(reader.fieldnames or ()) == exports.BGG_COLUMNS
    plays: dict[str, list[dict[str, str]]] = {}
    for row in reader:
        plays.setdefault(row["play_id"], []).append(row)
    return plays


def test_the_records_plays_csv_round_trips_to_the_stored_results(phone, store, make_table):
    tables = {}
    for game, (players, options, finish) in FINISHERS.items():
        tables[game] = make_table(game, players, options)
        finish(store, tables[game])
    odd = make_table("scorepad", ["=Ana", "Zoë, the 2nd"])  # a formula and a comma
    act(store, odd, {"type": "AddRound", "scores": [3, 4]})
    act(store, odd, {"type": "Finish"})
    unfinished = make_table("scorepad", ["Ana", "Ben"])  # not finished: not a play
    for table in [*tables.values(), odd, unfinished]:
        phone.get(f"/t/{table.token}")  # this browser's group: the tables it opened
    response = phone.get("/records/plays.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    plays = parse_plays(response.get_data(as_text=True))
    with Session(store.engine) as session:
        stored = result_lines(session)
    by_table: dict[str, list] = {}
    for line in stored:
        by_table.setdefault(exports.play_id(line.table_token), []).append(line)
    assert set(plays) == set(by_table) and len(plays) == len(FINISHERS) + 1
    for play_id, rows in plays.items():
        lines = by_table[play_id]
        read = {(r["player"].removeprefix("'"), r["score"], r["win"] == "1") for r in rows}
        kept = {
            (line.player, "" if line.score is None else str(line.score),
             line.outcome in ("won", "shared"))
            for line in lines
        }  # fmt: skip
        assert read == kept
        assert len({(r["date"], r["game"], r["location"]) for r in rows}) == 1  # one play
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", rows[0]["date"])
        assert sorted(int(r["rank"]) for r in rows)[0] == 1
    pairs_rows = plays[exports.play_id(tables["pairs"].token)]
    assert {r["win"] for r in pairs_rows} == {"0"} and {r["nowinstats"] for r in pairs_rows} == {
        "1"
    }
    assert "'=Ana" in response.get_data(as_text=True)  # never a spreadsheet formula


def test_a_tables_own_csv_is_its_play_and_waits_for_the_end(phone, store, make_table):
    table = make_table("venture", ["Ana", "Ben", "Cy"])
    assert phone.get(f"/t/{table.token}/bgg.csv").status_code == 409
    finish_venture(store, table)
    response = phone.get(f"/t/{table.token}/bgg.csv")
    [rows] = parse_plays(response.get_data(as_text=True)).values()
    assert [r["player"] for r in rows] == [
        line.name for line, _, _ in ranked(exports.plays_from_results(_lines(store))[0])
    ]
    assert phone.get("/t/not-a-table-token/bgg.csv").status_code == 404


def _lines(store):
    with Session(store.engine) as session:
        return result_lines(session)


def test_bgg_rows_say_win_as_one_or_zero_and_leave_no_score_for_the_solitaire():
    solo = Play("p", "solitaire", "", "", datetime(2026, 11, 20, 21), None,
                (PlayerLine("Solo", None, 1, "won"),))  # fmt: skip
    [row] = bgg_rows(solo)
    assert (row["score"], row["win"], row["startposition"], row["length_min"]) == ("", "1", "1", "")


# --- the backup of this browser's tables ------------------------------------------------


def test_the_backup_page_holds_only_the_tables_this_browser_hosts(phone, store, make_table):
    response = phone.post("/new/scorepad", {"player1": "Ana", "player2": "Ben"}, htmx=False)
    mine = store.table(response.headers["Location"].rsplit("/", 1)[-1])
    other = make_table("scorepad", ["Cy", "Dee"])  # someone else's
    data = json.loads(phone.get("/backup").get_data(as_text=True))
    assert data["format"] == "leafpile-backup" and data["scope"] == "group"
    tokens = {row[data["tables"]["tables"]["columns"].index("token")]
              for row in data["tables"]["tables"]["rows"]}  # fmt: skip
    assert tokens == {mine.token} and other.token not in json.dumps(data)
    assert "archived_tables" not in data["tables"]


def test_a_strangers_plays_csv_names_nobody(phone, store, make_table, new_client_phone):
    """The plays CSV follows the records' rule (issue 23): a browser reads the
    plays of the tables it played, never the whole server's."""
    table = make_table("scorepad", ["Vera", "Walt"])
    act(store, table, {"type": "AddRound", "scores": [3, 4]})
    act(store, table, {"type": "Finish"})
    phone.get(f"/t/{table.token}")
    assert "Vera" in phone.get("/records/plays.csv").get_data(as_text=True)
    stranger = new_client_phone().get("/records/plays.csv").get_data(as_text=True)
    assert "Vera" not in stranger and len(stranger.strip().splitlines()) == 1


# --- BoardGameGeek ids: the server's setting (none shipped: see exports.GAMES) --------


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("", {}),
        ("pairs=12345", {"pairs": 12345}),
        (" pairs = 12345 , autumn_ash=7 ,", {"pairs": 12345, "autumn_ash": 7}),
        ("leaf=400", {"leaf": 400, "north_wind": 400}),  # the North Wind is solo Leaf
        ("leaf=400,north_wind=401", {"leaf": 400, "north_wind": 401}),
    ],
)
def test_bgg_ids_setting_reads_game_id_pairs(setting, expected):
    assert exports.parse_bgg_ids(setting) == expected


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("pairs", "is not game=id"),
        ("chess=13", "is not game=id"),
        ("scorepad=13", "is not game=id"),  # a score pad is whatever game its host named
        ("pairs=abc", "must be BoardGameGeek's number"),
        ("pairs=0", "must be BoardGameGeek's number"),
        ("pairs=-3", "must be BoardGameGeek's number"),
        ("pairs=99999999999", "must be BoardGameGeek's number"),
    ],
)
def test_a_wrong_bgg_ids_setting_says_what_is_wrong(setting, said):
    with pytest.raises(ValueError, match=said):
        exports.parse_bgg_ids(setting)


def test_a_servers_bgg_ids_reach_the_bg_stats_link_and_both_csvs(app, phone, store, make_table):
    app.config["BGG_IDS"] = exports.parse_bgg_ids("venture=4242")
    table = make_table("venture", ["Ana", "Ben", "Cy"])
    other = make_table("pairs", ["Ana", "Ben"])
    finish_venture(store, table)
    finish_pairs(store, other)
    assert decoded(bgstats_link(end_page(phone, table)))["game"]["bggId"] == 4242
    assert "bggId" not in decoded(bgstats_link(end_page(phone, other)))["game"]
    [rows] = parse_plays(phone.get(f"/t/{table.token}/bgg.csv").get_data(as_text=True)).values()
    assert {r["bgg_id"] for r in rows} == {"4242"}
    plays = parse_plays(phone.get("/records/plays.csv").get_data(as_text=True))
    by_game = {rows[0]["game"]: {r["bgg_id"] for r in rows} for rows in plays.values()}
    assert by_game == {"Venture (Pairs deck)": {"4242"}, "Pairs": {""}}


def test_leafpile_refuses_to_start_with_a_wrong_bgg_ids_setting(tmp_path, monkeypatch, capsys):
    from companion import server

    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path))
    monkeypatch.setenv("LEAFPILE_BGG_IDS", "pairs=twelve")
    monkeypatch.setattr(server, "cooperative", lambda: None)  # never gevent in pytest
    assert server.serve("127.0.0.1", 0) == 1
    assert "LEAFPILE_BGG_IDS: the id for pairs must be BoardGameGeek's number" in (
        capsys.readouterr().err
    )
