"""The print-and-play kit: pure functions that return PDF bytes.

>>> sorted(PARTS) == sorted(["duplex-test", "deck", "standard-deck", "proof", "aids",
...                          "scorepads", "board", "pyramids", "kit"])
True
>>> build("deck", Options(paper="letter"))[:5]
b'%PDF-'

Each part is drawn by a function taking a reportlab canvas and the
:class:`~printables.sheet.Options`; :func:`build` wraps one part (or, for
``kit``, every part in turn) into a single PDF. Nothing here touches the web
app or the database: rule facts come from :mod:`companion.rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas

from .i18n import N_, KitError
from .sheet import BLANK_BACKS, Options, finish, new_canvas, parse_offset

__all__ = ["PARTS", "Options", "Part", "build", "parse_offset"]


@dataclass(frozen=True)
class Part:
    name: str
    title: str
    """In English; ``Options.tr(part.title)`` in another language."""
    blurb: str
    draw: Callable[[Canvas, Options], None]
    duplex: bool = False
    """Printed on both sides of the paper (flip on the long edge)."""


def _duplex_test(canvas: Canvas, options: Options) -> None:
    from .duplex import draw_duplex_test

    draw_duplex_test(canvas, options)


def _deck(canvas: Canvas, options: Options) -> None:
    from .deck import draw_pairs_deck

    draw_pairs_deck(canvas, options)


def _standard_deck(canvas: Canvas, options: Options) -> None:
    from .deck import draw_standard_deck

    draw_standard_deck(canvas, options)


def _proof(canvas: Canvas, options: Options) -> None:
    from .proof import draw_proof

    draw_proof(canvas, options)


def _aids(canvas: Canvas, options: Options) -> None:
    from .aids import draw_aids

    draw_aids(canvas, options)


def _scorepads(canvas: Canvas, options: Options) -> None:
    from .scorepads import draw_scorepads

    draw_scorepads(canvas, options)


def _board(canvas: Canvas, options: Options) -> None:
    from .board import draw_board

    draw_board(canvas, options)


def _pyramids(canvas: Canvas, options: Options) -> None:
    from .pyramids import draw_pyramids

    draw_pyramids(canvas, options)


_SINGLE_PARTS = (
    Part(
        "duplex-test",
        N_("Duplex test sheet"),
        N_("one sheet that shows the back correction your printer needs"),
        _duplex_test,
        duplex=True,
    ),
    Part(
        "deck",
        N_("Pairs deck"),
        N_("55 cards (one 1, two 2s ... ten 10s), the cut card and backs"),
        _deck,
        duplex=True,
    ),
    Part(
        "standard-deck",
        N_("Standard deck"),
        N_("52 cards for the Autumn Leaves solitaire, with backs"),
        _standard_deck,
        duplex=True,
    ),
    Part(
        "proof",
        N_("Proof sheet"),
        N_("every card of both decks, small and numbered, to check before printing them"),
        _proof,
    ),
    Part(
        "aids",
        N_("Player aids"),
        N_("one card per game in our own words, with a QR code to its game's page"),
        _aids,
    ),
    Part(
        "scorepads",
        N_("Score pads"),
        N_("Autumn Leaves, Pairs, Venture, Leaf and Autumn Ash score sheets"),
        _scorepads,
    ),
    Part(
        "board",
        N_("Autumn Ash board"),
        N_("the 5 × 6 board on one sheet, the two stash strips on another"),
        _board,
    ),
    Part(
        "pyramids",
        N_("Pyramid nets"),
        N_("10 colours × 2 trios of pyramids to cut, fold and glue"),
        _pyramids,
    ),
)


def _kit(canvas: Canvas, options: Options) -> None:
    """Every part in turn; single-sided sheets get blank backs, so the whole
    file prints right double-sided and no part shares a sheet of paper with
    another (every part has an even number of pages)."""
    setattr(canvas, BLANK_BACKS, True)
    for part in _SINGLE_PARTS:
        part.draw(canvas, options)


PARTS: dict[str, Part] = {part.name: part for part in _SINGLE_PARTS}
PARTS["kit"] = Part(
    "kit",
    N_("The whole kit"),
    N_(
        "every part above in one PDF, to print double-sided (blank backs behind the "
        "single-sided sheets)"
    ),
    _kit,
    duplex=True,
)


DECKS = ("deck", "standard-deck")
DECK_SIZES = {"deck": 56, "standard-deck": 52}
"""Cards in each deck (the Pairs deck's 55 and its cut card), for ``Options.cards``."""


def check(part: str, options: Options) -> None:
    """Refuse, before any drawing, options that do not go with ``part``.

    Raises ``ValueError`` naming the part or the options.
    """
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}: choose one of {', '.join(PARTS)}")
    if options.cards:
        if part not in DECKS:
            raise KitError(
                "only a deck's cards can be chosen one by one: choose %(decks)s, not %(part)s",
                decks=" or ".join(DECKS),
                part=part,
            )
        beyond = [number for number in options.cards if number > DECK_SIZES[part]]
        if beyond:
            raise KitError(
                "the %(deck)s has %(count)s cards: there is no card %(card)s (the proof "
                "sheet numbers them)",
                deck=PARTS[part].title,
                count=DECK_SIZES[part],
                card=beyond[0],
            )


def sides(part: str, options: Options) -> str:
    """How to print ``part`` with these options: ``double`` or ``single``."""
    duplex = PARTS[part].duplex and not (options.fold and part in DECKS)
    return "double" if duplex else "single"


def build(part: str, options: Options | None = None) -> bytes:
    """The PDF of one part of the kit (``kit`` = every part in one file).

    Raises ``ValueError`` naming the part when it is not one of :data:`PARTS`,
    or the options that do not go with it (:func:`check`).
    """
    options = options or Options()
    check(part, options)
    chosen = PARTS[part]
    canvas, buffer = new_canvas(
        options, f"Leafpile · {options.tr(chosen.title)}", duplex=sides(part, options) == "double"
    )
    chosen.draw(canvas, options)
    return finish(canvas, buffer)


def filename(part: str, options: Options) -> str:
    """A download name that says what was chosen: ``leafpile-deck-a4-poker.pdf``
    (``-full-backs`` when the ink-saving backs were turned off, ``-de`` for a
    kit printed in German)."""
    bits = ["leafpile", part, options.paper]
    if part in ("deck", "standard-deck", "kit"):
        bits.append(options.card)
        if options.bleed:
            bits.append("bleed")
        if not options.ink_saving:
            bits.append("full-backs")
        if options.fold:
            bits.append("fold")
        if options.cut_to_edge:
            bits.append("cut-lines")
    if options.language != "en":
        bits.append(options.language.replace("_", "-"))
    if options.cards and part in DECKS:
        from .deck import card_ranges

        bits.append(card_ranges(options.cards).replace(" ", "-").replace(",", ""))
    return "-".join(bits) + ".pdf"
