"""Venture and Pairs boards in German, Polish and the pseudo-locale.

Issue 45: every word of the two card games' boards (pads, round status, who
has bid, the reveal list, captured piles, final scores, Pairs' fold buttons
and last-event line, both new-table options) is the phone's language. Each
state is read by one test-client phone in English and then in German and in
Polish (chosen with the top bar's switch): no English word of the English
board may be left on the translated one. Then the same states, and the
states the browser run does not reach, in the pseudo-locale: no word outside
its markers, hidden ones (aria-label, data-why, placeholder) included.
"""

from __future__ import annotations

import random
import re

import pytest

from companion.rules import venture
from companion.rules.cards import PAIRS_DECK
from companion.tables.store import Store
from tests.web.test_boards_languages_web import INNERMOST, BoardText, unmarked_on_board

NAMES = {"Ana", "Ben", "Cy", "Pairs", "Venture"}
# The end screen's export names an app, a site and a file format.
PRODUCTS = {"BG", "Stats", "BGG", "BoardGameGeek", "CSV"}
WORD = re.compile(r"[^\W\d_]{2,}")


def board_words(response) -> set[str]:
    """The words of ``#board`` (text nodes and said attributes), less names."""
    assert response.status_code == 200
    parser = BoardText()
    parser.feed(response.get_data(as_text=True))
    return set(WORD.findall(" ".join(parser.parts))) - NAMES


def unmarked(response) -> set[str]:
    """The board's words outside the pseudo-locale's markers, less names."""
    return unmarked_on_board(response, NAMES)


def act(store: Store, token: str, *actions: dict) -> None:
    for action in actions:
        store.act(token, store.version(token), action)


# --- the states, made through the store (what the phones would have entered) ---


def venture_states(store: Store) -> dict[str, str]:
    """Board addresses of Venture: the slug half entered, a round half bid,
    a round revealed (a lowest bid and a misfire), bids that cannot all be
    right (sent back to be checked), the game over."""
    slug = store.create_table("venture", ["Ana", "Ben", "Cy"], {"drafting": True}).token
    bidding = store.create_table("venture", ["Ana", "Ben", "Cy"], {"drafting": True}).token
    act(store, bidding, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    act(store, bidding, {"type": "Bid", "player": "Ana", "card": 3})
    revealed = store.create_table("venture", ["Ana", "Ben", "Cy"], {}).token
    act(store, revealed, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    for player, card in (("Ana", 2), ("Ben", 7), ("Cy", 7), ("Ana", 9), ("Ben", 3)):
        act(store, revealed, {"type": "Bid", "player": player, "card": card})
    recheck = store.create_table("venture", ["Ana", "Ben", "Cy"], {}).token
    act(store, recheck, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    for player in ("Ana", "Ben", "Cy"):  # three 1s: the deck holds one
        act(store, recheck, {"type": "Bid", "player": player, "card": 1})
    over = store.create_table("venture", ["Ana", "Ben", "Cy"], {}).token
    deck = list(PAIRS_DECK)
    random.Random(3).shuffle(deck)
    size, hand = venture.slug_size(3), venture.hand_size(3)
    act(store, over, {"type": "EnterSlug", "cards": deck[:size]})
    hands = [deck[size + i * hand : size + (i + 1) * hand] for i in range(3)]
    for turn in range(hand):
        for seat, player in enumerate(("Ana", "Ben", "Cy")):
            act(store, over, {"type": "Bid", "player": player, "card": hands[seat][turn]})
    return {
        "venture-slug": f"/t/{slug}/board?c=4&c=5&c=6&c=8",
        "venture-slug-started": f"/t/{slug}/board?c=4&c=4",
        "venture-bidding": f"/t/{bidding}/board",
        "venture-revealed": f"/t/{revealed}/board",
        "venture-recheck": f"/t/{recheck}/board",
        "venture-over": f"/t/{over}/board",
    }


def pairs_states(store: Store) -> dict[str, str]:
    """Board addresses of Pairs: the deal, a tie for low card, a turn after a
    hit (a fold proposed), Continuous Pairs' fold choices, the game lost."""
    deal = store.create_table("pairs", ["Ana", "Ben", "Cy"], {}).token
    tie = store.create_table("pairs", ["Ana", "Ben", "Cy"], {}).token
    act(store, tie, *({"type": "Deal", "player": p, "card": c} for p, c in
                      (("Ana", 5), ("Ben", 5), ("Cy", 9))))  # fmt: skip
    act(store, tie, {"type": "TieBreak", "player": "Ana", "card": 7})
    play = store.create_table("pairs", ["Ana", "Ben", "Cy"], {}).token
    act(store, play, *({"type": "Deal", "player": p, "card": c} for p, c in
                       (("Ana", 5), ("Ben", 9), ("Cy", 6))))  # fmt: skip
    act(store, play, {"type": "Hit", "player": "Ana", "card": 8})
    continuous = store.create_table("pairs", ["Ana", "Ben"], {"continuous": True}).token
    act(store, continuous, *({"type": "Deal", "player": p, "card": c} for p, c in
                             (("Ana", 4), ("Ben", 9))))  # fmt: skip
    act(store, continuous, {"type": "Hit", "player": "Ana", "card": 8})
    lost = store.create_table("pairs", ["Ana", "Ben"], {"target": 5}).token
    act(store, lost, *({"type": "Deal", "player": p, "card": c} for p, c in
                       (("Ana", 5), ("Ben", 9))))  # fmt: skip
    act(store, lost, {"type": "Hit", "player": "Ana", "card": 5})
    return {
        "pairs-deal": f"/t/{deal}/board",
        "pairs-tie": f"/t/{tie}/board",
        "pairs-play": f"/t/{play}/board",
        "pairs-continuous": f"/t/{continuous}/board",
        "pairs-lost": f"/t/{lost}/board",
    }


# Words a translation may share with the English board: words of that language
# too, checked by eye (German "tippe sie unten an", "in", "Chance"; Polish
# "Draft włączony", "To pula"; the end screen's chart starts at "Start").
SAME_WORD = {"de": {"an", "in", "Start", "Chance"}, "pl": {"Draft", "to", "Start"}}


def test_no_english_word_is_left_on_german_or_polish_boards(phone, store):
    boards = {**venture_states(store), **pairs_states(store)}
    english = {}
    assert phone.client.get("/language/en?next=/").status_code == 303
    for name, url in boards.items():
        english[name] = board_words(phone.get(url, htmx=True))
    # The English boards say what the test looks for: the words were there.
    said = set().union(*english.values())
    assert {"Captured", "Scoring", "misfire", "Pool", "fold", "bid", "turn"} <= said
    for language in ("de", "pl"):
        assert phone.client.get(f"/language/{language}?next=/").status_code == 303
        for name, url in boards.items():
            left = english[name] & board_words(phone.get(url, htmx=True))
            left -= SAME_WORD[language] | PRODUCTS
            assert not left, (language, name, " ".join(sorted(left)))


WORDED = {
    "de": {"venture-revealed": ["Runde 1 aufgedeckt", "Die 2 von Ana ist das niedrigste Gebot"],
           "pairs-play": ["Ana zieht eine 8: kein Paar.", "Ben ist dran"]},
    "pl": {"venture-revealed": ["Runda 1 odkryta", "Karta 2 gracza Ana to najniższa oferta"],
           "pairs-play": ["Ana dobiera kartę 8: brak pary.", "Kolej gracza Ben"]},
}  # fmt: skip


@pytest.mark.parametrize("language", ["de", "pl"])
def test_the_reveal_and_the_last_event_are_whole_sentences(phone, store, language):
    """The referee's English readings (Step.describe, Event.describe) are
    worded as whole sentences of the phone's language, capital and stop added."""
    boards = {**venture_states(store), **pairs_states(store)}
    assert phone.client.get(f"/language/{language}?next=/").status_code == 303
    for name, sentences in WORDED[language].items():
        text = " ".join(phone.get(boards[name], htmx=True).get_data(as_text=True).split())
        for sentence in sentences:
            assert sentence in text, (name, sentence)


# --- the pseudo-locale ----------------------------------------------------------


def reshuffle_due(store: Store) -> str:
    """A Pairs table whose deck ran out: the reshuffle prompt."""
    token = store.create_table("pairs", ["Ana", "Ben"], {"target": 100}).token
    deck = list(PAIRS_DECK)
    random.Random(7).shuffle(deck)
    deck = deck[5:]
    for _ in range(200):
        game = store.snapshot(token).state
        if game.reshuffle_due:
            return f"/t/{token}/board"
        kind = {"deal": "Deal", "tiebreak": "TieBreak", "play": "Hit"}[game.phase]
        act(store, token, {"type": kind, "player": game.to_act, "card": deck.pop()})
    raise AssertionError("the deck never ran out")


def test_no_card_game_word_is_left_unmarked_in_the_pseudo_locale(pseudo):
    phone, store = pseudo
    boards: dict[str, str] = {**venture_states(store), **pairs_states(store)}
    boards["pairs-reshuffle"] = reshuffle_due(store)
    seated = store.create_table("venture", ["Ana", "Ben", "Cy"], {}).token
    act(store, seated, {"type": "EnterSlug", "cards": [4, 5, 6, 8]})
    act(store, seated, {"type": "Bid", "player": "Ana", "card": 2})
    for name, url in boards.items():
        left = unmarked(phone.get(url, htmx=True))
        assert not left, (name, left)
    # A seated phone: its pad, then its own bid behind "show" (change, take back).
    assert phone.sit(seated, "Ben").status_code == 200
    left = unmarked(phone.get(f"/t/{seated}/board", htmx=True))
    assert not left, ("venture-seated", left)
    assert phone.act(seated, "bid", player="Ben", card="5").status_code == 200
    left = unmarked(phone.get(f"/t/{seated}/board", htmx=True))
    assert not left, ("venture-seated-bid", left)
    for game in ("venture", "pairs"):
        page = phone.get(f"/new/{game}").get_data(as_text=True)
        options = re.search(r"<fieldset[^>]*>.*</fieldset>", page, re.S)
        assert options, game
        text = re.sub(r"<[^>]+>", " ", options[0])
        for value in re.findall(r'(?:placeholder|aria-label)="([^"]*)"', options[0]):
            text += " " + value
        while INNERMOST.search(text):
            text = INNERMOST.sub(" ", text)
        assert not set(WORD.findall(text)) - NAMES, game
