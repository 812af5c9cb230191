"""Score pads: one sheet per game, to fill in with a pencil.

Autumn Leaves (6 hands x up to 6 players), Pairs (a tally row per player up
to the losing score, for each table size), Venture (captures and full sets
by rank), Leaf (the L1-L5 breakdown, with the North Wind's column) and
Autumn Ash (the race to 21 with the colour bonuses). Every number printed
comes from :mod:`companion.rules`.
"""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from companion.rules import autumn_ash, autumn_leaves, cards, leaf, pairs, venture

from .i18n import colour_name
from .sheet import (
    FOOTER_TOP_MM,
    INK,
    NOTE_SIZE,
    SAFE_EDGE_MM,
    SANS,
    SANS_BOLD,
    SOFT,
    Options,
    draw_footer,
    end_single_sided_sheet,
    fitted_font_size,
    mm,
    saved,
    wrapped,
)

LINE = HexColor("#8a7f70")
SHADE = HexColor("#efe6d6")
MARGIN_MM = SAFE_EDGE_MM + 5
MIN_TYPE = 7.0
"""The smallest type on a pad (the kit's print standard)."""


def _title(canvas: Canvas, options: Options, title: str, subtitle: str, colour: str) -> float:
    """Draw the sheet's heading; returns the y (points) under it."""
    width, height = options.page_size
    top = height - mm(MARGIN_MM)
    canvas.setFillColor(HexColor(colour))
    canvas.rect(mm(MARGIN_MM), top - mm(10), width - 2 * mm(MARGIN_MM), mm(10), stroke=0, fill=1)
    canvas.setFillColor(HexColor("#ffffff"))
    canvas.setFont(SANS_BOLD, 14)
    canvas.drawString(mm(MARGIN_MM + 3), top - mm(7), title)
    canvas.setFont(SANS, 8)
    canvas.drawRightString(width - mm(MARGIN_MM + 3), top - mm(6.5), subtitle)
    return top - mm(14)


def _grid(
    canvas: Canvas,
    x: float,
    top: float,
    widths: Sequence[float],
    height: float,
    rows: Sequence[Sequence[str]],
    *,
    header_rows: int = 1,
    shade_rows: Sequence[int] = (),
    size: float = 8,
) -> float:
    """A ruled table; ``rows`` of cell texts (blank cells to write in).

    Returns the y (points) under the table.
    """
    total = sum(widths)
    for index, row in enumerate(rows):
        y = top - (index + 1) * height
        if index < header_rows or index in shade_rows:
            canvas.setFillColor(SHADE)
            canvas.rect(x, y, total, height, stroke=0, fill=1)
        cx = x
        for column, (width, text) in enumerate(zip(widths, row, strict=False)):
            if text:
                bold = index < header_rows or column == 0
                canvas.setFillColor(INK)
                # A longer word in another language takes a smaller size,
                # never below the kit's 7 pt, rather than leave its cell.
                room = width - mm(3 if column == 0 else 1)
                canvas.setFont(
                    SANS_BOLD if bold else SANS,
                    max(MIN_TYPE, fitted_font_size(text, bold, size, room)),
                )
                if column == 0:
                    canvas.drawString(cx + mm(1.5), y + height / 2 - size * 0.35, text)
                else:
                    canvas.drawCentredString(cx + width / 2, y + height / 2 - size * 0.35, text)
            cx += width
    canvas.setStrokeColor(LINE)
    canvas.setLineWidth(0.5)
    bottom = top - len(rows) * height
    for index in range(len(rows) + 1):
        y = top - index * height
        canvas.line(x, y, x + total, y)
    cx = x
    for width in (0.0, *widths):
        cx += width
        canvas.line(cx, top, cx, bottom)
    return bottom


def _note(
    canvas: Canvas,
    x: float,
    y: float,
    paragraphs: Sequence[str],
    room: float,
    size: float = 7.5,
) -> float:
    """Paragraphs in grey under a table, each wrapped to ``room`` (the pad's
    width): a longer language takes another line, never the margin."""
    canvas.setFillColor(SOFT)
    canvas.setFont(SANS, size)
    for paragraph in paragraphs:
        for line in wrapped(paragraph, room, size):
            y -= size * 1.35
            canvas.drawString(x, y, line)
    return y


def _autumn_leaves(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    width, _ = options.page_size
    top = _title(
        canvas,
        options,
        "Autumn Leaves",
        tr(
            "%(hands)s hands · up to %(players)s players · low total wins",
            hands=autumn_leaves.HANDS,
            players=autumn_leaves.MAX_PLAYERS,
        ),
        "#ab5d18",
    )
    for block in range(2):  # two games per sheet
        left = mm(MARGIN_MM)
        usable = width - 2 * left
        first = mm(28)
        column = (usable - first) / autumn_leaves.MAX_PLAYERS
        rows: list[list[str]] = [[tr("Player"), *[""] * autumn_leaves.MAX_PLAYERS]]
        rows += [
            [tr("Hand %(number)s", number=n), *[""] * autumn_leaves.MAX_PLAYERS]
            for n in range(1, autumn_leaves.HANDS + 1)
        ]
        rows.append([tr("Total"), *[""] * autumn_leaves.MAX_PLAYERS])
        top = _grid(
            canvas,
            left,
            top,
            [first] + [column] * autumn_leaves.MAX_PLAYERS,
            mm(11),
            rows,
            shade_rows=(len(rows) - 1,),
            size=9,
        )
        if block == 0:
            top = _note(
                canvas,
                left,
                top,
                [
                    tr(
                        "Emptied your hand: minus the cards in your own leaf pile. "
                        "Everyone else: highest card in hand minus cards in own pile, "
                        "0 at least."
                    ),
                    tr(
                        "Check: %(nine)s for a 9 in hand with 6 in the pile; %(four)s for a 4; "
                        "%(empty)s for emptying your hand onto a pile of 5.",
                        nine=autumn_leaves.hand_score(6, 9, winner=False),
                        four=autumn_leaves.hand_score(6, 4, winner=False),
                        empty=autumn_leaves.hand_score(5, None, winner=True),
                    ),
                ],
                usable,
            ) - mm(6)


PAIRS_MANY_ROWS = 8
"""Rows under "6 or more players" (the losing score is the same from 6 up)."""
PAIRS_OWN_TARGET_ROWS = 6


def _pairs(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    width, _ = options.page_size
    top = _title(
        canvas, options, "Pairs", tr("cross off one box per point · the last box loses"), "#7b3f2a"
    )
    left = mm(MARGIN_MM)
    name_w = mm(24)
    longest = pairs.losing_score(2)
    box = min(mm(5.4), (width - 2 * left - name_w) / longest)
    sections: list[tuple[str, int, int | None]] = [
        (
            (
                tr("6 or more players: you lose at %(score)s", score=pairs.losing_score(players))
                if players == 6
                else tr(
                    "%(players)s players: you lose at %(score)s",
                    players=players,
                    score=pairs.losing_score(players),
                )
            ),
            PAIRS_MANY_ROWS if players == 6 else players,
            pairs.losing_score(players),
        )
        for players in range(2, 7)
    ]
    sections.append(
        (
            tr("Your own target: ____ points (shade its box before you start)"),
            PAIRS_OWN_TARGET_ROWS,
            None,
        )
    )
    for label, rows, target in sections:
        canvas.setFillColor(INK)
        canvas.setFont(SANS_BOLD, 9)
        canvas.drawString(left, top - mm(4), label)
        top -= mm(6)
        boxes = target or longest
        for _ in range(rows):
            top -= box + mm(1.2)
            canvas.setStrokeColor(LINE)
            canvas.setLineWidth(0.5)
            canvas.line(left, top, left + name_w - mm(2), top)
            for point in range(1, boxes + 1):
                bx = left + name_w + (point - 1) * box
                losing = point == target
                canvas.setFillColor(HexColor("#d9b9a8") if losing else HexColor("#ffffff"))
                canvas.rect(bx, top, box, box, stroke=1, fill=1)
                canvas.setFillColor(SOFT if not losing else INK)
                canvas.setFont(SANS_BOLD if losing else SANS, NOTE_SIZE)
                canvas.drawCentredString(bx + box / 2, top + box / 2 - NOTE_SIZE * 0.36, str(point))
        top -= mm(3)


def _venture(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    width, _ = options.page_size
    top = _title(
        canvas,
        options,
        "Venture",
        tr(
            "%(low)s-%(high)s players · tally captures by rank · highest total wins",
            low=venture.MIN_PLAYERS,
            high=venture.MAX_PLAYERS,
        ),
        "#2f6f8f",
    )
    left = mm(MARGIN_MM)
    usable = width - 2 * left
    first = mm(26)
    tail = mm(16)
    rank_w = (usable - first - 3 * tail) / len(cards.RANKS)
    header = [
        tr("Rank"),
        *[str(rank) for rank in cards.RANKS],
        tr("Cards"),
        tr("Sets"),
        tr("Score"),
    ]
    copies = [
        tr("(cards)"),
        *[tr("of %(copies)s", copies=cards.copies(rank)) for rank in cards.RANKS],
        tr("-1 each"),
        tr("+1 each"),
        "",
    ]
    rows = [header, copies] + [[""] * len(header) for _ in range(venture.MAX_PLAYERS)]
    rows.append([tr("Final pool"), *[""] * (len(header) - 1)])
    top = _grid(
        canvas,
        left,
        top,
        [first] + [rank_w] * len(cards.RANKS) + [tail] * 3,
        mm(12),
        rows,
        header_rows=2,
        shade_rows=(len(rows) - 1,),
        size=8.5,
    )
    _note(
        canvas,
        left,
        top,
        [
            tr(
                "Write each player's captured cards of every rank in their row, and what is "
                "left in the final pool on the last line."
            ),
            tr(
                "A rank is a full set for a player who holds at least one of it when their "
                "cards plus the pool's make all of that rank: +1 a card, pool cards too."
            ),
            tr(
                "Every other captured card is -1: Score = Sets minus the captured cards "
                "outside a set."
            ),
        ],
        usable,
    )


def _leaf(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    width, _ = options.page_size
    top = _title(
        canvas, options, "Leaf", tr("final scoring · the North Wind column for solo"), "#2e7d5b"
    )
    left = mm(MARGIN_MM)
    usable = width - 2 * left
    first = mm(62)
    players = 4
    column = (usable - first) / (players + 1)
    header = ["", *[tr("Player")] * players, tr("North Wind")]
    lines = [
        tr("Acorn tokens gained in play"),
        tr("-3 tokens (x 3, subtract)"),
        tr("Winter Den animals"),
        *["  " + tr("type %(number)s", number=n) for n in range(1, 6)],
        tr("Adult mushroom groups"),
        *["  " + tr("group %(number)s", number=n) for n in range(1, 4)],
        tr("Sun + leaf cards, halved"),
        tr("Tree: highest 6, second 3"),
        tr("North Wind: animals beyond yours"),
        tr("Total"),
    ]
    rows = [header] + [[label, *[""] * (players + 1)] for label in lines]
    # The Den's and the mushroom groups' heading rows (row 0 is the header).
    shade = [
        lines.index(tr("Winter Den animals")) + 1,
        lines.index(tr("Adult mushroom groups")) + 1,
    ]
    top = _grid(
        canvas,
        left,
        top,
        [first] + [column] * (players + 1),
        mm(9.5),
        rows,
        shade_rows=(*shade, len(rows) - 1),
        size=8.5,
    )
    counts = range(1, 7)
    top -= mm(5)
    top = _grid(
        canvas,
        left,
        top,
        [mm(40)] + [mm(12)] * len(counts),
        mm(7),
        [
            [tr("How many"), *[str(n) for n in counts]],
            [tr("Den animals"), *[str(leaf.animal_acorns(n)) for n in counts]],
            [tr("Mushroom group"), *[str(leaf.mushroom_acorns(n)) for n in counts]],
        ],
        size=8,
    )
    _note(
        canvas,
        left,
        top,
        [
            tr(
                "Animals still in the Forest score nothing. Ties at the top of the tree all "
                "take 6 and nobody takes 3. Most acorns wins; tie: most leaf cards + sun."
            ),
        ],
        usable,
    )


RED_TRIO = [("red", 1), ("red", 2), ("red", 3)]


def _autumn_ash(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    width, _ = options.page_size
    top = _title(
        canvas,
        options,
        "Autumn Ash",
        tr(
            "race to %(total)s · pips plus one bonus per colour per move",
            total=autumn_ash.WINNING_TOTAL,
        ),
        "#926a09",
    )
    left = mm(MARGIN_MM)
    canvas.setFillColor(INK)
    canvas.setFont(SANS, 8.5)
    bonuses = "   ".join(
        f"{colour_name(tr, colour)} +{autumn_ash.COLOUR_BONUS[colour]}"
        for colour in autumn_ash.COLOURS
        if autumn_ash.COLOUR_BONUS[colour]
    )
    canvas.drawString(
        left,
        top - mm(3),
        tr("Colour bonuses: %(bonuses)s.  Pips: pawn 1, drone 2, queen 3.", bonuses=bonuses),
    )
    top -= mm(7)
    usable = width - 2 * left
    half = (usable - mm(6)) / 2
    rows_count = 18
    for side_index, side in enumerate(("rainbow", "xeno")):
        x = left + side_index * (half + mm(6))
        header = [tr("Move"), tr("Pips"), tr("Bonus"), tr("Total")]
        rows = [header] + [[str(n), "", "", ""] for n in range(1, rows_count + 1)]
        canvas.setFillColor(INK)
        canvas.setFont(SANS_BOLD, 10)
        canvas.drawString(
            x,
            top - mm(4),
            f"{side.capitalize()}: "
            + " > ".join(colour_name(tr, c) for c in autumn_ash.PROGRESSIONS[side]),
        )
        _grid(
            canvas,
            x,
            top - mm(6),
            [half * 0.16, half * 0.28, half * 0.28, half * 0.28],
            mm(10.5),
            rows,
            size=9,
        )
    canvas.setFillColor(SOFT)
    canvas.setFont(SANS, 7.5)
    canvas.drawString(
        left,
        mm(FOOTER_TOP_MM + 2),
        tr(
            "The first total of %(total)s or more wins at once (check: a red trio scores "
            "%(points)s).",
            total=autumn_ash.WINNING_TOTAL,
            points=autumn_ash.bag_points(RED_TRIO),
        ),
    )


PADS = (
    ("Autumn Leaves", _autumn_leaves),
    ("Pairs", _pairs),
    ("Venture", _venture),
    ("Leaf", _leaf),
    ("Autumn Ash", _autumn_ash),
)


def draw_scorepads(canvas: Canvas, options: Options) -> None:
    for number, (name, draw) in enumerate(PADS, start=1):
        with saved(canvas):
            draw(canvas, options)
        draw_footer(
            canvas,
            options,
            options.tr(
                "Score pads · %(game)s · %(number)s of %(count)s",
                game=name,
                number=number,
                count=len(PADS),
            ),
        )
        end_single_sided_sheet(canvas)
