"""The Print page: options form, one download per part and the whole kit."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from printables import PARTS


def _reader(response):
    return PdfReader(io.BytesIO(response.data))


def test_the_print_page_offers_every_part_and_the_kit(client):
    response = client.get("/print/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for name, part in PARTS.items():
        assert f'formaction="/print/{name}.pdf"' in html
        assert part.title in html
    assert "Print at <strong>100% (actual size)</strong>" in html
    # The form works without JavaScript: a real action, GET, named fields.
    assert re.search(r'<form method="get" action="/print/kit.pdf"', html)
    for field in ("paper", "card", "bleed", "offset_x", "offset_y", "url"):
        assert f'name="{field}"' in html


def test_the_qr_url_defaults_to_the_servers_public_url(app, client):
    app.config["PUBLIC_URL"] = "http://192.168.0.42:5000"
    html = client.get("/print/").get_data(as_text=True)
    assert 'value="http://192.168.0.42:5000/"' in html
    pdf = client.get("/print/aids.pdf")
    assert "http://192.168.0.42:5000/new/pairs" in _reader(pdf).pages[0].extract_text()
    # The page says which address goes on paper.
    assert 'class="print-address">http://192.168.0.42:5000/</strong>' in html


def test_without_a_public_url_the_qr_opens_the_address_in_use(client):
    html = client.get("/print/", base_url="http://10.0.0.7:5000").get_data(as_text=True)
    assert 'value="http://10.0.0.7:5000/"' in html


def test_a_download_is_a_pdf_attachment_with_the_chosen_options(client):
    # "standard", the card size's old name, still works and is named ccg now.
    response = client.get("/print/deck.pdf?paper=letter&card=standard&offset_x=0.5&offset_y=-1")
    assert response.status_code == 200
    assert response.mimetype == "application/pdf"
    assert (
        response.headers["Content-Disposition"]
        == 'attachment; filename="leafpile-deck-letter-ccg.pdf"'
    )
    reader = _reader(response)
    assert len(reader.pages) == 14
    assert float(reader.pages[0].mediabox.width) == pytest.approx(612.0)
    preferences = reader.trailer["/Root"]["/ViewerPreferences"]
    assert preferences["/PrintScaling"] == "/None"
    assert preferences["/Duplex"] == "/DuplexFlipLongEdge"


def test_the_bleed_box_gives_the_bleed_layout(client):
    response = client.get("/print/standard-deck.pdf?bleed=1")
    assert response.status_code == 200
    assert (
        'filename="leafpile-standard-deck-a4-poker-bleed.pdf"'
        in response.headers["Content-Disposition"]
    )
    assert len(_reader(response).pages) == 2 * 7  # 52 cards, 8 a sheet on their side


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("offset_x=abc", "The back correction x must be a number of mm, not &#39;abc&#39;"),
        ("offset_y=nan", "The back correction y must be a number of mm"),
        ("offset_x=25", "A back correction of 25 mm on x is more than"),
        ("paper=a3", "Unknown paper &#39;a3&#39;"),
        ("card=tarot", "Unknown card size &#39;tarot&#39;"),
        ("url=javascript:alert(1)", "is not a web address the phones can open"),
        ("url=http://x/" + "a" * 2000, "a QR code a phone can read holds at most 300"),
    ],
)
def test_bad_options_show_what_was_wrong_with_status_422_and_no_pdf(client, query, message):
    response = client.get(f"/print/board.pdf?{query}")
    assert response.status_code == 422
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert message in html
    assert 'role="alert"' in html


def test_an_unknown_part_is_not_found(client):
    assert client.get("/print/dice.pdf").status_code == 404


def test_the_options_survive_a_mistake(client):
    html = client.get("/print/board.pdf?paper=letter&card=standard&offset_x=oops").get_data(
        as_text=True
    )
    assert re.search(r'value="letter" checked', html)
    assert re.search(r'value="ccg" checked', html)
    assert 'value="oops"' in html


@pytest.mark.browser
def test_the_print_page_fits_a_phone_and_downloads_a_part(live_server, new_phone):
    for scheme in ("light", "dark"):
        page = new_phone(color_scheme=scheme)
        page.goto(live_server.url + "/print/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for box in page.locator("button, .choice").all():
            assert box.bounding_box()["height"] >= 44
        page.get_by_label("US Letter").check()
        with page.expect_download() as download:
            page.get_by_role(
                "button", name=re.compile(r"^Download Autumn Ash board\b.*\bPDF\b")
            ).click()
        assert download.value.suggested_filename == "leafpile-board-letter.pdf"
        data = Path(download.value.path()).read_bytes()
        assert float(PdfReader(io.BytesIO(data)).pages[0].mediabox.width) == pytest.approx(612.0)


def test_the_whole_kit_downloads_as_one_pdf(client):
    response = client.get("/print/kit.pdf?paper=a4")
    assert response.status_code == 200
    assert 'filename="leafpile-kit-a4-poker.pdf"' in response.headers["Content-Disposition"]
    # Every part, single-sided sheets followed by a blank back.
    assert len(_reader(response).pages) == 58  # the proof sheet: 2 pages and their blank backs


def test_the_print_page_says_how_to_print_each_part_and_offers_card_images(client):
    html = client.get("/print/").get_data(as_text=True)
    assert "double-sided, flip on the long edge" in html and "single-sided" in html
    assert "cardstock" in html and "paper trimmer" in html
    assert 'formaction="/print/deck.zip"' in html
    assert 'formaction="/print/standard-deck.zip"' in html
    assert 'name="full_backs"' in html


def test_card_images_download_as_a_zip_of_pngs(client):
    import zipfile

    response = client.get("/print/deck.zip?card=ccg")
    assert response.status_code == 200
    assert response.mimetype == "application/zip"
    assert "leafpile-deck-ccg-300dpi-png.zip" in (response.headers["Content-Disposition"])
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        names = archive.namelist()
    assert len([name for name in names if name.endswith(".png")]) == 57  # 56 faces, 1 back


def test_card_images_refuse_bad_options_and_unknown_decks(client):
    assert client.get("/print/board.zip").status_code == 404
    response = client.get("/print/deck.zip?offset_x=9")
    assert response.status_code == 422
    assert "9 mm on x" in response.get_data(as_text=True)


def test_the_page_warns_when_the_printed_address_may_change(app, client):
    app.config["PUBLIC_URL"] = "http://192.168.0.42:5000"
    assert 'id="qr-address-warning"' in client.get("/print/").get_data(as_text=True)
    html = client.get("/print/?url=https://games.example.org/leafpile/").get_data(as_text=True)
    assert 'id="qr-address-warning"' not in html
    assert 'class="print-address">https://games.example.org/leafpile/</strong>' in html


def test_every_aid_qr_code_opens_a_page_the_companion_serves(client):
    from printables.aids import all_aids

    for aid in all_aids():
        assert aid.page, aid.game
        response = client.get("/" + aid.page)
        assert response.status_code == 200, (aid.game, aid.page)
