"""Hostile input: whatever a phone (or anything else) sends, never a 500, a
refused request changes nothing, and names full of HTML are shown as text.

Hypothesis drives requests against every form and route of every registered
game (games join as they are registered in companion.tables.games and
companion.web.games): the forms are read off the rendered pages, then their
fields are filled with wrong types, huge strings, odd unicode, negative and
out-of-range numbers, dropped, or swapped for another table's; versions are
forged or stale; tokens belong to another table or to nobody.
"""

from __future__ import annotations

import csv
import io
import json
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest
from flask import url_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from companion.tables.games import load as load_games
from companion.web.games import load as load_screens

SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ALLOWED = {200, 204, 303, 400, 403, 404, 405, 409, 413, 422, 429}


def games_with_screens() -> list[str]:
    screens = load_screens()
    return sorted(key for key in load_games() if key in screens)


GAMES = games_with_screens()
PLAYERS = ["Ana", "Ben", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu"]
OTHERS = ["Zed", "Yan", "Xia", "Wim", "Val", "Uma", "Tom", "Sol", "Rex", "Quin", "Pia", "Oz"]


# --- junk -------------------------------------------------------------------

NASTY = [
    "",
    " ",
    "-1",
    "-0",
    "+5",
    "0",
    "11",
    "99999999999999999999999",
    "-99999999999999999999",
    "1e9",
    "1.5",
    "NaN",
    "inf",
    "0x10",
    "٣",
    "３",
    "²",
    "Ⅻ",
    "\x00",
    "\u202e7",
    "7\u200b",
    "true",
    "null",
    "[]",
    "{}",
    "[1,2]",
    '{"type": "AddRound"}',
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "../../etc/passwd",
    "%00",
    "{{7*7}}",
    "x" * 5000,
    "9" * 3000,
    "é" * 2000,
    "🍂" * 500,
]

junk = st.one_of(
    st.sampled_from(NASTY),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.integers(min_value=-3, max_value=15).map(str),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
)


# --- reading the forms off a page --------------------------------------------


@dataclass
class Form:
    action: str
    method: str
    fields: dict[str, str] = field(default_factory=dict)  # hidden and typed inputs
    blanks: list[str] = field(default_factory=list)  # inputs a person would type into
    choices: dict[str, list[str]] = field(default_factory=dict)  # selects and radios
    buttons: list[tuple[str, str]] = field(default_factory=list)  # named submit buttons


class FormReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append(Form(a.get("action", ""), a.get("method", "get").lower()))
            return
        if not self.forms:
            return
        form = self.forms[-1]
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("radio", "checkbox"):
                form.choices.setdefault(name, []).append(a.get("value", "on"))
            elif kind == "submit":
                form.buttons.append((name, a.get("value", "")))
            elif kind == "hidden" or a.get("value"):
                form.fields[name] = a.get("value", "")
            else:
                form.blanks.append(name)
        elif tag == "button" and name and "disabled" not in a:
            form.buttons.append((name, a.get("value", "")))
        elif tag == "select" and name:
            self._select = name
            form.choices.setdefault(name, [])
        elif tag == "option" and self._select:
            form.choices[self._select].append(a.get("value", "\x00text"))
        elif tag == "textarea" and name:
            form.blanks.append(name)

    def handle_data(self, data: str) -> None:
        if self._select and self.forms:
            options = self.forms[-1].choices[self._select]
            if options and options[-1] == "\x00text":
                options[-1] = data.strip()

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None


def read_forms(html: str, method: str = "post") -> list[Form]:
    reader = FormReader()
    reader.feed(html)
    return [f for f in reader.forms if method in ("any", f.method)]


# --- fixtures and checks -------------------------------------------------------


@pytest.fixture
def tables(store):
    """Per game: (the table under attack, a bystander table of the same game)."""

    def make(game: str) -> tuple[Any, Any]:
        kind = load_games()[game]
        n = max(kind.min_players, min(2, kind.max_players))
        a = store.create_table(game, PLAYERS[:n], {}, seed=3)
        b = store.create_table(game, OTHERS[:n], {}, seed=4)
        return a, b

    return make


def everything(store: Any, *tables: Any) -> Any:
    return [(store.export(t.token), store.version(t.token)) for t in tables], len(
        store.tables(limit=10**6)
    )


def fill(form: Form, data: Any, *, hostile: bool) -> dict[str, str]:
    """The form as a person would send it, or (hostile) with some fields spoiled."""
    values = dict(form.fields)
    for name in form.blanks:
        values[name] = str(data.draw(st.integers(-3, 12)))
    for name, options in form.choices.items():
        if options:
            values[name] = data.draw(st.sampled_from(options))
    if form.buttons:
        name, value = data.draw(st.sampled_from(form.buttons))
        values[name] = value
    if not hostile:
        return values
    for name in list(values):
        if name == "csrf_token":
            continue
        how = data.draw(st.sampled_from(["keep", "keep", "junk", "drop"]))
        if how == "junk":
            values[name] = data.draw(junk)
        elif how == "drop":
            del values[name]
    for _ in range(data.draw(st.integers(0, 2))):
        values[data.draw(st.sampled_from(["action", "player", "card", "seat", "extra", "é"]))] = (
            data.draw(junk)
        )
    return values


def check_answer(response: Any, where: str) -> None:
    assert response.status_code < 500, (where, response.status_code)
    assert response.status_code in ALLOWED, (where, response.status_code)
    if response.status_code == 422 and response.mimetype == "text/html":
        assert "notice-error" in response.get_data(as_text=True), where  # it says why


# --- posting junk to every form of every game ------------------------------------


@pytest.mark.parametrize("game", GAMES)
@SETTINGS
@given(data=st.data())
def test_junk_in_any_table_form_never_500s_and_a_refusal_changes_nothing(
    app, store, phone, tables, game, data
):
    a, b = tables(game)

    def table_forms(page: str) -> list[Form]:
        # Forms that act on this table (a page may also link elsewhere, e.g.
        # "new deal": those are fuzzed with the other pages' forms).
        return [f for f in read_forms(page) if f"/t/{a.token}/" in f.action]

    forms = table_forms(phone.get(f"/t/{a.token}").get_data(as_text=True))
    assert forms, "a table page has forms"
    for _ in range(data.draw(st.integers(1, 4))):
        form = data.draw(st.sampled_from(forms))
        values = fill(form, data, hostile=data.draw(st.booleans()))
        version = store.version(a.token)
        forged = data.draw(
            st.sampled_from(["current", "current", "stale", "future", "junk", "missing", "other"])
        )
        if forged == "stale" and version > 0:
            values["version"] = str(version - 1)
        elif forged == "future":
            values["version"] = str(version + data.draw(st.integers(1, 10**6)))
        elif forged == "junk":
            values["version"] = data.draw(junk)
        elif forged == "missing":
            values.pop("version", None)
        elif forged == "other":
            values["version"] = str(store.version(b.token))
        url = form.action
        target = data.draw(st.sampled_from(["this", "this", "this", "bystander", "nobody"]))
        if target == "bystander":
            url = url.replace(a.token, b.token)
        elif target == "nobody":
            url = url.replace(a.token, data.draw(st.sampled_from(["x", "A" * 32, a.view_token])))
        before = everything(store, a, b)
        response = phone.client.post(
            url, data=values, headers={"HX-Request": "true"} if data.draw(st.booleans()) else {}
        )
        check_answer(response, f"{url} {values}")
        after = everything(store, a, b)
        if response.status_code not in (200, 303) or target == "nobody":
            assert after == before, (url, values, response.status_code)
        else:
            changed = a if target == "this" else b
            untouched = b if target == "this" else a
            assert store.export(untouched.token) == before[0][0 if untouched is a else 1][0]
            grew = store.version(changed.token) - before[0][0 if changed is a else 1][1]
            assert grew in (0, 1)
            if grew == 0:
                assert after == before
        if response.status_code == 200:
            forms = table_forms(phone.get(f"/t/{a.token}").get_data(as_text=True)) or forms


@pytest.mark.parametrize("game", GAMES)
@SETTINGS
@given(data=st.data())
def test_junk_in_the_new_table_form_never_500s_and_creates_at_most_one_table(
    app, store, phone, game, data
):
    page = phone.get(f"/new/{game}").get_data(as_text=True)
    form = read_forms(page)[0]
    values = fill(form, data, hostile=data.draw(st.booleans()))
    for i in range(1, data.draw(st.integers(0, 9))):
        values[f"player{i}"] = data.draw(st.sampled_from([*PLAYERS, *NASTY, "<b>x</b>"]))
    before = len(store.tables(limit=10**6))
    response = phone.client.post(form.action, data=values)
    check_answer(response, f"new {values}")
    if response.status_code == 303:
        assert len(store.tables(limit=10**6)) == before + 1
        follow = phone.get(response.headers["Location"])
        assert follow.status_code == 200
    else:
        assert response.status_code == 422
        assert len(store.tables(limit=10**6)) == before


PAGES = ["/", "/join", "/print/", "/solitaire", "/achievements", "/new/scorepad"]


@SETTINGS
@given(data=st.data())
def test_junk_in_any_other_form_never_500s_and_a_refusal_creates_nothing(app, store, phone, data):
    """Every form on the pages outside a table (GET and POST), filled with junk."""
    forms = []
    for path in PAGES:
        response = phone.get(path)
        if response.status_code == 200:
            forms += read_forms(response.get_data(as_text=True), "any")
    assert forms
    form = data.draw(st.sampled_from(forms))
    values = fill(form, data, hostile=data.draw(st.booleans()))
    before = len(store.tables(limit=10**6))
    if form.method == "get":
        response = phone.client.get(form.action or "/", query_string=values)
    else:
        response = phone.client.post(form.action, data=values)
    check_answer(response, f"{form.method} {form.action} {values}")
    if response.status_code not in (200, 303):
        assert len(store.tables(limit=10**6)) == before
    else:
        assert len(store.tables(limit=10**6)) in (before, before + 1)


path_junk = st.one_of(
    st.sampled_from(
        ["x", "A" * 32, "A" * 300, "%2e%2e", "..", "%00", "\x00" * 12, "AAAA\x00AAAAAAA", "é" * 9]
    ),
    st.text(string.ascii_letters + string.digits + "-_.~%", min_size=1, max_size=80),
)


@SETTINGS
@given(data=st.data())
def test_junk_on_every_get_route_never_500s(app, store, phone, tables, data):
    a, b = tables("scorepad")
    store.act(a.token, 0, {"type": "AddRound", "scores": [1, 2]})
    code, _ = store.join_code(b.token, 60)
    real = {"token": a.token, "view_token": a.view_token, "game": "scorepad", "code": code}
    rules = [r for r in app.url_map.iter_rules() if "GET" in (r.methods or ())]
    rule = data.draw(st.sampled_from(sorted(rules, key=lambda r: r.rule)))
    args = {}
    for name in rule.arguments:
        args[name] = data.draw(
            st.one_of(
                st.just(real.get(name, "x")), st.just(b.token), st.just(b.view_token), path_junk
            )
        )
    query = {
        data.draw(st.sampled_from(["v", "code", "page", "x"])): data.draw(junk)
        for _ in range(data.draw(st.integers(0, 3)))
    }
    with app.test_request_context():
        url = url_for(rule.endpoint, **args)
    before = everything(store, a, b)
    response = phone.client.get(
        url, query_string=query, headers={"HX-Request": "true"} if data.draw(st.booleans()) else {}
    )
    check_answer(response, f"{url} {query}")
    tables_after, count_after = everything(store, a, b)
    assert (tables_after, count_after) == before, url  # reading never writes a table


json_junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(), junk),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["type", "x", "seq"]), inner)
    ),
    max_leaves=8,
)


@SETTINGS
@given(data=st.data())
def test_importing_a_spoiled_export_never_500s_and_creates_nothing_when_refused(
    app, store, phone, tables, data
):
    a, _ = tables("scorepad")
    store.act(a.token, 0, {"type": "AddRound", "scores": [1, 2]})
    store.act(a.token, 1, {"type": "FixEntry", "round": 1, "player": "Ben", "points": 5})
    store.undo(a.token, 2)
    export = store.export(a.token)
    spoil = data.draw(st.sampled_from(["none", "top", "setup", "event", "payload", "bytes"]))
    if spoil == "top":
        export[data.draw(st.sampled_from(["format", "game", "setup", "events"]))] = data.draw(
            json_junk
        )
    elif spoil == "setup":
        export["setup"][data.draw(st.sampled_from(["players", "options", "seed"]))] = data.draw(
            json_junk
        )
    elif spoil == "event":
        index = data.draw(st.integers(0, len(export["events"]) - 1))
        key = data.draw(st.sampled_from(["kind", "payload", "seat", "seq"]))
        export["events"][index][key] = data.draw(json_junk)
    elif spoil == "payload":
        export["events"][0]["payload"][data.draw(st.sampled_from(["scores", "type", "x"]))] = (
            data.draw(json_junk)
        )
    try:
        body = json.dumps(export, allow_nan=True).encode()
    except (TypeError, ValueError):
        body = b"{"
    if spoil == "bytes":
        cut = data.draw(st.integers(0, len(body)))
        body = body[:cut] + data.draw(st.binary(max_size=20))
    before = len(store.tables(limit=10**6))
    response = phone.client.post(
        "/import",
        data={"csrf_token": phone.csrf, "file": (io.BytesIO(body), "table.json")},
        content_type="multipart/form-data",
    )
    check_answer(response, f"import {spoil}")
    if response.status_code == 303:
        assert len(store.tables(limit=10**6)) == before + 1
    else:
        assert response.status_code == 422
        assert len(store.tables(limit=10**6)) == before


# --- names full of HTML ----------------------------------------------------------

TAGS = ["script", "img", "svg", "iframe", "b", "a", "x onclick=y", "p style=z"]


@st.composite
def html_names(draw: Any, count: int) -> list[str]:
    """Distinct names that each hold an HTML tag no page has: ``'><img3>``."""
    names: list[str] = []
    while len(names) < count:
        tag = draw(st.sampled_from(TAGS))
        before = draw(st.text(st.characters(blacklist_categories=("Cs", "Cc", "Z")), max_size=3))
        quote = draw(st.sampled_from(["", '"', "'", '">', "'>", "&amp;"]))
        name = f"{before}{quote}<{tag}{len(names)}>"
        if name.casefold() not in (n.casefold() for n in names):
            names.append(name)
    return names


def raw_tags(names: list[str]) -> list[str]:
    """The markup of each name as it would appear unescaped."""
    return [name[name.index("<") : -1] for name in names]


def pages_of(app: Any, table: Any, code: str) -> Iterator[tuple[str, str]]:
    values = {
        "token": table.token,
        "view_token": table.view_token,
        "game": table.game,
        "code": code,
    }
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if "GET" not in (rule.methods or ()) or rule.endpoint == "static":
                continue
            if not set(rule.arguments) <= set(values):
                continue
            if rule.rule.endswith(("/solitaire/hint", "/solitaire/check")):
                continue  # a solver's answer (up to seconds), with no names in it
            yield url_for(rule.endpoint, **{k: values[k] for k in rule.arguments}), rule.rule


def pdf_text(body: bytes) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(body)).pages)


@pytest.mark.parametrize("game", GAMES)
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_names_and_titles_with_html_are_shown_as_text_everywhere(app, store, phone, game, data):
    kind = load_games()[game]
    n = max(kind.min_players, min(2, kind.max_players))
    names = data.draw(html_names(n))
    title = "</title><script>alert('t')</script>"
    new_form = read_forms(phone.get(f"/new/{game}").get_data(as_text=True))[0]
    form = dict(new_form.fields)
    for key, options in new_form.choices.items():
        form.setdefault(key, options[0] if options else "")
    form |= {f"player{i + 1}": name for i, name in enumerate(names)} | {"title": title}
    response = phone.client.post(new_form.action, data=form)
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    table = store.table(response.headers["Location"].rsplit("/", 1)[1])
    assert table.players == tuple(names)
    phone.sit(table, names[0])  # the seat (a name) goes into the log with each action
    if game == "scorepad":
        phone.act(table, "add-round", **{f"score{i}": "1" for i in range(n)})
        phone.act(table, "fix", round="1", player=names[-1], points="4")
    code, _ = store.join_code(table.token, 60)

    shown = [str(escape(name)) for name in names] + [str(escape(title))]
    unescaped = [*raw_tags(names), "<script>alert"]
    checked = 0
    for url, rule in pages_of(app, table, code):
        for htmx in (False, True) if rule.startswith(("/t/", "/v/")) else (False,):
            response = phone.get(url, htmx=htmx)
            assert response.status_code < 500, url
            body = response.get_data()
            if response.mimetype == "text/html":
                text = body.decode()
                for tag in unescaped:
                    assert tag not in text, (url, tag)
                if rule == "/":  # the list of tables names every player
                    for expected in shown:
                        assert expected in text, (url, expected)
                elif rule in ("/t/<token>", "/v/<view_token>", "/t/<token>/history"):
                    assert shown[-1] in text, (url, "the title, shown as text")
                checked += 1
            elif response.mimetype == "application/json" and rule.endswith("/board.json"):
                board = json.loads(body)  # data for a client, which escapes it itself
                assert board["table"]["players"] == names and board["table"]["title"] == title
            elif response.mimetype == "application/json":
                exported = json.loads(body)
                assert response.headers["Content-Disposition"].startswith("attachment")
                if exported.get("format") == "leafpile-backup":  # /backup: this browser's tables
                    assert title in json.dumps(exported, ensure_ascii=False)
                    continue
                assert exported["setup"]["players"] == names
                assert exported["title"] == title
            elif response.mimetype == "text/csv":
                rows = list(csv.reader(io.StringIO(body.decode())))
                for row in rows[1:]:
                    for cell in row:
                        assert cell[:1] not in ("=", "+", "-", "@"), (url, cell)
                if game == "scorepad" and url.startswith("/t/"):  # the table's own export
                    assert any(names[0] in cell for row in rows for cell in row)
            elif response.mimetype == "application/pdf":
                text = pdf_text(body)
                for name in names:
                    if name in text:
                        continue
                    # PDF text extraction may break lines; the name must not vanish as markup.
                    assert name.replace(" ", "") in text.replace(" ", "").replace("\n", ""), (
                        url,
                        name,
                    )
    assert checked >= 6


def test_a_refused_import_leaves_no_trace_in_the_next_new_table(app, store, phone):
    # A refused import creates and deletes a table; SQLite then hands its id to
    # the next table, which must show its own state, not the deleted one's.
    source = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    store.act(source.token, 0, {"type": "AddRound", "scores": [1, 2]})
    spoiled = store.export(source.token)
    spoiled["setup"]["players"] = ["Solo"]
    body = json.dumps(spoiled).encode()
    response = phone.client.post(
        "/import",
        data={"csrf_token": phone.csrf, "file": (io.BytesIO(body), "table.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    fresh = store.create_table("scorepad", ["Cy", "Di"], {}, seed=1)
    assert store.snapshot(fresh.token).state.players == ("Cy", "Di")
    page = phone.get(f"/t/{fresh.token}").get_data(as_text=True)
    assert "Solo" not in page and ">Cy<" in page
    added = phone.act(fresh, "add-round", score0="3", score1="4")
    assert added.status_code == 200


def test_editing_an_export_does_not_change_the_table(store):
    table = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    store.act(table.token, 0, {"type": "AddRound", "scores": [1, 2]})
    export = store.export(table.token)
    export["events"][0]["payload"]["scores"] = [50, 60]
    export["setup"]["options"]["lowest_wins"] = True
    assert store.export(table.token)["events"][0]["payload"]["scores"] == [1, 2]
    assert store.snapshot(table.token).actions[0]["scores"] == [1, 2]
    assert store.table(table.token).options == {}


# --- NUL and control characters: PostgreSQL refuses them outright ---------------

NUL_PATHS = [
    "/t/{nul}",
    "/t/{nul}/board",
    "/t/{nul}/poll?v=1",
    "/t/{nul}/history",
    "/t/{nul}/export.json",
    "/t/{nul}/export.csv",
    "/t/{nul}/join",
    "/v/{nul}",
    "/v/{nul}/poll",
    "/j/AB%00CD",
    "/join?code=AB%00CD",
    "/join?code=%00%00%00%00%00",
]


@pytest.mark.parametrize("path", NUL_PATHS)
def test_a_nul_byte_in_an_address_is_a_plain_404_on_any_database(app, store, phone, path):
    table = store.create_table("scorepad", ["Ana"], {}, seed=1)
    for nul in ("%00" * 12, table.token[:10] + "%00" + table.token[11:]):
        response = phone.get(path.format(nul=nul), follow_redirects=True)
        assert response.status_code == 404, (path, response.status_code)
    for action in ("act", "undo", "redo", "me"):
        response = phone.post(f"/t/{'%00' * 12}/{action}", {"version": "0"})
        assert response.status_code == 404, action


def test_control_characters_in_names_titles_and_seats_are_dropped_not_a_500(app, store, phone):
    response = phone.post(
        "/new/scorepad",
        {
            "player1": "A\x00na",
            "player2": "B\x07en\tX",
            "title": "Fri\x00day\x1b",
            "wins": "highest",
        },
        htmx=False,
    )
    assert response.status_code == 303
    table = store.table(response.headers["Location"].rsplit("/", 1)[1])
    assert table.players == ("Ana", "Ben X")
    assert table.title == "Friday"
    assert phone.sit(table, "Ana").status_code == 200
    assert phone.act(table, "add-round", score0="1", score1="2").status_code == 200
    export = store.export(table.token)
    export["events"][0]["seat"] = "S\x00eat"
    export["title"] = "T\x00"
    body = json.dumps(export).encode()
    imported = phone.client.post(
        "/import",
        data={"csrf_token": phone.csrf, "file": (io.BytesIO(body), "t.json")},
        content_type="multipart/form-data",
    )
    assert imported.status_code == 303
    copy = store.export(imported.headers["Location"].rsplit("/", 1)[1])
    assert copy["events"][0]["seat"] == "Seat" and copy["title"] == "T"


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "AddRound", "scores": None},
        {"type": "AddRound", "scores": "12"},
        {"type": "AddRound", "scores": [None, "x"]},
        {"type": "FixEntry", "round": None, "player": None, "points": []},
        {"type": "AddRound"},
        {"type": ["AddRound"]},
    ],
)
def test_an_import_with_a_wrongly_typed_action_is_refused_and_leaves_nothing(
    app, store, phone, payload
):
    source = store.create_table("scorepad", ["Ana", "Ben"], {}, seed=1)
    store.act(source.token, 0, {"type": "AddRound", "scores": [1, 2]})
    export = store.export(source.token)
    export["events"].append({"seq": 2, "kind": "action", "payload": payload, "seat": None})
    response = phone.client.post(
        "/import",
        data={
            "csrf_token": phone.csrf,
            "file": (io.BytesIO(json.dumps(export).encode()), "t.json"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "does not replay" in response.get_data(as_text=True)
    assert [t.token for t in store.tables()] == [source.token]
