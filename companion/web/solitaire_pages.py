"""Solitaire pages outside the generic table views: start or replay a deal,
this server's statistics, and the hint and "is this deal winnable?" answers.

Hints and verdicts run the solver inside the request with a small budget;
they are answers, not moves, so nothing is written to the table's log. Both
ask the same search with the same budget for the position on the table, and
both go through one memory of winning lines found before, so they agree: a
deal "Winnable?" has answered yes for gets a hint from that very line. The
solver reads the face-down cards and the order of the hand, so every answer
says "with every card known": a player sees less.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from babel.numbers import format_decimal
from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion.cooperative import off_the_loop
from companion.rules import solitaire, solitaire_deals, solitaire_solver
from companion.rules.solitaire import Deal
from companion.tables.store import NoSuchTable, Snapshot, TableError

from . import sentence, store
from .board import phone_context
from .costly import one_job
from .games import FormError
from .games import load as load_screens
from .i18n import gettext, language, message_of, words
from .ratelimit import new_table_limit, solver_limit
from .viewer import device_id, known_device, viewer_for

bp = Blueprint("solitaire", __name__)

GAME = "solitaire"
# Seconds of solver time in the request. A hint and the check of the position
# on the table get the same time (so they agree); the check of the deal from
# its start, only asked when that is not a yes, gets the rest of 2 s.
HERE_BUDGET = 1.5
START_BUDGET = 0.5
# Lines found in this process, and the lines shipped for the deals the solver
# takes longest on: a deal offered as one that can be won is a yes at once.
KNOWN_WINS = solitaire_solver.KnownWins(shipped=solitaire_deals.winning_line)
STATISTICS_TABLES = 500  # the most recent of this phone's deals the statistics look at


def solver_odds(locale: str = "en") -> str:
    """What benchmarks/solitaire.py measured, from the shipped table of won
    deals (docs/solitaire-solver.md has the figures, with date and load): said on the
    statistics page and with every undecided answer, so nobody reads their
    own losses as proof that deals cannot be won. One decimal, rounded down:
    99.7 % must not read "100 %", which would say every deal was won. The
    number is written as ``locale`` writes it ("99,7 %" in German)."""
    table = solitaire_deals.load()
    per_mille = 1000 * len(table.winnable) // table.tested if table.tested else 0  # exact
    return f"{format_decimal(per_mille / 10, '0.0', locale=locale)} %"


@dataclass(frozen=True)
class Answer:
    """What the board shows after a hint or a check: words, and the move to
    highlight (``pick`` is the form value of the card, ``target`` the pile)."""

    text: str
    pick: str | None = None
    target: int | None = None


@dataclass(frozen=True)
class Statistics:
    played: int
    won: int
    streak: int
    best_streak: int

    @property
    def rate(self) -> int:
        return round(100 * self.won / self.played) if self.played else 0


def _solitaire_snapshot(token: str) -> Snapshot:
    try:
        snap = store().snapshot(token)
    except NoSuchTable:
        abort(404)
    if snap.table.game != GAME:
        abort(404)
    return snap


def _board(snap: Snapshot, answer: Answer) -> Any:
    htmx = bool(request.headers.get("HX-Request"))
    context = phone_context(snap, viewer_for(snap), whole_page=not htmx)
    context["sol_hint"] = answer
    template = "table/_board.html" if htmx else "table/page.html"
    return render_template(template, **context)


def _seconds(seconds: float) -> str:
    """A solver's time, one decimal, as this phone's language writes it."""
    return format_decimal(seconds, "0.0", locale=language())


def _hint_answer(state: solitaire.State, tip: solitaire_solver.Hint) -> Answer:
    if tip.move is None:
        return Answer(
            gettext(
                "There is no move left to make: this deal is lost from here. "
                "Undo, or try a new deal."
            )
        )
    if isinstance(tip.move, Deal):
        pick, target = None, None
        if tip.result == solitaire_solver.WON:
            text = gettext(
                "Hint: Deal now; with every card known (face down and in hand), a winning "
                "line of %(n)s moves starts with it.",
                n=tip.line_length,
            )
        elif tip.result == solitaire_solver.LOST:
            text = gettext(
                "Hint: Deal now; but even with every card known no line wins from here any "
                "more (the solver searched every position)."
            )
        else:
            text = gettext(
                "Hint: Deal now; the solver, even with every card known (face down and in "
                "hand), found no win within %(seconds)s s, so this is its best guess.",
                seconds=_seconds(tip.seconds),
            )
        return Answer(text, pick, target)
    move = words(solitaire.describe_message(state, tip.move))
    pick, target = f"{tip.move.source}:{tip.move.count}", tip.move.target
    if tip.result == solitaire_solver.WON:
        text = gettext(
            "Hint: Move the %(move)s; with every card known (face down and in hand), a "
            "winning line of %(n)s moves starts with it.",
            move=move,
            n=tip.line_length,
        )
    elif tip.result == solitaire_solver.LOST:
        text = gettext(
            "Hint: Move the %(move)s; but even with every card known no line wins from here "
            "any more (the solver searched every position).",
            move=move,
        )
    else:
        text = gettext(
            "Hint: Move the %(move)s; the solver, even with every card known (face down and "
            "in hand), found no win within %(seconds)s s, so this is its best guess.",
            move=move,
            seconds=_seconds(tip.seconds),
        )
    return Answer(text, pick, target)


@bp.get("/t/<token>/solitaire/hint")
@solver_limit
@one_job
def hint(token: str) -> Any:
    snap = _solitaire_snapshot(token)
    state: solitaire.State = snap.state
    if state.won:
        return _board(snap, Answer(gettext("This deal is won: nothing left to do.")))
    found = KNOWN_WINS.solve(state, HERE_BUDGET, run=off_the_loop)
    return _board(snap, _hint_answer(state, solitaire_solver.hint_from(state, found)))


@bp.get("/t/<token>/solitaire/check")
@solver_limit
@one_job
def check(token: str) -> Any:
    snap = _solitaire_snapshot(token)
    state: solitaire.State = snap.state
    if state.won:
        return _board(snap, Answer(gettext("This deal is won.")))
    here = KNOWN_WINS.solve(state, HERE_BUDGET, run=off_the_loop)
    text = _verdict(here, from_here=bool(snap.actions))
    if snap.actions and here.result != solitaire_solver.WON and state.seed is not None:
        start = KNOWN_WINS.solve(solitaire.new_game(state.seed), START_BUDGET, run=off_the_loop)
        text += " " + gettext(
            "From the start of the deal: %(verdict)s",
            verdict=_verdict(start, from_here=False),
        )
    return _board(snap, Answer(text))


def _verdict(found: solitaire_solver.Solution, *, from_here: bool) -> str:
    seconds, odds = _seconds(found.seconds), solver_odds(language())
    if found.result == solitaire_solver.WON:
        if from_here:
            return gettext(
                "Yes: with every card known (face down and in hand), it can be won from "
                "here, in %(n)s moves. You see less than the solver, so finding the line is "
                "up to you.",
                n=len(found.moves),
            )
        return gettext(
            "Yes: with every card known (face down and in hand), it can be won, in %(n)s "
            "moves. You see less than the solver, so finding the line is up to you.",
            n=len(found.moves),
        )
    if found.result == solitaire_solver.LOST:
        if from_here:
            return gettext(
                "No: even with every card known, no line wins from here (every position "
                "was searched, in %(seconds)s s).",
                seconds=seconds,
            )
        return gettext(
            "No: even with every card known, no line wins (every position was searched, "
            "in %(seconds)s s).",
            seconds=seconds,
        )
    if from_here:
        return gettext(
            "Not decided: with every card known (face down and in hand), the solver found "
            "no win from here in %(seconds)s s (what a phone can wait), and it did not "
            "search every position, so this is neither a yes nor a no. Most deals can be "
            "won: %(odds)s of the deals tested.",
            seconds=seconds,
            odds=odds,
        )
    return gettext(
        "Not decided: with every card known (face down and in hand), the solver found no "
        "win in %(seconds)s s (what a phone can wait), and it did not search every "
        "position, so this is neither a yes nor a no. Most deals can be won: %(odds)s of "
        "the deals tested.",
        seconds=seconds,
        odds=odds,
    )


def my_deals() -> list[Any]:
    """This phone's solitaire tables (those it started, or opened by their
    link), newest first. Never the server's: a deal's address is its key, and
    a stranger who found one on a public page could play it, or undo a win."""
    device = known_device()
    if device is None:
        return []
    return store().tables_of(device, limit=STATISTICS_TABLES, game=GAME)


def statistics(tables: list[Any] | None = None) -> Statistics:
    """Played, won and streaks over this phone's solitaire tables.

    A deal counts as played once a move was made, and as won when it is
    sorted. Streaks count wins in a row, oldest to newest; a deal that is not
    won ends the streak, except the newest one while it is still in play.
    """
    if tables is None:
        tables = my_deals()
    results: list[tuple[datetime, int, bool]] = []
    for table in tables:
        try:
            snap = store().snapshot(table.token)
        except (NoSuchTable, TableError):
            continue
        if snap.actions:
            results.append((table.created_at, table.id, bool(snap.state.won)))
    results.sort()
    streak = best = 0
    for i, (_, _, won) in enumerate(results):
        newest = i == len(results) - 1
        if won:
            streak += 1
            best = max(best, streak)
        elif not newest:
            streak = 0
    return Statistics(
        played=len(results), won=sum(1 for _, _, w in results if w), streak=streak, best_streak=best
    )


@bp.get("/solitaire")
def index(error: str | None = None, form: Any = None, status: int = 200) -> Any:
    tables = my_deals()
    stats = statistics(tables)
    recent = []
    for table in tables[:10]:
        try:
            state = store().snapshot(table.token).state
            recent.append((table, load_screens()[GAME].summary(state)))
        except (NoSuchTable, TableError):
            continue
    return (
        render_template(
            "solitaire/index.html",
            stats=stats,
            recent=recent,
            error=error,
            form=form or {},
            solver_odds=solver_odds(language()),
            tested=format_decimal(solitaire_deals.load().tested, locale=language()),
        ),
        status,
    )


@bp.post("/solitaire/new")
@new_table_limit
def new() -> Any:
    form = request.form
    name = " ".join(form.get("name", "").split())[:24] or "Solo"
    try:
        options = load_screens()[GAME].parse_options(form, (name,))
        title = gettext("Solitaire #%(deal)s", deal=options["deal"])  # in the dealer's words
        table = store().create_table(GAME, [name], options, title)
    except (FormError, TableError) as exc:
        return index(error=sentence(message_of(exc)), form=form, status=422)
    # The phone that deals is the host, as at any new table: Play again, delete,
    # its start page and its own backup (issue 42: solo tables had no host).
    store().remember_member(table.token, device_id(), "host")
    return redirect(url_for("table.page", token=table.token), code=303)
