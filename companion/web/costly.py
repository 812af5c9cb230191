"""Costly work, bounded: a server-wide limit on solver, PDF, zip and import jobs,
a fair share of it per client, and a PDF cache.

A solver answer, a whole print kit or a long import is seconds of CPU.
Without a bound, a few clients looping on them took every core, and every
other table's refresh waited seconds. So at most ``LEAFPILE_JOB_SLOTS`` such
jobs run at once on this server (default: one less than the cores, at least
one); one more is answered at once with 503 and ``Retry-After``, never
queued (a queued job would hold a worker that a table's entry needs).

Fair share (issue 23): one client address runs at most one job at a time,
and at most ``JOB_SECONDS_PER_MINUTE`` seconds of jobs a minute (counted in
the database, so every worker sees the same total). That alone is not
enough: six addresses at their full share ask for more than one slot's
minute, so back-to-back retries kept the slots busy and an honest phone's
occasional hint always found them taken. So one more slot is kept for
**light clients** (a ruling: docs/deploying.md, *Rulings of our own*): an address that has used
less than ``LIGHT_SECONDS`` of jobs this minute may run in it when the
regular slots are busy. A phone asking for a hint now and then is always
light; a flooding address stops being light after its first few seconds.

The slots are lock files in the instance folder (``jobs/slot-N``, and
``jobs/client-N`` for the one-at-a-time rule), held through ``filelock``
(``flock`` on Linux and macOS, ``msvcrt`` locking on Windows): every worker
of the server sees them, and the operating system frees a slot the moment
its holder ends, however it ends (a worker killed mid-job leaves no stale
lease behind). Workers on several machines would each have their own slots;
that is the point: the limit protects one machine's cores.

Pages that read the database and draw (issue 42: the records pages and
their CSVs, the achievements, a browser's backup) are drawn in a job
worker too (:func:`drawn_in_a_worker`): the worker builds an app of its
own, with a store of its own, once, and draws the page for the request's
own cookies and headers; the serving process only passes the answer on.
Under a flood of them the serving process had spent a quarter of its CPU
drawing them (a py-spy profile of ``benchmarks/abuse.py --profile``).

PDFs are cached on disk by their options (``pdf-cache/<etag>.pdf``), shared
by the workers: the same kit is built once, and a phone that has it gets
``304 Not Modified`` for its ``ETag``.
"""

from __future__ import annotations

import functools
import hashlib
import html
import io
import math
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from threading import Lock
from typing import Any, TypeVar

from filelock import FileLock, Timeout
from flask import Flask, Response, current_app, has_request_context, request
from werkzeug.exceptions import HTTPException, ServiceUnavailable, TooManyRequests

from companion.cooperative import off_the_loop
from companion.rules.messages import marked

RETRY_AFTER_SECONDS = 5
PDF_CACHE_FILES = 200  # about 50 MB at most: the oldest go first
#: Seconds of job time one client address may use a minute, over all its jobs.
#: A solver hint is at most about 2 s, a new PDF or zip a few seconds: a phone
#: that asks now and then never meets this; a script looping on them does.
JOB_SECONDS_PER_MINUTE = 12
#: The one-job-at-a-time locks: addresses are hashed into this many lock
#: files (so an address flood cannot fill the folder); two addresses sharing
#: one wait for each other's job, which is rare and harmless.
CLIENT_LOCKS = 256
#: The ruling on light clients: below this many seconds of jobs in the current minute an
#: address is a light client and may use the slot kept for light clients.
#: One solver hint (about 2 s) or one new print file fits; a flood does not.
LIGHT_SECONDS = 3
#: An address that went past ``LIGHT_SECONDS`` in a minute stays out of the kept
#: slot this long: with the minute's count alone, every flooding address was
#: light again for its first job or two of each new minute, and six of them
#: kept the kept slot busy about a third of the time.
HEAVY_MEMORY_SECONDS = 300


#: The jobs the light clients' slot is not for: it is kept for a phone's hint
#: or "Winnable?" (a second or two). A zip, a PDF, an import, a backup or a
#: records page waits for a regular slot: in the kept slot they had run beside
#: the regular ones, two costly jobs at once on a 2-core machine (issue 42).
HEAVY_JOBS = frozenset(
    {"print.download", "print.images", "home.import_table", "exports.download_backup",
     "exports.all_plays", "records.export_csv", "records.index", "records.player",
     "achievements.page"}
)  # fmt: skip


def default_job_slots() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


# The job slots' refusals: ``worded`` says their descriptions are marked
# words, which the error pages say in the phone's language.


class ServerBusy(ServiceUnavailable):
    description = marked(
        "The host's computer is busy with other players' requests. Try again in a moment."
    )
    worded = True

    def __init__(self) -> None:
        super().__init__(retry_after=RETRY_AFTER_SECONDS)


class OneAtATime(ServiceUnavailable):
    description = marked(
        "This phone's last request for a hint, a print file or an import is still running. "
        "Try again in a moment."
    )
    worded = True

    def __init__(self) -> None:
        super().__init__(retry_after=RETRY_AFTER_SECONDS)


class ShareUsed(TooManyRequests):
    # When to try again is added from Retry-After (a page: web/__init__.py's
    # _too_many; a phone's script: app.js), never said twice.
    description = marked(
        "This phone has used its share of the host's computer for this minute "
        "(hints, print files and imports)."
    )
    worded = True

    def __init__(self, retry_after: int) -> None:
        super().__init__(retry_after=retry_after)


#: A job refusal's page for a browser: the words alone, with a way home. The
#: app's error page (base.html: menus, scripts, the language list) had cost
#: the serving process about a tenth of its CPU under the abuse benchmark's
#: flood, every refusal drawn in full (issue 42). A phone's htmx request
#: (a hint) still gets the board's own notice.
_REFUSAL_PAGE = (
    '<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    '<meta name="color-scheme" content="light dark"><title>{status} · Leafpile</title></head>'
    '<body style="font:1.125rem/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;'
    'padding:0 1rem"><h1>{title}</h1><p role="alert">{message}</p>'
    '<p><a href="/" style="display:inline-block;min-height:44px;line-height:44px">{home}</a>'
    "</p></body></html>\n"
)


def register_cheap_refusals(app: Flask) -> None:
    """Answer the job slots' refusals (busy, one at a time, share used)
    without drawing the app's error page: see :data:`_REFUSAL_PAGE`."""
    for kind in (ServerBusy, OneAtATime, ShareUsed):
        app.register_error_handler(kind, _cheap_refusal)


def _cheap_refusal(error: HTTPException) -> Any:
    from . import SOMETHING_WRONG, _error_page, _own_words, _too_many
    from .i18n import gettext, language

    if request.headers.get("HX-Request"):
        return _error_page(error)
    retry_after = getattr(error, "retry_after", RETRY_AFTER_SECONDS)
    if error.code == 429:
        message = _too_many(error, retry_after)
    else:
        message = gettext(_own_words(error) or SOMETHING_WRONG)
    page = _REFUSAL_PAGE.format(
        lang=html.escape(language().replace("_", "-")),
        status=error.code,
        title=html.escape(gettext("That did not work"), quote=False),
        message=html.escape(message, quote=False),
        home=html.escape(gettext("Go to the start page"), quote=False),
    )
    headers = {"Retry-After": str(retry_after),
               "Cache-Control": "no-store"}  # fmt: skip
    return Response(page, error.code, headers, mimetype="text/html")


_MADE: set[Path] = set()  # the folders this process has made (one mkdir each, not one a job)


def _folder(name: str) -> Path:
    folder = Path(current_app.instance_path) / name
    if folder not in _MADE:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _MADE.add(folder)
    return folder


#: The clients with a job running in this process. A client's second job is
#: refused here at once, before its share is read from the database and its
#: lock file is tried: under a flood those were a third of the serving
#: process's work in its first second (issue 42). The lock file still keeps
#: the rule across processes.
_CLIENTS_HERE: set[str] = set()
_CLIENTS_HERE_LOCK = Lock()


@contextmanager
def _one_job_here(client: str | None) -> Iterator[None]:
    if client is None:
        yield
        return
    with _CLIENTS_HERE_LOCK:
        if client in _CLIENTS_HERE:
            raise OneAtATime()
        _CLIENTS_HERE.add(client)
    try:
        yield
    finally:
        with _CLIENTS_HERE_LOCK:
            _CLIENTS_HERE.discard(client)


def _try_lock(path: Path) -> FileLock | None:
    """The lock on ``path`` if nobody holds it, else None (never waits)."""
    lock = FileLock(path, mode=0o600, blocking=False)
    try:
        lock.acquire()
    except Timeout:
        return None
    return lock


def _job_client() -> str | None:
    if not has_request_context():
        return None  # a job outside a request (a script, a test): no client to share with
    from .ratelimit import client_address

    return client_address()


@contextmanager
def job_slot(client: str | None = None, *, light_ok: bool | None = None) -> Iterator[None]:
    """Hold one of the server's job slots for the block, or refuse at once.

    ``client`` (default: the request's address) runs one job at a time and at
    most ``JOB_SECONDS_PER_MINUTE`` seconds of them a minute: 503
    (:class:`OneAtATime`) or 429 (:class:`ShareUsed`). Every slot busy: 503
    (:class:`ServerBusy`), unless the client is light (see ``LIGHT_SECONDS``),
    the job is a light one (``light_ok``; default: any but the routes of
    :data:`HEAVY_JOBS`) and the light clients' slot is free.
    """
    client = client if client is not None else _job_client()
    with _one_job_here(client), _job_slot_for(client, light_ok):
        yield


@contextmanager
def _job_slot_for(client: str | None, light_ok: bool | None) -> Iterator[None]:
    if light_ok is None:
        light_ok = not has_request_context() or request.endpoint not in HEAVY_JOBS
    folder = _folder("jobs")
    turn = None
    light = False
    if client is not None:
        used = _check_share(client)
        light = light_ok and used < LIGHT_SECONDS * 10 and not _was_heavy(client)
        bucket = int(hashlib.sha256(client.encode()).hexdigest()[:8], 16) % CLIENT_LOCKS
        turn = _try_lock(folder / f"client-{bucket}")
        if turn is None:
            raise OneAtATime()
    try:
        slots = int(current_app.config.get("JOB_SLOTS") or default_job_slots())
        names = [f"slot-{n}" for n in range(slots)] + (["slot-light"] if light else [])
        for name in names:
            slot = _try_lock(folder / name)
            if slot is None:
                continue
            started = time.monotonic()
            try:
                yield
                return
            finally:
                slot.release()
                if client is not None:
                    _charge(client, time.monotonic() - started)
        raise ServerBusy()
    finally:
        if turn is not None:
            turn.release()


_SHARE_WINDOW = 60


def _share_key(client: str) -> str:
    return f"leafpile/job-seconds/{client}"


def _check_share(client: str) -> int:
    """The client's job time this minute in tenths of a second; 429 once it is spent."""
    from .ratelimit import DatabaseStorage, clock

    storage = DatabaseStorage()
    used = storage.get(_share_key(client))  # tenths of a second
    if used >= JOB_SECONDS_PER_MINUTE * 10:
        wait = max(1, math.ceil(storage.get_expiry(_share_key(client)) - clock()))
        raise ShareUsed(wait)
    return used


def _charge(client: str, seconds: float) -> None:
    from .ratelimit import DatabaseStorage

    storage = DatabaseStorage()
    used = storage.incr(_share_key(client), _SHARE_WINDOW, max(1, math.ceil(seconds * 10)))
    if used >= LIGHT_SECONDS * 10:
        storage.incr(_heavy_key(client), HEAVY_MEMORY_SECONDS)


def _heavy_key(client: str) -> str:
    return f"leafpile/job-heavy/{client}"


def _was_heavy(client: str) -> bool:
    """Whether the client went past its light seconds in the last few minutes."""
    from .ratelimit import DatabaseStorage

    return DatabaseStorage().get(_heavy_key(client)) > 0


F = TypeVar("F", bound=Callable[..., Any])


def one_job(view: F) -> F:
    """Run the view in a job slot: 503 + Retry-After when the server is busy."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with job_slot():
            return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


#: A request's environ key, set in a job worker: the view is being drawn there.
IN_A_WORKER = "leafpile.drawn_in_a_worker"
_AWAY_VIEWS: dict[str, Callable[..., Any]] = {}
_WORKER_APPS: dict[bytes, Flask] = {}


def drawn_in_a_worker(view: F) -> F:
    """Run the view in a job slot (as :func:`one_job`), drawn in a job worker
    process (``companion/jobs.py``, nice +10) with an app and a store of its
    own; the serving
    process sends on its answer (status, headers, body: the session's cookie
    included). Where jobs stay in the serving process (tests, a threaded
    server, ``LEAFPILE_JOB_PROCESSES=0``, an in-memory database no other
    process can open) the view runs here, as before. For GET views whose
    answer depends only on the request (its URL, cookies and headers) and
    the database: the worker never sees a request body."""
    name = f"{view.__module__}.{view.__qualname__}"
    _AWAY_VIEWS[name] = view

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from companion.jobs import CannotTravel, JobFailed, in_worker_process, use_processes

        with job_slot():
            if request.environ.get(IN_A_WORKER) or not use_processes() or _memory_database():
                return view(*args, **kwargs)
            try:
                status, headers, body = in_worker_process(
                    draw_view, _worker_settings(), name, _plain_environ(), kwargs
                )
            except CannotTravel:
                return view(*args, **kwargs)
            except JobFailed as exc:  # the worker died: the phone may try again
                raise ServerBusy() from exc
        return Response(body, status=status, headers=headers)

    return wrapper  # type: ignore[return-value]


def _memory_database() -> bool:
    url = str(current_app.config.get("DATABASE_URL", ""))
    return url.startswith("sqlite") and (":memory:" in url or url.rstrip("/") == "sqlite:")


def _worker_settings() -> dict[str, Any]:
    """The app's settings that can travel, for the worker's own app."""
    settings: dict[str, Any] = {}
    for key, value in current_app.config.items():
        try:
            pickle.dumps(value)
        except Exception:  # e.g. a class of the app's: the worker's app has its own
            continue
        settings[key] = value
    settings["INSTANCE_PATH"] = current_app.instance_path
    settings["DATABASE_POOL"] = 1
    # A module's function travels by its name: the worker imports it.
    settings[_FACTORY] = current_app.extensions["leafpile_app_factory"]
    return settings


def _plain_environ() -> dict[str, str]:
    """The request's environ without its streams and objects (a GET: no body)."""
    return {k: v for k, v in request.environ.items() if isinstance(v, str)}


def draw_view(
    settings: dict[str, Any], name: str, environ: dict[str, str], kwargs: dict[str, Any]
) -> tuple[int, list[tuple[str, str]], bytes]:
    """In a job worker: the view ``name`` for this request, drawn by the
    worker's own app (built once for these settings)."""
    key = pickle.dumps(sorted(settings.items(), key=lambda item: item[0]))
    app = _WORKER_APPS.get(key)
    if app is None:
        app = _worker_app(settings)
        _WORKER_APPS.clear()  # one app a worker: the server's
        _WORKER_APPS[key] = app
    full: dict[str, Any] = dict(environ)
    full.update({"wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr, IN_A_WORKER: True})
    with app.request_context(full):
        try:
            response = app.make_response(_AWAY_VIEWS[name](**kwargs))
        except HTTPException as exc:  # a 404, say: the app's own error page
            response = app.make_response(app.handle_user_exception(exc))
        response = app.process_response(response)
        return response.status_code, list(response.headers.items()), response.get_data()


def _worker_app(settings: dict[str, Any]) -> Flask:
    """The worker's app. Its store skips making the schema: the serving
    process has made it, and on SQLite making it takes the one write lock,
    which a process at nice +10 on a busy machine may hold for long."""
    settings = dict(settings)
    create_app = settings.pop(_FACTORY)
    settings["DATABASE_MAKE_SCHEMA"] = False
    app: Flask = create_app(settings)
    return app


#: The key under which the serving app's factory travels in the settings.
_FACTORY = "_LEAFPILE_APP_FACTORY"


def _code_version() -> str:
    """Changes when the PDF code or the kit's words do, so a new release
    never serves an old kit."""
    import printables

    folder = Path(printables.__file__).parent
    stamp = hashlib.sha256()
    for path in sorted([*folder.rglob("*.py"), *folder.rglob("*.mo")]):
        info = path.stat()
        stamp.update(f"{path.name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return stamp.hexdigest()[:16]


_CODE_VERSION: str | None = None


def pdf_response(
    part: str, options: Any, build: Callable[[str, Any], bytes], filename: str
) -> Response:
    """A PDF download, built once per set of options and sent with an ETag."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        _CODE_VERSION = _code_version()
    etag = hashlib.sha256(f"{_CODE_VERSION}|{part}|{options!r}".encode()).hexdigest()[:32]
    headers = {
        "Content-Disposition": f'attachment; filename="{filename}"',
        # Private: the kit's QR codes carry this server's address.
        "Cache-Control": "private, no-cache",
    }
    if etag in request.if_none_match:
        response = Response(status=304, headers=headers)
        response.set_etag(etag)
        return response
    cached = _folder("pdf-cache") / f"{etag}.pdf"
    try:
        pdf = cached.read_bytes()
    except FileNotFoundError:
        with job_slot():
            pdf = off_the_loop(build, part, options)
        _store(cached, pdf)
    response = Response(pdf, mimetype="application/pdf", headers=headers)
    response.set_etag(etag)
    return response


def _store(path: Path, pdf: bytes) -> None:
    # Write aside and rename: another worker never reads half a file.
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(fd, "wb") as out:
        out.write(pdf)
    os.replace(temporary, path)
    kept = sorted(path.parent.glob("*.pdf"), key=_age)
    for old in kept[PDF_CACHE_FILES:]:
        old.unlink(missing_ok=True)


def _age(path: Path) -> float:
    try:
        return -path.stat().st_mtime
    except FileNotFoundError:  # another worker pruned it a moment ago
        return 0.0
