"""Game titles, default table names, hostile refusals and the bare 503 in the
phone's language (issue 45, helper "titles"; docs/languages.md).

A game's title is worded where it is shown; stored and exported data keep
the English name. A table's default name is written in the language of the
phone that creates it (it is stored, like a name the host typed).
"""

from __future__ import annotations

import html
import io
import json
import re
from datetime import datetime
from typing import Any

from babel.dates import format_skeleton
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.test import EnvironBuilder

from companion.tables.exports import scorepad_name
from companion.web.i18n import words
from companion.web.outage import OutageGuard
from companion.web.table_names import next_name
from tests.end_games import finish_scorepad
from tests.web.test_languages import _phone

#: The titles that are not names, as each phone should read them.
TITLES = {
    "de": ("Wertungsblock", "Leaf-Wertung", "Leaf solo: der Nordwind", "Autumn-Leaves-Solitär"),
    "pl": ("Bloczek punktacji", "Punktacja Leaf", "Leaf solo: Wiatr Północny",
           "Pasjans Autumn Leaves"),
}  # fmt: skip
ENGLISH = ("Score pad", "Leaf scoring", "Leaf solo: the North Wind", "Autumn Leaves solitaire")


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def _header(page: str) -> str:
    return html.unescape(page.split('<header class="topbar">')[1].split("</header>")[0])


def _tiles(page: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r'class="tile"[^>]*>\s*<strong>([^<]*)', page)]


def _host(phone: Any, game: str, players: list[str], **options: str) -> str:
    form = {f"player{i}": p for i, p in enumerate(players, start=1)} | options
    answer = phone.post(f"/new/{game}", data={"csrf_token": phone.csrf, **form})
    assert answer.status_code == 303, answer.get_data(as_text=True)[-400:]
    return str(answer.headers["Location"]).rsplit("/", 1)[-1]


def _today(language: str) -> set[str]:
    """Today's date as a default name writes it (two, should midnight pass)."""
    return {format_skeleton("MMMd", datetime.now(), locale=language) for _ in range(2)}


def test_a_german_and_a_polish_phone_read_titles_names_and_headers_in_their_words(app, store):
    for language, titles in TITLES.items():
        phone = _phone(app, language)
        home = phone.get("/").get_data(as_text=True)
        tiles = _tiles(home)
        # Every title in the phone's words; the proper names stay as they are.
        assert set(titles) <= set(tiles) and not set(ENGLISH) & set(tiles), tiles
        assert {"Pairs", "Venture", "Autumn Leaves", "Autumn Ash"} <= set(tiles)
        new = _text(phone.get("/new/north_wind").get_data(as_text=True))
        assert f"{ {'de': 'Neuer Tisch', 'pl': 'Nowy stół'}[language] }: {titles[2]}" in new

        # No name typed: the table is named in the creating phone's language.
        token = _host(phone, "scorepad", ["Ana", "Ben", "Cy"])
        name = store.table(token).title
        assert name.startswith(f"{titles[0]}, ") and any(day in name for day in _today(language))
        page = phone.get(f"/t/{token}").get_data(as_text=True)
        assert f">{name}<" in _header(page)  # the table header
        assert f"<title>{name} · Leafpile</title>" in page
        assert f"{name}: {titles[0]}</h1>" in page
        # The end screen: the same header, and the records name the game in these words.
        finish_scorepad(store, store.table(token))
        end = phone.get(f"/t/{token}").get_data(as_text=True)
        assert 'class="panel end"' in end and f">{name}<" in _header(end)
        records = _text(phone.get("/records").get_data(as_text=True))
        assert titles[0] in records and "Score pad" not in records
        start = _text(phone.get("/").get_data(as_text=True))
        assert f"{name} {titles[0]} · Ana, Ben, Cy" in start  # "your tables"

        # The export keeps the language-neutral game: a default name is no game's name.
        plays = phone.get(f"/t/{token}/bgg.csv").get_data(as_text=True)
        assert "Score pad" in plays and titles[0] not in plays
        exported = json.loads(phone.get(f"/t/{token}/export.json").get_data(as_text=True))
        assert exported["game"] == "scorepad"

    # An English phone at the German table reads the stored name, the title in English.
    english = app.test_client().get(f"/t/{token}").get_data(as_text=True)
    assert f"{name}: Score pad</h1>" in english


def test_a_rematch_is_numbered_in_the_hosts_language_whoever_numbered_it_before(app, store):
    german = _phone(app, "de")
    token = _host(german, "scorepad", ["Ana", "Ben"], title="Freitag")
    finish_scorepad(store, store.table(token))
    again = german.post(f"/t/{token}/rematch", data={"csrf_token": german.csrf})
    assert again.status_code == 303
    assert store.table(again.headers["Location"].rsplit("/", 1)[-1]).title == "Freitag (Partie 2)"
    with app.test_request_context(headers={"Accept-Language": "pl"}):
        assert next_name("Freitag (Partie 2)") == "Freitag (gra 3)"
        assert next_name("Friday (game 9)") == "Friday (gra 10)"
        assert len(next_name("x" * 60)) == 60
    # A score pad's default name in any of our languages is no game of its own.
    assert scorepad_name("Wertungsblock, 28. Nov. 21:00 (Partie 2)") == "Score pad"
    assert scorepad_name("Bloczek punktacji, 28 lis 21:00") == "Score pad"
    assert scorepad_name("Skat") == "Skat"


def test_a_hostile_refusal_reads_in_the_phones_language(app, store):
    """A table file with an Autumn Ash position no screen writes: refused in
    German words, from the referee's message (not English inside German)."""
    table = store.create_table("autumn_ash", ["Ana", "Ben"], {"mode": "board"})
    german = _phone(app, "de")
    exported = json.loads(german.get(f"/t/{table.token}/export.json").get_data(as_text=True))
    exported["setup"]["options"]["position"] = "C3"
    upload = {
        "csrf_token": german.csrf,
        "file": (io.BytesIO(json.dumps(exported).encode()), "t.json"),
    }
    answer = german.post("/import", data=upload, content_type="multipart/form-data")
    assert answer.status_code == 422
    said = _text(answer.get_data(as_text=True))
    assert "Eine Stellung hat 6 durch '/' getrennte Reihen, nicht 1." in said, said[-300:]

    from companion.rules.autumn_ash import Move
    from companion.rules.errors import RuleError

    try:
        Move.parse("C3-C9=D")
    except RuleError as exc:
        with app.test_request_context(headers={"Accept-Language": "pl"}):
            assert words(exc.message) == "'C9' to nie jest pole: kolumny A-E i rzędy 1-6, np. C3"
        assert str(exc) == "'C9' is not a square: columns are A-E and rows 1-6, like C3"


def _outage(environ: dict[str, Any], start_response: Any) -> Any:
    raise PoolTimeout("QueuePool limit reached")


def test_the_bare_outage_503_speaks_the_phones_language_without_a_database():
    guard = OutageGuard(_outage)
    said: dict[str, Any] = {}

    def start(status: str, headers: list[tuple[str, str]]) -> None:
        said.update(status=status, headers=dict(headers))

    for headers, expected in (
        ({"Accept-Language": "de-AT,en;q=0.5"}, "Warte auf den Tisch"),
        ({"Accept-Language": "de", "Cookie": "leafpile_lang=pl"}, "Spróbuj ponownie"),
        ({}, "Waiting for the table"),
    ):
        environ = EnvironBuilder(path="/t/x/stream", headers=headers).get_environ()
        body = b"".join(guard(environ, start)).decode()
        assert said["status"].startswith("503") and said["headers"]["Retry-After"] == "3"
        assert expected in body and body.endswith("\n")
        assert said["headers"]["Content-Length"] == str(len(body.encode()))
