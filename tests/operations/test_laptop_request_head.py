"""The laptop server reads a request's head itself and answers in one write.

gevent parsed every request's headers with the standard library's e-mail
parser, a tenth of the server's CPU at a club night (issue 41), and sent
each answer's head and body in two system calls. ``RequestHead`` keeps the
header lines in a list; these tests pin that it reads them as the e-mail
parser did where it matters (names without case, the first of two, folded
lines, the limits) and that a real server still refuses what it refused.
"""

from __future__ import annotations

import io
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.server import MAX_HEADER_LINE, MAX_HEADERS, RequestHead
from companion.tables.store import Base, Store
from tests.operations.test_concurrency import database_url, serve

WAIT = 30.0  # a bound for a broken server, never a timing


def _head(text: str) -> RequestHead:
    return RequestHead.read(io.BytesIO(text.encode("iso-8859-1")))


def test_names_are_found_without_case_and_the_first_of_two_wins() -> None:
    head = _head("Host: a\r\nCookie: x=1\r\ncookie: y=2\r\nContent-Type: text/plain\r\n\r\nbody")
    assert head.status == ""
    assert head.get("host") == "a"
    assert head.get("COOKIE") == "x=1"
    assert head.get("missing", "none") == "none"
    assert head.typeheader == "text/plain"
    # gevent's environ builder reads every line, and joins the two cookies itself.
    assert head.headers == [
        "Host: a\r\n",
        "Cookie: x=1\r\n",
        "cookie: y=2\r\n",
        "Content-Type: text/plain\r\n",
    ]


def test_a_folded_line_continues_its_value_and_a_line_without_a_name_is_ignored() -> None:
    head = _head("X-Long: one\r\n two\r\nnot a header\r\n: nameless\r\nHost: a\r\n\r\n")
    assert head.get("x-long") == "one two"
    assert [name for name, _ in head.fields] == ["X-Long", "Host"]


def test_deleting_a_header_removes_every_line_of_it() -> None:
    head = _head("Content-Length: 5\r\ncontent-length: 6\r\nHost: a\r\n\r\n")
    del head["Content-Length"]
    assert head.get("content-length") is None
    assert head.get("host") == "a"


def test_too_many_headers_or_too_long_a_line_is_refused() -> None:
    many = "".join(f"X-{n}: v\r\n" for n in range(MAX_HEADERS + 1)) + "\r\n"
    assert _head(many).status == "Too many headers"
    assert _head("".join(f"X-{n}: v\r\n" for n in range(MAX_HEADERS)) + "\r\n").status == ""
    assert _head("X-Big: " + "a" * MAX_HEADER_LINE + "\r\n\r\n").status == "Line too long"


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    url = database_url(tmp_path)
    yield url
    if os.environ.get("LEAFPILE_TEST_DATABASE_URL"):
        engine = Store(url).engine
        Base.metadata.drop_all(engine)
        engine.dispose()


def _exchange(port: int, request: bytes) -> bytes:
    """The whole answer to ``request`` on a connection the server then closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
        s.sendall(request)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer


def test_the_server_answers_whole_and_refuses_a_bad_head(tmp_path: Path, db_url: str) -> None:
    served = serve("leafpile", tmp_path, db_url)
    try:
        plain = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        answer = _exchange(served.port, plain)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        length = next(
            int(line.split(b":")[1]) for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )  # fmt: skip
        assert len(body) == length and body.strip() == b"ok"
        many = "".join(f"X-{n}: v\r\n" for n in range(MAX_HEADERS + 1))
        refused = _exchange(
            served.port, f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n{many}\r\n".encode()
        )
        assert refused.startswith(b"HTTP/1.1 400")
        # A head folded over two lines is one header, and the request is served.
        folded = (
            b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n 2\r\nConnection: close\r\n\r\n"
        )
        assert _exchange(served.port, folded).startswith(b"HTTP/1.1 200")
    finally:
        served.stop()
