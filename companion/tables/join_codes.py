"""Join codes that cannot be farmed (issue 23).

A join code is typed on a phone, so it is short: its strength is in how few
guesses anyone gets. A code has two halves: the first ``len // 2``
characters *locate* it (no two live codes share them) and the rest is its
secret. A guess whose first half locates a live code but whose secret is
wrong is a *miss against that code*, from whatever address it came: after
``MAX_MISSES`` misses the code is retired, and the host's Join page shows a
new one. So one code can be guessed at most ``MAX_MISSES`` times in its life,
however many addresses an attacker has; the per-address limit
(``companion.web.ratelimit``) only slows each address down.

Expected hits for an attacker (docs/deploying.md, "Join codes", works the
numbers): with 8-character codes (the default of ``deploy/serve``, a public
server) the chance that one code is ever guessed is at most 5 in 25^4
(1 in 78,000), and a random guess first has to locate one of the live codes
(50 live tables: 1 in 7,800). 5-character codes (``leafpile`` on a laptop,
behind a home or club Wi-Fi) give at most 5 in 25^3 (1 in 3,125) per code.

Misses are counted in ``join_code_misses`` (a new table; existing ones are
never altered) with one atomic upsert, so every worker counts the same.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import DateTime, String, delete, select, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from . import models  # models._now, looked up per call: tests move the clock there
from .core import StoreCore
from .errors import NoSuchTable, TableError
from .log import TableView, _view
from .models import Base, JoinCodeRow, TableRow

# Join codes avoid look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B) so they can be read
# across a table and typed on a phone without mistakes.
JOIN_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
JOIN_CODE_LENGTH = 5
#: Wrong secrets a live code takes from anywhere before it is retired.
MAX_MISSES = 5
#: Code lengths a server may choose (LEAFPILE_JOIN_CODE_LENGTH).
SHORTEST, LONGEST = 5, 10
#: New codes tried before giving up when nearly every locator is taken.
_TRIES = 200

NOT_FOUND = "no table has the code {code!r} (codes expire: ask the host for a fresh one)"
RETIRED = (
    "that code was locked after too many wrong tries. Ask the host to open Join again: "
    "it shows a new code"
)


class JoinCodeMissRow(Base):
    """Wrong secrets typed against one live code (from any address)."""

    __tablename__ = "join_code_misses"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    misses: Mapped[int] = mapped_column(default=0)
    expires_at: Mapped[datetime] = mapped_column(DateTime, index=True)


_MISS = text(
    "INSERT INTO join_code_misses (code, misses, expires_at) VALUES (:code, 1, :until) "
    "ON CONFLICT (code) DO UPDATE SET misses = join_code_misses.misses + 1 "
    "RETURNING misses"
)


def locator_length(length: int) -> int:
    return length // 2


def normalise(code: str) -> str:
    """What a person typed, as a code: no spaces or dashes, capitals."""
    return "".join(c for c in code if c not in " -\t\n").upper()


def shown(code: str) -> str:
    """A code as the host's screen shows it: long codes in two halves ("ACDE FGHJ")."""
    if len(code) < 8:
        return code
    half = locator_length(len(code))
    return f"{code[:half]} {code[half:]}"


def issue(session: Session, table: TableRow, minutes: int, length: int) -> tuple[str, datetime]:
    """The table's live code, or a new one of ``length`` characters (in a write)."""
    if not SHORTEST <= length <= LONGEST:
        raise ValueError(f"a join code has {SHORTEST} to {LONGEST} characters, not {length}")
    now = models._now()
    session.execute(delete(JoinCodeRow).where(JoinCodeRow.expires_at < now))
    session.execute(delete(JoinCodeMissRow).where(JoinCodeMissRow.expires_at < now))
    live = session.scalar(
        select(JoinCodeRow)
        .where(JoinCodeRow.table_id == table.id, JoinCodeRow.expires_at > now)
        .order_by(JoinCodeRow.expires_at.desc())
    )
    if live is not None:
        return live.code, live.expires_at
    half = locator_length(length)
    for _ in range(_TRIES):
        code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(length))
        if not _live_with_locator(session, code[:half], now):
            break
    else:
        raise TableError("every join code is in use right now; try again in a few minutes")
    row = JoinCodeRow(code=code, table_id=table.id, expires_at=now + timedelta(minutes=minutes))
    session.add(row)
    return row.code, row.expires_at


def _live_with_locator(session: Session, locator: str, now: datetime) -> list[JoinCodeRow]:
    # Codes share no character that LIKE treats specially (the alphabet is A-Z, 3-9).
    return list(
        session.scalars(
            select(JoinCodeRow).where(
                JoinCodeRow.code.like(f"{locator}%"), JoinCodeRow.expires_at > now
            )
        )
    )


def find(session: Session, typed: str) -> TableView | str:
    """The table a typed code opens, or why not (in a write: a miss is counted and
    must be committed, so the caller raises :class:`NoSuchTable` afterwards)."""
    code = normalise(typed)
    valid = code.isascii() and code.isalnum() and SHORTEST <= len(code) <= LONGEST
    if not valid:
        return NOT_FOUND.format(code=code[:16])
    now = models._now()
    candidates = _live_with_locator(session, code[: locator_length(len(code))], now)
    for row in candidates:
        if secrets.compare_digest(row.code, code):
            table = session.get(TableRow, row.table_id)
            assert table is not None
            return _view(table)
    retired = False
    for row in candidates:  # the right place, the wrong secret: a miss against that code
        if len(row.code) != len(code):
            continue
        misses = session.execute(_MISS, {"code": row.code, "until": row.expires_at}).scalar_one()
        if misses >= MAX_MISSES:
            session.execute(delete(JoinCodeRow).where(JoinCodeRow.code == row.code))
            retired = True
    return RETIRED if retired else NOT_FOUND.format(code=code)


class JoinCodesMixin(StoreCore):
    """The store's join codes: issuing one for a table, opening a table by one."""

    def join_code(
        self, token: str, minutes: int, length: int = JOIN_CODE_LENGTH
    ) -> tuple[str, datetime]:
        """A short code for the table, reused while it is valid, else a new one
        (see :mod:`companion.tables.join_codes`)."""
        with self._write() as session:
            return issue(session, self._row(session, token), minutes, length)

    def table_for_code(self, code: str) -> TableView:
        """The table a typed code opens; a wrong code is :class:`NoSuchTable`, and a
        wrong secret for a live code counts against that code (issue 23)."""
        with self._write() as session:
            found = find(session, code)
        if isinstance(found, str):
            raise NoSuchTable(found)
        return found
