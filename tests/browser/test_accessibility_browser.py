"""axe-core over every kind of page, light and dark: no serious or critical violation.

axe-core (MPL-2.0, Deque) is vendored in tests/vendor/axe-core/ (see its
README line below): the test injects it into each page. The pages' CSP
allows no injected script, so this test's browser contexts bypass the CSP;
the app's own pages are unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import PHONE_VIEWPORT, Phone, in_each_scheme
from tests.end_games import finish_north_wind
from tests.web.test_end_screens import FINISHERS

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"  # axe-core 4.14.1 (npm)
BLOCKING = ("serious", "critical")


def page_kinds(server) -> dict[str, str]:
    """One address of each kind of page, with tables in play and finished."""
    store = server.store
    phone = Phone(server.app.test_client(), store)
    pages = {
        "home": "/",
        "new table": "/new/pairs",
        "join by code": "/join",
        "print": "/print",
        "solitaire": "/solitaire",
        "achievements": "/achievements",
        "records": "/records",
        "not found": "/t/no-such-table-here",
    }
    for game, (players, options, finish) in FINISHERS.items():
        playing = store.create_table(game, players, options, seed=1)
        pages[f"{game} board"] = f"/t/{playing.token}"
        finished = store.create_table(game, players, options, seed=1)
        finish(store, finished)
        pages[f"{game} end screen"] = f"/t/{finished.token}"
        if game == "scorepad":
            pages["history"] = f"/t/{finished.token}/history"
            pages["join"] = f"/t/{finished.token}/join"
            pages["spectator"] = f"/v/{finished.view_token}"
    pairs_turn = store.create_table("pairs", ["Ana", "Ben"], seed=1)
    for action in (
        {"type": "Deal", "player": "Ana", "card": 4},
        {"type": "Deal", "player": "Ben", "card": 6},
    ):
        store.act(pairs_turn.token, store.version(pairs_turn.token), action)
    pages["pairs turn"] = f"/t/{pairs_turn.token}"
    solo = store.create_table("north_wind", ["Ana"], {"difficulty": "easy"}, seed=1)
    pages["north wind board"] = f"/t/{solo.token}"
    won = store.create_table("north_wind", ["Ana"], {"difficulty": "easy"}, seed=1)
    finish_north_wind(phone, won)
    pages["north wind end screen"] = f"/t/{won.token}"
    pages["records player"] = "/records/player/ana"
    pages["records operator"] = "/records/operator"  # the operator's sign-in (issue 23)
    return pages


# Every rule of these standards, in the light scheme. The dark scheme is the
# same page with other colours (one stylesheet's media query), so there only
# the rules that read colours run again: half the sweep's time went to
# re-checking names, labels and landmarks that cannot differ.
ALL_RULES = {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}
COLOUR_RULES = {"type": "rule", "values": ["color-contrast", "link-in-text-block"]}


def violations(page, rules: dict = ALL_RULES) -> list[dict]:
    """axe's blocking violations of ``rules`` (axe must be in the page)."""
    result = page.evaluate(
        "async (rules) => await axe.run(document, {runOnly: rules, resultTypes: ['violations']})",
        rules,
    )
    return [v for v in result["violations"] if v["impact"] in BLOCKING]


def test_every_page_kind_has_no_serious_or_critical_violation(live_server, browser):
    context = browser.new_context(viewport=PHONE_VIEWPORT, bypass_csp=True, is_mobile=True)
    try:
        page = context.new_page()
        found = {}
        for kind, path in page_kinds(live_server).items():
            page.emulate_media(color_scheme="light")
            # "load": the page's styles, fonts and scripts are in (no page
            # fetches more after it); not "networkidle", which waits 500 ms
            # of silence a page, half of a scheme's sweep.
            page.goto(live_server.url + path)
            page.wait_for_function("document.fonts.status === 'loaded'")
            page.add_script_tag(path=str(AXE))
            # The same page in the dark, without loading it again.
            for scheme in in_each_scheme(page):
                for v in violations(page, ALL_RULES if scheme == "light" else COLOUR_RULES):
                    targets = [", ".join(n["target"]) for n in v["nodes"][:3]]
                    found.setdefault(f"{kind} ({scheme})", []).append(
                        f"{v['id']} ({v['impact']}): {targets}"
                    )
        assert found == {}, "\n".join(f"{k}: {'; '.join(vs)}" for k, vs in found.items())
    finally:
        context.close()
