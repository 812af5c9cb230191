"""The Print page: choose paper, card size, bleed and back correction; download
PDFs, or card images for a print service.

Everything is a GET (nothing on the server changes), so every download is a
plain link or form that works without JavaScript. Bad options re-render the
page with the message and status 422.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from flask import Blueprint, Response, abort, current_app, render_template, request

from companion.cooperative import off_the_loop
from companion.network import lan_address

from .costly import one_job, pdf_response
from .i18n import language
from .ratelimit import pdf_limit

if TYPE_CHECKING:
    from printables import Options

# The print kit (reportlab, pypdfium2, Pillow: a fifth of a server process's
# memory) is imported by the print routes when first asked for, not when the
# app starts: most processes serve tables all evening and never print.

CARD_LABELS = {"poker": "Poker", "ccg": "CCG"}
"""How the card sizes are named on the page."""
IMAGE_DPI = 300
"""What print-on-demand services ask for; the command line offers others."""
TRUE = ("1", "on", "true", "yes")

bp = Blueprint("print", __name__, url_prefix="/print")


def said(error: ValueError) -> str:
    """A refusal of the options as the page shows it: in this phone's
    language when the kit words it (``KitError``), capitalised."""
    from printables.i18n import KitError, language_of, words

    message = (
        error.worded(words(language_of(language()))) if isinstance(error, KitError) else str(error)
    )
    return message[:1].upper() + message[1:]


def kit_language(form: Mapping[str, str]) -> str:
    """The language the kit is printed in: the one chosen on the page, else
    this phone's own (the kit speaks the app's eight languages)."""
    from printables.i18n import LANGUAGES, language_of

    chosen = form.get("language", "")
    return chosen if chosen in LANGUAGES else language_of(language())


def page_words() -> Any:
    """The Print page's own words (the kit's catalog) in this phone's
    language, for the template's ``kit("...")``: HTML in our translations is
    kept, the values put into them are escaped."""
    from markupsafe import Markup, escape
    from printables.i18n import language_of, words

    tr = words(language_of(language()))

    def kit(text: str, **params: object) -> Markup:
        return Markup(tr(text, **{name: escape(value) for name, value in params.items()}))

    return kit


def _default_url() -> str:
    """What the QR codes open: the server's public URL, else the one in use;
    a page opened at localhost gets this computer's network address instead
    (with the same port), since no phone can open localhost."""
    public = current_app.config.get("PUBLIC_URL")
    url = str(public or request.host_url)
    if not public and address_is_loopback(url):
        lan = lan_address()
        if lan:
            url = urlunsplit(urlsplit(url)._replace(netloc=_with_port(lan, url)))
    return url if url.endswith("/") else url + "/"


def _with_port(host: str, url: str) -> str:
    port = urlsplit(url).port
    return f"{host}:{port}" if port else host


def address_is_loopback(url: str) -> bool:
    """True for localhost or 127.x: the computer the page is opened on.

    >>> address_is_loopback("http://127.0.0.1:5000/"), address_is_loopback("http://10.0.0.7/")
    (True, False)
    """
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _number(form: Mapping[str, str], name: str, label: str) -> float:
    text = (form.get(name) or "0").strip().replace(",", ".") or "0"
    from printables.i18n import KitError

    try:
        value = float(text)
    except ValueError:
        raise KitError(
            "the back correction %(axis)s must be a number of mm, not %(text)s",
            axis=label,
            text=repr(text),
        ) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise KitError(
            "the back correction %(axis)s must be a number of mm, not %(text)s",
            axis=label,
            text=repr(text),
        )
    return value


def options_from(form: Mapping[str, str]) -> Options:
    """Read the options form (query string) into :class:`Options`.

    Raises ``ValueError`` with a message for the person printing.
    """
    from printables import Options
    from printables.sheet import parse_cards

    return Options(
        paper=form.get("paper", "a4"),
        card=form.get("card", "poker"),
        bleed=form.get("bleed") in TRUE,
        back_offset=(_number(form, "offset_x", "x"), _number(form, "offset_y", "y")),
        url=(form.get("url") or "").strip() or _default_url(),
        ink_saving=form.get("full_backs") not in TRUE,
        cards=parse_cards(form.get("only_cards") or ""),
        cut_to_edge=form.get("cut_lines") in TRUE,
        fold=form.get("fold") in TRUE,
        language=kit_language(form),
    )


def _form_values(form: Mapping[str, str]) -> dict[str, str]:
    from printables.sheet import CARD_ALIASES

    return {
        "paper": form.get("paper", "a4"),
        "card": CARD_ALIASES.get(form.get("card", "poker"), form.get("card", "poker")),
        "bleed": "1" if form.get("bleed") in TRUE else "",
        "full_backs": "1" if form.get("full_backs") in TRUE else "",
        "cut_lines": "1" if form.get("cut_lines") in TRUE else "",
        "fold": "1" if form.get("fold") in TRUE else "",
        "only_cards": form.get("only_cards", ""),
        "offset_x": form.get("offset_x", "0"),
        "offset_y": form.get("offset_y", "0"),
        "url": form.get("url") or _default_url(),
        "language": kit_language(form),
    }


def _back_warning(form: Mapping[str, str]) -> str | None:
    """The back-correction warning for these options (none while they are bad)."""
    from printables.deck import back_correction_warning
    from printables.i18n import language_of, words

    try:
        warning = back_correction_warning(options_from(form), words(language_of(language())))
    except ValueError:
        return None
    return warning[:1].upper() + warning[1:] if warning else None


def _page(form: Mapping[str, str], error: str | None = None, status: int = 200) -> Any:
    from printables import PARTS
    from printables.aids import address_warning
    from printables.i18n import LANGUAGES, language_of, words
    from printables.images import IMAGE_DECKS
    from printables.services import SERVICE_DECKS, SERVICES, unavailable_reason
    from printables.sheet import CARD_SIZES, MAX_BACK_OFFSET_MM, PAPERS

    values = _form_values(form)
    return (
        render_template(
            "print/index.html",
            back_warning=_back_warning(form),
            services=list(SERVICES.values()),
            service_decks=[PARTS[name] for name in SERVICE_DECKS],
            unavailable={
                service.name: unavailable_reason(service, words(language_of(language())))
                for service in SERVICES.values()
            },
            card_labels=CARD_LABELS,
            parts=list(PARTS.values()),
            image_decks=[PARTS[name] for name in IMAGE_DECKS if name in PARTS],
            image_dpi=IMAGE_DPI,
            form=values,
            address_warning=address_warning(values["url"], words(language_of(language()))),
            papers=PAPERS,
            cards=CARD_SIZES,
            max_offset=MAX_BACK_OFFSET_MM,
            error=error,
            kit=page_words(),
            kit_languages=LANGUAGES,
        ),
        status,
    )


@bp.get("/")
def index() -> Any:
    return _page(request.args)


@bp.get("/check")
def check() -> Any:
    """The warnings for the options as typed (the page asks again, through
    htmx, whenever an option changes)."""
    return render_template("print/_checks.html", back_warning=_back_warning(request.args))


@bp.get("/<deck>/<service>")
@pdf_limit
def service(deck: str, service: str) -> Any:
    """Exactly the files one print service asks for (:mod:`printables.services`)."""
    from printables.services import SERVICE_DECKS, SERVICES

    if service not in SERVICES or deck not in SERVICE_DECKS:
        abort(404)
    try:
        data, name, mimetype = _service_files(service, deck, kit_language(request.args))
    except ValueError as error:  # ServiceUnavailable: what is missing, said plainly
        return _page(request.args, said(error), 422)
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


@one_job
def _service_files(service: str, deck: str, language: str) -> tuple[bytes, str, str]:
    """Seconds of CPU (images at 300 dpi, or Ghostscript): in a job slot. The
    README and the cut card speak the kit's language chosen on the page."""
    from printables.services import service_files

    return service_files(service, deck, language=language)


@bp.get("/<part>.pdf")
@pdf_limit
def download(part: str) -> Any:
    import printables
    from printables import PARTS, build, filename

    if part not in PARTS:
        abort(404)
    try:
        options = options_from(request.args)
        printables.check(part, options)
    except ValueError as error:
        return _page(request.args, said(error), 422)
    # Built once per set of options (ETag), in one of the server's job slots.
    return pdf_response(part, options, build, filename(part, options))


@bp.get("/<deck>.zip")
@pdf_limit
def images(deck: str) -> Any:
    """One PNG per card and the back, with 3 mm bleed, for a print service."""
    from printables.images import IMAGE_DECKS, images_filename

    if deck not in IMAGE_DECKS:
        abort(404)
    try:
        options = options_from(request.args)
    except ValueError as error:
        return _page(request.args, said(error), 422)
    data = _card_images(deck, options)
    response = Response(data, mimetype="application/zip")
    name = images_filename(deck, options, IMAGE_DPI)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


@one_job
def _card_images(deck: str, options: Options) -> bytes:
    """Seconds of CPU at 300 dpi: in one of the server's job slots."""
    from printables.images import card_images

    return off_the_loop(card_images, deck, options, IMAGE_DPI)
