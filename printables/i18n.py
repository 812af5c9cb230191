"""The print kit's words in the kit's own gettext catalog, with no Flask.

The kit has a catalog domain of its own, ``printables``: one
``printables/translations/printables.pot`` and per language a
``<code>/LC_MESSAGES/printables.po`` beside its compiled ``.mo`` (committed,
so an installed copy prints in every language with no build step). It is
kept apart from the web app's shared ``messages`` catalog: the kit is
printed from the command line too, and its words are paper words.

Words are marked with ``tr("...")`` (``tr = words(options.language)``),
``tr.n(singular, plural, count)`` where a number changes them, ``N_("...")``
for words defined before a language is known, and in the Print page's
template ``kit("...")``; none of these is a keyword of the shared catalog,
so its extraction never picks the kit's words up.

The catalogs are kept by :mod:`printables.catalogs` (``python -m
printables.catalogs extract|update|compile|check``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from gettext import NullTranslations
from pathlib import Path

# The kit speaks the app's languages (by Babel locale id, each in its own
# name), English the source; its callers read them here.
from companion.i18n import LANGUAGES as LANGUAGES
from companion.i18n import SOURCE as SOURCE

TRANSLATIONS = Path(__file__).resolve().parent / "translations"
DOMAIN = "printables"


def N_(text: str) -> str:  # noqa: N802 (gettext's usual name for a deferred mark)
    """Mark ``text`` for extraction only; it is translated where it is shown."""
    return text


def language_of(code: str | None) -> str:
    """The kit's language for a locale id: ``de_AT`` prints German,
    ``pt_PT`` and ``pt`` Brazilian Portuguese, anything unknown English.

    >>> language_of("de_AT"), language_of("pt-PT"), language_of("sv"), language_of(None)
    ('de', 'pt_BR', 'en', 'en')
    """
    if not code:
        return SOURCE
    code = code.replace("-", "_")
    if code in LANGUAGES:
        return code
    base = code.split("_")[0].lower()
    for known in LANGUAGES:
        if known.split("_")[0] == base:
            return known
    return SOURCE


@cache
def _catalog(language: str) -> NullTranslations:
    from babel.support import Translations

    if language == SOURCE:
        return NullTranslations()
    return Translations.load(str(TRANSLATIONS), [language], domain=DOMAIN)


@dataclass(frozen=True)
class Words:
    """The kit's words in one language: ``tr("...", name=value)``."""

    language: str

    def __call__(self, text: str, /, **params: object) -> str:
        said = _catalog(self.language).gettext(text)
        return said % params if params else said

    def n(self, singular: str, plural: str, count: int, /, **params: object) -> str:
        """The form for ``count`` (Polish has three); ``%(count)s`` is the number."""
        said = _catalog(self.language).ngettext(singular, plural, count)
        return said % {"count": count, **params}


def words(language: str) -> Words:
    """The kit's words in ``language`` (one of :data:`LANGUAGES`).

    >>> words("de")("Player aids")
    'Spielhilfen'

    Raises ``ValueError`` for a language the kit does not speak.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    return Words(language)


ENGLISH = Words(SOURCE)


class KitError(ValueError):
    """A refusal of the kit's options: ``str()`` is the English sentence (the
    command line's), :meth:`worded` the same in any language (the Print
    page's). ``text`` is marked for the kit's catalog (keyword ``KitError``)."""

    def __init__(self, english: str, /, **params: object) -> None:
        self.text = english
        self.params = params
        super().__init__(english % params if params else english)

    def worded(self, tr: Words) -> str:
        """The sentence in ``tr``'s language (a ``deck`` parameter, a part's
        English title, is translated with it)."""
        params = {
            name: tr(value) if name == "deck" and isinstance(value, str) else value
            for name, value in self.params.items()
        }
        return tr(self.text, **params)


COLOUR_NAMES = {
    "green": N_("green"),
    "yellow": N_("yellow"),
    "red": N_("red"),
    "blue": N_("blue"),
    "black": N_("black"),
    "clear": N_("clear"),
    "white": N_("white"),
    "orange": N_("orange"),
    "cyan": N_("cyan"),
    "purple": N_("purple"),
}
"""Autumn Ash's pyramid colours as the kit names them (aids, pads, board, nets)."""


def colour_name(tr: Words, colour: str) -> str:
    """An Autumn Ash colour's name in ``tr``'s language."""
    return tr(COLOUR_NAMES[colour])
