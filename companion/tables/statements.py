"""Counting the SQL statements a store sends, for its tests and benchmarks.

Counted at the driver, below SQLAlchemy, so the store's plain-SQL reads
(which skip SQLAlchemy's statement machinery) count as much as its ORM ones:
a ``connect`` event hook traces each new connection (SQLite's trace
callback; a counting cursor for psycopg), and the pool is emptied so every
connection is new.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import event

#: Not reads or writes of tables: transactions, the pool's ping, connection set-up.
NOT_COUNTED = re.compile(
    r"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|LISTEN|SELECT pg_notify|;|SELECT 1\b)",
    re.I,
)


def watch_statements(store: Any, keep: Callable[[str], None]) -> Callable[[], None]:
    """Call ``keep(sql)`` for every statement that reads or writes the store's
    tables from now on; returns the function that stops watching."""
    on = [True]

    def seen(sql: str) -> None:
        if on[0] and not NOT_COUNTED.match(sql):
            keep(sql)

    if store.is_sqlite:

        def trace(dbapi_connection: Any, record: Any) -> None:
            dbapi_connection.set_trace_callback(seen)

    else:
        import psycopg

        class Counting(psycopg.Cursor):  # type: ignore[type-arg,misc,unused-ignore]
            def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
                seen(query if isinstance(query, str) else repr(query))
                return super().execute(query, params, **kwargs)

        def trace(dbapi_connection: Any, record: Any) -> None:
            dbapi_connection.cursor_factory = Counting

    event.listen(store.engine, "connect", trace)
    store.engine.dispose()

    def stop() -> None:
        on[0] = False
        event.remove(store.engine, "connect", trace)
        store.engine.dispose()

    return stop
