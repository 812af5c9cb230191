"""``leafpile print PART -o FILE.pdf``: the kit from the command line."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from printables import build, filename
from printables.sheet import Options, parse_offset

from .server import lan_address

PART_NAMES = ("deck", "standard-deck", "aids", "scorepads", "board", "pyramids", "kit")


def register(commands: Any) -> None:
    """Add the ``print`` subcommand to the ``leafpile`` subparsers."""
    parser = commands.add_parser(
        "print",
        help="write a part of the print-and-play kit as a PDF",
        description="Write a part of the print-and-play kit as a PDF. Print it at 100% "
        "(actual size): every sheet has a 50 mm ruler to check.",
    )
    parser.add_argument(
        "part", choices=PART_NAMES, metavar="PART", help="one of: " + ", ".join(PART_NAMES)
    )
    parser.add_argument(
        "--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)"
    )
    parser.add_argument(
        "--card",
        choices=("poker", "standard"),
        default="poker",
        help="card size: poker 63.5 x 88.9 mm (default) or standard 63 x 88 mm",
    )
    parser.add_argument(
        "--bleed",
        action="store_true",
        help="space the cards out with 3 mm of bleed (fewer cards a sheet)",
    )
    parser.add_argument(
        "--back-offset",
        default="0,0",
        metavar="X,Y",
        help="move the card backs by X,Y mm to match your printer's duplex "
        "(default 0,0; write a negative x as --back-offset=-1,0.5)",
    )
    parser.add_argument(
        "--url",
        default=None,
        help="what the QR codes on the player aids open (default: this "
        "computer's address on the network, port 5000)",
    )
    parser.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE.pdf",
        help="where to write the PDF (default: a name that says what it is)",
    )
    parser.set_defaults(handler=run)


def default_url(port: int = 5000) -> str:
    """``LEAFPILE_PUBLIC_URL``, else this computer's LAN address, else localhost."""
    configured = os.environ.get("LEAFPILE_PUBLIC_URL")
    if configured:
        return configured
    address = lan_address()
    return f"http://{address or 'localhost'}:{port}/"


def run(args: argparse.Namespace) -> int:
    try:
        options = Options(
            paper=args.paper,
            card=args.card,
            bleed=args.bleed,
            back_offset=parse_offset(args.back_offset),
            url=args.url or default_url(),
        )
        pdf = build(args.part, options)
    except ValueError as error:
        print(f"leafpile print: {error}", file=sys.stderr)
        return 2
    target = Path(args.output or filename(args.part, options))
    try:
        target.write_bytes(pdf)
    except OSError as error:
        print(f"leafpile print: cannot write {target}: {error.strerror}", file=sys.stderr)
        return 1
    print(
        f"wrote {target} ({len(pdf) // 1024} KB). Print at 100% (actual size) and check "
        "the 50 mm ruler."
    )
    return 0
