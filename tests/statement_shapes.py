"""A pytest plugin that lists the SQL statements each test file sends.

Not part of the suite: it is how the PostgreSQL pass's web files were
chosen (tests/conftest.py, ``_ON_POSTGRESQL``), and how to check that
choice after a change to the store (docs/developing.md, "The PostgreSQL
pass")::

    STATEMENT_SHAPES=/tmp/shapes .venv/bin/pytest -p tests.statement_shapes \\
        -n 2 tests/tables tests/web

Each worker appends ``<test file>\\t<statement>`` lines to
``$STATEMENT_SHAPES.<worker>``, once per file and statement, with bound
lists folded so one statement has one shape.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

_seen: set[tuple[str, str]] = set()
_current_file = ["(collection)"]


def _shape(statement: str) -> str:
    statement = re.sub(r"\(__\[POSTCOMPILE_\w+\]\)", "(...)", statement)
    statement = re.sub(r"(\?|%\(\w+\)s)(, (\?|%\(\w+\)s))+", "...", statement)
    return re.sub(r"\s+", " ", statement).strip()


def pytest_runtest_setup(item: pytest.Item) -> None:
    _current_file[0] = item.nodeid.split("::", 1)[0]


def pytest_configure(config: pytest.Config) -> None:
    # Listening starts only when pytest loads this file as a plugin (-p), never
    # when --doctest-modules merely imports it with the rest of tests/.
    event.listen(Engine, "before_cursor_execute", _record)


def _record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
    key = (_current_file[0], _shape(statement))
    if key in _seen:
        return
    _seen.add(key)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(f"{os.environ['STATEMENT_SHAPES']}.{worker}", "a", encoding="utf-8") as out:
        out.write("\t".join(key) + "\n")
