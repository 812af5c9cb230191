"""`leafpile`: serve the companion on this computer for the phones at the table."""

from __future__ import annotations

import errno
import io
import ipaddress
import logging
import os
import socket
import sys
import time
from collections import Counter
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from flask import Flask
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.serving import get_sockaddr, select_address_family

from . import create_app
from .app import default_instance_folder
from .cooperative import tune_collector_for_serving
from .network import lan_address
from .startup import check_data_folder, check_settings, data_folder_problem, database_problem
from .version import leafpile_version

# A QR code needs 4 light modules all round (ISO/IEC 18004) to be found by a camera.
QUIET_ZONE = 4

# Black on bright white, set explicitly: a terminal's own colours are light on
# dark for some people and dark on light for others, and a QR code read in
# reverse does not decode.
_ON_WHITE = "\x1b[30;107m"
_RESET = "\x1b[0m"
_HALF_BLOCKS = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584"}
_HALF_BLOCKS[(True, True)] = "\u2588"


def reachable_urls(host: str, port: int) -> tuple[str | None, list[str]]:
    """(the URL phones should use, every URL that reaches this server)."""
    local = f"http://127.0.0.1:{port}"
    if host in ("0.0.0.0", "::", ""):
        lan = lan_address()
        if lan:
            return f"http://{lan}:{port}", [f"http://{lan}:{port}", local]
        return None, [local]
    if ipaddress.ip_address(host).is_loopback if _is_ip(host) else host == "localhost":
        return None, [f"http://{host}:{port}"]
    return f"http://{host}:{port}", [f"http://{host}:{port}"]


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def terminal_qr(data: str) -> str:
    """``data`` as a QR code drawn in text: two rows of modules per line.

    Every line sets black on white itself, so the code reads the same on a dark
    and on a light terminal, with a quiet zone of QUIET_ZONE modules.
    """
    import qrcode  # only for the banner: it brings Pillow, megabytes a process

    qr = qrcode.QRCode(border=QUIET_ZONE)
    qr.add_data(data)
    qr.make(fit=True)
    rows = qr.get_matrix()
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    lines = []
    for top, bottom in zip(rows[0::2], rows[1::2], strict=True):
        cells = "".join(_HALF_BLOCKS[pair] for pair in zip(top, bottom, strict=True))
        lines.append(f"{_ON_WHITE}{cells}{_RESET}")
    return "\n".join(lines) + "\n"


def where_tables_live(app: Flask) -> str:
    """The database in words for the banner: a file path, or the URL without its password."""
    url = make_url(app.config["DATABASE_URL"])
    if url.get_backend_name() == "sqlite" and url.database:
        return str(url.database)
    return url.render_as_string(hide_password=True)


def banner(public: str | None, urls: list[str], out: TextIO, tables: str | None = None) -> None:
    print("\nLeafpile is running.", file=out)
    if public:
        print(f"\n  Phones on this network: {public}", file=out)
        print("  Scan this with a phone camera:\n", file=out)
        out.write(terminal_qr(public))
    else:
        print(
            "\n  Only this computer can reach it (no network address found, or --host is local).",
            file=out,
        )
    print("\n  Reachable at: " + ", ".join(urls), file=out)
    if tables:
        print(f"  Tables are kept in {tables}", file=out)
    print(f"  Leafpile version {leafpile_version()}", file=out)
    print("  Stop with Ctrl+C. Tables are kept between runs.\n", file=out)


#: Connections the OS queues before the server accepts them. A burst past a
#: full queue has the OS drop the next phones' first packet, and they wait a
#: whole second to send it again: one address opening 1,000 streams at once
#: delayed another phone's tap by 1.03 s with a queue of 128 (the refusals
#: past its share are quick, but the queue fills first). Linux caps it at
#: net.core.somaxconn (4096 since 5.4).
LISTEN_BACKLOG = 2048


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (raises OSError: busy port, bad address, no permission)."""
    family = select_address_family(host, port)
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(get_sockaddr(host, port, family))
        listener.listen(LISTEN_BACKLOG)
    except OSError:
        listener.close()
        raise
    return listener


def free_port_near(host: str, port: int, tries: int = 50) -> int | None:
    """The first port after ``port`` that nothing listens on, or None."""
    for candidate in range(port + 1, min(port + 1 + tries, 65536)):
        try:
            listen(host, candidate).close()
        except OSError:
            continue
        return candidate
    return None


def cannot_listen(host: str, port: int, error: OSError) -> str:
    """One line that says why the server could not start and what to try."""
    if error.errno == errno.EADDRINUSE:
        free = free_port_near(host, port)
        hint = f"try: leafpile --port {free}" if free else "try another port with --port"
        macos = " (on a Mac, AirPlay Receiver uses 5000)" if sys.platform == "darwin" else ""
        return f"leafpile: port {port} is already in use{macos}; {hint}"
    if error.errno == errno.EACCES:
        return f"leafpile: not allowed to listen on port {port}; try: leafpile --port 5000"
    reason = error.strerror or str(error)
    return f"leafpile: cannot listen on {host}:{port} ({reason}); check --host"


def serve(host: str = "0.0.0.0", port: int = 5000) -> int:
    try:  # a setting out of range stops the server with a line, never a silent default
        ServerLimits.from_environment()
        check_settings()
    except ValueError as exc:
        print(f"leafpile: {exc}", file=sys.stderr)
        return 1
    try:
        listener = listen(host, port)
    except (OSError, ValueError) as exc:
        error = exc if isinstance(exc, OSError) else OSError(errno.EINVAL, str(exc))
        print(cannot_listen(host, port, error), file=sys.stderr)
        return 1
    cooperative()
    public, urls = reachable_urls(host, port)
    app, problem = _build_app()
    if app is None:
        print(f"leafpile: {problem}", file=sys.stderr)
        listener.close()
        return 1
    app.config["PUBLIC_URL"] = os.environ.get("LEAFPILE_PUBLIC_URL") or public
    app.debug = False  # never the debugger on a server other phones can reach
    if os.environ.get("LEAFPILE_RATE_LIMITS", "").strip() == "0":
        app.config["LEAFPILE_RATE_LIMITS"] = False  # a load test from one address
    server = stream_server(listener, app)  # its limits, checked above
    tune_collector_for_serving()
    sys.setswitchinterval(LOOP_SWITCH_SECONDS)
    banner(app.config["PUBLIC_URL"], urls, sys.stdout, tables=where_tables_live(app))
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nLeafpile stopped.")
    return 0


#: How long a native thread (a job that cannot go to a worker process, such
#: as an import's replay) may hold the interpreter while the event loop waits
#: for it: Python's default is 5 ms, and the loop waits that long again each
#: time it comes back from the network, several times a request.
LOOP_SWITCH_SECONDS = 0.001

#: Database drivers a URL may name: missing, they are the host's to install.
_DRIVERS = {"psycopg", "psycopg2", "pg8000", "asyncpg", "MySQLdb", "pymysql", "mysql", "oracledb"}


def _build_app() -> tuple[Flask | None, str]:
    """The app, or None and one line that says why it cannot start: a setting
    with a wrong value, a data folder it cannot write, a database it cannot
    open or reach (no traceback: issue 42)."""
    folder = Path(os.environ.get("LEAFPILE_INSTANCE") or default_instance_folder()).expanduser()
    url = os.environ.get("LEAFPILE_DATABASE_URL") or f"sqlite:///{folder / 'leafpile.sqlite3'}"
    try:
        check_data_folder(folder)
    except OSError as exc:
        return None, data_folder_problem(folder, exc)
    try:
        return create_app(), ""
    except ValueError as exc:  # a setting with a wrong value: say which
        return None, str(exc)
    except OSError as exc:  # the session key in the folder, or a SQLite file elsewhere
        inside = Path(str(exc.filename or folder)).is_relative_to(folder)
        return None, data_folder_problem(folder, exc) if inside else database_problem(url, exc)
    except SQLAlchemyError as exc:
        return None, database_problem(url, exc)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in _DRIVERS:
            raise
        return None, database_problem(url, exc)


def cooperative() -> None:
    """From here on this process is a gevent server: every socket, lock and
    sleep cooperates, so thousands of phones can each hold a stream open.
    Called before the app is built (its database pool, its drivers)."""
    import gevent
    from gevent import monkey

    monkey.patch_all()
    hub = gevent.get_hub()
    hub.NOT_ERROR = (*hub.NOT_ERROR, KeyboardInterrupt)  # Ctrl+C is no error to print


#: Connections held at once: every phone keeps two (its stream and one for its
#: taps and fetches), so this is about 500 phones. Past it, new connections
#: wait in the listen queue until one closes.
MAX_CONNECTIONS = 1000
#: Connections one address holds at once; past it, a new one is answered 503
#: at once and closed. A phone keeps two, a browser opens at most six to one
#: server, so 32 is several phones behind one address (a host's own tabs) and
#: still a thirtieth of MAX_CONNECTIONS: 1,000 streams from one address had
#: filled the server and every other phone timed out (issue 42).
CONNECTIONS_PER_ADDRESS = 32
#: A connection that sends nothing for this long is closed: a phone that went
#: away, or a client that opened a connection and never asked. (A stream sends
#: a heartbeat every 20 s, so it is never idle this long.)
IDLE_SECONDS = 75
#: A kept-alive connection waiting for its phone's next request is closed
#: after this long (as nginx does in front of deploy/serve): an idle phone,
#: whose fallback poll comes once a minute, then holds one connection (its
#: stream), not two. Its next tap opens a new one, a round trip on the LAN.
KEEPALIVE_SECONDS = 15
#: A request's line and headers must all arrive within this many seconds of
#: its first byte (nginx's client_header_timeout in front of deploy/serve).
#: The idle timeout alone restarts with every byte, so a client sending one
#: byte every 5 s held its connection for as long as it liked.
HEADER_SECONDS = 10
#: A request's body must all arrive within this many seconds of its headers:
#: 2 MB (the largest, an import) at 70 kB/s. It is read whole before the app
#: sees the request, as nginx does, so a slow body holds no app work.
BODY_SECONDS = 30
#: Each connection's read buffer (Python's default is 8 KB): see stream_server.
READ_BUFFER_BYTES = 2048
#: A body longer than this is refused (413) before it is read: the app's own
#: limit is 2 MB (companion/web, MAX_CONTENT_LENGTH), which it answers itself.
LARGEST_BODY = 4 * 1024 * 1024


@dataclass(frozen=True)
class ServerLimits:
    """The laptop server's limits, from the environment (docs/configuration.md)."""

    max_connections: int = MAX_CONNECTIONS
    per_address: int = CONNECTIONS_PER_ADDRESS  # 0: no cap (a load test from one address)
    idle: int = IDLE_SECONDS
    keepalive: int = KEEPALIVE_SECONDS
    header: int = HEADER_SECONDS
    body: int = BODY_SECONDS

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> ServerLimits:
        """Read the settings; a wrong one raises ValueError with a line for the host."""
        env = os.environ if env is None else env
        per_address = _setting(
            env, "LEAFPILE_CONNECTIONS_PER_ADDRESS", CONNECTIONS_PER_ADDRESS, 0, 100_000,
            "connections (0: no cap)",
        )  # fmt: skip
        if env.get("LEAFPILE_RATE_LIMITS", "").strip() == "0":
            per_address = 0  # a load test: every phone comes from this one address
        return cls(
            max_connections=_setting(
                env, "LEAFPILE_MAX_CONNECTIONS", MAX_CONNECTIONS, 1, 100_000, "connections"
            ),
            per_address=per_address,
            idle=_setting(env, "LEAFPILE_IDLE_SECONDS", IDLE_SECONDS, 1, 3600, "seconds"),
            keepalive=_setting(
                env, "LEAFPILE_KEEPALIVE_SECONDS", KEEPALIVE_SECONDS, 1, 3600, "seconds"
            ),
            header=_setting(env, "LEAFPILE_HEADER_SECONDS", HEADER_SECONDS, 1, 300, "seconds"),
            body=_setting(env, "LEAFPILE_BODY_SECONDS", BODY_SECONDS, 1, 3600, "seconds"),
        )


def _setting(
    env: Mapping[str, str], name: str, default: int, low: int, high: int, unit: str
) -> int:
    """A whole-number setting from ``low`` to ``high`` (unset: ``default``), or ValueError."""
    text = env.get(name, "").strip()
    if not text:
        return default
    if not (text.isdecimal() and text.isascii()) or not low <= int(text) <= high:
        raise ValueError(
            f"{name} must be a whole number of {unit}, {low} to {high:,} (not {text!r})"
        )
    return int(text)


def _plain_answer(status: str, text: str) -> bytes:
    """A whole HTTP answer that closes the connection, written before any app work."""
    body = text.encode()
    return (
        f"HTTP/1.1 {status}\r\nServer: leafpile\r\nConnection: close\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


TOO_MANY_FROM_ONE_ADDRESS = _plain_answer(
    "503 Service Unavailable",
    "Too many connections from this address at once; nothing was entered. "
    "Close some tabs or wait a moment, then try again.\n",
)
TOO_SLOW = _plain_answer(
    "408 Request Timeout",
    "The request took too long to arrive, so nothing was entered. Try again.\n",
)
TOO_LARGE = _plain_answer(
    "413 Content Too Large", "This request is too large; nothing was entered.\n"
)
NO_LENGTH = _plain_answer(
    "411 Length Required",
    "Send the request with its length (Content-Length); nothing was entered.\n",
)


class _Late(Exception):
    """The request's head or body did not arrive by its deadline."""


#: A request's head: at most this many header lines, each at most this long
#: (http.client's own limits, which gevent's parser used).
MAX_HEADERS = 100
MAX_HEADER_LINE = 65536


class RequestHead:
    """A request's header lines as gevent's handler reads them.

    gevent parses a request's headers with the standard library's e-mail
    parser (``http.client.parse_headers``): a tenth of the laptop server's
    CPU at a club night went there (issue 41). A request head is a few
    ``Name: value`` lines; this keeps them in a list, looked up by name
    without case as the e-mail message was. ``status`` is non-empty for a
    head the handler must refuse (400).
    """

    def __init__(self, lines: list[tuple[str, str]], status: str = "") -> None:
        self.fields = lines
        self.status = status

    @classmethod
    def read(cls, rfile: Any) -> RequestHead:
        lines: list[tuple[str, str]] = []
        while True:
            raw = rfile.readline(MAX_HEADER_LINE + 1)
            if len(raw) > MAX_HEADER_LINE:
                return cls([], "Line too long")
            if raw in (b"\r\n", b"\n", b""):
                return cls(lines)
            text = raw.decode("iso-8859-1").rstrip("\r\n")
            if text[:1] in (" ", "\t") and lines:  # an obsolete folded line: one value
                name, value = lines[-1]
                lines[-1] = (name, f"{value} {text.strip()}")
                continue
            name, colon, value = text.partition(":")
            if not colon or not name or name != name.strip():
                continue  # no header at all (nginx ignores such lines too)
            lines.append((name, value.strip()))
            if len(lines) > MAX_HEADERS:
                return cls([], "Too many headers")

    def get(self, name: str, default: Any = None) -> Any:
        name = name.lower()
        for key, value in self.fields:
            if key.lower() == name:
                return value
        return default

    getheader = get

    def __delitem__(self, name: str) -> None:
        name = name.lower()
        self.fields = [(k, v) for k, v in self.fields if k.lower() != name]

    @property
    def typeheader(self) -> str | None:
        found = self.get("content-type")
        return None if found is None else str(found)

    @property
    def headers(self) -> list[str]:
        """The lines as gevent's environ builder reads them."""
        return [f"{key}: {value}\r\n" for key, value in self.fields]


class _Refused(Exception):
    """A request refused before the app sees it; ``answer`` says why."""

    def __init__(self, answer: bytes) -> None:
        super().__init__(answer[:40])
        self.answer = answer


class _DeadlineReader(io.RawIOBase):
    """A connection's socket as a raw stream whose every read waits at most
    ``wait`` seconds (the idle timeout) and never past ``deadline`` (a
    monotonic time, or None). One byte a second would reset an idle timeout
    for ever; a deadline counts from the request's first byte."""

    def __init__(self, sock: Any, wait: float) -> None:
        self.sock = sock
        self.wait = wait
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        timeout = self.wait
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise _Late()
            timeout = min(timeout, left)
        self.sock.settimeout(timeout)
        try:
            return int(self.sock.recv_into(buffer))
        except TimeoutError:
            if self.deadline is not None and time.monotonic() >= self.deadline:
                raise _Late() from None
            raise


def stream_server(listener: socket.socket, app: Flask, given: ServerLimits | None = None) -> Any:
    """A gevent WSGI server on ``listener`` with ``given`` limits (default: from the
    environment): at most ``max_connections`` connections and ``per_address``
    from any one address; each closed after ``idle`` seconds without a byte
    either way, or after ``keepalive`` waiting for the next request once it
    has answered one; a request's head must arrive within ``header`` seconds
    of its first byte and its body within ``body`` seconds after that.

    gevent, not the werkzeug development server (a thread per connection, no
    cap, no idle timeout: a burst left thousands of threads behind) nor
    waitress (a thread per running response, so every open stream would hold
    one of its few threads). gevent's greenlets hold an idle stream in a few
    kilobytes, it ships wheels for Linux, macOS and Windows, and it is the
    worker the production setup runs under gunicorn.
    """
    from gevent import socket as green_socket
    from gevent.pool import Pool
    from gevent.pywsgi import Input, WSGIHandler, WSGIServer

    limits = given or ServerLimits.from_environment()

    class FairHandler(WSGIHandler):  # type: ignore[misc]
        def __init__(self, sock: Any, address: Any, server: Any, rfile: Any = None) -> None:
            # A phone's connections wait idle most of the evening (its stream,
            # its keep-alive), each with a read buffer: 2 KB instead of 8 holds
            # a request's head (a longer one is read in more pieces) and saved
            # 6 MB at 3,000 streams (136 MB over the start instead of 142).
            self.reader = _DeadlineReader(sock, limits.idle)
            if rfile is None:
                rfile = io.BufferedReader(self.reader, READ_BUFFER_BYTES)
            super().__init__(sock, address, server, rfile)

        answered = False
        body: bytes | None = None

        def MessageClass(self, rfile: Any, *_: Any) -> RequestHead:  # noqa: N802 (gevent's name)
            return RequestHead.read(rfile)

        def _write_with_headers(self, data: bytes) -> None:
            # gevent sends the head, then the body: two system calls and two
            # packets an answer, the second held back by Nagle's algorithm
            # until the first is acknowledged. A board is a few kilobytes:
            # one buffer, one call.
            self.headers_sent = True
            self.finalize_headers()
            out = bytearray(b"HTTP/1.1 ")
            out += self.status
            out += b"\r\n"
            for header, value in self.response_headers:
                out += header + b": " + value + b"\r\n"
            out += b"\r\n"
            if data and self.response_use_chunked:
                out += b"%x\r\n" % len(data) + data + b"\r\n"
            elif data:
                out += data
            self._sendall(out)

        def handle(self) -> None:
            self.socket.settimeout(limits.idle)
            with suppress(OSError):  # a refusal's few bytes could not be sent: the client left
                super().handle()

        def read_requestline(self) -> Any:
            # Wait for the first byte as long as a connection may idle (less
            # on a kept-alive one: its phone may have gone quiet), then give
            # the whole head its deadline.
            self.reader.deadline = None
            self.reader.wait = min(limits.keepalive, limits.idle) if self.answered else limits.idle
            try:
                first = self.rfile.peek(1)
            except (OSError, _Late):
                return ""
            if not first:
                return ""
            self.reader.wait = limits.idle
            self.reader.deadline = time.monotonic() + limits.header
            try:
                line = super().read_requestline()
            except _Late:
                return ""  # a request line trickled in past its deadline: just close
            self.answered = True
            return line

        def read_request(self, raw_requestline: str) -> bool:
            super().read_request(raw_requestline)  # the headers, still under the deadline
            self.body = None
            if self.headers.get("transfer-encoding", "").lower() == "chunked":
                raise _Refused(NO_LENGTH)  # browsers send a length; a stream could trickle
            length = self.content_length or 0
            if length > LARGEST_BODY:
                raise _Refused(TOO_LARGE)
            if length:
                if self.headers.get("expect", "").lower() == "100-continue":
                    self.socket.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                self.reader.deadline = time.monotonic() + limits.body
                self.body = self.rfile.read(length)
                if len(self.body) < length:
                    raise ConnectionResetError("the client left inside its request")
            self.reader.deadline = None
            self.socket.settimeout(limits.idle)  # for the answer, however long it streams
            return True

        def get_environ(self) -> Any:
            environ = super().get_environ()
            if self.body is not None:  # read whole above: the app reads it from memory
                self.wsgi_input = Input(io.BufferedReader(io.BytesIO(self.body)), len(self.body))
                environ["wsgi.input"] = self.wsgi_input
            return environ

        def _handle_client_error(self, ex: BaseException) -> Any:
            if isinstance(ex, _Late):
                return ("408", TOO_SLOW)
            if isinstance(ex, _Refused):
                return (ex.answer[9:12].decode(), ex.answer)
            if isinstance(ex, OSError):
                return None  # the client left or its socket failed: nothing to answer
            return super()._handle_client_error(ex)

        def log_request(self) -> None:
            pass  # no line per request: a table makes hundreds an hour

    class FairServer(WSGIServer):  # type: ignore[misc]
        """Counts connections by address: one address over its share is told
        so (503) and closed at once, before it takes a place in the pool."""

        held: Counter[str]  # connections open, by address (set below)

        def do_handle(self, sock: Any, address: Any) -> None:
            key = str(address[0]) if isinstance(address, tuple) else ""
            if limits.per_address and self.held[key] >= limits.per_address:
                # Runs in the accept loop: never wait. A fresh socket's send
                # buffer takes these few bytes at once; what the client has
                # sent already is read first, so that closing sends the
                # answer and a FIN rather than a reset that may discard it.
                with suppress(OSError):
                    sock.setblocking(False)
                    sock.send(TOO_MANY_FROM_ONE_ADDRESS)
                    sock.recv(READ_BUFFER_BYTES)
                sock.close()
                return
            self.held[key] += 1
            super().do_handle(sock, address)

        def do_close(self, sock: Any, address: Any) -> None:
            key = str(address[0]) if isinstance(address, tuple) else ""
            self.held[key] -= 1
            if self.held[key] <= 0:
                del self.held[key]
            super().do_close(sock, address)

    green = green_socket.socket(listener.family, listener.type, fileno=listener.detach())

    def named(environ: dict[str, Any], start_response: Any) -> Any:
        # One Server header naming no versions (issue 23): a version told to
        # anyone on the network is a head start for an attacker.
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            kept = [(k, v) for k, v in headers if k.lower() != "server"]
            return start_response(status, [*kept, ("Server", "leafpile")], exc_info)

        return app(environ, start)

    server = FairServer(
        green,
        named,
        spawn=Pool(limits.max_connections),
        handler_class=FairHandler,
        log=None,
        error_log=logging.getLogger("leafpile.server"),
    )
    server.held = Counter()
    return server
