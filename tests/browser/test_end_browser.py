"""End screens and Play again on real phones (headless Chromium, 390x844) (issue 13)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import in_each_scheme
from tests.end_games import finish_north_wind, finish_scorepad
from tests.web.test_end_screens import FINISHERS, final_totals

pytestmark = pytest.mark.browser

FOLLOW_SECONDS = 8  # a poll every 2 s, then the new page loads


def legend_values(page) -> dict[str, int]:
    values = {}
    for item in page.locator(".chart-legend li").all():
        name, value = item.inner_text().rsplit(":", 1)
        values[name.strip()] = int(value)
    return values


@pytest.mark.parametrize("game", sorted(FINISHERS))
def test_each_end_screen_fits_a_phone_and_its_chart_ends_on_the_totals(
    live_server, new_phone, game
):
    players, options, finish = FINISHERS[game]
    table = live_server.store.create_table(game, players, options, seed=1)
    state = finish(live_server.store, table)
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    end = page.locator("section.end")
    expect(end.get_by_role("heading", name="Game over")).to_be_visible()
    assert legend_values(page) == final_totals(game, state)
    headline = end.locator(".end-headline")
    if game == "pairs":
        expect(headline).to_have_class("notice notice-loss end-headline")
    else:
        expect(headline).to_have_class("notice notice-win end-headline")
    for scheme in in_each_scheme(page):
        expect(end.locator(".chart svg[role=img]")).to_be_visible()
        # Nothing is wider than the phone; the chart's lines take their colour from the stylesheet.
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
        stroke = page.locator(".chart-line").first.evaluate("e => getComputedStyle(e).stroke")
        assert stroke not in ("none", "")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(23, 19, 15)") == (scheme == "dark")


def test_the_north_wind_end_screen_on_a_phone(live_server, new_phone, client_phone_for):
    store = live_server.store
    table = store.create_table("north_wind", ["Ana"], {"difficulty": "easy"}, seed=1)
    finish_north_wind(client_phone_for(live_server), table)
    page = new_phone("dark")
    page.goto(f"{live_server.url}/t/{table.token}")
    expect(page.locator(".end-headline")).to_contain_text("beat the North Wind")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390


def test_play_again_moves_four_phones_and_a_spectator_to_the_new_table(live_server, new_phone):
    host = new_phone()
    host.goto(f"{live_server.url}/new/scorepad")
    for i, name in enumerate(["Ana", "Ben", "Cy", "Di"], 1):
        host.locator(f"#player{i}").fill(name)
    host.get_by_role("button", name="Start the table").click()
    host.wait_for_url("**/t/*")
    token = host.url.rsplit("/", 1)[-1]
    table = live_server.store.table(token)
    guests = [new_phone() for _ in range(3)]
    for guest in guests:
        guest.goto(f"{live_server.url}/t/{token}")
    spectator = new_phone("dark")
    spectator.goto(f"{live_server.url}/v/{table.view_token}")

    finish_scorepad(live_server.store, table)
    for phone in (host, *guests, spectator):
        expect(phone.locator(".end-headline")).to_be_visible(timeout=FOLLOW_SECONDS * 1000)
    host.get_by_role("button", name="Play again with the same players").click()
    host.wait_for_url(lambda url: token not in url)
    new = live_server.store.table(host.url.rsplit("/", 1)[-1])
    assert new.players == ("Ben", "Cy", "Di", "Ana") and new.version == 0
    for guest in guests:
        guest.wait_for_url(f"**/t/{new.token}", timeout=FOLLOW_SECONDS * 1000)
        expect(guest.get_by_role("button", name="Add the round")).to_be_visible()
    spectator.wait_for_url(f"**/v/{new.view_token}", timeout=FOLLOW_SECONDS * 1000)
    expect(spectator.locator("text=Spectator view")).to_be_visible()


@pytest.fixture
def client_phone_for():
    """A test-client phone on the live server's app (for games driven through forms)."""
    from tests.conftest import Phone

    return lambda server: Phone(server.app.test_client(), server.store)
