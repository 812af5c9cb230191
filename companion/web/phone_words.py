"""The words the phone's scripts write, in the phone's language.

``app.js`` (the dock: offline taps, a table that does not answer, limits)
and ``wakelock.js`` (the "keep this screen on" switch) write sentences of
their own. Every page carries them, worded by the server in this phone's
language, as JSON in one attribute (``base.html``: ``<body data-words='...'>``,
escaped by Jinja's ``tojson``): data, never a script, so the pages keep
having no inline script at all. No script library, no second request: under
a kilobyte of the compressed page.

A ``{n}``, ``{tap}``, ``{wait}`` or ``{s}`` in a sentence is filled in by the
script. A sentence whose words depend on a number comes as a list of its
plural forms, and ``plural`` says which form each number from 0 to 99 takes
in this language (Polish has three), so the script never needs the
language's plural rule itself.
"""

from __future__ import annotations

import weakref
from typing import Any

from flask_babel import get_translations  # type: ignore[import-untyped]

from .i18n import gettext

#: How many numbers ``plural`` covers: more taps than this never wait at once.
PLURAL_NUMBERS = 100


def _plural_index(n: int) -> int:
    rule = getattr(get_translations(), "plural", None)
    if rule is None:  # English, no catalog: one and other
        return 0 if n == 1 else 1
    return int(rule(n))


def ngettext(singular: str, plural: str) -> list[str]:
    """Each plural form of a sentence in this language, by its index (named
    ngettext so that extraction finds its words: keyword ngettext:1,2)."""
    translations = get_translations()
    forms: dict[int, str] = {}
    for n in range(PLURAL_NUMBERS):
        index = _plural_index(n)
        if index not in forms:
            words = str(translations.ngettext(singular, plural, n))
            forms[index] = words.replace("%(num)s", "{n}")
    return [forms[i] for i in sorted(forms)]


#: The words of each catalog, worded once: every full page carries them, and
#: wording them (each plural sentence asks the plural rule a hundred times)
#: was a tenth of the serving process's CPU while a flood of refused
#: requests was answered with error pages (issue 42). Keyed by the catalog
#: itself, so a language, or a catalog compiled again, has its own.
_WORDED: weakref.WeakKeyDictionary[Any, dict[str, object]] = weakref.WeakKeyDictionary()


def phone_words() -> dict[str, object]:
    """The scripts' words, for ``base.html`` (this request's language)."""
    translations = get_translations()
    words = _WORDED.get(translations)
    if words is None:
        words = _WORDED[translations] = _worded()
    return words


def _worded() -> dict[str, object]:
    on = gettext("On: this screen stays awake while the table is open.")
    return {
        # app.js: the dock
        "changed": gettext("The table changed while you were typing."),
        "show_it": gettext("Show it"),
        "ok": gettext("OK"),
        "cancel": gettext("Cancel"),
        "cancelled": gettext("Cancelled: nothing was sent."),
        "waiting_one": gettext("Waiting for the table — your tap will be sent when it answers."),
        "waiting_many": ngettext(
            "Waiting for the table — %(num)s tap will be sent when it answers.",
            "Waiting for the table — %(num)s taps will be sent when it answers.",
        ),
        "unsent_one": gettext("Not sent yet — will send when the table is back."),
        "unsent_many": ngettext(
            "%(num)s tap not sent yet — will send when the table is back.",
            "%(num)s taps not sent yet — will send when the table is back.",
        ),
        "waiting_for": gettext("Waiting: %(taps)s.", taps="{taps}"),
        "in_order": gettext("In order: %(taps)s.", taps="{taps}"),
        "sent_refused": gettext("Sent when the table was back, not entered: %(tap)s.", tap="{tap}"),
        "sent": gettext("Sent when the table was back: %(tap)s.", tap="{tap}"),
        "offline": gettext("No connection to the table: this screen may be out of date."),
        "not_answering": gettext(
            "Waiting for the table: it is not answering just now. This screen may be out of date."
        ),
        "no_answer": gettext("The table could not answer just now. Try again in a moment."),
        "too_many": gettext("Too many requests from this phone just now."),
        "try_again": gettext("Try again in %(wait)s.", wait="{wait}"),
        "a_minute": gettext("a minute"),
        "seconds": gettext("%(s)s s", s="{s}"),
        "key_off": gettext("That key cannot be used now."),
        # wakelock.js: the switch's note
        "awake_lock": on,
        "awake_video": on,
        "awake_tap": gettext("Tap anywhere on the page once, and this screen stays awake."),
        "awake_over": gettext("The game is over: the screen may dim again."),
        "awake_off": gettext("Off: the screen dims as the phone is set to."),
        "awake_none": gettext(
            "This browser cannot keep the screen awake: set the phone's screen timeout longer."
        ),
        "awake_video_title": gettext("Keeps the screen awake"),
        "plural": [_plural_index(n) for n in range(PLURAL_NUMBERS)],
    }
