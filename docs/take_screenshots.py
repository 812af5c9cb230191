"""Retake every picture of the README and the docs from a fresh table.

    python docs/take_screenshots.py                 # every picture
    python docs/take_screenshots.py --only north    # the ones whose path contains "north"
    python docs/take_screenshots.py --list          # what it makes

Needs Debian's chromium (screens, 390x844 like a phone); print pages are
rasterised with PDFium. Each run starts an empty database, so no picture
shows anything left over from a previous game.

Each picture is one small function registered with a decorator and the path
it writes under docs/ (``tests/docs/test_docs.py`` checks that every picture the
README and the docs show is made here):

* ``@screen("screenshots/NAME.png", scheme="dark", full_page=True)``: the
  function gets a :class:`Studio` (the fresh app) and a Playwright page,
  sets up a table and opens it; the picture is taken when it returns.
  ``viewport=(360, 740)`` takes it on another phone size; ``palette=True``
  saves it with 256 colours (the many small phone pictures of phones.md).
* ``@picture("print/NAME.png")``: the function writes the file itself.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # run from a checkout without installing

PHONE = {"width": 390, "height": 844}
PUBLIC_URL = "http://192.168.1.20:5000"  # what the QR codes show: a typical home network
TRIO = ["Ana", "Ben", "Cleo"]


@dataclass(frozen=True)
class Shot:
    path: str  # under docs/
    make: Callable[..., Any]
    browser: bool = True
    scheme: str = "light"
    full_page: bool = False
    scale: float = 1
    viewport: tuple[int, int] = (PHONE["width"], PHONE["height"])
    palette: bool = False  # saved with 256 colours: small enough for many pictures


SHOTS: dict[str, Shot] = {}


def screen(
    path: str,
    *,
    scheme: str = "light",
    full_page: bool = False,
    scale: float = 1,
    viewport: tuple[int, int] = (PHONE["width"], PHONE["height"]),
    palette: bool = False,
):
    """Register a browser picture: ``make(studio, page)`` opens what to photograph."""

    def register(make: Callable[..., Any]) -> Callable[..., Any]:
        SHOTS[path] = Shot(path, make, True, scheme, full_page, scale, viewport, palette)
        return make

    return register


def picture(path: str):
    """Register a picture the function writes itself: ``make(studio, out_path)``."""

    def register(make: Callable[..., Any]) -> Callable[..., Any]:
        SHOTS[path] = Shot(path, make, browser=False)
        return make

    return register


class Studio:
    """A fresh app on an empty database, served on a free local port."""

    def __init__(self) -> None:
        import logging

        from werkzeug.serving import make_server

        from companion import create_app

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request

        folder = tempfile.mkdtemp(prefix="leafpile-shots-")
        self.app = create_app(
            {
                "DATABASE_URL": f"sqlite:///{folder}/shots.sqlite3",
                "INSTANCE_PATH": folder,
                "LEAFPILE_RATE_LIMITS": False,
            }
        )
        self.app.config["PUBLIC_URL"] = PUBLIC_URL
        self.store = self.app.extensions["leafpile_store"]
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._client = self.app.test_client()
        home = self._client.get("/").get_data(as_text=True)
        self._csrf = re.search(r'name="csrf_token" value="([^"]+)"', home).group(1)
        self._told: set[str] = set()

    def table(
        self,
        game: str,
        players: Iterable[str],
        options: Mapping[str, Any] | None = None,
        title: str = "Game night",
        actions: Iterable[Any] = (),
    ) -> Any:
        """A new table with these actions already played (JSON dicts or rules actions)."""
        from companion.rules import actions as codec

        table = self.store.create_table(game, list(players), dict(options or {}), title=title)
        for action in actions:
            as_dict = action if isinstance(action, Mapping) else codec.to_dict(action)
            self.store.act(table.token, self.store.version(table.token), as_dict)
        return table

    def act(self, table: Any, action: Mapping[str, Any]) -> None:
        """One more action at the table's current version."""
        self.store.act(table.token, self.store.version(table.token), dict(action))

    def _say_who(self, table: Any) -> None:
        """The studio's own phone says who it is once, as every phone must
        before it enters anything: a shared phone (it holds no seat, so the
        photographed phone can take one)."""
        if table.token in self._told:
            return
        self._client.post(f"/t/{table.token}/me", data={"csrf_token": self._csrf, "mode": "shared"})
        self._told.add(table.token)

    def post(self, table: Any, action: str, **fields: str) -> None:
        """One form post, as a phone's tap sends it (for screens built by forms)."""
        self._say_who(table)
        form = {"csrf_token": self._csrf, "action": action, **fields}
        form["version"] = str(self.store.version(table.token))
        response = self._client.post(f"/t/{table.token}/act", data=form)
        if response.status_code >= 400:
            raise RuntimeError(f"{action} {fields}: status {response.status_code}")

    def open(self, page: Any, path: str, *, answer_who: bool = True) -> None:
        """Open a page; a table that asks "Who are you?" is answered as the
        picture means it: the shared phone, or the one player of a solo game."""
        page.goto(self.url + path)
        page.wait_for_load_state("networkidle")
        ask = page.locator(".who-ask")
        if answer_who and ask.count():
            shared = ask.locator("button[name=mode][value=shared]")  # in any language
            (shared if shared.count() else ask.locator(".who-names button").first).click()
            page.locator(".who-ask").wait_for(state="detached")
            page.goto(self.url + path)  # again: the answer's board drops the address's choices
            page.wait_for_load_state("networkidle")

    def close(self) -> None:
        self.server.shutdown()
        self.app.extensions["leafpile_store"].engine.dispose()


# --- the core screens ----------------------------------------------------------


def _friday_pad(studio: Studio) -> Any:
    return studio.table(
        "scorepad",
        TRIO,
        {"lowest_wins": False},
        title="Friday night",
        actions=[
            {"type": "AddRound", "scores": [5, 3, 8]},
            {"type": "AddRound", "scores": [2, 9, 1]},
        ],
    )


@screen("screenshots/home.png")
def home(studio: Studio, page: Any) -> None:
    studio.open(page, "/")


@screen("screenshots/scorepad.png")
def scorepad(studio: Studio, page: Any) -> None:
    studio.open(page, f"/t/{_friday_pad(studio).token}")


@screen("screenshots/join.png")
def join(studio: Studio, page: Any) -> None:
    studio.open(page, f"/t/{_friday_pad(studio).token}/join")


@screen("screenshots/new-table.png")
def new_table(studio: Studio, page: Any) -> None:
    studio.open(page, "/new/pairs")


@screen("screenshots/history.png")
def history(studio: Studio, page: Any) -> None:
    table = _friday_pad(studio)
    studio.store.undo(table.token, studio.store.version(table.token))
    studio.open(page, f"/t/{table.token}/history")


@screen("screenshots/spectator.png")
def spectator(studio: Studio, page: Any) -> None:
    studio.open(page, f"/v/{_friday_pad(studio).view_token}")


@screen("screenshots/help.png", scheme="dark")
def help_page(studio: Studio, page: Any) -> None:
    studio.open(page, "/help/venture")


# --- the card games, a few entries in ------------------------------------------


@screen("screenshots/pairs.png")
def pairs(studio: Studio, page: Any) -> None:
    table = studio.table(
        "pairs",
        TRIO,
        actions=[
            {"type": "Deal", "player": "Ana", "card": 7},
            {"type": "Deal", "player": "Ben", "card": 4},
            {"type": "Deal", "player": "Cleo", "card": 9},
            {"type": "Hit", "player": "Ben", "card": 6},
            {"type": "Hit", "player": "Cleo", "card": 3},
        ],
    )
    studio.open(page, f"/t/{table.token}")


@screen("screenshots/venture.png")
def venture(studio: Studio, page: Any) -> None:
    table = studio.table(
        "venture",
        TRIO,
        actions=[
            {"type": "EnterSlug", "cards": [3, 7, 9, 10]},
            {"type": "Bid", "player": "Ana", "card": 5},
            {"type": "Bid", "player": "Ben", "card": 8},
            {"type": "Bid", "player": "Cleo", "card": 2},
        ],
    )
    studio.open(page, f"/t/{table.token}")


def _venture_with_seats(studio: Studio) -> Any:
    """A Venture round under way: Ana bids on her own phone, the others share one."""
    table = studio.table("venture", TRIO, actions=[{"type": "EnterSlug", "cards": [3, 7, 9, 10]}])
    studio.store.take_seat(table.token, TRIO[0], "a-phone-of-her-own".ljust(64, "0"))
    studio.act(table, {"type": "Bid", "player": TRIO[0], "card": 5})
    return table


@screen("screenshots/live-shared.png", scheme="dark")
def live_shared(studio: Studio, page: Any) -> None:
    table = _venture_with_seats(studio)
    studio.open(page, f"/t/{table.token}")


@screen("screenshots/live-takeover.png")
def live_takeover(studio: Studio, page: Any) -> None:
    table = _venture_with_seats(studio)
    studio.open(page, f"/t/{table.token}", answer_who=False)
    page.get_by_role("button", name=TRIO[0], exact=False).first.click()
    page.locator(".seat-confirm").wait_for()


@screen("screenshots/live-who.png")
def live_who(studio: Studio, page: Any) -> None:
    table = _venture_with_seats(studio)
    studio.open(page, f"/t/{table.token}", answer_who=False)


@screen("screenshots/autumn-leaves.png")
def autumn_leaves(studio: Studio, page: Any) -> None:
    table = studio.table(
        "autumn_leaves",
        TRIO,
        actions=[
            {"type": "Reveal", "cards": [["Ana", 5], ["Ben", 7], ["Cleo", 3]]},
            {"type": "Reveal", "cards": [["Ana", 6], ["Ben", 4], ["Cleo", 8]]},
        ],
    )
    studio.open(page, f"/t/{table.token}")


# --- Leaf and the North Wind -----------------------------------------------------


@screen("screenshots/leaf-score-sheet.png")
def leaf_score_sheet(studio: Studio, page: Any) -> None:
    from companion.rules import leaf

    hera = {"den": {"raven": 2, "fox": 4, "owl": 1}, "mushroom_groups": [2, 4], "tree": 3}
    hera |= {"sun": 2, "leaf_cards": 3, "acorn_tokens": 8, "minus_three": 1}
    table = studio.table(
        "leaf",
        ["Hera", "Cleo"],
        actions=[
            leaf.EnterTally("Hera", hera),
        ],  # Cleo still to count: her count leads, open (issue 20)
    )
    studio.open(page, f"/t/{table.token}")


def _solo(studio: Studio, title: str = "Solo") -> Any:
    table = studio.table("north_wind", ["Ana"], {"difficulty": "normal"}, title=title)
    studio.post(table, "setup", a1="fox", a2="owl")
    studio.post(table, "end-turn")
    return table


@screen("screenshots/north-wind-solo.png")
def north_wind_solo(studio: Studio, page: Any) -> None:
    table = _solo(studio)
    studio.post(table, "draw", leaf="sweetgum", colour="red", arrow="top-left")
    compare = "c0_red=2&c0_green=1&c1_red=2&c1_yellow=2&c1_human=1&c2_red=2&c2_orange=2"
    studio.open(page, f"/t/{table.token}?compare=1&{compare}")


@screen("screenshots/north-wind-orange.png", scheme="dark")
def north_wind_orange(studio: Studio, page: Any) -> None:
    table = _solo(studio)
    studio.post(table, "draw", leaf="tulip-poplar", colour="orange", arrow="bottom-right")
    studio.post(table, "place", tips_red="1", tips_orange="1", tips_yellow="1")
    studio.post(table, "red", outcome="grow")
    studio.open(page, f"/t/{table.token}")


def _finish_solo(studio: Studio, table: Any) -> None:
    """Empty three piles, one short North Wind turn, then the last Frost."""
    for leaf in ("ginkgo", "sweetgum", "sassafras"):
        studio.post(table, "pile", leaf=leaf)
    studio.post(table, "end-turn")
    studio.post(table, "draw", leaf="tulip-poplar", colour="green", arrow="top-left")
    studio.post(table, "place", tips_green="2")
    studio.post(table, "done")
    studio.post(table, "done")


@screen("screenshots/north-wind-score.png")
def north_wind_score(studio: Studio, page: Any) -> None:
    table = studio.table("north_wind", ["Ana"], {"difficulty": "normal"}, title="Solo")
    studio.post(table, "setup", a1="fox", a2="owl")
    _finish_solo(studio, table)
    studio.post(table, "hibernate", animal="fox", m1="owl", m2="", m3="", m4="", m5="")
    studio.post(table, "final", h_acorns="20", h_tree="2", h_den_raven="2")
    studio.open(page, f"/t/{table.token}")


@screen("screenshots/north-wind-achievements.png")
def north_wind_achievements(studio: Studio, page: Any) -> None:
    for ticks in (("sun-5", "two-threes"), ("sun-5", "")):
        table = studio.table("north_wind", ["Ana"], {"difficulty": "easy"}, title="Solo")
        _finish_solo(studio, table)
        studio.post(table, "hibernate", animal="")
        studio.post(table, "final", h_acorns="30", h_sun="6", h_groups="3 3")
        studio.post(table, "achieve", ach_0="", ach_1="", ach_2=ticks[0], ach_3=ticks[1])
        studio.open(page, f"/t/{table.token}")  # achievements follow this browser's tables
    studio.open(page, "/achievements")


# --- Autumn Ash and the solitaire ------------------------------------------------


def _ash_race(studio: Studio) -> Any:
    """Ana (Rainbow) wins the race to 21 with 29 to Ben's 16, one bag undone on the way."""
    table = studio.table("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"}, title="Ash")
    for player, pieces in (
        ("Ana", [["black", 3], ["black", 3], ["black", 2]]),
        ("Ben", [["cyan", 1], ["cyan", 1], ["cyan", 2]]),
    ):
        studio.act(table, {"type": "Bag", "player": player, "pieces": pieces})
    studio.store.undo(table.token, studio.store.version(table.token))
    for player, pieces in (
        ("Ben", [["purple", 1], ["purple", 1], ["purple", 2]]),
        ("Ana", [["red", 1], ["red", 2], ["red", 3]]),
    ):
        studio.act(table, {"type": "Bag", "player": player, "pieces": pieces})
    return table


@screen("screenshots/autumn-ash-light.png", full_page=True, scale=2)
def autumn_ash_light(studio: Studio, page: Any) -> None:
    studio.open(page, f"/t/{_ash_race(studio).token}")


@screen("screenshots/autumn-ash-dark.png", scheme="dark", full_page=True, scale=2)
def autumn_ash_dark(studio: Studio, page: Any) -> None:
    studio.open(page, f"/t/{_ash_race(studio).token}")


# The board mirror: a position from the text's scoring example (our reconstruction,
# see docs/autumn-ash-referee.md), Rainbow has just capped the white queen on E6; Xeno has
# picked the drone on A3 and the square B3 (two rows at once) and chooses the size.
ASH_BOARD_SEED = (
    ".,.,.,.,white3/.,cyan1,.,.,yellow1/.,cyan2,.,.,./"
    "orange2,.,cyan3,red3+cyan1+red1,yellow2/.,.,.,.,./yellow3,.,.,yellow3,. rainbow 0-5 standard"
)


def _ash_board(studio: Studio, page: Any) -> None:
    options = {"rainbow": "Ana", "mode": "board", "position": ASH_BOARD_SEED}
    table = studio.table("autumn_ash", ["Ana", "Ben"], options, title="Ash board")
    studio.post(table, "move", **{"from": "E5", "to": "E6", "size": "1"})
    studio.open(page, f"/t/{table.token}?sel=A3&to=B3")
    page.evaluate("window.scrollTo(0, document.querySelector('.ash-prompt').offsetTop - 8)")


@screen("screenshots/autumn-ash-board-light.png")
def autumn_ash_board_light(studio: Studio, page: Any) -> None:
    _ash_board(studio, page)


@screen("screenshots/autumn-ash-board-dark.png", scheme="dark")
def autumn_ash_board_dark(studio: Studio, page: Any) -> None:
    _ash_board(studio, page)


SOLITAIRE_DEAL = 20


def _solitaire_nearly_won(studio: Studio, moves_left: int = 3) -> Any:
    """Deal 20 with all but the last few moves of a winning line played."""
    from companion.rules import solitaire, solitaire_solver

    found = solitaire_solver.solve(solitaire.new_game(SOLITAIRE_DEAL), 10)
    if found.result != "won":
        raise RuntimeError(f"the solver found no win for deal {SOLITAIRE_DEAL} in 10 s")
    return studio.table(
        "solitaire",
        ["Solo"],
        {"deal": SOLITAIRE_DEAL},
        title=f"Solitaire #{SOLITAIRE_DEAL}",
        actions=found.moves[:-moves_left],
    )


@screen("screenshots/solitaire-light.png", full_page=True, scale=2)
def solitaire_light(studio: Studio, page: Any) -> None:
    studio.open(page, f"/t/{_solitaire_nearly_won(studio).token}")


@screen("screenshots/solitaire-dark.png", scheme="dark", full_page=True, scale=2)
def solitaire_dark(studio: Studio, page: Any) -> None:
    studio.open(page, f"/t/{_solitaire_nearly_won(studio).token}")


@screen("screenshots/solitaire-hint.png", scale=2)
def solitaire_hint(studio: Studio, page: Any) -> None:
    table = studio.table(
        "solitaire", ["Solo"], {"deal": SOLITAIRE_DEAL}, title=f"Solitaire #{SOLITAIRE_DEAL}"
    )
    studio.open(page, f"/t/{table.token}")
    page.get_by_role("link", name="Hint").click()
    # The page is idle already when the tap is made: wait for the hint itself,
    # then for the swap to settle (a picture mid-swap is faded).
    page.locator("#board .notice").wait_for(timeout=60_000)
    page.wait_for_timeout(600)


# --- the print kit -----------------------------------------------------------------
# The print pictures are drawn by docs/print/render.py (the print kit's own
# helpers: real PDFs rasterised with PDFium); each is registered here so this
# one script retakes every picture.


def _render() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("print_render", DOCS / "print" / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _print_sheets(name: str, part: str, numbers: list[int] | None = None, **options: Any):
    def make(studio: Studio, out: Path) -> None:
        _render().sheets(name, part, numbers, **options)

    return make


for _name, _part, _numbers, _options in (
    ("deck.png", "deck", [1, 2], {}),
    ("deck-bleed.png", "deck", [1, 2], {"bleed": True}),
    ("deck-letter.png", "deck", [1, 2], {"paper": "letter"}),
    ("full-backs.png", "deck", [2], {"columns": 1, "ink_saving": False}),
    ("fold.png", "deck", [1], {"columns": 1, "fold": True, "cut_to_edge": True}),
    ("proof.png", "proof", [1, 2], {"dpi": 60}),
    ("standard-deck.png", "standard-deck", [1], {"columns": 1}),
    ("duplex-test.png", "duplex-test", [1, 2], {"dpi": 70}),
    ("aids.png", "aids", [1], {"columns": 1, "dpi": 70}),
    ("scorepads.png", "scorepads", None, {"columns": 5, "dpi": 40}),
    ("board.png", "board", [1, 2], {}),
    ("pyramids.png", "pyramids", [1], {"columns": 1, "dpi": 70}),
    ("kit.png", "kit", None, {"columns": 14, "dpi": 13}),
):
    picture(f"print/{_name}")(_print_sheets(_name, _part, _numbers, **_options))


@picture("print/card-images.png")
def print_card_images(studio: Studio, out: Path) -> None:
    _render().card_pictures("card-images.png")


@picture("print/service-faces.png")
def print_service_faces(studio: Studio, out: Path) -> None:
    _render().service_pictures("service-faces.png")


# --- end screens and records (issue 13) ----------------------------------------------


def _finished(studio: Studio, game: str, players: list[str], options: dict[str, Any]) -> Any:
    """A table of ``game`` played to its end by the tests' game drivers (real shuffles)."""
    sys.path.insert(0, str(DOCS.parent / "tests"))
    import end_games

    table = studio.store.create_table(game, players, options, title="Game night", seed=1)
    finish = getattr(end_games, f"finish_{game}")
    finish(studio.store, table)
    return table


def _end_shot(game: str, players: list[str], options: dict[str, Any] | None = None):
    def make(studio: Studio, page: Any) -> None:
        table = _finished(studio, game, players, options or {})
        studio.open(page, f"/t/{table.token}")

    return make


for _game, _players, _options, _scheme in (
    ("pairs", TRIO, {"target": 16}, "light"),
    ("venture", TRIO, {}, "dark"),
    ("autumn_leaves", TRIO, {}, "light"),
    ("leaf", TRIO, {}, "dark"),
    ("autumn_ash", ["Ana", "Ben"], {"rainbow": "Ana"}, "light"),
    ("scorepad", TRIO, {}, "dark"),
    ("solitaire", ["Ana"], {"deal": 20}, "light"),
):
    screen(f"screenshots/end-{_game.replace('_', '-')}.png", scheme=_scheme, full_page=True)(
        _end_shot(_game, _players, _options)
    )


@screen("screenshots/end-north-wind.png", full_page=True)
def end_north_wind(studio: Studio, page: Any) -> None:
    table = studio.table("north_wind", ["Ana"], {"difficulty": "easy"}, title="Solo")
    _finish_solo(studio, table)
    studio.post(table, "hibernate", animal="")
    studio.post(table, "final", h_acorns="30", h_sun="6", h_groups="3 3")
    studio.open(page, f"/t/{table.token}")


def _records(studio: Studio, page: Any) -> None:
    """Four finished tables, each opened by this browser: records follow the
    tables a browser is a member of (issue 23), so the page has games to show."""
    if not getattr(studio, "records", None):
        studio.records = [  # type: ignore[attr-defined]
            _finished(studio, "scorepad", TRIO, {}),
            _finished(studio, "pairs", TRIO, {"target": 16}),
            _finished(studio, "venture", ["Ana", "ben", "Cleo"], {}),
            _finished(studio, "autumn_ash", ["Ben", "Cleo"], {"rainbow": "Cleo"}),
        ]
    for table in studio.records:  # type: ignore[attr-defined]
        studio.open(page, f"/t/{table.token}")


@screen("screenshots/records.png", full_page=True)
def records(studio: Studio, page: Any) -> None:
    _records(studio, page)
    studio.open(page, "/records")


@screen("screenshots/records-player-dark.png", scheme="dark", full_page=True)
def records_player(studio: Studio, page: Any) -> None:
    _records(studio, page)
    studio.open(page, "/records/player/ana")


# --- every game on a phone (issue 43) ---------------------------------------------
# Each game a few turns in, photographed unscrolled, as the phone first shows it:
# at 390x844 and 360x740, on a seated phone and (where the game has one) on the
# phone passed around the table. docs/phones.md shows them. Each take also
# measures whether the game's main action lies wholly on that first screen and
# prints a warning when it does not (tests/browser/test_main_action_in_view_browser.py
# is the test of that; the warning says which picture to look at).

PHONE_SIZES = ((390, 844), (360, 740))
FOUR = ["Ana", "Ben", "Cleo", "Dev"]


def _played(studio: Studio, table: Any, step: Callable[[Any], Any], count: int) -> Any:
    """``count`` more actions, each chosen by ``step`` from the table's state."""
    for _ in range(count):
        studio.act(table, step(studio.store.snapshot(table.token).state))
    return table


def _pairs_midgame(studio: Studio, continuous: bool = False) -> Any:
    """Four players a few hands in, someone to hit or fold (a shuffled deck, one seed)."""
    import random

    from companion.rules.cards import PAIRS_DECK

    deck = list(PAIRS_DECK)
    random.Random(4).shuffle(deck)
    title = "Continuous Pairs" if continuous else "Pairs"
    table = studio.table("pairs", FOUR, {"continuous": continuous}, title=title)
    for done in range(40):
        game = studio.store.snapshot(table.token).state
        if done >= 10 and game.phase == "play" and not game.must_hit(game.to_act):
            break
        kind = {"deal": "Deal", "tiebreak": "TieBreak", "play": "Hit"}[game.phase]
        card = next(c for c in deck if c not in game.used_up())
        deck.remove(card)
        studio.act(table, {"type": kind, "player": game.to_act, "card": card})
    return table


def _venture_midgame(studio: Studio) -> Any:
    """Round 1 bid and revealed; in round 2 Ana and Ben have bid, Cleo and Dev not."""
    table = studio.table("venture", FOUR, title="Venture")
    studio.act(table, {"type": "EnterSlug", "cards": [3, 8, 10]})
    for player, card in (("Ana", 6), ("Ben", 9), ("Cleo", 2), ("Dev", 7), ("Ana", 4), ("Ben", 5)):
        studio.act(table, {"type": "Bid", "player": player, "card": card})
    return table


def _autumn_leaves_midgame(studio: Studio) -> Any:
    """Four players some way into the hand, the table waiting for a reveal."""
    import random

    from companion.rules import actions
    from tests.rules.test_autumn_leaves_rules import random_action

    table = studio.store.create_table("autumn_leaves", FOUR, {}, title="Autumn Leaves", seed=3)
    rng = random.Random(11)
    for done in range(60):
        game = studio.store.snapshot(table.token).state
        if done >= 8 and game.phase == "reveal" and len(game.to_reveal) == len(FOUR):
            break
        studio.act(table, actions.to_dict(random_action(game, rng)))
    return table


def _leaf_midgame(studio: Studio) -> Any:
    """Ana and Ben have counted their cards; Cleo and Dev have not yet."""
    table = studio.table("leaf", FOUR, title="Leaf")
    tallies = (
        ("Ana", {"acorn_tokens": 8, "den": {"fox": 3}, "tree": 2, "sun": 2, "leaf_cards": 3}),
        ("Ben", {"acorn_tokens": 5, "den": {"owl": 2}, "mushroom_groups": [3], "tree": 1}),
    )
    for player, tally in tallies:
        studio.act(table, {"type": "EnterTally", "player": player, "tally": tally})
    return table


def _north_wind_midgame(studio: Studio) -> Any:
    """The North Wind's first turn: its leaf is drawn, to be put down."""
    table = studio.table("north_wind", ["Ana"], {"difficulty": "normal"}, title="Solo")
    studio.act(table, {"type": "SetupAnimals", "animals": ["fox", "owl"]})
    studio.act(table, {"type": "EndHumanTurn"})
    studio.act(
        table, {"type": "Draw", "leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"}
    )
    return table


def _ash_board_midgame(studio: Studio) -> Any:
    """The board mirror's scoring position: Rainbow has just moved, Xeno (Ben) is to play."""
    options = {"rainbow": "Ana", "mode": "board", "position": ASH_BOARD_SEED}
    table = studio.table("autumn_ash", ["Ana", "Ben"], options, title="Ash board")
    studio.post(table, "move", **{"from": "E5", "to": "E6", "size": "1"})
    return table


def _scorepad_midgame(studio: Studio) -> Any:
    rounds = ([5, 3, 8, 4], [2, 9, 1, 6], [7, 4, 6, 3])
    table = studio.table("scorepad", FOUR, {"lowest_wins": False}, title="Friday night")
    for scores in rounds:
        studio.act(table, {"type": "AddRound", "scores": scores})
    return table


def _solitaire_midgame(studio: Studio) -> Any:
    """Deal 5 a hundred and three moves into a winning line: one pile holds 24 cards."""
    from companion.rules import solitaire, solitaire_solver

    found = solitaire_solver.solve(solitaire.new_game(5), 10)
    if found.result != "won":
        raise RuntimeError("the solver found no win for deal 5 in 10 s")
    return studio.table(
        "solitaire", ["Solo"], {"deal": 5}, title="Solitaire #5", actions=found.moves[:103]
    )


@dataclass(frozen=True)
class PhoneGame:
    """One game as the phones pictures show it."""

    name: str  # in the picture's file name
    make: Callable[[Studio], Any]
    seat: str  # whom the seated phone belongs to
    shared: bool  # whether the game has a phone passed around the table
    main_action: str  # Playwright selector of what the phone came to tap
    shared_action: str = ""  # the shared phone's, when it differs


PHONE_GAMES = (
    PhoneGame("pairs", _pairs_midgame, "", True, ".pairs-act .pad-grid"),
    PhoneGame(
        "continuous-pairs", lambda s: _pairs_midgame(s, True), "", True, ".pairs-act .pad-grid"
    ),
    PhoneGame("venture", _venture_midgame, "Cleo", True, ".pad-form .pad-grid"),
    PhoneGame(
        "autumn-leaves",
        _autumn_leaves_midgame,
        "Cleo",
        True,
        ".pad-form .pad-grid",
        ".form-dock button[type=submit] >> nth=0",
    ),
    PhoneGame("leaf", _leaf_midgame, "Cleo", True, ".form-dock button >> nth=0"),
    PhoneGame(
        "north-wind", _north_wind_midgame, "Ana", False, "button:has-text('The leaf is down')"
    ),
    PhoneGame("autumn-ash-board", _ash_board_midgame, "Ben", True, ".ash-board"),
    PhoneGame("scorepad", _scorepad_midgame, "Ana", True, "button:has-text('Add the round')"),
    PhoneGame("solitaire", _solitaire_midgame, "Solo", False, ".sol-stack.sol-long > :last-child"),
)


def _on_a_phone(game: PhoneGame, shared: bool):
    def make(studio: Studio, page: Any) -> None:
        table = game.make(studio)
        if shared:
            studio.open(page, f"/t/{table.token}")
        else:
            seat = game.seat or studio.store.snapshot(table.token).state.to_act
            studio.open(page, f"/t/{table.token}", answer_who=False)
            names = page.locator(".who-names")
            if names.count():
                pattern = re.compile(rf"^{re.escape(seat)}\b")
                names.get_by_role("button", name=pattern).first.click()
                page.locator(".who-bar summary", has_text=f"You are {seat}").wait_for()
                studio.open(page, f"/t/{table.token}")
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(300)  # a long pile is fitted after the board is drawn
        action = game.shared_action if shared and game.shared_action else game.main_action
        _warn_unless_in_view(page, action, f"{game.name} {'shared' if shared else 'seated'}")

    return make


def _warn_unless_in_view(page: Any, selector: str, where: str) -> None:
    """Print where the main action is when it is not wholly on the first screen."""
    size = page.viewport_size
    found = page.locator(selector)
    if not found.count():
        print(f"  warning: {where}: no {selector!r} on the page", file=sys.stderr)
    for index in range(found.count()):
        box = found.nth(index).bounding_box()
        if box is None or box["y"] < 0 or box["y"] + box["height"] > size["height"] + 0.5:
            print(f"  warning: {where}: {selector!r} #{index} at {box} ({size})", file=sys.stderr)


def _to_palette(path: Path) -> None:
    """256 colours and zlib's best: a phone screen is flat colour and text."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(256, dither=Image.Dither.NONE)
    small.save(path, "PNG", optimize=True)


def phone_path(game: str, seated: bool, size: tuple[int, int], scheme: str = "light") -> str:
    phone = "seated" if seated else "shared"
    dark = "-dark" if scheme == "dark" else ""
    return f"screenshots/phones/{game}-{phone}-{size[0]}x{size[1]}{dark}.png"


DARK_PHONES = {("venture", False), ("north-wind", True)}  # also taken in dark mode, at 390x844

for _game in PHONE_GAMES:
    for _seated in (True, False) if _game.shared else (True,):
        for _size in PHONE_SIZES:
            _schemes = ["light"]
            if (_game.name, _seated) in DARK_PHONES and _size == PHONE_SIZES[0]:
                _schemes.append("dark")
            for _scheme in _schemes:
                screen(
                    phone_path(_game.name, _seated, _size, _scheme),
                    scheme=_scheme,
                    viewport=_size,
                    palette=True,
                )(_on_a_phone(_game, shared=not _seated))


# --- one table in three languages (issue 45) -----------------------------------------
# The same Autumn Leaves table on a phone that reads English, German or Polish (the
# phone's choice, /language/<code>): the board on the shared phone, a tap refused
# and answered in place, and the end screen. docs/languages.md shows them side by side.
# Autumn Leaves, not Venture: Venture's board is not translated yet (docs/languages.md).

LANGUAGE_SHOTS = ("en", "de", "pl")


def _in_language(studio: Studio, page: Any, code: str, path: str) -> None:
    """Open ``path`` on a phone that chose ``code`` with the top bar's switch."""
    studio.open(page, f"/language/{code}?next=/")
    studio.open(page, path)


def _autumn_leaves_to_play(studio: Studio) -> Any:
    """Four players into their first hand, a card to place on a lit pile."""
    import random

    from companion.rules import actions
    from tests.rules.test_autumn_leaves_rules import random_action

    table = studio.store.create_table("autumn_leaves", FOUR, {}, title="Autumn Leaves", seed=3)
    rng = random.Random(11)
    for done in range(200):
        game = studio.store.snapshot(table.token).state
        if done >= 8 and game.phase == "play" and len(game.fits) > 1:
            return table
        studio.act(table, actions.to_dict(random_action(game, rng)))
    raise RuntimeError("no Autumn Leaves turn with two lit piles in 200 actions")


def _language_board(code: str):
    def make(studio: Studio, page: Any) -> None:
        _in_language(studio, page, code, f"/t/{_autumn_leaves_to_play(studio).token}")

    return make


def _language_refused(code: str):
    """Reveal tapped on the shared phone before any card was chosen: refused,
    and the answer stands where the tap was."""

    def make(studio: Studio, page: Any) -> None:
        _in_language(studio, page, code, f"/t/{_autumn_leaves_midgame(studio).token}")
        page.locator("form.al-many button[type=submit]").first.click()
        page.locator(".notice-error").first.wait_for()
        page.wait_for_timeout(400)  # the phone brings the answer into view (in_view.js)

    return make


def _language_end(code: str):
    def make(studio: Studio, page: Any) -> None:
        sys.path.insert(0, str(DOCS.parent / "tests"))
        import end_games

        table = studio.store.create_table("autumn_leaves", TRIO, {}, title="Autumn Leaves", seed=1)
        end_games.finish_autumn_leaves(studio.store, table)
        _in_language(studio, page, code, f"/t/{table.token}")

    return make


for _code in LANGUAGE_SHOTS:
    for _state, _make in (
        ("board", _language_board),
        ("refused", _language_refused),
        ("end", _language_end),
    ):
        screen(f"screenshots/languages/autumn-leaves-{_state}-{_code}.png", palette=True)(
            _make(_code)
        )


# --- running them ------------------------------------------------------------------


def take(shots: list[Shot]) -> None:
    studio = Studio()
    try:
        browser_shots = [s for s in shots if s.browser]
        for s in shots:
            if not s.browser:
                s.make(studio, DOCS / s.path)
                print(f"docs/{s.path}")
        if browser_shots:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=[
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-background-networking",
                        "--disable-component-update",
                    ],
                )
                for s in browser_shots:
                    width, height = s.viewport
                    context = browser.new_context(
                        viewport={"width": width, "height": height},
                        color_scheme=s.scheme,
                        device_scale_factor=s.scale,
                    )
                    page = context.new_page()
                    s.make(studio, page)
                    (DOCS / s.path).parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(DOCS / s.path), full_page=s.full_page)
                    context.close()
                    if s.palette:
                        _to_palette(DOCS / s.path)
                    print(f"docs/{s.path}")
                browser.close()
    finally:
        studio.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="WORD", help="paths containing a word")
    parser.add_argument("--list", action="store_true", help="list the pictures and stop")
    args = parser.parse_args(argv)
    chosen = [s for s in SHOTS.values() if not args.only or any(w in s.path for w in args.only)]
    if args.list:
        print("\n".join(f"docs/{s.path}" for s in chosen))
        return 0
    if not chosen:
        print("No picture matches; --list shows them all.", file=sys.stderr)
        return 1
    take(chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
