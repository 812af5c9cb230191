"""Each phone its own language at one table (companion/web/i18n.py).

A phone reads the language it chose in the top bar (a cookie on that phone
only), else its browser's Accept-Language, else English; the rules' refusals
are values (an id, parameters) worded in the language of the phone that sees
them; the shared render cache keys on the language, and the secrecy
differential holds with every phone reading another language.
"""

from __future__ import annotations

import html
import io
import itertools
import json
import pickle
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from babel.dates import format_datetime

from companion import create_app
from companion.i18n import PSEUDO, PSEUDO_CLOSE, PSEUDO_OPEN, write_pseudo
from companion.rules import venture
from companion.rules.errors import IllegalAction, TooManyCopies
from companion.rules.messages import refusal
from companion.tables.errors import TableError
from companion.web.board_cache import forget_renders
from tests.conftest import _config
from tests.end_games import (
    SOLITAIRE_DEAL,
    finish_autumn_ash,
    finish_leaf,
    finish_pairs,
    finish_scorepad,
    finish_solitaire,
    finish_venture,
)
from tests.web.test_secrets import (
    VENTURE,
    FlaskPhone,
    assert_same_worlds,
    create_through_the_form,
    play_world,
)

STATIC = Path(__file__).resolve().parents[2] / "companion" / "static"


def page_language(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)"', page)
    assert found, page[:200]
    return found[1]


@pytest.mark.parametrize(
    ("accept", "language", "word"),
    [
        ("de-DE,de;q=0.9,en;q=0.5", "de", "Einen Tisch beginnen"),
        ("de-AT", "de", "Einen Tisch beginnen"),
        ("fr-CA,fr;q=0.8", "fr", "Lancer une table"),
        ("es-MX", "es", "Empezar una mesa"),
        ("it", "it", "Inizia un tavolo"),
        ("nl-BE", "nl", "Een tafel beginnen"),
        ("pl", "pl", "Załóż stół"),
        ("pt-BR", "pt-BR", "Começar uma mesa"),
        ("pt-PT,pt;q=0.9", "pt-BR", "Começar uma mesa"),  # the Portuguese we have
        ("ja,zh;q=0.8", "en", "Start a table"),  # none offered: English
        ("", "en", "Start a table"),
        ("sv,fr;q=0.5", "fr", "Lancer une table"),  # the first offered in the browser's order
    ],
)
def test_a_phone_reads_its_browsers_language(client, accept, language, word):
    html = client.get("/", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert page_language(html) == language
    assert word in html


def test_the_switch_remembers_a_language_on_this_phone_only(app):
    mine, theirs = app.test_client(), app.test_client()
    answer = mine.get("/language/pl?next=/records", headers={"Accept-Language": "de"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/records"
    cookie = answer.headers["Set-Cookie"]
    assert "leafpile_lang=pl" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    # The choice beats the browser's language, on this phone and no other.
    html = mine.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert page_language(html) == "pl" and "Załóż stół" in html
    other = theirs.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert page_language(other) == "de"


def test_the_switch_lists_every_language_in_its_own_name_with_44px_links(client):
    html = client.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    switch = re.search(r'<details class="language-switch">(.*?)</details>', html, re.S)
    assert switch, "the top bar has the language switch"
    names = re.findall(r'lang="([^"]+)"[^>]*>([^<]+)</a>', switch[1])
    assert names[0] == ("fr", "Français")  # this phone's first
    assert {name for _, name in names} == {
        "English", "Deutsch", "Français", "Español", "Italiano", "Nederlands", "Polski",
        "Português (Brasil)",
    }  # fmt: skip
    assert 'title="Langue"' in switch[1] and ">FR</summary>" in switch[1]


@pytest.mark.parametrize("back", ["https://evil.example/", "//evil.example/x", "javascript:1", ""])
def test_the_switch_goes_back_only_to_a_page_of_this_site(client, back):
    answer = client.get(f"/language/de?next={back}")
    assert answer.status_code == 303 and answer.headers["Location"] == "/"


def test_an_unknown_language_forgets_the_choice(client):
    client.get("/language/de")
    answer = client.get("/language/xx")
    assert "leafpile_lang=;" in answer.headers["Set-Cookie"]
    html = client.get("/", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert page_language(html) == "it"


def test_the_pseudo_locale_is_not_offered(client):
    client.get(f"/language/{PSEUDO}")
    html = client.get("/").get_data(as_text=True)
    assert page_language(html) == "en" and PSEUDO_OPEN not in html
    assert PSEUDO not in html


# --- refusals are values ------------------------------------------------------


def test_a_refusal_is_a_value_with_an_id_and_the_same_english_words():
    state = venture.new_game(["Ana", "Ben", "Cy"])
    state = venture.apply(state, venture.EnterSlug((2, 3, 9, 10)))
    state = venture.apply(state, venture.Bid("Ana", 5))
    with pytest.raises(IllegalAction) as refused:
        venture.apply(state, venture.Bid("Ana", 6))
    assert str(refused.value) == (
        "Ana has already bid this round; change that bid instead of bidding again"
    )
    assert refused.value.message.id == "venture.bid.twice"
    assert dict(refused.value.message.params) == {"player": "Ana"}


def test_a_refusal_inside_a_refusal_and_a_plural_keep_their_english():
    state = venture.new_game(["Ana", "Ben", "Cy"])
    state = venture.apply(state, venture.EnterSlug((1, 2, 2, 9)))
    with pytest.raises(TooManyCopies) as refused:
        venture.apply(state, venture.Bid("Ana", 1))
    assert str(refused.value) == (
        "Ana cannot bid a 1: the only 1 is already in the pool or in a captured pile"
    )
    assert refused.value.message.params["seen"].id == "venture.bid.spent.one"  # type: ignore[union-attr]


# --- two phones, one table, two languages --------------------------------------


def _phone(app: Any, language: str) -> Any:
    phone = app.test_client()
    phone.get(f"/language/{language}")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', phone.get("/").get_data(as_text=True))
    assert csrf
    phone.csrf = csrf[1]
    return phone


def _post(phone: Any, path: str, **form: str) -> Any:
    return phone.post(path, data={"csrf_token": phone.csrf, **form}, headers={"HX-Request": "true"})


def _error(answer: Any) -> str:
    found = re.findall(r'notice-error"[^>]*>(.*?)</p>', answer.get_data(as_text=True), re.S)
    return html.unescape(" ".join(found).strip())


def test_two_phones_at_one_table_each_read_their_own_language(app, store):
    table = store.create_table("venture", ["Ana", "Ben", "Cy"], {}, seed=3)
    token = table.token
    store.act(token, 0, {"type": "EnterSlug", "cards": [2, 3, 9, 10]})
    ana, ben = _phone(app, "de"), _phone(app, "fr")
    assert _post(ana, f"/t/{token}/me", seat="Ana").status_code == 200
    assert _post(ben, f"/t/{token}/me", seat="Ben").status_code == 200

    version = str(store.version(token))
    assert _post(ana, f"/t/{token}/act", action="bid", card="5", version=version).status_code == 200
    again = _post(ana, f"/t/{token}/act", action="bid", card="6", version=str(store.version(token)))
    assert again.status_code == 422
    assert _error(again) == (
        "Ana hat in dieser Runde schon geboten; ändere das Gebot, statt noch einmal zu bieten. "
        "Dieses Tippen wurde nicht übernommen."
    )
    # The same refusal on the French phone, in French; nothing was entered either time.
    before = store.version(token)
    refused = _post(ben, f"/t/{token}/act", action="withdraw", version=str(before))
    assert refused.status_code == 422
    assert _error(refused) == (
        "Ben n'a pas d'enchère à reprendre dans cette manche. Cette saisie n'a pas été enregistrée."
    )
    assert store.version(token) == before

    # Each phone's whole page and fetched board speak its language, at the same version.
    for phone, language, words in ((ana, "de", "Du bist <strong>Ana</strong>"),
                                   (ben, "fr", "Vous êtes <strong>Ben</strong>")):  # fmt: skip
        page = phone.get(f"/t/{token}").get_data(as_text=True)
        assert page_language(page) == language and words in page
        board = phone.get(f"/t/{token}/poll?v=0", headers={"HX-Request": "true"})
        assert words in board.get_data(as_text=True)


def test_a_phone_of_another_language_never_gets_the_shared_render_of_the_first(app, store):
    forget_renders()
    table = store.create_table("venture", ["Ana", "Ben", "Cy"], {}, seed=3)
    token = table.token
    watchers = [_phone(app, language) for language in ("de", "fr", "de")]
    for phone in watchers:
        assert _post(phone, f"/t/{token}/me", mode="watching").status_code == 200
    store.act(token, 0, {"type": "EnterSlug", "cards": [2, 3, 9, 10]})  # a poll at v=0 gets it
    boards = [
        phone.get(f"/t/{token}/poll?v=0", headers={"HX-Request": "true"}).get_data(as_text=True)
        for phone in watchers
    ]
    assert "Schaut nur zu" in boards[0] and "Je regarde" in boards[1]
    assert boards[0] == boards[2]  # equal views, one language: one render, shared
    assert boards[0] != boards[1]


# --- the secrecy differential, with every phone in its own language ---------------


class LanguagePhone(FlaskPhone):
    """A scenario phone that reads the next language of a round."""

    def __init__(self, app: Any, language: str) -> None:
        super().__init__(app)
        self.client.get(f"/language/{language}")


def test_no_phone_can_tell_the_hidden_entries_apart_in_any_language(app):
    def world(secret: int) -> dict[str, str]:
        languages = itertools.cycle(["en", "de", "fr", "pl", "pt_BR", "es"])
        return play_world(
            VENTURE, lambda: LanguagePhone(app, next(languages)), create_through_the_form, secret
        )

    low, high = world(1), world(8)
    assert_same_worlds(low, high)
    # The phones did read their languages (German and French among them).
    assert any("Vous êtes" in body for body in low.values())
    assert any("Du bist" in body for body in low.values())


# --- the pseudo-locale ------------------------------------------------------------


@pytest.fixture
def pseudo_app(tmp_path: Path) -> Any:
    config = _config(tmp_path)
    config["I18N_PSEUDO_LOCALE"] = str(write_pseudo(tmp_path / "pseudo"))
    return create_app(config)


# The innermost marked words: a marked sentence may hold marked words (a
# headline holds "4 points"), so markers are taken away from the inside out.
MARKED = re.compile(
    re.escape(PSEUDO_OPEN) + "[^" + PSEUDO_OPEN + PSEUDO_CLOSE + "]*" + re.escape(PSEUDO_CLOSE)
)


def without_marked(text: str) -> str:
    while MARKED.search(text):
        text = MARKED.sub(" ", text)
    return text


def unmarked_words(page: str, allowed: set[str]) -> set[str]:
    """Words of a page's text outside the pseudo-locale's markers, less what
    is not for translating (names, numbers, the brand, codes). A chart's
    words (SVG text) count; the scripts' words are data, checked apart."""
    body = page.split("<body", 1)[1].split(">", 1)[1] if "<body" in page else page
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r'<details class="language-switch">.*?</details>', " ", body, flags=re.S)
    # What a screen reader says counts too: labels and titles.
    spoken = " ".join(re.findall(r'(?:aria-label|title|placeholder|data-why)="([^"]*)"', body))
    text = without_marked(re.sub(r"<[^>]+>", " ", body) + " " + html.unescape(spoken))
    words = set(re.findall(r"[^\W\d_]{2,}", text))
    return words - allowed


def test_the_pseudo_locale_marks_every_word_of_the_start_and_join_pages(pseudo_app):
    """Every word but the games' names, their blurbs included."""
    phone = pseudo_app.test_client()
    phone.get(f"/language/{PSEUDO}")
    # The games' titles are names and stay ("Leaf solo: the North Wind", "Leaf scoring").
    games = {"Pairs", "Continuous", "Venture", "Autumn", "Leaves", "Leaf", "Ash", "Solitaire",
             "solitaire", "solo", "the", "scoring", "North", "Wind", "Score", "pad",
             "Leafpile"}  # fmt: skip
    home = phone.get("/").get_data(as_text=True)
    assert not unmarked_words(home, games)
    join = phone.get("/join").get_data(as_text=True)
    assert not unmarked_words(join, games)


def test_a_pairs_refusal_is_worded_with_its_reasons_in_the_phones_language(app, store):
    table = store.create_table("pairs", ["Ana", "Ben"], {}, seed=3)
    token = table.token
    polish = _phone(app, "pl")
    assert _post(polish, f"/t/{token}/me", mode="shared").status_code == 200
    # Nobody is dealt yet: a hit is refused, the reason inside worded in Polish too.
    refused = _post(polish, f"/t/{token}/act", action="hit", player="Ben", card="4", version="0")
    assert refused.status_code == 422
    assert _error(refused) == (
        "Ben nie może jeszcze dobrać karty: trwa rozdawanie odkrytych kart rundy "
        "(następny: Ana). To stuknięcie nie zostało wprowadzone."
    )
    english = _phone(app, "en")
    assert _post(english, f"/t/{token}/me", mode="shared").status_code == 200
    refused = _post(english, f"/t/{token}/act", action="hit", player="Ben", card="4", version="0")
    assert _error(refused) == (
        "Ben cannot hit yet: the round's face-up cards are being dealt (next: Ana). "
        "This tap was not entered."
    )


def test_a_phone_that_may_not_enter_is_told_why_once_in_its_language(app, store):
    table = store.create_table("venture", ["Ana", "Ben", "Cy"], {}, seed=3)
    token = table.token
    store.act(token, 0, {"type": "EnterSlug", "cards": [2, 3, 9, 10]})
    watching = _phone(app, "es")
    assert _post(watching, f"/t/{token}/me", mode="watching").status_code == 200
    refused = _post(watching, f"/t/{token}/act", action="bid", player="Ana", card="5", version="1")
    assert refused.status_code == 422
    # Said once: the message says itself that the tap was not entered.
    assert _error(refused) == (
        "Tu toque no se registró: este teléfono solo está mirando. "
        "Toca tu nombre arriba para jugar en él."
    )
    board = watching.get(f"/t/{token}/board.json").get_json()
    assert board["phone"]["may_act"] is False


# --- the end screen, records, imports and the scripts' words (helper "words") ------

# Names, never translated: the brand, the games' titles ("Leaf solo: the North Wind").
GAMES = {"Pairs", "Venture", "Autumn", "Leaves", "Leaf", "Ash", "Solitaire", "Score", "pad",
         "North", "Wind", "Leafpile", "Continuous", "solitaire", "solo", "the",
         "scoring"}  # fmt: skip


def _host_table(phone: Any, game: str, players: list[str], **options: str) -> str:
    """A table started by ``phone`` through the form (so it is this phone's)."""
    form = {f"player{i}": p for i, p in enumerate(players, start=1)} | options
    answer = phone.post(f"/new/{game}", data={"csrf_token": phone.csrf, **form})
    assert answer.status_code == 303, answer.get_data(as_text=True)[-400:]
    return str(answer.headers["Location"]).rsplit("/", 1)[-1]


def _end(page: str) -> str:
    found = re.search(r'<section class="panel end".*?</section>', page, re.S)
    assert found, "the finished table shows its end screen"
    return found[0]


def _text(part: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", part)))


def test_the_end_screen_and_records_read_german_and_polish(app, store):
    german, polish = _phone(app, "de"), _phone(app, "pl")
    token = _host_table(german, "scorepad", ["Ana", "Ben", "Cy"])
    finish_scorepad(store, store.table(token))  # Ana 14, Ben 13, Cy 12
    screen = _end(german.get(f"/t/{token}").get_data(as_text=True))
    end = _text(screen)
    assert "Spiel vorbei" in end and "Ana gewinnt mit 14, Vorsprung: 1 Punkt." in end
    assert "Beste Runde: Ana, 10 Punkte in Runde 2." in end
    assert '<th scope="col" class="num">Punkte</th>' in screen  # the final table's unit
    assert ">Runde</text>" in screen and ">Start</text>" in screen  # the chart's axis

    # Polish counts in three forms: 1 punkt, 2-4 punkty, 5 punktów.
    token = _host_table(polish, "scorepad", ["Ana", "Ben"])
    finish_scorepad(store, store.table(token), rows=[[10, 5], [2, 3]])
    end = _text(_end(polish.get(f"/t/{token}").get_data(as_text=True)))
    assert "Koniec gry" in end and "Ana wygrywa z wynikiem 12, przewaga: 4 punkty." in end
    assert "Najlepsza runda: Ana, 10 punktów w rundzie 1." in end
    # The same table on an English phone: one render per language, never shared.
    english = app.test_client()
    assert "Ana wins by 4 points, with 12." in english.get(f"/t/{token}").get_data(as_text=True)
    again = _text(_end(polish.get(f"/t/{token}").get_data(as_text=True)))
    assert "przewaga: 4 punkty" in again

    records = _text(german.get("/records").get_data(as_text=True))
    assert "Bestenliste" in records and "Wertungsblock" in records  # the game, in German
    key = re.search(r'/records/player/([^"]+)"', german.get("/records").get_data(as_text=True))
    assert key
    player = _text(german.get(f"/records/player/{key[1]}").get_data(as_text=True))
    assert "1 gewonnen, 0 verloren, 1 Spiel an den Tischen in diesem Browser." in player
    assert "Nach Spiel" in player and "Im Lauf der Zeit" in player
    assert "gewonnen mit 14" in player and " UTC)" in player
    polish_player = _text(polish.get(f"/records/player/{key[1]}").get_data(as_text=True))
    assert "1 gra przy stołach z tej przeglądarki." in polish_player
    operator = _text(polish.get("/records/operator").get_data(as_text=True))
    assert "Token operatora" in operator and "Zaloguj się" in operator
    refused = _post(polish, "/records/operator", token="wrong")
    assert "Ten serwer nie ma tokenu operatora" in _text(refused.get_data(as_text=True))


def test_the_end_screens_and_records_in_the_pseudo_locale_mark_every_word(pseudo_app):
    store = pseudo_app.extensions["leafpile_store"]
    phone = _phone(pseudo_app, PSEUDO)
    names = {"Ana", "Ben", "Cy", "Solo", "UTC", "BG", "Stats", "BGG", "CSV"}
    for game, players, options, finish in (
        ("pairs", ["Ana", "Ben", "Cy"], {}, finish_pairs),
        ("venture", ["Ana", "Ben", "Cy"], {}, finish_venture),
        ("leaf", ["Ana", "Ben", "Cy"], {}, finish_leaf),
        ("autumn_ash", ["Ana", "Ben"], {"rainbow": "1"}, finish_autumn_ash),
        ("scorepad", ["Ana", "Ben", "Cy"], {}, finish_scorepad),
        ("solitaire", ["Solo"], {"deal": str(SOLITAIRE_DEAL)}, finish_solitaire),
    ):
        token = _host_table(phone, game, players, **options)
        finish(store, store.table(token))
        end = _end(phone.get(f"/t/{token}").get_data(as_text=True))
        assert not unmarked_words(end, names | GAMES), game
    records = phone.get("/records").get_data(as_text=True)
    assert not unmarked_words(records, names | GAMES)
    key = re.search(r'/records/player/([^"]+)"', records)
    assert key
    month = {format_datetime(datetime.now(UTC), "MMM", locale="en")}  # the date's own words
    assert not unmarked_words(phone.get(f"/records/player/{key[1]}").get_data(as_text=True),
                              names | GAMES | month)  # fmt: skip
    assert not unmarked_words(phone.get("/records/operator").get_data(as_text=True), names | GAMES)


def test_the_scripts_words_come_in_the_page_in_the_phones_language(app, monkeypatch):
    """app.js and wakelock.js write only words the page carries (phone_words.py)."""
    scripts = (STATIC / "app.js").read_text() + (STATIC / "wakelock.js").read_text()
    used = set(re.findall(r'\bword\("([a-z_]+)"', scripts))
    used |= set(re.findall(r'\bcounted\("([a-z_]+)"', scripts))
    used |= set(re.findall(r'\bword\([^)]*\? "([a-z_]+)" : "([a-z_]+)"', scripts)[0])
    used |= {"awake_" + s for s in re.findall(r'"(lock|video|tap|over|off|none)"', scripts)}
    assert used and "awake_over" in used and "in_order" in used
    # No English sentence is left in the scripts themselves (comments aside).
    code = re.sub(r"//[^\n]*", "", scripts)
    assert not re.findall(r'"[A-Z][a-z]+ [^"\n]*"', code)
    assert not re.findall(r'"[^"\n]*[a-z]{3,} [a-z]{3,} [a-z]{3,}[^"\n]*"', code)

    def words_of(language: str) -> dict[str, Any]:
        page = _phone(app, language).get("/").get_data(as_text=True)
        block = re.search(r"<body [^>]*data-words='([^']*)'>", page)
        assert block and "<" not in block[1]  # data, never markup
        return json.loads(html.unescape(block[1]))

    polish = words_of("pl")
    assert used <= set(polish), used - set(polish)
    forms, plural = polish["unsent_many"], polish["plural"]
    said = {n: forms[plural[n]].replace("{n}", str(n)) for n in (2, 5, 22)}
    assert said[2] == "2 stuknięcia jeszcze niewysłane — wyślę, gdy stół wróci."
    assert said[5] == "5 stuknięć jeszcze niewysłanych — wyślę, gdy stół wróci."
    assert said[22].startswith("22 stuknięcia")
    german = words_of("de")
    assert german["awake_over"] == "Das Spiel ist vorbei: Der Bildschirm darf wieder dunkel werden."
    assert german["in_order"] == "Der Reihe nach: {taps}."
    english = words_of("en")
    assert english["unsent_many"][english["plural"][3]] == (
        "{n} taps not sent yet — will send when the table is back."
    )
    # Worded once a catalog: the pages that follow reuse them, each in its language.
    from companion.web import phone_words

    def never() -> dict[str, object]:
        raise AssertionError("worded again")

    monkeypatch.setattr(phone_words, "_worded", never)
    assert words_of("pl") == polish and words_of("de") == german


def test_an_import_refused_in_a_worker_is_worded_in_the_phones_language(app):
    """A refusal crosses the job worker's process boundary as a value."""
    refused = pickle.loads(pickle.dumps(TableError(refusal("import.not_export", "x"))))
    assert refused.message.id == "import.not_export"
    spanish = _phone(app, "es")
    upload = {"csrf_token": spanish.csrf, "file": (io.BytesIO(b'{"format": "x"}'), "t.json")}
    answer = spanish.post("/import", data=upload, content_type="multipart/form-data")
    assert answer.status_code == 422
    assert "Este archivo no es una exportación de mesa de Leafpile." in _text(
        answer.get_data(as_text=True)
    )


def test_a_phone_waiting_for_a_restarting_database_is_told_in_its_language(store, phone, tmp_path):
    """The 503 while the host's database restarts says in German what happens
    to the tap (the words are the catalog's; an English one fails)."""
    from tests.operations.test_database_outage import add_round, dead_sqlite, engine_swapped

    pad = store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False})
    phone.client.get("/language/de?next=/")
    phone.get(f"/t/{pad.token}")
    with engine_swapped(store, dead_sqlite(tmp_path)):
        tap = add_round(phone, pad)
        page = phone.get(f"/t/{pad.token}")
    said = html.unescape(tap.get_data(as_text=True))
    assert tap.status_code == 503 and "Warte auf den Tisch" in said
    assert "Dein Handy schickt das Tippen von selbst noch einmal" in said
    assert "Versuche es in ein paar Sekunden" in html.unescape(page.get_data(as_text=True))


def test_a_server_offering_the_pseudo_locale_keeps_polish_plurals(tmp_path):
    """Flask-Babel takes a language's plural rule from the last folder of
    catalogs, and shares its catalogs among the apps of a process: with the
    pseudo-locale's folder last, a Polish phone counted in English ("5
    stuknięcia" for "5 stuknięć"), and so did the next test's app."""
    from flask_babel import get_translations

    from companion.app import create_app
    from companion.i18n import write_pseudo

    app = create_app(
        {**_config(tmp_path), "I18N_PSEUDO_LOCALE": str(write_pseudo(tmp_path / "pseudo"))}
    )
    with app.test_request_context("/", headers={"Accept-Language": "pl"}):
        assert [get_translations().plural(n) for n in (1, 2, 5, 22, 25)] == [0, 1, 2, 1, 2]
