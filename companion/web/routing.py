"""Route matching that leaves no garbage for the cycle collector.

werkzeug's matcher (``StateMachineMatcher.match``, werkzeug 3.1) defines its
recursive search as a closure inside each call, so every match leaves a
small reference cycle behind (the function, its cells, a set): about eight
objects a request that only the cycle collector can free. In a serving
process at 100 tables they were nearly all of its cyclic garbage (measured
with ``gc.DEBUG_SAVEALL``: 4,311 such closures in 20 s, and little else).

A process matches the same few thousand addresses all evening (each table's
board, entry and stream addresses), so the answer for an address is kept:
werkzeug matches each one once. Only an address that matched is kept;
whatever raises (not found, a redirect, a wrong method) is asked afresh.
Adding rules forgets everything kept.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from werkzeug.routing import Rule
from werkzeug.routing.matcher import StateMachineMatcher

REMEMBERED_MATCHES = 4096  # then forgotten all at once: a match costs microseconds


class RememberingMatcher(StateMachineMatcher):
    """werkzeug's matcher, with each address's successful match kept."""

    def __init__(self, merge_slashes: bool) -> None:
        super().__init__(merge_slashes)
        self._kept: dict[tuple[Any, ...], tuple[Rule, dict[str, Any]]] = {}

    def add(self, rule: Rule) -> None:
        self._kept.clear()
        super().add(rule)

    def update(self) -> None:
        self._kept.clear()
        super().update()

    def match(
        self, domain: str, path: str, method: str, websocket: bool
    ) -> tuple[Rule, dict[str, Any]]:
        key = (domain, path, method, websocket)
        found = self._kept.get(key)
        if found is None:
            rule, values = super().match(domain, path, method, websocket)
            found = (rule, dict(values))
            if len(self._kept) >= REMEMBERED_MATCHES:
                self._kept.clear()
            self._kept[key] = found
        rule, values = found
        return rule, dict(values)  # each request gets its own view arguments


def remember_matches(app: Flask) -> None:
    """Give the app's URL map a :class:`RememberingMatcher` with its rules."""
    url_map = app.url_map
    matcher = RememberingMatcher(url_map.merge_slashes)
    for rule in url_map.iter_rules():
        matcher.add(rule)
    url_map._matcher = matcher  # werkzeug's own slot
    url_map._remap = True  # compiled before the next match
