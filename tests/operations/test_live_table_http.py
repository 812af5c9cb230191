"""Secrets over real HTTP against the production server (gunicorn, 2 workers).

Ana's hidden bid is 7 at one table and 2 at another; every answer another
phone, a shared phone or a spectator can get is the same apart from tokens
and times. A stranger's start page holds no table address.
"""

from __future__ import annotations

import re

import pytest

from tests.operations.test_concurrency import HttpPhone, serve
from tests.tables.test_live_table import _VOLATILE
from tests.web.test_secrets import AUTUMN_LEAVES, VENTURE, assert_same_worlds, play_world

pytestmark = pytest.mark.slow


class FreshPhone(HttpPhone):
    """An HTTP phone whose posts always open a new connection: a kept-alive
    one the server has closed meanwhile (its keep-alive is seconds long, and
    a busy machine can be slower) would fail the post, which is not retried."""

    def request(self, method: str, path: str, form=None, htmx: bool = True):  # type: ignore[override]
        if method != "GET":
            self.close()
        return super().request(method, path, form, htmx)


def _steady(body: str, tokens: list[str]) -> str:
    for i, token in enumerate(tokens):
        body = body.replace(token, f"TOKEN{i}")
    for pattern in _VOLATILE:
        body = pattern.sub("X", body)
    return re.sub(r'"seed": \d+', '"seed": X', body)  # each new table draws a seed


def _table(host: HttpPhone) -> tuple[str, str]:
    made = host.request(
        "POST",
        "/new/venture",
        {"csrf_token": host.csrf, "player1": "Ana", "player2": "Ben", "player3": "Cy"},
        htmx=False,
    )
    assert made.status == 303, made.body[:300]
    token = made.headers["Location"].rsplit("/", 1)[1]
    page = host.request("GET", f"/t/{token}", htmx=False).body
    view = re.search(r"/v/([A-Za-z0-9_-]+)", host.request("GET", f"/t/{token}/join").body)
    assert view
    slug = host.post(f"/t/{token}/act", {"action": "slug", "cards": "4 5 6 8", "version": "0"})
    assert slug.status == 200, page[:200]
    return token, view.group(1)


def _seen_by_others(url: str, card: int) -> dict[str, str]:
    host = FreshPhone(url).open()
    token, view = _table(host)
    ana, ben, snoop, shared = (FreshPhone(url).open() for _ in range(4))
    assert ana.post(f"/t/{token}/me", {"seat": "Ana"}).status == 200
    assert ben.post(f"/t/{token}/me", {"seat": "Ben"}).status == 200
    bid = ana.post(
        f"/t/{token}/act", {"action": "bid", "player": "Ana", "card": str(card), "version": "1"}
    )
    assert bid.status == 200
    answers = {
        "snoop-seat": snoop.post(f"/t/{token}/me", {"seat": "Ana"}),
        "snoop-bid": snoop.post(
            f"/t/{token}/act", {"action": "change", "player": "Ana", "card": "5", "version": "2"}
        ),
        "ben-page": ben.request("GET", f"/t/{token}", htmx=False),
        "ben-poll": ben.request("GET", f"/t/{token}/poll?v=1"),
        "ben-history": ben.request("GET", f"/t/{token}/history", htmx=False),
        "ben-json": ben.request("GET", f"/t/{token}/export.json", htmx=False),
        "ben-csv": ben.request("GET", f"/t/{token}/export.csv", htmx=False),
        "shared-page": shared.request("GET", f"/t/{token}", htmx=False),
        "spectator": shared.request("GET", f"/v/{view}", htmx=False),
        "spectator-poll": shared.request("GET", f"/v/{view}/poll?v=1"),
    }
    assert answers["snoop-seat"].status == 409
    assert answers["snoop-bid"].status == 422
    return {name: _steady(a.body, [token, view]) for name, a in answers.items()}


def test_no_answer_to_another_phone_depends_on_the_hidden_bid(tmp_path):
    served = serve("gunicorn", tmp_path, f"sqlite:///{tmp_path / 'secrets.sqlite3'}")
    try:
        with_seven = _seen_by_others(served.url, 7)
        with_two = _seen_by_others(served.url, 2)
    finally:
        served.stop()
    for name, body in with_seven.items():
        assert body == with_two[name], name
    assert "Show or change my bid" not in with_seven["snoop-seat"]


def test_a_strangers_start_page_holds_no_table_address(tmp_path):
    served = serve("gunicorn", tmp_path, f"sqlite:///{tmp_path / 'start.sqlite3'}")
    try:
        host = FreshPhone(served.url).open()
        token, view = _table(host)
        assert token in host.request("GET", "/", htmx=False).body
        stranger = FreshPhone(served.url).open()
        page = stranger.request("GET", "/", htmx=False).body
        achievements = stranger.request("GET", "/achievements", htmx=False).body
    finally:
        served.stop()
    assert token not in page and view not in page
    assert token not in achievements


# --- issue 19: secrets belong to the phone that entered them, over real HTTP -----


class ScenarioPhone:
    """An HTTP phone speaking the protocol of ``test_secrets.play_world``."""

    def __init__(self, url: str) -> None:
        self.phone = FreshPhone(url, declare_shared=False).open()

    def get(self, path: str) -> tuple[int, str]:
        answer = self.phone.request("GET", path, htmx="/board" in path)
        return answer.status, answer.body

    def post(self, path: str, form: dict[str, str]) -> tuple[int, str]:
        answer = self.phone.post(path, form)
        return answer.status, answer.body


def _create_over_http(host: ScenarioPhone, game) -> str:
    form = {f"player{i}": name for i, name in enumerate(game.players, start=1)}
    made = host.phone.request("POST", f"/new/{game.key}", {"csrf_token": host.phone.csrf, **form},
                              htmx=False)  # fmt: skip
    assert made.status == 303, made.body[:300]
    return made.headers["Location"].rsplit("/", 1)[1]


@pytest.mark.parametrize("game", [VENTURE, AUTUMN_LEAVES], ids=lambda g: g.key)
def test_over_http_no_other_phone_can_tell_the_hidden_entries_apart(tmp_path, game):
    served = serve("gunicorn", tmp_path, f"sqlite:///{tmp_path / 'worlds.sqlite3'}")
    try:
        low = play_world(game, lambda: ScenarioPhone(served.url), _create_over_http, 1)
        high = play_world(game, lambda: ScenarioPhone(served.url), _create_over_http, 8)
    finally:
        served.stop()
    assert_same_worlds(low, high)
