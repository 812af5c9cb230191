"""Costly pure work in worker processes of lower priority (issue 42).

A solver hint, a PDF, the card images or an import's replay is seconds of
CPU. Run in a native thread of the serving process (as ``cooperative.py``
did), it shared the interpreter with the event loop that serves every
phone: under a flood of such requests the loop got the interpreter back
only every switch interval, and honest entries waited seconds (the abuse
benchmark: p95 from about 40 ms quiet to 2-3 s abused, on both servers).

So a serving process hands such work to a worker process of its own,
started on first use and kept for the next job, at ``nice`` +10
(:data:`NICENESS`): the operating system gives the serving process the
cores first, and the job whatever is left. How many jobs run at once is
still bounded by the job slots (``companion/web/costly.py``), so a process
keeps at most as many idle workers as the machine has slots. A worker
ends with its serving process (its stdin closes) and is started again if
it dies; a job whose worker died raises :class:`JobFailed`.

The work and its arguments travel by pickle: a function of a module's top
level and plain values. Work that cannot travel (a closure, a function of
the server's ``__main__``) runs in a native thread as before.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import subprocess
import sys
from collections.abc import Callable
from threading import Lock
from typing import IO, Any, TypeVar

T = TypeVar("T")

#: How much lower a job's priority is than the serving process's (``nice``).
#: At +10 the kernel gives a busy serving process about nine times a job's
#: share of a core they both want.
NICENESS = 10
#: Idle workers kept per serving process, at most (more end after their job).
MAX_IDLE = 4
_LENGTH = struct.Struct("!Q")


class JobFailed(RuntimeError):
    """The worker process ended before answering (killed, out of memory)."""


class _Unpicklable(Exception):
    """The work or its arguments cannot travel to a worker."""


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            raise EOFError("the other side closed")
        data += chunk
    return data


def _send(stream: IO[bytes], payload: bytes) -> None:
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def _receive(stream: IO[bytes]) -> bytes:
    (size,) = _LENGTH.unpack(_read_exactly(stream, _LENGTH.size))
    return _read_exactly(stream, size)


class Worker:
    """One worker process and its two pipes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion.jobs"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def call(self, request: bytes) -> tuple[bool | None, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            _send(self.process.stdin, request)
            answer = _receive(self.process.stdout)
        except (OSError, EOFError, ValueError) as exc:
            self.stop()
            raise JobFailed("the job's worker process ended before answering") from exc
        ok, value = pickle.loads(answer)
        return ok, value

    def stop(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class WorkerPool:
    """The serving process's job workers: one per running job, kept when idle."""

    def __init__(self) -> None:
        self._idle: list[Worker] = []
        self._lock = Lock()
        #: Jobs done in a worker (the tests read it).
        self.done = 0

    def run(self, work: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
        try:
            request = pickle.dumps((work, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # a closure, an open file: not for a worker
            raise _Unpicklable() from exc
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None or worker.process.poll() is not None:
            worker = Worker()
        ok, value = worker.call(request)
        with self._lock:
            if len(self._idle) < MAX_IDLE:
                self._idle.append(worker)
                worker = None
        if worker is not None:
            worker.stop()
        if ok is None:  # the worker could not load the work: it runs here
            raise _Unpicklable(value)
        self.done += 1
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    def stop(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()


POOL = WorkerPool()


def use_processes() -> bool:
    """Whether jobs go to worker processes here: on a gevent server (where a
    thread would share the loop's interpreter), unless
    ``LEAFPILE_JOB_PROCESSES=0``; anywhere with ``LEAFPILE_JOB_PROCESSES=1``."""
    from .cooperative import _gevent_server

    processes = os.environ.get("LEAFPILE_JOB_PROCESSES", "").strip()
    return processes == "1" or (processes != "0" and _gevent_server())


class CannotTravel(Exception):
    """The work or its arguments cannot go to a worker process: run it here."""


def in_worker_process(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)`` in a worker process; :class:`CannotTravel`
    when it cannot go there (the caller runs it itself), :class:`JobFailed`
    when the worker died."""
    try:
        return POOL.run(work, args, kwargs)
    except _Unpicklable as exc:
        raise CannotTravel() from exc


def in_worker(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)`` in a worker process of lower priority; when
    the work cannot travel there, in a native thread of this gevent server
    (else right here)."""
    try:
        return POOL.run(work, args, kwargs)
    except _Unpicklable:
        from .cooperative import in_a_thread

        return in_a_thread(work, *args, **kwargs)


def _answer(request: bytes) -> bytes:
    try:
        work, args, kwargs = pickle.loads(request)
    except Exception as exc:  # e.g. a function of the serving process's __main__
        return pickle.dumps((None, repr(exc)[:500]))
    try:
        reply: tuple[bool | None, Any] = (True, work(*args, **kwargs))
    except Exception as exc:
        reply = (False, exc)
    try:
        return pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that cannot travel back: say what it was
        return pickle.dumps((False, RuntimeError(repr(reply[1])[:500])))


def main() -> int:
    """A worker: jobs in on stdin, answers out on the stdout it started with."""
    os.nice(NICENESS)
    # Ctrl+C reaches the whole foreground group: the server stops, and this
    # worker ends when its stdin closes, without a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["LEAFPILE_JOB_PROCESSES"] = "0"  # a job's own jobs run here
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print goes to the log
    jobs = sys.stdin.buffer
    while True:
        try:
            request = _receive(jobs)
        except EOFError:  # the serving process ended
            return 0
        _send(answers, _answer(request))


if __name__ == "__main__":
    sys.exit(main())
