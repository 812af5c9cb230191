"""The North Wind's long forms on a phone (issue 20), headless Chromium at 390x844.

Every step of a North Wind turn, at the hard difficulty (the most starting
animals) and with a four-way tie at the Frost (the most buttons), has every
button a player came to tap wholly on the first screen without scrolling;
after a tap its answer or refusal is in the viewport.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREEN = 844  # px: the phone's viewport height
EMPTY_MAT = [None, None, None, None, None]


def buttons_on_first_screen(page, step: str) -> None:
    """Every button and field of the step (the North Wind's panel) lies
    wholly within the first screen of the unscrolled page."""
    page.evaluate("window.scrollTo(0, 0)")
    controls = page.locator(".nw-now :is(form :is(button, select), button[form]):visible")
    expect(controls.first).to_be_visible()
    assert page.evaluate("window.scrollY") == 0
    boxes = [controls.nth(i).bounding_box() for i in range(controls.count())]
    below = [
        (controls.nth(i).inner_text()[:30], box)
        for i, box in enumerate(boxes)
        if box is None or box["y"] < 0 or box["y"] + box["height"] > SCREEN
    ]
    assert below == [], f"{step}: {below}"


@pytest.fixture
def turn(live_server, new_phone):
    """A hard North Wind table and a phone; ``turn.step(action)`` enters an
    action at the table and reopens the page."""
    store = live_server.store
    table = store.create_table("north_wind", ["Ana"], {"difficulty": "hard"})
    page = new_phone()
    url = f"{live_server.url}/t/{table.token}"

    class Turn:
        def __init__(self) -> None:
            self.page = page
            self.url = url

        def step(self, action: dict) -> None:
            store.act(table.token, store.version(table.token), action)
            page.goto(url)

    page.goto(url)
    return Turn()


def test_every_step_of_a_north_wind_turn_has_its_buttons_on_the_first_screen(turn):
    page = turn.page
    now = page.locator(".nw-now")
    buttons_on_first_screen(page, "setup: three starting animals")
    turn.step({"type": "SetupAnimals", "animals": ["fox", "owl", "frog"]})
    buttons_on_first_screen(page, "the human's turn")
    turn.step({"type": "EndHumanTurn"})
    expect(now).to_contain_text("draw its card")
    buttons_on_first_screen(page, "the draw (and the Reshuffle)")
    turn.step({"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"})
    buttons_on_first_screen(page, "the place step")
    turn.step({"type": "Place", "tips": {"red": 1, "orange": 1, "brown": 1}})
    expect(now).to_contain_text("Action: red")
    buttons_on_first_screen(page, "a red action")
    turn.step({"type": "Red", "outcome": "baby"})
    expect(now).to_contain_text("Enter the mat as it is now")
    buttons_on_first_screen(page, "the orange action's mat")
    turn.step({"type": "Orange", "mat": EMPTY_MAT, "drawn": ["raven", False]})
    expect(now).to_contain_text("squirrel")
    buttons_on_first_screen(page, "the brown action")
    turn.step({"type": "Brown", "move": "up", "fork": False, "acorns": 0, "sun": 1,
               "leaf_cards": 0, "animals": 0})  # fmt: skip
    expect(now).to_contain_text("the season")
    buttons_on_first_screen(page, "the season pad")
    turn.step({"type": "Season", "acorns": 1, "crossed": "frost"})
    expect(now).to_contain_text("Its largest groups tie (fox, frog, owl, raven, 1 each)")
    buttons_on_first_screen(page, "a four-way tie at the Frost")
    turn.step({"type": "Hibernate", "animal": "fox", "mat": EMPTY_MAT})
    for _ in range(2):  # two yellow turns bring 3 sun: the season, over the Winter line
        turn.step({"type": "EndHumanTurn"})
        turn.step({"type": "Draw", "leaf": "ginkgo", "colour": "yellow", "arrow": "bottom-right"})
        turn.step({"type": "Place", "tips": {"yellow": 2}})
        buttons_on_first_screen(page, "a yellow action")
        turn.step({"type": "Done"})
        turn.step({"type": "Done"})
    turn.step({"type": "Season", "acorns": 1, "crossed": "winter"})
    expect(now).to_contain_text("The last Frost")
    buttons_on_first_screen(page, "the last Frost's three-way tie")
    turn.step({"type": "Hibernate", "animal": "frog", "mat": []})
    expect(now).to_contain_text("Final scoring")
    # The longest form: its button rides at the foot of the screen...
    buttons_on_first_screen(page, "the final scoring")
    score = page.get_by_role("button", name="Score the game")
    page.locator("#h_groups").fill("3 x")  # not a group size
    expect(score).to_be_in_viewport(ratio=1)  # ...while the fields scroll under it
    score.click()
    refusal = page.locator("#board .notice-error")
    expect(refusal).to_contain_text("not entered")
    expect(refusal).to_be_in_viewport(ratio=0.9)
    # A refusal is a role=alert, which a screen reader reads as it appears:
    # it is not copied into #announcer as well (it would be read twice).
    expect(refusal).to_have_attribute("role", "alert")
    expect(page.locator("#announcer")).not_to_contain_text("not entered")


def test_the_orange_actions_answers_land_in_view_with_the_deck_question_on_the_first_screen(
    turn,
):
    page = turn.page
    turn.step({"type": "SetupAnimals", "animals": ["fox", "owl", "frog"]})
    turn.step({"type": "EndHumanTurn"})
    turn.step({"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"})
    turn.step({"type": "Place", "tips": {"orange": 1, "yellow": 2}})
    expect(page.locator(".nw-now")).to_contain_text("Enter the mat as it is now")
    expect(page.locator("#drawn")).to_have_count(0)  # asked only when the deck is needed
    # Nothing on the mat is wanted: the app asks for the deck's animal (a
    # normal step, not an error), in view, with the field and the button.
    page.get_by_label("Mat space 1").select_option("turtle")
    page.get_by_role("button", name="Which animal does it take?").click()
    asked = page.locator("#board > .notice")
    expect(asked).to_contain_text("draw it and enter it below")
    expect(page.locator("#board .notice-error")).to_have_count(0)
    expect(asked).to_be_in_viewport(ratio=0.9)
    buttons_on_first_screen(page, "the deck question")
    expect(page.get_by_label("Mat space 1")).to_have_value("turtle")  # nothing typed is lost
    page.get_by_label("Animal drawn from the deck").select_option("owl")
    page.get_by_role("button", name="Which animal does it take?").click()
    answer = page.locator(".nw-last")
    expect(answer).to_contain_text("the North Wind takes the owl")
    expect(answer).to_be_in_viewport(ratio=0.9)
    expect(page.locator("#announcer")).to_contain_text("the North Wind takes the owl")
