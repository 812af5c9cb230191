"""A limit answers where the tap was made, never in place of the board
(issue 43), headless Chromium at 390x844 and 360x740.

Hint's limit (a dozen a minute: each runs the solver) answered a phone
over it by replacing the whole solitaire board with "Too many requests".
Now the board stays as it was and the line under Hint says how long to
wait, from the table's Retry-After.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from companion.web import ratelimit

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = [pytest.param((390, 844), id="390x844"), pytest.param((360, 740), id="360x740")]


def over_the_solver_limit(app, seconds: float) -> None:
    """This machine's address breached the solver's limit just now: the
    limiter's own breach handler puts it in the penalty box."""
    app.config["LEAFPILE_RATE_LIMITS"] = True
    with app.test_request_context(environ_base={"REMOTE_ADDR": "127.0.0.1"}):
        ratelimit._box("solver")(SimpleNamespace(reset_at=ratelimit.clock() + seconds))


@pytest.mark.parametrize("size", SIZES)
def test_too_many_hints_is_said_under_the_hint_button_and_the_board_stays(
    live_server, new_phone, size
):
    table = live_server.store.create_table("solitaire", ["Solo"], {"deal": 20})
    page = new_phone("dark" if size[0] == 360 else "light")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{live_server.url}/t/{table.token}")
    piles = page.locator(".sol-piles")
    expect(piles).to_be_visible()
    over_the_solver_limit(live_server.app, 40)
    page.get_by_role("link", name="Hint").click()
    said = page.locator(".sol-tools + .limit-answer")
    wording = r"^Too many hints just now: try again in (\d+) s\. Nothing on the board changed\.$"
    expect(said).to_have_text(re.compile(wording))
    found = re.match(wording, said.inner_text())
    assert found and 1 <= int(found[1]) <= 40  # the table's Retry-After
    expect(said).to_have_attribute("role", "alert")
    expect(said).to_be_in_viewport()
    # The board is the board: its piles, its buttons, its poller.
    expect(piles).to_be_visible()
    expect(page.locator("#board .poller")).to_have_count(1)
    expect(page.locator("#board")).not_to_contain_text("Too many requests")
    # Winnable? shares the solver's limit and says so in the same place.
    page.get_by_role("link", name="Winnable?").click()
    expect(said).to_contain_text("Too many questions to the solver just now")
    expect(page.locator(".limit-answer")).to_have_count(1)


def test_a_limit_on_a_control_without_its_own_words_is_said_in_the_dock(live_server, new_phone):
    """A 429 on any other tap of the board leaves the board and says it at
    the foot of the screen, with the wait."""
    table = live_server.store.create_table("solitaire", ["Solo"], {"deal": 20})
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    page.route(
        "**/act",
        lambda route: route.fulfill(
            status=429,
            headers={"Retry-After": "12", "Content-Type": "text/html"},
            body='<div id="board"><p class="notice notice-error">Too many requests.</p></div>',
        ),
    )
    page.get_by_role("button", name=re.compile(r"^Deal")).click()
    expect(page.locator(".tap-dock-why")).to_contain_text("Try again in 12 s.")
    expect(page.locator(".sol-piles")).to_be_visible()
