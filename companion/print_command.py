"""``leafpile print PART``: the kit from the command line.

PDFs for every part; ``--format png`` writes one image per card (and the
back) in a zip; ``--service NAME`` writes exactly what that print service
asks for (:mod:`printables.services`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from printables import PARTS, build, filename, sides
from printables.aids import address_warning
from printables.deck import back_correction_warning
from printables.i18n import LANGUAGES
from printables.images import MAX_DPI, MIN_DPI, card_images, images_filename
from printables.services import SERVICES, service_files
from printables.sheet import CARD_SIZES, MAX_BACK_OFFSET_MM, Options, parse_cards, parse_offset

from .network import lan_address

PART_NAMES = (*PARTS, "cards")
CARD_PARTS = ("deck", "standard-deck", "kit")
"""The parts with card backs, which a back correction can cut into."""

OFFSET_LIKE = re.compile(r"^-\d*\.?\d*(\s*[,;]\s*-?\d*\.?\d*)?$")
"""What argparse must take for a value, not an option: ``-1,0.5`` and ``-1``.
(argparse treats any word starting with "-" that is not a plain number as an
option name, so ``--back-offset -1,0.5`` failed.)"""


def register(commands: Any) -> None:
    """Add the ``print`` subcommand to the ``leafpile`` subparsers."""
    parser = commands.add_parser(
        "print",
        help="write a part of the print-and-play kit (PDF, or card images)",
        description="Write a part of the print-and-play kit as a PDF. Print it at 100% "
        "(actual size): every sheet has a 50 mm ruler to check. With --format png, write "
        "one image per card and the back in a zip, with 3 mm bleed (no service's template: "
        "--service writes those).",
    )
    parser.add_argument(
        "part",
        choices=PART_NAMES,
        metavar="PART",
        help="one of: " + ", ".join(PART_NAMES) + " (cards = both decks, images only)",
    )
    parser.add_argument(
        "--format",
        choices=("pdf", "png"),
        default="pdf",
        help="pdf (default) or png: one image per card with 3 mm bleed, in a zip",
    )
    parser.add_argument(
        "--dpi",
        type=int,
        default=300,
        help=f"resolution of the card images, {MIN_DPI}-{MAX_DPI} (default 300)",
    )
    parser.add_argument(
        "--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)"
    )
    parser.add_argument(
        "--language",
        choices=tuple(LANGUAGES),
        default="en",
        metavar="LANG",
        help="the language of the words on the paper: "
        + ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
        + "; default en",
    )
    parser.add_argument(
        "--card",
        choices=(*CARD_SIZES, "standard"),
        default="poker",
        metavar="{poker,ccg}",
        help="card size: poker 63.5 x 88.9 mm (default) or ccg 63 x 88 mm "
        "(the collectible-card-game size)",
    )
    parser.add_argument(
        "--bleed",
        action="store_true",
        help="space the cards out with 3 mm of bleed, for a paper cutter "
        "(8 poker cards a sheet on A4, 6 on Letter)",
    )
    backs = parser.add_mutually_exclusive_group()
    backs.add_argument(
        "--full-backs",
        action="store_true",
        help="the full card backs: a dark ground to the card edges (the default backs "
        "are ink-saving outlines on white paper)",
    )
    backs.add_argument(
        "--light-backs",
        action="store_true",
        help="ink-saving card backs, outlines on white paper (the default)",
    )
    parser.add_argument(
        "--back-offset",
        default="0,0",
        metavar="X,Y",
        help="the duplex correction read off the duplex test sheet, in mm (default 0,0; "
        f"at most {MAX_BACK_OFFSET_MM:g}; a negative x is fine: --back-offset -1,0.5)",
    )
    parser.add_argument(
        "--cards",
        default="",
        metavar="N[-M],...",
        help="only these cards of deck or standard-deck, to reprint one or a few: 12, "
        "3-7 or 3-7,12 (the proof part numbers every card)",
    )
    parser.add_argument(
        "--cut-lines",
        action="store_true",
        help="crop marks run on to the printable edge of the paper, as lines to cut along",
    )
    parser.add_argument(
        "--fold",
        action="store_true",
        help="for a printer without duplex: 3 cards a sheet, faces above the middle and "
        "backs below, printed single-sided, folded in half, glued and cut",
    )
    parser.add_argument(
        "--service",
        choices=tuple(SERVICES),
        default=None,
        help="write exactly what this print service asks for, for deck or standard-deck: "
        "thegamecrafter and makeplayingcards get a zip of PNGs at their template's size, "
        "drivethrucards one PDF/X-1a file in CMYK (needs Ghostscript)",
    )
    parser.add_argument(
        "--url",
        default=None,
        help="the companion's address; each player aid's QR code opens its game's page "
        "under it (default: LEAFPILE_PUBLIC_URL, else this computer's network address, "
        "port 5000)",
    )
    parser.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE",
        help="where to write it (default: a name that says what it is)",
    )
    parser.set_defaults(handler=run)
    # Let "-1,0.5" through as a value (see OFFSET_LIKE).
    parser._negative_number_matcher = OFFSET_LIKE


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
            ink_saving=not args.full_backs,
            cards=parse_cards(args.cards),
            cut_to_edge=args.cut_lines,
            fold=args.fold,
            language=args.language,
        )
        if args.service:
            if options.card != "poker":
                raise ValueError(
                    "print services make poker-size cards (63.5 x 88.9 mm): leave out --card"
                )
            data, name, _ = service_files(args.service, args.part, language=options.language)
        elif args.format == "png":
            data = card_images(args.part, options, args.dpi)
            name = images_filename(args.part, options, args.dpi)
        elif args.part == "cards":
            raise ValueError(
                "'cards' is for card images (--format png); for PDFs choose deck or standard-deck"
            )
        else:
            data = build(args.part, options)
            name = filename(args.part, options)
    except ValueError as error:
        print(f"leafpile print: {error}", file=sys.stderr)
        return 2
    target = Path(args.output or name)
    try:
        target.write_bytes(data)
    except OSError as error:
        print(f"leafpile print: cannot write {target}: {error.strerror}", file=sys.stderr)
        return 1
    size = f"{len(data) // 1024} KB"
    if args.service:
        service = SERVICES[args.service]
        print(f"wrote {target} ({size}) for {service.title}. {service.upload}")
        return 0
    if args.format == "png":
        print(f"wrote {target} ({size}): one PNG per card with 3 mm bleed, at {args.dpi} dpi.")
        return 0
    print(
        f"wrote {target} ({size}). Print at 100% (actual size) and check the 50 mm ruler; "
        + (
            "print it double-sided, flip on the long edge."
            if sides(args.part, options) == "double"
            else "print it single-sided."
        )
    )
    if args.part in ("aids", "kit"):
        print(f"The player aids' QR codes open game pages under {options.url}")
        warning = address_warning(options.url)
        if warning:
            print(f"leafpile print: warning: {warning}", file=sys.stderr)
    if args.part in CARD_PARTS and not options.fold:
        warning = back_correction_warning(options)
        if warning:
            print(f"leafpile print: warning: {warning}", file=sys.stderr)
    return 0
