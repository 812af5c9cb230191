"""Player records from finished tables: totals, names, Tonight, CSV, merges (issue 13).

Runs on SQLite and, in CI, on PostgreSQL (LEAFPILE_TEST_DATABASE_URL).
"""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from companion.tables.results import BackfillRow, ResultLine, ResultRow, name_key
from companion.web.records import tally, tonight
from tests.end_games import finish_autumn_ash, finish_north_wind, finish_pairs, finish_scorepad
from tests.web.test_end_screens import host_table


def sit_at(phone, *tables) -> None:
    """The phone opens each table (by its link): the tables are its group's (issue 23)."""
    for table in tables:
        assert phone.get(f"/t/{table.token}").status_code == 200


def rows(store) -> list[ResultRow]:
    with Session(store.engine) as session:
        return list(session.scalars(select(ResultRow).order_by(ResultRow.id)))


def records_table(body: str) -> dict[str, tuple[int, int, int]]:
    """The "All players" table: name -> (games, won, lost)."""
    section = body.split('id="all-h"', 1)[1]
    found = re.findall(
        r'<th scope="row"><a [^>]*href="[^"]+"[^>]*>([^<]+)</a>.*?</th>\s*'
        r'<td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td>',
        section,
        re.S,
    )
    return {name: (int(g), int(w), int(lost)) for name, g, w, lost in found}


def test_name_keys_ignore_case_and_spaces():
    assert name_key(" Ana  Lu ") == name_key("ana lu") == name_key("ANALU") == "analu"
    assert name_key("Ana") != name_key("Anna")


def test_totals_per_player_over_several_tables_match_a_hand_count(phone, store, make_table):
    # Score pad, highest wins: Ana 14, ben 12, Cy 6 -> Ana wins.
    pad = make_table("scorepad", ["Ana", "ben", "Cy"])
    finish_scorepad(store, pad, [[10, 9, 5], [4, 3, 1]])
    # Score pad, lowest wins: "ANA" 3, Ben 5 -> ANA wins (the same Ana).
    low = make_table("scorepad", ["ANA", "Ben"], {"lowest_wins": True})
    finish_scorepad(store, low, [[3, 5]])
    # Autumn Ash: Rainbow (" Ben ") bags first and reaches 21 first.
    ash = make_table("autumn_ash", ["Ben", "Cy"], {"rainbow": "Ben"})
    finish_autumn_ash(store, ash)
    # Pairs: whoever reaches the losing score loses; nobody wins.
    pairs_table = make_table("pairs", ["Ana", "Cy"], {"target": 11})
    final = finish_pairs(store, pairs_table)
    # An unfinished table counts for nobody.
    unfinished = make_table("scorepad", ["Ana", "Dee"])
    sit_at(phone, pad, low, ash, pairs_table, unfinished)

    pairs_loser = final.loser
    expected = {
        "analu": None,
        "ana": [1 + 1 + 1, 2, 0],  # pad win, low pad win, Pairs
        "ben": [1 + 1 + 1, 1, 2],  # pad loss, low pad loss, Ash win
        "cy": [1 + 1 + 1, 0, 2],  # pad loss, Ash loss, Pairs
    }
    expected.pop("analu")
    expected[name_key(pairs_loser)][2] += 1
    records = {r.key: [r.played, r.won, r.lost] for r in tally(line_list(store))}
    assert records == expected

    body = phone.get("/records").get_data(as_text=True)
    shown = records_table(body)
    assert {name_key(n): list(v) for n, v in shown.items()} == expected
    assert "Names are only what people typed" in body


def line_list(store) -> list[ResultLine]:
    from companion.tables.results import result_lines

    with Session(store.engine) as session:
        return result_lines(session)


def test_best_and_worst_follow_whether_low_or_high_wins(phone, store, make_table):
    for rows_ in ([[10, 1]], [[30, 2]]):
        table = make_table("scorepad", ["Ana", "Ben"])
        sit_at(phone, table)
        finish_scorepad(store, table, rows_)
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": True})
    sit_at(phone, table)
    finish_scorepad(store, table, [[7, 8]])
    ana = next(r for r in tally(line_list(store)) if r.key == "ana")
    assert (ana.games["scorepad"].best, ana.games["scorepad"].worst) == (30, 10)
    lowest = ana.games["scorepad/lowest wins"]
    assert (lowest.best, lowest.worst, lowest.played) == (7, 7, 1)
    assert ana.played == 3 and ana.won == 3
    page = phone.get("/records/player/ana")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert "3 won, 0 lost, 3 games" in body
    assert '<polyline class="chart-line chart-s0"' in body  # games played over time
    assert phone.get("/records/player/nobody").status_code == 404


def test_tonight_is_the_last_twelve_hours():
    now = datetime(2026, 11, 22, 23, 0)

    def line(name: str, hours_ago: float, outcome: str) -> ResultLine:
        return ResultLine(
            "t" * 32, "v" * 32, "Pad", "scorepad", "", name, name_key(name), 1, 1, 2, outcome,
            False, (), now - timedelta(hours=hours_ago),
        )  # fmt: skip

    lines = [line("Ana", 1, "won"), line("Ben", 1, "lost"), line("Ana", 13, "won")]
    board = {r.name: (r.won, r.played) for r in tonight(lines, now)}
    assert board == {"Ana": (1, 1), "Ben": (0, 1)}


def test_undo_of_the_final_entry_removes_the_results(store, make_table):
    pad = make_table("scorepad", ["Ana", "Ben"])
    finish_scorepad(store, pad)
    assert len(rows(store)) == 2
    store.undo(pad.token, store.version(pad.token))
    assert rows(store) == []
    store.redo(pad.token, store.version(pad.token))
    assert [r.player for r in rows(store)] == ["Ana", "Ben"] or len(rows(store)) == 2


def test_csv_export_has_one_line_per_player_per_finished_table(phone, store, make_table):
    table = make_table("scorepad", ["=Ana", "Ben"])
    sit_at(phone, table)
    finish_scorepad(store, table, [[2, 1]])
    response = phone.get("/records.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    table = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert table[0][:4] == ["finished_utc", "player", "typed_key", "game"]
    assert sorted((r[1], r[6], r[9]) for r in table[1:]) == [
        ("'=Ana", "2", "won"),
        ("Ben", "1", "lost"),
    ]


def test_the_host_merges_two_spellings_into_one_player(
    phone, store, new_client_phone, error_message
):
    first = host_table(phone, store, "scorepad", ["Annie", "Ben"])
    finish_scorepad(store, first, [[5, 1]])
    finish_scorepad(store, host_table(phone, store, "scorepad", ["Anna", "Ben"]), [[5, 1]])
    assert {r.key for r in tally(line_list(store))} == {"annie", "anna", "ben"}
    # Only a phone that started one of the player's tables may merge or rename
    # them: not a guest who played there too.
    guest = new_client_phone()
    sit_at(guest, first)
    refused = guest.post("/records/names", {"old": "Annie", "new": "Anna"}, htmx=False)
    assert refused.status_code == 422 and "ask the host" in error_message(refused)
    response = phone.post("/records/names", {"old": " annie ", "new": "Anna"}, htmx=False)
    assert response.status_code == 303
    merged = {r.key: (r.name, r.played, r.won) for r in tally(line_list(store))}
    assert merged == {"anna": ("Anna", 2, 2), "ben": ("Ben", 2, 0)}
    page = phone.get("/records").get_data(as_text=True)
    assert {name_key(n): v for n, v in records_table(page).items()} == {
        "anna": (2, 2, 0),
        "ben": (2, 0, 2),
    }
    # A rename: Ben shows as Benjamin; the tables keep what was typed.
    phone.post("/records/names", {"old": "Ben", "new": "Benjamin"}, htmx=False)
    assert {r.name for r in tally(line_list(store))} == {"Anna", "Benjamin"}
    assert store.tables()[0].players == ("Anna", "Ben")
    bad = phone.post("/records/names", {"old": "Zed", "new": "Z"}, htmx=False)
    assert bad.status_code == 422 and "Nobody called &#39;Zed&#39;" in error_message(bad)
    empty = phone.post("/records/names", {"old": "", "new": ""}, htmx=False)
    assert empty.status_code == 422


def test_achievements_come_from_result_rows_and_old_tables_are_backfilled(phone, store, make_table):
    table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
    sit_at(phone, table)
    finish_north_wind(phone, table)
    response = phone.act(table, "achieve", ach_0="", ach_1="")
    assert response.status_code in (200, 422)
    body = phone.get("/achievements").get_data(as_text=True)
    assert "1 win in 1 solo game" in body
    # A database from before result rows: no rows, no marker -> rebuilt once.
    with Session(store.engine) as session, session.begin():
        session.execute(delete(ResultRow))
        session.execute(delete(BackfillRow))
    store._results_backfilled = False
    assert "1 win in 1 solo game" in phone.get("/achievements").get_data(as_text=True)
    assert len(rows(store)) == 1 and rows(store)[0].outcome == "won"
