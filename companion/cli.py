"""The ``leafpile`` command: serve the companion, and the tools around it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import print_command


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leafpile",
        description="Leafpile: a table companion for autumn card and board games.",
    )
    parser.add_argument("--version", action="version", version=f"leafpile {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the companion for the table (the default)")
    _add_serve_arguments(serve)
    _add_serve_arguments(parser)  # so plain `leafpile --port 8000` works too

    # Other subcommands register here, one line each.
    print_command.register(commands)  # leafpile print
    _add_solve(commands)  # leafpile solve
    return parser


def _add_solve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``leafpile solve --seed N [--budget S]``: solve an Autumn Leaves solitaire deal."""
    solve = commands.add_parser(
        "solve",
        help="solve an Autumn Leaves solitaire deal and print the answer as JSON",
        description="Search deal N for a winning line. Prints one JSON object: "
        '{"seed": N, "result": "won"|"lost"|"unknown", "moves": [...], "seconds": S}; '
        "moves are the winning line as actions (piles numbered from 0).",
    )
    solve.add_argument("--seed", type=int, required=True, help="the deal number")
    solve.add_argument(
        "--budget", type=float, default=10.0, help="seconds to search at most (default 10)"
    )

    def run(args: argparse.Namespace) -> int:
        import json

        from .rules import actions, solitaire, solitaire_solver

        found = solitaire_solver.solve(solitaire.new_game(args.seed), args.budget)
        answer = {
            "seed": args.seed,
            "result": found.result,
            "moves": [actions.to_dict(m) for m in found.moves],
            "seconds": round(found.seconds, 3),
        }
        print(json.dumps(answer))
        return 0

    solve.set_defaults(handler=run)


def _version() -> str:
    """The installed package's version (pyproject.toml's), or "unknown" from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("leafpile")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _port(text: str) -> int:
    """A TCP port number, 1 to 65535, or argparse's one-line error."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: use a number from 1 to 65535")
    return port


def _add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="0.0.0.0",
        help="address to listen on (default 0.0.0.0: every phone on this network can join; "
        "use 127.0.0.1 to keep it to this computer)",
    )
    parser.add_argument("--port", type=_port, default=5000, help="port to listen on (default 5000)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is not None:
        return int(handler(args) or 0)
    from .server import serve

    return serve(host=args.host, port=args.port)


if __name__ == "__main__":
    sys.exit(main())
