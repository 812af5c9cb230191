"""Each phone its own language (Flask-Babel), at the same table.

A phone's language is, in this order: the one it chose with the switch in the
top bar (a cookie on that phone only, ``leafpile_lang``), else the best match
of its browser's ``Accept-Language`` among :data:`companion.i18n.LANGUAGES`,
else English. Nothing is stored with the table, so phones at one table never
change each other's language. A render depends on the language and on the
``BoardView``; the shared render cache keys on both (``board_cache.py``).

The rules' refusals arrive as :class:`~companion.rules.messages.Message`
values (an id, parameters, English words) and are worded here by
:func:`words`, in this request's language.
"""

from __future__ import annotations

import gettext as gettext_module
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import flask_babel  # type: ignore[import-untyped]
from flask import Flask, current_app, request
from flask_babel import Babel, get_locale, get_translations
from werkzeug.wrappers import Request

from companion.i18n import LANGUAGES, PSEUDO, SOURCE, TRANSLATIONS, catalog
from companion.rules.messages import Message, english

from .words import for_players

COOKIE = "leafpile_lang"
YEAR = 365 * 24 * 3600  # how long a phone remembers its language

babel = Babel()


def offered() -> dict[str, str]:
    """The languages this app offers phones (the pseudo-locale only when set)."""
    languages = dict(LANGUAGES)
    if current_app.config.get("I18N_PSEUDO_LOCALE"):
        languages[PSEUDO] = "Pseudo"
    return languages


def choose_language() -> str:
    """This request's language: the phone's choice, else its browser's."""
    return pick_language(
        request.cookies.get(COOKIE, ""),
        (wanted for wanted, _quality in request.accept_languages),
        offered(),
    )


def pick_language(chosen: str, wanted: Iterable[str], languages: Collection[str]) -> str:
    """The language for a phone that ``chose`` one (its cookie) and whose
    browser asks for ``wanted`` (``Accept-Language``, most wanted first),
    among ``languages``: no Flask needed (:func:`catalog_before_flask` asks before Flask)."""
    if chosen in languages:
        return chosen
    # The browser's languages, most wanted first: the same language, else the
    # same main tag ("pt-PT" is best served Brazilian Portuguese, "de-AT" German).
    for asked in wanted:
        tag = asked.replace("-", "_").lower()
        for code in LANGUAGES:
            if code.lower() == tag:
                return code
        for code in LANGUAGES:
            if code.split("_")[0] == tag.split("_")[0]:
                return code
    return SOURCE


def catalog_before_flask(environ: dict[str, Any]) -> gettext_module.NullTranslations:
    """The catalog of the phone that sent ``environ`` (its remembered choice,
    else its browser's), for an answer made before Flask (an outage, a
    flood's refusal): read from the request as it came, no database, no app."""
    asked = Request(environ)
    wanted = (tag for tag, _quality in asked.accept_languages)
    return catalog(pick_language(asked.cookies.get(COOKIE, ""), wanted, LANGUAGES))


def language() -> str:
    """This request's language id (``"de"``, ``"pt_BR"``); English outside one."""
    locale = get_locale()
    return str(locale) if locale is not None else SOURCE


def is_english() -> bool:
    return language() == SOURCE


def words(message: Message | str) -> str:
    """``message`` in this request's language. Plain English words (no id
    yet) stay as they are; so does a message its catalog does not have."""
    if isinstance(message, str):
        return message
    translations = get_translations()

    def worded(one: Message) -> str:
        if not one.id:
            return english(one)
        if one.plural is not None:
            return str(translations.npgettext(one.id, one.default, one.plural, one.number()))
        return str(translations.pgettext(one.id, one.default))

    return message.worded(worded, numbers=flask_babel.format_decimal)


def gettext(text: str, **params: object) -> str:
    """``text`` (marked for extraction) in this request's language, its
    ``%(name)s`` placeholders filled from ``params``."""
    return str(flask_babel.gettext(text, **params))


def names_and(names: Sequence[str]) -> str:
    """Names joined into one, ``"Ana and Ben and Cy"`` in this request's
    language (each joined to those before it; empty for none)."""
    joined = names[0] if names else ""
    for name in names[1:]:
        joined = gettext("%(names)s and %(name)s", names=joined, name=name)
    return joined


def message_of(exc: BaseException) -> Message | str:
    """The words an error carries: its message value if it has one."""
    message = getattr(exc, "message", None)
    return message if isinstance(message, Message) else str(exc)


def for_this_phone(text: object) -> str:
    """:func:`~companion.web.words.for_players` in this phone's language: the
    English article fixes ("a 8" -> "an 8") only for English."""
    return for_players(text, articles=is_english())


def language_links() -> list[tuple[str, str]]:
    """The switch's choices: (code, own name), this phone's first."""
    here = language()
    return sorted(
        ((code, name) for code, name in LANGUAGES.items()), key=lambda item: item[0] != here
    )


def init_i18n(app: Flask) -> None:
    """Flask-Babel with the package's catalogs, and the pseudo-locale's when
    ``I18N_PSEUDO_LOCALE`` names a folder holding it (tests: made by
    :func:`companion.i18n.write_pseudo`; a phone then picks it like any
    language, by the switch's address ``/language/en_US_POSIX``)."""
    directories = [str(TRANSLATIONS)]
    pseudo = app.config.get("I18N_PSEUDO_LOCALE")
    if pseudo:
        # First, not last: Flask-Babel takes a language's plural rule from
        # the last folder, and the pseudo folder holds no Polish, so a Polish
        # phone got English plurals ("10 punkty" for "10 punktów"). Its cache
        # is shared by every app of the process, so one test's pseudo app
        # spoiled the next tests' Polish.
        directories.insert(0, str(pseudo))
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = ";".join(directories)
    babel.init_app(app, locale_selector=choose_language)
    app.jinja_env.filters["for_players"] = for_this_phone
    app.jinja_env.filters["words"] = words  # a rules Message in this phone's language
    app.jinja_env.globals["language"] = language
    app.jinja_env.globals["language_links"] = language_links
    app.jinja_env.globals["language_names"] = LANGUAGES
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    from .language_switch import bp  # the switch's route: a blueprint of its own
    from .phone_words import phone_words  # the scripts' words (base.html)

    app.jinja_env.globals["phone_words"] = phone_words

    app.register_blueprint(bp)
