"""Options mean what they say (issue 23, item 5).

``--host`` and ``--port`` work before and after ``serve`` (and with no
command at all); given twice with two values, or to a command that does not
serve, they are refused with a message; the plain server's ``Server``
header names no software version.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from companion import cli, server


@pytest.fixture
def served(monkeypatch):
    calls: list[tuple[str, int]] = []

    def fake_serve(host: str = "0.0.0.0", port: int = 5000) -> int:
        calls.append((host, port))
        return 0

    monkeypatch.setattr(server, "serve", fake_serve)
    return calls


@pytest.mark.parametrize(
    "argv",
    [
        ["--host", "127.0.0.1", "--port", "8123", "serve"],  # the order the issue found broken
        ["serve", "--host", "127.0.0.1", "--port", "8123"],
        ["--host", "127.0.0.1", "serve", "--port", "8123"],
        ["--port", "8123", "serve", "--host", "127.0.0.1"],
        ["--host", "127.0.0.1", "--port", "8123"],  # no command: serve
        ["--port=8123", "--host=127.0.0.1", "serve", "--port", "8123"],  # the same value twice
    ],
)
def test_host_and_port_mean_the_same_before_and_after_serve(served, argv):
    assert cli.main(argv) == 0
    assert served == [("127.0.0.1", 8123)]


@pytest.mark.parametrize("argv", [[], ["serve"]])
def test_the_defaults_are_every_network_on_port_5000(served, argv):
    assert cli.main(argv) == 0
    assert served == [("0.0.0.0", 5000)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "8000", "serve", "--port", "9000"], "--port is given twice (8000 and 9000)"),
        (["--host", "127.0.0.1", "serve", "--host", "0.0.0.0"], "--host is given twice"),
        (["--port", "8000", "solve", "--seed", "1"], "--port belongs to `leafpile serve`"),
        (
            ["--host", "127.0.0.1", "--port", "8000", "print", "board"],
            "--host and --port belong to `leafpile serve`, not to `leafpile print`",
        ),
        (["solve", "--seed", "1", "--port", "8000"], "unrecognized arguments: --port"),
        (["print", "board", "--host", "127.0.0.1"], "unrecognized arguments: --host"),
    ],
)
def test_conflicts_and_options_of_other_commands_are_refused_with_a_message(
    served, capsys, argv, message
):
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert served == []


def test_the_usage_line_shows_an_order_that_works(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    usage = capsys.readouterr().out.splitlines()[0]
    assert "[--host HOST] [--port PORT] COMMAND" in usage


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_host_before_serve_really_keeps_the_server_to_this_computer(tmp_path):
    """The issue's command, as a process: it listens on 127.0.0.1 and names no versions."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAFPILE_")}
    env["LEAFPILE_INSTANCE"] = str(tmp_path / "instance")
    env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, "-m", "companion.cli", "--host", "127.0.0.1"]
    process = subprocess.Popen(
        [*command, "--port", str(port), "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = []
        for line in process.stdout:
            banner.append(line)
            if "Stop with Ctrl+C" in line:
                break
        text = "".join(banner)
        assert "Only this computer can reach it" in text, text
        assert f"Reachable at: http://127.0.0.1:{port}" in text
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                    header = r.headers["Server"]
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert header == "leafpile"
        # Another address of this machine has the port free: a server on
        # 0.0.0.0 would hold it there too (Linux answers all of 127/8 locally).
        with socket.socket() as other:
            other.bind(("127.0.0.2", port))
    finally:
        process.terminate()
        process.wait(timeout=30)
