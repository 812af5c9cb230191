"""Venture's bid pad and Pairs' pad in the pseudo-locale on a 360x740 phone.

Issue 45: one phone reading the pseudo-locale (every marked string accented,
40 % longer, between ⟦ ⟧), headless Chromium: no word of the board outside
the markers, nothing wider than the phone, the pad on the first screen, and
after a tap its answer in view. The other states of both games are read in
the pseudo-locale by tests/web/test_cards_languages_web.py (faster there).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_answers_in_view_browser import in_view
from tests.browser.test_languages_browser import assert_fits
from tests.browser.test_pseudo_locale_boards_browser import (
    WIDER,
    first_screen,
    open_board,
    play,
    unmarked,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = {"Ana", "Ben", "Cy", "Pairs", "Venture"}  # names, as the games' are


def check_words_and_width(page: Any, board: Any) -> None:
    assert not unmarked(board.inner_text(), PLAYERS)
    wider = page.evaluate(WIDER)
    assert not wider, f"wider than the phone at {page.url}: {wider}"
    assert_fits(page)


def tap_and_wait(page: Any, key: Any) -> None:
    """Tap, and wait until the board shows the table's next version."""
    before = page.locator("#board").get_attribute("data-version")
    key.click()
    page.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=before
    )


def test_venture_and_pairs_pads_in_the_pseudo_locale_on_a_small_phone(
    pseudo_live, new_pseudo_phone
):
    url, store = pseudo_live.url, pseudo_live.store
    page = new_pseudo_phone(url)

    # Venture, the shared phone: Ana's bid pad; a bid passes the phone to Ben.
    venture = store.create_table("venture", ["Ana", "Ben", "Cy"], {"drafting": True})
    play(store, venture, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    board = open_board(page, f"{url}/t/{venture.token}")
    check_words_and_width(page, board)
    key = page.locator(".pad-key[value='5']")
    first_screen(page, key)
    tap_and_wait(page, key)
    answer = page.locator("[data-answer]").first
    in_view(page, answer)
    assert "Ben" in answer.inner_text() and not unmarked(answer.inner_text(), PLAYERS)
    check_words_and_width(page, board)

    # Pairs: Ana has the low card; she hits an 8, and the news says so.
    pairs = store.create_table("pairs", ["Ana", "Ben", "Cy"], {})
    deals = (("Ana", 5), ("Ben", 9), ("Cy", 6))
    play(store, pairs, *({"type": "Deal", "player": p, "card": c} for p, c in deals))
    board = open_board(page, f"{url}/t/{pairs.token}")
    check_words_and_width(page, board)
    key = page.locator(".pad-key[value='8']")
    first_screen(page, key)
    tap_and_wait(page, key)
    news = page.locator(".pairs-news")
    in_view(page, news)
    assert "8" in news.inner_text() and not unmarked(news.inner_text(), PLAYERS)
    check_words_and_width(page, board)
