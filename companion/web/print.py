"""The Print page: choose paper, card size, bleed and back correction; download
PDFs, or card images for a print service.

Everything is a GET (nothing on the server changes), so every download is a
plain link or form that works without JavaScript. Bad options re-render the
page with the message and status 422.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, abort, current_app, render_template, request

from printables import PARTS, Options, build, filename
from printables.images import IMAGE_DECKS, card_images, images_filename
from printables.sheet import CARD_SIZES, MAX_BACK_OFFSET_MM, PAPERS

from .costly import one_job, pdf_response
from .ratelimit import pdf_limit

IMAGE_DPI = 300
"""What print-on-demand services ask for; the command line offers others."""
TRUE = ("1", "on", "true", "yes")

bp = Blueprint("print", __name__, url_prefix="/print")


def _default_url() -> str:
    """What the QR codes open: the server's public URL, else the one in use."""
    public = current_app.config.get("PUBLIC_URL")
    url = str(public or request.host_url)
    return url if url.endswith("/") else url + "/"


def address_may_change(url: str) -> bool:
    """True for an address by number (or localhost): a network can hand the
    computer another one, while the paper keeps the old one.

    >>> address_may_change("http://192.168.1.20:5000/"), address_may_change("https://games.example.org/")
    (True, False)
    """
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".local"):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _number(form: Mapping[str, str], name: str, label: str) -> float:
    text = (form.get(name) or "0").strip().replace(",", ".") or "0"
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            f"the back correction {label} must be a number of mm, not {text!r}"
        ) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"the back correction {label} must be a number of mm, not {text!r}")
    return value


def options_from(form: Mapping[str, str]) -> Options:
    """Read the options form (query string) into :class:`Options`.

    Raises ``ValueError`` with a message for the person printing.
    """
    return Options(
        paper=form.get("paper", "a4"),
        card=form.get("card", "poker"),
        bleed=form.get("bleed") in TRUE,
        back_offset=(_number(form, "offset_x", "x"), _number(form, "offset_y", "y")),
        url=(form.get("url") or "").strip() or _default_url(),
        ink_saving=form.get("light_backs") in TRUE,
    )


def _form_values(form: Mapping[str, str]) -> dict[str, str]:
    return {
        "paper": form.get("paper", "a4"),
        "card": form.get("card", "poker"),
        "bleed": "1" if form.get("bleed") in TRUE else "",
        "light_backs": "1" if form.get("light_backs") in TRUE else "",
        "offset_x": form.get("offset_x", "0"),
        "offset_y": form.get("offset_y", "0"),
        "url": form.get("url") or _default_url(),
    }


def _page(form: Mapping[str, str], error: str | None = None, status: int = 200) -> Any:
    values = _form_values(form)
    return (
        render_template(
            "print/index.html",
            parts=list(PARTS.values()),
            image_decks=[PARTS[name] for name in IMAGE_DECKS if name in PARTS],
            image_dpi=IMAGE_DPI,
            form=values,
            address_may_change=address_may_change(values["url"]),
            papers=PAPERS,
            cards=CARD_SIZES,
            max_offset=MAX_BACK_OFFSET_MM,
            error=error,
        ),
        status,
    )


@bp.get("/")
def index() -> Any:
    return _page(request.args)


@bp.get("/<part>.pdf")
@pdf_limit
def download(part: str) -> Any:
    if part not in PARTS:
        abort(404)
    try:
        options = options_from(request.args)
    except ValueError as error:
        message = str(error)
        return _page(request.args, message[:1].upper() + message[1:], 422)
    # Built once per set of options (ETag), in one of the server's job slots.
    return pdf_response(part, options, build, filename(part, options))


@bp.get("/<deck>.zip")
@pdf_limit
def images(deck: str) -> Any:
    """One PNG per card and the back, with 3 mm bleed, for a print service."""
    if deck not in IMAGE_DECKS:
        abort(404)
    try:
        options = options_from(request.args)
    except ValueError as error:
        message = str(error)
        return _page(request.args, message[:1].upper() + message[1:], 422)
    data = _card_images(deck, options)
    response = Response(data, mimetype="application/zip")
    name = images_filename(deck, options, IMAGE_DPI)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


@one_job
def _card_images(deck: str, options: Options) -> bytes:
    """Seconds of CPU at 300 dpi: in one of the server's job slots."""
    return card_images(deck, options, IMAGE_DPI)
