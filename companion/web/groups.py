"""Whose records a browser may read: its group's tables, or every table for the operator.

Shared by the pages that read results (records, the North Wind's
achievements, the exports): blueprints take it from here, never from each
other.
"""

from __future__ import annotations

import hashlib
import os
import secrets

from flask import current_app, session

from companion.tables.records import every_table
from companion.tables.results import Scope, group_tables, hosted_tables

from .viewer import known_device

OPERATOR_KEY = "operator"  # the session key that marks the operator


def operator_token() -> str:
    """The server's operator token (``LEAFPILE_OPERATOR_TOKEN``), or "" for none."""
    configured = current_app.config.get("OPERATOR_TOKEN")
    if configured is None:
        configured = os.environ.get("LEAFPILE_OPERATOR_TOKEN", "")
    return str(configured).strip()


def operator_mark(token: str) -> str:
    # The session (a signed cookie) keeps a hash, never the token; a new token
    # signs every operator out.
    return hashlib.sha256(f"leafpile-operator:{token}".encode()).hexdigest()


def is_operator() -> bool:
    token = operator_token()
    mark = session.get(OPERATOR_KEY)
    return (
        bool(token) and isinstance(mark, str) and secrets.compare_digest(mark, operator_mark(token))
    )


def scope() -> Scope:
    """The tables this request may read records of: its group, or all for the operator."""
    return None if is_operator() else group_tables(known_device())


def rename_scope() -> Scope:
    """The tables a rename made here changes: those this browser started (the operator: all)."""
    return every_table() if is_operator() else hosted_tables(known_device())
