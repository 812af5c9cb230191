"""Errors raised by the referees.

Every error is a :class:`ValueError`, so callers that only care that an input
was rejected can catch that; the subclasses let a front end tell a typo in a
card from a move the rules forbid. Messages are written for a person at the
table: they say what was wrong and why, in plain words.
"""

from __future__ import annotations


class RuleError(ValueError):
    """Base class: the input or the action was rejected by the rules."""


class InvalidCard(RuleError):
    """A card that is not a card of the deck (``0``, ``11``, ``ace``, ``7.5``)."""


class TooManyCopies(RuleError):
    """More copies of a rank than the deck holds would be in play."""


class IllegalAction(RuleError):
    """A well-formed action the rules do not allow now (out of turn, wrong phase)."""
