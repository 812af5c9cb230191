"""What a print shop and a home printer see in the files: boxes, version,
duplex preference, font names, type sizes, the back-correction warning,
backs the right way round, and the address in the QR codes."""

from __future__ import annotations

import io
import math
import re

import pypdfium2
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from companion.cli import main
from printables import PARTS, Options
from printables.deck import BACK_BLEED_MM, back_correction_warning, back_cut_mm, sheet_layout
from printables.sheet import SAFE_EDGE_MM
from tests.printables.pdf_geometry import MM, built, geometry

SINGLE_PARTS = [name for name in PARTS if name != "kit"]


def _reader(pdf: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(pdf), strict=True)


@pytest.mark.parametrize("part", list(PARTS))
def test_every_pdf_claims_the_version_of_the_keys_it_sets_and_how_to_duplex(part):
    pdf = built(part, Options())
    assert pdf.startswith(b"%PDF-1.7")  # PrintScaling is PDF 1.6, Duplex PDF 1.7
    preferences = _reader(pdf).trailer["/Root"]["/ViewerPreferences"]
    assert preferences["/PrintScaling"] == "/None"
    expected = "/DuplexFlipLongEdge" if PARTS[part].duplex else "/Simplex"
    assert preferences["/Duplex"] == expected


def _box(page, name):
    return tuple(round(float(v), 2) for v in page[name])


@pytest.mark.parametrize(
    "options",
    [
        Options(paper="a4", bleed=True, back_offset=(1.5, -2.0)),
        Options(paper="letter", card="ccg", back_offset=(-1.0, 0.5)),
    ],
    ids=["a4-bleed", "letter-edge"],
)
def test_card_sheets_trim_at_their_cut_lines_and_bleed_as_far_as_the_art_runs(options):
    reader = _reader(built("deck", options))
    layout = sheet_layout(options)
    faces = len(layout.slots)
    for number, page in enumerate(reader.pages):
        sheet, back = divmod(number, 2)
        count = min(faces, 56 - sheet * faces)
        if back:
            slots = [layout.back_slot(i, options.back_offset) for i in range(count)]
            grow = BACK_BLEED_MM * MM
        else:
            slots = list(layout.slots[:count])
            grow = layout.bleed
        trim = (
            min(s.x for s in slots),
            min(s.y for s in slots),
            max(s.right for s in slots),
            max(s.top for s in slots),
        )
        assert _box(page, "/TrimBox") == pytest.approx(trim, abs=0.01)
        bleed = _box(page, "/BleedBox")
        assert bleed == pytest.approx(
            (trim[0] - grow, trim[1] - grow, trim[2] + grow, trim[3] + grow), abs=0.01
        )
        media = _box(page, "/MediaBox")
        assert media[0] <= bleed[0] and media[1] <= bleed[1]
        assert bleed[2] <= media[2] and bleed[3] <= media[3]


@pytest.mark.parametrize("part", ["aids", "board", "pyramids", "kit"])
def test_every_other_page_trims_and_bleeds_at_the_paper_edge(part):
    reader = _reader(built(part, Options()))
    for page in reader.pages:
        if part == "kit" and _box(page, "/TrimBox") != _box(page, "/MediaBox"):
            continue  # a card sheet of the kit: tested above
        assert _box(page, "/TrimBox") == _box(page, "/MediaBox")
        assert _box(page, "/BleedBox") == _box(page, "/MediaBox")


def _subset_names(pdf: bytes) -> list[str]:
    names = []
    for page in _reader(pdf).pages:
        for font in page["/Resources"].get("/Font", {}).values():
            name = str(font.get_object()["/BaseFont"])
            if name not in names:
                names.append(name)
    return names


def test_every_font_subset_has_a_tag_of_its_own():
    seen: dict[str, str] = {}
    for part in ("aids", "deck", "kit"):
        names = _subset_names(built(part, Options()))
        tags = [name.lstrip("/").split("+")[0] for name in names]
        assert all(re.fullmatch(r"[A-Z]{6}", tag) for tag in tags), names
        assert len(set(tags)) == len(tags), names  # none shared inside a file
        for tag in tags:
            assert tag not in seen, (part, tag, seen.get(tag))  # nor across files
            seen[tag] = part
    # The same options give the same file (the tags come from its content).
    assert _subset_names(built("aids", Options())) == _subset_names(
        __import__("printables").build("aids", Options())
    )


def test_instructions_and_scales_are_7_pt_or_more():
    """The duplex test sheet is read through a backlit sheet: every word and
    number on it, and the note, ruler and label on every sheet of the kit."""
    for run in (run for page in geometry("duplex-test", Options()) for run in page.runs):
        assert run.size >= 7 - 1e-6, (run.text, run.size)
    for options in (Options(), Options(paper="letter", bleed=True)):
        for page in geometry("kit", options):
            for run in page.runs:
                if run.furniture:
                    assert run.size >= 7 - 1e-6, (run.text, run.size)


# --- The back correction that cuts into the backs ---------------------------------


@pytest.mark.parametrize(
    ("options", "cuts"),
    [
        (Options(paper="letter", back_offset=(0.0, 1.3)), False),
        (Options(paper="letter", back_offset=(0.0, 1.4)), True),  # room above: 1.35 mm
        (Options(paper="letter", back_offset=(0.0, -1.4)), True),
        (Options(paper="letter", back_offset=(5.0, 0.0)), False),  # 7.7 mm at the sides
        (Options(paper="a4", back_offset=(4.7, 0.0)), False),
        (Options(paper="a4", back_offset=(4.8, 0.0)), True),  # room at the sides: 4.75 mm
        (Options(paper="a4", bleed=True, back_offset=(5.0, 5.0)), False),
        (Options(paper="letter", bleed=True, back_offset=(-5.0, -5.0)), False),
    ],
)
def test_the_warning_comes_exactly_when_a_correction_cuts_into_a_back(options, cuts):
    assert (back_cut_mm(options) > 0) is cuts
    assert (back_correction_warning(options) is not None) is cuts


def _pixel_is_paper(pdf: bytes, page: int, x: float, y: float, height: float) -> bool:
    document = pypdfium2.PdfDocument(pdf)
    try:
        scale = 150 / 72
        image = document[page].render(scale=scale).to_pil().convert("RGB")
    finally:
        document.close()
    pixel = image.getpixel((round(x * scale), round((height - y) * scale)))
    return min(pixel) > 240


@pytest.mark.parametrize(("dy", "cut"), [(1.3, False), (3.0, True)])
def test_what_the_warning_says_is_what_the_back_page_shows(dy, cut):
    """Letter, edge to edge: half a millimetre inside the top of the top row's
    backs (where they must be for the correction to work) is dark ground when
    there is no warning, bare paper when there is one."""
    options = Options(paper="letter", ink_saving=False, back_offset=(0.0, dy))
    layout = sheet_layout(options)
    slot = layout.back_slot(1, options.back_offset)  # top row, middle
    pdf = built("deck", options)
    bare = _pixel_is_paper(pdf, 1, slot.x + slot.w / 2, slot.top - 0.5 * MM, layout.page_h)
    assert bare is cut
    assert (back_correction_warning(options) is not None) is cut
    assert (slot.top - 0.5 * MM > layout.page_h - SAFE_EDGE_MM * MM) is cut


def test_the_command_line_warns_when_a_correction_cuts_into_the_backs(tmp_path, capsys):
    target = tmp_path / "deck.pdf"
    assert (
        main(["print", "deck", "--paper", "letter", "--back-offset", "0,1", "-o", str(target)]) == 0
    )
    assert "warning" not in capsys.readouterr().err
    assert (
        main(["print", "deck", "--paper", "letter", "--back-offset", "0,2", "-o", str(target)]) == 0
    )
    err = capsys.readouterr().err
    assert "warning" in err and "0.65 mm past the edge" in err and "bleed" in err


def test_the_print_page_warns_when_a_correction_cuts_into_the_backs(client):
    html = client.get("/print/?paper=letter&offset_x=0&offset_y=2").get_data(as_text=True)
    assert 'id="back-warning"' in html and "0.65 mm past the edge" in html
    assert 'id="back-warning"' not in client.get("/print/?paper=letter&offset_y=1").get_data(
        as_text=True
    )
    # The page asks again as the numbers are typed (htmx), and gets the warning alone.
    assert 'hx-get="/print/check"' in html
    check = client.get("/print/check?paper=letter&offset_y=-2").get_data(as_text=True)
    assert 'id="back-warning"' in check and "<html" not in check
    assert 'id="back-warning"' not in client.get("/print/check?paper=a4&offset_y=-2").get_data(
        as_text=True
    )
    # Bad numbers: no warning and no error from the check (the download says what is wrong).
    assert client.get("/print/check?offset_y=oops").status_code == 200


# --- Backs the right way round -----------------------------------------------------


def _form_placements(pdf: bytes, page_index: int) -> list[list[float]]:
    """The matrix each Form XObject (a card back) is drawn with on the page."""
    reader = PdfReader(io.BytesIO(pdf))
    page = reader.pages[page_index]
    content = ContentStream(page.get_contents(), reader)
    ctm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    stack: list[list[float]] = []
    found = []
    for operands, op in content.operations:
        if op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop()
        elif op == b"cm":
            a = [float(v) for v in operands]
            ctm = [
                a[0] * ctm[0] + a[1] * ctm[2],
                a[0] * ctm[1] + a[1] * ctm[3],
                a[2] * ctm[0] + a[3] * ctm[2],
                a[2] * ctm[1] + a[3] * ctm[3],
                a[4] * ctm[0] + a[5] * ctm[2] + ctm[4],
                a[4] * ctm[1] + a[5] * ctm[3] + ctm[5],
            ]
        elif op == b"Do":
            found.append(ctm)
    return found


@pytest.mark.parametrize("ink_saving", [True, False])
def test_turned_backs_are_turned_the_other_way_so_they_match_their_faces_after_the_flip(
    ink_saving,
):
    """A4 with bleed lays the cards on their side. A face's top is at the
    page's left (its small text reads upwards); after a flip on the long edge
    that edge is at the right of the back page, so each back's own "up" must
    point right: rotated -90 degrees, not +90 (upside down against its face)."""
    options = Options(paper="a4", bleed=True, ink_saving=ink_saving)
    assert sheet_layout(options).turned
    pdf = built("deck", options)
    face = geometry("deck", options)[0]
    copies = [run for run in face.runs if run.text.endswith("in the deck")]
    assert copies
    for run in copies:  # reads upwards: the card's top is to the left
        assert run.bbox[3] - run.origin[1] == pytest.approx(run.width, abs=0.5)
    placements = _form_placements(pdf, 1)
    assert len(placements) == 8
    for a, b, c, d, _, _ in placements:
        # The back's local "up" (0, 1) goes to page (c, d): to the right.
        assert (round(c, 6), round(d, 6)) == (1.0, 0.0), (a, b, c, d)
        assert math.isclose(b, -1.0)


def test_upright_backs_stay_upright():
    for a, b, c, d, _, _ in _form_placements(built("deck", Options()), 1):
        assert (a, b, c, d) == (1.0, 0.0, 0.0, 1.0)


# --- The command line's offsets and the QR address ---------------------------------


@pytest.mark.parametrize("value", ["-1,0.5", "-1.5,-0.5", "-2;1"])
def test_a_negative_back_offset_needs_no_equals_sign(tmp_path, value):
    target = tmp_path / "deck.pdf"
    assert main(["print", "deck", "--back-offset", value, "-o", str(target)]) == 0
    assert len(PdfReader(io.BytesIO(target.read_bytes())).pages) == 14


def test_a_print_page_opened_at_localhost_prints_the_network_address(client, monkeypatch):
    monkeypatch.setattr("companion.web.print.lan_address", lambda: "192.168.1.50")
    html = client.get("/print/", base_url="http://localhost:5000").get_data(as_text=True)
    assert 'value="http://192.168.1.50:5000/"' in html
    assert "localhost" not in html.split('id="url"')[1].split(">")[0]
    # A number may change later: the page says so (and not that phones cannot open it).
    assert "the network may give the computer another one" in html


def test_without_a_network_the_page_says_why_localhost_will_not_do(client, monkeypatch):
    monkeypatch.setattr("companion.web.print.lan_address", lambda: None)
    html = client.get("/print/", base_url="http://127.0.0.1:5000").get_data(as_text=True)
    assert 'value="http://127.0.0.1:5000/"' in html
    assert 'id="qr-address-warning"' in html
    assert "a phone that scans the code" in html


def test_the_command_line_warns_about_a_localhost_address(tmp_path, capsys):
    target = tmp_path / "aids.pdf"
    assert main(["print", "aids", "--url", "http://localhost:5000/", "-o", str(target)]) == 0
    assert "a phone that scans the code" in capsys.readouterr().err
    assert main(["print", "aids", "--url", "https://games.example.org/", "-o", str(target)]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("part", ["aids", "scorepads", "board"])
def test_players_paper_carries_no_ruling_ids(part):
    """Ids like (X4) or L1-L5 are for readers of the rules and these docs."""
    text = "\n".join(page.text for page in geometry(part, Options()))
    assert not re.search(r"\([A-Z]{1,2}\d+\)", text), re.findall(r"\([A-Z]{1,2}\d+\)", text)
    assert not re.search(r"\b[A-Z]\d+-[A-Z]\d+\b", text)


def test_standard_means_one_thing_in_a_file_name():
    from printables import filename

    name = filename("standard-deck", Options(card="standard"))  # the old name still works
    assert name == "leafpile-standard-deck-a4-ccg.pdf"
    assert name.count("standard") == 1
