"""`leafpile`: serve the companion on this computer for the phones at the table."""

from __future__ import annotations

import errno
import ipaddress
import logging
import os
import socket
import sys
from typing import Any, TextIO

from flask import Flask
from sqlalchemy.engine import make_url
from werkzeug.serving import get_sockaddr, select_address_family

from . import create_app
from .cooperative import tune_collector_for_serving
from .network import lan_address

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
    print("  Stop with Ctrl+C. Tables are kept between runs.\n", file=out)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (raises OSError: busy port, bad address, no permission)."""
    family = select_address_family(host, port)
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(get_sockaddr(host, port, family))
        listener.listen(128)
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
    try:
        listener = listen(host, port)
    except (OSError, ValueError) as exc:
        error = exc if isinstance(exc, OSError) else OSError(errno.EINVAL, str(exc))
        print(cannot_listen(host, port, error), file=sys.stderr)
        return 1
    cooperative()
    public, urls = reachable_urls(host, port)
    try:
        app = create_app()
    except ValueError as exc:  # a setting with a wrong value: say which, no traceback
        print(f"leafpile: {exc}", file=sys.stderr)
        listener.close()
        return 1
    app.config["PUBLIC_URL"] = os.environ.get("LEAFPILE_PUBLIC_URL") or public
    app.debug = False  # never the debugger on a server other phones can reach
    if os.environ.get("LEAFPILE_RATE_LIMITS", "").strip() == "0":
        app.config["LEAFPILE_RATE_LIMITS"] = False  # a load test from one address
    server = stream_server(listener, app)
    tune_collector_for_serving()
    banner(app.config["PUBLIC_URL"], urls, sys.stdout, tables=where_tables_live(app))
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nLeafpile stopped.")
    return 0


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
#: A connection that sends nothing for this long is closed: a phone that went
#: away, or a client that opened a connection and never asked. (A stream sends
#: a heartbeat every 20 s, so it is never idle this long.)
IDLE_SECONDS = 75
#: A kept-alive connection waiting for its phone's next request is closed
#: after this long (as nginx does in front of deploy/serve): an idle phone,
#: whose fallback poll comes once a minute, then holds one connection (its
#: stream), not two. Its next tap opens a new one, a round trip on the LAN.
KEEPALIVE_SECONDS = 15
#: Each connection's read buffer (Python's default is 8 KB): see stream_server.
READ_BUFFER_BYTES = 2048


def stream_server(listener: socket.socket, app: Flask) -> Any:
    """A gevent WSGI server on ``listener``: at most ``LEAFPILE_MAX_CONNECTIONS``
    connections, each closed after ``LEAFPILE_IDLE_SECONDS`` (default
    ``IDLE_SECONDS``) without a byte either way, or after
    ``LEAFPILE_KEEPALIVE_SECONDS`` (default ``KEEPALIVE_SECONDS``) waiting
    for the next request once it has answered one.

    gevent, not the werkzeug development server (a thread per connection, no
    cap, no idle timeout: a burst left thousands of threads behind) nor
    waitress (a thread per running response, so every open stream would hold
    one of its few threads). gevent's greenlets hold an idle stream in a few
    kilobytes, it ships wheels for Linux, macOS and Windows, and it is the
    worker the production setup runs under gunicorn.
    """
    from gevent import socket as green_socket
    from gevent.pool import Pool
    from gevent.pywsgi import WSGIHandler, WSGIServer

    class IdleClosingHandler(WSGIHandler):  # type: ignore[misc]
        def __init__(self, sock: Any, address: Any, server: Any, rfile: Any = None) -> None:
            # A phone's connections wait idle most of the evening (its stream,
            # its keep-alive), each with a read buffer: 2 KB instead of 8 holds
            # a request's head (a longer one is read in more pieces) and saved
            # 6 MB at 3,000 streams (136 MB over the start instead of 142).
            if rfile is None:
                rfile = sock.makefile("rb", READ_BUFFER_BYTES)
            super().__init__(sock, address, server, rfile)

        answered = False

        def handle(self) -> None:
            self.socket.settimeout(idle)
            super().handle()

        def read_requestline(self) -> Any:
            if self.answered:  # a kept-alive connection: its phone may have gone quiet
                self.socket.settimeout(min(keepalive, idle))
            line = super().read_requestline()
            self.socket.settimeout(idle)
            self.answered = True
            return line

        def log_request(self) -> None:
            pass  # no line per request: a table makes hundreds an hour

    cap = _positive_int(os.environ.get("LEAFPILE_MAX_CONNECTIONS"), MAX_CONNECTIONS)
    idle = _positive_int(os.environ.get("LEAFPILE_IDLE_SECONDS"), int(IDLE_SECONDS))
    keepalive = _positive_int(os.environ.get("LEAFPILE_KEEPALIVE_SECONDS"), KEEPALIVE_SECONDS)
    green = green_socket.socket(listener.family, listener.type, fileno=listener.detach())

    def named(environ: dict[str, Any], start_response: Any) -> Any:
        # One Server header naming no versions (issue 23): a version told to
        # anyone on the network is a head start for an attacker.
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            kept = [(k, v) for k, v in headers if k.lower() != "server"]
            return start_response(status, [*kept, ("Server", "leafpile")], exc_info)

        return app(environ, start)

    return WSGIServer(
        green,
        named,
        spawn=Pool(cap),
        handler_class=IdleClosingHandler,
        log=None,
        error_log=logging.getLogger("leafpile.server"),
    )


def _positive_int(text: str | None, default: int) -> int:
    text = (text or "").strip()
    return int(text) if text.isdecimal() and int(text) > 0 else default
