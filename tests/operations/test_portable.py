"""Any laptop (issue 23, item 6): no POSIX-only module at import time.

A game-night host's laptop is often Windows. There is no Windows machine in
CI, so this test does the next best thing: in a fresh interpreter it makes
the POSIX-only modules impossible to import (``fcntl``, ``termios``, ``pwd``,
``grp``, ``resource``, ``tty``, ``pty``) and imports every module of the app
and the print kit; then it removes ``os.getuid`` and friends, as on Windows,
builds the app, serves a few pages, makes and plays a table and holds a job
slot. docs/install.md says what was tried.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCKED = ("fcntl", "termios", "pwd", "grp", "resource", "tty", "pty")

SCRIPT = textwrap.dedent(
    """
    import importlib, importlib.abc, json, os, pkgutil, sys, warnings

    BLOCKED = set(%(blocked)r)

    class NoPosix(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (as on Windows)", name=name)
            return None

    for loaded in list(sys.modules):
        if loaded.split(".")[0] in BLOCKED:
            del sys.modules[loaded]
    sys.meta_path.insert(0, NoPosix())
    warnings.simplefilter("ignore")  # filelock says it falls back to a soft lock here

    import companion, printables

    modules, failed = [], []
    for package in (companion, printables):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                importlib.import_module(info.name)
            except Exception as exc:
                failed.append(f"{info.name}: {exc!r}")
            else:
                modules.append(info.name)

    # Then, as on Windows, no user ids: what the app does at run time must not ask.
    # (Only now: a library such as platformdirs picks its POSIX backend on this
    # machine, which asks at import; on Windows it picks its Windows one.)
    for name in ("getuid", "geteuid", "getgid", "getegid", "fork", "getloadavg"):
        if hasattr(os, name):
            delattr(os, name)

    from companion import create_app
    from companion.web import costly

    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "portable",
        "INSTANCE_PATH": os.environ["LEAFPILE_INSTANCE"],
        "WTF_CSRF_ENABLED": False,
    })
    client = app.test_client()
    pages = {url: client.get(url).status_code for url in ("/", "/join", "/records", "/print/")}
    made = client.post("/new/scorepad", data={"player1": "Ana", "player2": "Ben"})
    token = made.headers["Location"].rsplit("/", 1)[-1]
    entered = client.post(
        f"/t/{token}/act",
        data={"action": "add-round", "version": "0", "score0": "3", "score1": "4"},
        headers={"HX-Request": "true"},
    ).status_code
    with app.test_request_context():
        with costly.job_slot():
            slot = "held"
    blocked_loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    print(json.dumps({
        "modules": modules, "failed": failed, "pages": pages, "made": made.status_code,
        "entered": entered, "slot": slot, "blocked_loaded": blocked_loaded,
    }))
    """
)


def test_every_module_imports_and_the_app_serves_without_posix_only_modules(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAFPILE_")}
    env["LEAFPILE_INSTANCE"] = str(tmp_path / "instance")  # companion.wsgi builds an app
    env["LEAFPILE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'portable.sqlite3'}"
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT % {"blocked": BLOCKED}],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["failed"] == []
    assert "companion.web.costly" in report["modules"]
    assert "companion.server" in report["modules"] and "companion.cli" in report["modules"]
    assert len(report["modules"]) > 40
    assert report["pages"] == {"/": 200, "/join": 200, "/records": 200, "/print/": 200}
    assert report["made"] == 303 and report["entered"] == 200
    assert report["slot"] == "held"
    assert report["blocked_loaded"] == []


def test_no_module_names_a_posix_only_module_at_its_top():
    """A quicker, static guard: no top-level ``import fcntl`` (and friends) anywhere."""
    offenders = []
    for folder in ("companion", "printables"):
        for path in (ROOT / folder).rglob("*.py"):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                words = line.split()
                if line[:1].isspace() or len(words) < 2 or words[0] not in ("import", "from"):
                    continue
                if words[1].split(".")[0].rstrip(",") in BLOCKED:
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line}")
    assert offenders == []
