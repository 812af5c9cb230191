"""A job's seconds of CPU leave a gevent server's other phones served.

The servers are gevent processes (one event loop serves every phone); a
solver hint computed inside the loop froze every other phone of the process
for its whole length. These run in a child process, because gevent's
monkey-patching must never reach pytest's own process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A greenlet ticks every 5 ms while a fixed amount of pure CPU runs: in the
# loop's own thread it cannot tick until the work ends; off the loop it ticks
# throughout (the loop takes the interpreter back every switch interval).
CHILD = textwrap.dedent(
    """
    import json, sys
    from gevent import monkey
    monkey.patch_all()
    import gevent
    sys.path.insert(0, {root!r})
    from companion.cooperative import off_the_loop

    def busy():
        total = 0
        for n in range(6_000_000):
            total += n * n
        return total

    def ticker(ticks):
        while True:
            gevent.sleep(0.005)
            ticks.append(1)

    found = {{}}
    for name, run in (("in_loop", lambda: busy()), ("off_loop", lambda: off_the_loop(busy))):
        ticks = []
        clock = gevent.spawn(ticker, ticks)
        gevent.sleep(0.02)
        before = len(ticks)
        value = run()
        found[name] = len(ticks) - before
        clock.kill()
        assert value == busy()
    print(json.dumps(found))
    """
)


def test_work_off_the_loop_leaves_the_loop_serving() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    ticks = json.loads(out.stdout.strip().splitlines()[-1])
    assert ticks["in_loop"] <= 1  # the loop was frozen: the old way
    assert ticks["off_loop"] >= 5  # the loop went on while the work ran


def test_off_the_loop_outside_gevent_runs_here() -> None:
    from companion.cooperative import off_the_loop

    assert off_the_loop(lambda a, b=0: a + b, 2, b=3) == 5


def test_off_the_loop_raises_the_works_error_in_a_gevent_server() -> None:
    child = textwrap.dedent(
        f"""
        from gevent import monkey
        monkey.patch_all()
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from companion.cooperative import off_the_loop
        def fail():
            raise ValueError("bad deal")
        try:
            off_the_loop(fail)
        except ValueError as error:
            print("raised", error)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=60, check=True
    )
    assert "raised bad deal" in out.stdout


def test_a_serving_process_collects_cycles_less_often_and_never_walks_its_start(tmp_path):
    """Both servers tune the collector once the app is built (a board fetch
    made thousands of objects, so the default ran collections several times
    a request): leafpile in serve(), each gunicorn worker in post_worker_init."""
    code = (
        "import gc; from companion.cooperative import tune_collector_for_serving, "
        "SERVER_GC_THRESHOLDS; tune_collector_for_serving(); "
        "assert gc.get_threshold() == SERVER_GC_THRESHOLDS, gc.get_threshold(); "
        "assert gc.get_freeze_count() > 1000; print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr
    conf = (Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py").read_text()
    assert "def post_worker_init" in conf and "tune_collector_for_serving()" in conf
    server = (Path(__file__).resolve().parents[2] / "companion" / "server.py").read_text()
    assert "tune_collector_for_serving()" in server


def test_a_server_process_starts_without_the_print_kit():
    """reportlab, pypdfium2 and Pillow are a fifth of a process's memory; a
    process that never prints never imports them (the print routes do)."""
    code = (
        "import sys, companion.wsgi; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'reportlab', 'pypdfium2', 'PIL', 'printables', 'qrcode'}))"
    )
    env = {**os.environ, "LEAFPILE_INSTANCE": str(Path(tempfile.mkdtemp()) / "instance")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
