"""The Leaf score sheet: each player's end-of-game count → acorns and a winner.

The form readers here (``read_count``, ``read_groups``, ``read_tally``) are
shared with the North Wind screen, which scores the human the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.rules import leaf

from . import FormError, Screen

MAX_TOKENS = 200  # acorn tokens or sun anyone could hold; more is a typo


def read_count(
    form: Mapping[str, str], name: str, label: str, *, high: int, default: int | None = 0
) -> int:
    """A whole number from ``form[name]`` in 0..high (blank = ``default``)."""
    text = str(form.get(name, "")).strip()
    if not text:
        if default is None:
            raise FormError(f"Enter {label}.")
        return default
    if not text.isdecimal() or not text.isascii() or len(text) > 4:
        raise FormError(f"{label[:1].upper()}{label[1:]}: {text[:12]!r} is not a whole number.")
    value = int(text)
    if value > high:
        raise FormError(f"{label[:1].upper()}{label[1:]} cannot be {value}: at most {high}.")
    return value


def read_groups(form: Mapping[str, str], name: str, whose: str) -> list[int]:
    """Mushroom group sizes typed as ``"3 2 1"`` or ``"3, 2, 1"`` (blank = none)."""
    text = str(form.get(name, "")).replace(",", " ").replace("+", " ").strip()
    sizes: list[int] = []
    for word in text.split():
        if not word.isdecimal() or not word.isascii() or len(word) > 2 or int(word) == 0:
            raise FormError(
                f"{whose} mushroom groups: {word[:12]!r} is not a group size; type sizes like 3 2 1"
            )
        sizes.append(int(word))
    if len(sizes) > leaf.MUSHROOMS_PER_PLAYER:
        raise FormError(f"{whose} mushroom groups: too many groups.")
    return sizes


def read_tally(form: Mapping[str, str], prefix: str, whose: str) -> dict[str, Any]:
    """One player's tally fields (``prefix`` + field name) as a tally dict."""
    den = {}
    for animal in leaf.ANIMALS:
        n = read_count(
            form,
            f"{prefix}den_{animal}",
            f"{whose} {leaf.ANIMAL_PLURALS[animal]}",
            high=leaf.COPIES_PER_ANIMAL,
        )
        if n:
            den[animal] = n
    return {
        "den": den,
        "mushroom_groups": read_groups(form, f"{prefix}groups", whose),
        # Past the tree's top the referee says why (LX3); the form only stops junk.
        "tree": read_count(form, f"{prefix}tree", f"{whose} squirrel height", high=999),
        "sun": read_count(form, f"{prefix}sun", f"{whose} sun tokens", high=MAX_TOKENS),
        "leaf_cards": read_count(
            form, f"{prefix}leaf_cards", f"{whose} leaf cards", high=leaf.LEAF_CARD_COUNT
        ),
        "acorn_tokens": read_count(
            form, f"{prefix}acorns", f"{whose} acorn tokens", high=MAX_TOKENS
        ),
        "minus_three": read_count(form, f"{prefix}minus_three", f'{whose} "-3" tokens', high=20),
        "forest": read_count(
            form,
            f"{prefix}forest",
            f"{whose} Forest animals",
            high=leaf.COPIES_PER_ANIMAL * len(leaf.ANIMALS),
        ),
    }


def parse_action(form: Mapping[str, str], state: leaf.State, me: str | None) -> leaf.EnterTally:
    if form.get("action") != "tally":
        raise FormError("That button does nothing on a Leaf score sheet. Reload the page.")
    player = form.get("player", "")
    if player not in state.players:
        raise FormError(f"There is no player called {player[:40]!r} at this table.")
    tally = read_tally(form, "", f"{player}'s")
    tally.pop("forest")
    return leaf.EnterTally(player, tally)


def summary(state: leaf.State) -> str:
    if state.result is not None:
        return " and ".join(state.result.winners) + " won"
    if not state.tallies:
        return "Waiting for the counts"
    return "Still to count: " + ", ".join(state.missing)


def describe(action: Mapping[str, Any]) -> str:
    if action.get("type") == "EnterTally":
        return f"{action.get('player')} entered their count"
    return str(action.get("type", "?"))


def tally_values(tally: leaf.Tally | None) -> dict[str, Any]:
    """Form field values (without prefix) that show an entered tally again."""
    if tally is None:
        return {}
    values: dict[str, Any] = {f"den_{a}": n for a, n in tally.den.items() if n}
    values.update(
        groups=" ".join(map(str, tally.mushroom_groups)),
        tree=tally.tree,
        sun=tally.sun,
        leaf_cards=tally.leaf_cards,
        acorns=tally.acorn_tokens,
        minus_three=tally.minus_three,
        forest=tally.forest,
    )
    return values


def posted_values(form: Mapping[str, str], prefix: str = "") -> dict[str, str]:
    """The posted fields that start with ``prefix``, without it (to show a form again)."""
    return {k[len(prefix) :]: v for k, v in form.items() if k.startswith(prefix)}


HELPERS: dict[str, Any] = {
    "animals": leaf.ANIMALS,
    "plurals": leaf.ANIMAL_PLURALS,
    "tally_values": tally_values,
    "posted_values": posted_values,
}


@dataclass(frozen=True)
class LeafScreen(Screen):
    """A screen with a few helpers its templates call (``screen.helpers``)."""

    helpers: Mapping[str, Any] = field(default_factory=dict)


SCREEN = LeafScreen(
    helpers=HELPERS,
    game="leaf",
    board_template="leaf/_board.html",
    parse_action=parse_action,
    summary=summary,
    describe=describe,
)
