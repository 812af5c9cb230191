"""A new table's name when its host gives none, in the host's language.

A table's name is stored and reads the same on every phone, like a name the
host typed: so the default one is written in the language of the phone that
creates the table ("Wertungsblock, 28. Nov., 21:00"), its date in that
language's format (Babel), and a rematch's number in the language of the
phone that taps *Play again* ("Freitag (Partie 2)"). A name already numbered
in any of our languages is numbered on, not numbered twice.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache

from babel.dates import format_skeleton

from companion.i18n import LANGUAGES, catalog
from companion.rules.messages import marked
from companion.tables.games import GameKind
from companion.tables.store import MAX_TITLE_LENGTH

from .i18n import gettext, language, words

#: A rematch's number after the table's name (``%(number)s``: 2, 3, ...).
GAME_NUMBER = marked("(game %(number)s)")


def default_name(kind: GameKind, now: datetime | None = None) -> str:
    """``"Venture, Nov 28 21:00"`` in this phone's words and date format
    (the host's local time, as the table's evening)."""
    moment = now or datetime.now()
    here = language()
    day, time = (format_skeleton(skeleton, moment, locale=here) for skeleton in ("MMMd", "Hm"))
    when = f"{day} {time}"
    name = gettext("%(game)s, %(date)s", game=words(kind.title), date=when)
    return name[:MAX_TITLE_LENGTH]


def next_name(title: str) -> str:
    """The name of a table's next game: ``"Friday"`` -> ``"Friday (game 2)"``
    -> ``"Friday (game 3)"``, the number in this phone's words whatever
    language numbered it before."""
    base, number = title, 2
    for pattern in _numbered():
        found = pattern.match(title)
        if found:
            base, number = found.group(1), int(found.group(2)) + 1
            break
    suffix = " " + gettext(GAME_NUMBER, number=number)
    return base[: MAX_TITLE_LENGTH - len(suffix)] + suffix


@cache
def _numbered() -> tuple[re.Pattern[str], ...]:
    """A numbered name in each language: ``^(name) \\(Partie (2)\\)$``."""
    forms = {catalog(code).gettext(GAME_NUMBER) for code in LANGUAGES}
    return tuple(
        re.compile(r"^(.*) " + re.escape(form).replace(re.escape("%(number)s"), r"(\d+)") + "$")
        for form in sorted(forms)
    )
