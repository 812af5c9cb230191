"""The ``leafpile`` command as people expect it: --version, a busy port, the
terminal QR code (decoded, on a dark and on a light terminal), /healthz and the
start-up banner of a real ``leafpile`` process."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from importlib.metadata import version
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image

from companion import server
from companion.cli import main

URL = "http://192.168.1.20:5000"

# --- a terminal, drawn as pixels ----------------------------------------------

SGR = re.compile(r"\x1b\[([0-9;]*)m")
ANSI_COLOURS = {  # xterm's palette for the codes a QR code could use
    30: (0, 0, 0),
    37: (229, 229, 229),
    40: (0, 0, 0),
    47: (229, 229, 229),
    90: (127, 127, 127),
    97: (255, 255, 255),
    100: (127, 127, 127),
    107: (255, 255, 255),
}
THEMES = {  # (default foreground, default background)
    "dark": ((220, 220, 220), (24, 24, 24)),
    "light": ((20, 20, 20), (250, 250, 250)),
}
CELL_W, CELL_H = 8, 16  # a terminal cell is about twice as tall as wide


def screenshot(text: str, theme: str, margin: int = 3) -> Image.Image:
    """What a terminal with this colour theme shows for ``text``.

    Handles what a QR code drawing uses: SGR colour codes, spaces and the
    full, upper-half and lower-half block characters.
    """
    default_fg, default_bg = THEMES[theme]
    lines = text.rstrip("\n").split("\n")
    width = max(len(SGR.sub("", line)) for line in lines) + 2 * margin
    height = len(lines) + 2 * margin
    image = Image.new("RGB", (width * CELL_W, height * CELL_H), default_bg)
    for row, line in enumerate(lines, start=margin):
        fg, bg, column = default_fg, default_bg, margin
        for token in re.split(r"(\x1b\[[0-9;]*m)", line):
            codes = SGR.fullmatch(token)
            if codes:
                for code in [int(c) for c in codes.group(1).split(";") if c] or [0]:
                    if code == 0:
                        fg, bg = default_fg, default_bg
                    elif code in (30, 37, 90, 97):
                        fg = ANSI_COLOURS[code]
                    elif code in (40, 47, 100, 107):
                        bg = ANSI_COLOURS[code]
                continue
            for char in token:
                # Any other character is text: drawn as background, it cannot help a decoder.
                halves = {"█": (fg, fg), "▀": (fg, bg), "▄": (bg, fg)}
                top, bottom = halves.get(char, (bg, bg))
                x, y = column * CELL_W, row * CELL_H
                image.paste(top, (x, y, x + CELL_W, y + CELL_H // 2))
                image.paste(bottom, (x, y + CELL_H // 2, x + CELL_W, y + CELL_H))
                column += 1
    return image


def decoded(image: Image.Image) -> list[str]:
    # try_invert=False: a phone camera app does not read a light-on-dark code reliably.
    return [code.text for code in zxingcpp.read_barcodes(image, try_invert=False)]


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_terminal_qr_code_decodes_on_a_dark_and_a_light_terminal(theme):
    out = io.StringIO()
    server.banner(URL, [URL, "http://127.0.0.1:5000"], out)
    assert decoded(screenshot(out.getvalue(), theme)) == [URL]


def test_without_its_own_colours_the_code_would_be_inverted_on_a_dark_terminal():
    # Proof that the test above can fail: the same drawing in the terminal's
    # own colours is light-on-dark on a dark terminal and does not decode.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", server.terminal_qr(URL))
    assert decoded(screenshot(plain, "light")) == [URL]
    assert decoded(screenshot(plain, "dark")) == []


def test_the_terminal_qr_code_has_a_quiet_zone_of_four_modules():
    text = re.sub(r"\x1b\[[0-9;]*m", "", server.terminal_qr(URL))
    rows: list[list[bool]] = []
    for line in text.rstrip("\n").split("\n"):
        rows.append([c in "█▀" for c in line])
        rows.append([c in "█▄" for c in line])
    dark_rows = [i for i, row in enumerate(rows) if any(row)]
    dark_columns = [j for j in range(len(rows[0])) if any(row[j] for row in rows)]
    assert dark_rows[0] == 4 and dark_columns[0] == 4
    assert len(rows[0]) - 1 - dark_columns[-1] == 4
    assert len(rows) - 1 - dark_rows[-1] >= 4  # 5 when a light row pads the last line


# --- the command line ---------------------------------------------------------


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"leafpile {version('leafpile')}"


def test_a_busy_port_gets_one_line_with_a_free_port_to_try(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("LEAFPILE_INSTANCE", str(tmp_path))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["--host", "127.0.0.1", "--port", str(port)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"leafpile: port {port} is already in use")
    suggested = int(re.search(r"try: leafpile --port (\d+)$", lines[0]).group(1))
    assert suggested > port
    with socket.socket() as check:  # the suggestion is really free
        check.bind(("127.0.0.1", suggested))


@pytest.mark.parametrize("port", ["0", "65536", "-1", "five"])
def test_an_impossible_port_is_refused_in_one_line(capsys, port):
    with pytest.raises(SystemExit) as exit_:
        main(["--port", port])
    assert exit_.value.code == 2
    assert "use a number from 1 to 65535" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_plain_leafpile_answers_healthz_and_says_where_tables_live(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAFPILE_")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # platformdirs' user data dir on Linux
    env["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        banner = []
        for line in process.stdout:
            banner.append(line)
            if "Stop with Ctrl+C" in line:
                break
        text = "".join(banner)
        expected = tmp_path / "data" / "leafpile" / "leafpile.sqlite3"
        assert f"Tables are kept in {expected}" in text, text
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                    assert (r.status, r.read()) == (200, b"ok\n")
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            assert r.status == 200
        assert expected.is_file()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_banner_shown_in_the_docs_is_the_one_leafpile_prints():
    docs = Path(__file__).resolve().parents[2] / "docs"
    text = (docs / "install.md").read_text()
    shown = re.search(r"```text\n(Leafpile is running\..*?)```", text, re.S)
    out = io.StringIO()
    tables = "/home/ana/.local/share/leafpile/leafpile.sqlite3"
    server.banner(URL, [URL, "http://127.0.0.1:5000"], out, tables=tables)
    printed = [line for line in out.getvalue().splitlines() if "\x1b" not in line]
    expected = [line for line in shown.group(1).splitlines() if line != "  (the QR code)"]
    assert [line for line in printed if line] == [line for line in expected if line]
    # The two lines docs/configuration.md quotes are among them.
    quoted = re.search(r"```text\n(.*?)```", (docs / "configuration.md").read_text(), re.S)
    for line in quoted.group(1).splitlines():
        assert line in printed, line
