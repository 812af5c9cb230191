"""The winnability benchmark (benchmarks/solitaire.py): a pool of processes
writes the same lines as one process, and a run resumes where it stopped."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "solitaire.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("solitaire_benchmark", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the pool's workers import it by name
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def command(bench, *args: str) -> int:
    """What ``python benchmarks/solitaire.py ARGS`` returns."""
    old, sys.argv = sys.argv, ["solitaire.py", *args]
    try:
        return int(bench.main())
    finally:
        sys.argv = old


def run(bench, out: Path, *args: str) -> dict[int, dict[str, object]]:
    assert command(bench, "run", "--out", str(out), "--budget", "600", *args) == 0
    return bench.read(out)


def verdicts(rows: dict[int, dict[str, object]]) -> dict[int, tuple[object, ...]]:
    return {seed: (r["result"], r["nodes"], r["moves"]) for seed, r in rows.items()}


def test_a_pool_of_jobs_decides_each_deal_as_one_process_does(bench, tmp_path):
    one = run(bench, tmp_path / "one.jsonl", "--deals", "6", "--max-nodes", "300")
    two = run(bench, tmp_path / "two.jsonl", "--deals", "6", "--max-nodes", "300", "--jobs", "2")
    assert sorted(two) == list(range(1, 7))
    assert verdicts(two) == verdicts(one)
    assert all(row["max_nodes"] == 300 for row in two.values())


def test_a_run_skips_the_deals_already_in_the_file(bench, tmp_path):
    out = tmp_path / "deals.jsonl"
    run(bench, out, "--deals", "3", "--max-nodes", "300")
    first = out.read_text().splitlines()
    rows = run(bench, out, "--deals", "5", "--max-nodes", "300", "--jobs", "2")
    lines = out.read_text().splitlines()
    assert lines[:3] == first  # kept as written, not decided again
    assert sorted(json.loads(line)["seed"] for line in lines) == [1, 2, 3, 4, 5]
    assert sorted(rows) == [1, 2, 3, 4, 5]


def test_each_line_records_the_cpu_time_and_the_report_sums_it_up(bench, tmp_path, capsys):
    """Under load the wall clock says more about the machine than the deal:
    each line keeps the CPU time too, and the report gives its median."""
    out = tmp_path / "deals.jsonl"
    rows = run(bench, out, "--deals", "2", "--max-nodes", "300")
    assert all(0 < float(row["cpu"]) <= float(row["seconds"]) + 0.05 for row in rows.values())
    assert command(bench, "report", "--out", str(out)) == 0
    assert "CPU time a deal (2 deals): median" in capsys.readouterr().out


def test_each_line_records_the_machines_speed_and_the_report_gives_it(bench, tmp_path, capsys):
    """CPU seconds differ from machine to machine: each line records how
    many positions a second the machine searched (one fixed search, once a
    process), and the report's header gives the median."""
    out = tmp_path / "deals.jsonl"
    rows = run(bench, out, "--deals", "2", "--max-nodes", "300")
    speeds = {row["speed"] for row in rows.values()}
    assert speeds == {bench.machine_speed()}  # measured once in this process
    assert isinstance(bench.machine_speed(), int) and bench.machine_speed() > 1000
    assert command(bench, "report", "--out", str(out)) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert f"machine speed: median {bench.machine_speed():,} positions a second of CPU" in header
    assert "2 deals measured" in header


def test_a_cpu_budget_runs_the_search_on_the_process_clock(bench, tmp_path, monkeypatch):
    """--cpu-budget hands the solver time.process_time as its clock (so a
    busy machine does not shorten a deal's search), records it in the line,
    and gives the module back its own clock afterwards."""
    from companion.rules import solitaire_solver

    seen: list[object] = []
    real_solve = solitaire_solver.solve

    def spy(*args, **kwargs):
        if kwargs.get("max_nodes") == 300:  # a deal's search, not the speed's
            seen.append(solitaire_solver.clock)
        return real_solve(*args, **kwargs)

    monkeypatch.setattr(solitaire_solver, "solve", spy)
    before = solitaire_solver.clock
    rows = run(bench, tmp_path / "cpu.jsonl", "--deals", "2", "--max-nodes", "300", "--cpu-budget")
    assert seen == [bench.time.process_time] * 2
    assert solitaire_solver.clock is before
    assert all(row["budget_clock"] == "cpu" for row in rows.values())
    wall = run(bench, tmp_path / "wall.jsonl", "--deals", "1", "--max-nodes", "300")
    assert seen[-1] is before and wall[1]["budget_clock"] == "wall"
    assert verdicts(wall) == {1: verdicts(rows)[1]}  # same search, only the clock differs


def test_giving_up_early_searches_as_the_budget_says_and_stops_at_its_time(bench, tmp_path, capsys):
    """--give-up-after 0.3 with a 60 s budget: the deals decided quickly are
    decided exactly as in the full run (the same positions), and a deal that
    needs more is left unknown, by time, after some 0.3 s of CPU."""
    quick = ["--deals", "3", "--budget", "60", "--cpu-budget"]
    full = run(bench, tmp_path / "full.jsonl", *quick)
    cut = run(bench, tmp_path / "cut.jsonl", *quick, "--give-up-after", "0.3")
    assert verdicts(cut) == verdicts(full)
    assert all(row["give_up_after"] == 0.3 for row in cut.values())
    assert command(bench, "report", "--out", str(tmp_path / "cut.jsonl")) == 0
    assert "budget 60 s (cpu) a deal given up after 0.3 s of CPU" in capsys.readouterr().out
    hard = run(
        bench, tmp_path / "hard.jsonl", "--first-seed", "806", "--deals", "1",
        "--budget", "60", "--cpu-budget", "--give-up-after", "0.3",
    )  # fmt: skip
    assert (hard[806]["result"], hard[806]["stopped_by"]) == ("unknown", "time")
    assert 0.3 <= float(hard[806]["cpu"]) < 2


def test_giving_up_early_needs_the_cpu_clock(bench, tmp_path, capsys):
    out = str(tmp_path / "x.jsonl")
    assert command(bench, "run", "--out", out, "--give-up-after", "2") == 2
    assert "add --cpu-budget" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_lines_writes_the_winning_lines_of_the_hardest_won_deals_and_resumes(
    bench, tmp_path, capsys
):
    from companion.rules import solitaire, solitaire_deals

    out, lines = tmp_path / "deals.jsonl", tmp_path / "lines.txt"
    rows = [(1, "won", 30_000), (2, "won", 100), (3, "unknown", 50_000), (4, "won", 20_001)]
    out.write_text(
        "".join(json.dumps({"seed": s, "result": r, "nodes": n}) + "\n" for s, r, n in rows)
    )
    lines.write_text("4: 16\n")  # already there: kept as it is, not solved again
    # A deal another search won ships with the line it found, unsolved here.
    shipped = solitaire_deals.parse_lines(
        (ROOT / "companion" / "rules" / solitaire_deals.LINES_FILE).read_text()
    )
    known = tmp_path / "known.jsonl"
    win = {"seed": 9, "result": "won", "search": "beam 10240, gap 0.5", "line": shipped[9]}
    known.write_text(json.dumps(win) + "\n")
    asked = ["--out", str(out), "--lines", str(lines), "--known", str(known), "--budget", "30"]
    assert command(bench, "lines", *asked) == 0
    assert "3 lines of 3 deals written" in capsys.readouterr().out
    text = lines.read_text()
    assert text.startswith("# Winning lines of the deals the solver won in benchmarks/deals.jsonl")
    found = solitaire_deals.parse_lines(text)
    assert sorted(found) == [1, 4, 9] and found[4] == "16" and found[9] == shipped[9]
    assert solitaire.replay(solitaire.new_game(1), solitaire_deals.parse_line(found[1])).won
