"""Actions as plain data, so a table's event log can store them as JSON.

Each game module defines its actions as frozen dataclasses and keeps a map of
them by name. ``to_dict`` and ``from_dict`` turn an action into a JSON-ready
dict and back; lists become tuples again so actions stay hashable and equal
to the originals (``from_dict(to_dict(a)) == a``).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Hit:
...     player: str
...     card: int
>>> to_dict(Hit("Ana", 7))
{'type': 'Hit', 'player': 'Ana', 'card': 7}
>>> from_dict({'type': 'Hit', 'player': 'Ana', 'card': 7}, {'Hit': Hit})
Hit(player='Ana', card=7)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .errors import RuleError
from .messages import refusal


def to_dict(action: Any) -> dict[str, Any]:
    """A JSON-ready dict of a dataclass action, with its class name as ``type``."""
    if not dataclasses.is_dataclass(action) or isinstance(action, type):
        raise TypeError(f"{action!r} is not an action")
    data: dict[str, Any] = {"type": type(action).__name__}
    for field in dataclasses.fields(action):
        data[field.name] = _jsonable(getattr(action, field.name))
    return data


def from_dict(data: Mapping[str, Any], types: Mapping[str, type[Any]]) -> Any:
    """Rebuild an action from :func:`to_dict` output.

    Raises :class:`RuleError` when the type is unknown or the fields do not
    match that action (missing, extra or of the wrong kind).
    """
    if not isinstance(data, Mapping):
        raise RuleError(
            refusal(
                "action.not_object", "an action must be an object, not %(what)s", what=_shown(data)
            )
        )
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in types:
        known = ", ".join(sorted(types))
        raise RuleError(
            refusal(
                "action.unknown",
                "unknown action %(kind)s; expected one of: %(known)s",
                kind=_shown(kind),
                known=known,
            )
        )
    cls = types[kind]
    names = {f.name for f in dataclasses.fields(cls)}
    given = {k: v for k, v in data.items() if k != "type"}
    if set(given) != names:
        raise RuleError(
            refusal(
                "action.fields",
                "action %(kind)s needs the fields %(wanted)s, got %(given)s",
                kind=kind,
                wanted=str(sorted(names)),
                given=str(sorted(given)),
            )
        )
    try:
        return cls(**{k: _frozen(v) for k, v in given.items()})
    except (TypeError, ValueError) as exc:
        # A referee's own refusal (a square off the board) keeps its words,
        # so it is worded in the reader's language; Python's stay as they are.
        why = exc.message if isinstance(exc, RuleError) else str(exc)
        raise RuleError(
            refusal("action.bad", "bad %(kind)s action: %(why)s", kind=kind, why=why)
        ) from exc


def _shown(value: Any) -> str:
    """A value as Python writes it, cut short (it came from anybody's JSON)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value
