"""What finished tables leave behind: one result row per player, rematch links, name merges.

Three new database tables (existing ones are never altered, so old databases
keep working: ``create_all`` adds these on the next start):

* ``results``: a finished table's final standing, one row per player,
  written in the same transaction as the write that finished the game
  (:func:`record`, called by ``Store._append``) and removed again when an
  undo reopens the game. The records page and the North Wind achievements
  read these rows instead of replaying every table's log.
* ``rematches``: "Play again" links an old table to its new one, so phones
  still polling the old table follow.
* ``player_names``: a merge or rename of a typed name (by its key) for the
  whole server: before issue 23 any host's; now only the operator's list
  reads these rows.
* ``table_player_names``: a host's merge or rename, kept per table (issue 23):
  it changes how the name shows for that table's results only, so it reaches
  exactly the browsers that share those tables.

Names are matched by :func:`name_key`: ignoring case and spaces.

Whose records (issue 23, a ruling: docs/records.md): a browser's *group* is
the set of tables it is a member of (it started one, opened one by its link
or code, or followed a rematch): the browsers that played together. A
records page, the CSV and the achievements read only the result rows of
those tables (:func:`group_tables`); a browser in no group sees nothing.
Only the server's operator (``LEAFPILE_OPERATOR_TOKEN``) reads every row.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    DateTime,
    ForeignKey,
    Integer,
    Select,
    String,
    and_,
    case,
    delete,
    func,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from .models import MAX_NAME_LENGTH, Base, MemberRow, TableRow
from .summaries import Summary, is_over, summarise

if TYPE_CHECKING:
    from .core import StoreCore
    from .log import Snapshot, TableView


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def name_key(name: str) -> str:
    """The key two typed names share when they mean the same person: no case, no spaces."""
    return "".join(str(name).casefold().split())[: MAX_NAME_LENGTH * 4]


class ResultRow(Base):
    __tablename__ = "results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    game: Mapped[str] = mapped_column(String(32), index=True)
    variant: Mapped[str] = mapped_column(String(32), default="")
    player: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4))
    player_key: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)  # how many played at the table
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    place: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(8))  # won | shared | lost | played
    margin: Mapped[int | None] = mapped_column(Integer, nullable=True)
    low_wins: Mapped[int] = mapped_column(Integer, default=0)
    achievements: Mapped[str] = mapped_column(String(400), default="")  # comma-separated ids
    finished_at: Mapped[datetime] = mapped_column(DateTime, default=_now, index=True)


class RematchRow(Base):
    __tablename__ = "rematches"

    old_table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    new_table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime, default=_now)


class PlayerNameRow(Base):
    __tablename__ = "player_names"

    key: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4), primary_key=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4))  # what the key goes by now
    changed_at: Mapped[datetime] = mapped_column(DateTime, default=_now)


class TableNameRow(Base):
    """A host's merge or rename of one typed name at one table (issue 23)."""

    __tablename__ = "table_player_names"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4), primary_key=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4))  # what it shows as
    shown_key: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH * 4), index=True)
    changed_at: Mapped[datetime] = mapped_column(DateTime, default=_now)


# --- whose records -------------------------------------------------------------------

#: The tables a records page reads: a query of table ids, or None for every table
#: (the operator's list).
Scope = Select[Any] | None


def group_tables(device: str | None) -> Select[Any]:
    """The ids of the tables this browser is a member of (none for an unknown browser)."""
    return select(MemberRow.table_id).where(MemberRow.device == (device or "-"))


def hosted_tables(device: str | None) -> Select[Any]:
    """The ids of the tables this browser started (or imported)."""
    return select(MemberRow.table_id).where(
        MemberRow.device == (device or "-"), MemberRow.role == "host"
    )


# --- writing results -----------------------------------------------------------------


@dataclass(frozen=True)
class PlayerResult:
    player: str
    seat: int
    score: int | None
    place: int
    outcome: str


def player_results(players: tuple[str, ...], summary: Summary) -> list[PlayerResult]:
    """One line per person who played (the North Wind is not a person)."""
    if summary.game == "solitaire":
        outcome = "won" if summary.winners else "lost"
        return [PlayerResult(players[0], 0, None, 1, outcome)]
    return [
        PlayerResult(s.player, players.index(s.player), s.score, s.place, s.outcome)
        for s in summary.standings
        if s.player in players
    ]


def rewrites(before: Snapshot | None, after: Snapshot) -> bool:
    """Whether a write from ``before`` to ``after`` changes the table's result
    rows: it leaves the game over (a later achievement tick or score pad fix
    changes them), or it reopens a finished game (an undo removes them)."""
    game = after.table.game
    return is_over(game, after.state) or (before is not None and is_over(game, before.state))


def record(session: Session, before: Snapshot | None, after: Snapshot) -> None:
    """Keep a table's result rows in step with its log, inside the write's
    transaction (see :func:`rewrites`); other writes cost nothing here."""
    if not rewrites(before, after):
        return
    table = after.table
    session.execute(delete(ResultRow).where(ResultRow.table_id == table.id))
    if is_over(table.game, after.state):
        record_finished(session, table, after.state, after.actions)


def record_finished(
    session: Session, table: TableView, state: Any, actions: tuple[dict[str, Any], ...]
) -> None:
    """Write the result rows of a game that ``state`` (after ``actions``) ends,
    if it does: a new table's (an import) or, from :func:`record`, one that
    has just ended again."""
    if not is_over(table.game, state):
        return
    try:
        summary = summarise(table.game, table.players, table.options, table.seed, actions, state)
    except Exception:  # a summary is a by-product: it must never refuse the write itself
        logging.getLogger(__name__).exception("no summary for table %s", table.id)
        return
    if summary is None:
        return
    finished_at = _now()
    for line in player_results(table.players, summary):
        session.add(
            ResultRow(
                table_id=table.id,
                game=table.game,
                variant=summary.variant[:32],
                player=line.player,
                player_key=name_key(line.player),
                seat=line.seat,
                players=len(table.players),
                score=line.score,
                place=line.place,
                outcome=line.outcome,
                margin=summary.margin,
                low_wins=int(summary.low_wins),
                achievements=",".join(summary.achievements)[:400],
                finished_at=finished_at,
            )
        )


# --- reading results -----------------------------------------------------------------


@dataclass(frozen=True)
class ResultLine:
    """A result row with its table's title and address, for the records pages."""

    table_token: str
    view_token: str  # the read-only address: what a records page links to
    table_title: str
    game: str
    variant: str
    player: str
    key: str
    score: int | None
    place: int
    players: int
    outcome: str
    low_wins: bool
    achievements: tuple[str, ...]
    finished_at: datetime


def aliases(session: Session) -> dict[str, str]:
    """Merged or renamed keys: key -> the name it goes by now."""
    return {row.key: row.name for row in session.scalars(select(PlayerNameRow))}


def resolve(name: str, names: dict[str, str]) -> tuple[str, str]:
    """(key, shown name) for a typed name, following merges (a few hops at most)."""
    key, merged = resolve_key(name_key(name), names)
    return key, name if merged is None else merged


def result_lines(
    session: Session,
    *,
    game: str | None = None,
    keys: list[str] | None = None,
    scope: Scope = None,
    server_names: bool = False,
) -> list[ResultLine]:
    """The result rows of the tables in ``scope`` (None: every table), of these
    stored name keys, oldest first, with each table's merges applied (and, for
    the operator's list, ``server_names``: the server-wide ones)."""
    names = aliases(session) if server_names else {}
    query = (
        select(
            TableRow.token,
            TableRow.view_token,
            TableRow.title,
            ResultRow.game,
            ResultRow.variant,
            ResultRow.player,
            ResultRow.score,
            ResultRow.place,
            ResultRow.players,
            ResultRow.outcome,
            ResultRow.low_wins,
            ResultRow.achievements,
            ResultRow.finished_at,
            TableNameRow.name.label("table_name"),
        )
        .join(TableRow, TableRow.id == ResultRow.table_id)
        .outerjoin(
            TableNameRow,
            and_(
                TableNameRow.table_id == ResultRow.table_id,
                TableNameRow.key == ResultRow.player_key,
            ),
        )
        .order_by(ResultRow.finished_at, ResultRow.id)
    )
    if game is not None:
        query = query.where(ResultRow.game == game)
    if keys is not None:
        query = query.where(ResultRow.player_key.in_(keys))
    if scope is not None:
        query = query.where(ResultRow.table_id.in_(scope))
    lines = []
    for row in session.execute(query):
        key, shown = resolve(row.table_name or row.player, names)
        lines.append(
            ResultLine(
                table_token=row.token,
                view_token=row.view_token,
                table_title=row.title,
                game=row.game,
                variant=row.variant,
                player=shown,
                key=key,
                score=row.score,
                place=row.place,
                players=row.players,
                outcome=row.outcome,
                low_wins=bool(row.low_wins),
                achievements=tuple(a for a in row.achievements.split(",") if a),
                finished_at=row.finished_at,
            )
        )
    return lines


def rename_at(session: Session, tables: Select[Any], old: str, new: str) -> int:
    """At the tables in ``tables``, everyone who shows as ``old`` shows as ``new``
    from now on (a merge when ``new`` already has results there); how many
    tables changed. Other tables, and so other groups, are untouched; the
    typed names in the tables stay as typed."""
    old_key, new_key = name_key(old), name_key(new)
    ids = set(session.scalars(tables))
    # Names that show as ``old`` through an earlier rename at these tables follow it.
    followed = getattr(
        session.execute(
            update(TableNameRow)
            .where(TableNameRow.table_id.in_(ids), TableNameRow.shown_key == old_key)
            .values(name=new, shown_key=new_key, changed_at=_now())
        ),
        "rowcount",
        0,
    )
    # Names typed as ``old`` and not renamed yet at these tables.
    renamed = set(
        session.scalars(
            select(TableNameRow.table_id).where(
                TableNameRow.table_id.in_(ids), TableNameRow.key == old_key
            )
        )
    )
    typed = set(
        session.scalars(
            select(ResultRow.table_id)
            .where(ResultRow.table_id.in_(ids), ResultRow.player_key == old_key)
            .distinct()
        )
    )
    for table_id in sorted(typed - renamed):
        session.add(TableNameRow(table_id=table_id, key=old_key, name=new, shown_key=new_key))
    return int(followed or 0) + len(typed - renamed)


def rename(session: Session, old: str, new: str) -> None:
    """The server-wide rename (before issue 23 every host's; now the operator's list
    only reads it). The typed names in the tables stay as typed."""
    key = name_key(old)
    row = session.get(PlayerNameRow, key)
    if name_key(new) == key:
        if row is not None:
            row.name = new
            row.changed_at = _now()
        else:
            session.add(PlayerNameRow(key=key, name=new))
        return
    if row is None:
        session.add(PlayerNameRow(key=key, name=new))
    else:
        row.name = new
        row.changed_at = _now()


# --- rematches -----------------------------------------------------------------------


def rematch_of(session: Session, table_id: int) -> Any:
    """The table a rematch of ``table_id`` started, or None."""
    link = session.get(RematchRow, table_id)
    if link is None:
        return None
    return session.get(TableRow, link.new_table_id)


# --- tables finished before results were kept -----------------------------------------


class BackfillRow(Base):
    """Present once every table finished before this version has its result rows."""

    __tablename__ = "results_backfill"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    done_at: Mapped[datetime] = mapped_column(DateTime, default=_now)


def ensure_backfilled(store: StoreCore) -> None:
    """Once per database: write the result rows of tables finished before they were kept.

    Each table is (re)recorded in its own write, which replaces its rows, so
    two workers doing this at the same moment still leave one set each.
    """
    if getattr(store, "_results_backfilled", False):
        return
    with Session(store.engine) as session:
        done = session.get(BackfillRow, 1) is not None
    if not done:
        with Session(store.engine) as session:
            ids = list(session.scalars(select(TableRow.token)))
        for token in ids:
            try:
                snap = store.snapshot(token)
            except Exception:  # one broken table must not stop the others
                continue
            if not is_over(snap.table.game, snap.state):
                continue
            with Session(store.engine) as session, session.begin():
                record(session, None, snap)
        with suppress(IntegrityError), Session(store.engine) as session, session.begin():
            session.add(BackfillRow(id=1))
    store._results_backfilled = True  # type: ignore[attr-defined]


# --- totals counted by the database (the records page) --------------------------------


@dataclass(frozen=True)
class GroupTotals:
    """One typed-name key's results in one game and variant, counted in SQL."""

    key: str
    name: str
    game: str
    variant: str
    low_wins: bool
    played: int
    won: int
    lost: int
    lowest: int | None
    highest: int | None


def group_totals(
    session: Session, since: datetime | None = None, scope: Scope = None
) -> list[GroupTotals]:
    """Results of the tables in ``scope`` (None: all) counted per (shown name key,
    game, variant): each table's merges applied, the server-wide ones not yet."""
    won = func.sum(case((ResultRow.outcome.in_(("won", "shared")), 1), else_=0))
    lost = func.sum(case((ResultRow.outcome == "lost", 1), else_=0))
    shown_key = func.coalesce(TableNameRow.shown_key, ResultRow.player_key)
    query = (
        select(
            shown_key,
            func.max(func.coalesce(TableNameRow.name, ResultRow.player)),
            ResultRow.game,
            ResultRow.variant,
            ResultRow.low_wins,
            func.count(ResultRow.id),
            won,
            lost,
            func.min(ResultRow.score),
            func.max(ResultRow.score),
        )
        .outerjoin(
            TableNameRow,
            and_(
                TableNameRow.table_id == ResultRow.table_id,
                TableNameRow.key == ResultRow.player_key,
            ),
        )
        .group_by(shown_key, ResultRow.game, ResultRow.variant, ResultRow.low_wins)
    )
    if since is not None:
        query = query.where(ResultRow.finished_at >= since)
    if scope is not None:
        query = query.where(ResultRow.table_id.in_(scope))
    return [
        GroupTotals(k, n, g, v, bool(low), int(p), int(w or 0), int(lo or 0), mn, mx)
        for k, n, g, v, low, p, w, lo, mn, mx in session.execute(query)
    ]


def resolve_key(key: str, names: dict[str, str]) -> tuple[str, str | None]:
    """(key, merged name or None) for a stored name key, following merges."""
    shown = None
    for _ in range(8):
        if key not in names:
            break
        shown = names[key]
        new_key = name_key(shown)
        if new_key == key:
            break
        key = new_key
    return key, shown


def shown_keys(session: Session, scope: Scope) -> set[str]:
    """The name keys players show under at the tables in ``scope`` (each table's merges)."""
    shown_key = func.coalesce(TableNameRow.shown_key, ResultRow.player_key)
    query = (
        select(shown_key)
        .select_from(ResultRow)
        .outerjoin(
            TableNameRow,
            and_(
                TableNameRow.table_id == ResultRow.table_id,
                TableNameRow.key == ResultRow.player_key,
            ),
        )
        .distinct()
    )
    if scope is not None:
        query = query.where(ResultRow.table_id.in_(scope))
    return set(session.scalars(query))
