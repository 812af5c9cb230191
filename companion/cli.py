"""The ``leafpile`` command: serve the companion, and the tools around it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leafpile",
        description="Leafpile: a table companion for autumn card and board games.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the companion for the table (the default)")
    _add_serve_arguments(serve)
    _add_serve_arguments(parser)  # so plain `leafpile --port 8000` works too

    # Other subcommands register here, one line each.
    __import__("printables.command").command.register(commands)  # leafpile print
    return parser


def _add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="0.0.0.0",
        help="address to listen on (default 0.0.0.0: every phone on this network can join; "
        "use 127.0.0.1 to keep it to this computer)",
    )
    parser.add_argument("--port", type=int, default=5000, help="port to listen on (default 5000)")


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
