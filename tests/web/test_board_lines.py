"""A board's history lines, worded once per public entry and language
(``described`` in companion/web/board.py, issue 41)."""

from __future__ import annotations

from datetime import UTC, datetime

from companion.tables.log import Event
from companion.web import board
from companion.web.board import described, screen_of


def _round(scores: list[int]) -> Event:
    return Event(1, "action", {"type": "AddRound", "scores": scores}, None, datetime.now(UTC))


def test_a_line_is_worded_once_per_entry_and_language(app, monkeypatch):
    screen = screen_of("scorepad")
    worded: list[object] = []
    real = board.describe_event

    def counting(screen_: object, event: Event) -> str:
        worded.append(event)
        return real(screen_, event)  # type: ignore[arg-type]

    monkeypatch.setattr(board, "describe_event", counting)
    entry = _round([3, 4])
    with app.test_request_context(headers={"Accept-Language": "en"}):
        english = [described(screen, entry), described(screen, entry)]
    with app.test_request_context(headers={"Accept-Language": "de"}):
        german = described(screen, entry)
    assert english == ["Round entered: 3, 4"] * 2
    assert german != english[0] and "3, 4" in german
    assert worded == [entry, entry]  # English once, German once


def test_an_equal_entry_that_is_another_copy_gets_its_own_line(app):
    """The memory goes by the very copy of the entry: another copy (another
    table, another view's blanking) is worded from what it holds."""
    screen = screen_of("scorepad")
    with app.test_request_context(headers={"Accept-Language": "en"}):
        first = described(screen, _round([1, 2]))
        second = described(screen, _round([5, 6]))
    assert (first, second) == ("Round entered: 1, 2", "Round entered: 5, 6")
