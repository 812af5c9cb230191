"""How well the solitaire solver does on random deals.

    python benchmarks/solitaire.py [--deals 200] [--first-seed 1] [--budget 2]
                                   [--max-nodes N]

Solves deals ``first-seed`` .. ``first-seed + deals - 1`` one after the other
(one core), each with ``--budget`` seconds and, when given, at most
``--max-nodes`` expanded positions. Every winning line is replayed through
the rules engine (a line that does not win stops the benchmark). Prints a
Markdown table of won / proven lost / unknown, the share won within 1 s, the
times, the worst overrun of the time budget, and the date and machine load.

Wall-clock figures depend on the machine and on what else runs on it; a run
with ``--max-nodes`` and a generous ``--budget`` gives the same verdicts on
any machine. Tune the solver's weights on other deals (say
``--first-seed 1001 --deals 80``) than the ones you report on.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.rules import solitaire, solitaire_solver  # noqa: E402

RESULTS = (solitaire_solver.WON, solitaire_solver.LOST, solitaire_solver.UNKNOWN)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values`` (fraction 0..1)."""
    ordered = sorted(values)
    rank = max(1, round(fraction * len(ordered) + 0.5))
    return ordered[min(rank, len(ordered)) - 1]


def load() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, and its cores."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per deal")
    parser.add_argument("--max-nodes", type=int, default=None, help="positions per deal")
    args = parser.parse_args()

    results: Counter[str] = Counter()
    times: list[float] = []
    nodes: list[int] = []
    by_result: dict[str, list[float]] = {}
    won_within_1s = 0
    overrun = 0.0
    began = datetime.datetime.now(datetime.UTC)
    load_before = load()
    started = time.monotonic()
    for seed in range(args.first_seed, args.first_seed + args.deals):
        game = solitaire.new_game(seed)
        found = solitaire_solver.solve(game, args.budget, max_nodes=args.max_nodes)
        if found.result == solitaire_solver.WON and not solitaire.replay(game, found.moves).won:
            print(f"seed {seed}: the winning line does not win!", file=sys.stderr)
            return 1
        results[found.result] += 1
        times.append(found.seconds)
        nodes.append(found.nodes)
        by_result.setdefault(found.result, []).append(found.seconds)
        won_within_1s += found.result == solitaire_solver.WON and found.seconds <= 1.0
        overrun = max(overrun, found.seconds - args.budget)
        print(
            f"seed {seed}: {found.result} in {found.seconds:.2f} s, {found.nodes} positions",
            file=sys.stderr,
            flush=True,
        )
    total = time.monotonic() - started

    n = args.deals
    limit = f"{args.budget:g} s" + (
        f" and {args.max_nodes:,} positions" if args.max_nodes is not None else ""
    )
    print(
        f"{n} deals (seeds {args.first_seed}-{args.first_seed + n - 1}), at most {limit} each; "
        f"{began:%Y-%m-%d %H:%M} UTC, Python {platform.python_version()}, {total:.0f} s in all; "
        f"{load_before} at the start, {load()} at the end\n"
    )
    print("| result | deals | share |")
    print("|---|---:|---:|")
    for result in RESULTS:
        print(f"| {result} | {results[result]} | {100 * results[result] / n:.1f}% |")
    print()
    decided = results[solitaire_solver.WON] + results[solitaire_solver.LOST]
    print(f"Decided (won or proven lost): {decided} of {n} ({100 * decided / n:.1f}%).")
    print(f"Won within 1 s: {won_within_1s} of {n} ({100 * won_within_1s / n:.1f}%).")
    print(
        f"Time per deal: median {statistics.median(times):.2f} s, "
        f"p95 {percentile(times, 0.95):.2f} s; "
        f"worst overrun of the budget {1000 * max(0.0, overrun):.0f} ms."
    )
    print(f"Positions per deal: median {statistics.median(nodes):,.0f}, most {max(nodes):,}.")
    for result, values in sorted(by_result.items()):
        print(
            f"- {result}: median {statistics.median(values):.2f} s, "
            f"p95 {percentile(values, 0.95):.2f} s"
        )
    print("Every winning line was replayed through the rules engine and wins.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
