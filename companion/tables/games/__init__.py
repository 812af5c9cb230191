"""The games a table can hold, by key.

Each module here adapts one rules engine to the event log: it builds the
initial state from the table's setup and applies one logged action (a JSON
dict) to a state. Register a game by adding its module to ``GAME_MODULES``; the
module defines ``KIND = GameKind(...)``. The same list names each game's
screen in ``companion.web.games``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.rules import actions
from companion.rules.messages import Message


@dataclass(frozen=True)
class GameKind:
    """How the storage layer drives one game.

    ``new_state(players, options, seed)`` returns the state before any action;
    ``apply(state, action)`` takes a JSON action dict and returns the next
    state, raising ``companion.rules.errors.RuleError`` (a ValueError) with a
    message for the table when the action is illegal. Both must be pure and
    deterministic: the table's state is always a replay of its log.
    """

    key: str
    #: The game's name for people, worded where it is shown; ``str()`` is the
    #: English name, the one stored and exported data keep.
    title: Message
    min_players: int
    max_players: int
    new_state: Callable[[tuple[str, ...], Mapping[str, Any], int], Any]
    apply: Callable[[Any, Mapping[str, Any]], Any]
    blurb: str = ""
    # What an action made on an older version depends on: a value computed
    # from a state, compared between the version the phone saw and now; equal
    # means the writes in between were independent of it, so it is entered.
    # None (the default, right for turn-based games), or a None value for an
    # action: any change conflicts.
    depends_on: Callable[[Any, Mapping[str, Any]], Hashable | None] | None = None
    # The players whose own hidden entry an action makes or takes back (a
    # secret bid, a reveal on one's own phone): only their phone, or a shared
    # phone while their seat is free, may enter it.
    personal: Callable[[Mapping[str, Any]], tuple[str, ...]] = lambda action: ()
    # A key for the secret round open in a state (None when nothing is
    # hidden): entries made in the open round stay hidden from other phones.
    open_round: Callable[[Any], Hashable | None] = lambda state: None
    # The action with the entries of ``hidden`` players blanked out.
    redact: Callable[[Mapping[str, Any], frozenset[str]], dict[str, Any]] = lambda action, hidden: (
        dict(action)
    )
    # The action that takes back what ``player`` has hidden now, or None
    # (run when another phone takes the seat over).
    withdraw: Callable[[Any, str], dict[str, Any] | None] = lambda state, player: None
    # What a phone shown the hidden entries of the players in ``shown`` (its
    # own seat's, or none) may know of a state: a frozen value that holds
    # nothing else. A game with nothing hidden shows the state itself.
    player_view: Callable[[Any, frozenset[str]], Any] = lambda state, shown: state
    # Whether the board draws anything per seat (this phone's own pad, who
    # enters on their own phone). When not, every phone that may act gets
    # the same board (and so one render).
    shows_seats: bool = False

    def __reduce__(self) -> tuple[Callable[[str], GameKind], tuple[str]]:
        # A kind travels to and from a job worker (``companion/jobs.py``) by
        # its key: its callables are closures, and work that cannot be
        # pickled runs in the serving process instead (an import's check
        # did, holding up every phone, until issue 42's session found it).
        return (kind_named, (self.key,))


def kind_named(key: str) -> GameKind:
    """The registered game ``key`` (how a pickled :class:`GameKind` comes back)."""
    return load()[key]


def logged(action: Any) -> dict[str, Any]:
    """An action as the log holds it: JSON, with its class name as ``type``.

    The one place a rules action (a frozen dataclass of ``companion.rules``)
    becomes the log's JSON, so the web layer hands the store typed actions
    and never writes ``{"type": ...}`` by hand. A mapping (an entry read
    back from the log, an imported file) is taken as the JSON it already is.
    """
    if isinstance(action, Mapping):
        return dict(action)
    return actions.to_dict(action)


def applier(rules: Any) -> Callable[[Any, Mapping[str, Any]], Any]:
    """``GameKind.apply`` for a rules module that follows the conventions:
    a JSON action dict is read with the module's ``ACTIONS`` and handed to its
    ``apply``. Unknown or malformed actions raise ``RuleError``."""

    def apply(state: Any, action: Mapping[str, Any]) -> Any:
        return rules.apply(state, actions.from_dict(action, rules.ACTIONS))

    return apply


GAME_MODULES = (
    "scorepad",
    "autumn_leaves",
    "venture",
    "pairs",
    "leaf",
    "north_wind",
    "autumn_ash",
    "solitaire",
)

GAMES: dict[str, GameKind] = {}


def load() -> dict[str, GameKind]:
    """Import every game module once and return the registry."""
    if not GAMES:
        for name in GAME_MODULES:
            module = importlib.import_module(f"{__name__}.{name}")
            GAMES[module.KIND.key] = module.KIND
    return GAMES
