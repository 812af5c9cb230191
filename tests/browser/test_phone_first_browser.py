"""The table screen, phone first (issue 20), in headless Chromium at 390x844.

At the largest tables the games allow, the control a phone came to tap is on
the first screen without scrolling; after a tap its answer (the result or
the refusal) is in the viewport; and a tap made while the phone is offline
is kept, said to be waiting, and entered exactly once when the table is back.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.conftest import PHONE_SIZES, take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# tests/feel_check.js: controls a thumb cannot hit, unlabelled fields, sideways scrolling.
FEEL_CHECK = "\n".join(
    line
    for line in (Path(__file__).parent / "feel_check.js").read_text().splitlines()
    if not line.startswith("//")
)
SETTLE = 10_000  # ms: generous, so a busy machine never fails a correct app
SCREEN = 844  # px: the phone's viewport height
EIGHT = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal"]
SIX = EIGHT[:6]


def seat(page, url: str, name: str) -> None:
    """Open the table and take ``name``'s seat (a one-player table asks nothing)."""
    page.goto(url)
    if page.locator(".who-names").count():
        take_seat(page, name)
    page.evaluate("window.scrollTo(0, 0)")


def picture(page, suffix: str = "") -> None:
    """A screenshot to look at, when LEAFPILE_SCREENSHOTS names a folder."""
    if os.environ.get("LEAFPILE_SCREENSHOTS"):
        name = os.environ.get("PYTEST_CURRENT_TEST", "shot").split("::")[-1].split(" ")[0]
        page.screenshot(path=f"{os.environ['LEAFPILE_SCREENSHOTS']}/{name}{suffix}.png")


def on_first_screen(page, locator) -> dict:
    """The element's box, asserting the page is unscrolled and the box lies
    wholly within the first screen."""
    expect(locator).to_be_visible()
    picture(page)
    assert page.evaluate("window.scrollY") == 0
    box = locator.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= SCREEN, box
    return box


def in_viewport(page, locator) -> None:
    expect(locator).to_be_in_viewport(ratio=0.9)


def venture_eight(store):
    """An 8-player Venture table one round in: a reveal to show, a bid to make."""
    table = store.create_table("venture", EIGHT, {"drafting": False})
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [1, 2, 3, 4, 5, 6, 7]})
    for card, player in enumerate(EIGHT, start=3):
        store.act(
            table.token, store.version(table.token), {"type": "Bid", "player": player, "card": card}
        )
    return table


def autumn_six(store, *, placing: bool):
    """A 6-player Autumn Leaves table in round 2: the piles are 1 3 5 7 9 10.

    ``placing``: every card is revealed and Ana's 8 goes first; it fits the
    7 and the 9 (Dev's and Eli's piles, far down the list)."""
    table = store.create_table("autumn_leaves", SIX, {}, seed=3)
    store.act(
        table.token,
        0,
        {
            "type": "Reveal",
            "cards": [[p, c] for p, c in zip(SIX, [1, 3, 5, 7, 9, 10], strict=True)],
        },
    )
    if placing:
        store.act(
            table.token,
            store.version(table.token),
            {
                "type": "Reveal",
                "cards": [[p, c] for p, c in zip(SIX, [8, 10, 10, 10, 10, 10], strict=True)],
            },
        )
    return table


def test_the_venture_bid_pad_of_an_eight_player_table_is_on_the_first_screen(
    live_server, new_phone
):
    table = venture_eight(live_server.store)
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Hal")
    on_first_screen(page, page.get_by_role("group", name="Your bid, Hal"))
    assert page.evaluate(FEEL_CHECK) == []
    # The round just revealed comes right after what there is to do.
    assert (
        page.locator(".venture-reveal").bounding_box()["y"]
        > page.locator(".pad-form").bounding_box()["y"]
    )
    # The tap's answer is in view: the phone's own bid, waiting for the others.
    page.get_by_role("button", name="Your bid, Hal: 8", exact=True).click()
    status = page.locator(".venture-bids .status")
    expect(status).to_contain_text("You have bid")
    in_viewport(page, status)


def test_the_autumn_leaves_reveal_pad_of_a_six_player_table_is_on_the_first_screen(
    live_server, new_phone
):
    table = autumn_six(live_server.store, placing=False)
    page = new_phone(color_scheme="dark")
    seat(page, f"{live_server.url}/t/{table.token}", "Fay")
    on_first_screen(page, page.get_by_role("group", name="Your card, Fay"))
    page.get_by_role("button", name="Your card, Fay: 4", exact=True).click()
    entered = page.locator(".al-reveal .status")
    expect(entered).to_contain_text("You entered your 4")
    in_viewport(page, entered)
    expect(page.locator("#announcer")).to_contain_text("You entered your 4")


def test_the_slug_pad_of_an_eight_player_drafting_table_is_on_the_first_screen(
    live_server, new_phone
):
    table = live_server.store.create_table("venture", EIGHT, {"drafting": True})
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    on_first_screen(page, page.get_by_role("group", name="Add a slug card"))


def test_a_shared_phone_at_an_eight_player_venture_table_has_its_pad_on_the_first_screen(
    live_server, new_phone
):
    table = venture_eight(live_server.store)
    page = new_phone(color_scheme="dark")
    page.goto(f"{live_server.url}/t/{table.token}")  # conftest: answered "a shared phone"
    expect(page.locator(".who-bar")).to_contain_text("Shared phone")
    on_first_screen(page, page.get_by_role("group", name="Ana's bid"))
    page.get_by_role("button", name="Ana's bid: 9", exact=True).click()
    expect(page.get_by_role("group", name="Ben's bid")).to_be_visible()
    expect(page.locator("#announcer")).to_have_text(
        "Pass the phone to Ben; everybody else looks away."
    )
    on_first_screen(page, page.get_by_role("group", name="Ben's bid"))


def test_the_lit_piles_of_a_six_player_table_are_on_the_first_screen(live_server, new_phone):
    table = autumn_six(live_server.store, placing=True)
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    lit = page.locator("button.al-pile-fits")
    expect(lit).to_have_count(2)
    for index in range(2):
        on_first_screen(page, lit.nth(index))
    assert page.evaluate(FEEL_CHECK) == []
    lit.first.click()
    prompt = page.get_by_test_id("prompt")
    expect(prompt).to_contain_text("Ben's turn")
    in_viewport(page, prompt)


def test_a_six_player_score_pad_fits_and_a_refused_round_keeps_the_numbers(live_server, new_phone):
    store = live_server.store
    table = store.create_table("scorepad", SIX, {"lowest_wins": False})
    store.act(table.token, 0, {"type": "AddRound", "scores": [12, -20, 7, 0, 104, 9]})
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    on_first_screen(page, page.get_by_role("button", name="Add the round"))
    # Every column of the score table shows without sideways scrolling.
    assert page.evaluate("""() => [...document.querySelectorAll('.table-scroll')].every(
        (box) => box.scrollWidth <= box.clientWidth + 1)""")
    assert page.evaluate("document.documentElement.scrollWidth") <= 391
    expect(page.locator("table.scores thead th").nth(6)).to_be_in_viewport()
    typed = ["5", "6", "7", "8", "9", "999999"]  # the last is too large: refused
    for index, points in enumerate(typed):
        page.locator(f"#score{index}").fill(points)
    page.get_by_role("button", name="Add the round").click()
    refusal = page.locator("#board .notice-error")
    expect(refusal).to_contain_text("not entered")
    in_viewport(page, refusal)
    # A refusal is a role=alert, which a screen reader reads as it appears:
    # it is not copied into #announcer as well (it would be read twice).
    expect(refusal).to_have_attribute("role", "alert")
    expect(page.locator("#announcer")).not_to_contain_text("not entered")
    for index, points in enumerate(typed):
        expect(page.locator(f"#score{index}")).to_have_value(points)
    assert store.version(table.token) == 1


def test_a_twelve_player_score_pad_shows_every_column_without_sideways_scrolling(
    live_server, new_phone
):
    twelve = [*EIGHT, "Ivy", "Jo", "Kai", "Lou"]
    store = live_server.store
    table = store.create_table("scorepad", twelve, {"lowest_wins": True})
    store.act(
        table.token,
        0,
        {"type": "AddRound", "scores": [-120, 5, 17, 0, 104, 9, 33, 2, 8, 11, 999, 1]},
    )
    page = new_phone(color_scheme="dark")
    seat(page, f"{live_server.url}/t/{table.token}", "Lou")
    on_first_screen(page, page.get_by_role("button", name="Add the round"))
    page.locator("table.scores").scroll_into_view_if_needed()
    picture(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 391
    # The table turns (a row per player) and every figure shows whole.
    cut = page.evaluate("""() => [...document.querySelectorAll('table.scores td')].filter(
        (cell) => cell.scrollWidth > cell.clientWidth).map((cell) => cell.textContent)""")
    assert cut == []
    rows = page.locator("table.scores-by-player tbody tr")
    expect(rows).to_have_count(12)
    expect(rows.nth(11)).to_contain_text("Lou")
    expect(rows.nth(0).locator(".total")).to_have_text("-120")


def test_a_tap_made_offline_is_kept_and_entered_once_when_the_table_is_back(live_server, new_phone):
    table = venture_eight(live_server.store)
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Hal")
    before = live_server.store.version(table.token)
    page.context.set_offline(True)
    page.get_by_role("button", name="Your bid, Hal: 8", exact=True).click()
    waiting = page.locator(".tap-dock-pending")
    expect(waiting).to_contain_text("Not sent yet")
    in_viewport(page, waiting)
    expect(page.locator(".tap-dock-offline")).to_contain_text("may be out of date")
    picture(page, "-offline")
    assert live_server.store.version(table.token) == before
    page.context.set_offline(False)
    expect(page.locator(".venture-bids .status")).to_contain_text("You have bid", timeout=SETTLE)
    expect(waiting).to_have_count(0)
    expect(page.locator(".tap-dock-offline")).to_have_count(0, timeout=SETTLE)
    page.wait_for_timeout(2_500)  # a poll later: nothing is sent twice
    assert live_server.store.version(table.token) == before + 1
    assert live_server.store.snapshot(table.token).state.bid_of("Hal") == 8


def test_a_tap_whose_answer_was_lost_is_sent_again_and_said_to_be_entered_once(
    live_server, new_phone
):
    """The tap reaches the table but its answer never reaches the phone (the
    connection drops on the way back): the phone keeps it, sends it again
    with the same tap id, and is told it was already entered."""
    table = venture_eight(live_server.store)
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Hal")
    before = live_server.store.version(table.token)

    def answer_lost(route):
        route.fetch()  # the server enters the tap...
        route.abort("connectionreset")  # ...and the phone never hears back

    page.route("**/act", answer_lost, times=1)
    page.get_by_role("button", name="Your bid, Hal: 8", exact=True).click()
    expect(page.locator("#board > .notice")).to_contain_text("already", timeout=SETTLE)
    assert live_server.store.version(table.token) == before + 1


def test_cancel_drops_a_tap_that_was_not_sent(live_server, new_phone):
    table = venture_eight(live_server.store)
    page = new_phone(color_scheme="dark")
    seat(page, f"{live_server.url}/t/{table.token}", "Hal")
    before = live_server.store.version(table.token)
    page.context.set_offline(True)
    page.get_by_role("button", name="Your bid, Hal: 8", exact=True).click()
    page.locator(".tap-dock-pending").get_by_role("button", name="Cancel").click()
    expect(page.locator(".tap-dock-pending")).to_have_count(0)
    page.context.set_offline(False)
    page.wait_for_timeout(3_000)  # the next poll gets through; nothing is sent
    assert live_server.store.version(table.token) == before
    expect(page.get_by_role("group", name="Your bid, Hal")).to_be_visible()


def test_a_board_being_typed_into_says_the_table_changed(live_server, new_phone):
    store = live_server.store
    table = store.create_table("scorepad", SIX, {"lowest_wins": False})
    page = new_phone(color_scheme="dark")
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    page.locator("#score0").fill("5")
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2, 3, 4, 5, 6]})
    changed = page.locator(".tap-dock-changed")
    expect(changed).to_contain_text("The table changed", timeout=SETTLE)
    picture(page, "-changed")
    expect(page.locator("#score0")).to_have_value("5")  # nothing typed is swept away
    changed.get_by_role("button", name="Show it").click()
    expect(page.locator("table.scores tbody tr")).to_have_count(1)
    expect(changed).to_have_count(0)


ASH_SEED = (  # tests/browser/test_autumn_ash_board_browser.py's position: Rainbow (Ana) to move
    ".,.,.,.,white3/.,cyan1,.,.,yellow1/.,cyan2,.,.,./"
    "orange2,.,cyan3,red3+cyan1+red1,yellow2/.,.,.,.,./yellow3,.,.,yellow3,. rainbow 0-5 standard"
)


def test_the_ash_size_choice_and_a_refusal_land_in_view(live_server, new_phone):
    options = {"rainbow": "Ana", "mode": "board", "position": ASH_SEED}
    table = live_server.store.create_table("autumn_ash", ["Ana", "Ben"], options, "Ash board")
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    square = lambda name: page.locator(f'.ash-board [aria-label^="{name}:"]')  # noqa: E731
    # A square the piece may not enter says why, where the eye is.
    square("A1").tap()
    page.locator('.ash-sel[aria-label^="A1:"]').wait_for()
    square("A2").tap()
    refusal = page.locator("#board .notice-error")
    expect(refusal).to_contain_text("Not there")
    in_viewport(page, refusal)
    # A refusal is a role=alert, which a screen reader reads as it appears:
    # it is not copied into #announcer as well (it would be read twice).
    expect(refusal).to_have_attribute("role", "alert")
    expect(page.locator("#announcer")).not_to_contain_text("Not there")
    # A lit square: the size picker comes into view whole.
    page.goto(f"{live_server.url}/t/{table.token}")
    square("E5").tap()
    page.locator('.ash-sel[aria-label^="E5:"]').wait_for()
    square("E6").tap()
    picker = page.locator("#ash-sizes")
    expect(picker).to_be_in_viewport(ratio=1)
    expect(page.locator("#announcer")).to_contain_text("it becomes")


def test_the_north_wind_place_step_has_its_button_on_the_first_screen(live_server, new_phone):
    table = live_server.store.create_table("north_wind", ["Ana"], {"difficulty": "normal"})
    page = new_phone()
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    page.get_by_label("Animal 1").select_option("fox")
    page.get_by_label("Animal 2").select_option("owl")
    page.get_by_role("button", name="These are its animals").click()
    page.get_by_role("button", name="My turn is over: North Wind's turn").click()
    for tile in ("sassafras", "orange", "bottom-right"):
        page.locator("label.tile-choice", has_text=tile).first.click()
    page.get_by_role("button", name="That is the card").click()
    expect(page.locator(".nw-now")).to_contain_text("Take the top sassafras leaf")
    page.evaluate("window.scrollTo(0, 0)")
    on_first_screen(page, page.get_by_role("button", name="The leaf is down"))
    # The long form of the North Wind's question: its answer is in view after it.
    for colour, tips in (("red", 1), ("orange", 1), ("yellow", 2)):
        page.locator(f"#tips_{colour}").fill(str(tips))
    page.get_by_role("button", name="The leaf is down").click()
    page.get_by_role("button", name="Done: a baby mushroom placed").click()
    expect(page.locator(".nw-now")).to_contain_text("Enter the mat as it is now")
    page.get_by_label("Mat space 1").select_option("frog")
    page.get_by_label("Mat space 2").select_option("owl")
    page.get_by_label("Mat space 3").select_option("fox")
    page.get_by_role("button", name="Which animal does it take?").click()
    answer = page.locator(".nw-last")
    expect(answer).to_contain_text("the North Wind takes the")
    in_viewport(page, answer)
    expect(page.locator("#announcer")).to_contain_text("the North Wind takes the")


def test_the_pairs_pad_of_an_eight_player_table_is_on_the_first_screen(live_server, new_phone):
    store = live_server.store
    table = store.create_table("pairs", EIGHT, {})
    for player, card in zip(EIGHT, [7, 4, 9, 5, 6, 8, 10, 3], strict=True):
        store.act(
            table.token,
            store.version(table.token),
            {"type": "Deal", "player": player, "card": card},
        )
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")  # conftest: answered "a shared phone"
    expect(page.locator(".who-bar")).to_contain_text("Shared phone")
    pad = page.get_by_role("group", name=re.compile(r"hits: which card\?"))
    on_first_screen(page, pad)


# What app.js takes for a tap's answer (ANSWERS in companion/static/app.js).
ANSWER_IN_VIEW = """() => {
    for (const sel of ["#board .notice-error", "#board > .notice", "#board [data-answer]",
                       "#board .status"]) {
        const el = document.querySelector(sel);
        if (!el) continue;
        const box = el.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight ? "" : `${sel}: ${box.top}`;
    }
    return "no answer";
}"""


def answer_in_view(page) -> None:
    """The tap's answer (a refusal, a notice, the marked answer or the first
    status line) ends up wholly in the viewport (a smooth scroll may take a moment)."""
    where = "not looked yet"
    for _ in range(SETTLE // 250):
        where = page.evaluate(ANSWER_IN_VIEW)
        if where == "":
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"the answer is out of view: {where}")


@pytest.mark.parametrize("size", PHONE_SIZES)
def test_a_tap_on_the_pairs_pad_of_an_eight_player_table_answers_in_view(
    live_server, new_phone, size
):
    store = live_server.store
    table = store.create_table("pairs", EIGHT, {})
    for player, card in zip(EIGHT, [7, 4, 9, 5, 6, 8, 10, 3], strict=True):
        deal = {"type": "Deal", "player": player, "card": card}
        store.act(table.token, store.version(table.token), deal)
    before = store.version(table.token)
    page = new_phone()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{live_server.url}/t/{table.token}")  # conftest: answered "a shared phone"
    pad = page.get_by_role("group", name=re.compile(r"hits: which card\?"))
    on_first_screen(page, pad)
    pad.get_by_role("button").nth(1).click()  # a 2
    expect(page.locator("#board")).not_to_have_attribute("data-version", str(before))
    answer_in_view(page)
    expect(page.locator("#announcer")).not_to_be_empty()


@pytest.mark.parametrize("size", PHONE_SIZES)
def test_the_ash_size_choice_is_on_the_first_screen_and_the_move_answers_in_view(
    live_server, new_phone, size
):
    options = {"rainbow": "Ana", "mode": "board", "position": ASH_SEED}
    store = live_server.store
    table = store.create_table("autumn_ash", ["Ana", "Ben"], options, "Ash board")
    page = new_phone(color_scheme="dark")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    square = lambda name: page.locator(f'.ash-board [aria-label^="{name}:"]')  # noqa: E731
    on_first_screen(page, square("E5"))
    square("E5").tap()
    page.locator('.ash-sel[aria-label^="E5:"]').wait_for()
    square("E6").tap()
    sizes = page.locator("#ash-sizes button:enabled")
    expect(sizes.first).to_be_in_viewport(ratio=1)
    sizes.first.tap()
    last = page.locator("#ash-last")
    expect(last).to_contain_text("Last: Ana")
    answer_in_view(page)
    assert store.version(table.token) == 1


@pytest.mark.parametrize("size", PHONE_SIZES)
def test_a_solitaire_move_is_made_on_the_first_screen_and_answers_in_view(
    live_server, new_phone, size
):
    from tests.browser.test_solitaire_browser import prepare

    table, moves, _ = prepare(live_server.store)
    page = new_phone()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{live_server.url}/t/{table.token}")
    move = moves[0]
    card = page.locator(f'label.sol-card[data-pick="{move["source"]}:{move["count"]}"]')
    target = page.get_by_role("button", name=f"Move to pile {move['target'] + 1}")
    on_first_screen(page, card)
    on_first_screen(page, target)
    # A pile the card may not go to: the refusal is in view.
    wrong = next(
        i for i in range(page.locator(".sol-pile").count())
        if i not in (move["source"], move["target"])
    )  # fmt: skip
    card.tap(position={"x": 20, "y": 12})
    page.get_by_role("button", name=f"Move to pile {wrong + 1}").tap()
    expect(page.locator("#board .notice-error")).to_be_visible()
    answer_in_view(page)
    card.tap(position={"x": 20, "y": 12})
    target.tap()
    moved = page.locator(f'.sol-pile[data-pile="{move["target"]}"] .sol-card').last
    expect(page.locator("#board .notice-error")).to_have_count(0)
    expect(moved).to_be_in_viewport()


@pytest.mark.parametrize("size", PHONE_SIZES)
def test_a_round_added_on_a_six_player_score_pad_answers_in_view(live_server, new_phone, size):
    store = live_server.store
    table = store.create_table("scorepad", SIX, {"lowest_wins": False})
    page = new_phone()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    seat(page, f"{live_server.url}/t/{table.token}", "Ana")
    for index in range(6):
        page.locator(f"#score{index}").fill(str(index + 3))
    page.get_by_role("button", name="Add the round").click()
    expect(page.locator("table.scores tbody tr")).to_have_count(1)
    answer_in_view(page)
    expect(page.locator("#announcer")).to_contain_text("Fay is ahead")
