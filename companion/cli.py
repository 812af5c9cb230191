"""The ``leafpile`` command: serve the companion, and the tools around it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import backup_command, print_command
from .version import leafpile_version


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leafpile",
        description="Leafpile: a table companion for autumn card and board games.",
    )
    parser.add_argument("--version", action="version", version=f"leafpile {leafpile_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser(
        "serve",
        help="run the companion for the table (the default)",
        description="Serve the companion to the phones at the table. --host and --port "
        "may come before or after `serve`: `leafpile --port 8000 serve` and "
        "`leafpile serve --port 8000` are the same.",
    )
    _add_serve_arguments(serve, SERVE_DESTS)
    # So plain `leafpile --port 8000` works too, and `leafpile --port 8000 serve`:
    # the options before a command land in their own names (argparse would
    # otherwise let the serve subcommand's defaults overwrite them silently:
    # `leafpile --host 127.0.0.1 serve` listened on 0.0.0.0, issue 23).
    _add_serve_arguments(parser, BEFORE_DESTS)

    # Other subcommands register here, one line each.
    print_command.register(commands)  # leafpile print
    _add_solve(commands)  # leafpile solve
    backup_command.register(commands)  # leafpile backup / leafpile restore
    return parser


def _add_solve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``leafpile solve --seed N [--budget S] [--max-nodes N]``: solve a solitaire deal."""
    solve = commands.add_parser(
        "solve",
        help="solve an Autumn Leaves solitaire deal and print the answer as JSON",
        description="Search deal N for a winning line, knowing every card (the face-down ones "
        "and the order of the hand too). Prints one JSON object: "
        '{"seed": N, "result": "won"|"lost"|"unknown", "moves": [...], "seconds": S, '
        '"nodes": P, "search": ..., "solver": ...}; moves are the winning line as actions '
        '(piles numbered from 0). "lost" means every reachable position was searched; '
        '"unknown" that the budget ran out. "search" names the search that decided.',
    )
    solve.add_argument("--seed", required=True, help="the deal number (0 to 999999999)")
    solve.add_argument(
        "--budget",
        default="10",
        help=f"seconds to search at most (default 10, at most {_MAX_SECONDS})",
    )
    solve.add_argument(
        "--max-nodes",
        default=None,
        help="positions to search at most (the same answer on any machine; "
        f"at most {_MAX_NODES:,})",
    )

    def run(args: argparse.Namespace) -> int:
        import json

        from .rules import actions, solitaire, solitaire_solver
        from .tables.games.solitaire import MAX_DEAL

        try:
            seed = _whole(args.seed, "--seed", "a deal number", 0, MAX_DEAL)
            budget = _seconds(args.budget)
            nodes = None
            if args.max_nodes is not None:
                nodes = _whole(
                    args.max_nodes, "--max-nodes", "a number of positions", 1, _MAX_NODES
                )
        except ValueError as exc:
            print(f"leafpile solve: {exc}", file=sys.stderr)
            return 2
        found = solitaire_solver.solve(solitaire.new_game(seed), budget, max_nodes=nodes)
        answer = {
            "seed": seed,
            "result": found.result,
            "moves": [actions.to_dict(m) for m in found.moves],
            "seconds": round(found.seconds, 3),
            "nodes": found.nodes,
            "search": found.member,  # which search of the portfolio decided ("" if none)
            "solver": solitaire_solver.BUILD,  # "compiled" (setup.py) is about twice as fast
        }
        print(json.dumps(answer))
        return 0

    solve.set_defaults(handler=run)


_MAX_SECONDS = 600  # ten minutes: longer searches fill the memory first
_MAX_NODES = 500_000  # positions: about a minute of search and 1-2 GB of memory


def _whole(text: str, flag: str, what: str, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``, or ValueError in one line."""
    cleaned = text.strip().replace("_", "")
    if (
        not cleaned.isdecimal()
        or not cleaned.isascii()
        or int(cleaned) < low
        or int(cleaned) > high
    ):
        raise ValueError(f"{flag} must be {what} from {low:,} to {high:,}, not {text!r}")
    return int(cleaned)


def _seconds(text: str) -> float:
    """A number of seconds from 0 to _MAX_SECONDS, or ValueError in one line."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 <= seconds <= _MAX_SECONDS:  # NaN fails this too
        raise ValueError(
            f"--budget must be a number of seconds from 0 to {_MAX_SECONDS}, not {text!r}"
        )
    return seconds


def _port(text: str) -> int:
    """A TCP port number, 1 to 65535, or argparse's one-line error."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: use a number from 1 to 65535")
    return port


DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 5000
SERVE_DESTS = {"--host": "host", "--port": "port"}
BEFORE_DESTS = {"--host": "host_before", "--port": "port_before"}


def _add_serve_arguments(parser: argparse.ArgumentParser, dests: dict[str, str]) -> None:
    # No defaults here (None): main() tells "not given" from "given" on either side.
    parser.add_argument(
        "--host",
        dest=dests["--host"],
        metavar="HOST",
        default=None,
        help=f"address to listen on (default {DEFAULT_HOST}: every phone on this network can "
        "join; use 127.0.0.1 to keep it to this computer)",
    )
    parser.add_argument(
        "--port",
        dest=dests["--port"],
        metavar="PORT",
        type=_port,
        default=None,
        help=f"port to listen on (default {DEFAULT_PORT})",
    )


def _serve_option(
    parser: argparse.ArgumentParser, args: argparse.Namespace, flag: str
) -> str | int | None:
    """One of --host/--port, given before or after `serve` (never two different values)."""
    before: str | int | None = getattr(args, BEFORE_DESTS[flag])
    after: str | int | None = getattr(args, SERVE_DESTS[flag], None)
    if before is not None and after is not None and before != after:
        parser.error(f"{flag} is given twice ({before} and {after}): give it once")
    return after if after is not None else before


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is not None:
        given = [flag for flag, dest in BEFORE_DESTS.items() if getattr(args, dest) is not None]
        if given:
            verb = "belong" if len(given) > 1 else "belongs"
            parser.error(
                f"{' and '.join(given)} {verb} to `leafpile serve`, "
                f"not to `leafpile {args.command}`"
            )
        return int(handler(args) or 0)
    from .server import serve

    host = _serve_option(parser, args, "--host")
    port = _serve_option(parser, args, "--port")
    return serve(
        host=DEFAULT_HOST if host is None else str(host),
        port=DEFAULT_PORT if port is None else int(port),
    )


if __name__ == "__main__":
    sys.exit(main())
