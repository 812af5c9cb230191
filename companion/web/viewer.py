"""Who is looking at a table, and what they may see and do.

Work in progress (issue 10): this module becomes the one place that decides
a viewer's rights. Other blueprints ask it, never the session directly.
"""

from __future__ import annotations


def is_host(token: str) -> bool:
    """Whether this browser may manage the table (delete it, start a rematch).

    For now every holder of the table's address may; the seat-binding work
    narrows it to the browser that created (or imported) the table.
    """
    return True
