"""Player records of the tables a browser played: the Records pages and CSV.

Read from the ``results`` rows finished games leave behind
(:mod:`companion.tables.results`), never from the games' logs. A player is a
typed name matched ignoring case and spaces; the host may merge or rename
names at the tables it started (the tables keep what was typed).

Whose records (issue 23): a browser sees the results of its group, the
tables it is a member of (:func:`companion.tables.results.group_tables`); a
stranger sees none and can rename none. The list of every table on the
server is the operator's: whoever signs in at ``/records/operator`` with the
server's ``LEAFPILE_OPERATOR_TOKEN`` (no token set: nobody).
"""

from __future__ import annotations

import csv
import io
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from companion.tables.games import load as load_games
from companion.tables.results import GroupTotals, ResultLine, name_key, resolve_key
from companion.tables.store import MAX_NAME_LENGTH, plain_text

from . import store
from .charts import line_chart
from .costly import drawn_in_a_worker
from .groups import OPERATOR_KEY, is_operator, operator_mark, operator_token, rename_scope, scope
from .i18n import gettext, words
from .ratelimit import operator_limit, records_limit
from .viewer import known_device, my_tables

bp = Blueprint("records", __name__)

# Ruling (docs/records.md): "Tonight" is the last 12 hours, so an evening
# that runs past midnight stays one evening.
TONIGHT = timedelta(hours=12)


@dataclass
class GameRecord:
    """One player's results in one game."""

    game: str
    variant: str = ""  # "lowest wins", "continuous", a difficulty: scores compare only within one
    played: int = 0
    won: int = 0
    lost: int = 0
    best: int | None = None
    worst: int | None = None

    def add_totals(self, totals: GroupTotals) -> None:
        self.played += totals.played
        self.won += totals.won
        self.lost += totals.lost
        best, worst = (
            (totals.lowest, totals.highest) if totals.low_wins else (totals.highest, totals.lowest)
        )
        self._keep(best, totals.low_wins)
        self._keep(worst, totals.low_wins)

    def _keep(self, score: int | None, low_wins: bool) -> None:
        if score is None:
            return
        if self.best is None or _better(score, self.best, low_wins):
            self.best = score
        if self.worst is None or _better(self.worst, score, low_wins):
            self.worst = score

    def add(self, line: ResultLine) -> None:
        self.played += 1
        self.won += line.outcome in ("won", "shared")
        self.lost += line.outcome == "lost"
        self._keep(line.score, line.low_wins)


def _better(score: int, than: int, low_wins: bool) -> bool:
    return score < than if low_wins else score > than


@dataclass
class PlayerRecord:
    key: str
    name: str
    played: int = 0
    won: int = 0
    lost: int = 0
    games: dict[str, GameRecord] = field(default_factory=dict)
    lines: list[ResultLine] = field(default_factory=list)

    def add(self, line: ResultLine) -> None:
        self.played += 1
        self.won += line.outcome in ("won", "shared")
        self.lost += line.outcome == "lost"
        key = f"{line.game}/{line.variant}" if line.variant else line.game
        self.games.setdefault(key, GameRecord(line.game, line.variant)).add(line)
        self.lines.append(line)


def tally_totals(groups: Iterable[GroupTotals], names: dict[str, str]) -> list[PlayerRecord]:
    """``tally`` from totals the database counted (the records page: no row-by-row read)."""
    players: dict[str, PlayerRecord] = {}
    for group in groups:
        key, merged = resolve_key(group.key, names)
        record = players.get(key)
        if record is None:
            record = players[key] = PlayerRecord(key, merged or group.name)
        record.played += group.played
        record.won += group.won
        record.lost += group.lost
        game_key = f"{group.game}/{group.variant}" if group.variant else group.game
        record.games.setdefault(game_key, GameRecord(group.game, group.variant)).add_totals(group)
    return sorted(players.values(), key=lambda r: (-r.won, -r.played, r.name.casefold()))


def tally(lines: Iterable[ResultLine]) -> list[PlayerRecord]:
    """Every player's record, most wins first (then most games, then name)."""
    players: dict[str, PlayerRecord] = {}
    for line in lines:
        record = players.get(line.key)
        if record is None:
            record = players[line.key] = PlayerRecord(line.key, line.player)
        record.name = line.player  # the latest spelling (or the merged name) shows
        record.add(line)
    return sorted(players.values(), key=lambda r: (-r.won, -r.played, r.name.casefold()))


def tonight(lines: Sequence[ResultLine], now: datetime | None = None) -> list[PlayerRecord]:
    now = now or datetime.now(UTC).replace(tzinfo=None)
    return tally(line for line in lines if line.finished_at >= now - TONIGHT)


def game_title(game: str, variant: str = "") -> str:
    """A game's name and its variant, in this phone's words."""
    kind = load_games().get(game)
    title = words(kind.title) if kind else game
    if not variant:
        return title
    return gettext("%(game)s (%(variant)s)", game=title, variant=_variant(variant))


def _variant(variant: str) -> str:
    """The variants summaries.py stores with a result, in this phone's words."""
    words = {
        "continuous": gettext("continuous"),
        "drafting": gettext("drafting"),
        "lowest wins": gettext("lowest wins"),
        "easy": gettext("easy"),
        "normal": gettext("normal"),
        "hard": gettext("hard"),
    }
    return words.get(variant, variant)


def _lines() -> list[ResultLine]:
    return store().result_lines(scope(), server_names=is_operator())


def _index_context() -> dict[str, Any]:
    since = datetime.now(UTC).replace(tzinfo=None) - TONIGHT
    operator = is_operator()
    tables = scope()
    totals, merges = store().totals(tables)
    names = merges if operator else {}
    everyone = tally_totals(totals, names)
    evening = tally_totals(store().totals(tables, since)[0], names)
    return {
        "players": everyone,
        "tonight": evening,
        "game_title": game_title,
        "operator": operator,
        "operator_possible": bool(operator_token()),
    }


@bp.get("/records")
@records_limit
@drawn_in_a_worker
def index() -> Any:
    # What a rename did comes through the session (flash), never the URL: a
    # link cannot make this page print text as if it were the site's (issue 23).
    done = [str(message) for message in get_flashed_messages(category_filter=["records"])]
    return render_template("records/index.html", **_index_context(), message=" ".join(done))


@bp.get("/records/player/<key>")
@records_limit
@drawn_in_a_worker
def player(key: str) -> Any:
    if len(key) > MAX_NAME_LENGTH * 4:
        abort(404)
    lines = [line for line in _lines() if line.key == key]
    found = [r for r in tally(lines) if r.key == key]
    if not found:
        abort(404)
    record = found[0]
    wins, games = [0], [0]
    for line in record.lines:
        games.append(games[-1] + 1)
        wins.append(wins[-1] + (line.outcome in ("won", "shared")))
    chart = line_chart(
        [(gettext("Games played"), games), (gettext("Games won"), wins)],
        [gettext("Start"), *(str(i) for i in range(1, len(games)))],
        gettext("Game"),
    )
    return render_template(
        "records/player.html",
        record=record,
        chart=chart,
        game_title=game_title,
        recent=list(reversed(record.lines))[:50],
        mine=my_tables(),
    )


@bp.get("/records.csv")
@records_limit
@drawn_in_a_worker
def export_csv() -> Any:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["finished_utc", "player", "typed_key", "game", "variant", "table", "score", "place",
         "players", "result"]
    )  # fmt: skip
    for line in _lines():
        writer.writerow(
            [
                line.finished_at.isoformat(timespec="seconds"),
                _csv_safe(line.player),
                _csv_safe(line.key),
                line.game,
                line.variant,
                _csv_safe(line.table_title),
                "" if line.score is None else line.score,
                line.place,
                line.players,
                line.outcome,
            ]
        )
    return Response(
        out.getvalue(),
        mimetype="text/csv",
        headers={"Content-Disposition": 'attachment; filename="leafpile-records.csv"'},
    )


def _csv_safe(text: str) -> str:
    # A cell starting with = + - @ would run as a formula in a spreadsheet.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def may_rename(key: str) -> bool:
    """The host may merge or rename a player: this browser started (or imported) a
    table where someone now shown under ``key`` played."""
    if known_device() is None and not is_operator():
        return False
    return key in store().shown_keys(rename_scope())


@bp.post("/records/names")
def names() -> Any:
    """Merge or rename: at this browser's own tables, everyone shown as ``old``
    shows as ``new`` from now on. Nobody else's tables change."""
    old = plain_text(request.form.get("old", ""))
    new = plain_text(request.form.get("new", ""))
    error = None
    if not old or not new:
        error = gettext("Enter the name as it shows now and the name it should show as.")
    elif len(new) > MAX_NAME_LENGTH or len(old) > MAX_NAME_LENGTH * 4:
        error = gettext("A name has at most %(most)s letters.", most=MAX_NAME_LENGTH)
    else:
        if name_key(old) not in store().shown_keys(scope()):
            error = gettext(
                "Nobody called '%(name)s' has a finished game at your tables.", name=old
            )
        elif not may_rename(name_key(old)):
            error = gettext(
                "Only a phone that started one of %(name)s's tables can merge or rename "
                "%(name)s: ask the host.",
                name=old,
            )
    if error:
        return render_template(
            "records/index.html",
            **_index_context(),
            error=error,
            old=old,
            new=new,
        ), 422
    store().rename_player(rename_scope(), old, new)
    flash(gettext("%(old)s now shows as %(new)s at your tables.", old=old, new=new), "records")
    return redirect(url_for("records.index"), code=303)


# --- the operator ---------------------------------------------------------------------


@bp.route("/records/operator", methods=["GET", "POST"])
@operator_limit
def operator() -> Any:
    """Sign in (or out) as the server's operator: the records of every table."""
    error = None
    if request.method == "POST":
        if request.form.get("sign_out"):
            session.pop(OPERATOR_KEY, None)
            return redirect(url_for("records.index"), code=303)
        token = operator_token()
        given = request.form.get("token", "").strip()
        if token and secrets.compare_digest(given.encode(), token.encode()):
            session[OPERATOR_KEY] = operator_mark(token)
            return redirect(url_for("records.index"), code=303)
        error = (
            gettext("That is not this server's operator token.")
            if token
            else gettext("This server has no operator token (LEAFPILE_OPERATOR_TOKEN is not set).")
        )
    return render_template("records/operator.html", error=error, operator=is_operator()), (
        422 if error else 200
    )
