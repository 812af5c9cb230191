"""How well the solitaire solver does, and what share of deals can be won.

    python benchmarks/solitaire.py run [--out FILE] [--deals N] [--first-seed 1]
                                       [--budget 2] [--cpu-budget] [--max-nodes N]
                                       [--give-up-after S] [--jobs 1]
                                       [--keep-lines-above N]
    python benchmarks/solitaire.py report [--out FILE] [--first-seed 1] [--deals N]
    python benchmarks/solitaire.py table [--out FILE]
    python benchmarks/solitaire.py lines [--out FILE]
    python benchmarks/solitaire.py known --search NAME --deals 1352,1389

``run`` decides deals ``first-seed`` .. ``first-seed + deals - 1`` (one at a
time, or ``--jobs N`` at once in a pool of processes: each deal's search is
single-threaded and independent, so N cores decide N deals) and appends one
JSON line a deal to ``--out`` (default ``benchmarks/solitaire-deals.jsonl``):
seed, result (won / lost / unknown), seconds (wall clock, and CPU), positions expanded, what
stopped an unknown search, moves of the winning line, the budget (seconds,
the clock they are counted on, and positions when capped), and the machine's
load when the deal started.

``--cpu-budget`` counts the budget in CPU seconds of the search's own
process (``time.process_time``) instead of wall seconds: on a busy machine a
deal then gets the same search however many other processes share its core,
and the verdicts do not depend on the load.
``--give-up-after S`` (with ``--cpu-budget``) searches as the budget says
(the beams' share of it, the depth-first search of a long budget) but stops
each deal after S seconds of CPU: which deals a 60 s run decides within
2 s, at a fraction of its cost, to compare two versions of the solver.
It is resumable: deals already in the file are skipped, so an interrupted
run goes on where it stopped (lines come in the order deals finish). Every
winning line is replayed through the rules engine first (a line that does
not win stops the benchmark).

``table`` writes ``companion/rules/solitaire_deals.txt``, the won deals by
difficulty that the new-game form offers; ``lines`` writes
``companion/rules/solitaire_lines.txt``, the shortest winning line known of
each deal that took the run more than ``LINES_ABOVE`` positions (run with
``--keep-lines-above`` so that it has them, or it searches again).
Every line of ``run`` names the search of the solver's portfolio that
decided the deal (``member``), and ``report`` counts them.

``known`` runs one search of :data:`KNOWN_SEARCHES` alone on the given deals
(each one the benchmark left undecided) and appends each win, its line
replayed through the rules, to ``benchmarks/solitaire-known-wins.jsonl``.
``table`` puts those deals among the hard ones and ``lines`` ships their
lines: a deal known to be won is offered as one, and *Winnable?* and *Hint*
answer at once at its start, whichever search found the win (issue 47).

``report`` prints won / proven lost /
unknown with the share won and its 95 % Wilson interval (for the deals
decided, and the bounds that the unknown deals allow), the share that took
more than 2 s, the median and p99 times, and the hardest deals.

Wall-clock figures depend on the machine and on what else runs on it; the
file records the load beside every deal. CPU figures depend on the machine
alone, so every line records its speed too (``speed``: positions a second
of CPU of one fixed search, see :func:`machine_speed`), and the report
gives it: 2 s of CPU on one machine is not 2 s on another.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import functools
import json
import math
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.rules import solitaire, solitaire_deals, solitaire_solver  # noqa: E402
from companion.rules.errors import RuleError  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "solitaire-deals.jsonl"
KNOWN_WINS = Path(__file__).resolve().parent / "solitaire-known-wins.jsonl"

# Searches that won deals the benchmark's solver left undecided, each alone
# (docs/solitaire-solver.md, "Deals won by other searches"): beams that rank
# positions otherwise than the solver's, at most WIDE_BEAM_MOVES move numbers.
KNOWN_SEARCHES = {
    # s14: alone on the 38 deals left at the memory cap it won 1352, 1389,
    # 2200, 6410 and 8201; in the solver it broke the memory cap (s15).
    "beam 10240, gap 0.5": solitaire_solver.Beam(
        10240, solitaire_solver.Weights(in_hand=1.1, parked_gap=0.5), by_deals=True
    ),
    # s14: alone on the same 38 deals it won 4383.
    "beam 2560, off-suit 2.0": solitaire_solver.Beam(
        2560, solitaire_solver.Weights(in_hand=1.1, off_suit=2.0, parked_gap=0.2), by_deals=True
    ),
}
WON, LOST, UNKNOWN = solitaire_solver.WON, solitaire_solver.LOST, solitaire_solver.UNKNOWN


# The search a machine's speed is measured by: the first positions of deal
# 806's depth-first search alone, the same on every machine and solver
# version (no deal of 1-1000 takes longer to decide, so the search does not
# end early). Measured on 27 Nov 2026, compiled: 53,822 positions a second
# on s15's machine, which searches at less than half the speed of s14's.
SPEED_SEED = 806
SPEED_POSITIONS = 20_000


@functools.cache
def machine_speed() -> int:
    """Positions a second of CPU of the reference search (compiled or not,
    as the solver runs), measured once a process."""
    game = solitaire.new_game(SPEED_SEED)
    cpu = time.process_time()
    solitaire_solver.solve(
        game, 600, max_nodes=SPEED_POSITIONS, searches=(), dive_after=0, beams=(), after_the_cap=()
    )
    return round(SPEED_POSITIONS / max(time.process_time() - cpu, 1e-6))


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values`` (fraction 0..1)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval of a share ``successes / n``."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def load() -> float:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return -1.0


def read(path: Path) -> dict[int, dict[str, object]]:
    """The deals already decided in ``path``, by seed (the last line wins)."""
    found: dict[int, dict[str, object]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                found[int(row["seed"])] = row
    return found


def decide(
    seed: int,
    budget: float,
    max_nodes: int | None,
    cpu_budget: bool = False,
    give_up_after: float | None = None,
    keep_line: bool = False,
    keep_lines_above: int | None = None,
) -> dict[str, object]:
    """One deal's line of the file; raises if a winning line does not win.
    With ``keep_line`` a won deal's line holds its moves too (``line``, as
    the package's lines file writes them); with ``keep_lines_above`` only
    when the solver took more positions than that (the deals ``lines``
    ships, so it need not search them again).

    A function of its own so that a pool's worker processes can run it."""
    machine_load = load()
    speed = machine_speed()
    game = solitaire.new_game(seed)
    wall, cpu = time.perf_counter(), time.process_time()
    # The solver reads its budget off a module-level clock; the process's CPU
    # clock makes the budget independent of the machine's load.
    old_clock = solitaire_solver.clock
    if cpu_budget:
        solitaire_solver.clock = (
            time.process_time if give_up_after is None else giving_up(give_up_after)
        )
    try:
        found = solitaire_solver.solve(game, budget, max_nodes=max_nodes)
    finally:
        solitaire_solver.clock = old_clock
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if found.result == WON and not solitaire.replay(game, found.moves).won:
        raise RuntimeError(f"seed {seed}: the winning line does not win!")
    keep = keep_line or (keep_lines_above is not None and found.nodes > keep_lines_above)
    line = {"line": solitaire_deals.format_line(found.moves)} if keep and found.moves else {}
    return {
        "seed": seed,
        "result": found.result,
        # Wall seconds either way (found.seconds is on the budget's clock).
        "seconds": round(wall if cpu_budget else found.seconds, 4),
        "cpu": round(cpu, 4),
        "nodes": found.nodes,
        "stopped_by": found.stopped_by,
        # Which search of the solver's portfolio decided (s25 on).
        "member": found.member,
        "moves": len(found.moves),
        "budget": budget,
        "budget_clock": "cpu" if cpu_budget else "wall",
        "max_nodes": max_nodes,
        "give_up_after": give_up_after,
        "load": machine_load,
        "speed": speed,
        # Compiled by mypyc (setup.py) it takes half the time of the Python source.
        "solver": solitaire_solver.BUILD,
        "at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **line,
    }


def giving_up(after: float) -> Callable[[], float]:
    """The process's CPU clock, until ``after`` seconds from now; then one past
    every deadline, so the search stops at once, "unknown" by time."""
    start = time.process_time()

    def clock() -> float:
        now = time.process_time()
        return now if now - start < after else now + 1e9

    return clock


def run(args: argparse.Namespace) -> int:
    if args.give_up_after is not None and not args.cpu_budget:
        print("--give-up-after counts CPU seconds: add --cpu-budget", file=sys.stderr)
        return 2
    out = Path(args.out)
    done = read(out)
    seeds = [
        seed for seed in range(args.first_seed, args.first_seed + args.deals) if seed not in done
    ]
    job = functools.partial(
        decide,
        budget=args.budget,
        max_nodes=args.max_nodes,
        cpu_budget=args.cpu_budget,
        give_up_after=args.give_up_after,
        keep_lines_above=args.keep_lines_above,
    )
    with out.open("a") as file:
        try:
            for row in decided(seeds, job, args.jobs):
                # One whole line at a time, flushed: a killed run loses at most
                # the deals in progress, and the next run skips the rest.
                file.write(json.dumps(row) + "\n")
                file.flush()
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 1
    return 0


def decided(
    seeds: list[int], job: Callable[[int], dict[str, object]], jobs: int
) -> Iterator[dict[str, object]]:
    """``job`` (:func:`decide` with its settings) for each seed, one at a time
    or ``jobs`` at once in a pool of processes; rows in the order deals finish."""
    if jobs <= 1:
        for seed in seeds:
            yield job(seed)
        return
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        # A few deals queued per worker, not all of them: an interrupted
        # run then leaves no long tail of submitted work behind.
        pending: set[concurrent.futures.Future[dict[str, object]]] = set()
        for seed in seeds:
            pending.add(pool.submit(job, seed))
            if len(pending) >= 2 * jobs:
                finished, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in finished:
                    yield future.result()
        for future in concurrent.futures.as_completed(pending):
            yield future.result()


def report(args: argparse.Namespace) -> int:
    rows = read(Path(args.out))
    if args.deals:
        wanted = range(args.first_seed, args.first_seed + args.deals)
        rows = {seed: row for seed, row in rows.items() if seed in wanted}
    if not rows:
        print("no deals in the file yet")
        return 1
    n = len(rows)
    by = {r: [row for row in rows.values() if row["result"] == r] for r in (WON, LOST, UNKNOWN)}
    won, lost, unknown = (len(by[r]) for r in (WON, LOST, UNKNOWN))
    seeds = sorted(rows)
    times = [float(row["seconds"]) for row in rows.values()]  # type: ignore[arg-type]
    loads = [float(row["load"]) for row in rows.values()]  # type: ignore[arg-type]
    stamps = sorted(str(row["at"]) for row in rows.values())
    # Lines written before --cpu-budget existed were all on the wall clock.
    budgets = sorted(
        {(float(row["budget"]), str(row.get("budget_clock", "wall"))) for row in rows.values()}  # type: ignore[arg-type]
    )
    # Lines written before the solver could be compiled (s13) ran it as Python.
    kinds = Counter(str(row.get("solver", "python")) for row in rows.values())
    # Lines of a run that gave up early (--give-up-after) say after how long.
    cuts = sorted(
        {float(str(row["give_up_after"])) for row in rows.values() if row.get("give_up_after")}
    )
    given_up = f" given up after {', '.join(f'{c:g}' for c in cuts)} s of CPU" if cuts else ""
    # Lines written before s15 did not measure the machine's speed.
    speeds = [int(str(row["speed"])) for row in rows.values() if row.get("speed")]
    speed = (
        f"; machine speed: median {statistics.median(speeds):,.0f} positions a second of CPU "
        f"(the first {SPEED_POSITIONS:,} of deal {SPEED_SEED}'s depth-first search; "
        f"{len(speeds)} deals measured)"
        if speeds
        else ""
    )
    print(
        f"{n} deals (seeds {seeds[0]}-{seeds[-1]}), "
        f"budget {', '.join(f'{b:g} s ({c})' for b, c in budgets)} a deal{given_up}, "
        f"solver {', '.join(f'{k} ({c} deals)' for k, c in sorted(kinds.items()))}; "
        f"run {stamps[0]} to {stamps[-1]}; 1-minute load average when a deal "
        f"started: median {statistics.median(loads):.1f}, most {max(loads):.1f} (2 cores)"
        f"{speed}\n"
    )
    print("| result | deals | share |")
    print("|---|---:|---:|")
    for name, count in (("won", won), ("proven lost", lost), ("unknown", unknown)):
        print(f"| {name} | {count} | {100 * count / n:.2f} % |")
    print()
    low, high = wilson(won, n)
    print(
        f"Won: {won} of {n} = {100 * won / n:.2f} % (95 % Wilson interval "
        f"{100 * low:.2f}-{100 * high:.2f} %) counting every unknown deal as not won."
    )
    if unknown:
        top_low, top_high = wilson(won + unknown, n)
        print(
            f"If every unknown deal were winnable: {100 * (won + unknown) / n:.2f} % "
            f"(interval {100 * top_low:.2f}-{100 * top_high:.2f} %). The true share lies "
            f"between {100 * low:.2f} % and {100 * top_high:.2f} % (95 %)."
        )
    if won + lost:
        d_low, d_high = wilson(won, won + lost)
        print(
            f"Among the {won + lost} deals decided: {100 * won / (won + lost):.2f} % won "
            f"({100 * d_low:.2f}-{100 * d_high:.2f} %)."
        )
    over = sum(t > 2.0 for t in times)
    decided_2s = len(
        [
            row
            for row, t in zip(rows.values(), times, strict=True)
            if row["result"] != UNKNOWN and t <= 2
        ]
    )
    print(
        f"Decided within 2 s: {decided_2s} of {n} ({100 * decided_2s / n:.2f} %); "
        f"took more than 2 s or stayed unknown: {n - decided_2s} "
        f"({100 * (n - decided_2s) / n:.2f} %)."
    )
    if over:
        print(f"Took more than 2 s: {over} ({100 * over / n:.2f} %).")
    print(
        f"Time a deal: median {1000 * statistics.median(times):.0f} ms, "
        f"p99 {percentile(times, 0.99):.2f} s, most {max(times):.2f} s."
    )
    # CPU time (recorded since 26 Nov) is what the deal cost its core, however
    # busy the machine: near what a quiet machine's clock would show.
    cpus = [float(row["cpu"]) for row in rows.values() if "cpu" in row]  # type: ignore[arg-type]
    if cpus:
        decided_cpu = sum(
            row["result"] != UNKNOWN and float(row["cpu"]) <= 2  # type: ignore[arg-type]
            for row in rows.values()
            if "cpu" in row
        )
        print(
            f"CPU time a deal ({len(cpus)} deals): median {1000 * statistics.median(cpus):.0f} ms, "
            f"p99 {percentile(cpus, 0.99):.2f} s, most {max(cpus):.2f} s; decided within 2 s "
            f"of CPU: {decided_cpu} ({100 * decided_cpu / len(cpus):.2f} %)."
        )
    if by[WON]:
        lengths = [int(str(row["moves"])) for row in by[WON]]
        print(
            f"Winning lines (the hint's line from the start): mean {statistics.mean(lengths):.1f} "
            f"moves, median {statistics.median(lengths):g}, longest {max(lengths)}."
        )
    # Which search of the portfolio decided each deal (recorded since s25).
    members = Counter(str(row["member"]) for row in rows.values() if row.get("member"))
    if members:
        print("\n| decided by | deals | mean line |")
        print("|---|---:|---:|")
        for member, count in members.most_common():
            moves = [int(str(r["moves"])) for r in rows.values() if r.get("member") == member]
            print(f"| {member} | {count} | {statistics.mean(moves):.1f} |")
    if lost:
        print(f"\nProven lost: {', '.join(str(row['seed']) for row in by[LOST][:50])}")
    if args.hardest <= 0:
        return 0
    # Every undecided deal stopped at the same cap, so among those the
    # positions say nothing: they are listed by seed, and the won deals that
    # took the most positions follow (the hardest the solver did decide).
    undecided = [row for row in rows.values() if row["result"] == UNKNOWN]
    decided = sorted(
        (row for row in rows.values() if row["result"] != UNKNOWN),
        key=lambda row: -int(row["nodes"]),  # type: ignore[call-overload]
    )
    shown = sorted(undecided, key=lambda row: int(row["seed"]))[: args.hardest]  # type: ignore[call-overload]
    print(
        f"\nThe hardest deals: the first {len(shown)} of the {len(undecided)} undecided "
        f"(by seed), then the {min(args.hardest, len(decided))} decided ones that took "
        "the most positions:\n"
    )
    print("| seed | result | seconds | CPU seconds | positions |")
    print("|---:|---|---:|---:|---:|")
    for row in shown + decided[: args.hardest]:
        seconds, positions = float(row["seconds"]), int(row["nodes"])  # type: ignore[arg-type,call-overload]
        cpu = f"{float(row['cpu']):.2f}" if "cpu" in row else "-"  # type: ignore[arg-type]
        print(f"| {row['seed']} | {row['result']} | {seconds:.2f} | {cpu} | {positions:,} |")
    return 0


def table(args: argparse.Namespace) -> int:
    """Write the package's table of won deals by difficulty (see solitaire_deals)."""
    rows = read(Path(args.out))
    won = [(seed, int(row["nodes"])) for seed, row in rows.items() if row["result"] == WON]  # type: ignore[call-overload]
    # Deals the run left undecided that another search won (a deal the run
    # won is among its own, at its own level).
    known = sorted(
        seed for seed in read_known(Path(args.known)) if rows.get(seed, {}).get("result") != WON
    )
    target = Path(solitaire_deals.__file__).with_name(solitaire_deals.FILE)
    # The table's first line names the run it came from: this file, not the
    # default one that solitaire_deals.write assumes.
    text = solitaire_deals.write(won, len(rows), also_hard=known)
    text = text.replace(
        f"({DEFAULT_OUT.parent.name}/{DEFAULT_OUT.name})", f"(benchmarks/{Path(args.out).name})", 1
    )
    target.write_text(text)
    print(f"{len(won)} won deals and {len(known)} won by other searches written to {target}")
    return 0


def lines(args: argparse.Namespace) -> int:
    """Write the package's lines file: a winning line for each won deal of
    ``--out`` that took more than ``--above`` positions, and for each deal
    it left undecided that another search won (``--known``).

    Each deal gets the shortest line known for it, replayed to a win: the
    run's own (``run --keep-lines-above``), the one the file held before,
    or another search's. A hint follows the line, so a shorter one is the
    line a player would rather follow (issue 47), and a new run never
    makes a shipped line longer. A deal with none is searched for again
    (resumable: each line found is appended as it is, then the file is
    written anew in seed order)."""
    rows = read(Path(args.out))
    others = read_known(Path(args.known))  # won by other searches: their lines as found
    hardest = {
        seed
        for seed, row in rows.items()
        if row["result"] == WON and int(str(row["nodes"])) > args.above
    }
    undecided = {seed for seed in others if rows.get(seed, {}).get("result") != WON}
    wanted = sorted(hardest | undecided)
    target = Path(
        args.lines or Path(solitaire_deals.__file__).with_name(solitaire_deals.LINES_FILE)
    )
    before = solitaire_deals.parse_lines(target.read_text()) if target.exists() else {}
    known: dict[int, str] = {}
    for seed in wanted:
        candidates = [
            str(found["line"])
            for found in (rows.get(seed, {}), others.get(seed, {}))
            if found.get("line")
        ]
        if seed in before:
            candidates.append(before[seed])
        winning = [text for text in candidates if winning_line_of(seed, text)]
        if winning:
            known[seed] = min(winning, key=lambda text: len(solitaire_deals.parse_line(text)))
    todo = [seed for seed in wanted if seed not in known]
    header = (
        f"Winning lines of the deals the solver won in benchmarks/{Path(args.out).name}",
        f"after more than {args.above} positions, and of the deals other searches won",
        f"(benchmarks/{Path(args.known).name}): for each, the shortest line known,",
        "written by benchmarks/solitaire.py lines.",
        "A deal a line: 'seed: moves'. A move is D (deal), or the source and target piles",
        "(1-6) followed by how many cards move when more than one.",
    )
    missed = []
    with target.open("a") as file:
        job = functools.partial(
            decide, budget=args.budget, max_nodes=None, cpu_budget=True, keep_line=True
        )
        for row in decided(todo, job, args.jobs):
            seed = int(str(row["seed"]))
            if row["result"] != WON:
                missed.append(seed)
                continue
            known[seed] = str(row["line"])
            file.write(f"{seed}: {known[seed]}\n")
            file.flush()
    kept = {seed: known[seed] for seed in wanted if seed in known}
    target.write_text(solitaire_deals.write_lines(kept, header))
    print(f"{len(kept)} lines of {len(wanted)} deals written to {target}")
    if missed:
        print(f"not won again within {args.budget:g} s: {', '.join(map(str, sorted(missed)))}")
    return 0


def winning_line_of(seed: int, text: str) -> bool:
    """Whether ``text`` (a line as the lines file writes it) wins deal ``seed``."""
    try:
        return solitaire.replay(solitaire.new_game(seed), solitaire_deals.parse_line(text)).won
    except RuleError:  # not a line, or a move the rules refuse
        return False


def known_win(seed: int, search: str) -> dict[str, object]:
    """Run the search named ``search`` alone on deal ``seed``: a row of the
    known wins' file, or one without a line if it did not win."""
    spec = KNOWN_SEARCHES[search]
    game = solitaire.new_game(seed)
    cpu = time.process_time()
    beam = solitaire_solver._Beam(
        spec.weights, game, spec.width, by_deals=spec.by_deals,
        max_moves=solitaire_solver.WIDE_BEAM_MOVES,
    )  # fmt: skip
    while beam.won_line is None and not beam.done:
        beam.expand()
    cpu = time.process_time() - cpu
    row: dict[str, object] = {
        "seed": seed,
        "result": WON if beam.won_line else UNKNOWN,
        "search": search,
        "cpu": round(cpu, 2),
        "positions": beam.size,
        "speed": machine_speed(),
        "solver": solitaire_solver.BUILD,
        "at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if beam.won_line:
        if not solitaire.replay(game, beam.won_line).won:
            raise RuntimeError(f"seed {seed}: the winning line does not win!")
        row |= {"moves": len(beam.won_line), "line": solitaire_deals.format_line(beam.won_line)}
    return row


def known(args: argparse.Namespace) -> int:
    """Append the wins of one search of KNOWN_SEARCHES on the given deals."""
    seeds = [int(seed) for seed in args.deals.split(",") if seed.strip()]
    have = read_known(Path(args.known))
    with Path(args.known).open("a") as file:
        for seed in seeds:
            if seed in have:
                print(f"{seed}: known already ({have[seed]['search']})")
                continue
            row = known_win(seed, args.search)
            print(f"{seed}: {row['result']} in {row['cpu']} s of CPU", flush=True)
            if row["result"] == WON:
                file.write(json.dumps(row) + "\n")
                file.flush()
    return 0


def read_known(path: Path) -> dict[int, dict[str, object]]:
    """The known wins' file (``known``), its lines replayed: a line that does
    not win stops whoever reads it."""
    found = read(path) if path.exists() else {}
    for seed, row in found.items():
        line = solitaire_deals.parse_line(str(row["line"]))
        if not solitaire.replay(solitaire.new_game(seed), line).won:
            raise RuntimeError(f"{path.name}: the line of deal {seed} does not win")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run", help="decide deals, appending one line a deal")
    go.add_argument("--out", default=str(DEFAULT_OUT))
    go.add_argument("--deals", type=int, default=10_000)
    go.add_argument("--first-seed", type=int, default=1)
    go.add_argument("--budget", type=float, default=2.0, help="seconds per deal")
    go.add_argument(
        "--cpu-budget",
        action="store_true",
        help="count the budget in CPU seconds of the search's process, not wall seconds",
    )
    go.add_argument("--max-nodes", type=int, default=None, help="positions per deal")
    go.add_argument(
        "--give-up-after",
        type=float,
        default=None,
        help="stop each deal after these CPU seconds, searching as the budget says",
    )
    go.add_argument("--jobs", type=int, default=1, help="deals decided at once (processes)")
    go.add_argument(
        "--keep-lines-above",
        type=int,
        default=None,
        help="keep the winning line of each deal won after more positions than this",
    )
    go.set_defaults(handler=run)
    show = commands.add_parser("report", help="summarise the file as Markdown")
    show.add_argument("--out", default=str(DEFAULT_OUT))
    show.add_argument("--first-seed", type=int, default=1)
    show.add_argument("--deals", type=int, default=0, help="only these deals (0: all)")
    show.add_argument("--hardest", type=int, default=10)
    show.set_defaults(handler=report)
    ship = commands.add_parser("table", help="write the won deals by level for the app")
    ship.add_argument("--out", default=str(DEFAULT_OUT))
    ship.add_argument("--known", default=str(KNOWN_WINS))
    ship.set_defaults(handler=table)
    lines_of = commands.add_parser("lines", help="write the winning lines of the hardest won deals")
    lines_of.add_argument("--out", default=str(DEFAULT_OUT))
    lines_of.add_argument("--above", type=int, default=solitaire_deals.LINES_ABOVE)
    lines_of.add_argument("--budget", type=float, default=300.0, help="CPU seconds per deal")
    lines_of.add_argument("--jobs", type=int, default=1, help="deals solved at once (processes)")
    lines_of.add_argument("--lines", default="", help="the file (default: the package's)")
    lines_of.add_argument("--known", default=str(KNOWN_WINS))
    lines_of.set_defaults(handler=lines)
    found = commands.add_parser("known", help="won deals by one search of KNOWN_SEARCHES")
    found.add_argument("--search", choices=sorted(KNOWN_SEARCHES), required=True)
    found.add_argument("--deals", required=True, help="seeds, comma-separated")
    found.add_argument("--known", default=str(KNOWN_WINS))
    found.set_defaults(handler=known)
    args = parser.parse_args()
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
