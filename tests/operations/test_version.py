"""The version people see is pyproject.toml's, everywhere it is shown:
``leafpile --version``, the start-up lines, every page's footer, and the
changelog has a dated section for it (docs/releasing.md)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

from companion import server
from companion.version import leafpile_version

ROOT = Path(__file__).resolve().parents[2]
RELEASED = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_installed_version_is_the_one_in_pyproject():
    assert re.fullmatch(r"\d+\.\d+\.\d+", RELEASED)
    assert version("leafpile") == RELEASED, (
        "the installed metadata is older than pyproject.toml: run the install line again"
    )
    assert leafpile_version() == RELEASED


def test_leafpile_version_prints_it():
    script = Path(sys.executable).with_name("leafpile")
    answer = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert answer.stdout == f"leafpile {RELEASED}\n"


def test_the_start_up_lines_say_it():
    out = io.StringIO()
    server.banner(None, ["http://127.0.0.1:5000"], out, tables="/tmp/leafpile.sqlite3")
    assert f"  Leafpile version {RELEASED}\n" in out.getvalue()


def test_every_kind_of_page_has_it_in_its_footer(client, make_table):
    table = make_table("scorepad", ["Ana", "Ben"])
    for path in ("/", "/help/", f"/t/{table.token}", "/no-such-page"):
        html = client.get(path).get_data(as_text=True)
        footer = re.findall(r"<footer class=\"site-footer[^\"]*\">(.*?)</footer>", html)
        assert footer == [f"Leafpile {RELEASED}"], path


def test_the_changelog_has_a_dated_section_under_the_unreleased_one():
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Unreleased"
    assert re.fullmatch(rf"{re.escape(RELEASED)} — \d{{4}}-\d\d-\d\d", headings[1])
    assert headings[1] in {f"{v} — {d}" for v, d in re.findall(r"\| (\S+) \| (\S+) \|", _table())}


def _table() -> str:
    """The releases table of docs/releasing.md."""
    return (ROOT / "docs" / "releasing.md").read_text().split("## Releases", 1)[1]
