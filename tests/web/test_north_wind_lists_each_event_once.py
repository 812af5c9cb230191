"""The North Wind screen lists each event once (issue 43).

Its latest note led the screen as the tap's answer, was listed again under
"This North Wind turn", and a third time in the table's "Latest" list. The
note that leads is left out of the list below it, and the table's own list
is left off while the game lists its turn itself (the history has it all).
"""

from __future__ import annotations

import html
import re

from tests.end_games import act

EMPTY_MAT = [None, None, None, None, None]
ORANGE = "Orange: the North Wind takes the raven from the top of the animal deck."


def words(response) -> str:
    text = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", html.unescape(text))


def north_wind_mid_turn(store):
    table = store.create_table("north_wind", ["Ana"], {"difficulty": "hard"})
    for step in (
        {"type": "SetupAnimals", "animals": ["fox", "owl", "frog"]},
        {"type": "EndHumanTurn"},
        {"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"},
        {"type": "Place", "tips": {"red": 1, "orange": 1, "brown": 1}},
        {"type": "Red", "outcome": "baby"},
        {"type": "Orange", "mat": EMPTY_MAT, "drawn": ["raven", False]},
    ):
        act(store, table, step)
    return table


def test_the_latest_north_wind_event_is_listed_once(store, phone):
    table = north_wind_mid_turn(store)
    board = phone.get(f"/t/{table.token}/board", htmx=True)
    text = words(board)
    assert text.count(ORANGE) == 1
    assert "Orange action (drew from the deck)" not in text  # the table's own list is off
    assert 'aria-label="Latest changes"' not in board.get_data(as_text=True)
    # Every note of the turn is there, once each: the earlier ones in the list.
    notes = store.snapshot(table.token).state.notes
    assert len(notes) >= 3
    for note in notes:
        assert text.count(str(note)) == 1, note
    assert "Earlier this North Wind turn" in text
    # The history still has every entry.
    history = words(phone.get(f"/t/{table.token}/history"))
    assert "Orange action (drew from the deck)" in history


def test_other_games_keep_the_tables_latest_list(store, phone):
    table = store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    act(store, table, {"type": "AddRound", "scores": [3, 4]})
    board = phone.get(f"/t/{table.token}/board", htmx=True).get_data(as_text=True)
    assert 'aria-label="Latest changes"' in board
