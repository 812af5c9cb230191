"""`leafpile print PART ... -o FILE.pdf`."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from companion.cli import main


def _pages(path):
    return PdfReader(io.BytesIO(path.read_bytes())).pages


def test_print_writes_the_part_with_the_chosen_paper(tmp_path, capsys):
    target = tmp_path / "board.pdf"
    assert main(["print", "board", "--paper", "letter", "-o", str(target)]) == 0
    pages = _pages(target)
    assert len(pages) == 2
    assert float(pages[0].mediabox.width) == pytest.approx(612.0)
    assert "Print at 100%" in capsys.readouterr().out


def test_print_puts_the_url_in_the_aids(tmp_path):
    target = tmp_path / "aids.pdf"
    url = "http://10.1.2.3:5000/"
    assert main(["print", "aids", "--url", url, "-o", str(target)]) == 0
    assert url in _pages(target)[0].extract_text()


def test_a_negative_back_offset_is_written_with_an_equals_sign(tmp_path):
    target = tmp_path / "deck.pdf"
    assert main(["print", "deck", "--back-offset=-1.5,0.5", "-o", str(target)]) == 0
    assert len(_pages(target)) == 14


def test_print_names_the_file_after_what_was_chosen_when_no_output_is_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["print", "deck", "--card", "ccg", "--bleed", "--back-offset", "1,-0.5"]) == 0
    written = tmp_path / "leafpile-deck-a4-ccg-bleed.pdf"
    assert len(_pages(written)) == 14  # 56 cards, 8 a sheet with bleed, faces and backs


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--back-offset", "1"], "'1' is not an offset"),
        (["--back-offset", "20,0"], "20 mm on x"),
        (["--url", "leafpile.local"], "'leafpile.local' is not a web address"),
    ],
)
def test_print_refuses_bad_options_with_a_message_and_writes_nothing(
    tmp_path, capsys, args, message
):
    target = tmp_path / "out.pdf"
    assert main(["print", "board", *args, "-o", str(target)]) == 2
    assert message in capsys.readouterr().err
    assert not target.exists()


def test_print_refuses_an_unknown_part(capsys):
    with pytest.raises(SystemExit):
        main(["print", "dice"])
    assert "invalid choice: 'dice'" in capsys.readouterr().err


def test_print_cards_as_png_writes_one_image_per_card_and_the_back_in_a_zip(tmp_path, capsys):
    import zipfile

    from PIL import Image

    target = tmp_path / "cards.zip"
    assert main(["print", "deck", "--format", "png", "--dpi", "150", "-o", str(target)]) == 0
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
        assert len([name for name in names if name.startswith("pairs-")]) == 56
        assert "back.png" in names and "README.txt" in names
        with Image.open(io.BytesIO(archive.read("pairs-56-cut-card.png"))) as image:
            # 63.5 + 6 mm by 88.9 + 6 mm at 150 dpi.
            assert image.size == (round(69.5 / 25.4 * 150), round(94.9 / 25.4 * 150))
    assert "3 mm bleed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cards"], "'cards' is for card images"),
        (["board", "--format", "png"], "'board' has no card images"),
        (["deck", "--format", "png", "--dpi", "2400"], "2400 dpi"),
    ],
)
def test_print_refuses_images_it_cannot_make(tmp_path, capsys, args, message):
    target = tmp_path / "out"
    assert main(["print", *args, "-o", str(target)]) == 2
    assert message in capsys.readouterr().err
    assert not target.exists()


def test_print_says_which_address_the_qr_codes_open(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LEAFPILE_PUBLIC_URL", "https://cards.example.org/")
    target = tmp_path / "aids.pdf"
    assert main(["print", "aids", "-o", str(target)]) == 0
    assert "https://cards.example.org/" in capsys.readouterr().out
    assert "https://cards.example.org/new/pairs" in _pages(target)[0].extract_text()


def test_light_backs_are_chosen_on_the_command_line_and_named_in_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["print", "standard-deck", "--full-backs", "--paper", "letter"]) == 0
    assert len(_pages(tmp_path / "leafpile-standard-deck-letter-poker-full-backs.pdf")) == 12
    # Light backs are the default, and --light-backs still says so.
    assert main(["print", "standard-deck", "--light-backs", "--paper", "letter"]) == 0
    assert len(_pages(tmp_path / "leafpile-standard-deck-letter-poker.pdf")) == 12
