"""The club deployment works as written on a stock Debian 12 (issue 23, item 7).

docs/deploying.md's install line, exactly as written, run with Debian's own
``/usr/bin/python3`` (PEP 668 marker and all) in a copy of the checkout with
an empty home folder; then ``deploy/serve`` with no ``PYTHON`` set: it must
find the project's venv, and nginx must answer through gunicorn. Debian's
nginx is needed (CI installs it); SQLite in the instance folder (the
PostgreSQL pass needs no second run of a whole install).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.operations.test_deploy import _nginx
from tests.operations.test_install import debian_python, newcomer  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploying.md"

pytestmark = [pytest.mark.slow, pytest.mark.rebuilds]


def install_line() -> str:
    """The venv line of docs/deploying.md's "Start it", without its comment."""
    section = DOC.read_text(encoding="utf-8").split("## Start it", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)\n```", section, re.S)
    assert block, "docs/deploying.md's Start it has a sh block"
    lines = [line for line in block.group(1).splitlines() if line.startswith("python3 -m venv")]
    assert len(lines) == 1, lines
    return lines[0].split("  #", 1)[0].strip()


def test_the_documented_install_line_is_the_readmes_venv_with_the_postgres_extra():
    assert install_line() == "python3 -m venv .venv && .venv/bin/pip install '.[postgres]'"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_club_deployment_runs_as_written_on_debian(newcomer, tmp_path):  # noqa: F811
    if _nginx() is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing: .ci/run must install Debian's nginx")
        pytest.skip("no nginx here (apt-get install nginx)")
    src, env = newcomer
    env = {**env, "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}
    # The solver's compile is the install's costliest step and is proven by
    # test_install.py's README line (and test_solitaire_compiled.py); what this
    # test proves is the deployment around it, so it skips the C compile
    # (a documented setting: docs/install.md) rather than pay it a third time.
    env["LEAFPILE_PURE_PYTHON"] = "1"
    installed = subprocess.run(
        ["bash", "-c", install_line()],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    port = _free_port()
    serve_env = {
        **env,
        "LEAFPILE_INSTANCE": str(tmp_path / "instance"),
        "LEAFPILE_LISTEN": f"127.0.0.1:{port}",
        "LEAFPILE_WORKERS": "2",
        "LEAFPILE_EXPIRE_DAYS": "0",
    }
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["deploy/serve"],
            cwd=src,
            env=serve_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, log.read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
                    status, page, server = r.status, r.read().decode(), r.headers["Server"]
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.3)
        assert status == 200 and "Leafpile" in page
        assert server == "nginx"  # no versions: server_tokens off, gunicorn's header hidden
        assert "Leafpile: nginx on" in log.read_text()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_deploy_serve_without_the_venv_says_how_to_make_it(tmp_path):
    bare = tmp_path / "checkout"
    (bare / "deploy").mkdir(parents=True)
    for name in ("serve", "nginx.conf", "gunicorn.conf.py"):
        (bare / "deploy" / name).write_bytes((ROOT / "deploy" / name).read_bytes())
    done = subprocess.run(
        ["bash", str(bare / "deploy" / "serve")],
        env={"PATH": "/usr/bin:/bin", "LEAFPILE_INSTANCE": str(tmp_path / "instance")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "python3 -m venv .venv && .venv/bin/pip install '.[postgres]'" in done.stderr
