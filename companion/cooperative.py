"""Seconds of CPU without stopping a gevent server's other phones.

``leafpile`` and ``deploy/serve``'s gunicorn workers are gevent servers: one
event loop a process serves every phone's stream, fetch and tap. A solver
hint, a PDF or the card images are seconds of pure CPU in Python, and run
inside that loop they froze every other phone of the process for their
whole length (the abuse benchmark: entries' p95 1.7 s at 50 quiet tables,
from one honest hint every 5 s). :func:`off_the_loop` runs such work in one
of gevent's native threads instead; since issue 42, in a worker process at
a lower priority (``companion/jobs.py``), so that it no longer shares the
interpreter with the loop. The job slots (``companion/web/costly.py``)
still bound how many run at once.

Only pure work goes there: no database session, no Flask context, no gevent
lock (those belong to the loop's thread). Outside a gevent server (tests,
scripts, a plain WSGI server) the work simply runs here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def _gevent_server() -> bool:
    if "gevent" not in sys.modules:
        return False
    from gevent import monkey

    return bool(monkey.is_module_patched("threading"))


def off_the_loop(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)``, in a worker process of lower priority when
    this is a gevent server (``companion/jobs.py``: a native thread shared
    the interpreter with the loop, and a flood of jobs slowed every phone).
    ``LEAFPILE_JOB_PROCESSES=0`` keeps the native thread; ``=1`` uses the
    workers outside a gevent server too (tests, a threaded server)."""
    processes = os.environ.get("LEAFPILE_JOB_PROCESSES", "").strip()
    if processes == "1" or (processes != "0" and _gevent_server()):
        from .jobs import in_worker

        return in_worker(work, *args, **kwargs)
    return in_a_thread(work, *args, **kwargs)


def in_a_thread(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)`` in a native thread of a gevent server, else here."""
    if not _gevent_server():
        return work(*args, **kwargs)
    import gevent

    result: T = gevent.get_hub().threadpool.apply(work, args, kwargs)
    return result


#: Python's cycle collector runs its youngest generation every 700 new
#: container objects by default: a board fetch makes thousands (the render,
#: the request), so a server ran it several times a request, and its older
#: generations walked every cached snapshot again and again. Requests leave
#: almost no cycles (their objects go with their reference counts), so a
#: server collects 14 times less often (measured: 0.40 ms of collection a
#: change of one entry and five board fetches, 0.05 ms after).
SERVER_GC_THRESHOLDS = (10_000, 20, 100)


def tune_collector_for_serving() -> None:
    """Collect cycles less often, and never walk what the app built at start.

    Called once the app is built, in each serving process (``leafpile``, a
    gunicorn worker): what exists then (modules, templates, the app) is moved
    out of the collector's sight for good (``gc.freeze``).
    """
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVER_GC_THRESHOLDS)
