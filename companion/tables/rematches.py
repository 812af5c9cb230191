"""Play again: a finished table's next game, with the same phones, in one transaction.

The new table, its seats and members carried over from the old one, and the
link that sends the old table's phones on are written together: a phone
polling the old table meanwhile sees either nothing new or all of it. Two
phones tapping *Play again* at once get the same new table (the old table's
row is locked while the first one writes).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from companion.rules.messages import refusal

from .core import new_table_row
from .errors import NO_TABLE, NoSuchTable, TableError
from .log import TableView, _view
from .models import MAX_TITLE_LENGTH, MemberRow, SeatRow, TableRow
from .results import RematchRow, rematch_of
from .seats import SeatsMixin
from .summaries import is_over

# Ruling (docs/records.md): none of our games picks its first player by seat
# except the score pad, whose first column is usually the table's first
# player; there the seating turns by one so somebody else starts. Everywhere
# else the seating stays as it was.
ROTATE_SEATING = frozenset({"scorepad"})

_GAME_NUMBER = re.compile(r"^(.*) \(game (\d+)\)$")


def next_players(game: str, players: tuple[str, ...]) -> tuple[str, ...]:
    """The seating of the rematch: the first seat moves to the end where it matters."""
    if game in ROTATE_SEATING and len(players) > 1:
        return (*players[1:], players[0])
    return players


def next_title(title: str) -> str:
    """'Friday' -> 'Friday (game 2)' -> 'Friday (game 3)' ..."""
    found = _GAME_NUMBER.match(title)
    base, number = (found.group(1), int(found.group(2)) + 1) if found else (title, 2)
    suffix = f" (game {number})"
    return base[: MAX_TITLE_LENGTH - len(suffix)] + suffix


def _carry_phones(session: Session, old: TableRow, new: TableRow) -> None:
    """Every seat a phone held and every browser that had the old table (its
    role and what it said it is) come to the new one."""
    players = set((new.setup or {}).get("players", ()))
    for seat in session.scalars(select(SeatRow).where(SeatRow.table_id == old.id)):
        if seat.seat in players:
            session.add(SeatRow(table_id=new.id, seat=seat.seat, device=seat.device))
    for member in session.scalars(select(MemberRow).where(MemberRow.table_id == old.id)):
        session.add(
            MemberRow(table_id=new.id, device=member.device, role=member.role, mode=member.mode)
        )


class RematchMixin(SeatsMixin):
    """Starting the next game of a finished table."""

    def rematch(
        self, token: str, device: str | None, name: Callable[[str], str] = next_title
    ) -> TableView:
        """The next game of the finished table at ``token``, started by the
        host's phone ``device``: the one already started, or a new one, named
        ``name(old name)`` (the web layer numbers it in the host's language).

        Raises :class:`TableError` when ``device`` is not the host's phone or
        the game is not over, :class:`NoSuchTable` for a wrong address.
        """
        try:
            return self._rematch(token, device, name)
        except IntegrityError:
            # On a database that does not lock the row, the other tap's
            # table won: it is the rematch.
            with self._read() as session:
                old = self._row(session, token)
                existing = rematch_of(session, old.id)
                if existing is None:
                    raise
                return _view(existing)

    def _rematch(self, token: str, device: str | None, name: Callable[[str], str]) -> TableView:
        with self._write() as session:
            old = session.scalar(select(TableRow).where(TableRow.token == token).with_for_update())
            if old is None or old.token != token:
                raise NoSuchTable(NO_TABLE)
            existing = rematch_of(session, old.id)
            if existing is not None:
                return _view(existing)
            member = None
            if device is not None:
                member = session.scalar(
                    select(MemberRow).where(
                        MemberRow.table_id == old.id, MemberRow.device == device
                    )
                )
            if member is None or member.role != "host":
                raise TableError(
                    refusal(
                        "table.rematch.host",
                        "only the host's phone can start another game at this table",
                    )
                )
            snap = self._cached(old.token, old.version) or self._rebuild(session, old)
            if not is_over(old.game, snap.state):
                raise TableError(
                    refusal(
                        "table.rematch.early",
                        "this game is not over yet: finish it before starting another",
                    )
                )
            table = snap.table
            new, _ = new_table_row(
                table.game,
                next_players(table.game, table.players),
                table.options,
                name(table.title),
                None,
            )
            session.add(new)
            session.flush()
            _carry_phones(session, old, new)
            session.add(RematchRow(old_table_id=old.id, new_table_id=new.id))
            session.flush()
            return _view(new)
