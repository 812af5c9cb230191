"""The Pairs / Continuous Pairs screen through the Flask test client."""

from __future__ import annotations

import html
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules import pairs
from companion.rules.cards import PAIRS_DECK
from companion.tables.games import logged
from companion.web.games import FormError
from companion.web.games import pairs as screen

TWO = ["Ana", "Ben"]


def page_text(response) -> str:
    return response.get_data(as_text=True)


def words(response) -> str:
    """The visible text of a response, tags stripped and spaces squeezed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page_text(response))).split())


def state_of(store, table) -> pairs.State:
    return store.snapshot(table.token).state


def act_all(phone, table, *steps):
    """Post each (action, fields), insisting every one is accepted; return the last response."""
    response = None
    for action, fields in steps:
        response = phone.act(table, action, **fields)
        assert response.status_code == 200, (action, fields, phone_error(response))
    return response


def phone_error(response) -> str:
    found = re.findall(r'notice-error"[^>]*>(.*?)</p>', page_text(response), re.S)
    return html.unescape(" ".join(found))


def deal(*cards):
    return [
        ("deal", {"player": name, "card": str(card)})
        for name, card in zip(["Ana", "Ben", "Cy", "Di"], cards, strict=False)
    ]


# --- the new-table form ------------------------------------------------------


def test_new_table_form_offers_target_and_continuous(phone):
    response = phone.get("/new/pairs")
    assert response.status_code == 200
    source = page_text(response)
    assert 'name="target"' in source and 'name="continuous"' in source
    assert "2 players 31" in words(response)


@pytest.mark.parametrize(
    ("fields", "target", "continuous"),
    [
        ({}, 31, False),  # P1 default for two players
        ({"target": "50"}, 50, False),
        ({"target": " 12 ", "continuous": "on"}, 12, True),
    ],
)
def test_new_table_reads_the_options(phone, store, fields, target, continuous):
    data = {"player1": "Ana", "player2": "Ben", **fields}
    response = phone.post("/new/pairs", data, htmx=False)
    assert response.status_code == 303
    token = response.headers["Location"].rsplit("/", 1)[-1]
    game = store.snapshot(token).state
    assert (game.target, game.continuous) == (target, continuous)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"player1": "Ana", "player2": "Ben", "target": "abc"}, "is not a whole number"),
        ({"player1": "Ana", "player2": "Ben", "target": "0"}, "from 1 to 100, not 0"),
        ({"player1": "Ana", "player2": "Ben", "target": "101"}, "from 1 to 100, not 101"),
        ({"player1": "Ana", "player2": "Ben", "target": "-4"}, "is not a whole number"),
        ({"player1": "Ana"}, "2"),
    ],
)
def test_new_table_rejects_bad_options_with_422(phone, store, fields, message):
    response = phone.post("/new/pairs", fields, htmx=False)
    assert response.status_code == 422
    assert message in phone_error(response)


def test_new_state_uses_the_standard_target_for_the_players(make_table, store):
    table = make_table("pairs", ["Ana", "Ben", "Cy", "Di"])
    assert state_of(store, table).target == 16  # P1


# --- the page and the fragment -------------------------------------------------


def test_full_page_shows_the_deal_pad_for_the_first_player(phone, make_table):
    table = make_table("pairs", TWO)
    response = phone.get(f"/t/{table.token}")
    assert response.status_code == 200
    source = page_text(response)
    assert "<html" in source and 'id="board"' in source
    assert "Card dealt to Ana" in source
    assert source.count('class="pad-key"') == 10
    assert "50 cards in the deck" in words(response)
    assert "burn 5 cards face down" in words(response)  # P8
    assert "losing score 31" in words(response)
    # every form works without JavaScript: a real action URL
    assert f'action="/t/{table.token}/act"' in source


def test_an_htmx_post_returns_only_the_board_fragment(phone, make_table, store):
    table = make_table("pairs", TWO)
    response = phone.act(table, "deal", player="Ana", card="4")
    assert response.status_code == 200
    source = page_text(response)
    assert "<html" not in source and source.lstrip().startswith('<div id="board"')
    assert "Card dealt to Ben" in source
    assert "burn 5 cards" not in source  # only before the first card
    assert state_of(store, table).stack("Ana") == (4,)


def test_without_javascript_a_post_redirects_back_to_the_page(phone, make_table, store):
    table = make_table("pairs", TWO)
    response = phone.post(
        f"/t/{table.token}/act",
        {"action": "deal", "player": "Ana", "card": "4", "version": str(table.version)},
        htmx=False,
    )
    assert response.status_code == 303
    assert state_of(store, table).stack("Ana") == (4,)


def test_low_card_decides_who_plays_and_the_odds_show_with_the_note(phone, make_table):
    table = make_table("pairs", TWO)
    response = act_all(phone, table, *deal(6, 2))
    text = words(response)
    assert "Ben has the low card (2) and goes first." in text
    assert "Ben's turn" in text
    assert "Chance a hit pairs: 1 in 53 (2%)" in text  # P9: one 2 unseen
    assert pairs.ODDS_NOTE in text
    assert "Ben hits: which card?" in text
    assert "Fold: take own 2 (2 points)" in text


def test_tie_for_low_card_asks_the_tied_players_for_one_more_card(phone, make_table, store):
    table = make_table("pairs", ["Ana", "Ben", "Cy"])
    response = act_all(phone, table, *deal(3, 3, 8))
    text = words(response)
    assert "Tie for the low card" in text and "Ana and Ben tied" in text
    assert "Tie-break card for Ana" in text
    response = act_all(phone, table, ("tiebreak", {"player": "Ana", "card": "3"}))
    assert "tie-break card 3 paired: it is discarded (no score) and replaced" in words(response)
    response = act_all(
        phone,
        table,
        ("tiebreak", {"player": "Ana", "card": "9"}),
        ("tiebreak", {"player": "Ben", "card": "5"}),
    )
    assert "Ben has the low card (5) and goes first" in words(response)
    assert state_of(store, table).stack("Ben") == (3, 5)


def test_a_pair_is_announced_and_scored_and_a_new_round_is_dealt(phone, make_table, store):
    table = make_table("pairs", TWO)
    act_all(phone, table, *deal(8, 9))
    response = act_all(phone, table, ("hit", {"player": "Ana", "card": "8"}))
    text = words(response)
    assert "Ana paired 8s and scores 8." in text
    assert "8 / 31" in text
    assert "Round 2: one card face up to each player" in text
    assert state_of(store, table).totals() == {"Ana": 8, "Ben": 0}


def test_basic_fold_takes_the_lowest_card(phone, make_table, store):
    table = make_table("pairs", TWO)
    act_all(phone, table, *deal(4, 6), ("hit", {"player": "Ana", "card": "9"}))
    response = phone.get(f"/t/{table.token}")
    assert "Fold: take Ana's 4 (4 points)" in words(response)
    response = act_all(phone, table, ("fold", {"player": "Ben", "card": "4", "owner": "Ana"}))
    assert "Ben folded and takes Ana's 4 for 4 points." in words(response)
    assert state_of(store, table).totals() == {"Ana": 0, "Ben": 4}


def test_continuous_fold_offers_every_card_in_play_lowest_first(phone, make_table, store):
    table = make_table("pairs", ["Ana", "Ben", "Cy"], {"continuous": True})
    response = act_all(phone, table, *deal(4, 6, 8), ("hit", {"player": "Ana", "card": "9"}))
    text = words(response)
    assert "Continuous Pairs" in text
    choices = re.findall(r"Take (own|\w+'s) (\d+) \(", text)
    assert choices == [("Ana's", "4"), ("own", "6"), ("Cy's", "8"), ("Ana's", "9")]
    assert "Take Ana's 4 (4 points) · lowest" in text
    response = act_all(phone, table, ("fold", {"player": "Ben", "card": "9", "owner": "Ana"}))
    game = state_of(store, table)
    assert game.stacks == ((4,), (), (8,))
    assert game.to_act == "Cy"


def test_continuous_empty_stack_must_hit_and_the_page_says_so(phone, make_table):
    table = make_table("pairs", TWO, {"continuous": True})
    act_all(
        phone,
        table,
        *deal(4, 6),
        ("fold", {"player": "Ana"}),
        ("hit", {"player": "Ben", "card": "2"}),
    )
    response = phone.get(f"/t/{table.token}")
    text = words(response)
    assert "Ana has no cards in play, so must hit." in text
    assert "Fold:" not in text and "Take " not in text


def test_the_loser_is_shown_and_no_more_forms(phone, make_table):
    table = make_table("pairs", TWO, {"target": 5})
    response = act_all(phone, table, *deal(5, 9), ("hit", {"player": "Ana", "card": "5"}))
    text = words(response)
    assert "Ana reached 5 of 5 points and loses the game. Nobody wins." in text
    assert 'class="pad-key"' not in page_text(response)


def play_until_the_deck_runs_out(store, table, seed=7):
    """Drive the table with a really shuffled deck until a reshuffle is due."""
    rng = random.Random(seed)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    deck = deck[pairs.BURN :]
    for _ in range(200):
        game = state_of(store, table)
        if game.reshuffle_due:
            return game
        kind = {"deal": "Deal", "tiebreak": "TieBreak", "play": "Hit"}[game.phase]
        action = {"type": kind, "player": game.to_act, "card": deck.pop()}
        store.act(table.token, store.version(table.token), action)
    raise AssertionError("the deck never ran out")


def test_an_empty_deck_prompts_a_reshuffle_and_burn(phone, make_table, store):
    table = make_table("pairs", TWO, {"target": 100})
    game = play_until_the_deck_runs_out(store, table)
    response = phone.get(f"/t/{table.token}")
    text = words(response)
    assert "The deck is empty" in text
    assert f"Shuffle the discard pile ({game.discards} cards)" in text
    assert 'class="pad-key"' not in page_text(response)  # no card before the reshuffle
    response = act_all(phone, table, ("reshuffle", {}))
    after = state_of(store, table)
    assert after.deck == game.discards - 5 and after.discards == 5  # P8
    assert "shuffled into a new deck and 5 cards burned" in words(response)


def test_the_pad_disables_ranks_with_every_copy_out(phone, make_table):
    table = make_table("pairs", TWO)
    response = act_all(phone, table, ("deal", {"player": "Ana", "card": "1"}))
    source = page_text(response)
    assert re.search(r'value="1" class="pad-key"\s+aria-label="[^"]*"\s*disabled', source)
    assert not re.search(r'value="2" class="pad-key"\s+aria-label="[^"]*"\s*disabled', source)


# --- bad input: 422, the message in the page, nothing written -----------------

BAD = [
    # (setup, posted fields, message)
    ([], {"action": "deal", "player": "Ana", "card": "0"}, "'0' is not a card of the Pairs deck"),
    ([], {"action": "deal", "player": "Ana", "card": "11"}, "'11' is not a card"),
    ([], {"action": "deal", "player": "Ana", "card": "ace"}, "'ace' is not a card"),
    ([], {"action": "deal", "player": "Ana", "card": ""}, "no card was entered"),
    ([], {"action": "deal", "player": "Ana", "card": "٣"}, "is not a card"),
    ([], {"action": "deal", "player": "Zed", "card": "3"}, "no player called 'Zed'"),
    ([], {"action": "deal", "card": "3"}, "the form had no player"),
    ([], {"action": "explode"}, "That button does nothing in Pairs"),
    ([], {"action": "hit", "player": "Ana", "card": "3"}, "Ana cannot hit yet"),
    ([], {"action": "reshuffle"}, "The deck still has 50 cards"),
    (deal(1), {"action": "deal", "player": "Ben", "card": "1"}, "only 1 card of rank 1"),
    (deal(1), {"action": "deal", "player": "Ana", "card": "5"}, "Ana already has a face-up card"),
    (
        deal(2, 5),
        {"action": "hit", "player": "Ben", "card": "3"},
        "Ben cannot hit: it is Ana's turn",
    ),
    (deal(2, 5), {"action": "fold", "player": "Ben"}, "Ben cannot fold: it is Ana's turn"),
    (
        deal(2, 5),
        {"action": "fold", "player": "Ana", "card": "5"},
        "a fold takes the lowest card in play, which is a 2",
    ),
    (deal(2, 5), {"action": "fold", "player": "Ana", "card": "2", "owner": "Ben"}, "Ben has no 2"),
    (deal(2, 5), {"action": "fold", "player": "Ana", "owner": "Zed"}, "no player called 'Zed'"),
    (deal(2, 5), {"action": "tiebreak", "player": "Ana", "card": "3"}, "no tie for low card"),
    (deal(2, 5), {"action": "hit", "player": "Ana", "card": "7.5"}, "'7.5' is not a card"),
]


@pytest.mark.parametrize(("setup", "fields", "message"), BAD)
def test_bad_input_answers_422_with_the_message_and_changes_nothing(
    phone, make_table, store, setup, fields, message
):
    table = make_table("pairs", TWO)
    act_all(phone, table, *setup)
    before = store.snapshot(table.token)
    fields = dict(fields)
    action = fields.pop("action")
    response = phone.act(table, action, **fields)
    assert response.status_code == 422
    assert message in phone_error(response)
    after = store.snapshot(table.token)
    assert after.table.version == before.table.version
    assert after.actions == before.actions


def test_bad_input_without_javascript_shows_the_full_page_with_the_message(phone, make_table):
    table = make_table("pairs", TWO)
    response = phone.post(
        f"/t/{table.token}/act",
        {"action": "deal", "player": "Ana", "card": "ace", "version": str(table.version)},
        htmx=False,
    )
    assert response.status_code == 422
    assert "<html" in page_text(response)
    assert "'ace' is not a card" in phone_error(response)


# --- undo and the history --------------------------------------------------------


def test_undo_takes_back_the_last_card(phone, make_table, store):
    table = make_table("pairs", TWO)
    act_all(phone, table, *deal(3, 7), ("hit", {"player": "Ana", "card": "9"}))
    response = phone.post(f"/t/{table.token}/undo", {"version": str(store.version(table.token))})
    assert response.status_code == 200
    game = state_of(store, table)
    assert game.stack("Ana") == (3,) and game.to_act == "Ana"


@pytest.mark.parametrize(
    ("action", "line"),
    [
        ({"type": "Deal", "player": "Ana", "card": 3}, "Dealt Ana a 3"),
        ({"type": "Deal", "player": "Ana", "card": 8}, "Dealt Ana an 8"),
        ({"type": "TieBreak", "player": "Ben", "card": 9}, "Tie-break card for Ben: 9"),
        ({"type": "Hit", "player": "Ana", "card": 7}, "Ana hit: 7"),
        (
            {"type": "Fold", "player": "Ana", "card": None, "owner": None},
            "Ana folded (lowest card)",
        ),
        (
            {"type": "Fold", "player": "Ana", "card": 4, "owner": "Ben"},
            "Ana folded, taking Ben's 4",
        ),
        ({"type": "Fold", "player": "Ana", "card": 4, "owner": "Ana"}, "Ana folded, taking 4"),
        ({"type": "Reshuffle"}, "Discards reshuffled, 5 burned"),
    ],
)
def test_history_lines_say_what_happened(action, line):
    assert screen.describe(action) == line


def test_summary_names_the_table_state(make_table, store, phone):
    table = make_table("pairs", TWO, {"target": 5})
    assert screen.summary(state_of(store, table)) == "Pairs to 5 · no points yet"
    act_all(phone, table, *deal(4, 9), ("hit", {"player": "Ana", "card": "4"}))
    assert screen.summary(state_of(store, table)) == "Pairs to 5 · round 2 · Ana on 4"
    act_all(phone, table, *deal(5, 9), ("hit", {"player": "Ana", "card": "5"}))
    assert screen.summary(state_of(store, table)) == "Pairs · Ana lost with 9 of 5"


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"target": "1e1"}, "not a whole number"),
        ({"target": "２０"}, "not a whole number"),
        ({"target": "5000"}, "not a whole number"),
    ],
)
def test_parse_options_rejects_junk_targets(form, message):
    with pytest.raises(FormError, match=message):
        screen.parse_options(form, ("Ana", "Ben"))


def test_parse_action_reads_a_fold_with_and_without_a_choice():
    game = pairs.new_game(TWO)
    assert screen.parse_action({"action": "fold", "player": "Ana"}, game, None) == pairs.Fold(
        "Ana", None, None
    )
    fold = screen.parse_action(
        {"action": "fold", "player": "Ana", "card": "4", "owner": "Ben"}, game, None
    )
    assert fold == pairs.Fold("Ana", 4, "Ben")
    # The store writes it to the log as JSON in one place.
    assert logged(fold) == {"type": "Fold", "player": "Ana", "card": 4, "owner": "Ben"}


def test_every_card_the_pad_can_post_round_trips_through_the_store(make_table, store, phone):
    # a whole short game posted through the forms ends with the loser on the page
    table = make_table("pairs", ["Ana", "Ben", "Cy"], {"target": 10})
    rng = random.Random(3)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    deck = deck[5:]
    for _ in range(300):
        game = state_of(store, table)
        if game.is_over:
            break
        if game.reshuffle_due:
            pile = list((Counter(PAIRS_DECK) - game.seen()).elements())
            rng.shuffle(pile)
            deck = pile[5:]
            act_all(phone, table, ("reshuffle", {}))
        elif game.phase == "play" and game.stack(game.to_act) and rng.random() < 0.3:
            act_all(phone, table, ("fold", {"player": game.to_act}))
        else:
            action = {"deal": "deal", "tiebreak": "tiebreak", "play": "hit"}[game.phase]
            act_all(phone, table, (action, {"player": game.to_act, "card": str(deck.pop())}))
    game = state_of(store, table)
    assert game.is_over
    response = phone.get(f"/t/{table.token}")
    assert f"{game.loser} reached" in words(response)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(["deal", "tiebreak", "hit", "fold", "reshuffle", "", "x" * 300]),
    st.sampled_from(["Ana", "Ben", "", "Zed", "<b>", "Ana\x00"]),
    st.one_of(st.integers(-2, 12).map(str), st.text(max_size=6)),
    st.sampled_from(["", "Ana", "Ben", "nobody"]),
)
def test_any_posted_form_is_taken_or_refused_with_422_never_a_500(
    phone, make_table, store, action, player, card, owner
):
    table = make_table("pairs", TWO, {"continuous": True})
    act_all(phone, table, *deal(3, 7))
    before = store.snapshot(table.token)
    response = phone.act(table, action, player=player, card=card, owner=owner)
    assert response.status_code in (200, 422)
    after = store.snapshot(table.token)
    if response.status_code == 422:
        assert phone_error(response)
        assert after.actions == before.actions
    else:
        assert len(after.actions) == len(before.actions) + 1
