"""Board fragments that several phones receive byte for byte.

Phones that see the same board (one projection, one viewer key: the phones
passed round a table, everyone watching, the host and the players while a
game is on) get the very same string from the render cache (table.py), a
:class:`SharedRender`. Its encoded bytes are made for the first phone that
asks in a given encoding and kept on it, so they live and go with the
render: the entry's own answer and every other phone's fetch of that
version share one compression.

The compressors and the choice of encoding are Flask-Compress's own, but
for brotli's quality: see :data:`BOARD_BROTLI_QUALITY`.
"""

from __future__ import annotations

import brotli  # type: ignore[import-untyped]
from flask import Flask

from . import compress

try:
    from flask_compress.flask_compress import _choose_algorithm
    from flask_compress.flask_compress import _compress_data as _compressed_by_flask_compress

    COMPRESSION_KNOWN = True
except ImportError:  # pragma: no cover - another Flask-Compress: it compresses every answer
    COMPRESSION_KNOWN = False

#: A board's brotli quality: 1, not Flask-Compress's 4 (which the pages and
#: static files keep). A board of 6-9 KB is compressed once a change, and
#: in the serving process that took about 0.3 ms at quality 4 against 0.1
#: at 1 (issue 41); it comes out a fifth larger, some 250 bytes.
BOARD_BROTLI_QUALITY = 1


def _compress_data(app: Flask, data: bytes, encoding: str) -> bytes:
    if encoding == "br":
        return bytes(
            brotli.compress(
                data,
                mode=app.config["COMPRESS_BR_MODE"],
                quality=BOARD_BROTLI_QUALITY,
                lgwin=app.config["COMPRESS_BR_WINDOW"],
                lgblock=app.config["COMPRESS_BR_BLOCK"],
            )
        )
    return bytes(_compressed_by_flask_compress(app, data, encoding))


class SharedRender(str):
    """A board fragment served as is to every phone with its cache key.

    ``encoded`` keeps, for each encoding asked for, the bytes and the
    encoding used (None: too short to be worth compressing)."""

    encoded: dict[str, tuple[bytes, str | None]]

    @classmethod
    def of(cls, html: str) -> SharedRender:
        shared = cls(html)
        shared.encoded = {}
        return shared


def chosen_encoding(accept: str) -> str | None:
    """The encoding Flask-Compress would choose for this Accept-Encoding."""
    return _choose_algorithm(compress.enabled_algorithms, accept)


def encoded(app: Flask, body: str, encoding: str | None) -> tuple[bytes, str | None]:
    """``body``'s bytes in ``encoding`` as Flask-Compress would send them, with
    the encoding used; made once for a :class:`SharedRender`."""
    made = body.encoded if isinstance(body, SharedRender) else {}
    asked = encoding or ""
    found = made.get(asked)
    if found is None:
        data = body.encode()
        if encoding is not None and len(data) < app.config["COMPRESS_MIN_SIZE"]:
            encoding = None
        if encoding is not None:
            data = _compress_data(app, data, encoding)
        found = made[asked] = (data, encoding)
    return found
