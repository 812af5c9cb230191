"""Checks on what comes from outside before it reaches a table or the database:
tokens, tap ids, names and titles as typed, and text that must be storable.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence

from companion.rules.messages import refusal

from .errors import NO_TABLE, NoSuchTable, TableError
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
        raise NoSuchTable(NO_TABLE)


def plain_text(text: str) -> str:
    """Text as typed, without control characters or lone surrogates, with runs
    of spaces made one.

    Control characters never belong in a name or a title, and PostgreSQL
    cannot store a NUL at all (it would fail the whole request). A lone
    surrogate (half of a UTF-16 pair, which JSON's ``\\udc80`` can carry)
    is no character: it cannot be written as UTF-8, so every page showing it
    failed (issue 42).
    """
    kept = "".join(c for c in text if c.isspace() or unicodedata.category(c) not in ("Cc", "Cs"))
    return " ".join(kept.split())


def encodes(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_safely(text: str) -> str:
    """``text`` with anything UTF-8 cannot carry shown as "?", for a message or a page."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON value, keys included (no recursion: depth is the caller's)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(key, str):
                    yield key
                stack.append(inner)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def check_storable_text(value: object) -> None:
    """Refuse (:class:`TableError`) a value from outside holding any string that
    cannot be written as UTF-8: a table file's names, title, options and log
    are shown on pages and stored in the database, and one such string made
    every page of its table, and the start page of everyone who had it, a 500."""
    for text in _strings(value):
        if not encodes(text):
            where = shown_safely(text)[:24]
            raise TableError(
                f"this file has a broken character in its text ({where!r}), so it is not "
                "a Leafpile table export as saved: nothing was imported"
            )


def check_player_names(players: Sequence[str], kind: GameKind) -> list[str]:
    """Trimmed, distinct, non-empty names within the game's player count."""
    for typed in players:
        if not encodes(str(typed)):
            raise TableError(
                refusal(
                    "table.name.broken",
                    "the name %(name)s has a broken character: type it again",
                    name=repr(shown_safely(str(typed))[:30]),
                )
            )
    names = [plain_text(str(p)) for p in players]
    names = [n for n in names if n]
    for name in names:
        if len(name) > MAX_NAME_LENGTH:
            raise TableError(
                refusal(
                    "table.name.long",
                    "the name %(name)s… is too long (at most %(most)s)",
                    name=repr(name[:30]),
                    most=MAX_NAME_LENGTH,
                )
            )
    lowered = [n.casefold() for n in names]
    for name in names:
        if lowered.count(name.casefold()) > 1:
            raise TableError(
                refusal(
                    "table.name.twice",
                    "two players are called %(name)s: give each a different name",
                    name=repr(name),
                )
            )
    if not kind.min_players <= len(names) <= kind.max_players:
        if kind.min_players == kind.max_players:
            words = refusal(
                "table.players.exactly",
                "%(game)s takes %(most)s players; you entered %(entered)s",
                game=kind.title,
                most=kind.max_players,
                entered=len(names),
            )
        else:
            words = refusal(
                "table.players.span",
                "%(game)s takes %(least)s to %(most)s players; you entered %(entered)s",
                game=kind.title,
                least=kind.min_players,
                most=kind.max_players,
                entered=len(names),
            )
        raise TableError(words)
    return names


def _clip(value: object, length: int) -> str:
    """At most ``length`` characters of a value from outside, for a message."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= length else text[:length] + "…"
