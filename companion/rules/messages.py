"""Words the referees say, as values: an id, parameters and an English default.

A refusal is chosen by the rules but worded where it is shown, in the language
of the phone that reads it. So the rules never build a sentence for a person
themselves: they make a :class:`Message` with

- ``id``: a stable name for what happened (``"venture.bid.twice"``), the
  catalogs' context: it never changes when the English wording does;
- ``default``: the English words, with ``%(name)s`` placeholders (Python's
  %-formatting, the catalogs' ``python-format``);
- ``params``: the values of those placeholders. A value may itself be a
  :class:`Message` (a reason inside a refusal), which is worded in the same
  language.

``str()`` of a message is its English sentence, exactly what the rules raised
before messages were values, so a library user (and every test comparing
sentences) sees no change. The web layer translates with the catalogs
(``companion/web/i18n.py``); the rules import no gettext and no Flask.

>>> m = refusal("venture.bid.none", "%(player)s has no bid to take back this round", player="Ana")
>>> str(m)
'Ana has no bid to take back this round'
>>> m.id, dict(m.params)
('venture.bid.none', {'player': 'Ana'})
>>> str(refusal("outer", "cannot do it: %(why)s", why=refusal("inner", "too late")))
'cannot do it: too late'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Union

#: A placeholder's value: words in no language (a name, a number) or a message.
Param = Union[str, int, "Message"]


class Grouped(int):
    """A count shown with its thousands grouped as the reader's language
    groups them ("5,000" in English, "5.000" in German), where a plain
    ``int`` (a deal's number, a card) is shown as it is.

    >>> str(refusal("x", "more than %(most)s events", most=Grouped(5000)))
    'more than 5,000 events'
    """


def english_number(number: int) -> str:
    return f"{number:,}"


@dataclass(frozen=True)
class Message:
    """Something the rules say to a person, before it is put into words."""

    id: str
    default: str
    params: Mapping[str, Param] = field(default_factory=dict)
    #: The English plural of ``default``, when its words depend on a number:
    #: ``count`` names the parameter that holds it (see :func:`refusal_n`).
    plural: str | None = None
    count: str = "n"

    def __str__(self) -> str:
        return self.worded(english)

    def worded(
        self, words: Callable[[Message], str], numbers: Callable[[int], str] = english_number
    ) -> str:
        """This message in the words ``words`` gives each message (its own and
        those of its parameters), its :class:`Grouped` counts as ``numbers``
        writes them: ``str`` uses the English defaults, the web layer a
        catalog's translations and the phone's number format."""
        template = words(self)
        values = {
            name: value.worded(words, numbers)
            if isinstance(value, Message)
            else numbers(value)
            if isinstance(value, Grouped)
            else value
            for name, value in self.params.items()
        }
        return template % values

    def __hash__(self) -> int:
        return hash((self.id, self.default, tuple(sorted(self.params.items(), key=_first))))

    def number(self) -> int:
        """The number the words depend on (1 for a message without a plural)."""
        value = self.params.get(self.count, 1)
        return value if isinstance(value, int) else 1


def _first(item: tuple[str, Param]) -> str:
    return item[0]


def refusal(id: str, default: str, /, **params: Param) -> Message:
    """A :class:`Message`; the name the catalogs' extraction looks for.

    ``pybabel extract`` reads calls of ``refusal`` (keyword ``refusal:1c,2``):
    the id becomes the entry's context and the default its English text, so
    two refusals that read alike in English may read differently elsewhere.
    """
    return Message(id, default, params)


def refusal_n(id: str, singular: str, plural: str, count: str, /, **params: Param) -> Message:
    """A :class:`Message` whose words depend on the number in ``params[count]``
    (keyword ``refusal_n:1c,2,3``): English has two forms, Polish three, and
    the catalogs say which form each number takes.

    >>> str(refusal_n("x", "only %(n)s card", "only %(n)s cards", "n", n=1))
    'only 1 card'
    >>> str(refusal_n("x", "only %(n)s card", "only %(n)s cards", "n", n=3))
    'only 3 cards'
    """
    return Message(id, singular, params, plural, count)


def english(message: Message) -> str:
    """The English words of ``message`` alone (its parameters not filled in)."""
    if message.plural is not None and message.params.get(message.count) != 1:
        return message.plural
    return message.default


def marked(text: str) -> str:
    """``text`` unchanged, marked for the catalogs (keyword ``marked``): for
    English words kept as data and worded where shown, such as a game's blurb
    on the start page (the template looks them up with ``_()``)."""
    return text


def named(id: str, default: str, /) -> Message:
    """A name a screen shows, such as a game's title ("Score pad"): a
    :class:`Message` with no parameters, worded where shown (keyword
    ``named:1c,2``). ``str()`` is the English name, which stored and exported
    data keep; a proper name ("Venture") reads the same in every language.
    """
    return Message(id, default)


def plain(words: str) -> Message:
    """English words that were not yet given an id: shown as they are in every
    language until someone gives them one (see docs/languages.md)."""
    return Message("", words.replace("%", "%%"), {})
