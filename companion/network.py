"""This computer's place on the local network: what the launcher's banner and
QR code and the print page's kit show phones, so both ask the same way.

Its own module (not companion.server) so that the print page, which any
server runs (gunicorn too), does not import the laptop server's launcher.
"""

from __future__ import annotations

import ipaddress
import socket


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
