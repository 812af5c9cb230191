"""Player aids: one half-page card per game, in our own words, with a QR code.

Two aids share a sheet (cut on the dashed line). The numbers on them (losing
scores, slug sizes, scoring tables, bonuses) come from :mod:`companion.rules`,
so the aids and the referees always agree. The QR code opens the game's own
page (:attr:`Aid.page`) under the companion's public address chosen in
:class:`~printables.sheet.Options`, and the address is printed under it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import qrcode
from reportlab.lib.colors import HexColor
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import FILL_NON_ZERO, Canvas

from companion.rules import autumn_ash, autumn_leaves, leaf, north_wind, pairs, venture

from .i18n import ENGLISH, N_, Words, colour_name, words
from .sheet import (
    DEFAULT_URL,
    FOOTER_TOP_MM,
    INK,
    SAFE_EDGE_MM,
    SANS,
    SANS_BOLD,
    SOFT,
    Options,
    draw_footer,
    end_single_sided_sheet,
    furniture,
    mm,
    saved,
    split_words,
)

QR_MM = 24.0
"""Side of the printed QR code (big enough for a phone at arm's length)."""
ADDRESS_SIZE = 9.0
"""The address under the QR code, the only way in when a code will not scan:
9 pt, whole, on as many lines as it needs (never shortened). Its capitals are
2.3 mm tall, about 12 minutes of arc at arm's length (65 cm): more than twice
the 5' letters of an eye chart's 20/20 line, so it reads off a sheet lying on
the table."""
CAPTION_SIZE = 7.0
"""What the code opens ("scan: a Pairs table")."""
MIN_SIZE = 7.0
"""The smallest text an aid is set in: below it the aid does not fit."""
QR_GAP_MM = 3.0
"""Bare paper between the QR code (and its caption and address) and the text beside it."""

Block = tuple[str, ...] | str
"""A paragraph (str) or a table row (a tuple of cells)."""


@dataclass(frozen=True)
class Aid:
    game: str
    tagline: str
    colour: str
    """The title band behind white type and the headings on white paper: dark
    enough for 4.5:1 both ways (``tests/printables/test_print_type.py`` measures it)."""
    sections: tuple[tuple[str, tuple[Block, ...]], ...]
    page: str = ""
    """The game's own page, relative to the companion's address ("new/pairs")."""
    name: str = ""
    """The game's name, which stays in every language (``game`` when empty):
    the QR code's caption says what it opens with it."""

    @property
    def game_name(self) -> str:
        return self.name or self.game

    def url(self, base: str) -> str:
        """What this aid's QR code opens, under the companion's address ``base``."""
        return urljoin(base if base.endswith("/") else base + "/", self.page)

    @property
    def key_lines(self) -> list[str]:
        """Every paragraph and table row, as printed (for tests and the web page)."""
        lines: list[str] = []
        for heading, blocks in self.sections:
            lines.append(heading)
            for block in blocks:
                lines.append(block if isinstance(block, str) else "  ".join(block))
        return lines


def _pairs_table(tr: Words) -> tuple[Block, ...]:
    counts = range(2, 7)
    return (
        (tr("Players"), *[f"{n}{'+' if n == 6 else ''}" for n in counts]),
        (tr("You lose at"), *[str(pairs.losing_score(n)) for n in counts]),
    )


def pairs_aid(tr: Words = ENGLISH) -> Aid:
    return Aid(
        "Pairs",
        tr("2 or more players · points are bad · one loser, no winner"),
        "#7b3f2a",
        (
            (
                tr("The deck"),
                (
                    tr(
                        "55 cards: one 1, two 2s, three 3s ... ten 10s. The blank cut card "
                        "stays under the deck so nobody sees the bottom card."
                    ),
                    tr(
                        "Shuffle and put 5 cards face down as discards (again after every "
                        "reshuffle)."
                    ),
                ),
            ),
            (
                tr("Each round"),
                (
                    tr(
                        "Everyone gets one card face up. The lowest card goes first; tied "
                        "players each take one more card and compare only those."
                    ),
                    tr("On your turn: HIT (take a card face up) or FOLD. Turns pass to the left."),
                    tr(
                        "PAIR: your new card matches a rank already in front of you. You score "
                        "that rank (a pair of 8s is 8 points) and the round ends. Keep one of "
                        "the pair as your score."
                    ),
                    tr(
                        "FOLD: take the lowest card showing on the whole table and score it. "
                        "The round ends."
                    ),
                    tr(
                        "Then all cards in play go to the discards. Scoring cards stay out "
                        "until the game ends."
                    ),
                ),
            ),
            (
                tr("The end"),
                (
                    *_pairs_table(tr),
                    tr("The first player whose total reaches the number for the table loses."),
                ),
            ),
        ),
        page="new/pairs",
    )


def continuous_aid(tr: Words = ENGLISH) -> Aid:
    return Aid(
        "Continuous Pairs",
        tr("Pairs as one long round · 2 or more players · points are bad"),
        "#9b2d20",
        (
            (
                tr("Same as Pairs"),
                (
                    tr(
                        "Deck, burn of 5, turns to the left, pairs, scoring cards and the "
                        "losing scores all work as in Pairs."
                    ),
                ),
            ),
            (
                tr("What changes"),
                (
                    tr(
                        "After a pair or a fold only that player clears their cards. "
                        "Everybody else keeps what is in front of them."
                    ),
                    tr(
                        "A fold may take ANY card in play, not only the lowest (the "
                        "companion suggests the lowest; you may pick another)."
                    ),
                    tr("With no cards in front of you, you must hit."),
                    tr("When the deck runs out, shuffle the discards, burn 5 and go on."),
                ),
            ),
            (
                tr("The end"),
                (
                    *_pairs_table(tr),
                    tr("First to reach the table's number loses."),
                ),
            ),
        ),
        page="new/pairs",
        name="Pairs",
    )


def venture_aid(tr: Words = ENGLISH) -> Aid:
    counts = range(venture.MIN_PLAYERS, venture.MAX_PLAYERS + 1)
    return Aid(
        "Venture",
        tr(
            "%(low)s-%(high)s players · bid, bluff, capture as little as you can",
            low=venture.MIN_PLAYERS,
            high=venture.MAX_PLAYERS,
        ),
        "#2f6f8f",
        (
            (
                tr("Set up"),
                (
                    (tr("Players"), *[str(n) for n in counts]),
                    (tr("Slug"), *[str(venture.slug_size(n)) for n in counts]),
                    (tr("Hand"), *[str(venture.hand_size(n)) for n in counts]),
                    tr(
                        "Deal the slug face down in the middle, the rest out evenly. Turn the "
                        "slug face up: it is the first pool."
                    ),
                ),
            ),
            (
                tr("Each round"),
                (
                    tr(
                        "Everyone lays one card face down as a bid. Talk, promise, bluff. "
                        "Reveal together."
                    ),
                    tr(
                        "Bids fire from the lowest rank up. A rank bid by two or more "
                        "players misfires: it takes nothing and stays on the table."
                    ),
                    tr(
                        "The lowest bid (if it does not misfire) takes every card of the "
                        "highest rank on the table."
                    ),
                    tr(
                        "Every other bid takes all table cards ranked below it: pool and "
                        "bids, fired or not. A bid taken before it fires does nothing."
                    ),
                    tr("What is left is the next pool. Play until hands are empty."),
                ),
            ),
            (
                tr("Scoring"),
                (
                    tr(
                        "Each captured card is -1. A whole rank (your captures plus those "
                        "left in the final pool, if you hold at least one) is +1 a card "
                        "instead. Highest total wins."
                    ),
                ),
            ),
        ),
        page="new/venture",
    )


def autumn_leaves_aid(tr: Words = ENGLISH) -> Aid:
    return Aid(
        "Autumn Leaves",
        tr(
            "%(low)s-%(high)s players · %(hands)s hands · empty your hand · low score wins",
            low=autumn_leaves.MIN_PLAYERS,
            high=autumn_leaves.MAX_PLAYERS,
            hands=autumn_leaves.HANDS,
        ),
        "#ab5d18",
        (
            (
                tr("Set up"),
                (
                    tr(
                        "Deal %(cards)s cards each from a Pairs deck; the rest is the deck, "
                        "with room for discards.",
                        cards=autumn_leaves.HAND_SIZE,
                    ),
                ),
            ),
            (
                tr("Each round"),
                (
                    tr(
                        "Everyone picks a card and all reveal at once. In the first round "
                        "each card simply starts its owner's leaf pile."
                    ),
                    tr(
                        "Later: the lowest card acts first. Ties: compare your own piles "
                        "from the top down; lower goes first, a card beats no card, "
                        "identical piles go in random order. Check again after each play."
                    ),
                    tr(
                        "A card goes on ANY pile whose top is exactly one rank above or "
                        "below it (a 6 on a 5 or a 7). If it can go somewhere, it must."
                    ),
                    tr("If it cannot: take it back, or discard it and draw one."),
                    tr(
                        "COLD SNAP: if no revealed card fits anywhere, everyone puts theirs "
                        "on their own pile, in play order."
                    ),
                ),
            ),
            (
                tr("End of a hand"),
                (
                    tr(
                        "It ends when someone plays their last card or the last card is "
                        "drawn. Cards not yet played go back to their hands."
                    ),
                    tr("Emptied your hand: minus 1 per card in your own pile."),
                    tr(
                        "Everyone else: highest card in hand minus cards in own pile, "
                        "never below 0 (a 9 with 6 in the pile is 3)."
                    ),
                ),
            ),
        ),
        page="new/autumn_leaves",
    )


LEVELS = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}
"""The North Wind's levels as the aid names them."""


def leaf_aid(tr: Words = ENGLISH) -> Aid:
    def start(level: str) -> str:
        sun, animals = north_wind.STARTING[level]
        if not animals:
            return tr("%(level)s %(sun)s sun, no animals", level=tr(LEVELS[level]), sun=sun)
        return tr.n(
            "%(level)s %(sun)s sun, %(count)s animal",
            "%(level)s %(sun)s sun, %(count)s animals",
            animals,
            level=tr(LEVELS[level]),
            sun=sun,
        )

    counts = range(1, 6)
    return Aid(
        tr("Leaf: the North Wind"),
        tr("solo opponent turn and final scoring"),
        "#2e7d5b",
        (
            (
                tr("Set up"),
                (
                    tr(
                        "The North Wind starts with %(levels)s (random animals), never leaf "
                        "cards. You go first.",
                        levels="; ".join(start(d) for d in north_wind.DIFFICULTIES),
                    ),
                ),
            ),
            (
                tr("Its turn"),
                (
                    tr(
                        "1 Flip a card. Reshuffle card: shuffle all 13, flip again. Empty "
                        "leaf pile: flip again."
                    ),
                    tr(
                        "2 Place that leaf: most tips of the card's colour, then most tips, "
                        "then fewest leaves with your mushrooms, then red, orange, brown, "
                        "yellow, green tips. Still tied: you choose."
                    ),
                    tr(
                        "3 Touching %(limit)s tips or fewer: a baby mushroom on it.",
                        limit=north_wind.BOOST_LIMIT,
                    ),
                    tr(
                        "4 One action per touched tip. Yellow +1 sun. Green +1 acorn. Red: "
                        "a baby mushroom before the first hibernation, after that grow one. "
                        "Orange: best animal for its Forest (arrow breaks ties). Brown: "
                        "climb one (fork: follow the arrow; top: +1 acorn). Nothing to do: "
                        "+1 acorn."
                    ),
                    tr(
                        "5 With %(cost)s+ sun it spends %(cost)s to advance the season.",
                        cost=north_wind.SEASON_COST,
                    ),
                    tr(
                        "Frost: it hibernates its biggest group (tie: fewest of that animal "
                        "on the mat)."
                    ),
                ),
            ),
            (
                tr("Scoring"),
                (
                    (tr("How many"), *[str(n) for n in counts]),
                    (tr("Den animals"), *[str(leaf.animal_acorns(n)) for n in counts]),
                    (tr("Adult mushrooms"), *[str(leaf.mushroom_acorns(n)) for n in counts]),
                    tr(
                        "Den animals count per type; a mushroom group is adults on touching "
                        "leaves. Each one more adds 1."
                    ),
                    tr(
                        "Sun + leaf cards: half, rounded down (%(half)s for 5). Tree: highest "
                        "6, second 3. -3 per -3 token.",
                        half=leaf.leftover_acorns(3, 2),
                    ),
                    tr("North Wind: +1 per animal in its Forest beyond yours."),
                ),
            ),
        ),
        page="new/north_wind",
        name="Leaf",
    )


def autumn_ash_aid(tr: Words = ENGLISH) -> Aid:
    bonuses = ", ".join(
        f"{colour_name(tr, colour)} +{autumn_ash.COLOUR_BONUS[colour]}"
        for colour in autumn_ash.COLOURS
        if autumn_ash.COLOUR_BONUS[colour]
    )
    return Aid(
        "Autumn Ash",
        tr(
            "2 players · pyramids · first to %(total)s points wins",
            total=autumn_ash.WINNING_TOTAL,
        ),
        "#926a09",
        (
            (
                tr("Pieces"),
                (
                    tr("Pawn = small (1 pip), drone = medium (2), queen = large (3)."),
                    tr(
                        "Rainbow: %(rainbow)s.  Xeno: %(xeno)s.",
                        rainbow=" > ".join(colour_name(tr, c) for c in autumn_ash.RAINBOW),
                        xeno=" > ".join(colour_name(tr, c) for c in autumn_ash.XENO),
                    ),
                    tr(
                        "Black and purple are burnt ash: they never move, still block and "
                        "can still be bagged."
                    ),
                    tr(
                        "Set one green and one clear trio aside. The start diagram is lost: "
                        "agree a start layout together."
                    ),
                ),
            ),
            (
                tr("Your turn"),
                (
                    tr(
                        "1 You may enter a piece of your first colour on an empty corner "
                        "entry point."
                    ),
                    tr(
                        "2 Move one piece up to 2 squares orthogonally, never jumping. It "
                        "becomes the next colour of your side (any size you have left)."
                    ),
                    tr(
                        "3 A straight line of 3 or more of one colour (row, column, "
                        "diagonal, or up a stack) is bagged: score it."
                    ),
                    tr(
                        "Blocking: a pawn keeps enemy queens out of the squares beside it; "
                        "a drone stops enemy drones and queens coming at it head on."
                    ),
                    tr(
                        "Stacking ends the move and the piece becomes a pawn. Anything caps "
                        "a queen; pawns cap drones; drones or pawns cap pawns."
                    ),
                ),
            ),
            (
                tr("Scoring"),
                (
                    tr(
                        "Pips bagged, plus once per colour per move: %(bonuses)s.",
                        bonuses=bonuses,
                    ),
                ),
            ),
        ),
        page="new/autumn_ash",
    )


def all_aids(language: str = "en") -> list[Aid]:
    """The six aids in print order, in ``language``."""
    tr = words(language)
    return [
        pairs_aid(tr),
        continuous_aid(tr),
        venture_aid(tr),
        autumn_leaves_aid(tr),
        leaf_aid(tr),
        autumn_ash_aid(tr),
    ]


def qr_matrix(url: str) -> list[list[bool]]:
    """The QR code's modules for ``url`` (True = dark), without quiet zone."""
    code = qrcode.QRCode(border=0, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(url)
    code.make(fit=True)
    return [list(row) for row in code.get_matrix()]


def draw_qr(canvas: Canvas, url: str, x: float, y: float, size: float) -> None:
    """Draw the QR code for ``url`` with its bottom-left corner at (x, y).

    Dark modules are merged into horizontal runs, one rectangle per run.
    """
    matrix = qr_matrix(url)
    cell = size / len(matrix)
    canvas.setFillColor(HexColor("#000000"))
    for row, modules in enumerate(matrix):
        top = y + size - (row + 1) * cell
        column = 0
        while column < len(modules):
            if modules[column]:
                start = column
                while column < len(modules) and modules[column]:
                    column += 1
                canvas.rect(x + start * cell, top, (column - start) * cell, cell, stroke=0, fill=1)
            else:
                column += 1


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float


def aid_boxes(options: Options) -> tuple[Box, Box]:
    """The two half-page aid areas of a sheet (points): top, then bottom."""
    width, height = options.page_size
    margin = mm(SAFE_EDGE_MM + 3)
    low = mm(FOOTER_TOP_MM + 1)
    high = height - margin
    gap = mm(8)
    each = (high - low - gap) / 2
    return (
        Box(margin, low + each + gap, width - 2 * margin, each),
        Box(margin, low, width - 2 * margin, each),
    )


Op = tuple[str, float, float, str]
"""A drawing step: (kind, x, y, text); kind is heading, label, cell or line."""


def _units(aid: Aid) -> list[list[tuple[str, Block]]]:
    """Pieces that must stay in one column: each section whole, its heading
    with every paragraph and table row under it (a reader who finds THE END
    at the foot of one column should not have to look for its rule in the
    next)."""
    units: list[list[tuple[str, Block]]] = []
    for heading, blocks in aid.sections:
        unit: list[tuple[str, Block]] = [("heading", heading)]
        unit += [("row" if isinstance(block, tuple) else "para", block) for block in blocks]
        units.append(unit)
    return units


@dataclass(frozen=True)
class QrBlock:
    """The QR code at the top right of an aid, its caption and the address
    under it (points): text beside it is narrower, and none goes under it."""

    x: float
    y: float
    """The code's bottom-left corner."""
    right: float
    """The right edge the caption and address lines are set flush to."""
    caption: float
    """The caption's baseline."""
    lines: tuple[tuple[str, float], ...]
    """The address lines and their baselines."""
    bottom: float
    """The lowest point of the block, its gap below included."""
    code_bottom: float
    """Where text beside the code must stay above to be set narrow."""


def qr_block(aid: Aid, box: Box, url: str, columns: int = 2) -> QrBlock:
    """Where the QR code, its caption and its address go in ``box``."""
    size = mm(QR_MM)
    x = box.x + box.w - mm(3) - size
    y = box.y + box.h - mm(11 + 3) - size
    right = x + size
    caption = y - mm(1.2) - CAPTION_SIZE * 0.905
    room = _column_width(box, columns)
    lines = []
    baseline = caption
    for line in address_lines(aid.url(url), room):
        baseline -= ADDRESS_SIZE * 1.25
        lines.append((line, baseline))
    bottom = baseline - ADDRESS_SIZE * 0.212 - mm(QR_GAP_MM)
    return QrBlock(x, y, right, caption, tuple(lines), bottom, y - mm(QR_GAP_MM))


def _column_width(box: Box, columns: int) -> float:
    return (box.w - 2 * mm(3) - (columns - 1) * mm(5)) / columns


def _layout(
    aid: Aid, box: Box, size: float, url: str = DEFAULT_URL, columns: int = 2
) -> list[Op] | None:
    """Where every word goes at font ``size``; None if the aid overflows.

    Each section stays in one column. The last column holds the QR code at
    its top right: lines beside the code are set narrower, and lines that
    would meet the code's caption or address go on below them.
    """
    pad = mm(3)
    title_h = mm(11)
    column_gap = mm(5)
    column_w = _column_width(box, columns)
    qr = qr_block(aid, box, url, columns)
    leading = size * 1.22
    top = box.y + box.h - title_h - pad
    bottom = box.y + pad
    last = columns - 1

    def drop(col: int, y: float, step: float, high: float) -> float:
        """The next baseline ``step`` below ``y`` for type ``high`` tall,
        moved below the code's caption and address if it would meet them."""
        y -= step
        if col == last and y - 0.3 * high < qr.code_bottom and y + high > qr.bottom:
            y = qr.bottom - high
        return y

    def width_at(col: int, at_y: float) -> float:
        if col == last and at_y - 0.3 * size >= qr.code_bottom:
            return qr.x - mm(QR_GAP_MM) - (box.x + pad + col * (column_w + column_gap))
        return column_w

    def lay(text: str, col: int, x: float, y: float) -> tuple[list[Op], float]:
        """A paragraph's lines from baseline ``y`` on: (the lines, the last baseline)."""
        lines: list[Op] = []
        words = split_words(text)
        while words:
            y = drop(col, y, leading, size)
            room = width_at(col, y)
            take = 1
            while (
                take < len(words) and stringWidth(" ".join(words[: take + 1]), SANS, size) <= room
            ):
                take += 1
            lines.append(("line", x, y, " ".join(words[:take])))
            words = words[take:]
        return lines, y

    def place(unit: list[tuple[str, Block]], col: int, y: float) -> tuple[list[Op], float]:
        ops: list[Op] = []
        x = box.x + pad + col * (column_w + column_gap)
        # A table's columns line up: one label width and one column pitch for
        # all its rows, set by its longest label and its narrowest row.
        rows = [tuple(block) for kind, block in unit if kind == "row"]
        if rows:
            room = min(width_at(col, y - k * leading) for k in range(len(unit) + 2))
            first = max(
                room * 0.3, max(stringWidth(row[0], SANS_BOLD, size) for row in rows) + mm(2)
            )
            rest = (room - first) / (max(len(row) for row in rows) - 1)
        for kind, block in unit:
            if kind == "heading":
                y = drop(col, y, size * 1.25, size * 1.15)
                ops.append(("heading", x, y, str(block)))
                y -= size * 0.25
            elif kind == "row":
                y = drop(col, y, leading, size)
                cells = tuple(block)
                ops.append(("label", x, y, cells[0]))
                for index, cell in enumerate(cells[1:]):
                    ops.append(("cell", x + first + (index + 0.5) * rest, y, cell))
            else:
                lines, end = lay(str(block), col, x, y)
                steps = [a[2] - b[2] for a, b in zip(lines, lines[1:], strict=False)]
                if any(step > leading + 0.01 for step in steps):
                    # It would run on below the code's address: the whole
                    # paragraph goes there instead, not half of it.
                    lines, end = lay(str(block), col, x, qr.bottom - size + leading)
                ops += lines
                y = end - leading * 0.3
        return ops, y

    ops: list[Op] = []
    col, y = 0, top
    for unit in _units(aid):
        placed, end = place(unit, col, y)
        while end < bottom:
            col, y = col + 1, top
            if col >= columns:
                return None
            placed, end = place(unit, col, y)
        ops.extend(placed)
        y = end
    return ops


def fitted_size(aid: Aid, box: Box, url: str = DEFAULT_URL) -> float:
    """The largest font size (10.5 pt down to :data:`MIN_SIZE`) at which the
    aid fits its box, every section whole in one column.

    Raises ``ValueError`` naming the game when even the smallest size overflows.
    """
    size = 10.5
    while size >= MIN_SIZE - 1e-9:
        if _layout(aid, box, size, url) is not None:
            return size
        size -= 0.25
    raise ValueError(f"the {aid.game} aid does not fit half a page")


KAPPA = 0.5523
"""Bezier handle length (in radii) for a quarter circle."""


def _title_band(canvas: Canvas, x: float, y: float, w: float, h: float, r: float) -> None:
    """The title band in the current fill colour: rounded at the top, square at
    the bottom, as one outline that never crosses itself, filled non-zero, so
    no overlap can punch a hole in it (an even-odd fill of two overlapping
    shapes once left the lower half of every title white on white)."""
    handle = r * KAPPA
    path = canvas.beginPath()
    path.moveTo(x, y)
    path.lineTo(x + w, y)
    path.lineTo(x + w, y + h - r)
    path.curveTo(x + w, y + h - r + handle, x + w - r + handle, y + h, x + w - r, y + h)
    path.lineTo(x + r, y + h)
    path.curveTo(x + r - handle, y + h, x, y + h - r + handle, x, y + h - r)
    path.close()
    canvas.drawPath(path, stroke=0, fill=1, fillMode=FILL_NON_ZERO)


def qr_caption(tr: Words, aid: Aid) -> str:
    """What the aid's QR code opens, in words ("scan: an Autumn Ash table")."""
    if tr.language == "en":  # English alone needs its a/an
        return f"scan: {table_phrase(aid.game_name)}"
    return tr("scan: a %(game)s table", game=aid.game_name)


def _draw_aid(canvas: Canvas, aid: Aid, box: Box, url: str, tr: Words = ENGLISH) -> None:
    colour = HexColor(aid.colour)
    with saved(canvas):
        canvas.setStrokeColor(colour)
        canvas.setLineWidth(1.2)
        canvas.roundRect(box.x, box.y, box.w, box.h, mm(3), stroke=1, fill=0)
        canvas.setFillColor(colour)
        _title_band(canvas, box.x, box.y + box.h - mm(9), box.w, mm(9), mm(3))
        canvas.setFillColor(HexColor("#ffffff"))
        canvas.setFont(SANS_BOLD, 13)
        canvas.drawString(box.x + mm(3), box.y + box.h - mm(6.6), aid.game)
        canvas.setFont(SANS, 7.5)
        canvas.drawRightString(box.x + box.w - mm(3), box.y + box.h - mm(6.1), aid.tagline)
        size = fitted_size(aid, box, url)
        fonts = {
            "heading": (SANS_BOLD, size * 1.15),
            "label": (SANS_BOLD, size),
            "cell": (SANS, size),
            "line": (SANS, size),
        }
        for kind, x, y, text in _layout(aid, box, size, url) or []:
            canvas.setFillColor(colour if kind == "heading" else INK)
            canvas.setFont(*fonts[kind])
            if kind == "cell":
                canvas.drawCentredString(x, y, text)
            else:
                canvas.drawString(x, y, text.upper() if kind == "heading" else text)
        qr = qr_block(aid, box, url)
        draw_qr(canvas, aid.url(url), qr.x, qr.y, mm(QR_MM))
        canvas.setFillColor(SOFT)
        canvas.setFont(SANS, CAPTION_SIZE)
        canvas.drawRightString(qr.right, qr.caption, qr_caption(tr, aid))
        canvas.setFillColor(INK)
        canvas.setFont(SANS, ADDRESS_SIZE)
        for line, baseline in qr.lines:
            canvas.drawRightString(qr.right, baseline, line)


def address_warning(url: str, tr: Words = ENGLISH) -> str | None:
    """What is wrong with ``url`` as the address printed in the aids' QR codes,
    or ``None`` when it is an address that lasts (a name on the network).

    >>> address_warning("https://games.example.org/") is None
    True
    >>> address_warning("http://localhost:5000/").startswith("localhost")
    True
    """
    host = (urlsplit(url).hostname or "").lower()
    try:
        number = ipaddress.ip_address(host)
    except ValueError:
        number = None
    if host == "localhost" or host.endswith(".localhost") or (number and number.is_loopback):
        return tr(
            "%(host)s is the computer a page is opened on: a phone that scans the code "
            "looks for the companion on itself and finds nothing. Give the address "
            "phones use, this computer's network address (the address box on the Print "
            "page, --url on the command line), or set LEAFPILE_PUBLIC_URL when you start "
            "the companion.",
            host=host,
        )
    if number is not None or host.endswith(".local"):
        return tr(
            "that address is a number (or this computer's local name): the network may "
            "give the computer another one later, and the paper keeps this one. For aids "
            "you keep, use an address that lasts."
        )
    return None


def table_phrase(game: str) -> str:
    """What a QR code opens, in words: "a Pairs table", "an Autumn Leaves table".

    >>> table_phrase("Autumn Ash"), table_phrase("Leaf: the North Wind")
    ('an Autumn Ash table', 'a Leaf table')
    """
    name = game.split(":")[0]
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name} table"


BREAK_AFTER = "/.-?&=_:"
"""Where an address may go on to a new line: after one of these, where it can."""


def address_lines(link: str, room: float, size: float = ADDRESS_SIZE) -> list[str]:
    """The QR code's address as printed under it: whole, at ``size``, broken
    into lines at most ``room`` points wide, after a slash (or a dot, a dash
    ...) where it can be and between any two characters where it cannot.

    >>> address_lines("http://localhost:5000/new/pairs", 400)
    ['http://localhost:5000/new/pairs']
    >>> address_lines("http://localhost:5000/new/autumn_leaves", 110)
    ['http://localhost:5000/new/', 'autumn_leaves']
    """
    lines: list[str] = []
    rest = link
    while rest:
        if stringWidth(rest, SANS, size) <= room:
            lines.append(rest)
            break
        fit = 1
        while fit < len(rest) and stringWidth(rest[: fit + 1], SANS, size) <= room:
            fit += 1
        breaks = [index + 1 for index in range(fit) if rest[index] in BREAK_AFTER]
        cut = breaks[-1] if breaks and breaks[-1] > fit // 3 else fit
        lines.append(rest[:cut])
        rest = rest[cut:]
    return lines


def draw_aids(canvas: Canvas, options: Options) -> None:
    tr = options.tr
    aids = all_aids(options.language)
    boxes = aid_boxes(options)
    sheets = (len(aids) + 1) // 2
    width, _ = options.page_size
    for sheet in range(sheets):
        pair: Sequence[Aid] = aids[sheet * 2 : sheet * 2 + 2]
        for aid, box in zip(pair, boxes, strict=False):
            _draw_aid(canvas, aid, box, options.url, tr)
        # Cut line between the two halves.
        cut = (boxes[0].y + boxes[1].y + boxes[1].h) / 2
        with furniture(canvas):
            canvas.setDash(3, 2)
            canvas.setStrokeColor(SOFT)
            canvas.setLineWidth(0.4)
            canvas.line(mm(SAFE_EDGE_MM), cut, width - mm(SAFE_EDGE_MM), cut)
        draw_footer(
            canvas,
            options,
            tr("Player aids · sheet %(sheet)s of %(sheets)s", sheet=sheet + 1, sheets=sheets),
        )
        end_single_sided_sheet(canvas)
