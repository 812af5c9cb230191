"""Reading an uploaded table export: anybody's file, so every step is bounded.

Cost (issue 23): an import is a job like a PDF or a hint. It runs in one of
the server's job slots (:func:`companion.web.costly.job_slot`: one at a time
per client, a fair share of job time a minute), the file is at most
``MAX_IMPORT_BYTES``, its log at most ``MAX_IMPORT_EVENTS`` events, and the
check of the log stops after ``MAX_REPLAY_SECONDS``. A long evening's table
has a few hundred events; the largest real exports (a solitaire deal played
with many undos) a few thousand.

The request itself is at most ``MAX_CONTENT_LENGTH`` (2 MB). JSON nested thousands
deep, integers of thousands of digits, bytes that are not UTF-8 and strings
that cannot be written as UTF-8 (a lone surrogate escaped as ``\\udc80``) are
refused with a short message, as is anything the store refuses (see
``Store.import_table``). Messages quote at most a short prefix of the file.

Options are checked like the new-table form's (a ruling, see
docs/deploying.md): the form, left empty, says which options a game has and
of which type; an import may carry no other option and no other type; texts
are at most 60 characters; a whole number must be one the form itself
accepts when typed in (the deal number, the losing score), and then the
game's own rules check the whole setup.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from companion.cooperative import off_the_loop
from companion.rules.messages import refusal
from companion.tables.checks import check_storable_text
from companion.tables.import_export import CheckedImport, check_import
from companion.tables.store import TableError, TableView

from . import store
from .costly import job_slot
from .games import FormError
from .games import load as load_screens

MAX_OPTION_TEXT = 60
MAX_OPTION_NUMBER = 10**9
#: Ruling (issue 23): the limits of one import; docs/deploying.md lists them.
MAX_IMPORT_BYTES = 512 * 1024
#: The import form as sent: the file, its multipart wrapping and the CSRF
#: field. A longer request is refused by its length before it is read.
MAX_IMPORT_FORM_BYTES = MAX_IMPORT_BYTES + 16 * 1024
MAX_IMPORT_EVENTS = 5_000
MAX_REPLAY_SECONDS = 10.0


def import_upload(raw: bytes) -> TableView:
    """A new table from an uploaded export, within the limits above, in a job slot.

    Raises :class:`TableError` for the person; the job slot raises 503/429
    when the server (or this client's share of it) is busy.
    """
    if len(raw) > MAX_IMPORT_BYTES:
        raise TableError(
            refusal(
                "import.too_big",
                "that file is larger than %(kb)s KB: it is larger than any Leafpile table export",
                kb=MAX_IMPORT_BYTES // 1024,
            )
        )
    with job_slot():
        # Read and checked in a worker process of lower priority
        # (companion/jobs.py): up to a second of CPU for a large file, which
        # in the serving process held up every phone it serves. Only the
        # rows are written here, at full priority: on SQLite a worker of
        # lower priority would hold the one write lock that every entry
        # (and, in SQLite's busy wait, the event loop) waits for.
        checked = off_the_loop(check_upload, raw, MAX_IMPORT_EVENTS, MAX_REPLAY_SECONDS)
        return store().write_import(checked)


def check_upload(raw: bytes, max_events: int, max_seconds: float) -> CheckedImport:
    """The upload read and checked for a new table (pure: a job worker runs it)."""
    return check_import(read_export(raw), check_options, max_events, max_seconds)


_NOT_JSON = refusal("import.not_json", "that file is not a Leafpile table export (it is not JSON)")


def read_export(raw: bytes) -> Any:
    """The upload as JSON, or :class:`TableError` with a message for the person."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TableError(_NOT_JSON) from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise TableError(
            refusal("import.nests", "that file nests far deeper than any Leafpile table export")
        ) from None
    except ValueError:  # not JSON, or a number of more than 4,300 digits
        raise TableError(_NOT_JSON) from None
    # JSON's \udc80 decodes to a lone surrogate, which no page or database can
    # hold: every string of the file must encode as UTF-8, or nothing is stored.
    check_storable_text(data)
    return data


def check_options(game: str, players: tuple[str, ...], options: Mapping[str, Any]) -> None:
    """Refuse options the new-table form could not have produced."""
    screen = load_screens().get(game)
    if screen is None:
        return
    try:
        form_made = screen.parse_options({}, players)
    except FormError:
        return  # the game's own rules check a setup this form cannot describe
    for key, value in options.items():
        name = str(key)[:24]
        if key not in form_made:
            raise TableError(
                refusal(
                    "import.option.unknown",
                    "this export has an option this game does not have (%(name)s)",
                    name=repr(name),
                )
            )
        expected = form_made[key]
        if not _same_type(value, expected):
            raise TableError(
                refusal(
                    "import.option.kind",
                    "this export's option %(name)s has the wrong kind of value",
                    name=repr(name),
                )
            )
        if isinstance(value, str) and len(value) > MAX_OPTION_TEXT:
            raise TableError(
                refusal(
                    "import.option.long",
                    "this export's option %(name)s is too long",
                    name=repr(name),
                )
            )
        if isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_OPTION_NUMBER:
                raise TableError(
                    refusal(
                        "import.option.range",
                        "this export's option %(name)s is out of range",
                        name=repr(name),
                    )
                )
            _as_typed(screen, players, key, value)


def _same_type(value: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(expected, bool)
    if expected is None:  # "empty means the standard": a number or nothing
        return value is None or isinstance(value, int)
    if isinstance(expected, int):
        return value is None or isinstance(value, int)
    return isinstance(value, type(expected))


def _as_typed(screen: Any, players: tuple[str, ...], key: str, value: int) -> None:
    """A number the form reads under the same name must be one it accepts."""
    try:
        parsed = screen.parse_options({key: str(value)}, players)
    except FormError as exc:
        raise TableError(
            refusal("import.setup", "this export's setup is refused: %(why)s", why=str(exc)[:120])
        ) from exc
    del parsed  # accepted (or not a field of that name): the rules check the rest
