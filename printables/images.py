"""Card images with 3 mm bleed: one PNG per card (as Squib and nanDECK make).

A generic set, for a home or office cutter, a local print shop, or a service
with no preset here. It matches no print-on-demand service's template (The
Game Crafter wants 825 x 1125 px, MakePlayingCards 822 x 1122 px, DriveThruCards
one PDF/X file): :mod:`printables.services` writes exactly those.

Each card face and the back is drawn on a page of its own, the card's size
plus :data:`~printables.sheet.BLEED_MM` of bleed all round (a poker card is
69.5 x 94.9 mm, 821 x 1121 pixels at 300 dpi), and rasterised with PDFium
(``pypdfium2``, wheels for every platform: no poppler needed). The images
come in a zip with a note saying what they are. Identical faces (the Pairs
deck has ten 10s) are drawn once and stored under each card's name.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Sequence

import pypdfium2
from PIL import ImageCms
from reportlab.pdfgen.canvas import Canvas

from companion.rules import cards

from .deck import (
    BACK_DARK,
    STANDARD_RANKS,
    SUITS,
    CardDrawer,
    Rect,
    card_back,
    cut_card_face,
    pairs_face,
    standard_face,
)
from .sheet import BLEED_MM, LANGUAGE, SANS, Options, mm

MIN_DPI, MAX_DPI = 150, 600
IMAGE_DECKS = ("deck", "standard-deck", "cards")
"""What can be written as images: either deck, or ``cards`` for both."""

Face = tuple[str, str, CardDrawer]
"""(file name, what the card is, how to draw it); equal keys draw the same."""
Side = tuple[CardDrawer, bool]
"""A card side to draw on a page of its own, and whether its dark ground is
painted over the whole page (the back's, to the edge of the bleed)."""


def _pairs_faces() -> list[Face]:
    faces = [
        (f"pairs-{index:02d}-rank-{rank}.png", f"rank-{rank}", pairs_face(rank))
        for index, rank in enumerate(cards.PAIRS_DECK, start=1)
    ]
    faces.append((f"pairs-{len(faces) + 1:02d}-cut-card.png", "cut-card", cut_card_face))
    return faces


def _standard_faces() -> list[Face]:
    return [
        (
            f"standard-{index:02d}-{rank}-{suit}.png",
            f"{rank}-{suit}",
            standard_face(rank, suit),
        )
        for index, (suit, rank) in enumerate(
            ((suit, rank) for suit in SUITS for rank in STANDARD_RANKS), start=1
        )
    ]


def card_faces(deck: str) -> list[Face]:
    """Every face to write for ``deck`` (deck, standard-deck or cards).

    Raises ``ValueError`` naming the deck when it is not one of :data:`IMAGE_DECKS`.
    """
    if deck == "deck":
        return _pairs_faces()
    if deck == "standard-deck":
        return _standard_faces()
    if deck == "cards":
        return _pairs_faces() + _standard_faces()
    raise ValueError(
        f"{deck!r} has no card images: choose {', '.join(IMAGE_DECKS)} (the other parts "
        "are sheets to print as PDFs)"
    )


def _pdf_of(drawers: Sequence[Side], options: Options) -> bytes:
    """One page per card side, each the card plus its bleed."""
    width, height = options.card_mm
    bleed = mm(BLEED_MM)
    page = (mm(width) + 2 * bleed, mm(height) + 2 * bleed)
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=page, invariant=1, initialFontName=SANS)
    setattr(canvas, LANGUAGE, options.language)  # the words on the cards
    draw_card_pages(canvas, drawers, page, Rect(bleed, bleed, mm(width), mm(height)), bleed)
    return buffer.getvalue()


def draw_card_pages(
    canvas: Canvas,
    drawers: Sequence[Side],
    page: tuple[float, float],
    rect: Rect,
    bleed: float,
) -> None:
    """One card a page, its ground painted to the page edge where dark, then saved."""
    for draw, dark_ground in drawers:
        if dark_ground:
            canvas.setFillColor(BACK_DARK)
            canvas.rect(0, 0, page[0], page[1], stroke=0, fill=1)
        draw(canvas, rect, bleed)
        canvas.showPage()
    canvas.save()


def card_images(deck: str, options: Options, dpi: int = 300) -> bytes:
    """A zip of PNG images: one per card face, in deck order, and the back.

    Raises ``ValueError`` with a message for an unknown deck or a dpi outside
    :data:`MIN_DPI`-:data:`MAX_DPI`.
    """
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not MIN_DPI <= dpi <= MAX_DPI:
        raise ValueError(
            f"{dpi!r} dpi is not a resolution for card images: choose {MIN_DPI} to {MAX_DPI} "
            "(print shops ask for 300)"
        )
    faces = card_faces(deck)
    width, height = options.card_mm
    size_px = _pixels(width + 2 * BLEED_MM, dpi), _pixels(height + 2 * BLEED_MM, dpi)
    readme = _readme(deck, options, dpi, size_px, len(faces))
    return png_zip(faces, lambda sides: _pdf_of(sides, options), dpi, size_px, readme)


def png_zip(
    faces: Sequence[Face],
    pdf_of: Callable[[Sequence[Side]], bytes],
    dpi: int,
    size_px: tuple[int, int],
    readme: str,
) -> bytes:
    """PDF -> PNG -> zip, for the generic images and every service's preset.

    Each distinct face once, then the full back, is drawn a page a side by
    ``pdf_of``, rasterised at ``dpi`` by PDFium and trimmed to ``size_px``;
    the zip holds ``README.txt`` (``readme``), every face under its own file
    name in deck order, and ``back.png``.
    """
    unique: dict[str, CardDrawer] = {}
    for _, key, draw in faces:
        unique.setdefault(key, draw)
    # A print service prints the full back: the ink-saving one is for home printers.
    sides = [(draw, False) for draw in unique.values()] + [(card_back, True)]
    images = _pngs(pdf_of(sides), dpi, size_px)
    by_key = dict(zip(unique, images, strict=False))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("README.txt", readme)
        for name, key, _ in faces:
            archive.writestr(name, by_key[key])
        archive.writestr("back.png", images[-1])
    return buffer.getvalue()


def _pngs(pdf: bytes, dpi: int, size_px: tuple[int, int]) -> list[bytes]:
    """Every page of ``pdf`` as an sRGB PNG of exactly ``size_px``."""
    document = pypdfium2.PdfDocument(pdf)
    profile = srgb_profile()
    images: list[bytes] = []
    try:
        for index in range(len(document)):
            bitmap = document[index].render(scale=dpi / 72)
            # PDFium rounds the page up to whole pixels; trim the last part-pixel
            # of bleed so the image is exactly the size the note gives.
            image = bitmap.to_pil().convert("RGB").crop((0, 0, *size_px))
            out = io.BytesIO()
            image.save(out, "PNG", dpi=(dpi, dpi), icc_profile=profile, compress_level=6)
            images.append(out.getvalue())
    finally:
        document.close()
    return images


def srgb_profile() -> bytes:
    """The sRGB colour profile embedded in every card image: the pixels are
    sRGB, and a print service's RIP should not have to guess."""
    return bytes(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())


def _pixels(size_mm: float, dpi: int) -> int:
    return round(size_mm / 25.4 * dpi)


def _readme(deck: str, options: Options, dpi: int, size_px: tuple[int, int], count: int) -> str:
    """The zip's README.txt, in the kit's language (``options.tr``)."""
    tr = options.tr
    width, height = options.card_mm
    trimmed = {"card": options.card, "width": f"{width:g}", "height": f"{height:g}"}
    bled = {
        "bleed": f"{BLEED_MM:g}",
        "width": f"{width + 2 * BLEED_MM:g}",
        "height": f"{height + 2 * BLEED_MM:g}",
    }
    lines = [
        tr("Leafpile card images with bleed"),
        "",
        tr(
            "A generic set for your own cutter or a print shop: no print-on-demand service's "
            "template has this size. For The Game Crafter, MakePlayingCards or DriveThruCards, "
            "use that service's files (leafpile print deck --service NAME)."
        ),
        "",
        tr(
            "%(count)s card faces in deck order and one back (back.png, the same for every card).",
            count=count,
        ),
        tr("Card size %(card)s: %(width)s x %(height)s mm, trimmed.", **trimmed),
        tr(
            "Each image has %(bleed)s mm of bleed all round: %(width)s x %(height)s mm, "
            "%(width_px)s x %(height_px)s pixels at %(dpi)s dpi.",
            **bled,
            width_px=size_px[0],
            height_px=size_px[1],
            dpi=dpi,
        ),
        tr(
            "Keep text and symbols inside the safe area (about 3 mm inside the trim line): "
            "the designs already do."
        ),
    ]
    return "\n".join(lines) + "\n"


def images_filename(part: str, options: Options, dpi: int) -> str:
    """A download name that says what was chosen.

    >>> images_filename("cards", Options(), 300)
    'leafpile-cards-poker-300dpi-png.zip'
    """
    language = "" if options.language == "en" else "-" + options.language.replace("_", "-")
    return f"leafpile-{part}-{options.card}-{dpi}dpi{language}-png.zip"
