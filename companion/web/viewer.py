"""Which browser is asking: the device id in its session cookie, and the
:class:`~companion.tables.projection.Viewer` it is at a table.

What a viewer may see and do is decided in one place,
:mod:`companion.tables.projection`; this module only knows the browser. A
browser is known by a random device id kept in its signed session cookie;
the database stores only its SHA-256, so a leaked database cannot be used to
act as somebody's phone.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import session

from companion.tables.projection import NOBODY, SPECTATOR, Viewer, viewer_from
from companion.tables.store import NoSuchTable, Snapshot

from . import store

_DEVICE_KEY = "device"


def device_id() -> str:
    """This browser's device hash, creating its id on first use."""
    raw = session.get(_DEVICE_KEY)
    if not isinstance(raw, str) or len(raw) < 16:
        raw = secrets.token_urlsafe(24)
        session[_DEVICE_KEY] = raw
        session.permanent = True  # a phone keeps its seats across browser restarts
    return hashlib.sha256(raw.encode()).hexdigest()


def known_device() -> str | None:
    """The device hash if this browser has one already (never creates it)."""
    raw = session.get(_DEVICE_KEY)
    if not isinstance(raw, str) or len(raw) < 16:
        return None
    return hashlib.sha256(raw.encode()).hexdigest()


def viewer_for(snap: Snapshot, *, readonly: bool = False) -> Viewer:
    """The viewer this request is, at this table."""
    if readonly:
        return SPECTATOR
    device = known_device()
    try:
        facts = store().viewer_facts(snap.table.token, device)
    except NoSuchTable:
        facts = NOBODY
    return viewer_from(snap, device, facts)


def is_host(token: str) -> bool:
    """Whether this browser created (or imported) the table: it may delete
    it and start a rematch."""
    device = known_device()
    if device is None:
        return False
    try:
        return store().role_of(token, device) == "host"
    except NoSuchTable:
        return False


def my_tables() -> frozenset[str]:
    """The addresses (player and spectator tokens) of the tables this browser
    started or opened: pages that list tables of the whole server (records,
    achievements) link only to these (LT2)."""
    device = known_device()
    if device is None:
        return frozenset()
    tables = store().tables_of(device, limit=10_000)
    return frozenset(t.token for t in tables) | frozenset(t.view_token for t in tables)


__all__ = ["SPECTATOR", "Viewer", "device_id", "is_host", "known_device", "my_tables", "viewer_for"]
