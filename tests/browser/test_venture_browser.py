"""A whole 3-player Venture game on two real phones (headless Chromium, 390x844).

Ana holds her own phone; a second phone is shared by Ben and Cy. Each change
made on one phone must show on the other within 3 seconds (live refresh).
"""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from companion.rules import venture
from companion.rules.cards import PAIRS_DECK
from tests.conftest import reload_at_version, take_seat

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LIVE = 3_000  # ms: the other phone must show a change this fast
PLAYERS = ("Ana", "Ben", "Cy")


def deal(seed: int) -> tuple[list[int], dict[str, list[int]]]:
    rng = random.Random(seed)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    size, hand = venture.slug_size(3), venture.hand_size(3)
    hands = {p: deck[size + i * hand : size + (i + 1) * hand] for i, p in enumerate(PLAYERS)}
    return deck[:size], hands


def bidder_row(page, name):
    name_cell = page.locator(".venture-name", has_text=re.compile(f"^{name}$"))
    return page.locator(".venture-bidders li").filter(has=name_cell)


def test_two_phones_play_a_whole_three_player_game(live_server, new_phone):
    slug, hands = deal(seed=7)
    expected = venture.apply(venture.new_game(PLAYERS), venture.EnterSlug(tuple(slug)))
    table = live_server.store.create_table("venture", list(PLAYERS), {"drafting": False})
    url = f"{live_server.url}/t/{table.token}"
    ana, shared = new_phone(shared=False), new_phone(color_scheme="dark")
    ana.goto(url)
    shared.goto(url)

    # Ana's phone takes her seat; the other phone is passed around the table.
    ana.get_by_role("button", name="Ana", exact=True).click()
    expect(ana.locator(".who-bar summary")).to_contain_text("You are Ana")

    # The shared phone turns up the slug on the pad, one tap per card.
    for tapped, card in enumerate(slug, start=1):
        shared.get_by_role("button", name=f"Slug card {card}", exact=True).click()
        expect(shared.locator(".venture-chosen .card:not(.venture-slot)")).to_have_count(tapped)
    shared.get_by_role("button", name=re.compile(r"^Turn up the slug: ")).click()
    expect(shared.locator(".venture-round")).to_have_text("Round 1 of 17")
    expect(ana.locator(".venture-round")).to_have_text("Round 1 of 17", timeout=LIVE)

    # Tap targets are thumb-sized.
    key = ana.get_by_role("button", name="Your bid, Ana: 5", exact=True)
    box = key.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44

    rounds = venture.hand_size(3)
    for turn in range(rounds):
        if 2 <= turn < rounds - 2:
            # The middle rounds only repeat on the phones what the first two
            # proved there: the store enters them, and the last two are
            # played on the phones to the game's end.
            for player in PLAYERS:
                bid = venture.Bid(player, hands[player][turn])
                live_server.store.act(table.token, live_server.store.version(table.token), bid)
                expected = venture.apply(expected, bid)
            if turn == rounds - 3:
                reload_at_version([ana, shared], live_server.store.version(table.token))
            continue
        ana.get_by_role("button", name=f"Your bid, Ana: {hands['Ana'][turn]}", exact=True).click()
        expect(ana.locator(".venture-bids .status")).to_contain_text("You have bid")
        # The shared phone sees that Ana has bid, never what.
        expect(bidder_row(shared, "Ana")).to_contain_text("has bid", timeout=LIVE)
        assert shared.locator(".venture-bids .card").count() == 0

        shared.get_by_role("button", name=f"Ben's bid: {hands['Ben'][turn]}", exact=True).click()
        expect(bidder_row(shared, "Ben")).to_contain_text("has bid")
        shared.get_by_role("button", name=f"Cy's bid: {hands['Cy'][turn]}", exact=True).click()

        for player in PLAYERS:
            expected = venture.apply(expected, venture.Bid(player, hands[player][turn]))
        heading = f"Round {turn + 2} of 17" if not expected.is_over else "Game over after 17 rounds"
        expect(shared.locator(".venture-round")).to_have_text(heading)
        expect(ana.locator(".venture-round")).to_have_text(heading, timeout=LIVE)
        if turn == 0:
            # The reveal, step by step, as the rules engine resolved it.
            steps = [s.describe() for s in expected.rounds[0].resolution.steps]
            lines = ana.locator(".venture-reveal .venture-step")
            expect(lines).to_have_count(len(steps))
            for line, step in zip(lines.all(), steps, strict=True):
                expect(line).to_contain_text(step[:1].upper() + step[1:])

    outcome = expected.outcome
    assert outcome is not None
    pool = ana.locator(".venture-pool .card")
    expect(pool).to_have_count(len(expected.pool))
    winners = " and ".join(outcome.winners)
    for phone in (ana, shared):
        expect(phone.locator(".end-headline")).to_contain_text(winners)  # said once, above
        expect(phone.locator(".notice-win")).to_have_count(1)
        rows = phone.locator(".venture-scores tbody tr")
        expect(rows).to_have_count(3)
        for row, player in zip(rows.all(), PLAYERS, strict=True):
            expect(row.locator("td").last).to_have_text(str(outcome.scores[player]))
    assert live_server.store.snapshot(table.token).state == expected


def test_a_refresh_from_another_phone_keeps_the_shared_phones_chosen_player(live_server, new_phone):
    table = live_server.store.create_table("venture", list(PLAYERS), {"drafting": False})
    live_server.store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    url = f"{live_server.url}/t/{table.token}"
    ana, shared = new_phone(), new_phone()
    ana.goto(url)
    shared.goto(url)
    take_seat(ana, "Ana")
    expect(ana.get_by_role("button", name="Your bid, Ana: 3", exact=True)).to_be_visible()

    shared.get_by_role("link", name="Cy", exact=True).click()
    expect(shared.locator(".notice-info")).to_have_text(
        "Pass the phone to Cy; everybody else looks away."
    )
    assert shared.url.endswith("?bidder=Cy")

    ana.get_by_role("button", name="Your bid, Ana: 3", exact=True).click()
    expect(bidder_row(shared, "Ana")).to_contain_text("has bid", timeout=LIVE)
    # The refresh brought Ana's bid but left Cy's pad under Cy's thumb.
    expect(shared.locator(".notice-info")).to_contain_text("Pass the phone to Cy")
    shared.get_by_role("button", name="Cy's bid: 9", exact=True).click()
    expect(shared.locator(".notice-info")).to_contain_text("Pass the phone to Ben")
    assert live_server.store.snapshot(table.token).state.bid_of("Cy") == 9


def test_tapping_slug_cards_adds_no_history_so_back_leaves_the_page(live_server, new_phone):
    table = live_server.store.create_table("venture", list(PLAYERS), {"drafting": False})
    page = new_phone()
    page.goto(f"{live_server.url}/")
    page.goto(f"{live_server.url}/t/{table.token}")
    before = page.evaluate("history.length")

    for tapped, card in enumerate((3, 5, 5), start=1):
        page.get_by_role("button", name=f"Slug card {card}", exact=True).click()
        expect(page.locator(".venture-chosen .card:not(.venture-slot)")).to_have_count(tapped)
    expect(page).to_have_url(re.compile(r"\?c=3&c=5&add=5$"))  # the slug so far stays put
    page.get_by_role("link", name="Remove the last card").click()
    expect(page.locator(".venture-chosen .card:not(.venture-slot)")).to_have_count(2)
    page.get_by_role("link", name="Start over").click()
    expect(page.locator(".venture-chosen .card:not(.venture-slot)")).to_have_count(0)
    assert page.evaluate("history.length") == before

    page.go_back()
    expect(page).to_have_url(f"{live_server.url}/")
