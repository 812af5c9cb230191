"""gunicorn's settings behind nginx (deploy/serve passes this file).

gevent workers: every phone holds its table's change stream open all
evening (companion/web/stream.py), and a sync worker is taken whole by one
open stream, so four phones stopped the server. A gevent worker holds
thousands of idle streams as greenlets of a few kilobytes each, and the
database driver (psycopg 3, and the SQLite calls, which are short) lets the
others run while one waits. nginx still reads every request whole before it
passes it on, so a slow phone costs the app nothing.

deploy/serve starts one such gunicorn a core, each with ONE worker on its
own socket (LEAFPILE_WORKERS=1 here), and nginx sends every request of a
table to the same one (deploy/nginx.conf): a gevent worker keeps a core busy
by itself, and workers that shared a socket each had to catch up on and
render every table, with every change handed across through the database. A solver
or PDF job (at most LEAFPILE_JOB_SLOTS at once) runs its seconds of CPU in a
worker process of its own at nice +10 (companion/jobs.py), so the worker's
event loop goes on serving its phones meanwhile, with the cores first.
Each worker opens one more
database connection that listens for the changes every other worker and
server commits (PostgreSQL LISTEN/NOTIFY; companion/tables/notify.py).

Never --preload with these workers: the app would be built before gevent
patches the process, and its database pool would block the event loop.
"""

import multiprocessing
import os

# A worker starting while PostgreSQL is not up yet (a reboot, or recovering
# after a crash) waits for it, with backoff and a line in the log every try
# (companion/tables/models.py), instead of failing: one worker that failed to
# boot stopped gunicorn, and with it the whole setup (issue 42). gunicorn
# counts a worker's silence only from its first heartbeat, after it booted,
# so the wait is not cut short by `timeout`.
os.environ.setdefault("LEAFPILE_DATABASE_WAIT", "forever")

bind = "unix:" + os.environ["LEAFPILE_SOCKET"]
workers = int(os.environ.get("LEAFPILE_WORKERS") or multiprocessing.cpu_count())
worker_class = "gevent"
# Connections one worker holds at once (streams included); past it, nginx waits.
worker_connections = int(os.environ.get("LEAFPILE_WORKER_CONNECTIONS") or 4000)
timeout = 60  # a worker silent this long is restarted (the solver budget is 2 s)
graceful_timeout = 10  # open streams are cut at a restart; phones reconnect by themselves
keepalive = 75  # nginx keeps its upstream connections; a stream sends something every 20 s
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
loglevel = os.environ.get("LEAFPILE_LOG_LEVEL", "warning")
accesslog = None


def post_worker_init(worker: object) -> None:
    """Each worker, its app built: collect cycles less often (companion/cooperative.py),
    and take the interpreter back from a job's thread sooner (companion/server.py)."""
    import sys

    from companion.cooperative import tune_collector_for_serving
    from companion.server import LOOP_SWITCH_SECONDS

    tune_collector_for_serving()
    sys.setswitchinterval(LOOP_SWITCH_SECONDS)
    warm_up(getattr(worker, "wsgi", None))


def warm_up(app: object) -> None:
    """What a costly route's first request imported and compiled in the
    serving process (the card images' modules for a zip, the error pages'
    templates), at boot instead: under the abuse benchmark's flood it was a
    second of the serving process's CPU while the phones waited (issue 42)."""
    import printables.images  # noqa: F401

    env = getattr(app, "jinja_env", None)
    if env is not None:
        for name in ("error.html", "_error_fragment.html", "print/index.html"):
            env.get_template(name)
