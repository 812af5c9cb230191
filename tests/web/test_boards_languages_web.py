"""Autumn Leaves, Autumn Ash, the score pad and solitaire in German and Polish.

Issue 45: each board's refusals (values with an id in ``companion/rules``,
worded where shown) and its status line come in the language of the phone
that reads them. One refusal and one status line per game, each phone a
test client whose language is chosen with the top bar's switch; the words
are the catalogs' (a missing or English entry fails). Then the board states
and new-table options the browser's pseudo-locale run does not reach, read
in the pseudo-locale: no word of them outside the markers, hidden ones too.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

import pytest
from babel.numbers import format_decimal

from companion.i18n import PSEUDO_CLOSE, PSEUDO_OPEN
from companion.rules import solitaire_deals
from companion.web.solitaire_pages import solver_odds


def words(response) -> str:
    return " ".join(unescape(response.get_data(as_text=True)).split())


@pytest.fixture(params=["de", "pl"])
def language(request, phone):
    """The phone reads this language: it chose it in the top bar."""
    assert phone.client.get(f"/language/{request.param}?next=/").status_code == 303
    return request.param


NOT_ENTERED = {"de": "wurde nicht übernommen", "pl": "nie zostało wprowadzone"}

AUTUMN_LEAVES = {
    "de": {
        "refusal": "Ben ist noch nicht dran: Ana ist am Zug (niedrigste Karte zuerst).",
        "status": "<strong>Durchgang 1 von 6</strong> · Runde 2",
        "prompt": "Die 3 von Ana passt auf keinen Stapel",
        "reason": "Ana ist vor Ben dran: gleiche Karte, und Ana hat die niedrigere oberste Karte",
    },
    "pl": {
        "refusal": "Ben nie może jeszcze grać: teraz kolej gracza Ana (najpierw najniższa karta).",
        "status": "<strong>Rozdanie 1 z 6</strong> · runda 2",
        "prompt": "Karta 3 gracza Ana nie pasuje na żaden stos",
        "reason": "Ana przed Ben: ta sama karta, a stos gracza Ana ma niższą kartę na wierzchu",
    },
}


def test_autumn_leaves_refuses_and_says_whose_turn_it_is(phone, make_table, language):
    table = make_table("autumn_leaves", ["Ana", "Ben", "Cy"])
    for cards in ((5, 6, 9), (3, 3, 8)):  # Ana and Ben tie on 3: Ana's pile tops lower
        fields = {f"card{i}": str(card) for i, card in enumerate(cards)}
        assert phone.act(table, "reveal-all", **fields).status_code == 200
    said = AUTUMN_LEAVES[language]
    board = words(phone.get(f"/t/{table.token}/board", htmx=True))
    assert said["status"] in board and said["prompt"] in board and said["reason"] in board
    refused = phone.act(table, "take-back", player="Ben")
    assert refused.status_code == 422
    assert said["refusal"] in words(refused) and NOT_ENTERED[language] in words(refused)


SCOREPAD = {
    "de": {"refusal": "Gib mindestens eine Runde ein, bevor du das Spiel beendest.",
           "status": "Ben führt.", "heading": "Runde 2"},
    "pl": {"refusal": "Wpisz co najmniej jedną rundę, zanim zakończysz grę.",
           "status": "Prowadzi Ben.", "heading": "Runda 2"},
}  # fmt: skip


def test_the_score_pad_refuses_and_says_who_is_ahead(phone, make_table, language):
    table = make_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    said = SCOREPAD[language]
    refused = phone.act(table, "finish")
    assert refused.status_code == 422 and said["refusal"] in words(refused)
    entered = words(phone.act(table, "add-round", score0="3", score1="4"))
    assert said["status"] in entered and said["heading"] in entered


SOLITAIRE = {
    "de": {"refusal": "Die Karten liegen schon auf Stapel 1.", "status": "Partie Nr. 20",
           "how": "Tippe eine Karte an (die Karten darauf kommen mit)",
           "tested": "der %s getesteten Partien"},
    "pl": {"refusal": "Karty już są na stosie 1.", "status": "Rozdanie nr 20",
           "how": "Stuknij kartę (zabiera karty leżące na niej)",
           "tested": "z %s rozdań"},
}  # fmt: skip


def test_solitaire_refuses_and_says_which_deal_it_is(phone, make_table, language):
    table = make_table("solitaire", ["Solo"], {"deal": 20})
    said = SOLITAIRE[language]
    board = words(phone.get(f"/t/{table.token}/board", htmx=True))
    assert said["status"] in board and said["how"] in board
    refused = phone.act(table, "move", pick="0:1", target="0")
    assert refused.status_code == 422 and said["refusal"] in words(refused)
    # The statistics page writes its numbers as the phone's language does.
    page = words(phone.get("/solitaire"))
    odds = solver_odds(language)
    assert "," in odds and odds in page, "a decimal comma in German and Polish"
    tested = format_decimal(solitaire_deals.load().tested, locale=language)
    assert (
        tested != f"{solitaire_deals.load().tested:,}"
        and " ".join((said["tested"] % tested).split()) in page
    )


RUN_ON_TOP = {"de": "mit 1 Karte darauf", "pl": "z 1 kartą na wierzchu"}


def test_solitaire_speaks_a_run_of_cards_in_the_phones_language(phone, make_table, store, language):
    """A face-up card with another on it is spoken with the count (a plural in
    the catalog); the plural once counted the card's name and failed (a 500)."""
    table = make_table("solitaire", ["Solo"], {"deal": 20})
    moves = ((0, 4), None, (1, 2), (3, 5), (0, 3))  # a Deal between; then 3 holds a run
    for move in moves:
        action = (
            {"type": "Deal"}
            if move is None
            else {"type": "Move", "source": move[0], "target": move[1], "count": 1}
        )
        store.act(table.token, store.version(table.token), action)
    board = phone.get(f"/t/{table.token}/board", htmx=True)
    assert board.status_code == 200 and RUN_ON_TOP[language] in words(board)


AUTUMN_ASH = {
    "de": {"refusal": "Rainbow hat einen erlaubten Zug und kann deshalb nicht passen",
           "status": "Ana (Rainbow): tippe eine deiner Figuren an.",
           "piece": "grüne Königin"},
    "pl": {"refusal": "Rainbow ma dozwolony ruch, więc nie może spasować",
           "status": "Ana (Rainbow): stuknij jedną ze swoich figur.",
           "piece": "zielona królowa"},
}  # fmt: skip


def test_autumn_ash_refuses_and_says_whose_move_it_is(phone, make_table, language):
    table = make_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana", "mode": "board"})
    assert phone.act(table, "setup", layout="ours", first="Ana").status_code == 200
    said = AUTUMN_ASH[language]
    board = words(phone.get(f"/t/{table.token}/board", htmx=True))
    assert said["status"] in board and said["piece"] in board  # a square's label
    refused = phone.act(table, "pass")
    assert refused.status_code == 422 and said["refusal"] in words(refused)


# --- every state of the four boards in the pseudo-locale ------------------------


class BoardText(HTMLParser):
    """The text nodes inside ``#board`` (hidden ones too: a screen reader says them)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # open elements inside #board; 0: outside
        self.skip = 0  # inside <script> or <style>
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        inside = bool(self.depth) or ("id", "board") in attrs
        if inside:  # words in attributes too: a screen reader's label, a tap's "why"
            self.parts += [v or "" for k, v in attrs if k in SAID and "{" not in (v or "")]
        if inside and tag not in VOID:
            self.depth += 1
        self.skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        self.depth = max(0, self.depth - 1) if self.depth else 0
        self.skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if self.depth and not self.skip:
            self.parts.append(data)


VOID = {"input", "br", "img", "meta", "link", "hr", "source", "wbr"}
SAID = {"aria-label", "title", "placeholder", "data-why", "data-limited"}
INNERMOST = re.compile(f"{PSEUDO_OPEN}[^{PSEUDO_OPEN}{PSEUDO_CLOSE}]*{PSEUDO_CLOSE}")
NAMES = {"Ana", "Ben", "Cy", "Solo", "Rainbow", "Xeno"}


def unmarked_on_board(response, names: set[str] = NAMES) -> set[str]:
    """The board's words outside the pseudo-locale's markers, less ``names``."""
    parser = BoardText()
    parser.feed(response.get_data(as_text=True))
    text = " ".join(parser.parts)
    assert PSEUDO_OPEN in text, "the board is in the pseudo-locale"
    while INNERMOST.search(text):
        text = INNERMOST.sub(" ", text)
    return set(re.findall(r"[^\W\d_]{2,}", text)) - names


def leaves_at(store, phase: str):
    table = store.create_table("autumn_leaves", ["Ana", "Ben", "Cy"], {})
    act = [{"type": "Reveal", "cards": [["Ana", 5], ["Ben", 6], ["Cy", 9]]}]
    if phase == "play":
        act.append({"type": "Reveal", "cards": [["Ana", 4], ["Ben", 7], ["Cy", 10]]})
    for action in act:
        store.act(table.token, store.version(table.token), action)
    return table


def ash_at(store, phase: str):
    if phase == "race":
        table = store.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"})
        bag = {"type": "Bag", "player": "Ana", "pieces": [["red", 1], ["red", 2], ["red", 3]]}
        store.act(table.token, 0, bag)
        return table
    return store.create_table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana", "mode": "board"})


def test_no_board_or_option_word_is_left_unmarked_in_the_pseudo_locale(pseudo):
    """The states the browser's pseudo-locale run does not reach (Autumn
    Leaves' reveal, Autumn Ash's race and setup) and the new-table options,
    hidden words included: one app, one pseudo catalog, for speed."""
    phone, store = pseudo
    tables = {
        "leaves-reveal": leaves_at(store, "reveal"),
        "leaves-play": leaves_at(store, "play"),
        "ash-race": ash_at(store, "race"),
        "ash-setup": ash_at(store, "setup"),
    }
    for name, table in tables.items():
        left = unmarked_on_board(phone.get(f"/t/{table.token}/board", htmx=True))
        assert not left, (name, left)
    for game in ("autumn_leaves", "autumn_ash", "scorepad", "solitaire"):
        page = phone.get(f"/new/{game}").get_data(as_text=True)
        options = re.search(r"<fieldset[^>]*>.*</fieldset>", page, re.S)
        assert options, game
        text = re.sub(r"<[^>]+>", " ", options[0])
        while INNERMOST.search(text):
            text = INNERMOST.sub(" ", text)
        assert not set(re.findall(r"[^\W\d_]{2,}", text)) - NAMES, game
