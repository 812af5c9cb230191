"""Errors raised by the referees.

Every error is a :class:`ValueError`, so callers that only care that an input
was rejected can catch that; the subclasses let a front end tell a typo in a
card from a move the rules forbid. Messages are written for a person at the
table: they say what was wrong and why, in plain words.

An error carries its words as a value too (:attr:`RuleError.message`, a
:class:`~companion.rules.messages.Message` with an id and parameters), so a
front end can word it in its reader's language; ``str()`` of the error is the
English sentence.

>>> from companion.rules.messages import refusal
>>> err = IllegalAction(refusal("venture.slug.again", "the slug is already entered"))
>>> str(err), err.message.id
('the slug is already entered', 'venture.slug.again')
>>> IllegalAction("plain words").message.id
''
"""

from __future__ import annotations

from .messages import Message, plain


class RuleError(ValueError):
    """Base class: the input or the action was rejected by the rules."""

    message: Message

    def __init__(self, message: str | Message = "", *args: object) -> None:
        self.message = message if isinstance(message, Message) else plain(str(message))
        super().__init__(str(self.message), *args)


class InvalidCard(RuleError):
    """A card that is not a card of the deck (``0``, ``11``, ``ace``, ``7.5``)."""


class TooManyCopies(RuleError):
    """More copies of a rank than the deck holds would be in play."""


class IllegalAction(RuleError):
    """A well-formed action the rules do not allow now (out of turn, wrong phase)."""
