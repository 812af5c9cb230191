"""mypy, strict, over what ``pyproject.toml`` names: all of the app and the print kit.

The same check a developer runs as ``mypy`` (docs/developing.md), in the suite
so that a type error fails the tests rather than waiting for someone to run it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_checks_the_app_and_the_print_kit_strictly():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert {"companion", "printables"} <= set(config["files"])


def test_mypy_strict_finds_nothing(monkeypatch):
    monkeypatch.chdir(ROOT)
    out, err, status = api.run([])
    assert status == 0, out + err
    assert out.startswith("Success"), out
