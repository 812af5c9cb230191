"""The Autumn Leaves screen through the test client: pages, fragments, a whole
hand, each phone's seat, and bad input answered with 422 and nothing written."""

from __future__ import annotations

import re

import pytest

from companion.rules import autumn_leaves as al
from companion.tables.games import logged
from companion.web.games import FormError
from companion.web.games import autumn_leaves as screen

THREE = ["Ana", "Ben", "Cy"]

# A short scripted hand (every step checked by the rules): cold snaps, a
# discard, a card put on another player's pile, then Ben empties his hand.
#   round 1  Ana 10, Ben 7, Cy 4   the piles start (A2)
#   round 2  Ana 10, Ben 7, Cy 4   Cold Snap (A6)
#   round 3  Ana 10, Ben 7, Cy 4   Cold Snap
#   round 4  Ana 10, Ben 9, Cy 2   Cy's 2 fits nowhere: discard and draw;
#                                  Ben's 9 on Ana's 10; Ana's 10 on her own 9
#   round 5  Ana 10, Ben 7, Cy 4   Cold Snap
#   round 6  Ana 10, Ben 7, Cy 1   Cold Snap
#   round 7  Ana 10, Ben 7, Cy 10  Cold Snap: Ben (7, lowest) plays his last card
COLD = ((10, 7, 4), (10, 7, 4), (10, 7, 4))


def html(response) -> str:
    return response.get_data(as_text=True).replace("&#39;", "'").replace("&amp;", "&")


@pytest.fixture
def table(make_table):
    return make_table("autumn_leaves", THREE)


def reveal_all(phone, table, cards):
    return phone.act(table, "reveal-all", **{f"card{i}": str(c) for i, c in enumerate(cards)})


def play_to_round_4(phone, table):
    for cards in COLD:
        assert reveal_all(phone, table, cards).status_code == 200
    assert reveal_all(phone, table, (10, 9, 2)).status_code == 200


def play_to_hand_end(phone, table):
    play_to_round_4(phone, table)
    assert phone.act(table, "discard-draw", player="Cy").status_code == 200
    assert phone.act(table, "place", player="Ben", pile="Ana").status_code == 200
    assert phone.act(table, "place", player="Ana", pile="Ana").status_code == 200
    for cards in ((10, 7, 4), (10, 7, 1), (10, 7, 10)):
        assert reveal_all(phone, table, cards).status_code == 200


# ---------------------------------------------------------------- pages


def test_a_new_table_asks_for_the_first_reveal_as_page_and_fragment(phone, table):
    page = phone.get(f"/t/{table.token}")
    assert page.status_code == 200
    assert "<html" in html(page)
    assert "Round 1: reveal" in html(page)
    assert "Hand 1 of 6" in html(page)
    fragment = phone.get(f"/t/{table.token}/board", htmx=True)
    assert fragment.status_code == 200
    assert html(fragment).lstrip().startswith('<div id="board"')
    assert "<html" not in html(fragment)
    assert "Round 1: reveal" in html(fragment)
    assert re.search(r'href="/static/autumn_leaves\.[0-9a-f]+\.css"', html(fragment))
    assert "<summary>How Autumn Leaves works</summary>" in html(fragment)


def test_the_shared_phone_gets_a_card_grid_for_every_player(phone, table):
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    for i, name in enumerate(THREE):
        assert f'name="card{i}" value="10" aria-label="{name}: reveals 10"' in board
    assert 'name="action" value="reveal-all"' in board
    assert "Your card" not in board


def test_a_seated_phone_gets_its_own_pad_and_the_others_folded_away(phone, table):
    phone.sit(table, "Ben")
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Your card, Ben" in board
    assert 'name="player" value="Ben"' in board
    assert 'id="al-others-reveal"><summary>Enter for the others</summary>' in board
    assert 'name="card1"' not in board  # Ben is not in the others' form
    assert phone.act(table, "reveal", player="Ben", card="7").status_code == 200
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Your card, Ben" not in board
    assert "Ben&nbsp;" in board and "has revealed" in board


def test_a_seated_phone_is_reminded_of_the_cards_it_took_back(phone, table):
    play_to_round_4(phone, table)
    phone.act(table, "take-back", player="Cy")
    phone.sit(table, "Cy")
    phone.act(table, "place", player="Ben", pile="Ana")
    phone.act(table, "place", player="Ana", pile="Ana")
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Your card, Cy" in board
    assert "Still in your hand from earlier rounds: 2." in board


def test_reveals_may_come_from_each_phone_in_turn(new_client_phone, table, store):
    phones = {name: new_client_phone() for name in THREE}
    for name, card in zip(THREE, (10, 7, 4), strict=True):
        phones[name].sit(table, name)
        assert phones[name].act(table, "reveal", player=name, card=str(card)).status_code == 200
    assert store.snapshot(table.token).state.piles == ((10,), (7,), (4,))


def test_the_play_order_and_the_lit_piles_are_shown(phone, table):
    play_to_round_4(phone, table)
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    order = re.findall(r'class="al-order-name">(\w+)', board)
    assert order == ["Cy", "Ben", "Ana"]
    assert "Cy's 2 fits on no pile" in board
    assert "Take the 2 back" in board and "Discard and draw" in board
    assert "Cold Snap!" not in board
    phone.act(table, "discard-draw", player="Cy")
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Ben's turn: the 9 must go on a lit pile below" in board
    lit = re.findall(r'<button type="submit" name="pile" value="(\w+)"', board)
    assert lit == ["Ana"]
    assert "Cy: could not place the 2, discarded it and drew" in board
    assert re.search(r'data-testid="deck">33<', board)


def test_cold_snap_is_announced_with_what_happened(phone, table):
    reveal_all(phone, table, (10, 7, 4))
    reveal_all(phone, table, (10, 7, 4))
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Cold Snap!" in board
    reveal_all(phone, table, (10, 7, 4))
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Cy: 4 onto their own pile" in board


def test_a_random_tie_in_the_order_is_said_to_be_random(phone, table):
    reveal_all(phone, table, (5, 5, 9))
    reveal_all(phone, table, (3, 3, 8))  # Ana and Ben: same card, same pile
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert (
        "identical piles, so nothing tells them apart and their order was drawn at random" in board
    )
    assert "goes before" not in board  # no reason from the piles: there is none


def test_a_tie_broken_by_the_piles_says_why(phone, table):
    reveal_all(phone, table, (5, 6, 9))
    reveal_all(phone, table, (3, 3, 8))  # Ana and Ben: same card; Ana's top card 5, Ben's 6
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    order = re.findall(r'class="al-order-name">(\w+)', board)
    assert order == ["Ana", "Ben", "Cy"]
    assert (
        "Ana goes before Ben: same card, and Ana's pile has the lower top card (5, Ben's 6)."
        in board
    )
    assert "drawn at random" not in board


def test_a_whole_hand_ends_scores_and_deals_the_next(phone, table, store):
    play_to_hand_end(phone, table)
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Hand 1 is over" in board
    assert "Ben played their last card and wins the hand." in board
    assert "Ana: took the 10 back, the hand was over" in board
    # Ana's only card is the 10 she took back: the pad offers only 10
    assert re.search(r'aria-label="Ana: highest 10"(?! disabled)', board)
    assert 'aria-label="Ana: highest 9" disabled' in board
    response = phone.act(table, "highest-all", card0="10", card2="10")
    assert response.status_code == 200
    state = store.snapshot(table.token).state
    # Ana: 10 - 7 in pile = 3; Ben: -6 (his own pile); Cy: 10 - 5 = 5
    assert state.results[0].scores == (3, -6, 5)
    board = html(response)
    assert "Hand 2 of 6" in board
    assert "Hand 1: Ben emptied their hand. Points: Ana 3, Ben -6, Cy 5." in board
    assert re.search(r'class="leader">-6<', board)


def test_six_hands_end_the_game_with_the_winner(phone, table, store):
    for _ in range(6):
        play_to_hand_end(phone, table)
        phone.act(table, "highest-all", card0="10", card2="10")
    board = html(phone.get(f"/t/{table.token}/board", htmx=True))
    assert "Ben wins by" in board and "Game over: Ben wins" not in board  # said once, above
    assert store.snapshot(table.token).state.phase == al.OVER
    assert screen.summary(store.snapshot(table.token).state) == "Game over: Ben wins"
    assert 'name="action"' not in board.split('class="undo-bar"')[0]
    assert "Leaf piles" not in board  # the last hand's piles no longer matter


def test_the_spectator_view_has_no_forms(phone, table, client):
    play_to_round_4(phone, table)
    page = html(client.get(f"/v/{table.view_token}"))
    assert "Cy's 2 fits on no pile" in page
    assert "<form" not in page.split('id="board"')[1]


def test_without_javascript_a_form_post_redirects_to_the_page(phone, table):
    response = phone.post(
        f"/t/{table.token}/act",
        {"action": "reveal-all", "version": "0", "card0": "3", "card1": "4", "card2": "5"},
        htmx=False,
    )
    assert response.status_code == 303
    assert "Round 2: reveal" in html(phone.get(f"/t/{table.token}"))


def test_history_describes_the_actions(phone, table):
    play_to_round_4(phone, table)
    phone.act(table, "discard-draw", player="Cy")
    phone.act(table, "place", player="Ben", pile="Ana")
    page = html(phone.get(f"/t/{table.token}/history"))
    assert "Revealed: Ana 10, Ben 9, Cy 2" in page
    assert "Cy discarded their card and drew" in page
    assert "Ben placed a 9 on Ana's pile" in page  # the card, read from the log


def latest(page: str) -> list[str]:
    """The board's Latest list, one plain line per entry."""
    section = page.split('class="recent"')[1].split("</section>")[0]
    items = re.findall(r"<li[^>]*>(.*?)</li>", section, re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", item)).strip() for item in items]


def test_the_latest_list_names_the_card_each_placement_put_down(phone, table, store):
    play_to_round_4(phone, table)
    phone.act(table, "discard-draw", player="Cy")
    phone.act(table, "place", player="Ben", pile="Ana")
    lines = latest(html(phone.get(f"/t/{table.token}")))
    assert lines[0] == "#6 Ben placed a 9 on Ana's pile"
    assert lines[1] == "#5 Cy discarded their card and drew"
    # Undone, the line still names the card; placed again elsewhere, the new line too.
    phone.post(f"/t/{table.token}/undo", {"version": str(store.version(table.token))})
    phone.act(table, "place", player="Ben", pile="Ana")
    lines = latest(html(phone.get(f"/t/{table.token}")))
    assert lines[:3] == [
        "#8 Ben placed a 9 on Ana's pile",
        "#7 Undo",
        "#6 Ben placed a 9 on Ana's pile (undone)",
    ]
    assert phone.act(table, "place", player="Ana", pile="Ana").status_code == 200
    assert latest(html(phone.get(f"/t/{table.token}")))[0] == "#9 Ana placed a 10 on their own pile"


def test_a_placement_names_the_card_revealed_when_it_was_entered():
    """Ana's 8 was placed and taken back with an undo, her next reveal was undone
    too: the placement entered after that puts down the 8 again, not the 4."""
    from datetime import datetime

    from companion.tables.store import Event

    def event(seq, kind, payload=None):
        return Event(seq, kind, payload, None, datetime(2026, 11, 22))

    reveal_8 = {"type": "Reveal", "cards": [["Ana", 8], ["Ben", 2]]}
    reveal_4 = {"type": "Reveal", "cards": [["Ana", 4]]}
    place = {"type": "Place", "player": "Ana", "pile": "Ben"}
    log = [
        event(1, "action", reveal_8),
        event(2, "action", {**place, "pile": "Ana"}),
        event(3, "action", reveal_4),
        event(4, "undo"),
        event(5, "undo"),
        event(6, "action", place),
    ]
    assert screen.describe_events(log, log) == {
        2: "Ana placed an 8 on their own pile",
        6: "Ana placed an 8 on Ben's pile",
    }
    assert screen.describe_events(log, log[2:]) == {6: "Ana placed an 8 on Ben's pile"}


# ---------------------------------------------------------------- bad input


BAD_REVEAL = [
    ({"action": "reveal-all"}, "Tap a card for at least one player"),
    ({"action": "reveal-all", "card0": "11"}, "Ana's card: '11' is not a card"),
    ({"action": "reveal-all", "card0": "1", "card1": "1"}, "only 1 card of rank 1"),
    ({"action": "reveal", "player": "Zed", "card": "4"}, "There is no player called 'Zed'"),
    ({"action": "reveal", "card": "4"}, "does not say which player"),
    ({"action": "reveal", "player": "Ana", "card": "ace"}, "Ana's card: 'ace' is not a card"),
    ({"action": "place", "player": "Ana", "pile": "Ben"}, "waiting for everyone to reveal"),
    ({"action": "highest", "player": "Ana", "card": "4"}, "Cannot enter highest cards now"),
    ({"action": "shuffle"}, "That button does nothing in Autumn Leaves"),
]

BAD_PLAY = [
    ({"action": "take-back", "player": "Ana"}, "Ana cannot play yet: it is Cy's turn"),
    ({"action": "place", "player": "Cy", "pile": "Ben"}, "Cy's 2 cannot go on Ben's pile"),
    ({"action": "place", "player": "Cy"}, "Tap the pile the card goes on"),
    ({"action": "place", "player": "Cy", "pile": "Zed"}, "There is no player called 'Zed'"),
    ({"action": "reveal-all", "card0": "3"}, "Cannot reveal cards now"),
    ({"action": "discard-draw", "player": ""}, "does not say which player"),
]


@pytest.mark.parametrize(("fields", "message"), BAD_REVEAL)
def test_bad_input_at_the_reveal_is_422_and_writes_nothing(
    phone, table, store, error_message, fields, message
):
    fields = dict(fields)
    before = store.version(table.token)
    response = phone.act(table, fields.pop("action"), **fields)
    assert response.status_code == 422
    assert message in error_message(response).replace("&#39;", "'")
    assert store.version(table.token) == before


@pytest.mark.parametrize(("fields", "message"), BAD_PLAY)
def test_bad_input_during_play_is_422_and_writes_nothing(phone, table, store, fields, message):
    fields = dict(fields)
    play_to_round_4(phone, table)
    before = store.snapshot(table.token)
    response = phone.act(table, fields.pop("action"), **fields)
    assert response.status_code == 422
    assert message in html(response)
    after = store.snapshot(table.token)
    assert after.table.version == before.table.version
    assert after.state == before.state


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"action": "highest-all", "card0": "9"}, "Ana took back a 10"),
        ({"action": "highest", "player": "Ben", "card": "5"}, "Ben has no cards left in hand"),
        ({"action": "highest-all", "card2": "1"}, "Cy took back a 10"),
        ({"action": "highest-all", "card0": "x"}, "Ana's card: 'x' is not a card"),
    ],
)
def test_bad_highest_cards_are_422_and_write_nothing(phone, table, store, fields, message):
    fields = dict(fields)
    play_to_hand_end(phone, table)
    before = store.version(table.token)
    response = phone.act(table, fields.pop("action"), **fields)
    assert response.status_code == 422
    assert message in html(response)
    assert store.version(table.token) == before


def test_a_stale_phone_gets_409_and_the_fresh_board(phone, table, store):
    reveal_all(phone, table, (10, 7, 4))
    response = phone.act(table, "reveal-all", version=0, card0="3")
    assert response.status_code == 409
    assert store.version(table.token) == 1
    assert "Round 2: reveal" in html(response)


def test_undo_takes_back_the_last_entry(phone, table, store):
    play_to_round_4(phone, table)
    phone.act(table, "discard-draw", player="Cy")
    version = store.version(table.token)
    response = phone.post(f"/t/{table.token}/undo", {"version": str(version)})
    assert response.status_code == 200
    state = store.snapshot(table.token).state
    assert state.to_act == "Cy" and state.deck == 34


# ---------------------------------------------------------------- parse_action


@pytest.mark.parametrize(
    ("form", "action"),
    [
        (
            {"action": "reveal", "player": "Ben", "card": " 7 "},
            {"type": "Reveal", "cards": [["Ben", 7]]},
        ),
        (
            {"action": "reveal-all", "card0": "3", "card1": "", "card2": "10"},
            {"type": "Reveal", "cards": [["Ana", 3], ["Cy", 10]]},
        ),
        (
            {"action": "place", "player": "Ana", "pile": "Cy"},
            {"type": "Place", "player": "Ana", "pile": "Cy"},
        ),
        ({"action": "take-back", "player": "Cy"}, {"type": "TakeBack", "player": "Cy"}),
        ({"action": "discard-draw", "player": "Cy"}, {"type": "DiscardDraw", "player": "Cy"}),
        (
            {"action": "highest", "player": "Ana", "card": "9"},
            {"type": "Highest", "cards": [["Ana", 9]]},
        ),
        ({"action": "highest-all", "card1": "8"}, {"type": "Highest", "cards": [["Ben", 8]]}),
    ],
)
def test_forms_become_rules_actions(form, action):
    state = al.new_game(THREE)
    assert logged(screen.parse_action(form, state, None)) == action


@pytest.mark.parametrize(
    "form",
    [{}, {"action": "reveal", "player": "Ana", "card": "0"}, {"action": "place", "player": "x"}],
)
def test_junk_forms_raise_form_error(form):
    with pytest.raises(FormError):
        screen.parse_action(form, al.new_game(THREE), None)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"type": "Reveal", "cards": [["Ana", 3]]}, "Revealed: Ana 3"),
        (
            {"type": "Place", "player": "Ana", "pile": "Ana"},
            "Ana placed their card on their own pile",
        ),
        ({"type": "TakeBack", "player": "Cy"}, "Cy took their card back"),
        ({"type": "Highest", "cards": [["Ben", 9], ["Cy", 4]]}, "Highest in hand: Ben 9, Cy 4"),
        ({"type": "Reveal", "cards": 5}, "Revealed: 5"),
    ],
)
def test_history_lines_in_plain_words(action, words):
    assert screen.describe(action) == words


def test_summary_line_for_the_table_list():
    assert screen.summary(al.new_game(THREE)) == "Hand 1 of 6, round 1"
