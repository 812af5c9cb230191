"""Costly work, bounded: a server-wide limit on solver and PDF jobs, and a PDF cache.

A solver answer or a whole print kit is seconds of CPU. Without a bound, a
few clients looping on them took every core, and every other table's
refresh waited seconds. So at most ``LEAFPILE_JOB_SLOTS`` such jobs run at
once on this server (default: one less than the cores, at least one); one
more is answered at once with 503 and ``Retry-After``, never queued.

The slots are lock files in the instance folder (``jobs/slot-N``), held with
``flock``: every worker of the server sees them, and the kernel frees a slot
the moment its holder ends, however it ends (a worker killed mid-job leaves
no stale lease behind). Workers on several machines would each have their
own slots; that is the point: the limit protects one machine's cores.

PDFs are cached on disk by their options (``pdf-cache/<etag>.pdf``), shared
by the workers: the same kit is built once, and a phone that has it gets
``304 Not Modified`` for its ``ETag``.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from flask import Response, current_app, request
from werkzeug.exceptions import ServiceUnavailable

RETRY_AFTER_SECONDS = 5
PDF_CACHE_FILES = 200  # about 50 MB at most: the oldest go first


def default_job_slots() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


class ServerBusy(ServiceUnavailable):
    description = "The host's computer is busy with other players' requests. Try again in a moment."

    def __init__(self) -> None:
        super().__init__(retry_after=RETRY_AFTER_SECONDS)


def _folder(name: str) -> Path:
    folder = Path(current_app.instance_path) / name
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


@contextmanager
def job_slot() -> Iterator[None]:
    """Hold one of the server's job slots for the block, or raise :class:`ServerBusy`."""
    slots = int(current_app.config.get("JOB_SLOTS") or default_job_slots())
    folder = _folder("jobs")
    for n in range(slots):
        fd = os.open(folder / f"slot-{n}", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield
            return
        finally:
            os.close(fd)  # closing the descriptor releases the lock
    raise ServerBusy()


F = TypeVar("F", bound=Callable[..., Any])


def one_job(view: F) -> F:
    """Run the view in a job slot: 503 + Retry-After when the server is busy."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with job_slot():
            return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _code_version() -> str:
    """Changes when the PDF code does, so a new release never serves an old kit."""
    import printables

    folder = Path(printables.__file__).parent
    stamp = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
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
            pdf = build(part, options)
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
