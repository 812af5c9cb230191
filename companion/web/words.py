"""Words for players: the last pass every message to a person goes through.

The rules library names the ruling behind each refusal ("… blocks it head on
(X9)"), which is right for the library, the docs and the history's detail,
but a player at the table wants the reason, not a code. :func:`for_players`
takes the ids out, makes the articles agree ("an orange drone", "an 8") and
ends the message as a sentence. It is idempotent, so a message may pass
through it twice (``sentence`` and the ``for_players`` template filter).

>>> for_players("the cyan drone at D2 blocks a orange queen head on (X9)")
'The cyan drone at D2 blocks an orange queen head on.'
>>> for_players("a new piece enters on an empty corner (A1, E1, A6, E6), not C3 (X6)")
'A new piece enters on an empty corner (A1, E1, A6, E6), not C3.'
>>> for_players("Ana drew a 8 (P3, P4). This tap was not entered.")
'Ana drew an 8. This tap was not entered.'
"""

from __future__ import annotations

import re

from markupsafe import Markup

from companion.rules.cards import article

# One ruling id: a prefix of 1-3 capitals and a number ("X9", "N12", "XA5",
# "PR3", "LX2"); a group is one id or several, joined by "-", "," or "and".
_ID = r"[A-Z]{1,3}\d{1,2}"
_GROUP = re.compile(rf"\s*\(({_ID}(?:\s*(?:[-–,/]|and)\s*{_ID})*)\)")
# A list of board squares (Autumn Ash's columns A-E, rows 1-6) is not ids.
_SQUARE = re.compile(r"[A-E][1-6]")
_ITEM = re.compile(_ID)
# "a" before a vowel sound; words that start with a vowel letter but sound
# like a consonant ("a one-card hand", "a unique", "a user") keep "a".
# A capital "A" is an article only where a sentence starts (else a column).
_A_VOWEL = re.compile(r"(\ba|(?:^|(?<=[.!?] ))A) (?!one\b|once\b|uni|use|usu|eu)([aeiouAEIOU])")
_A_NUMBER = re.compile(r"\b([Aa]n?) (\d+)\b")
_ENDS = (".", "!", "?", "…", ":")


def _without_ids(match: re.Match[str]) -> str:
    items = _ITEM.findall(match.group(1))
    if len(items) > 1 and all(_SQUARE.fullmatch(i) for i in items):
        return match.group(0)  # "(A1, E1, A6, E6)": the corners, not rulings
    return ""


def _number_article(match: re.Match[str]) -> str:
    word = article(int(match.group(2)))
    if match.group(1)[0].isupper():
        word = word.capitalize()
    return f"{word} {match.group(2)}"


def for_players(text: object, *, articles: bool = True) -> str:
    """``text`` as a player should read it: no ruling ids, agreeing articles,
    a capital first letter and a full stop at the end (unless it already ends
    with one, a question or exclamation mark, an ellipsis or a colon).
    Markup stays Markup; an empty text stays empty. ``articles=False`` leaves
    the articles alone: the fixes are English ("a" is a word of its own in
    Italian and Spanish)."""
    markup = isinstance(text, Markup)
    words = str(text).strip()
    if not words:
        return Markup("") if markup else ""
    words = _GROUP.sub(_without_ids, words)
    if articles:
        words = _A_VOWEL.sub(lambda m: f"{m.group(1)}n {m.group(2)}", words)
        words = _A_NUMBER.sub(_number_article, words)
    words = words[:1].upper() + words[1:]
    stripped = words.rstrip("\"'”’)»")
    if not stripped.endswith(_ENDS):
        words += "."
    return Markup(words) if markup else words


def without_ids(text: object) -> str:
    """Only the ruling ids taken out: for a phrase inside a sentence or a label."""
    return _GROUP.sub(_without_ids, str(text)).strip()


def with_article(noun: object) -> str:
    """``"orange drone"`` → ``"an orange drone"``: a label's noun with its article.

    >>> with_article("orange drone"), with_article("red pawn")
    ('an orange drone', 'a red pawn')
    """
    return _A_VOWEL.sub(lambda m: f"{m.group(1)}n {m.group(2)}", f"a {noun}")
