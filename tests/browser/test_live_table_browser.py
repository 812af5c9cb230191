"""Simultaneous play in real browsers (issue 10): one Chromium context per phone.

Every phone loads the table, takes its seat, and then all of them tap their
card in the same instant, each from the version it had loaded. Every tap
must be entered: the secret bids and reveals do not depend on each other.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTLE = 10_000  # ms: generous, so a busy CI machine never fails a correct app


def seat_phones(live_server, new_phone, table, players):
    url = f"{live_server.url}/t/{table.token}"
    phones = {}
    for index, name in enumerate(players):
        page = new_phone(color_scheme="dark" if index % 2 else "light", shared=False)
        page.goto(url)
        expect(page.get_by_role("heading", name="Who are you?")).to_be_visible()
        page.get_by_role("button", name=name, exact=True).click()
        expect(page.locator(".who-bar summary")).to_contain_text(f"You are {name}")
        phones[name] = page
    return phones


def tap_together(phones, action, cards):
    """Click every phone's card without waiting for any answer: the posts
    leave within milliseconds of each other, all carrying the old version."""
    # Every version is read before any tap: with streams on, a phone that has
    # not tapped yet may already show the first taps a few ms later.
    versions = {page.locator("#board").get_attribute("data-version") for page in phones.values()}
    for name, page in phones.items():
        page.evaluate(
            """([action, card]) => {
                const form = document.querySelector(
                    `form.pad-form input[name=action][value="${action}"]`).form;
                form.querySelector(`button[name=card][value="${card}"]`).click();
            }""",
            [action, str(cards[name])],
        )
    assert len(versions) == 1, "every phone was showing the same version when it tapped"


def test_five_phones_bid_venture_in_the_same_instant_and_all_are_entered(live_server, new_phone):
    players = ["Ana", "Ben", "Cy", "Di", "Ed"]
    table = live_server.store.create_table("venture", players, {}, seed=1)
    live_server.store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6, 8, 9]})
    phones = seat_phones(live_server, new_phone, table, players)
    bids = {"Ana": 3, "Ben": 7, "Cy": 2, "Di": 10, "Ed": 9}
    tap_together(phones, "bid", bids)
    for page in phones.values():
        expect(page.locator(".venture-round")).to_have_text("Round 2 of 10", timeout=SETTLE)
        expect(page.locator(".notice-error")).to_have_count(0)
    state = live_server.store.snapshot(table.token).state
    assert dict(state.rounds[0].bids) == bids


def test_four_phones_reveal_autumn_leaves_in_the_same_instant(live_server, new_phone):
    players = ["Ana", "Ben", "Cy", "Di"]
    table = live_server.store.create_table("autumn_leaves", players, {}, seed=3)
    phones = seat_phones(live_server, new_phone, table, players)
    cards = {"Ana": 9, "Ben": 4, "Cy": 6, "Di": 2}
    tap_together(phones, "reveal", cards)
    for page in phones.values():
        expect(page.locator(".al-where")).to_contain_text("round 2", timeout=SETTLE)
        expect(page.locator(".notice-error")).to_have_count(0)
    state = live_server.store.snapshot(table.token).state
    assert [pile[-1] for pile in state.piles] == [9, 4, 6, 2]


def test_a_phone_that_taps_a_held_seat_is_asked_and_the_takeover_is_announced(
    live_server, new_phone
):
    players = ["Ana", "Ben", "Cy"]
    table = live_server.store.create_table("venture", players, {}, seed=1)
    live_server.store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    phones = seat_phones(live_server, new_phone, table, ["Ana", "Ben"])
    phones["Ana"].get_by_role("button", name="Your bid, Ana: 7").click()
    expect(phones["Ana"].locator(".venture-mine")).to_be_visible()
    newcomer = new_phone(shared=False)
    newcomer.goto(f"{live_server.url}/t/{table.token}")
    newcomer.get_by_role("button", name="Ana", exact=False).first.click()
    expect(newcomer.locator(".seat-confirm")).to_contain_text("Ana's seat is on another phone")
    newcomer.get_by_role("button", name="Take Ana's seat").click()
    expect(newcomer.get_by_role("group", name="Your bid, Ana")).to_be_visible()
    expect(phones["Ben"].locator(".recent")).to_contain_text(
        "Ana's seat moved to another phone", timeout=SETTLE
    )
    assert live_server.store.snapshot(table.token).state.bid_of("Ana") is None


def test_a_strangers_browser_finds_no_table_on_the_start_page(live_server, new_phone):
    host = new_phone()
    host.goto(f"{live_server.url}/new/scorepad")
    host.locator("input[name=player1]").fill("Ana")
    host.locator("input[name=player2]").fill("Ben")
    host.locator("input[name=title]").fill("Secret Friday")
    host.get_by_role("button", name="Start the table").click()
    expect(host).to_have_url(re.compile(r"/t/[\w-]+$"))
    token = host.url.rsplit("/", 1)[1]
    host.goto(f"{live_server.url}/")
    expect(host.get_by_text("Secret Friday")).to_be_visible()
    stranger = new_phone(color_scheme="dark")
    stranger.goto(f"{live_server.url}/")
    expect(stranger.get_by_text("No tables yet")).to_be_visible()
    assert token not in stranger.content() and "Secret Friday" not in stranger.content()


def test_a_board_that_arrives_by_fetch_carries_no_token_and_its_forms_still_post(
    live_server, new_phone
):
    """A fetched board is the same bytes for every phone that sees it, so it
    carries no CSRF token (board_fetch.py): htmx sends the page's as a header,
    and app.js fills the empty fields, so a form sent without htmx is entered too."""
    store = live_server.store
    table = store.create_table("scorepad", ["Ana", "Ben"], {"wins": "highest"})
    phones = seat_phones(live_server, new_phone, table, ["Ana", "Ben"])
    version = store.version(table.token)
    store.act(table.token, version, {"type": "AddRound", "scores": [3, 4]})
    ben = phones["Ben"]
    expect(ben.locator("#board")).to_have_attribute(
        "data-version", str(version + 1), timeout=SETTLE
    )
    # app.js fills the fields once the swap settles, a moment after the
    # version changes: wait for that (a phone that never fills them fails).
    ben.wait_for_function(
        """() => [...document.querySelectorAll('#board input[name="csrf_token"]')]
                  .every((field) => field.value)""",
        timeout=SETTLE,
    )
    fields = ben.evaluate(
        """() => [JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRF-Token"],
                  [...document.querySelectorAll('#board input[name="csrf_token"]')]
                      .map((field) => field.value)]"""
    )
    page_token, values = fields
    assert page_token and values and set(values) == {page_token}
    # Sent without htmx: a plain form post, as a phone whose script stalled would.
    with ben.expect_navigation():
        ben.evaluate(
            """() => {
                const form = document.querySelector(
                    '#board form input[name=action][value="add-round"]').form;
                form.querySelector('[name=score0]').value = "5";
                form.querySelector('[name=score1]').value = "6";
                form.submit();
            }"""
        )
    assert store.version(table.token) == version + 2
    assert store.snapshot(table.token).actions[-1]["scores"] == [5, 6]


def test_a_tap_sent_before_htmx_took_the_fresh_form_is_entered(live_server, new_phone):
    """A board swapped in carries no token in its fields (htmx sends the
    page's as a header); a tap landing before htmx has taken the new form is
    sent by the browser itself. It was refused as a stale page (403) and lost
    when five phones bid at once; app.js now gives the form the page's token."""
    players = ["Ana", "Ben", "Cy"]
    table = live_server.store.create_table("venture", players, {}, seed=1)
    live_server.store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    page = seat_phones(live_server, new_phone, table, ["Ana"])["Ana"]
    before = live_server.store.version(table.token)
    page.evaluate(
        """() => {
            const form = document.querySelector(
                'form.pad-form input[name=action][value="bid"]').form;
            const bare = form.cloneNode(true);  // a form htmx has not taken
            bare.removeAttribute("hx-post");
            bare.querySelector('input[name="csrf_token"]').value = "";  // as in a fragment
            form.after(bare);
            bare.requestSubmit(bare.querySelector('button[name=card][value="7"]'));
        }"""
    )
    expect(page.locator(".notice-error")).to_have_count(0, timeout=SETTLE)
    page.wait_for_load_state()
    assert live_server.store.version(table.token) == before + 1
    assert live_server.store.snapshot(table.token).state.bid_of("Ana") == 7
