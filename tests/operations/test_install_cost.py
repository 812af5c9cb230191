"""The install stays light (setup.py, docs/install.md#what-the-install-costs):
mypy is a build requirement only where a C compiler and Python's headers
are, and pip's steps before the wheel (build requirements, metadata) turn
nothing into C. The compile itself is pinned by test_solitaire_compiled.py,
and the README's line by test_install.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ASK = "import json, setuptools.build_meta as b;print(json.dumps(b.get_requires_for_build_wheel()))"


@pytest.fixture
def checkout(tmp_path) -> Path:
    """What setup.py reads: itself, pyproject.toml, the README and the packages."""
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, tmp_path / name)
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.png", "*.mp4", "*.webm", "*.ttf")
    for folder in ("companion", "printables", "templates", "docs"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=skip)
    return tmp_path


def _build_requirements(checkout: Path, **env: str) -> list[str]:
    asked = subprocess.run(
        [sys.executable, "-c", ASK], cwd=checkout, env={**os.environ, **env},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr[-2000:]
    return json.loads(asked.stdout.splitlines()[-1])


def test_mypy_is_a_build_requirement_only_where_the_solver_can_be_compiled(checkout):
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        pytest.skip("no Python headers here: nothing could be compiled with any compiler")
    mypy = [r for r in _build_requirements(checkout, CC="/bin/true") if r.startswith("mypy")]
    assert mypy == ["mypy==2.4.1"]  # the test extra's: the same checks as the install's
    assert not any(r.startswith("mypy") for r in _build_requirements(checkout, CC="no-such-cc"))
    asked_pure = _build_requirements(checkout, CC="/bin/true", LEAFPILE_PURE_PYTHON="1")
    assert not any(r.startswith("mypy") for r in asked_pure)


def test_the_metadata_step_turns_nothing_into_c(checkout):
    done = subprocess.run(
        [sys.executable, "setup.py", "egg_info"], cwd=checkout,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "writing manifest file" in done.stdout  # it ran
    assert not list(checkout.glob("build/**/*.c"))
    assert "Unsupported default attribute value" not in done.stdout + done.stderr  # mypyc's
