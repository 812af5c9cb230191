"""Seats and members: which phone holds which player's seat, which browsers
have a table (its start page lists them), what a browser without a seat says
it is, and who is host.

Seats bind a player's name to one phone (a device id kept in its cookie);
members are the browsers that created or opened a table, which is all the
start page lists.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from companion.rules.messages import refusal

from .checks import _check_token, _clip
from .core import StoreCore
from .errors import NO_TABLE, NoSuchTable, SeatHasEntry, SeatTaken, TableError
from .log import TableView, _view, entry_maker
from .models import EventRow, MemberRow, SeatRow, TableRow, _now

# What a browser is to a table: it created (or imported) it, or it opened it.
MEMBER_ROLES = ("host", "guest")
# What a browser without a seat may say it is (see MemberRow.mode).
PHONE_MODES = ("shared", "watching")


@dataclass(frozen=True)
class ViewerFacts:
    """What the database knows of one browser at one table."""

    seats: dict[str, str]  # player name -> device hash of the phone holding it
    role: str | None  # "host", "guest", or None (never opened the table)
    mode: str | None  # "shared", "watching", or None (see MemberRow.mode)
    lost_seat: str | None  # a seat another phone took from this one
    lost_to: str | None  # the seat that phone held before, if any


@dataclass(frozen=True)
class BoardRead:
    """What a board fetch needs of the database, read in one statement."""

    token: str  # the table's player token (the snapshot cache's key)
    version: int
    moved_to: tuple[str, str] | None  # (token, view token) of its rematch, if any
    facts: ViewerFacts  # the seats, and this browser's role and mode (none for a spectator)


class SeatsMixin(StoreCore):
    """Seats, members, viewer facts and the host role."""

    def __init__(self, url: str, pool_size: int | None = None, *, make_schema: bool = True) -> None:
        super().__init__(url, pool_size, make_schema=make_schema)
        marker = self._marker
        # Every board render asks who holds which seat and what this browser
        # is: one indexed statement, straight to the driver like the version.
        self._viewer_sql = (
            "SELECT 'seat', s.seat, s.device, NULL, NULL, NULL FROM seats s"
            f" JOIN tables t ON t.id = s.table_id WHERE t.token = {marker}"
            " UNION ALL SELECT 'role', m.role, m.device, m.mode, m.lost_seat, m.lost_to"
            f" FROM members m JOIN tables t ON t.id = m.table_id"
            f" WHERE t.token = {marker} AND m.device = {marker}"
        )
        # A board fetch (and a write, before it writes) reads the version,
        # the rematch its phones should follow, and the viewer facts above
        # in this one statement; the snapshot then comes from the cache.
        head = (
            "SELECT 'table', CAST(t.version AS VARCHAR(20)), t.token, t.view_token, NULL, NULL"
            " FROM tables t WHERE t.{column} = {marker}"
            " UNION ALL SELECT 'moved', n.token, n.view_token, NULL, NULL, NULL"
            " FROM rematches r JOIN tables o ON o.id = r.old_table_id"
            " JOIN tables n ON n.id = r.new_table_id WHERE o.{column} = {marker}"
        )
        player_head = head.format(column="token", marker=marker)
        self._board_sql = f"{player_head} UNION ALL {self._viewer_sql}"
        self._spectator_board_sql = head.format(column="view_token", marker=marker)

    def seats(self, token: str) -> dict[str, str]:
        """The seats held by a phone: player name -> device hash."""
        with self._read() as session:
            row = self._row(session, token)
            return {
                s.seat: s.device
                for s in session.scalars(select(SeatRow).where(SeatRow.table_id == row.id))
            }

    def take_seat(
        self,
        token: str,
        seat: str,
        device: str,
        *,
        take_over: bool = False,
        withdraw: Any = None,
    ) -> bool:
        """Bind ``seat`` to ``device`` (a phone holds one seat a table).

        A seat held by another phone is refused with :class:`SeatTaken`
        unless ``take_over``; so is a free seat whose hidden entry another
        phone made (:class:`SeatHasEntry`: a shared phone entered it). Either
        claim is logged as a ``seat`` event that every phone sees, carrying
        the game action that takes back the seat's hidden entry
        (``withdraw(state, seat)``, None when there is none), so the new
        phone never learns it (LT1, LT3). The phone that lost the seat is
        told by whom, and the host role follows its seat (LT5). Returns True
        when the log changed.
        """
        withdraw = withdraw or (lambda state, player: None)
        self._warm(token)
        with self._write() as session:
            row = session.scalar(select(TableRow).where(TableRow.token == token).with_for_update())
            if row is None or not secrets.compare_digest(row.token, token):
                raise NoSuchTable(NO_TABLE)
            if seat not in (row.setup or {}).get("players", ()):
                raise TableError(
                    refusal(
                        "table.seat.unknown",
                        "there is no player called %(seat)s at this table",
                        seat=repr(seat[:40]),
                    )
                )
            held = session.scalar(
                select(SeatRow).where(SeatRow.table_id == row.id, SeatRow.seat == seat)
            )
            if held is not None and held.device == device:
                return False
            before = self._cached(row.token, row.version) or self._rebuild(session, row)
            action = withdraw(before.state, seat)
            if action is not None and entry_maker(before, seat) == device:
                action = None  # this phone made the seat's hidden entry itself
            if held is not None and not take_over:
                raise SeatTaken(
                    refusal(
                        "table.seat.held", "%(seat)s's seat is held by another phone", seat=seat
                    )
                )
            if held is None and action is not None and not take_over:
                raise SeatHasEntry(
                    refusal(
                        "table.seat.entry",
                        "%(seat)s's hidden entry was made on another phone",
                        seat=seat,
                    )
                )
            mine = session.scalar(
                select(SeatRow).where(SeatRow.table_id == row.id, SeatRow.device == device)
            )
            previous_seat = mine.seat if mine is not None else None
            if mine is not None:
                session.delete(mine)
                session.flush()
            claimer = self._member(session, row.id, device)
            claimer.mode, claimer.lost_seat, claimer.lost_to = None, None, None
            if held is None:
                session.add(SeatRow(table_id=row.id, seat=seat, device=device))
            else:
                loser = self._member(session, row.id, held.device)
                loser.lost_seat, loser.lost_to = seat, previous_seat
                if loser.role == "host":  # the host role follows the host's seat
                    loser.role, claimer.role = "guest", "host"
                held.device = device
                held.claimed_at = _now()
            if held is None and action is None:
                return False
            row.version += 1
            row.updated_at = _now()
            session.add(
                EventRow(
                    table_id=row.id,
                    seq=row.version,
                    kind="seat",
                    payload={"type": "SeatTakenOver", "seat": seat, "action": action},
                    seat=previous_seat,
                    created_at=_now(),
                    device=device,
                )
            )
            session.flush()
            self._rebuild(session, row)
            return True

    @staticmethod
    def _member(session: Session, table_id: int, device: str) -> MemberRow:
        member = session.scalar(
            select(MemberRow).where(MemberRow.table_id == table_id, MemberRow.device == device)
        )
        if member is None:
            member = MemberRow(table_id=table_id, device=device, role="guest")
            session.add(member)
        return member

    def set_mode(self, token: str, device: str, mode: str) -> None:
        """This phone holds no seat and says what it is instead: passed around
        the table (``"shared"``) or ``"watching"``."""
        if mode not in PHONE_MODES:
            raise TableError(f"a phone is a player, shared or watching, not {_clip(mode, 20)!r}")
        with self._write() as session:
            row = self._row(session, token)
            session.query(SeatRow).filter_by(table_id=row.id, device=device).delete()
            member = self._member(session, row.id, device)
            member.mode, member.lost_seat, member.lost_to = mode, None, None

    def hand_host(self, token: str, device: str, seat: str) -> None:
        """The host (``device``) makes the phone holding ``seat`` the host (LT5)."""
        with self._write() as session:
            row = self._row(session, token)
            me = self._member(session, row.id, device)
            if me.role != "host":
                raise TableError(
                    refusal("table.host.only", "only the host's phone can hand the host role on")
                )
            holder = session.scalar(
                select(SeatRow).where(SeatRow.table_id == row.id, SeatRow.seat == seat)
            )
            if holder is None:
                raise TableError(
                    refusal(
                        "table.host.nobody",
                        "%(seat)s's seat is on no phone, so it cannot be host",
                        seat=_clip(seat, 40),
                    )
                )
            if holder.device == device:
                return
            me.role = "guest"
            self._member(session, row.id, holder.device).role = "host"

    def remember_member(self, token: str, device: str, role: str = "guest") -> None:
        """Link a browser to a table it created or opened (idempotent). The
        browser that creates a table starts as the table's shared phone: it
        typed everyone's names and may enter for anybody without a phone."""
        assert role in MEMBER_ROLES
        with self._write() as session:
            row = self._row(session, token)
            member = session.scalar(
                select(MemberRow).where(MemberRow.table_id == row.id, MemberRow.device == device)
            )
            if member is None:
                mode = "shared" if role == "host" else None
                session.add(MemberRow(table_id=row.id, device=device, role=role, mode=mode))
            else:
                member.seen_at = _now()
                if role == "host":
                    member.role = "host"

    def viewer_facts(self, token: str, device: str | None) -> ViewerFacts:
        """Who holds which seat, and this browser's role, mode and lost seat,
        in one read (every board render asks).

        Straight to the driver: through the ORM these lookups cost more
        than rendering the board (about 1.8 ms against 20 us).
        """
        _check_token(token)
        return _facts(self._fetch(self._viewer_sql, (token, token, device or "")))

    def board_read(self, token: str, device: str | None, *, spectator: bool = False) -> BoardRead:
        """Everything a board fetch reads, in one statement: the version, the
        rematch to follow and (for a player's address) the viewer facts.
        ``token`` is the spectator token when ``spectator``."""
        _check_token(token)
        if spectator:
            rows = self._fetch(self._spectator_board_sql, (token, token))
        else:
            rows = self._fetch(self._board_sql, (token, token, token, token, device or ""))
        table = next((row for row in rows if row[0] == "table"), None)
        # The indexed lookup found it; the constant-time compare keeps the
        # final check from leaking how much of a guessed token was right.
        if table is None or not secrets.compare_digest(table[3 if spectator else 2], token):
            raise NoSuchTable(NO_TABLE)
        moved = next(((row[1], row[2]) for row in rows if row[0] == "moved"), None)
        return BoardRead(table[2], int(table[1]), moved, _facts(rows))

    def role_of(self, token: str, device: str) -> str | None:
        """``"host"``, ``"guest"`` or None for a browser that never opened the table."""
        with self._read() as session:
            row = self._row(session, token)
            return session.scalar(
                select(MemberRow.role).where(
                    MemberRow.table_id == row.id, MemberRow.device == device
                )
            )

    def forget_table(self, token: str, device: str) -> bool:
        """Take a table off this browser's start page: its link to the table
        (its member row, and with it a host's role) goes; the table, its log
        and every other phone's place at it stay. The seat it holds stays
        too, so opening the table's link again finds this phone as it was,
        as a guest. False when the browser had no link to the table (or
        there is no such table): nothing to drop."""
        try:
            _check_token(token)
        except NoSuchTable:
            return False
        with self._write() as session:
            row = session.scalar(select(TableRow).where(TableRow.token == token))
            if row is None or not secrets.compare_digest(row.token, token):
                return False
            member = session.scalar(
                select(MemberRow).where(MemberRow.table_id == row.id, MemberRow.device == device)
            )
            if member is None:
                return False
            session.delete(member)
            return True

    def tables_of(self, device: str, limit: int = 50, game: str | None = None) -> list[TableView]:
        """The tables this browser created or opened (of one game, if given),
        most recently played first."""
        query = (
            select(TableRow)
            .join(MemberRow, MemberRow.table_id == TableRow.id)
            .where(MemberRow.device == device)
            .order_by(TableRow.updated_at.desc(), TableRow.id.desc())
            .limit(limit)
        )
        if game is not None:
            query = query.where(TableRow.game == game)
        with self._read() as session:
            return [_view(row) for row in session.scalars(query)]


def _facts(rows: list[Any]) -> ViewerFacts:
    """The viewer facts among the rows of ``_viewer_sql`` (or of a board read)."""
    seats = {row[1]: row[2] for row in rows if row[0] == "seat"}
    member = next((row for row in rows if row[0] == "role"), None)
    if member is None:
        return ViewerFacts(seats, None, None, None, None)
    return ViewerFacts(seats, member[1], member[3], member[4], member[5])
