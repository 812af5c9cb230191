"""The Autumn Ash screen: bag pyramids, see points, race to 21, undo."""

from __future__ import annotations

import re

import pytest

RED_ROW = {"red-1-0": "1", "red-2-0": "1", "red-3-0": "1"}  # 6 pips + 3 = 9
BLACK_ROW = {"black-3-0": "1", "black-3-1": "1", "black-2-0": "1"}  # 8 + 12 = 20
PURPLE_ROW = {"purple-1-0": "1", "purple-1-1": "1", "purple-2-0": "1"}  # 4 + 12 = 16


@pytest.fixture
def race(make_table):
    return make_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"})


def totals(response) -> dict[str, int]:
    html = response.get_data(as_text=True)
    return {m[0]: int(m[1]) for m in re.findall(r'data-player="([^"]+)">(\d+)<', html)}


def test_new_table_form_chooses_who_plays_rainbow(phone, store):
    response = phone.post(
        "/new/autumn_ash", {"player1": "Ana", "player2": "Ben", "rainbow": "2"}, htmx=False
    )
    assert response.status_code == 303
    table = store.tables(game="autumn_ash")[0]
    assert table.options == {"rainbow": "Ben"}
    state = store.snapshot(table.token).state
    assert (state.rainbow, state.xeno) == ("Ben", "Ana")


def test_new_table_needs_two_players(phone):
    response = phone.post("/new/autumn_ash", {"player1": "Ana", "rainbow": "1"}, htmx=False)
    assert response.status_code == 422


def test_board_shows_both_progressions_and_bonuses_always(phone, race):
    html = phone.get(f"/t/{race.token}").get_data(as_text=True)
    for colour in ("green", "yellow", "red", "blue", "black", "clear", "white", "orange", "cyan",
                   "purple"):  # fmt: skip
        assert f"ash-swatch ash-{colour}" in html
    assert "+12" in html and "+6" in html and "+3" in html
    assert re.search(r"solitaire\.(\w+\.)?css", html)


def test_a_bag_scores_pips_plus_bonus_with_the_breakdown_x2(phone, race):
    response = phone.act(race, "bag", player="Ana", **RED_ROW)
    assert response.status_code == 200
    assert totals(response) == {"Ana": 9, "Ben": 0}
    html = response.get_data(as_text=True)
    assert "Ana +9" in html
    assert "6 pips + red 3 = 9" in html
    assert "Ana bagged red queen, red drone, red pawn: 6 pips + red 3 = 9" in html


def test_race_to_21_names_the_winner_and_closes_the_bag_forms_x3(phone, race):
    phone.act(race, "bag", player="Ana", **BLACK_ROW)
    phone.act(race, "bag", player="Ben", **PURPLE_ROW)
    response = phone.act(race, "bag", player="Ana", **RED_ROW)
    assert totals(response) == {"Ana": 29, "Ben": 16}
    html = response.get_data(as_text=True)
    assert "Ana reached 29 first and wins by 13 points." in html  # the end screen, once
    assert html.count("notice-win") == 1
    assert 'value="bag"' not in html


def test_undo_takes_the_last_bag_back(phone, race, store):
    phone.act(race, "bag", player="Ana", **RED_ROW)
    version = store.version(race.token)
    response = phone.post(f"/t/{race.token}/undo", {"version": str(version)})
    assert response.status_code == 200
    assert totals(response) == {"Ana": 0, "Ben": 0}


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"player": "Ana"}, "Tap the pyramids Ana bagged first"),
        ({"player": "Zed", **RED_ROW}, "There is no player called &#39;Zed&#39;"),
        ({"player": "Ana", "red-1-0": "1", "red-2-0": "1"}, "Only 2 red pieces in the bag"),
        # Ben plays xeno: red toggles are not his, so nothing he can bag was tapped.
        ({"player": "Ben", **RED_ROW}, "Tap the pyramids Ben bagged first"),
    ],
)
def test_bad_bags_show_why_with_422_and_change_nothing(phone, race, store, error_message,
                                                      fields, words):  # fmt: skip
    response = phone.act(race, "bag", **fields)
    assert response.status_code == 422
    assert words in error_message(response)
    assert store.version(race.token) == 0


def test_a_bag_after_the_win_is_refused(phone, race, store, error_message):
    phone.act(race, "bag", player="Ana", **BLACK_ROW)
    phone.act(race, "bag", player="Ana", **RED_ROW)
    response = phone.act(race, "bag", player="Ben", **PURPLE_ROW)
    assert response.status_code == 422
    assert "The race is over: Ana reached 21" in error_message(response)


def test_summary_line_for_the_table_list(phone, race):
    phone.get(f"/t/{race.token}")  # the start page lists the tables this phone has opened
    phone.act(race, "bag", player="Ana", **RED_ROW)
    html = phone.get("/").get_data(as_text=True)
    assert "Ana 9 · Ben 0" in html


def test_history_lists_each_bag_with_its_breakdown(phone, race, store):
    store.act(race.token, 0, {"type": "Bag", "player": "Ben",
                              "pieces": [["orange", 1], ["orange", 1], ["orange", 2]]})  # fmt: skip
    html = phone.get(f"/t/{race.token}/history").get_data(as_text=True)
    assert "Ben bagged orange drone, orange pawn, orange pawn: 4 pips + orange 3 = 7" in html


def test_spectators_see_the_scores_but_no_bag_forms(phone, race):
    html = phone.get(f"/v/{race.view_token}").get_data(as_text=True)
    assert 'data-player="Ana">0<' in html and "ash-reference" in html
    assert 'value="bag"' not in html
