"""Game screens: how each game looks on a phone and reads its forms.

A game's screen module defines ``SCREEN = Screen(...)``, under the same
name as its storage module in ``companion.tables.games.GAME_MODULES``. The
generic table views (``companion/web/table.py``) do the rest: version
checks, the event log, undo/redo, live refresh, history, join.

The contract, in short:

* ``board_template`` renders the game area inside ``<div id="board">``. Its
  context: ``table`` (a :class:`companion.tables.store.TableView`), ``state``
  (the rules state after the log), ``me`` (the seat this phone chose, or
  None), ``error`` (a message to show, or None), ``readonly`` (spectator
  view: render no forms). Forms use the macros in ``templates/_partials.html``
  (``act_form``, ``card_pad``), which post the table's version, the CSRF
  token and an ``action`` name to the table's act URL.
* ``parse_action(form, state, me)`` turns the posted form (a mapping of
  str → str) into one of the rules' own action dataclasses (the store writes
  it to the log as JSON, ``companion.tables.games.logged``), or raises
  :class:`FormError` with a message for the person holding the phone. It
  never writes anything.
* ``options_template`` (optional) renders extra fields of the "new table"
  form; ``parse_options(form, players)`` reads them into the options dict
  (raising FormError for junk).
* ``summary(state)`` is one short line for the list of tables.
* ``describe(action)`` (optional) says one logged action in words for the
  history ("Ana hit a 7"); the default lists the action's fields.
* ``describe_events(events, shown)`` (optional) says some of the ``shown``
  log events better with the whole log ``events`` at hand, as ``{seq: words}``
  (Autumn Leaves names the card a placement put down, which its logged action
  does not hold); the others keep ``describe``.

Every table with more than one player shows who a phone is (its seat, the
shared phone, or watching) above the board: ``templates/table/_who.html``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.tables.games import GAME_MODULES


class FormError(ValueError):
    """A form that cannot become an action; the message is shown to the user."""


class FormPrompt(FormError):
    """Not a mistake but the game's next question (the North Wind draws from
    the animal deck): nothing is entered, and the message is shown as
    information, not as a red error."""


def _no_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    return {}


def _no_summary(state: Any) -> str:
    return ""


def describe_fields(action: Mapping[str, Any]) -> str:
    """A plain rendering of an action dict: ``Hit: player Ana, card 7``."""
    kind = str(action.get("type", "action"))
    words = "".join(" " + c.lower() if c.isupper() else c for c in kind).strip().capitalize()
    fields = ", ".join(f"{k} {_say(v)}" for k, v in action.items() if k != "type")
    return f"{words}: {fields}" if fields else words


def _say(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(_say(v) for v in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{k} {_say(v)}" for k, v in value.items())
    return str(value)


@dataclass(frozen=True)
class Screen:
    game: str
    board_template: str
    parse_action: Callable[[Mapping[str, str], Any, str | None], Any]  # a rules action
    options_template: str | None = None
    parse_options: Callable[[Mapping[str, str], tuple[str, ...]], dict[str, Any]] = field(
        default=_no_options
    )
    summary: Callable[[Any], str] = field(default=_no_summary)
    describe: Callable[[Mapping[str, Any]], str] = field(default=describe_fields)
    describe_events: Callable[[Sequence[Any], Sequence[Any]], Mapping[int, str]] | None = None
    # Whether the game's board (given its view) lists what just happened
    # itself: the table's own "Latest" list is then left off, so no event
    # is listed twice (the North Wind's turn, issue 43). History has them all.
    lists_latest: Callable[[Any], bool] | None = None


# One screen module per game, named as in the storage layer's list.

SCREENS: dict[str, Screen] = {}


def load() -> dict[str, Screen]:
    if not SCREENS:
        for name in GAME_MODULES:
            module = importlib.import_module(f"{__name__}.{name}")
            SCREENS[module.SCREEN.game] = module.SCREEN
    return SCREENS
