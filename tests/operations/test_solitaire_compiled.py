"""The solver compiled by mypyc (``setup.py``) answers exactly as its source.

``pip install .`` on a machine with a C compiler installs the solver
compiled from ``companion/rules/solitaire_solver.py``; the rest of the suite
runs on an editable install, which keeps the Python module. So this file
builds the compiled module itself, into a copy of the package, and runs it
in a child process beside the Python module of this one: same deals, same
position budgets, the same answers position for position.

It needs a C compiler and Python's headers; without them (a stock Debian
has neither) it is skipped, and says why. CI installs both (``.ci/run``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from filelock import FileLock

from companion.rules import solitaire, solitaire_solver
from companion.rules.solitaire import Layout

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.rebuilds

# Full deals at a position budget (won ones, and 570, which no budget here
# decides: its beams and best-first searches all take their turns), and
# reduced deals (ranks Ace to 5 of two suits, three piles) where the complete
# searches run out and prove a loss.
FULL = [(seed, 4_000) for seed in range(1, 31)] + [(570, 40_000), (806, 25_000)]
SMALL = Layout(ranks=5, suits=2, pile_sizes=(2, 1, 1), deals=2)
REDUCED = list(range(1, 61))
# Full deals in a small memory cap, without the ladder's beams: the complete
# searches fill the cap, and the beams after it take their turn (AFTER_THE_CAP).
CAPPED = [3, 5, 6]

ANSWERS = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from companion.rules import solitaire, solitaire_solver
    from companion.rules.solitaire import Layout

    def answer(found):
        return [found.result, found.nodes, found.stopped_by,
                [repr(a) for a in found.moves], [repr(a) for a in found.best_line]]

    full, reduced, capped, layout = json.loads(sys.argv[2])
    small = Layout(**layout)
    print(json.dumps({
        "module": solitaire_solver.__file__,
        "full": [answer(solitaire_solver.solve(solitaire.new_game(seed), 600, max_nodes=nodes))
                 for seed, nodes in full],
        "reduced": [answer(solitaire_solver.solve(solitaire.new_game(seed, layout=small), 600))
                    for seed in reduced],
        "capped": [answer(solitaire_solver.solve(solitaire.new_game(seed), 600, beams=(),
                                                 max_positions=20_000))
                   for seed in capped],
    }))
    """
)

# Counts the solver's hand-overs of the interpreter (calls of the bytecode
# no-op of companion/rules/_switch.py) in a search of a fixed number of positions.
HAND_OVERS = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from companion.rules import _switch, solitaire, solitaire_solver
    calls = []
    solitaire_solver._let_other_threads_run = lambda: calls.append(1)
    found = solitaire_solver.solve(solitaire.new_game(570), 600, max_nodes=20_000)
    print(json.dumps({"module": solitaire_solver.__file__, "nodes": found.nodes,
                      "calls": len(calls), "bytecode": hasattr(_switch.let_other_threads_run,
                                                               "__code__")}))
    """
)


# The ladder's widest beam alone on deal 341, until it wins or runs dry.
WIDEST_ON_341 = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from companion.rules import solitaire, solitaire_solver
    game = solitaire.new_game(341)
    beam = solitaire_solver._beam(solitaire_solver.BEAMS[-1], game)
    expanded = 0
    while beam.won_line is None and not beam.done:
        beam.expand()
        expanded += 1
    line = beam.won_line
    print(json.dumps({"module": solitaire_solver.__file__, "expanded": expanded,
                      "won": line is not None and solitaire.replay(game, line).won}))
    """
)


def _can_compile() -> bool:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(compiler) is not None and headers.is_file()


@pytest.fixture(scope="session")
def compiled(tmp_path_factory, worker_id) -> Path:
    """A copy of the package with the solver compiled beside its source.

    Compiled once a run (``setup.py build_ext``, as pip's wheel build runs it)
    into the copy's ``build/`` folder, then put beside the source: the C
    compile is among the costliest steps of the suite, so every test here
    shares it, whichever xdist worker runs it. The first worker to need it
    builds it under a lock in the run's own temporary folder (the parent of
    each worker's); the others wait for it and use it. Tests must not change
    it (the one that builds again works on a copy)."""
    if not _can_compile():
        pytest.skip("no C compiler or no Python headers here: the compiled solver cannot be built")
    # Under xdist each worker's base folder is popen-gwN in one folder of this run.
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    root = shared / "compiled-solver"
    with FileLock(str(shared / "compiled-solver.lock")):
        if not (root / "built").exists():
            shutil.rmtree(root, ignore_errors=True)
            _build_a_compiled_copy(root)
            (root / "built").touch()
    return root


def _build_a_compiled_copy(root: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.so")
    shutil.copytree(ROOT / "companion", root / "companion", ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, root / name)
    built = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert "stays pure Python" not in built.stderr, built.stderr[-3000:]
    (lib,) = (root / "build").glob("lib*")
    for module in lib.rglob("*.so"):  # the solver and mypyc's runtime beside it
        shutil.copy2(module, root / module.relative_to(lib))
    assert list((root / "companion" / "rules").glob("solitaire_solver.*.so"))


def _child(script: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _answer(found: solitaire_solver.Solution) -> list[object]:
    return [
        found.result,
        found.nodes,
        found.stopped_by,
        [repr(a) for a in found.moves],
        [repr(a) for a in found.best_line],
    ]


@pytest.mark.slow
def test_the_compiled_solver_answers_exactly_as_its_python_source(compiled):
    assert solitaire_solver.__file__.endswith(".py")  # this process: the source
    layout = {
        "ranks": SMALL.ranks,
        "suits": SMALL.suits,
        "pile_sizes": list(SMALL.pile_sizes),
        "deals": SMALL.deals,
    }
    theirs = _child(ANSWERS, str(compiled), json.dumps([FULL, REDUCED, CAPPED, layout]))
    assert str(theirs["module"]).endswith(".so")  # the child: the compiled module
    ours_full = [
        _answer(solitaire_solver.solve(solitaire.new_game(seed), 600, max_nodes=nodes))
        for seed, nodes in FULL
    ]
    ours_reduced = [
        _answer(solitaire_solver.solve(solitaire.new_game(seed, layout=SMALL), 600))
        for seed in REDUCED
    ]
    ours_capped = [
        _answer(
            solitaire_solver.solve(solitaire.new_game(seed), 600, beams=(), max_positions=20_000)
        )
        for seed in CAPPED
    ]
    assert theirs["full"] == ours_full
    assert theirs["reduced"] == ours_reduced
    assert theirs["capped"] == ours_capped
    assert {answer[2] for answer in ours_capped} == {"memory"}  # the cap was reached
    # The comparison covers every kind of answer.
    results = {answer[0] for answer in ours_full + ours_reduced}
    assert results == {solitaire_solver.WON, solitaire_solver.LOST, solitaire_solver.UNKNOWN}


@pytest.mark.slow
def test_the_compiled_solver_hands_the_interpreter_over_every_turn(compiled):
    """Compiled code runs no bytecode, so Python never switches threads in
    it by itself: without the solver's own hand-overs a server's loop (the
    solver runs in a thread beside it) waited up to 110 ms at a time. The
    calls go through the module's globals, so the child can count them."""
    found = _child(HAND_OVERS, str(compiled))
    assert str(found["module"]).endswith(".so")
    assert found["bytecode"]  # the no-op is Python, not compiled: see _switch.py
    nodes, calls = int(found["nodes"]), int(found["calls"])  # type: ignore[call-overload]
    assert nodes == 20_000
    # One hand-over per turn: at most 3 x 32 positions apart (the wide beam's
    # turn with two complete searches), and so at least a hundredth as many.
    assert calls >= nodes // 100


@pytest.mark.slow
def test_the_compiled_widest_beam_wins_deal_341_within_684411_positions(compiled):
    """Deal 341, once a candidate for a proof of loss, is won by the ladder's
    widest beam (tests/rules/test_solitaire_solver.py pins that it is the
    last rung). The search expands 684,411 positions: a minute of Python,
    so it runs here, on the compiled solver a ``pip install .`` installs,
    which answers position for position as the source (above)."""
    found = _child(WIDEST_ON_341, str(compiled))
    assert str(found["module"]).endswith(".so")
    assert found["won"] and found["expanded"] == 684_411


def _built_solvers(root: Path) -> list[str]:
    built = (root / "build").glob("lib*/companion/rules/solitaire_solver*.so")
    return sorted(path.name for path in built)


@pytest.mark.slow
def test_an_install_that_cannot_compile_or_is_told_not_to_keeps_the_python_solver(
    compiled, tmp_path
):
    """setup.py's promises: a build that cannot compile still succeeds,
    says why, and leaves no compiled solver behind; nor does one asked to
    stay pure, even where an earlier build left one in the build folder."""
    compiled = shutil.copytree(compiled, tmp_path / "copy", symlinks=True)  # the shared one stays

    def build(**env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "setup.py", "build_ext"],
            cwd=compiled,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=900,
        )

    # The fixture's build left the module and mypyc's runtime in build/:
    # kept aside, they stand in for "an earlier build" twice without
    # compiling again.
    (lib,) = (compiled / "build").glob("lib*")
    earlier = {path: path.read_bytes() for path in lib.rglob("*.so")}
    assert len(_built_solvers(compiled)) == 2

    asked = build(LEAFPILE_PURE_PYTHON="1")
    assert asked.returncode == 0 and _built_solvers(compiled) == []

    for path, data in earlier.items():
        path.write_bytes(data)
    assert len(_built_solvers(compiled)) == 2
    unable = build(CC="/bin/false")  # a machine whose compiler fails
    assert unable.returncode == 0, unable.stderr[-3000:]
    assert "the solitaire solver stays pure Python" in unable.stderr
    assert _built_solvers(compiled) == []
