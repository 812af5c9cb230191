"""Quick taps on a pad are all entered, however slow the table answers.

A slug card is a request that redraws the board. A second card tapped
before the first one's board arrived used to vanish with the old board
(htmx queued it on the form the new board replaced): on a busy server a
player tapping 4 5 6 8 9 got a slug of 4 6 8 9 and no word of it.
"""

from __future__ import annotations

import re
import time

import pytest
from flask import request
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLOW_BOARD_SECONDS = 0.6  # every redraw of the board is this slow: taps overtake it
FIVE = ["Ana", "Ben", "Cy", "Dan", "Ed"]


def test_slug_cards_tapped_faster_than_the_board_answers_are_all_entered(live_server, new_phone):
    def slow_board() -> None:
        if request.path.endswith("/board"):
            time.sleep(SLOW_BOARD_SECONDS)

    # Flask refuses new hooks once serving; the list itself takes one.
    live_server.app.before_request_funcs.setdefault(None, []).append(slow_board)
    table = live_server.store.create_table("venture", FIVE, {}, seed=1)  # a slug of 5
    phone = new_phone()
    phone.goto(f"{live_server.url}/t/{table.token}")
    for card in (4, 5, 6, 8, 9):  # each tap lands while the last one's board is on its way
        phone.get_by_role("button", name=f"Slug card {card}", exact=True).click()
    turn_up = phone.get_by_role("button", name=re.compile(r"^Turn up the slug: "))
    expect(turn_up).to_be_visible(timeout=20_000)
    expect(turn_up).to_have_accessible_name(re.compile(r"4.*5.*6.*8.*9"))
