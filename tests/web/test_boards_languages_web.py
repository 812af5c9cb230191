"""Autumn Leaves, Autumn Ash, the score pad and solitaire in German and Polish.

Issue 45: each board's refusals (values with an id in ``companion/rules``,
worded where shown) and its status line come in the language of the phone
that reads them. One refusal and one status line per game, each phone a
test client whose language is chosen with the top bar's switch; the words
are the catalogs' (a missing or English entry fails).
"""

from __future__ import annotations

from html import unescape

import pytest
from babel.numbers import format_decimal

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
        "status": "<strong>Hand 1 von 6</strong> · Runde 2",
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
    "de": {"refusal": "Die Karten liegen schon auf Stapel 1.", "status": "Spiel Nr. 20",
           "how": "Tippe eine Karte an (die Karten darauf kommen mit)",
           "tested": "der %s getesteten Spiele"},
    "pl": {"refusal": "Karty już są na stosie 1.", "status": "Gra nr 20",
           "how": "Stuknij kartę (zabiera karty leżące na niej)",
           "tested": "z %s gier"},
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
