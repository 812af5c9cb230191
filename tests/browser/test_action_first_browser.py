"""Action first on the remaining screens (issue 20), headless Chromium at 390x844:
Leaf's multiplayer score sheet and the Autumn Ash bag scorer put the fields
to fill first and the totals after; Records and achievements have tall
enough links."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREEN = 844
FOUR = ["Ana", "Ben", "Cleo", "Dev"]


def seat(page, url: str, name: str) -> None:
    page.goto(url)
    if page.locator(".who-names").count():
        take_seat(page, name)
    page.evaluate("window.scrollTo(0, 0)")


def on_first_screen(page, locator) -> None:
    expect(locator).to_be_visible()
    assert page.evaluate("window.scrollY") == 0
    box = locator.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= SCREEN, box


def no_sideways_scrolling(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 391
    assert page.evaluate("""() => [...document.querySelectorAll('.table-scroll')].every(
        (box) => box.scrollWidth <= box.clientWidth + 1)""")


def tally(den_owls: int, acorns: int) -> dict:
    return {
        "den": {"owl": den_owls},
        "mushroom_groups": [3, 2],
        "tree": 4,
        "sun": 1,
        "leaf_cards": 2,
        "acorn_tokens": acorns,
        "minus_three": 1,
    }


def test_the_leaf_score_sheet_puts_this_phones_count_first_and_four_totals_fit(
    live_server, new_phone
):
    store = live_server.store
    table = store.create_table("leaf", FOUR, {})
    for player, acorns in zip(FOUR[1:], (12, 9, 15), strict=True):
        store.act(
            table.token,
            store.version(table.token),
            {"type": "EnterTally", "player": player, "tally": tally(1, acorns)},
        )
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    # Ana's own count leads, open, its first field and its button on the first screen.
    counts = page.locator("details.leaf-count")
    expect(counts.first.locator("summary")).to_contain_text("Ana")
    expect(counts.first).to_have_attribute("open", "")
    on_first_screen(page, counts.first.locator("input[type=number]").first)
    save = page.get_by_role("button", name="Save Ana's count")
    on_first_screen(page, save)
    # The words about counting come after the fields.
    words = page.get_by_role("heading", name="Count up")
    assert words.bounding_box()["y"] > counts.first.bounding_box()["y"]
    page.locator("#p1-acorns").fill("10")
    page.locator("#p1-den_fox").fill("2")
    save.click()
    # The answer: the four totals, in view, side by side on 390 px.
    headline = page.locator(".end-headline")
    expect(headline).to_be_visible()
    expect(headline).to_be_in_viewport(ratio=0.9)
    table_el = page.locator("table.leaf-breakdown")
    expect(table_el.locator("thead th")).to_have_count(5)
    table_el.scroll_into_view_if_needed()
    no_sideways_scrolling(page)
    expect(table_el.locator("thead th").nth(4)).to_be_in_viewport()
    cut = page.evaluate("""() => [...document.querySelectorAll('table.leaf-breakdown :is(td, th)')]
        .filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map((c) => c.textContent)""")
    assert cut == []


def every_target_is_44_px_tall(page) -> list[str]:
    """The visible links and buttons of the page shorter than 44 px."""
    return page.evaluate("""() => [...document.querySelectorAll('main a, main button')]
        .filter((el) => el.getClientRects().length && el.getBoundingClientRect().height < 43.5)
        .map((el) => `${el.textContent.trim()}: ${el.getBoundingClientRect().height}px`)""")


def test_records_and_achievements_have_thumb_sized_links_and_say_this_browser(
    live_server, new_phone
):
    from tests.end_games import finish_scorepad

    store = live_server.store
    table = store.create_table("scorepad", FOUR, {"lowest_wins": False})
    finish_scorepad(store, table)
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")  # this browser is one of its phones
    page.goto(f"{live_server.url}/records")
    expect(page.locator("main")).to_contain_text("the tables played in this browser")
    expect(page.locator("main a.tap-link").first).to_be_visible()
    assert every_target_is_44_px_tall(page) == []
    page.locator("main a.tap-link", has_text="Ana").first.click()
    expect(page.locator("h1")).to_have_text("Ana")
    expect(page.locator("main")).to_contain_text("at the tables played in this browser")
    assert every_target_is_44_px_tall(page) == []
    page.goto(f"{live_server.url}/achievements")
    expect(page.locator("main")).to_contain_text("played in this browser")
    assert every_target_is_44_px_tall(page) == []


def test_the_ash_bag_scorer_puts_this_phones_bag_first_and_the_scores_after(live_server, new_phone):
    store = live_server.store
    table = store.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"}, "Ash")
    page = new_phone(color_scheme="dark")
    seat(page, f"{live_server.url}/t/{table.token}", "Ben")
    # Ben's bag leads, open: its first pyramid and its button on the first screen.
    bags = page.locator("details.ash-bag")
    expect(bags.first.locator("summary")).to_contain_text("Ben bagged leaves")
    expect(bags.first).to_have_attribute("open", "")
    on_first_screen(page, bags.first.locator("label.ash-piece").first)
    score = page.get_by_role("button", name="Score Ben's bag")
    on_first_screen(page, score)
    scores = page.locator(".ash-scores")
    assert scores.bounding_box()["y"] > bags.first.bounding_box()["y"]
    for field in ("purple-1-0", "purple-1-1", "purple-2-0"):
        bags.first.locator(f'label.ash-piece:has(input[name="{field}"])').tap()
    score.tap()
    # The answer, in view: the bag just scored.
    last = page.locator("#ash-last")
    expect(last).to_contain_text("Last bag: Ben +16")
    expect(last).to_be_in_viewport(ratio=0.9)
    expect(page.locator("#announcer")).to_contain_text("Last bag: Ben +16")
