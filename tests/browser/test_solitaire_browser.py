"""The solitaire in a real phone-sized Chromium (390x844): win a prepared,
nearly won deal by tapping cards and piles."""

from __future__ import annotations

import os

import pytest

from companion.rules import actions, solitaire
from companion.rules.solitaire_solver import solve
from tests.conftest import assert_thumb_sized, in_each_scheme

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("LEAFPILE_SCREENSHOTS")  # a folder to save screenshots in, if set
DEAL = 20
LAST_MOVES = 3  # left for the thumb


def prepare(store):
    """A deal 20 table with all but the last few moves of a winning line played."""
    # The complete searches' line (no beams), whose last moves these tests were
    # written for: the beams' line ends on a pile of 14 cards, reaching below
    # a phone's first screen (noted for the next work).
    found = solve(solitaire.new_game(DEAL), budget=10, max_nodes=20_000, beams=())
    assert found.result == "won"
    line = [actions.to_dict(m) for m in found.moves]
    assert all(m["type"] == "Move" for m in line[-LAST_MOVES:])
    table = store.create_table("solitaire", ["Solo"], {"deal": DEAL}, "Solitaire #20")
    for version, move in enumerate(line[:-LAST_MOVES]):
        store.act(table.token, version, move)
    return table, line[-LAST_MOVES:], len(line)


def wait_for_version(page, version: int) -> None:
    page.locator(f'#board[data-version="{version}"]').wait_for()


def test_a_nearly_won_deal_is_won_by_tapping(live_server, new_phone):
    table, moves, total = prepare(live_server.store)
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    version = total - LAST_MOVES

    # Every control is big enough for a thumb, and nothing sticks out sideways.
    for scheme in in_each_scheme(page):  # then played in the dark
        assert_thumb_sized(page, "#board button:visible, #board label.sol-card:visible")
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, f"solitaire-{scheme}.png"), full_page=True)

    for i, move in enumerate(moves):
        card = page.locator(f'label.sol-card[data-pick="{move["source"]}:{move["count"]}"]')
        card.tap(position={"x": 20, "y": 12})  # the strip of the card that shows
        assert card.locator("input").is_checked()
        if i == 0:
            # The numbered button above a pile works without any script...
            page.get_by_role("button", name=f"Move to pile {move['target'] + 1}").tap()
        else:
            # ...and with the script a tap anywhere on the pile does too.
            page.locator(f'.sol-pile[data-pile="{move["target"]}"] .sol-stack').tap(
                position={"x": 20, "y": 20}
            )
        version += 1
        wait_for_version(page, version)

    page.locator(".end-headline").get_by_text(f"Deal #{DEAL} is solved in").wait_for()
    assert page.get_by_text("You won deal").count() == 0  # the win is said once
    assert page.locator("#sol-layout").count() == 0  # nothing left to move
    assert live_server.store.snapshot(table.token).state.won


def test_undo_and_hint_on_a_phone(live_server, new_phone):
    table, moves, total = prepare(live_server.store)
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    page.get_by_role("link", name="Hint").tap()
    page.get_by_text("Hint: Move the").wait_for()
    # The hinted card is already picked: one tap on the target pile plays it.
    move = moves[0]
    picked = page.locator("input[name=pick]:checked")
    assert picked.get_attribute("value") == f"{move['source']}:{move['count']}"
    page.get_by_role("button", name=f"Move to pile {move['target'] + 1}").tap()
    wait_for_version(page, total - LAST_MOVES + 1)
    page.get_by_role("button", name="↶ Undo").tap()
    wait_for_version(page, total - LAST_MOVES + 2)
    state = live_server.store.snapshot(table.token).state
    assert len(live_server.store.snapshot(table.token).actions) == total - LAST_MOVES
    assert not state.won


def test_after_a_hint_tapping_the_hinted_card_keeps_it_and_one_tap_on_the_pile_moves(
    live_server, new_phone
):
    """The phone flow of issue 15: Hint picks the card; a thumb that taps the
    card anyway (as people do) must not put it down again; one tap on the
    marked pile then plays the move."""
    table, _, total = prepare(live_server.store)
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    page.get_by_role("link", name="Hint").tap()
    page.get_by_text("Hint: Move the").wait_for()
    page.get_by_text("with every card known").first.wait_for()
    pick = page.locator("input[name=pick]:checked").get_attribute("value")
    target = page.locator(".sol-pile.sol-hint-target").get_attribute("data-pile")
    for scheme in in_each_scheme(page):
        if SHOTS:
            page.screenshot(
                path=os.path.join(SHOTS, f"solitaire-hint-{scheme}.png"), full_page=True
            )

    card = page.locator(f'label.sol-card[data-pick="{pick}"]')
    card.tap(position={"x": 20, "y": 12})
    assert card.locator("input").is_checked()  # still picked, not put down
    page.locator(f'.sol-pile[data-pile="{target}"] .sol-stack').tap(position={"x": 20, "y": 20})
    wait_for_version(page, total - LAST_MOVES + 1)
    source, count = (int(n) for n in pick.split(":"))
    played = live_server.store.snapshot(table.token).actions[-1]
    assert played == {"type": "Move", "source": source, "target": int(target), "count": count}


def test_a_second_tap_on_a_card_picked_by_hand_still_puts_it_down(live_server, new_phone):
    table, moves, _ = prepare(live_server.store)
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    card = page.locator(f'label.sol-card[data-pick="{moves[0]["source"]}:{moves[0]["count"]}"]')
    card.tap(position={"x": 20, "y": 12})
    assert card.locator("input").is_checked()
    card.tap(position={"x": 20, "y": 12})
    assert not card.locator("input").is_checked()


def test_the_statistics_page_fits_a_phone_and_says_most_deals_can_be_won(live_server, new_phone):
    prepare(live_server.store)  # one deal played, so the figures are not all 0
    page = new_phone()
    page.goto(f"{live_server.url}/solitaire")
    odds = page.locator("#sol-odds")
    for scheme in in_each_scheme(page):
        assert odds.is_visible() and odds.inner_text().startswith("Most deals can be won.")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        if SHOTS:
            page.screenshot(
                path=os.path.join(SHOTS, f"solitaire-stats-{scheme}.png"), full_page=True
            )


def test_cards_can_be_dragged_onto_a_pile_on_a_desktop(live_server, browser):
    table, moves, total = prepare(live_server.store)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/t/{table.token}")
        move = moves[0]
        card = page.locator(f'label.sol-card[data-pick="{move["source"]}:{move["count"]}"]')
        target = page.locator(f'.sol-pile[data-pile="{move["target"]}"]')
        card.drag_to(target, source_position={"x": 20, "y": 12})
        page.locator(f'#board[data-version="{total - LAST_MOVES + 1}"]').wait_for()
        actions_now = live_server.store.snapshot(table.token).actions
        assert actions_now[-1] == move
    finally:
        context.close()


def test_deal_hint_and_winnable_share_one_row_on_a_phone(live_server, new_phone):
    """The three tools take one row of a 390 px phone (they took two), so a
    long pile keeps some 50 px more of itself above the fold; each is still
    a thumb's target."""
    table = live_server.store.create_table("solitaire", ["Solo"], {"deal": DEAL}, "Solitaire #20")
    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    tools = [
        page.get_by_role("button", name="Deal (5 left)"),
        page.get_by_role("link", name="Hint"),
        page.get_by_role("link", name="Winnable?"),
    ]
    boxes = [tool.bounding_box() for tool in tools]
    assert all(box is not None and box["height"] >= 44 and box["width"] >= 44 for box in boxes)
    assert len({round(box["y"]) for box in boxes}) == 1, boxes  # one row
    assert max(box["x"] + box["width"] for box in boxes) <= 390


def state_at(deal: int, moves) -> solitaire.State:
    return solitaire.replay(solitaire.new_game(deal), moves)


def test_late_in_a_deal_the_longest_pile_keeps_its_top_on_the_first_screen(live_server, new_phone):
    """Deal 7 along the solver's winning line, at its longest pile (23 cards
    when this was written, 25 since s25's solver): the status takes one line, the how-to has gone
    below the piles, cards that no pile would take now show less of
    themselves, and a long pile less again, so the top card of every pile
    shows a thumb's 44 px above the fold of a 390x844 phone. (Before, a
    pile of 23 reached some 300 px below it.)"""
    deal = 7
    found = solve(solitaire.new_game(deal), budget=60, max_nodes=50_000)
    assert found.result == "won"
    state, longest, at = solitaire.new_game(deal), 0, 0
    for i, move in enumerate(found.moves):
        state = solitaire.apply(state, move)
        if max(len(p) for p in state.piles) > longest:
            longest, at = max(len(p) for p in state.piles), i + 1
    assert longest >= 20, "the test needs a long pile: pick another deal"
    table = live_server.store.create_table("solitaire", ["Solo"], {"deal": deal}, "Solitaire #7")
    for version, move in enumerate(found.moves[:at]):
        live_server.store.act(table.token, version, actions.to_dict(move))

    page = new_phone()
    page.goto(f"{live_server.url}/t/{table.token}")
    wait_for_version(page, at)
    status = page.locator(".sol-status").bounding_box()
    assert status is not None and status["height"] < 40  # one line
    how = page.locator(".sol-how").bounding_box()
    piles = page.locator(".sol-piles").bounding_box()
    assert how is not None and piles is not None and how["y"] > piles["y"]
    for pile, cards in enumerate(state_at(deal, found.moves[:at]).piles):
        if not cards:  # a space: nothing to show
            continue
        top = page.locator(f'.sol-pile[data-pile="{pile}"] .sol-card').last.bounding_box()
        assert top is not None and top["y"] + 44 <= 844, (pile, top)
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "solitaire-long-pile.png"))
