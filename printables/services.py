"""Print-service presets: exactly the card files each service asks for.

A preset turns a deck (``deck`` or ``standard-deck``) into what one
print-on-demand service takes, from that service's published template:

- **The Game Crafter** (``thegamecrafter``): one PNG per card face and one for
  the back, 825 x 1125 pixels at 300 dpi (a 2.5 x 3.5 in poker card with
  1/8 in of bleed all round), sRGB.
- **MakePlayingCards** (``makeplayingcards``): the same, 822 x 1122 pixels
  (36 pixels of bleed a side).
- **DriveThruCards** (``drivethrucards``): one PDF/X-1a:2003 file in CMYK,
  every page a 2.75 x 3.75 in card side (1/8 in bleed), each card's back
  followed by its face (page 1 is the back of card 1, as DriveThruCards
  asks), total ink at most 240 %. reportlab draws the cards in CMYK (our
  own ink-limited conversion, :func:`ink_limited_cmyk`) and Ghostscript
  writes the PDF/X-1a file; without Ghostscript this preset says so and
  writes nothing.

Every preset uses the full card back (a print shop's ink costs nothing more)
and the poker size, and by default the full-bleed faces
(:func:`printables.deck.full_bleed_faces`): a service's cutter drifts, and a
face with no frame near its edge hides the drift (``faces="framed"`` gives
the faces of the home-printed deck). Where each number comes from is in
``docs/printing.md``.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.colors import CMYKColor, Color
from reportlab.pdfgen.canvas import Canvas

from .deck import Rect, card_back, full_bleed_faces
from .i18n import ENGLISH, N_, SOURCE, Words, words
from .images import Side, card_faces, draw_card_pages, png_zip
from .sheet import LANGUAGE, SANS

DPI = 300
TRIM_IN = (2.5, 3.5)
"""Every service's poker card, trimmed: 63.5 x 88.9 mm, our poker size."""
INK_LIMIT = 2.40
"""DriveThruCards' total ink limit: cyan + magenta + yellow + black <= 240 %."""
SERVICE_DECKS = ("deck", "standard-deck")
FACE_DESIGNS = ("full-bleed", "framed")
"""``full-bleed``: no frame, the pale face runs past the trim (the presets'
default); ``framed``: the 2.2 mm coloured frame of the home-printed deck."""
PDFX_VERSION = "PDF/X-1:2003"
"""``GTS_PDFXVersion`` of a PDF/X-1a:2003 file: ISO 15930-4 names the part
(PDF/X-1, 2003 edition) here and the conformance level in the next key."""
PDFX_CONFORMANCE = "PDF/X-1a:2003"
"""``GTS_PDFXConformance``: the level within PDF/X-1 (the "a" of X-1a)."""


@dataclass(frozen=True)
class Service:
    name: str
    title: str
    bleed_px: float
    """Bleed on each side, in pixels at :data:`DPI`."""
    output: str
    """``png`` (a zip of images) or ``pdfx`` (one PDF/X-1a:2003 file)."""
    upload: str
    """How to hand the files over, in a sentence for the README and the page
    (English, marked for the kit's catalog: ``tr(service.upload)`` words it)."""

    @property
    def size_px(self) -> tuple[int, int]:
        """A card side with its bleed, in pixels at :data:`DPI`."""
        width, height = TRIM_IN
        return (round(width * DPI + 2 * self.bleed_px), round(height * DPI + 2 * self.bleed_px))

    @property
    def bleed_pt(self) -> float:
        return self.bleed_px * 72 / DPI

    @property
    def page_pt(self) -> tuple[float, float]:
        """A card side with its bleed, in points (what each image or page is)."""
        width, height = self.size_px
        return width * 72 / DPI, height * 72 / DPI


SERVICES: dict[str, Service] = {
    service.name: service
    for service in (
        Service(
            "thegamecrafter",
            "The Game Crafter",
            37.5,
            "png",
            N_(
                "Make a Poker Deck, upload the face images in file-name order (one per card) "
                "and back.png as the deck's back."
            ),
        ),
        Service(
            "makeplayingcards",
            "MakePlayingCards",
            36.0,
            "png",
            N_(
                "Choose custom poker-size cards with a different image per front, upload the "
                "face images in file-name order and back.png as the one back for every card."
            ),
        ),
        Service(
            "drivethrucards",
            "DriveThruCards",
            37.5,
            "pdfx",
            N_(
                "Upload the one PDF as the card file: every card is two pages, its back "
                "then its face (page 1 is the back of card 1), PDF/X-1a:2003 in CMYK."
            ),
        ),
    )
}


class ServiceUnavailable(ValueError):
    """A preset that needs a tool this computer does not have."""


def service_for(name: str) -> Service:
    """The preset called ``name``. Raises ``ValueError`` naming the choices."""
    if name not in SERVICES:
        raise ValueError(f"unknown print service {name!r}: choose one of {', '.join(SERVICES)}")
    return SERVICES[name]


def ghostscript() -> str | None:
    """Where Ghostscript is (``gs``), or ``None``."""
    return shutil.which("gs")


def unavailable_reason(service: Service, tr: Words = ENGLISH) -> str | None:
    """Why ``service`` cannot be made on this computer, or ``None`` if it can
    (in ``tr``'s language: the Print page shows it)."""
    if service.output == "pdfx" and ghostscript() is None:
        return tr(
            "%(service)s asks for one PDF/X-1a:2003 file in CMYK, which Leafpile makes "
            "with Ghostscript, and Ghostscript (the gs command) is not installed on this "
            "computer. Install it (Debian and Ubuntu: apt-get install ghostscript; macOS: "
            "brew install ghostscript) and try again; the other presets work without it.",
            service=service.title,
        )
    return None


def ink_limited_cmyk(colour: Color) -> CMYKColor:
    """``colour`` as CMYK with full black generation, total ink <= :data:`INK_LIMIT`.

    Black takes the grey component of the colour (so at most two of cyan,
    magenta and yellow are ever used); if the sum still passes the limit,
    the three colour inks are scaled down to fit. A simple, predictable
    conversion, not a colour-managed one: the files say so in their README.

    >>> black = ink_limited_cmyk(Color(0, 0, 0))
    >>> (black.cyan, black.magenta, black.yellow, black.black)
    (0, 0, 0, 1)
    """
    if isinstance(colour, CMYKColor):
        c, m, y, k = colour.cyan, colour.magenta, colour.yellow, colour.black
    else:
        r, g, b = colour.rgb()
        k = 1.0 - max(r, g, b)
        if k >= 1.0:
            return CMYKColor(0, 0, 0, 1)
        c, m, y = ((1.0 - v - k) / (1.0 - k) for v in (r, g, b))
    colours = c + m + y
    if colours + k > INK_LIMIT and colours > 0:
        scale = max(0.0, INK_LIMIT - k) / colours
        c, m, y = c * scale, m * scale, y * scale
    return CMYKColor(*(round(min(1.0, max(0.0, v)), 4) for v in (c, m, y, k)))


def _card_pages(
    sides: Sequence[Side], service: Service, *, cmyk: bool, title: str, language: str = SOURCE
) -> bytes:
    """One page per card side: the card (poker size) plus the service's bleed,
    with TrimBox and BleedBox. ``sides`` are (drawer, paint the back's dark
    ground over the whole page); the words on the cards are in ``language``."""
    page = service.page_pt
    bleed = service.bleed_pt
    buffer = io.BytesIO()
    canvas = Canvas(
        buffer,
        pagesize=page,
        invariant=1,
        initialFontName=SANS,
        enforceColorSpace=ink_limited_cmyk if cmyk else None,
        trimBox=(bleed, bleed, page[0] - bleed, page[1] - bleed),
        bleedBox=(0, 0, page[0], page[1]),
    )
    setattr(canvas, LANGUAGE, language)  # the cut card's words
    canvas.setTitle(title)
    canvas.setAuthor("Leafpile")
    canvas.setCreator("Leafpile print-and-play kit")
    rect = Rect(bleed, bleed, page[0] - 2 * bleed, page[1] - 2 * bleed)
    draw_card_pages(canvas, sides, page, rect, bleed)
    return buffer.getvalue()


def _check_deck(deck: str) -> None:
    if deck not in SERVICE_DECKS:
        raise ValueError(
            f"a print service makes one deck at a time: choose {' or '.join(SERVICE_DECKS)}, "
            f"not {deck!r}"
        )


def service_files(
    name: str, deck: str, faces: str = "full-bleed", language: str = SOURCE
) -> tuple[bytes, str, str]:
    """(the file, its download name, its media type) for ``deck`` at service
    ``name``, with the face design ``faces`` (one of :data:`FACE_DESIGNS`);
    the words on the cards and in the README are in ``language``.

    Raises ``ValueError`` for an unknown service, deck or face design, and
    :class:`ServiceUnavailable` when this computer lacks what the preset needs.
    """
    service = service_for(name)
    _check_deck(deck)
    _check_faces(faces)
    tr = words(language)
    reason = unavailable_reason(service, tr)
    if reason:
        raise ServiceUnavailable(reason)
    tail = "" if faces == "full-bleed" else "-framed"
    if service.output == "pdfx":
        return (
            drivethrucards_pdf(deck, service, faces, language),
            f"leafpile-{deck}-{name}{tail}.pdf",
            "application/pdf",
        )
    return (
        _png_zip(deck, service, faces, language),
        f"leafpile-{deck}-{name}{tail}-png.zip",
        "application/zip",
    )


def _check_faces(faces: str) -> None:
    if faces not in FACE_DESIGNS:
        raise ValueError(f"unknown face design {faces!r}: choose {' or '.join(FACE_DESIGNS)}")


def _faces_drawn(faces: str) -> contextlib.AbstractContextManager[None]:
    return full_bleed_faces() if faces == "full-bleed" else contextlib.nullcontext()


def _png_zip(
    deck: str, service: Service, design: str = "full-bleed", language: str = SOURCE
) -> bytes:
    faces = card_faces(deck)

    def pdf_of(sides: Sequence[Side]) -> bytes:
        with _faces_drawn(design):
            title = f"Leafpile {deck} for {service.title}"
            return _card_pages(sides, service, cmyk=False, title=title, language=language)

    readme = _readme(deck, service, len(faces), design, words(language))
    return png_zip(faces, pdf_of, DPI, service.size_px, readme)


def _readme(
    deck: str, service: Service, count: int, design: str = "full-bleed", tr: Words = ENGLISH
) -> str:
    """The zip's README.txt in ``tr``'s language (the numbers are the files')."""
    width, height = service.size_px
    trim, bleed = f"{TRIM_IN[0]} x {TRIM_IN[1]}", f"{service.bleed_px:g}"
    faces = (
        tr(
            "The faces are full-bleed: no frame, the face runs past the cut line, so a cut "
            "that drifts a little shows nothing."
        )
        if design == "full-bleed"
        else tr("The faces have the home deck's 2.2 mm frame inside the cut line.")
    )
    lines = [
        tr("Leafpile %(deck)s for %(service)s", deck=deck, service=service.title),
        "",
        tr(
            "%(count)s card faces in deck order (the file names sort in that order) and one "
            "back, back.png, the same for every card.",
            count=count,
        ),
        tr(
            "Each image is %(width)s x %(height)s pixels at %(dpi)s dpi: a %(trim)s in poker "
            "card with %(bleed)s pixels of bleed on every side, sRGB (the profile is in each "
            "file). Text and symbols stay at least 3 mm inside the cut line.",
            width=width,
            height=height,
            dpi=DPI,
            trim=trim,
            bleed=bleed,
        ),
        faces,
        "",
        tr(service.upload),
    ]
    return "\n".join(lines) + "\n"


def _pdfx_definitions(title: str, profile: Path | None) -> str:
    """Ghostscript's PDF/X settings: version, trapping, and the output intent
    (SWOP, registered as CGATS TR 001, the condition DriveThruCards names)."""
    escaped = title.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    lines = [
        f"[ /GTS_PDFXVersion ({PDFX_VERSION}) /GTS_PDFXConformance ({PDFX_CONFORMANCE})",
        f"  /Title ({escaped}) /Trapped /False /DOCINFO pdfmark",
    ]
    if profile is not None:
        lines += [
            "[/_objdef {icc_PDFX} /type /stream /OBJ pdfmark",
            "[{icc_PDFX} << /N 4 >> /PUT pdfmark",
            f"[{{icc_PDFX}} ({profile}) (r) file /PUT pdfmark",
        ]
    lines += [
        "[/_objdef {OutputIntent_PDFX} /type /dict /OBJ pdfmark",
        "[{OutputIntent_PDFX} << /Type /OutputIntent /S /GTS_PDFX",
        "  /OutputCondition (SWOP: US web offset, coated paper)",
        "  /OutputConditionIdentifier (CGATS TR 001) /RegistryName (http://www.color.org)",
        "  /Info (CGATS TR 001, SWOP)",
    ]
    if profile is not None:
        lines.append("  /DestOutputProfile {icc_PDFX}")
    lines += [
        ">> /PUT pdfmark",
        "[{Catalog} << /OutputIntents [ {OutputIntent_PDFX} ] >> /PUT pdfmark",
    ]
    return "\n".join(lines) + "\n"


CMYK_PROFILES = (
    Path("/usr/share/color/icc/ghostscript/default_cmyk.icc"),
    *sorted(Path("/usr/share/ghostscript").glob("*/iccprofiles/default_cmyk.icc")),
)
"""Ghostscript's own CMYK profile ("Artifex CMYK SWOP Profile"), embedded as
the output intent's profile when it is found; without it the registered
condition name alone stands, which PDF/X-1a allows."""


def _cmyk_profile() -> Path | None:
    return next((path for path in CMYK_PROFILES if path.is_file()), None)


def to_pdfx(pdf: bytes, title: str) -> bytes:
    """Ghostscript rewrites ``pdf`` (already all CMYK) as PDF/X-1a:2003.

    Raises :class:`ServiceUnavailable` without Ghostscript, ``ValueError``
    when it fails.
    """
    gs = ghostscript()
    if gs is None:
        raise ServiceUnavailable(str(unavailable_reason(SERVICES["drivethrucards"])))
    profile = _cmyk_profile()
    with tempfile.TemporaryDirectory(prefix="leafpile-pdfx-") as folder:
        work = Path(folder)
        source, target, settings = work / "cards.pdf", work / "cards-x1a.pdf", work / "pdfx.ps"
        source.write_bytes(pdf)
        settings.write_text(_pdfx_definitions(title, profile), encoding="ascii")
        command = [
            gs,
            "-dSAFER",
            "-dBATCH",
            "-dNOPAUSE",
            "-dQUIET",
            "-sDEVICE=pdfwrite",
            "-dPDFX",
            "-dCompatibilityLevel=1.4",
            "-sColorConversionStrategy=CMYK",
            "-sProcessColorModel=DeviceCMYK",
            "-dEmbedAllFonts=true",
            "-dSubsetFonts=true",
            "-dAutoRotatePages=/None",
            "-dHaveTransparency=false",
            f"-sOutputFile={target}",
        ]
        if profile is not None:
            command.insert(1, f"--permit-file-read={profile}")
        command += [str(settings), str(source)]
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
            detail = getattr(error, "stderr", b"") or b""
            raise ValueError(
                "Ghostscript could not write the PDF/X-1a file: "
                + detail.decode("utf-8", "replace").strip()[-300:]
            ) from None
        return target.read_bytes()


def drivethrucards_pdf(
    deck: str, service: Service | None = None, faces: str = "full-bleed", language: str = SOURCE
) -> bytes:
    """The DriveThruCards file: every card's back then its face (page 1 is
    the back of card 1, page 2 its face), PDF/X-1a:2003, its words in ``language``."""
    service = service or SERVICES["drivethrucards"]
    _check_deck(deck)
    _check_faces(faces)
    sides: list[Side] = []
    for _, _, draw in card_faces(deck):
        sides += [(card_back, True), (draw, False)]
    title = f"Leafpile {deck} for {service.title}"
    with _faces_drawn(faces):
        pages = _card_pages(sides, service, cmyk=True, title=title, language=language)
    return to_pdfx(pages, title)
