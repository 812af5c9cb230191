"""`leafpile`: serve the companion on this computer for the phones at the table."""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import sys
from typing import TextIO

import qrcode
from werkzeug.serving import make_server

from . import create_app


def lan_address() -> str | None:
    """This computer's address on the local network, or None if it has none.

    Connecting a UDP socket sends no packet; it only asks the OS which
    interface it would route through.
    """
    for probe in ("10.255.255.255", "192.168.255.255", "172.31.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 1))
                address = s.getsockname()[0]
        except OSError:
            continue
        if not ipaddress.ip_address(address).is_loopback and address != "0.0.0.0":
            return str(address)
    return None


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


def banner(public: str | None, urls: list[str], out: TextIO) -> None:
    print("\nLeafpile is running.", file=out)
    if public:
        print(f"\n  Phones on this network: {public}", file=out)
        print("  Scan this with a phone camera:\n", file=out)
        qr = qrcode.QRCode(border=1)
        qr.add_data(public)
        qr.make(fit=True)
        qr.print_ascii(out=out, invert=True)
    else:
        print(
            "\n  Only this computer can reach it (no network address found, or --host is local).",
            file=out,
        )
    print("\n  Reachable at: " + ", ".join(urls), file=out)
    print("  Stop with Ctrl+C. Tables are kept between runs.\n", file=out)


def serve(host: str = "0.0.0.0", port: int = 5000) -> int:
    public, urls = reachable_urls(host, port)
    app = create_app()
    app.config["PUBLIC_URL"] = os.environ.get("LEAFPILE_PUBLIC_URL") or public
    app.debug = False  # never the debugger on a server other phones can reach
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per poll
    try:
        server = make_server(host, port, app, threaded=True)
    except OSError as exc:
        print(f"leafpile: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        print("Try another port: leafpile --port 5001", file=sys.stderr)
        return 1
    banner(app.config["PUBLIC_URL"], urls, sys.stdout)
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nLeafpile stopped.")
    return 0
