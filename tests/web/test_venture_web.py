"""The Venture screen through the test client: pages, fragments, secret bids, 422s."""

from __future__ import annotations

import random
import re

import pytest

from companion.rules import venture
from companion.rules.cards import PAIRS_DECK
from companion.web.games import venture as screen

THREE = ["Ana", "Ben", "Cy"]
FIVE = ["Ana", "Ben", "Cy", "Di", "Ed"]


def html(response) -> str:
    return response.get_data(as_text=True).replace("&#39;", "'").replace("&amp;", "&")


def shown_cards(text: str, css: str) -> list[int]:
    """The ranks drawn as cards inside the first element with class ``css``."""
    match = re.search(rf'class="[^"]*\b{css}\b[^"]*"[^>]*>(.*?)</(?:p|ul)>', text, re.S)
    assert match, f"no {css} on the page"
    return [int(n) for n in re.findall(r'aria-label="card (\d+)"', match.group(1))]


@pytest.fixture
def table(make_table):
    return make_table("venture", THREE, {"drafting": False})


@pytest.fixture
def slugged(table, store):
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    return table


def act(store, table, action):
    return store.act(table.token, store.version(table.token), action)


def bid(store, table, player, card):
    return act(store, table, {"type": "Bid", "player": player, "card": card})


# ---------------------------------------------------------------- pages


def test_a_new_table_asks_for_the_slug_as_a_page_and_as_a_fragment(phone, table):
    page = phone.get(f"/t/{table.token}")
    assert page.status_code == 200
    assert "<html" in html(page)
    assert "Turn up the slug: 4 cards" in html(page)
    fragment = phone.get(f"/t/{table.token}/board", htmx=True)
    assert fragment.status_code == 200
    assert html(fragment).lstrip().startswith('<div id="board"')
    assert "<html" not in html(fragment)
    assert "Turn up the slug: 4 cards" in html(fragment)
    assert re.search(r'href="/static/venture\.[0-9a-f]+\.css"', html(fragment))
    assert "HX-Request" in fragment.headers.get("Vary", "")


def test_the_slug_pad_builds_the_slug_one_tap_at_a_time(phone, table):
    board = html(phone.get(f"/t/{table.token}/board?c=4&add=5", htmx=True))
    assert shown_cards(board, "venture-chosen") == [4, 5]
    # the chosen cards ride along with the next tap
    assert re.findall(r'type="hidden" name="c" value="(\d+)"', board) == ["4", "5"]
    assert 'name="add" value="7"' in board
    assert "Remove the last card" in board and "Turn up the slug: 4, 5" not in board
    full = html(phone.get(f"/t/{table.token}?c=4&c=5&c=6&c=8"))
    assert "Turn up the slug: 4, 5, 6, 8" in full
    assert 'name="cards" value="4 5 6 8"' in full
    # a full slug disables every key
    keys = re.findall(r'aria-label="Slug card \d+"\s*(disabled)?', full)
    assert keys == ["disabled"] * 10


@pytest.mark.parametrize(
    ("query", "chosen"),
    [
        ("c=0&c=11&c=x&c=&c=3&add=ace", [3]),  # junk is ignored, never a 500
        ("add=7&add=8", [7]),  # one tap adds one card
        ("c=1&c=1&c=2", [1, 2]),  # there is only one 1
        ("c=2&c=2&c=3&c=4&c=5&c=6", [2, 2, 3, 4]),  # never more than the slug size
    ],
)
def test_the_slug_pad_ignores_impossible_taps(phone, table, query, chosen):
    board = html(phone.get(f"/t/{table.token}/board?{query}", htmx=True))
    assert shown_cards(board, "venture-chosen") == chosen


def test_the_one_key_is_disabled_once_the_one_is_in_the_slug(phone, table):
    board = html(phone.get(f"/t/{table.token}/board?c=1", htmx=True))
    assert re.search(r'aria-label="Slug card 1"\s*disabled', board)
    assert not re.search(r'aria-label="Slug card 2"\s*disabled', board)


def test_entering_the_slug_starts_round_one_with_it_as_the_pool(phone, table, store):
    response = phone.act(table, "slug", cards="8, 4 6 5")
    assert response.status_code == 200
    board = html(response)
    assert "Round 1 of 17" in board
    assert shown_cards(board, "venture-pool") == [4, 5, 6, 8]
    assert store.snapshot(table.token).state.slug == (8, 4, 6, 5)


def test_without_javascript_a_form_post_redirects_back_to_the_table(phone, table):
    response = phone.post(
        f"/t/{table.token}/act",
        {"action": "slug", "cards": "4 5 6 8", "version": "0"},
        htmx=False,
    )
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/t/{table.token}")


def test_drafting_is_explained_when_on_and_absent_when_off(phone, make_table):
    on = make_table("venture", THREE, {"drafting": True})
    off = make_table("venture", THREE, {"drafting": False})
    assert "Drafting is on" in html(phone.get(f"/t/{on.token}"))
    assert "Drafting is on" not in html(phone.get(f"/t/{off.token}"))


# ---------------------------------------------------------- secret bids


def test_a_shared_phone_shows_who_has_bid_but_never_the_card(phone, slugged, new_client_phone):
    response = phone.act(slugged, "bid", player="Ana", card="9")
    assert response.status_code == 200
    for board in (html(response), html(new_client_phone().get(f"/t/{slugged.token}"))):
        assert 'aria-label="card 9"' not in board
        assert re.search(r"Ana</span>.*?✓ has bid", board, re.S)
        assert re.search(r"Ben</span>.*?thinking", board, re.S)
        assert "Ana bid face down" in board  # the latest-changes list
    # the shared phone moves on to the next player who has not bid
    assert "Pass the phone to Ben" in html(response)
    assert 'aria-label="Ben\'s bid: 1"' in html(response)
    assert 'aria-label="Ana\'s bid: 1"' not in html(response)


def test_a_shared_phone_can_pick_who_bids_next(phone, slugged):
    board = html(phone.get(f"/t/{slugged.token}/board?bidder=Cy", htmx=True))
    assert "Pass the phone to Cy" in board
    assert 'name="player" value="Cy"' in board
    fallback = html(phone.get(f"/t/{slugged.token}/board?bidder=Nobody", htmx=True))
    assert "Pass the phone to Ana" in fallback


def test_a_live_refresh_keeps_the_player_a_shared_phone_picked(phone, slugged, store):
    # The shared phone picked Cy (the address bar says so); then Ana bids
    # elsewhere. The refreshed board must still be Cy's pad, not Ben's.
    bid(store, slugged, "Ana", 2)
    phone.post(f"/t/{slugged.token}/me", {"mode": "shared"})
    here = f"http://localhost/t/{slugged.token}"
    refreshed = phone.client.get(
        f"/t/{slugged.token}/poll?v=1",
        headers={"HX-Request": "true", "HX-Current-URL": f"{here}?bidder=Cy"},
    )
    assert "Pass the phone to Cy" in html(refreshed)
    # Once Cy has bid, the pad moves on to whoever is still waiting.
    bid(store, slugged, "Cy", 7)
    moved_on = phone.client.get(
        f"/t/{slugged.token}/poll?v=2",
        headers={"HX-Request": "true", "HX-Current-URL": f"{here}?bidder=Cy"},
    )
    assert "Pass the phone to Ben" in html(moved_on)


def test_a_live_refresh_keeps_a_half_entered_slug(phone, table):
    phone.post(f"/t/{table.token}/me", {"mode": "shared"})
    polled = phone.client.get(
        f"/t/{table.token}/poll?v=-1",
        headers={
            "HX-Request": "true",
            "HX-Current-URL": f"http://localhost/t/{table.token}/board?c=4&add=9",
        },
    )
    assert shown_cards(html(polled), "venture-chosen") == [4, 9]


def test_removing_the_last_slug_card_links_to_the_shorter_slug(phone, table):
    def remove_link(query):
        board = html(phone.get(f"/t/{table.token}/board?{query}", htmx=True))
        return re.search(r'href="([^"]*)"[^>]*>Remove the last card', board).group(1)

    assert remove_link("c=4&c=5&add=6") == f"/t/{table.token}?c=4&c=5"
    assert remove_link("add=6") == f"/t/{table.token}"


def test_a_seated_phone_sees_only_its_own_bid(new_client_phone, slugged):
    ana, ben = new_client_phone(), new_client_phone()
    ana.sit(slugged, "Ana")
    ben.sit(slugged, "Ben")
    assert "Your bid, Ana" in html(ana.get(f"/t/{slugged.token}"))
    response = ana.act(slugged, "bid", card="9")  # the seat fills in the player
    assert response.status_code == 200
    mine = html(response)
    assert "You have bid" in mine and 'aria-label="card 9"' in mine
    theirs = html(ben.get(f"/t/{slugged.token}"))
    assert 'aria-label="card 9"' not in theirs
    assert "Your bid, Ben" in theirs


def test_a_seated_phone_can_change_and_take_back_its_bid(new_client_phone, slugged, store):
    ana = new_client_phone()
    ana.sit(slugged, "Ana")
    ana.act(slugged, "bid", card="9")
    assert ana.act(slugged, "change", card="2").status_code == 200
    assert store.snapshot(slugged.token).state.bid_of("Ana") == 2
    assert ana.act(slugged, "withdraw").status_code == 200
    assert store.snapshot(slugged.token).state.bid_of("Ana") is None


def test_a_shared_phone_can_take_back_a_bid_without_showing_it(phone, slugged, store):
    phone.act(slugged, "bid", player="Ben", card="7")
    board = html(phone.get(f"/t/{slugged.token}"))
    assert "Take back Ben's bid" in board
    response = phone.act(slugged, "withdraw", player="Ben")
    assert response.status_code == 200
    assert store.snapshot(slugged.token).state.waiting_for() == THREE


def test_ranks_all_face_up_are_greyed_out_on_the_bid_pad(phone, make_table, store):
    table = make_table("venture", THREE)
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [1, 2, 2, 9]})
    board = html(phone.get(f"/t/{table.token}"))
    assert re.search(r"aria-label=\"Ana's bid: 1\"\s*disabled", board)
    assert re.search(r"aria-label=\"Ana's bid: 2\"\s*disabled", board)
    assert not re.search(r"aria-label=\"Ana's bid: 9\"\s*disabled", board)


def test_the_spectator_view_shows_who_has_bid_and_offers_no_forms(phone, slugged, store):
    bid(store, slugged, "Ana", 9)
    board = html(phone.get(f"/v/{slugged.view_token}"))
    assert re.search(r"Ana</span>.*?✓ has bid", board, re.S)
    assert 'aria-label="card 9"' not in board
    assert "/act" not in board and "Pass the phone" not in board


def test_a_spectator_sees_no_slug_pad(phone, table):
    board = html(phone.get(f"/v/{table.view_token}?c=4"))
    assert "Waiting for the slug to be entered" in board
    assert "Slug card" not in board


# ------------------------------------------------------------- the reveal


def test_the_reveal_shows_each_firing_step_of_the_rules_example(phone, make_table, store):
    table = make_table("venture", FIVE)
    store.act(table.token, 0, {"type": "EnterSlug", "cards": [4, 5, 6, 8, 10]})
    for player, card in zip(FIVE[:-1], (2, 3, 4, 5), strict=True):
        bid(store, table, player, card)
    response = phone.act(table, "bid", player="Ed", card="6")
    board = html(response)
    assert "Round 1 revealed" in board and "Round 2 of 10" in board
    steps = re.findall(
        r'<li class="venture-step[^"]*">\s*<span[^>]*>[^<]*</span>\s*(.*?)\s*</li>', board, re.S
    )
    assert steps == [
        "Ana's 2 is the lowest bid and takes the highest cards: 10.",
        "Ben's 3 takes 2.",
        "Cy's 4 takes 3.",
        "Di's 5 takes 4, 4.",
        "Ed's 6 takes 5, 5.",
    ]
    assert shown_cards(board, "venture-pool") == [6, 6, 8]
    revealed = re.findall(
        r'venture-name">(\w+)</span> <span class="card card-small" '
        r'aria-label="card (\d+)"',
        board,
    )
    assert revealed == [("Ana", "2"), ("Ben", "3"), ("Cy", "4"), ("Di", "5"), ("Ed", "6")]


def test_misfires_and_bids_taken_before_firing_are_labelled(phone, slugged, store):
    bid(store, slugged, "Ana", 2)
    bid(store, slugged, "Ben", 8)
    bid(store, slugged, "Cy", 5)
    board = html(phone.get(f"/t/{slugged.token}"))
    assert "Ben's 8 went to Ana before it could fire." in board
    assert "venture-captured" in board
    bid(store, slugged, "Ana", 3)
    bid(store, slugged, "Ben", 3)
    bid(store, slugged, "Cy", 7)
    board = html(phone.get(f"/t/{slugged.token}"))
    assert "The 3s of Ana and Ben misfire and take nothing." in board
    assert "Earlier rounds" in board


# ----------------------------------------------------------- final scores


def play_out(store, table, players, seed=3):
    """Deal a real shuffled deck and bid every hand out through the store."""
    rng = random.Random(seed)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    size = venture.slug_size(len(players))
    act(store, table, {"type": "EnterSlug", "cards": deck[:size]})
    hand = venture.hand_size(len(players))
    hands = {p: deck[size + i * hand : size + (i + 1) * hand] for i, p in enumerate(players)}
    for turn in range(hand):
        for p in players:
            bid(store, table, p, hands[p][turn])
    return store.snapshot(table.token).state


def test_the_end_shows_scores_full_sets_and_the_winner(phone, make_table, store):
    table = make_table("venture", ["Ana", "Ben", "Cy", "Di", "Ed", "Flo"])
    state = play_out(store, table, ["Ana", "Ben", "Cy", "Di", "Ed", "Flo"])
    outcome = state.outcome
    assert outcome is not None
    board = html(phone.get(f"/t/{table.token}"))
    assert "Final scores" in board and "Game over after 8 rounds" in board
    best = outcome.winners
    top = outcome.scores[best[0]]
    if len(best) == 1:  # said once, by the end screen's headline
        assert f"{best[0]} wins by " in board and f"with {top}." in board
    else:
        assert f"{' and '.join(best)} share the win with {top} points." in board
    assert board.count("notice-win") == 1
    rows = re.findall(
        r'<th scope="row">(\w+)</th>\s*<td>(\d+)</td>\s*<td>(.*?)</td>\s*'
        r"<td>(-?\d+)</td>",
        board,
        re.S,
    )
    assert [(p, int(s)) for p, _, _, s in rows] == list(outcome.scores.items())
    assert any(outcome.full_sets.values())  # this deal has full sets to show
    for player, _, sets, _ in rows:
        ranks = [int(n) for n in re.findall(r'aria-label="card (\d+)"', sets)]
        assert ranks == outcome.full_sets[player]
        assert (sets.strip() == "none") == (not ranks)
    assert "Your bid" not in board and "Pass the phone" not in board
    assert phone.act(table, "bid", player="Ana", card="5").status_code == 422


def test_tied_winners_share_the_win_on_the_page(phone, make_table, store):  # V8
    table = make_table("venture", THREE)
    state = play_out(store, table, THREE, seed=10)  # this deal ends Ana -16, Ben -19, Cy -16
    outcome = state.outcome
    assert outcome is not None and outcome.winners == ["Ana", "Cy"]
    board = html(phone.get(f"/t/{table.token}"))
    assert "Ana and Cy share the win with -16 points." in board  # the end screen's headline
    assert board.count("notice-win") == 1


def test_the_home_page_summarises_a_venture_table(phone, slugged, store):
    bid(store, slugged, "Ana", 3)
    phone.get(f"/t/{slugged.token}")  # the start page lists the tables this browser opened
    page = html(phone.get("/"))
    assert "Round 1 of 17 · 2 bids to come" in page


@pytest.mark.parametrize(
    ("build", "line"),
    [
        (lambda: venture.new_game(THREE), "Waiting for the slug"),
        (
            lambda: venture.apply(venture.new_game(THREE), venture.EnterSlug((4, 5, 6, 8))),
            "Round 1 of 17 · 3 bids to come",
        ),
    ],
)
def test_summary_lines(build, line):
    assert screen.summary(build()) == line


@pytest.mark.parametrize(
    ("action", "line"),
    [
        ({"type": "EnterSlug", "cards": [4, 5, 6, 8]}, "Slug turned up: 4 5 6 8"),
        ({"type": "Bid", "player": "Ana", "card": "hidden"}, "Ana bid face down"),
        ({"type": "ChangeBid", "player": "Ana", "card": "hidden"}, "Ana changed their bid"),
        ({"type": "Bid", "player": "Ana", "card": 8}, "Ana bid an 8"),
        ({"type": "ChangeBid", "player": "Ana", "card": 2}, "Ana changed their bid to a 2"),
        ({"type": "WithdrawBid", "player": "Ana"}, "Ana took back their bid"),
    ],
)
def test_history_lines_name_a_bid_card_only_where_the_log_shows_it(action, line):
    # The viewer's projection turns a bid still hidden from this phone into "hidden".
    assert screen.describe(action) == line


# ------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("setup", "seat", "form", "message"),
    [
        ([], None, {"action": "slug", "cards": ""}, "No cards were entered"),
        ([], None, {"action": "slug", "cards": "4 5 6"}, "slug for 3 players is 4 cards, not 3"),
        ([], None, {"action": "slug", "cards": "4 5 6 11"}, "'11' is not a card"),
        ([], None, {"action": "slug", "cards": "4 5 six 8"}, "'six' is not a card"),
        ([], None, {"action": "slug", "cards": "1 1 5 6"}, "only 1 card of rank 1, not 2"),
        ([], None, {"action": "slug", "cards": "4 " * 60}, "far more than a slug"),
        ([], None, {"action": "bid", "player": "Ana", "card": "3"}, "Enter the slug first"),
        ("slug", None, {"action": "bid", "player": "Ana", "card": ""}, "Tap a card from 1 to 10"),
        ("slug", None, {"action": "bid", "player": "Ana", "card": "11"}, "'11' is not a card"),
        ("slug", None, {"action": "bid", "player": "Ana", "card": "ace"}, "'ace' is not a card"),
        ("slug", None, {"action": "bid", "card": "3"}, "Choose whose bid this is"),
        ("slug", None, {"action": "bid", "player": "Zed", "card": "3"}, "no player called 'Zed'"),
        (
            "slug",
            "Ana",
            {"action": "bid", "player": "Ben", "card": "3"},
            "This phone is Ana's, so it only enters Ana's bid",
        ),
        (
            "bid",
            None,
            {"action": "bid", "player": "Ana", "card": "5"},
            "Ana has already bid this round",
        ),
        (
            "slug",
            None,
            {"action": "change", "player": "Ana", "card": "5"},
            "Ana has not bid this round",
        ),
        ("slug", None, {"action": "withdraw", "player": "Cy"}, "Cy has no bid to take back"),
        ("slug", None, {"action": "dance"}, "That button does nothing in Venture"),
        ("slug", None, {"action": ""}, "That button does nothing in Venture"),
    ],
)
def test_bad_input_says_why_with_422_and_changes_nothing(
    new_client_phone, slugged, store, setup, seat, form, message
):
    table = slugged
    if setup == []:
        # the slugged fixture already entered the slug; undo it to start over
        store.undo(table.token, store.version(table.token))
    elif setup == "bid":
        bid(store, table, "Ana", 2)
    elif setup == "ones":
        bid(store, table, "Ana", 1)
    user = new_client_phone()
    if seat:
        user.sit(table, seat)
    before = store.snapshot(table.token)
    response = user.post(f"/t/{table.token}/act", {"version": str(before.table.version), **form})
    assert response.status_code == 422, html(response)[:500]
    shown = re.findall(r'notice-error"[^>]*>(.*?)</p>', html(response), re.S)
    assert shown and message in shown[0]
    after = store.snapshot(table.token)
    assert after.table.version == before.table.version
    assert after.actions == before.actions


def test_next_to_the_refused_bids_a_good_one_is_accepted(phone, slugged, store):
    bid(store, slugged, "Ana", 2)
    response = phone.act(slugged, "bid", player="Ben", card="4")
    assert response.status_code == 200
    assert store.snapshot(slugged.token).state.bid_of("Ben") == 4


def test_a_bid_after_the_game_is_over_is_refused(phone, make_table, store):
    table = make_table("venture", ["Ana", "Ben", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"])
    play_out(store, table, ["Ana", "Ben", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"], seed=8)
    version = store.version(table.token)
    response = phone.act(table, "bid", player="Ana", card="3")
    assert response.status_code == 422
    assert "The game is over" in html(response)
    assert store.version(table.token) == version


def test_a_stale_phone_gets_409_and_the_fresh_board(phone, slugged, store):
    # Ben's bid went in from another tab since this page was loaded: a real
    # conflict (the bid depends on Ben's own bid), so this tap is not entered.
    bid(store, slugged, "Ben", 2)
    response = phone.act(slugged, "bid", player="Ben", card="3", version=1)
    assert response.status_code == 409
    assert "Your tap was not entered" in html(response)
    assert store.snapshot(slugged.token).state.bid_of("Ben") == 2


def test_a_bid_from_a_stale_page_is_entered_when_only_other_bids_came_in(phone, slugged, store):
    bid(store, slugged, "Ana", 2)
    response = phone.act(slugged, "bid", player="Ben", card="3", version=1)
    assert response.status_code == 200
    assert store.snapshot(slugged.token).state.bid_of("Ben") == 3


# ---------------------------------------------------------------- options


def test_the_new_table_form_offers_drafting_and_stores_it(phone, store):
    form = html(phone.get("/new/venture"))
    assert 'name="drafting"' in form
    response = phone.post(
        "/new/venture",
        {"player1": "Ana", "player2": "Ben", "player3": "Cy", "drafting": "on"},
        htmx=False,
    )
    assert response.status_code == 303
    token = response.headers["Location"].rsplit("/", 1)[1]
    assert store.table(token).options == {"drafting": True}
    assert store.snapshot(token).state.drafting is True


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"player1": "Ana", "player2": "Ben", "drafting": ""}, "3 to 8 players"),
        (
            {"player1": "Ana", "player2": "Ben", "player3": "Cy", "drafting": "maybe"},
            "Drafting is either ticked or not",
        ),
    ],
)
def test_a_bad_new_venture_table_is_refused(phone, store, form, message):
    response = phone.post("/new/venture", form, htmx=False)
    assert response.status_code == 422
    assert message in html(response)
    assert store.tables(game="venture") == []
