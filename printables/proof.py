"""The proof sheet: every card of a deck, small and numbered, one page a deck.

What Squib and nanDECK users print first: a cheap look at the whole deck
before the cardstock goes in, and the numbers to reprint one card
(``--cards 12``, or the Print page's "Only cards" box).
"""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.pdfgen.canvas import Canvas

from .deck import (
    BACK_DARK,
    CardDrawer,
    Rect,
    card_back,
    pairs_faces,
    standard_faces,
)
from .i18n import N_
from .sheet import (
    FOOTER_TOP_MM,
    INK,
    NOTE_SIZE,
    SAFE_EDGE_MM,
    SANS,
    SANS_BOLD,
    Options,
    draw_footer,
    end_single_sided_sheet,
    mm,
    saved,
)

SCALE = 0.3
"""The cards at 30 % of their size: a deck of 56 fits a page with its numbers."""
GAP_MM = 2.5
NUMBER_MM = 3.4
"""Room under each card for its number (7 pt)."""


def proof_decks() -> list[tuple[str, list[CardDrawer]]]:
    return [(N_("Pairs deck"), pairs_faces()), (N_("Standard deck"), standard_faces())]


def proof_slots(options: Options, count: int) -> list[Rect]:
    """Where the ``count`` small cards go (page points), in reading order;
    the last slot is the back. Raises ``ValueError`` if they do not fit."""
    width, height = options.page_size
    card_w, card_h = (mm(v) * SCALE for v in options.card_mm)
    left = mm(SAFE_EDGE_MM + 3)
    top = height - mm(SAFE_EDGE_MM + 14)
    bottom = mm(FOOTER_TOP_MM + 1)
    pitch_x = card_w + mm(GAP_MM)
    columns = int((width - 2 * left + mm(GAP_MM)) // pitch_x)
    slots = []
    for index in range(count):
        row, column = divmod(index, columns)
        y = top - (row + 1) * card_h - row * mm(GAP_MM + NUMBER_MM)
        if y - mm(NUMBER_MM) < bottom:
            raise ValueError("the proof sheet does not fit this paper")
        slots.append(Rect(left + column * pitch_x, y, card_w, card_h))
    return slots


def _small(canvas: Canvas, draw: CardDrawer, slot: Rect, options: Options, dark: bool) -> None:
    card_w, card_h = (mm(v) for v in options.card_mm)
    with saved(canvas):
        canvas.translate(slot.x, slot.y)
        canvas.scale(SCALE, SCALE)
        if dark:
            canvas.setFillColor(BACK_DARK)
            canvas.rect(0, 0, card_w, card_h, stroke=0, fill=1)
        draw(canvas, Rect(0, 0, card_w, card_h), 0.0)


def _page(canvas: Canvas, options: Options, title: str, faces: Sequence[CardDrawer]) -> None:
    width, height = options.page_size
    slots = proof_slots(options, len(faces) + 1)
    canvas.setFillColor(INK)
    canvas.setFont(SANS_BOLD, 12)
    left = mm(SAFE_EDGE_MM + 3)
    tr = options.tr
    canvas.drawString(
        left,
        height - mm(SAFE_EDGE_MM + 6),
        tr("Proof: %(deck)s, %(count)s cards", deck=tr(title), count=len(faces)),
    )
    canvas.setFont(SANS, 8)
    canvas.drawString(
        left,
        height - mm(SAFE_EDGE_MM + 10.5),
        tr(
            "Check every card before the cardstock goes in. To reprint one, give its number: "
            "--cards 12 (or 3-7), or the Print page's Only cards box."
        ),
    )
    for number, (draw, slot) in enumerate(zip([*faces, card_back], slots, strict=True), 1):
        back = number > len(faces)
        _small(canvas, draw, slot, options, dark=back)
        canvas.setFillColor(INK)
        canvas.setFont(SANS, NOTE_SIZE)
        canvas.drawCentredString(
            slot.x + slot.w / 2,
            slot.y - mm(NUMBER_MM) + mm(0.8),
            tr("back") if back else str(number),
        )
    draw_footer(canvas, options, tr("Proof sheet · %(deck)s", deck=tr(title)))
    end_single_sided_sheet(canvas)


def draw_proof(canvas: Canvas, options: Options) -> None:
    """One page per deck: every face in deck order, numbered, then the back."""
    for title, faces in proof_decks():
        _page(canvas, options, title, faces)
