"""Solitaire pages outside the generic table views: start or replay a deal,
this server's statistics, and the hint and "is this deal winnable?" answers.

Hints and verdicts run the solver inside the request with a small budget;
they are answers, not moves, so nothing is written to the table's log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion.rules import solitaire, solitaire_solver
from companion.rules.solitaire import Deal
from companion.tables.store import NoSuchTable, Snapshot, TableError

from . import sentence, store
from . import table as table_views
from .costly import one_job
from .games import FormError
from .games import load as load_screens
from .ratelimit import new_table_limit, solver_limit

bp = Blueprint("solitaire", __name__)

GAME = "solitaire"
HINT_BUDGET = 1.5  # seconds of solver time a hint may take in the request
CHECK_BUDGET = 2.0
STATISTICS_TABLES = 500  # the most recent solitaire tables the statistics look at


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
    context = table_views.board_context(snap, error=None, readonly=False)
    context["sol_hint"] = answer
    template = "table/_board.html" if request.headers.get("HX-Request") else "table/page.html"
    return render_template(template, **context)


def _hint_answer(state: solitaire.State, tip: solitaire_solver.Hint) -> Answer:
    if tip.move is None:
        return Answer(
            "There is no move left to make: this deal is lost from here. Undo, or try a new deal."
        )
    words = solitaire.describe(state, tip.move)
    if isinstance(tip.move, Deal):
        say = "Deal now"
        pick, target = None, None
    else:
        say = f"Move the {words}"
        pick, target = f"{tip.move.source}:{tip.move.count}", tip.move.target
    if tip.result == solitaire_solver.WON:
        why = f"a winning line of {tip.line_length} moves starts with it."
    elif tip.result == solitaire_solver.LOST:
        why = "but no line wins from here any more (the solver searched them all)."
    else:
        why = "the solver ran out of time before finding a win, so this is its best guess."
    return Answer(f"Hint: {say}; {why}", pick, target)


@bp.get("/t/<token>/solitaire/hint")
@solver_limit
@one_job
def hint(token: str) -> Any:
    snap = _solitaire_snapshot(token)
    state: solitaire.State = snap.state
    if state.won:
        return _board(snap, Answer("This deal is won: nothing left to do."))
    tip = solitaire_solver.hint(state, budget=HINT_BUDGET)
    return _board(snap, _hint_answer(state, tip))


@bp.get("/t/<token>/solitaire/check")
@solver_limit
@one_job
def check(token: str) -> Any:
    snap = _solitaire_snapshot(token)
    state: solitaire.State = snap.state
    if state.won:
        return _board(snap, Answer("This deal is won."))
    budget = CHECK_BUDGET * 0.6 if snap.actions else CHECK_BUDGET
    here = solitaire_solver.solve(state, budget=budget)
    text = _verdict(here, "from here" if snap.actions else "")
    if snap.actions and here.result != solitaire_solver.WON and state.seed is not None:
        start = solitaire_solver.solve(solitaire.new_game(state.seed), budget=CHECK_BUDGET * 0.4)
        text += " From the start of the deal: " + _verdict(start, "")
    return _board(snap, Answer(text))


def _verdict(found: solitaire_solver.Solution, where: str) -> str:
    seconds = f"{found.seconds:.1f} s"
    place = f" {where}" if where else ""
    if found.result == solitaire_solver.WON:
        return f"Yes: it can be won{place} ({len(found.moves)} moves; found in {seconds})."
    if found.result == solitaire_solver.LOST:
        return f"No: no line wins{place} (every position was searched in {seconds})."
    return f"Not sure: the solver found no win{place} in {seconds}, but did not search everything."


def statistics(tables: list[Any] | None = None) -> Statistics:
    """Played, won and streaks over this server's solitaire tables.

    A deal counts as played once a move was made, and as won when it is
    sorted. Streaks count wins in a row, oldest to newest; a deal that is not
    won ends the streak, except the newest one while it is still in play.
    """
    if tables is None:
        tables = store().tables(game=GAME, limit=STATISTICS_TABLES)
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
    tables = store().tables(game=GAME, limit=STATISTICS_TABLES)
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
            "solitaire/index.html", stats=stats, recent=recent, error=error, form=form or {}
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
        table = store().create_table(GAME, [name], options, f"Solitaire #{options['deal']}")
    except (FormError, TableError) as exc:
        return index(error=sentence(str(exc)), form=form, status=422)
    return redirect(url_for("table.page", token=table.token), code=303)
