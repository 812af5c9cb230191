"""Retake the print kit's pictures in docs/print/ from the real PDFs.

Run from the repository root: ``python docs/print/render.py``. Pages are
rasterised with PDFium (pypdfium2, a dependency of the kit), so no poppler
is needed. Every picture is pages of one part side by side on a table-top
background, so white paper stands out.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pypdfium2
from PIL import Image

from printables import build
from printables.images import card_images
from printables.sheet import Options

HERE = Path(__file__).resolve().parent
URL = "http://192.168.1.20:5000/"
TABLE = (206, 199, 188)


def _pages(part: str, options: Options, numbers: list[int] | None, dpi: int) -> list[Image.Image]:
    document = pypdfium2.PdfDocument(build(part, options))
    try:
        wanted = numbers or list(range(1, len(document) + 1))
        return [document[n - 1].render(scale=dpi / 72).to_pil().convert("RGB") for n in wanted]
    finally:
        document.close()


def _side_by_side(images: list[Image.Image], columns: int, gap: int) -> Image.Image:
    width = max(image.width for image in images)
    height = max(image.height for image in images)
    rows = (len(images) + columns - 1) // columns
    sheet = Image.new(
        "RGB", (columns * width + (columns + 1) * gap, rows * height + (rows + 1) * gap), TABLE
    )
    for index, image in enumerate(images):
        row, column = divmod(index, columns)
        sheet.paste(image, (gap + column * (width + gap), gap + row * (height + gap)))
    return sheet


def _save(image: Image.Image, name: str) -> None:
    image.save(HERE / name, "PNG", optimize=True)
    print(f"wrote docs/print/{name} ({image.width} x {image.height})")


def sheets(
    name: str,
    part: str,
    numbers: list[int] | None = None,
    columns: int = 2,
    dpi: int = 54,
    **options: object,
) -> None:
    pages = _pages(part, Options(url=URL, **options), numbers, dpi)  # type: ignore[arg-type]
    _save(_side_by_side(pages, columns, max(4, dpi // 6)), name)


def card_pictures(name: str) -> None:
    """A few of the print-service images: faces and the back, bleed included."""
    archive = zipfile.ZipFile(io.BytesIO(card_images("deck", Options(), 150)))
    names = ["pairs-01-rank-1.png", "pairs-16-rank-6.png", "pairs-56-cut-card.png", "back.png"]
    images = [Image.open(io.BytesIO(archive.read(item))).convert("RGB") for item in names]
    images = [image.resize((image.width // 2, image.height // 2)) for image in images]
    _save(_side_by_side(images, len(images), 8), name)


def service_pictures(name: str) -> None:
    """A preset's full-bleed faces, then the home deck's framed face to compare."""
    from printables.services import service_files

    def faces(design: str, names: list[str]) -> list[Image.Image]:
        data = service_files("thegamecrafter", "deck", faces=design)[0]
        archive = zipfile.ZipFile(io.BytesIO(data))
        images = [Image.open(io.BytesIO(archive.read(item))).convert("RGB") for item in names]
        return [image.resize((image.width // 4, image.height // 4)) for image in images]

    chosen = ["pairs-01-rank-1.png", "pairs-16-rank-6.png", "pairs-56-cut-card.png"]
    images = faces("full-bleed", chosen) + faces("framed", chosen[:1])
    _save(_side_by_side(images, len(images), 8), name)


def main() -> None:
    sheets("deck.png", "deck", [1, 2])
    sheets("deck-bleed.png", "deck", [1, 2], bleed=True)
    sheets("deck-letter.png", "deck", [1, 2], paper="letter")
    sheets("full-backs.png", "deck", [2], columns=1, ink_saving=False)
    sheets("fold.png", "deck", [1], columns=1, fold=True, cut_to_edge=True)
    sheets("proof.png", "proof", [1, 2], dpi=60)
    sheets("standard-deck.png", "standard-deck", [1], columns=1)
    sheets("duplex-test.png", "duplex-test", [1, 2], dpi=70)
    sheets("aids.png", "aids", [1], columns=1, dpi=70)
    sheets("scorepads.png", "scorepads", columns=5, dpi=40)
    sheets("board.png", "board", [1, 2])
    sheets("pyramids.png", "pyramids", [1], columns=1, dpi=70)
    sheets("kit.png", "kit", columns=14, dpi=13)
    card_pictures("card-images.png")
    service_pictures("service-faces.png")


if __name__ == "__main__":
    main()
