"""How well the solitaire solver does on random deals.

    python benchmarks/solitaire.py [--deals 200] [--budget 2] [--first-seed 1]

Solves deals ``first-seed`` .. ``first-seed + deals - 1`` one after the other
(one core) with the given budget each, checks every winning line through the
rules engine, and prints the solve rate ("won", "lost", "unknown") and the
median and 95th-percentile time, as a Markdown table for the README.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.rules import solitaire, solitaire_solver  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values`` (fraction 0..1)."""
    ordered = sorted(values)
    rank = max(1, round(fraction * len(ordered) + 0.5))
    return ordered[min(rank, len(ordered)) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args()

    results: Counter[str] = Counter()
    times: list[float] = []
    by_result: dict[str, list[float]] = {}
    started = time.monotonic()
    for seed in range(args.first_seed, args.first_seed + args.deals):
        game = solitaire.new_game(seed)
        found = solitaire_solver.solve(game, args.budget)
        if found.result == solitaire_solver.WON and not solitaire.replay(game, found.moves).won:
            print(f"seed {seed}: the winning line does not win!", file=sys.stderr)
            return 1
        results[found.result] += 1
        times.append(found.seconds)
        by_result.setdefault(found.result, []).append(found.seconds)
        print(f"seed {seed}: {found.result} in {found.seconds:.2f} s", file=sys.stderr, flush=True)
    total = time.monotonic() - started

    n = args.deals
    print(
        f"{n} deals (seeds {args.first_seed}-{args.first_seed + n - 1}), "
        f"budget {args.budget:g} s each, Python {platform.python_version()}, "
        f"{total:.0f} s in all\n"
    )
    print("| result | deals | share |")
    print("|---|---:|---:|")
    for result in (solitaire_solver.WON, solitaire_solver.LOST, solitaire_solver.UNKNOWN):
        print(f"| {result} | {results[result]} | {100 * results[result] / n:.1f}% |")
    print()
    print(
        f"Time per deal: median {statistics.median(times):.2f} s, "
        f"p95 {percentile(times, 0.95):.2f} s."
    )
    for result, values in sorted(by_result.items()):
        print(
            f"- {result}: median {statistics.median(values):.2f} s, "
            f"p95 {percentile(values, 0.95):.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
