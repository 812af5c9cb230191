"""Preflight of the print-service presets, each against its service's own
specification (see docs/printing.md for where every number comes from)."""

from __future__ import annotations

import functools
import io
import re
import subprocess
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageCms
from pypdf import PdfReader
from pypdf.generic import ContentStream
from reportlab.lib.colors import Color

from companion.cli import main
from companion.rules import cards
from printables import services
from printables.images import card_faces
from printables.services import (
    INK_LIMIT,
    SERVICES,
    ServiceUnavailable,
    ink_limited_cmyk,
    service_files,
)

needs_ghostscript = pytest.mark.skipif(
    services.ghostscript() is None, reason="Ghostscript (gs) is not installed"
)


@functools.lru_cache(maxsize=8)
def _files(service: str, deck: str) -> tuple[bytes, str, str]:
    return service_files(service, deck)


# --- The Game Crafter and MakePlayingCards: one PNG per card -------------------------

PNG_SPECS = {
    # service: (width, height) in pixels at 300 dpi, the bleed on each side
    "thegamecrafter": ((825, 1125), 37.5),
    "makeplayingcards": ((822, 1122), 36),
}


@pytest.mark.parametrize("deck", ["deck", "standard-deck"])
@pytest.mark.parametrize("service", list(PNG_SPECS))
def test_png_presets_are_one_image_per_card_at_the_services_template_size(service, deck):
    (width, height), bleed = PNG_SPECS[service]
    data, name, mimetype = _files(service, deck)
    assert name == f"leafpile-{deck}-{service}-png.zip" and mimetype == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = archive.namelist()
    faces = [entry for entry in names if entry.endswith(".png") and entry != "back.png"]
    expected = [file_name for file_name, _, _ in card_faces(deck)]
    assert faces == expected and sorted(faces) == faces  # deck order = name order
    assert len(faces) == (len(cards.PAIRS_DECK) + 1 if deck == "deck" else 52)
    assert "back.png" in names
    readme = archive.read("README.txt").decode()
    assert f"{width} x {height} pixels at 300 dpi" in readme
    for entry in [*faces[:3], faces[-1], "back.png"]:
        image = Image.open(io.BytesIO(archive.read(entry)))
        assert image.format == "PNG" and image.mode == "RGB"
        assert image.size == (width, height)
        assert image.info["dpi"] == pytest.approx((300, 300), abs=0.01)
        profile = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
        assert "sRGB" in ImageCms.getProfileDescription(profile)
        # The art runs to the image's edge: the whole bleed is painted.
        inner = int(bleed) - 1
        for x, y in [(0, 0), (width - 1, height - 1), (inner, height // 2), (width // 2, inner)]:
            assert min(image.getpixel((x, y))) < 235, (entry, x, y)


def test_png_presets_make_poker_cards_with_the_services_bleed():
    for service, ((width, height), bleed) in PNG_SPECS.items():
        preset = SERVICES[service]
        assert preset.size_px == (width, height)
        assert preset.bleed_px == bleed
        # 2.5 x 3.5 in trimmed: our poker size, 63.5 x 88.9 mm.
        assert (width - 2 * bleed, height - 2 * bleed) == (750, 1050)


# --- DriveThruCards: one PDF/X-1a:2003 file in CMYK ---------------------------------


@pytest.fixture(scope="module")
def dtc_deck():
    if services.ghostscript() is None:
        pytest.skip("Ghostscript (gs) is not installed")
    data, name, mimetype = _files("drivethrucards", "deck")
    assert name == "leafpile-deck-drivethrucards.pdf" and mimetype == "application/pdf"
    return data


@needs_ghostscript
def test_drivethrucards_gets_pdf_x_1a_2003(dtc_deck):
    version = re.match(rb"%PDF-1\.(\d)", dtc_deck)
    assert version and int(version.group(1)) <= 4  # PDF/X-1a:2003 is PDF 1.4 at most
    reader = PdfReader(io.BytesIO(dtc_deck), strict=True)
    info = reader.trailer["/Info"]
    # ISO 15930-4 (PDF/X-1a:2003): the version key names the part and its
    # edition, the conformance key the level; poppler and mPDF read and write
    # them so (docs/printing.md, "PDF/X version key").
    assert info["/GTS_PDFXVersion"] == "PDF/X-1:2003"
    assert info["/GTS_PDFXConformance"] == "PDF/X-1a:2003"
    assert info["/Trapped"] == "/False"
    assert info["/Title"]
    intents = reader.trailer["/Root"]["/OutputIntents"]
    assert len(intents) == 1
    intent = intents[0].get_object()
    assert intent["/S"] == "/GTS_PDFX"
    assert intent["/OutputConditionIdentifier"] == "CGATS TR 001"  # SWOP, registered
    assert "/Encrypt" not in reader.trailer


@needs_ghostscript
def test_a_reader_of_the_standard_sees_iso_15930_4(dtc_deck, tmp_path):
    """poppler's pdfinfo names the standard from the version key: part 4
    (PDF/X-1a:2003), where the old key "PDF/X-1a:2003" read as part 1."""
    import shutil

    if shutil.which("pdfinfo") is None:
        pytest.skip("no pdfinfo (apt-get install poppler-utils)")
    source = tmp_path / "dtc.pdf"
    source.write_bytes(dtc_deck)
    info = subprocess.run(
        ["pdfinfo", str(source)], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert re.search(r"Standard:\s+ISO 15930-4", info), info
    assert "(PDF/X-1a)" in info


@needs_ghostscript
def test_drivethrucards_pages_are_back_then_face_with_eighth_inch_bleed_and_boxes(dtc_deck):
    """Page 1 is the back of card 1 and page 2 its face, as DriveThruCards'
    card files are laid out (docs/printing.md, "DriveThruCards page order")."""
    reader = PdfReader(io.BytesIO(dtc_deck))
    pages = reader.pages
    assert len(pages) == 2 * (len(cards.PAIRS_DECK) + 1)
    for number, page in enumerate(pages):
        media = [float(v) for v in page.mediabox]
        assert media == pytest.approx([0, 0, 198, 270])  # 2.75 x 3.75 in
        assert [float(v) for v in page["/TrimBox"]] == pytest.approx([9, 9, 189, 261])
        assert [float(v) for v in page["/BleedBox"]] == pytest.approx(media)  # 1/8 in bleed
        text = page.extract_text()
        if number % 2 == 0:
            assert "Leafpile" in text  # the back
        else:
            assert "Leafpile" not in text
    assert "1 copy in the deck" in pages[1].extract_text()
    assert "cut card" in pages[-1].extract_text()


def _colour_operations(reader: PdfReader, page) -> list[tuple[bytes, list[float]]]:
    found = []
    streams = [page.get_contents()]
    xobjects = page["/Resources"].get("/XObject", {})
    streams += [xobject.get_object() for xobject in xobjects.values()]
    for stream in streams:
        for operands, op in ContentStream(stream, reader).operations:
            if op in (b"rg", b"RG", b"k", b"K", b"g", b"G", b"sc", b"scn", b"SC", b"SCN"):
                found.append((op, [float(v) for v in operands if not hasattr(v, "startswith")]))
    return found


@needs_ghostscript
def test_drivethrucards_is_all_cmyk_and_embeds_every_font(dtc_deck):
    reader = PdfReader(io.BytesIO(dtc_deck))
    assert b"/DeviceRGB" not in dtc_deck and b"/ICCBased" not in dtc_deck
    ink = 0.0
    for page in reader.pages[:6]:
        for op, values in _colour_operations(reader, page):
            assert op in (b"k", b"K", b"g", b"G"), op
            if op in (b"k", b"K"):
                ink = max(ink, sum(values))
        for font in page["/Resources"].get("/Font", {}).values():
            descriptor = font.get_object()["/FontDescriptor"].get_object()
            assert any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3"))
    assert 0 < ink <= INK_LIMIT + 1e-6


@needs_ghostscript
def test_drivethrucards_total_ink_is_240_percent_at_most_on_the_rendered_pages(dtc_deck, tmp_path):
    """Ghostscript renders pages to CMYK pixels; no pixel carries more ink."""
    source = tmp_path / "dtc.pdf"
    source.write_bytes(dtc_deck)
    subprocess.run(
        [
            str(services.ghostscript()),
            "-q",
            "-dSAFER",
            "-dBATCH",
            "-dNOPAUSE",
            "-sDEVICE=tiff32nc",
            "-r60",
            "-dFirstPage=1",
            "-dLastPage=4",
            f"-sOutputFile={tmp_path / 'page-%d.tif'}",
            str(source),
        ],
        check=True,
        timeout=120,
    )
    worst = 0.0
    for number in range(1, 5):
        image = Image.open(tmp_path / f"page-{number}.tif")
        assert image.mode == "CMYK"
        data = image.tobytes()  # C, M, Y, K bytes, pixel after pixel
        worst = max(worst, max(sum(data[i : i + 4]) for i in range(0, len(data), 4)) / 255)
    assert 1.0 < worst <= INK_LIMIT + 0.02  # a rounding step of one 8-bit level per ink


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_the_cmyk_conversion_never_passes_the_ink_limit(r, g, b):
    colour = ink_limited_cmyk(Color(r, g, b))
    inks = (colour.cyan, colour.magenta, colour.yellow, colour.black)
    assert all(0 <= ink <= 1 for ink in inks)
    assert sum(inks) <= INK_LIMIT + 1e-3
    assert min(colour.cyan, colour.magenta, colour.yellow) == 0  # black does the grey


def test_without_ghostscript_drivethrucards_says_what_is_missing(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(services, "ghostscript", lambda: None)
    with pytest.raises(ServiceUnavailable, match="Ghostscript"):
        service_files("drivethrucards", "deck")
    target = tmp_path / "dtc.pdf"
    assert main(["print", "deck", "--service", "drivethrucards", "-o", str(target)]) == 2
    assert "apt-get install ghostscript" in capsys.readouterr().err
    assert not target.exists()
    # The other presets need nothing more.
    assert service_files("thegamecrafter", "deck")[1].endswith(".zip")


def test_without_ghostscript_the_print_page_says_so_and_refuses_with_422(client, monkeypatch):
    monkeypatch.setattr(services, "ghostscript", lambda: None)
    html = client.get("/print/").get_data(as_text=True)
    section = html.split('id="service-drivethrucards"')[1].split("</li>")[0]
    assert "Ghostscript" in section and "disabled" in section
    response = client.get("/print/deck/drivethrucards")
    assert response.status_code == 422
    assert "Ghostscript" in response.get_data(as_text=True)


def test_the_print_page_offers_every_preset_for_both_decks(client):
    html = client.get("/print/").get_data(as_text=True)
    for service in SERVICES:
        for deck in ("deck", "standard-deck"):
            assert f'formaction="/print/{deck}/{service}"' in html


def test_a_preset_downloads_from_the_print_page(client):
    response = client.get("/print/deck/makeplayingcards")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    assert "leafpile-deck-makeplayingcards-png.zip" in response.headers["Content-Disposition"]
    assert client.get("/print/aids/makeplayingcards").status_code == 404
    assert client.get("/print/deck/kinkos").status_code == 404


def test_the_command_line_writes_a_preset_and_refuses_what_services_do_not_make(tmp_path, capsys):
    target = tmp_path / "tgc.zip"
    assert main(["print", "standard-deck", "--service", "thegamecrafter", "-o", str(target)]) == 0
    assert "The Game Crafter" in capsys.readouterr().out
    assert len(zipfile.ZipFile(target).namelist()) == 54  # README, 52 faces, back
    assert main(["print", "deck", "--service", "thegamecrafter", "--card", "ccg"]) == 2
    assert "poker-size" in capsys.readouterr().err
    assert main(["print", "aids", "--service", "thegamecrafter"]) == 2
    assert "one deck at a time" in capsys.readouterr().err


# --- Full-bleed faces: nothing near the cut line for a drifting cutter to show -------

SAFE_PX = round(3 / 25.4 * 300)
"""3 mm at 300 dpi: the band inside the cut line where the faces keep no type."""


def _edge_band_colours(image: Image.Image, bleed: float) -> set[tuple[int, ...]]:
    """Every colour in the band from the image's edge to 3 mm inside the cut line."""
    width, height = image.size
    depth = int(bleed) + SAFE_PX
    colours: set[tuple[int, ...]] = set()
    for box in (
        (0, 0, width, depth),
        (0, height - depth, width, height),
        (0, 0, depth, height),
        (width - depth, 0, width, height),
    ):
        colours |= {colour for _, colour in image.crop(box).getcolors(1 << 20)}
    return colours


@pytest.mark.parametrize("deck", ["deck", "standard-deck"])
def test_preset_faces_are_full_bleed_with_nothing_near_the_cut(deck):
    """Every face's paper runs past the trim: from the bleed's edge to 3 mm
    inside the cut line it is one flat colour, so a cut a millimetre off
    leaves no lopsided border."""
    (_width, _height), bleed = PNG_SPECS["thegamecrafter"]
    archive = zipfile.ZipFile(io.BytesIO(_files("thegamecrafter", deck)[0]))
    readme = archive.read("README.txt").decode()
    assert "full-bleed" in readme
    for entry in archive.namelist():
        if not entry.endswith(".png") or entry == "back.png":
            continue
        image = Image.open(io.BytesIO(archive.read(entry))).convert("RGB")
        assert len(_edge_band_colours(image, bleed)) == 1, entry


def test_the_framed_faces_are_still_offered_and_show_their_frame_by_the_cut():
    """The measure can fail: the home deck's 2.2 mm frame lies in that band."""
    data, name, _ = service_files("thegamecrafter", "deck", faces="framed")
    assert name == "leafpile-deck-thegamecrafter-framed-png.zip"
    archive = zipfile.ZipFile(io.BytesIO(data))
    image = Image.open(io.BytesIO(archive.read(card_faces("deck")[0][0]))).convert("RGB")
    assert len(_edge_band_colours(image, PNG_SPECS["thegamecrafter"][1])) > 1


def test_an_unknown_face_design_is_refused_by_name():
    with pytest.raises(ValueError, match="'round'"):
        service_files("thegamecrafter", "deck", faces="round")


@needs_ghostscript
def test_drivethrucards_faces_are_full_bleed_too(dtc_deck, tmp_path):
    """Rendered by Ghostscript: a face page (page 2) is one colour from the
    page edge to 3 mm inside its TrimBox."""
    source = tmp_path / "dtc.pdf"
    source.write_bytes(dtc_deck)
    subprocess.run(
        [
            "gs",
            "-q",
            "-dSAFER",
            "-dBATCH",
            "-dNOPAUSE",
            "-sDEVICE=png16m",
            "-r300",
            "-dFirstPage=2",
            "-dLastPage=2",
            f"-sOutputFile={tmp_path / 'face.png'}",
            str(source),
        ],
        check=True,
        timeout=120,
    )
    image = Image.open(tmp_path / "face.png").convert("RGB")
    assert image.size == (825, 1125)
    assert len(_edge_band_colours(image, 37.5)) <= 2  # CMYK rendering may dither one step


def test_a_presets_readme_and_cut_card_speak_the_kits_language():
    """A German kit's print files say their README and the cut card's note in
    German (the numbers unchanged); English stays the default."""
    from printables.deck import cut_card_face
    from printables.i18n import words
    from printables.images import _readme as image_readme
    from printables.sheet import Options

    service = services.SERVICES["thegamecrafter"]
    german = services._readme("deck", service, 53, "full-bleed", words("de"))
    assert german.startswith("Leafpile deck für The Game Crafter\n")
    assert "825 x 1125 Pixel bei 300 dpi" in german and "randabfallend" in german
    assert "Lade die Vorderseiten" not in german and "Lege ein Poker Deck an" in german
    assert "card faces" not in german and "upload" not in german
    english = services._readme("deck", service, 53)
    assert "825 x 1125 pixels at 300 dpi" in english and "Make a Poker Deck" in english
    pages = services._card_pages(
        [(cut_card_face, False)], service, cmyk=False, title="t", language="de"
    )
    text = PdfReader(io.BytesIO(pages)).pages[0].extract_text()
    assert "Schnittkarte" in text and "cut card" not in text
    assert services._card_pages([(cut_card_face, False)], service, cmyk=False, title="t") != pages
    # The generic card images' zip (no service) says its README in the kit's language too.
    generic = image_readme("deck", Options(language="fr"), 300, (820, 1121), 53)
    assert generic.startswith("Images des cartes Leafpile avec fond perdu\n")
    assert "820 x 1121 pixels à 300 dpi" in generic and "bleed" not in generic
