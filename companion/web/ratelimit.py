"""A small limit on wrong join codes, so codes cannot be guessed by brute force.

Counts live in this process: with several workers each keeps its own count,
which still caps guessing at (workers x limit) tries a window per address.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from threading import Lock

WINDOW_SECONDS = 60.0
MAX_FAILURES = 10

_failures: defaultdict[str, deque[float]] = defaultdict(deque)
_lock = Lock()


def _prune(entries: deque[float], now: float) -> None:
    while entries and entries[0] < now - WINDOW_SECONDS:
        entries.popleft()


def too_many_attempts(address: str) -> bool:
    """True when ``address`` has had MAX_FAILURES wrong codes in the window."""
    now = time.monotonic()
    with _lock:
        entries = _failures[address]
        _prune(entries, now)
        return len(entries) >= MAX_FAILURES


def record_failure(address: str) -> None:
    now = time.monotonic()
    with _lock:
        entries = _failures[address]
        _prune(entries, now)
        entries.append(now)
        if len(_failures) > 10_000:  # bound memory under a flood of addresses
            for key in [k for k, v in _failures.items() if not v][:5000]:
                del _failures[key]


def reset() -> None:
    with _lock:
        _failures.clear()
