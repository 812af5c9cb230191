"""Who is who on a 360 px phone (issue 43), headless Chromium at 360x740:
six players' score heads never read the same, and a table's name fits the
top bar."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import in_each_scheme
from tests.end_games import act

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NARROW = {"width": 360, "height": 740}
SIX = ["Anna", "Anne", "Andrew", "Christopher", "Christina", "Dev"]


def narrow_phone(new_phone):
    page = new_phone()
    page.set_viewport_size(NARROW)
    return page


def test_six_score_pad_heads_tell_the_players_apart(live_server, new_phone):
    store = live_server.store
    table = store.create_table("scorepad", SIX, {"lowest_wins": False})
    act(store, table, {"type": "AddRound", "scores": [10, 20, 30, 40, 50, 60]})
    page = narrow_phone(new_phone)
    page.goto(f"{live_server.url}/t/{table.token}")
    for _ in in_each_scheme(page):
        heads = page.locator("table.scores thead th[title]")
        expect(heads).to_have_count(6)
        shown = heads.evaluate_all(
            "(ths) => ths.map((th) =>"
            " th.querySelector('[aria-hidden]')?.textContent ?? th.textContent)"
        )
        assert shown == ["Anna", "Anne", "And", "Christo", "Christi", "Dev"]
        # Nothing is cut by the browser either: no ellipsis, no sideways scrolling.
        cut = heads.evaluate_all(
            "(ths) => ths.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.title)"
        )
        assert cut == []
        assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
        # Screen readers hear every name whole; the key under the table says who is who.
        heard = heads.nth(2).evaluate("(th) => th.querySelector('.visually-hidden').textContent")
        assert heard == "Andrew"
        key = page.locator(".names-key")
        expect(key.locator("span")).to_have_text(
            ["And Andrew", "Christo Christopher", "Christi Christina"]
        )
        expect(key).to_be_visible()


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("north_wind", ["Ana"], {}),  # the longest names a table is given
        ("solitaire", ["Ana"], {"deal": 1}),
        ("autumn_leaves", SIX, {}),  # with the Invite button beside it
    ],
)
def test_a_tables_name_fits_the_top_bar_at_360_px(live_server, new_phone, game, players, options):
    table = live_server.store.create_table(game, players, options)
    page = narrow_phone(new_phone)
    page.goto(f"{live_server.url}/t/{table.token}")
    title = page.locator(".topbar-title")
    expect(title).to_contain_text(table.title)
    words = title.locator("summary") if title.locator("summary").count() else title
    # Shown whole, on at most two lines: not clamped, not cut.
    assert words.evaluate("(el) => el.scrollHeight <= el.clientHeight + 1"), table.title
    assert words.evaluate("(el) => el.getClientRects()[0].height") < 56
    bar = page.locator(".topbar")
    assert bar.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    # The leaf still leads home, a thumb's width, named for screen readers.
    home = page.get_by_role("link", name="Leafpile")
    box = home.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
