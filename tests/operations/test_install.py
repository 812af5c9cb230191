"""The README's two lines, run as a newcomer on Debian 12 runs them.

Debian's own Python (``/usr/bin/python3``) is the real thing, not a stand-in:
venv-less, with the ``EXTERNALLY-MANAGED`` marker of PEP 668 next to its
standard library. The test copies the checkout to an empty folder, gives it an
empty home folder and a PATH of the system's programs only, checks that the
old instruction (a plain ``pip install .``) is refused there, then runs the
README's lines exactly as written (plus a port, and one test file) and checks
that the app answers. pip's download cache is the machine's own, as it would
be for someone installing a second time; docs/install.md has the first-time
figures.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.docs.test_readme import readme_commands

ROOT = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = Path("/usr/bin/python3")

pytestmark = [pytest.mark.slow, pytest.mark.rebuilds]


def _debian_path(name: str) -> Path:
    """One of Debian's Python's sysconfig paths ("stdlib", "include")."""
    found = subprocess.run(
        [str(DEBIAN_PYTHON), "-c", f"import sysconfig; print(sysconfig.get_path({name!r}))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(found.stdout.strip())


def _marker() -> Path | None:
    if not DEBIAN_PYTHON.is_file():
        return None
    marker = _debian_path("stdlib") / "EXTERNALLY-MANAGED"
    return marker if marker.is_file() else None


@pytest.fixture(scope="module")
def debian_python() -> Path:
    if _marker() is None:
        if os.environ.get("CI"):
            pytest.fail("CI runs on Debian: /usr/bin/python3 with EXTERNALLY-MANAGED must be here")
        pytest.skip("needs Debian's /usr/bin/python3 with its EXTERNALLY-MANAGED marker")
    return DEBIAN_PYTHON


SOLVER_FILE = "from companion.rules import solitaire_solver; print(solitaire_solver.__file__)"


def _debian_can_compile(env: dict[str, str]) -> bool:
    """Whether pip can compile the solver here: gcc, and Debian's Python headers."""
    found = shutil.which("gcc", path=env["PATH"]) is not None
    return found and (_debian_path("include") / "Python.h").is_file()


def _copy_checkout(target: Path) -> None:
    """The checkout's files as a clone would have them (no .venv, no caches)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory, debian_python):
    """(checkout copy, environment) of a fresh account with only the system's programs."""
    base = tmp_path_factory.mktemp("newcomer")
    src, home = base / "leafpile", base / "home"
    src.mkdir()
    home.mkdir()
    _copy_checkout(src)
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR")
        or str(Path.home() / ".cache" / "pip"),  # the machine's cache: see the docstring
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PYTHONUNBUFFERED": "1",
    }
    for name, value in os.environ.items():  # the machine's pip settings (index, certificates)
        if name.startswith("PIP_") and name not in env:
            env[name] = value
    return src, env


def test_a_plain_pip_install_is_refused_by_debians_python(newcomer, debian_python):
    src, env = newcomer
    pip = subprocess.run(
        [str(debian_python), "-m", "pip", "--version"], env=env, capture_output=True
    )
    if pip.returncode == 0:
        command = [str(debian_python), "-m", "pip", "install", "."]
    else:  # no python3-pip: the pip wheel that python3-venv brings runs as well
        wheel = next(Path("/usr/share/python-wheels").glob("pip-*.whl"))
        command = [str(debian_python), str(wheel / "pip"), "install", "."]
    refused = subprocess.run(command, cwd=src, env=env, capture_output=True, text=True)
    assert refused.returncode != 0
    assert "externally-managed-environment" in refused.stdout + refused.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


def test_the_readme_run_line_installs_and_serves_the_start_page(newcomer):
    src, env = newcomer
    run_line = readme_commands()[0]
    assert run_line.endswith("leafpile")
    port = _free_port()
    process = subprocess.Popen(
        ["bash", "-c", f"{run_line} --host 127.0.0.1 --port {port}"],
        cwd=src,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + 540  # pip's install on a busy machine; usually < 60 s
        while True:
            assert process.poll() is None, "".join(output)
            try:
                status, page = _get(f"http://127.0.0.1:{port}/")
                break
            except OSError:
                assert time.monotonic() < deadline, "".join(output)
                time.sleep(0.5)
        assert status == 200 and "Leafpile" in page
        assert _get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")
        # Help comes from the installed package (no checkout, no internet).
        status, help_page = _get(f"http://127.0.0.1:{port}/help/pairs")
        assert status == 200 and "<strong>PR7 A tie no card can break.</strong>" in help_page
        status, rulings = _get(f"http://127.0.0.1:{port}/help/rulings/pairs")
        assert status == 200 and "<strong>P1 Losing score.</strong>" in rulings
        database = Path(env["HOME"]) / ".local" / "share" / "leafpile" / "leafpile.sqlite3"
        while "Stop with Ctrl+C" not in "".join(output):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert f"Tables are kept in {database}" in "".join(output)
        assert database.is_file()
        assert not list((src / ".venv").rglob("*.sqlite3")), "tables must not live in the venv"
        # The solver is compiled (setup.py) where Debian's Python can build C,
        # and is the Python module elsewhere: either way the install worked.
        expected = ".so" if _debian_can_compile(env) else ".py"
        installed = subprocess.run(
            [str(src / ".venv" / "bin" / "python"), "-c", SOLVER_FILE],
            cwd=env["HOME"],  # not the checkout, whose source would come first
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert installed.endswith(expected), installed
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


@pytest.mark.skipif(
    bool(os.environ.get("CI")),
    reason="CI's own run is this line, run as written on a fresh clone (.ci/run): "
    "it installs the test tools, runs the whole suite, then builds the docs with them",
)
def test_the_readme_test_line_installs_the_test_tools_and_runs_pytest(newcomer):
    src, env = newcomer
    test_line = readme_commands()[1]
    assert test_line.endswith("pytest -n auto")
    # The whole suite would run this test again: one small file shows the tools work.
    done = subprocess.run(
        ["bash", "-c", f"{test_line} -p no:cacheprovider tests/rules/test_cards.py"],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "[100%]" in done.stdout and "failed" not in done.stdout
    assert (src / ".venv" / "bin" / "mkdocs").is_file()  # the test extra came along
