"""What the store refuses, and the messages it refuses with (for the person)."""

from __future__ import annotations

from companion.rules.messages import Message, plain, refusal

STALE_MESSAGE = refusal(
    "table.stale",
    "your tap was not entered: someone changed the table at the same moment. "
    "This is the table as it is now; check it and tap again if you still want to",
)


class TableError(ValueError):
    """A request the table cannot take; the message is for the person.

    Its words are a value too (:attr:`message`, with an id and parameters),
    worded in each phone's language where it is shown; ``str()`` is English.
    A referee's refusal passes through with its own message."""

    message: Message

    def __init__(self, message: str | Message = "", *args: object) -> None:
        self.message = message if isinstance(message, Message) else plain(str(message))
        super().__init__(str(self.message), *args)

    def __reduce__(self) -> tuple[type[TableError], tuple[Message]]:
        # Raised in a worker process (an import, companion/jobs.py), it
        # arrives with its message value, still to be worded for the phone.
        return type(self), (self.message,)


class NoSuchTable(TableError):
    pass


class StaleVersion(TableError):
    """The phone acted on an older version than the table has now."""


class NothingToUndo(TableError):
    pass


class SeatTaken(TableError):
    """The seat is held by another phone: taking it over must be asked for."""


class SeatHasEntry(SeatTaken):
    """The seat is free, but another phone entered its hidden entry: taking
    the seat takes that entry back, so it must be asked for too."""


class AlreadyEntered(TableError):
    """A tap whose id the log already holds: it was entered once, not again."""


class TapUnknown(TableError):
    """The database could not be asked whether a tap was entered."""


NOTHING_TO_UNDO = refusal("table.undo.nothing", "there is nothing to undo")
NOTHING_TO_REDO = refusal("table.redo.nothing", "there is nothing to redo")
NO_TABLE = refusal("table.none", "there is no table at this address")

TAP_UNKNOWN_MESSAGE = refusal(
    "table.tap-unknown",
    "the table could not be reached just now, so it is not known whether your tap was "
    "entered. Reload the table and look before you tap again: a tap sent again is never "
    "entered twice",
)
ALREADY_ENTERED_MESSAGE = refusal(
    "table.already-entered",
    "That tap had already reached the table and was entered once; it was not entered again",
)
