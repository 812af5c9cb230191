"""The production setup is supervised (issue 42, item 1).

The systemd units restart what ends and stop the whole control group; the
quick start, deploy/serve, clears an orphaned nginx worker that still holds
its port from an earlier run, and nginx puts /backup and the records pages
in its costly location with a per-address cap on everything. The restarts
under fire are tests/operations/test_chaos.py's.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.operations.test_deploy import _free_port, _get, _nginx
from tests.operations.test_deploy import deployed as deployed  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
WAIT = 60.0  # a bound for a broken setup, never a timing


def _settings(unit: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


@pytest.mark.parametrize("name", ["leafpile-app@.service", "leafpile-nginx.service"])
def test_the_units_restart_whatever_ended_them_and_stop_the_whole_group(name: str):
    unit = _settings(UNITS / name)
    assert unit["Restart"] == ["always"]
    assert unit["KillMode"] == ["control-group"]
    assert unit["StartLimitIntervalSec"] == ["0"]  # never gives up restarting
    assert unit["User"] == ["leafpile"]
    assert unit["EnvironmentFile"] == ["/etc/leafpile/leafpile.env"]


def test_each_app_unit_is_one_gunicorn_with_one_worker_on_its_own_socket():
    unit = _settings(UNITS / "leafpile-app@.service")
    assert unit["Environment"] == ["LEAFPILE_SOCKET=/var/lib/leafpile/run/app-%i.sock"]
    (start,) = unit["ExecStart"]
    assert "-c /opt/leafpile/deploy/gunicorn.conf.py --workers 1 companion.wsgi:app" in start
    assert "/opt/leafpile/.venv/bin/python -m companion.startup" in unit["ExecStartPre"]
    env = _settings(UNITS / "leafpile.env")
    assert env["LEAFPILE_LISTEN"] == ["127.0.0.1:8000"]  # loopback, behind the TLS proxy
    assert env["LEAFPILE_PROXY_HOPS"] == ["2"] and env["LEAFPILE_SECURE_COOKIES"] == ["1"]


def test_systemd_accepts_the_units():
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI"):
            pytest.fail("systemd-analyze is missing: .ci/run installs Debian's systemd")
        pytest.skip("no systemd-analyze here (apt-get install systemd)")
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"leafpile-units-{os.getpid()}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    try:
        for unit in UNITS.iterdir():
            if unit.suffix in (".service", ".timer"):
                # The units name the install's folder; here it is this checkout.
                text = unit.read_text().replace("/opt/leafpile", str(ROOT))
                (folder / unit.name.replace("@.", "@0.")).write_text(text)
        checked = subprocess.run(
            [analyze, "verify", "--man=no", *sorted(str(p) for p in folder.iterdir())],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    # A unknown key or a bad value is only a warning to systemd: none allowed here.
    assert checked.returncode == 0 and not checked.stderr.strip(), checked.stderr


def _render(tmp_path: Path, port: int) -> str:
    env = {
        **os.environ,
        "LEAFPILE_INSTANCE": str(tmp_path / "instance"),
        "LEAFPILE_LISTEN": f"127.0.0.1:{port}",
        "LEAFPILE_WORKERS": "2",
        "PYTHON": sys.executable,
    }
    done = subprocess.run(
        ["bash", str(ROOT / "deploy" / "serve"), "--nginx-conf"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return (tmp_path / "instance" / "run" / "nginx.conf").read_text()


def test_backup_and_the_records_pages_are_in_nginxs_costly_location(tmp_path: Path):
    if _nginx() is None:
        pytest.skip("no nginx here (apt-get install nginx)")
    conf = _render(tmp_path, _free_port())
    found = re.search(r'location ~ "([^"]+)" \{([^}]*costly_per_address[^}]*)\}', conf)
    assert found is not None
    costly = re.compile(found[1])  # nginx's PCRE reads it as Python's re does
    for path in ("/backup", "/records", "/records/player/ab", "/records.csv",
                 "/records/plays.csv", "/achievements", "/import", "/print/deck.pdf",
                 "/t/Ab_-9/solitaire/hint"):  # fmt: skip
        assert costly.match(path), path
    for path in ("/", "/healthz", "/t/Ab_-9/act", "/t/Ab_-9/stream", "/recordsX", "/backups"):
        assert not costly.match(path), path
    assert "limit_conn costly_per_address 2;" in found[2]
    assert "limit_req zone=costly_rate" in found[2]
    # Its refusals are sent slowly: a loop on them asks about once a second.
    for refusal in ("@too_many", "@busy"):
        held = re.search(r"location " + refusal + r" \{([^}]*)\}", conf)
        assert held is not None and "limit_rate 256;" in held[1], refusal
    # Every address's share of the whole server, streams included.
    server = conf.split("    server {", 1)[1]
    assert "limit_conn per_address 300;" in server.split("location", 1)[0]


@pytest.mark.slow
def test_deploy_serve_stops_an_orphaned_nginx_worker_that_holds_its_port(tmp_path: Path):
    """An nginx whose master was killed (here: started by hand, as a crashed
    earlier run leaves it) keeps a worker listening on the port; deploy/serve
    must stop it and serve, instead of failing with 'Address already in use'."""
    if _nginx() is None:
        pytest.skip("no nginx here (apt-get install nginx)")
    port = _free_port()
    _render(tmp_path / "old", port)
    run = tmp_path / "old" / "instance" / "run"
    old = subprocess.Popen(
        [_nginx(), "-p", str(run), "-c", str(run / "nginx.conf"), "-e", "stderr",
         "-g", "daemon off;"],
        stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    orphans: list[int] = []
    served = None
    try:
        deadline = time.monotonic() + WAIT
        while not orphans:
            assert time.monotonic() < deadline, "the old nginx never started its worker"
            orphans = [int(p) for p in _children_of(old.pid)]
            time.sleep(0.1)
        os.kill(old.pid, signal.SIGKILL)
        old.wait(timeout=WAIT)
        assert all(Path(f"/proc/{pid}").exists() for pid in orphans)  # still there

        log = tmp_path / "serve.log"
        env = {
            **os.environ,
            "LEAFPILE_INSTANCE": str(tmp_path / "instance"),
            "LEAFPILE_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
            "LEAFPILE_LISTEN": f"127.0.0.1:{port}",
            "LEAFPILE_WORKERS": "1",
            "LEAFPILE_EXPIRE_DAYS": "0",
            "PYTHON": sys.executable,
        }
        with open(log, "wb") as out:
            served = subprocess.Popen(
                ["bash", str(ROOT / "deploy" / "serve")], cwd=ROOT, env=env, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + WAIT
        while True:
            assert served.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            try:
                answer = _get(port, "/healthz")
                if answer.status == 200 and answer.getheader("Server") == "nginx":
                    # The old worker answers 502 (no app behind it): 200 is the new one.
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert "stopping an orphaned nginx worker" in log.read_text()
        assert not any(_alive(pid) for pid in orphans)
    finally:
        for pid in orphans:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if served is not None and served.poll() is None:
            os.killpg(served.pid, signal.SIGTERM)
            served.wait(timeout=WAIT)


def _children_of(pid: int) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if entry.name.isdecimal() and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(entry.name)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
def test_nginx_caps_one_addresss_streams_and_serves_the_others(deployed: int, tmp_path: Path):
    """300 streams from one address are held; the 301st is refused by nginx
    (503, said plainly) while another address is served as usual."""
    import socket

    from companion.tables.store import Store

    url = os.environ.get("LEAFPILE_TEST_DATABASE_URL") or f"sqlite:///{tmp_path / 'deploy.sqlite3'}"
    store = Store(url)
    token = store.create_table("scorepad", ["Ana", "Ben"], {"lowest_wins": False}).token
    store.engine.dispose()
    request = (
        f"GET /t/{token}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()

    def stream() -> tuple[socket.socket, bytes]:
        s = socket.create_connection(("127.0.0.1", deployed), timeout=WAIT,
                                     source_address=("127.0.0.9", 0))  # fmt: skip
        s.sendall(request)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
        return s, head

    held = []
    try:
        for _ in range(300):
            s, head = stream()
            held.append(s)
            assert head.startswith(b"HTTP/1.1 200"), head
        s, head = stream()
        held.append(s)
        assert head.startswith(b"HTTP/1.1 503"), head
        said = b"Too many requests from this address at once"
        assert said in (head if said in head else head + s.recv(4096))
        other = socket.create_connection(("127.0.0.1", deployed), timeout=WAIT,
                                         source_address=("127.0.0.2", 0))  # fmt: skip
        other.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert other.recv(4096).startswith(b"HTTP/1.1 200")
        other.close()
    finally:
        for s in held:
            s.close()


#: The scenario below, in a process of its own: the supervisor takes every
#: child of its process for its own and kills (and reaps) whatever it did not
#: start, so run inside a test worker it killed that worker's Playwright
#: driver, and every browser test after it on that worker failed.
STOPPING_AN_ENDED_SERVICE = """
import importlib.util, os, sys, time
spec = importlib.util.spec_from_file_location("supervise", sys.argv[1])
supervise = importlib.util.module_from_spec(spec)
sys.modules["supervise"] = supervise  # dataclasses look their module up by name
spec.loader.exec_module(supervise)
service = supervise.Service("nginx", ["true"], dict(os.environ))
supervisor = supervise.Supervisor([service], None, dict(os.environ))
supervisor.start(service)
assert service.process is not None
service.process.wait()  # reaped by Popen, as send_signal's poll does
supervisor.stopping = True
started = time.monotonic()
assert supervisor._stop_all() == 0
assert service.process is None
print(time.monotonic() - started, supervise.STOP_GRACE_SECONDS)
"""


def test_stopping_counts_a_service_that_had_already_ended_as_stopped():
    """A SIGTERM to the whole process group (systemd's stop, Ctrl-C) reaches
    nginx before the supervisor signals it; Popen.send_signal then reaps the
    dead nginx itself (it polls first), so the supervisor's waitpid never saw
    it and every stop waited out the whole 12 + 5 s grace."""
    out = subprocess.run(
        [sys.executable, "-c", STOPPING_AN_ENDED_SERVICE, str(ROOT / "deploy" / "supervise.py")],
        capture_output=True, text=True, timeout=WAIT, check=True,
    )  # fmt: skip
    took, grace = map(float, out.stdout.split())
    assert took < grace
