"""Checks on what comes from outside before it reaches a table or the database:
tokens, tap ids, names and titles as typed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from .errors import NoSuchTable, TableError
from .games import GameKind
from .models import MAX_NAME_LENGTH

# A tap id: what a phone's script makes (a random UUID or similar).
TAP_ID = re.compile(r"[A-Za-z0-9_-]{8,40}")

_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")


def _check_token(token: object) -> None:
    """Refuse anything that cannot be a token before it reaches the database.

    A NUL byte or other junk from a URL would otherwise make PostgreSQL fail
    the query (a 500) instead of answering "no such table".
    """
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise NoSuchTable("there is no table at this address")


def plain_text(text: str) -> str:
    """Text as typed, without control characters, with runs of spaces made one.

    Control characters never belong in a name or a title, and PostgreSQL
    cannot store a NUL at all (it would fail the whole request).
    """
    kept = "".join(c for c in text if c.isspace() or unicodedata.category(c) != "Cc")
    return " ".join(kept.split())


def check_player_names(players: Sequence[str], kind: GameKind) -> list[str]:
    """Trimmed, distinct, non-empty names within the game's player count."""
    names = [plain_text(str(p)) for p in players]
    names = [n for n in names if n]
    for name in names:
        if len(name) > MAX_NAME_LENGTH:
            raise TableError(f"the name {name[:30]!r}… is too long (at most {MAX_NAME_LENGTH})")
    lowered = [n.casefold() for n in names]
    for name in names:
        if lowered.count(name.casefold()) > 1:
            raise TableError(f"two players are called {name!r}: give each a different name")
    if not kind.min_players <= len(names) <= kind.max_players:
        span = (
            f"{kind.min_players}"
            if kind.min_players == kind.max_players
            else f"{kind.min_players} to {kind.max_players}"
        )
        raise TableError(f"{kind.title} takes {span} players; you entered {len(names)}")
    return names


def _clip(value: object, length: int) -> str:
    """At most ``length`` characters of a value from outside, for a message."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= length else text[:length] + "…"
