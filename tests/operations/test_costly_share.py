"""Each address's share of the costly routes, kept in front of Flask (issue 42).

nginx keeps it for the production setup (at most 2 costly requests from one
address at once, one a second with a short burst); the laptop server had no
such thing, so a flood's first few hundred requests went through Flask
whole, each with the limiter's database write, before the routes' own limits
boxed them. ``LimitsBeforeFlask`` keeps the same share on every server, and
its pattern of costly paths is the one nginx's location reads.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from werkzeug.test import EnvironBuilder, run_wsgi_app

from companion.web import ratelimit
from tests.operations.test_production import limited as limited  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]
FLOOD = {"REMOTE_ADDR": "10.0.0.66"}
WAIT = 30.0  # a bound for a broken gate, never a timing


# --- which routes are costly ------------------------------------------------------


def _is_costly(app, rule) -> bool:
    mark = getattr(app.view_functions.get(rule.endpoint), "_leafpile_rate_limited", None)
    return mark is not None and mark[0] in ratelimit.COSTLY_SCOPES


def test_the_costly_pattern_matches_exactly_the_routes_of_the_costly_scopes(app):
    costly = re.compile(ratelimit.costly_paths(app))
    seen = set()
    for rule in app.url_map.iter_rules():
        example = re.sub(r"<[^>]+>", "Ab_-9", rule.rule)
        assert bool(costly.match(example)) == _is_costly(app, rule), rule.rule
        if _is_costly(app, rule):
            seen.add(rule.rule)
            # Each argument is one path segment (the pattern's [^/]+).
            assert ":" not in "".join(re.findall(r"<([^>]+)>", rule.rule)), rule.rule
    # The routes, and the two nginx's hand-written pattern had left out.
    for path in ("/import", "/backup", "/records", "/records.csv", "/records/plays.csv",
                 "/records/player/<key>", "/achievements", "/print/<part>.pdf",
                 "/print/<deck>.zip", "/print/<deck>/<service>",
                 "/t/<token>/solitaire/hint", "/t/<token>/solitaire/check"):  # fmt: skip
        assert path in seen, path
    for path in ("/", "/healthz", "/t/Ab_-9/act", "/t/Ab_-9/stream", "/print/",
                 "/print/check", "/records/operator", "/recordsX", "/backups"):  # fmt: skip
        assert not costly.match(path), path


def test_nginxs_costly_location_reads_the_apps_pattern_and_the_same_numbers(app):
    conf = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    found = re.search(r'location ~ "([^"]+)" \{([^}]*limit_conn costly_per_address[^}]*)\}', conf)
    assert found is not None
    assert found[1] == ratelimit.costly_paths(app)
    assert f"limit_conn costly_per_address {ratelimit.COSTLY_AT_ONCE};" in found[2]
    assert f"burst={ratelimit.COSTLY_BURST} nodelay;" in found[2]
    rate = re.search(r"zone=costly_rate:\S+ rate=(\d+)r/m;", conf)
    assert rate is not None and int(rate[1]) == 60 * ratelimit.COSTLY_PER_SECOND


# --- the share itself -------------------------------------------------------------


def test_a_share_lets_a_burst_through_then_one_a_second():
    now = [1_000.0]
    share = ratelimit.CostlyShare(lambda: now[0])
    burst = 1 + ratelimit.COSTLY_BURST
    for _ in range(burst):
        assert share.admit("10.0.0.66") is None
        share.done("10.0.0.66")
    assert share.admit("10.0.0.66") == (429, 1)
    assert share.admit("10.0.0.5") is None  # every address has its own
    now[0] += 1.0
    assert share.admit("10.0.0.66") is None
    share.done("10.0.0.66")
    assert share.admit("10.0.0.66") == (429, 1)
    now[0] += 0.25
    assert share.admit("10.0.0.66") == (429, 1)  # rounded up: never "0 s"
    # A quiet hour fills the bucket to its burst, never past it.
    now[0] += 3_600
    for _ in range(burst):
        assert share.admit("10.0.0.66") is None
        share.done("10.0.0.66")
    assert share.admit("10.0.0.66") == (429, 1)


def test_a_share_has_at_most_two_costly_requests_under_way():
    share = ratelimit.CostlyShare(lambda: 1_000.0)
    assert share.admit("10.0.0.66") is None
    assert share.admit("10.0.0.66") is None
    busy = (503, ratelimit.COSTLY_BUSY_RETRY_AFTER)
    assert share.admit("10.0.0.66") == busy
    assert share.admit("10.0.0.5") is None
    share.done("10.0.0.66")
    assert share.admit("10.0.0.66") is None
    assert share.admit("10.0.0.66") == busy


# --- in front of Flask ------------------------------------------------------------


def _ask(gate, path: str, **headers: str) -> tuple[str, str]:
    environ = EnvironBuilder(path=path, environ_base=FLOOD, headers=headers).get_environ()
    body, status, _ = run_wsgi_app(gate, environ, buffered=True)
    return status, b"".join(body).decode()


def test_a_third_costly_request_under_way_is_refused_in_the_phones_language(limited):
    """Two requests from one address are in the app (their views wait); a
    third is refused 503 before it reaches the app, in German for a German
    phone; once one has its answer, the address is served again."""
    inside = threading.Semaphore(0)
    let_go = threading.Event()

    def app_at_work(environ, start_response):
        if environ["PATH_INFO"] != "/":  # a costly page: drawn until let go
            inside.release()
            let_go.wait(WAIT)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"drawn"]

    gate = ratelimit.LimitsBeforeFlask(limited, app_at_work)
    asked = [threading.Thread(target=_ask, args=(gate, "/records")) for _ in range(2)]
    for thread in asked:
        thread.start()
    for _ in asked:
        assert inside.acquire(timeout=WAIT)
    try:
        status, said = _ask(gate, "/records.csv", **{"Accept-Language": "de-AT,de;q=0.9"})
        assert status == "503 Service Unavailable"
        assert said.startswith("Dieses Handy wartet schon auf Anfragen"), said
        assert inside.acquire(timeout=0) is False  # it never reached the app
        assert _ask(gate, "/")[0] == "200 OK"  # not a costly route: through
    finally:
        let_go.set()
        for thread in asked:
            thread.join(WAIT)
    assert _ask(gate, "/records.csv")[0] == "200 OK"


def test_past_its_burst_a_flood_gets_429_before_flask_and_a_phone_its_notice(limited, monkeypatch):
    import printables.images  # the print routes import it when first asked

    monkeypatch.setattr(printables.images, "card_images", lambda deck, options, dpi: b"PK\x05\x06")
    monkeypatch.setattr(ratelimit, "clock", lambda: 3_000_000.0)  # no second passes
    client = limited.test_client()
    burst = 1 + ratelimit.COSTLY_BURST
    # Far below each route's own limit a minute (records 20, print files 20).
    assert burst < int(ratelimit.RECORDS_LIMIT.split()[0])
    for n in range(burst):
        page = "/records" if n % 2 else "/print/deck.zip"
        assert client.get(page, environ_base=FLOOD).status_code == 200, page
    refused = client.get("/records", environ_base=FLOOD, headers={"Accept-Language": "fr"})
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "1"
    assert "X-RateLimit-Limit" not in refused.headers  # not the limiter's
    said = refused.get_data(as_text=True)
    assert said.startswith("Trop de demandes de ce téléphone"), said
    assert "1" in said
    # A phone's script asks with htmx: the notice it reads and says in place.
    hint = client.get("/t/Ab_-9/solitaire/hint", environ_base=FLOOD, headers={"HX-Request": "true"})
    assert hint.status_code == 429
    notice = re.search(r'<p class="notice notice-error" role="alert">([^<]+)</p>', hint.text)
    assert notice is not None
    # The script adds when to try again, from Retry-After: said once.
    assert notice[1] == "Too many requests from this phone just now."
    assert client.get("/print/deck.zip").status_code == 200  # another address


def test_a_refusal_of_the_share_waits_a_second_on_a_gevent_server(
    limited, monkeypatch, tarpit_sleeps
):
    """The tarpit, as for a boxed address: on a gevent server the refusal is
    held back a second (a sleeping greenlet), so a loop asks once a second."""
    slept = tarpit_sleeps
    monkeypatch.setattr(ratelimit, "clock", lambda: 3_000_000.0)  # no second passes
    monkeypatch.setenv("LEAFPILE_JOB_PROCESSES", "0")  # the pages drawn here, as before
    client = limited.test_client()
    for _ in range(1 + ratelimit.COSTLY_BURST):
        client.get("/records.csv", environ_base=FLOOD)  # the burst
    boxed = len(slept)  # none: the route's own limit is far
    assert client.get("/print/deck.zip", environ_base=FLOOD).status_code == 429  # the share's
    assert slept[boxed:] == [ratelimit.TARPIT_SECONDS]
    assert client.get("/print/deck.zip").status_code == 200  # another address: no wait
    assert slept[boxed:] == [ratelimit.TARPIT_SECONDS]


def test_with_the_limits_off_the_share_lets_everything_through(app):
    # The suite's own app (and a load test from one address) has no limits.
    client = app.test_client()
    answers = [client.get("/records", environ_base=FLOOD) for _ in range(30)]
    assert {answer.status_code for answer in answers} == {200}
