"""Error pages and refusals in the phone's language.

Every page that says something went wrong, and every refusal the app makes
outside a game (a stale page, a mistyped link, too many wrong codes, the
job slots' refusals, a host name the server cannot answer), is worded in
the phone's language: the pseudo-locale shows no word of them left
unmarked, every catalog translates each sentence, and a German and a
French phone read their own words. A 429 says when to try again once: on
a page, from ``Retry-After``; to the phone's script, not at all (the
script adds it, ``static/app.js``).
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from companion.i18n import LANGUAGES, SOURCE, catalog
from companion.web import (
    FAR_TOO_LARGE,
    IMPORT_TOO_LARGE,
    NOTHING_HERE,
    SOMETHING_WRONG,
    STALE_PAGE,
    UNREADABLE,
    WAIT_A_MINUTE,
    WRONG_METHOD,
    _error_page,
    ratelimit,
)
from companion.web.costly import OneAtATime, ServerBusy, ShareUsed, _cheap_refusal
from companion.web.home import TOO_MANY_WRONG_CODES
from companion.web.outage import UNKNOWN_HOST
from companion.web.ratelimit import StillOverTheLimit
from tests.web.test_languages import pseudo_app as pseudo_app  # a fixture
from tests.web.test_languages import unmarked_words

SENTENCES = [
    STALE_PAGE, NOTHING_HERE, WRONG_METHOD, FAR_TOO_LARGE, IMPORT_TOO_LARGE, UNREADABLE,
    SOMETHING_WRONG, WAIT_A_MINUTE, TOO_MANY_WRONG_CODES, UNKNOWN_HOST,
    ServerBusy.description, OneAtATime.description, ShareUsed.description,
]  # fmt: skip
HTMX = {"HX-Request": "true"}


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


@pytest.mark.parametrize("language", sorted(set(LANGUAGES) - {SOURCE}))
def test_every_error_sentence_has_its_own_words_in_every_catalog(language):
    words = catalog(language)
    untranslated = [s for s in SENTENCES if words.gettext(s) == s]
    assert not untranslated


def test_the_job_slots_refusals_are_marked_words():
    for refusal in (ServerBusy(), OneAtATime(), ShareUsed(30)):
        assert refusal.worded and refusal.description in SENTENCES


@pytest.fixture
def pseudo_phone(pseudo_app):
    from companion.i18n import PSEUDO

    phone = pseudo_app.test_client()
    phone.get(f"/language/{PSEUDO}")
    return phone


def _table(app: Any) -> str:
    return app.extensions["leafpile_store"].create_table("scorepad", ["Ana", "Ben"], {}).token


@pytest.mark.parametrize(
    ("ask", "status"),
    [
        (lambda phone, token: phone.get("/t/nosuchtableatallhere"), 404),
        (lambda phone, token: phone.put(f"/t/{token}/act"), 405),
        (lambda phone, token: phone.post(f"/t/{token}/act", data={"action": "add-round"}), 403),
        (lambda phone, token: phone.post("/new/scorepad", data={"x": "y" * 3_000_000}), 413),
        (lambda phone, token: phone.get("/t/nosuchtableatallhere", headers=HTMX), 404),
    ],
    ids=["404", "405", "stale-403", "413", "404-fragment"],
)
def test_every_word_of_an_error_page_is_marked_in_the_pseudo_locale(
    pseudo_app, pseudo_phone, ask, status
):
    answer = ask(pseudo_phone, _table(pseudo_app))
    assert answer.status_code == status
    assert not unmarked_words(answer.get_data(as_text=True), {"Leafpile"})


def test_too_many_wrong_codes_is_marked_in_the_pseudo_locale(pseudo_phone):
    for _ in range(ratelimit.MAX_FAILURES):
        assert pseudo_phone.get("/join?code=QQQQQ").status_code == 404
    blocked = pseudo_phone.get("/join?code=QQQQQ")
    assert blocked.status_code == 429
    assert not unmarked_words(blocked.get_data(as_text=True), {"Leafpile", "QQQQQ", "e", "g"})


def test_a_host_name_the_server_cannot_answer_is_refused_in_the_phones_language(client):
    spanish = client.get("/", headers={"Host": "a..b", "Accept-Language": "es"})
    assert spanish.status_code == 400
    assert spanish.get_data(as_text=True) == (
        "Este servidor no puede responder al nombre de host de esta dirección: "
        "revisa la dirección.\n"
    )
    english = client.get("/", headers={"Host": "a..b"})
    assert english.get_data(as_text=True).startswith("This address's host name")


def test_a_german_phone_reads_the_missing_table_and_the_stale_page_in_german(app, client):
    client.get("/language/de")
    missing = client.get("/t/nosuchtableatallhere")
    said = _text(missing.get_data(as_text=True))
    assert "Hier ist nichts. Vielleicht ist der Link falsch getippt" in said
    stale = client.post(f"/t/{_table(app)}/act", data={"action": "add-round", "version": "0"})
    assert stale.status_code == 403
    said = _text(stale.get_data(as_text=True))
    assert "Diese Seite war veraltet, darum wurde nichts geändert." in said


@pytest.mark.parametrize(
    ("headers", "said"),
    [
        ({}, "Gerade zu viele Anfragen von diesem Handy. Versuch es in 42 s noch einmal."),
        (HTMX, "Gerade zu viele Anfragen von diesem Handy."),
    ],
    ids=["page", "script"],
)
def test_a_429_says_when_to_try_again_once_in_the_phones_language(app, headers, said):
    with app.test_request_context("/", headers={"Accept-Language": "de", **headers}):
        body, status, sent = _error_page(StillOverTheLimit(42))
    assert status == 429 and sent["Retry-After"] == "42"
    text = _text(body)
    assert said in text
    assert text.count("Versuch es") == (0 if headers else 1)


def test_a_429_without_a_wait_asks_for_a_minute(app):
    from werkzeug.exceptions import TooManyRequests

    with app.test_request_context("/", headers={"Accept-Language": "fr"}):
        body, status, _ = _error_page(TooManyRequests())
    assert status == 429
    said = _text(body)
    assert "Trop de demandes de ce téléphone pour l'instant." in said
    assert "Attendez une minute, puis réessayez." in said


@pytest.mark.parametrize(
    ("refusal", "said"),
    [
        (
            ShareUsed(30),
            "Ce téléphone a utilisé sa part de l'ordinateur de l'hôte pour cette minute "
            "(conseils, fichiers à imprimer et imports). Réessayez dans 30 s.",
        ),
        (ServerBusy(), "L'ordinateur de l'hôte est occupé par les demandes d'autres joueurs."),
        (OneAtATime(), "La dernière demande de ce téléphone (un conseil"),
    ],
    ids=["share-used", "busy", "one-at-a-time"],
)
def test_the_job_slots_refusal_page_is_in_the_phones_language(app, refusal, said):
    with app.test_request_context("/print/kit.pdf", headers={"Accept-Language": "fr"}):
        page = _cheap_refusal(refusal)
    assert page.status_code == refusal.code
    text = _text(page.get_data(as_text=True))
    assert said in text and "Cela n'a pas marché" in text
    assert 'lang="fr"' in page.get_data(as_text=True)
    assert text.count("Réessayez") == 1


def test_a_phones_script_gets_a_used_share_without_the_wait(app):
    with app.test_request_context("/", headers={"Accept-Language": "fr", **HTMX}):
        body, status, sent = _cheap_refusal(ShareUsed(30))
    assert status == 429 and sent["Retry-After"] == "30"
    assert "Réessayez" not in _text(body)
