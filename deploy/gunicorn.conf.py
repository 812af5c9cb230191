"""gunicorn's settings behind nginx (deploy/serve passes this file).

Sync workers: nginx hands each one a whole request and takes the whole
answer, so a worker is never held by a slow phone, and one request at a time
per process avoids GIL contention on a small machine. Two workers a core:
one can run a solver or PDF job (at most LEAFPILE_JOB_SLOTS at once) while
the others keep answering polls.
"""

import multiprocessing
import os

bind = "unix:" + os.environ["LEAFPILE_SOCKET"]
workers = int(os.environ.get("LEAFPILE_WORKERS") or 2 * multiprocessing.cpu_count())
worker_class = "sync"
timeout = 60  # a worker silent this long is restarted (the solver budget is 2 s)
graceful_timeout = 10
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
loglevel = os.environ.get("LEAFPILE_LOG_LEVEL", "warning")
accesslog = None
