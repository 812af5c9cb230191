"""A phone (headless Chromium, 390x844) plays three North Wind turns and the scoring.

Turn 1 has an orange action, a season advance and a Frost; turn 3 follows the
third empty leaf pile into the last Frost; then the final score.
"""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def click_and_wait(page, button):
    """Click a button that posts an action, and wait for the board's new version."""
    before = page.locator("#board").get_attribute("data-version")
    button.click()
    expect(page.locator("#board")).not_to_have_attribute("data-version", before)


def done(page):
    click_and_wait(page, page.get_by_role("button", name="Done", exact=True))


def tap_tile(page, text):
    page.locator("label.tile-choice", has_text=text).first.click()


def draw(page, leaf, colour, arrow):
    tap_tile(page, leaf)
    tap_tile(page, colour)
    tap_tile(page, arrow)
    click_and_wait(page, page.get_by_role("button", name="That is the card"))


def place(page, **tips):
    for colour, n in tips.items():
        page.locator(f"#tips_{colour}").fill(str(n))
    click_and_wait(page, page.get_by_role("button", name="The leaf is down"))


def test_three_north_wind_turns_with_orange_season_and_frost_then_final_score(
    live_server, new_phone
):
    table = live_server.store.create_table("north_wind", ["Ana"], {"difficulty": "normal"})
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    now = page.locator(".nw-now")

    # N1: the starting animals
    page.get_by_label("Animal 1").select_option("fox")
    page.get_by_label("Animal 2").select_option("owl")
    page.get_by_role("button", name="These are its animals").click()

    # --- North Wind turn 1: red, orange, 2 yellow → season → Frost
    click_and_wait(page, page.get_by_role("button", name="My turn is over: North Wind's turn"))
    draw(page, "sassafras", "orange", "bottom-right")
    expect(now).to_contain_text("Take the top sassafras leaf")
    place(page, red=1, orange=1, yellow=2)
    expect(now).to_contain_text("Put a North Wind baby mushroom on the leaf it just placed")
    page.get_by_role("button", name="Done: a baby mushroom placed").click()

    expect(now).to_contain_text("Enter the mat as it is now")
    page.get_by_label("Mat space 1").select_option("frog")
    page.get_by_label("Mat space 2").select_option("owl")
    page.get_by_label("Space 2 has an acorn icon").check()
    page.get_by_label("Mat space 3").select_option("fox")
    page.get_by_label("Mat space 5").select_option("raven")
    page.get_by_role("button", name="Which animal does it take?").click()
    # N8: the owl meets both requirements
    expect(page.locator(".nw-last")).to_have_text(
        "Orange: the North Wind takes the owl from space 2 of the mat and 1 acorn for its "
        "acorn icon."
    )

    expect(now).to_contain_text("Give the North Wind 1 sun.")
    done(page)
    done(page)

    # N11: 3 sun → season; it crosses a Frost line
    expect(now).to_contain_text("The North Wind has 3 sun: take 3 and move the season marker")
    page.select_option("#season-crossed", label="Crossed a Frost line")
    page.get_by_role("button", name="2 acorns").click()
    # N12: its largest group is the 2 owls
    expect(now).to_contain_text("Move the North Wind's 2 owls to its Winter Den.")
    done(page)
    expect(now).to_contain_text("Ana's turn")

    # --- North Wind turn 2: a Reshuffle, then a boosted green leaf
    click_and_wait(page, page.get_by_role("button", name="My turn is over: North Wind's turn"))
    page.get_by_role("button", name="It is the Reshuffle card").click()
    expect(now).to_contain_text("13 of 13 cards left")
    draw(page, "ginkgo", "green", "top-left")
    place(page, green=2)
    expect(page.locator(".nw-notes")).to_contain_text("Leaf boost")
    done(page)
    done(page)
    expect(now).to_contain_text("Ana's turn")

    # --- Three piles run out: Winter; North Wind turn 3, then the last Frost
    for shape in ("sweetgum", "tulip poplar", "silver maple"):
        page.locator("#nw-piles").evaluate("details => { details.open = true; }")
        # Each tap is entered and its board drawn before the next: a tap on a
        # board being swapped could be lost on a busy machine.
        click_and_wait(page, page.locator("#nw-piles").get_by_role("button", name=shape))
    expect(page.locator(".nw-facts")).to_contain_text("Winter")
    click_and_wait(page, page.get_by_role("button", name="My turn is over: North Wind's turn"))
    draw(page, "sweetgum", "yellow", "top-left")
    expect(now).to_contain_text("draw again")
    draw(page, "trident maple", "yellow", "top-left")
    place(page, yellow=2, green=1, brown=1)
    expect(now).to_contain_text("Move the North Wind's squirrel up 1 space")
    # Waited for like every tap before a Done: a Done that reads the board's
    # version before this tap's answer has landed waits for the wrong answer,
    # and the next Done then goes to a step the test did not mean.
    click_and_wait(page, page.get_by_role("button", name="The squirrel has moved"))
    for _ in range(3):
        done(page)
    expect(now).to_contain_text("The last Frost")
    expect(now).to_contain_text("Move the North Wind's 1 fox to its Winter Den.")
    done(page)

    # --- N13: final scoring
    expect(now).to_contain_text("Final scoring")
    page.locator("#h_den_raven").fill("3")
    page.locator("#h_groups").fill("3 2")
    page.locator("#h_tree").fill("4")
    page.locator("#h_sun").fill("1")
    page.locator("#h_leaf_cards").fill("2")
    page.locator("#h_acorns").fill("14")
    page.get_by_role("button", name="Score the game").click()

    # You: 14 tokens + 3 ravens 6 + mushrooms 8 + 3 + (1 sun + 2 cards) // 2 + tree 6 = 38.
    # North Wind: 6 acorn tokens (owl icon, season 2, 3 green) + den 2 owls 3 + 1 fox 1
    # + 2 sun // 2 + tree 3 (second) = 14.
    expect(page.locator(".end-headline")).to_contain_text(
        "beat the North Wind by 24 acorns, 38 to 14."
    )
    expect(page.locator("table.leaf-breakdown tfoot td").first).to_have_text("38")
    expect(page.get_by_role("heading", name="Achievements")).to_be_visible()
