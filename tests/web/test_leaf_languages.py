"""Leaf and the North Wind answer each phone in its own language (issue 45).

A German and a Polish phone: the score sheet's status line, a form refusal
and a refusal of the referee itself (companion/rules/leaf.py); the North
Wind's heading, its latest note and a refusal of its referee
(companion/rules/north_wind.py), plural forms included. No English word of
those screens is left in the answer.
"""

import re

import pytest

WORDS = {
    "de": {
        "still_to_count": "Noch zu zählen: Hera, Cleo",
        "too_many_foxes": "Füchse von Hera: 7 geht nicht, höchstens 6.",
        "climb": "Das Eichhörnchen kann nicht 40 Felder geklettert sein",
        "not_entered": "Dieses Tippen wurde nicht übernommen.",
        "setup": "Den Nordwind aufbauen",
        "forest_note": "Der Wald des Nordwinds: 1 Fuchs, 1 Eule.",
        "not_now": "Eine gelbe oder grüne Aktion abschließen geht jetzt nicht: Ana ist am Zug.",
        "has": "Der Nordwind hat",
    },
    "pl": {
        "still_to_count": "Jeszcze do policzenia: Hera, Cleo",
        "too_many_foxes": "Lisy (Hera): 7 to za dużo, najwyżej 6.",
        "climb": "Wiewiórka nie mogła wspiąć się o 40 pól",
        "not_entered": "To stuknięcie nie zostało wprowadzone.",
        "setup": "Przygotuj Wiatr Północny",
        "forest_note": "Las Wiatru Północnego: 1 lis, 1 sowa.",
        "not_now": "Teraz nie można: zakończyć żółtą lub zieloną akcję; teraz tura gracza Ana.",
        "has": "Wiatr Północny ma",
    },
}
# English words of these screens that must not show on a translated phone.
ENGLISH = ("Still to count", "North Wind", "Save Hera", "Count up", "acorns", "Forest:")


def text(response) -> str:
    html = response.get_data(as_text=True)
    plain = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    return plain.replace("&#39;", "'").replace("&#34;", '"')


@pytest.mark.parametrize("language", ["de", "pl"])
def test_a_leaf_sheet_answers_in_the_phones_language(phone, make_table, language):
    words = WORDS[language]
    sheet = make_table("leaf", ["Hera", "Cleo"])
    phone.client.get(f"/language/{language}")
    page = text(phone.get(f"/t/{sheet.token}/board", htmx=True))
    assert words["still_to_count"] in page
    assert not [w for w in ENGLISH if w in page], page
    refused = phone.act(sheet, "tally", player="Hera", den_fox="7")
    assert refused.status_code == 422
    assert words["too_many_foxes"] in text(refused)
    assert words["not_entered"] in text(refused)
    refused = phone.act(sheet, "tally", player="Hera", tree="40")  # the referee's own (LX3)
    assert refused.status_code == 422
    assert words["climb"] in text(refused)


@pytest.mark.parametrize("language", ["de", "pl"])
def test_the_north_wind_speaks_the_phones_language(phone, make_table, language):
    words = WORDS[language]
    solo = make_table("north_wind", ["Ana"], {"difficulty": "normal"})
    phone.client.get(f"/language/{language}")
    page = text(phone.get(f"/t/{solo.token}/board", htmx=True))
    assert words["setup"] in page and words["has"] in page
    answer = text(phone.act(solo, "setup", a1="fox", a2="owl"))
    assert words["forest_note"] in answer
    assert not [w for w in ENGLISH if w in answer], answer
    refused = phone.act(solo, "done")  # a yellow action's "done" on the human's turn
    assert refused.status_code == 422
    assert words["not_now"] in text(refused)
