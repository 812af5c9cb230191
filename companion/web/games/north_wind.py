"""The North Wind solo screen: one North Wind turn at a time.

The player enters what the app cannot see (the drawn card, the placement's
tips, the animal mat, what a space gave) and the board says exactly what the
North Wind does. ``screen.helpers`` carries the few functions the template
calls (the N3 comparison, the wording of a red action, the achievements).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.rules import leaf
from companion.rules import north_wind as nw
from companion.rules.errors import RuleError

from . import FormError, FormPrompt
from .leaf import HELPERS as LEAF_HELPERS
from .leaf import LeafScreen, read_count, read_groups, read_tally

MAX_CANDIDATES = 4
ARROW_WORDS = {"top-left": "↖ top-left", "bottom-right": "↘ bottom-right"}
CROSSING_WORDS = {
    "none": "No line crossed",
    "frost": "Crossed a Frost line",
    "winter": "Crossed the Winter line",
}
MOVE_WORDS = {
    "up": "Moved up 1 space",
    "skip": "Your squirrel was there: moved on to the next space",
    "top": "Already on the top space: stays, +1 acorn",
}
RED_WORDS = {
    "baby": "Done: a baby mushroom placed",
    "grow": "Done: a baby grown to an adult",
    "acorn": "Nothing possible: +1 acorn instead",
}


# --- reading forms --------------------------------------------------------------------


def _choice(form: Mapping[str, str], name: str, allowed: tuple[str, ...], missing: str) -> str:
    value = str(form.get(name, ""))
    if value not in allowed:
        raise FormError(missing)
    return value


def _animal(value: str, where: str) -> str | None:
    value = value.strip()
    if not value:
        return None
    if value not in leaf.ANIMALS:
        raise FormError(f"{where}: {value[:20]!r} is not an animal of Leaf.")
    return value


def read_mat(form: Mapping[str, str]) -> tuple[nw.Slot, ...]:
    """The five mat spaces (``m1``..``m5`` and ``m1_acorn``...), None for an empty one."""
    mat: list[nw.Slot] = []
    for i in range(1, nw.MAT_SLOTS + 1):
        animal = _animal(str(form.get(f"m{i}", "")), f"Mat space {i}")
        mat.append(None if animal is None else (animal, bool(form.get(f"m{i}_acorn"))))
    return tuple(mat)


def read_tips(form: Mapping[str, str], prefix: str, what: str) -> dict[str, int]:
    tips = {
        colour: read_count(form, f"{prefix}{colour}", f"{what}: {colour} tips", high=leaf.MAX_TIPS)
        for colour in leaf.COLOURS
    }
    return {c: n for c, n in tips.items() if n}


def _draws_from_the_deck(state: nw.State, mat: tuple[nw.Slot, ...]) -> bool:
    """Whether the North Wind's orange action takes no animal of this mat (N8)."""
    if state.card is None or state.current != "orange":
        return False
    filled = [(str(slot[0]), bool(slot[1])) for slot in mat if slot is not None]
    try:
        return nw.choose_animal(filled, state.forest_counts, state.card.arrow) is None
    except RuleError:
        return False  # the referee refuses the mat itself, with its own words


def parse_action(form: Mapping[str, str], state: nw.State, me: str | None) -> Any:
    """The :mod:`companion.rules.north_wind` action a posted form means."""
    action = form.get("action", "")
    if action == "setup":
        need = nw.STARTING[state.difficulty][1]
        animals = [
            _animal(str(form.get(f"a{i}", "")), f"Starting animal {i}") for i in range(1, need + 1)
        ]
        if any(a is None for a in animals):
            raise FormError(f"Choose all {need} of the North Wind's starting animals.")
        return nw.SetupAnimals(tuple(a for a in animals if a is not None))
    if action == "end-turn":
        return nw.EndHumanTurn()
    if action == "human-season":
        crossed = _choice(form, "crossed", nw.CROSSINGS, "Say whether a line was crossed.")
        return nw.HumanSeason(crossed)
    if action == "reaction":
        return nw.ReactionSun(read_count(form, "sun", "the reaction sun", high=15, default=None))
    if action == "pile":
        return nw.PileEmptied(_choice(form, "leaf", leaf.LEAF_SHAPES, "Choose which pile ran out."))
    if action == "draw":
        return nw.Draw(
            leaf=_choice(form, "leaf", leaf.LEAF_SHAPES, "Choose the leaf shape on the card."),
            colour=_choice(form, "colour", leaf.COLOURS, "Choose the card's action colour."),
            arrow=_choice(form, "arrow", nw.ARROWS, "Choose the card's arrow."),
        )
    if action == "reshuffle":
        return nw.Reshuffle()
    if action == "place":
        return nw.Place(read_tips(form, "tips_", "The placed leaf"))
    if action == "done":
        return nw.Done()
    if action == "red":
        outcome = _choice(form, "outcome", nw.RED_OUTCOMES, "Say how the red action went.")
        return nw.Red(outcome)
    if action == "orange":
        drawn = _animal(str(form.get("drawn", "")), "The animal drawn from the deck")
        mat = read_mat(form)
        if drawn is None and _draws_from_the_deck(state, mat):
            raise FormPrompt(  # N8: the normal next step, not a mistake
                "Nothing on the mat is wanted, so it takes the top card of the animal deck: "
                "draw it and enter it below"
            )
        return nw.Orange(
            mat=mat,
            drawn=None if drawn is None else (drawn, bool(form.get("drawn_acorn"))),
        )
    if action == "brown":
        move = _choice(form, "move", nw.BROWN_MOVES, "Say where the squirrel went.")
        reward = {
            k: read_count(form, k, f"the space's {w}", high=nw.MAX_REWARD)
            for k, w in (
                ("acorns", "acorns"),
                ("sun", "sun"),
                ("leaf_cards", "leaf cards"),
                ("animals", "animals"),
            )
        }
        return nw.Brown(move=move, fork=bool(form.get("fork")), **reward)
    if action == "season":
        return nw.Season(
            acorns=read_count(
                form, "acorns", "the acorns on the new space", high=nw.MAX_REWARD, default=None
            ),
            crossed=_choice(form, "crossed", nw.CROSSINGS, "Say whether a line was crossed."),
        )
    if action == "hibernate":
        animal = _animal(str(form.get("animal", "")), "The animal to hibernate")
        mat = read_mat(form) if "m1" in form else ()
        return nw.Hibernate(animal, mat)
    if action == "final":
        return nw.FinalScore(
            human=read_tally(form, "h_", "Your"),
            north_wind_groups=tuple(read_groups(form, "nw_groups", "The North Wind's")),
        )
    if action == "achieve":
        ids = [str(form.get(f"ach_{i}", "")) for i in range(len(nw.ACHIEVEMENT_GROUPS))]
        return nw.Achieve(tuple(x for x in ids if x))
    raise FormError("That button does nothing here. Reload the page.")


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    difficulty = form.get("difficulty", "normal")
    if difficulty not in nw.DIFFICULTIES:
        raise FormError("Choose easy, normal or hard.")
    return {"difficulty": difficulty}


# --- helpers for the template ---------------------------------------------------------


def compare(args: Mapping[str, str], card_colour: str) -> dict[str, Any] | None:
    """Read 2-4 candidate placements from the compare form (N3) and judge them.

    Returns None when the form was not sent, else ``{"candidates": [...],
    "best": [indices], "best_n": [spot numbers], "error": message or None}``.
    """
    if args.get("compare") != "1":
        return None
    candidates: list[dict[str, Any]] = []
    try:
        for i in range(MAX_CANDIDATES):
            tips = read_tips(args, f"c{i}_", f"Placement {i + 1}")
            human = read_count(
                args,
                f"c{i}_human",
                f"Placement {i + 1}: leaves with your mushrooms",
                high=leaf.MAX_TIPS,
            )
            if tips or human:
                candidates.append({"tips": tips, "human_mushroom_leaves": human, "n": i + 1})
        if len(candidates) < 2:
            raise FormError("Fill in at least two placements to compare.")
        best = nw.choose_placement(card_colour, candidates)
    except (FormError, RuleError) as exc:
        return {"candidates": candidates, "best": [], "best_n": [], "error": str(exc)}
    best_n = [candidates[i]["n"] for i in best]
    return {"candidates": candidates, "best": best, "best_n": best_n, "error": None}


def red_instruction(state: nw.State) -> str:
    """What the awaited red action asks of the player, in words (N6, N7)."""
    if not state.hibernated:
        if nw.red_is_first(state):
            return "Put a North Wind baby mushroom on the leaf it just placed."
        return (
            "Put a North Wind baby mushroom on the leaf touching the new one that has the "
            "most open tips and no North Wind mushroom yet. If every touching leaf already "
            "has one, grow one North Wind baby to an adult instead."
        )
    if state.babies:
        return (
            "Grow one North Wind baby mushroom to an adult: choose one that makes a group "
            "of 3 connected adults if you can."
        )
    return (
        "Put a North Wind baby mushroom on a leaf next to its largest mushroom group that "
        "has fewer than 3. If there is no such leaf, it takes 1 acorn instead."
    )


def mat_values(state: nw.State, form: Mapping[str, str] | None) -> list[tuple[str, bool]]:
    """The mat to show in the form: what was posted (after an error) or what we know."""
    if form is not None and "m1" in form:
        return [
            (str(form.get(f"m{i}", "")), bool(form.get(f"m{i}_acorn")))
            for i in range(1, nw.MAT_SLOTS + 1)
        ]
    return [(s[0], s[1]) if s else ("", False) for s in state.mat]


def frost_info(state: nw.State) -> dict[str, Any]:
    """The Forest's largest groups and whether the mat is needed to break a tie (N12)."""
    counts = state.forest_counts
    if not counts:
        return {"largest": [], "size": 0, "tied": False, "choices": []}
    size = max(counts.values())
    largest = [a for a in leaf.ANIMALS if counts.get(a) == size]
    known = [s for s in state.mat if s is not None]
    return {
        "largest": largest,
        "size": size,
        "tied": len(largest) > 1,
        "choices": nw.frost_choices(counts, known),
    }


def achievements_by_group() -> list[tuple[str, list[nw.Achievement]]]:
    return [(g, [a for a in nw.ACHIEVEMENTS if a.group == g]) for g in nw.ACHIEVEMENT_GROUPS]


def achievement_state(state: nw.State) -> dict[str, bool | None]:
    return {a.id: nw.achievement_check(state, a.id) for a in nw.ACHIEVEMENTS}


HELPERS: dict[str, Any] = {
    **LEAF_HELPERS,
    "leaf_names": leaf.LEAF_NAMES,
    "shapes": leaf.LEAF_SHAPES,
    "colours": leaf.COLOURS,
    "action_names": leaf.ACTION_NAMES,
    "arrows": ARROW_WORDS,
    "crossings": CROSSING_WORDS,
    "moves": MOVE_WORDS,
    "red_words": RED_WORDS,
    "fork_path": nw.FORK_PATH,
    "starting": nw.STARTING,
    "north_wind": nw.NORTH_WIND,
    "compare": compare,
    "red_instruction": red_instruction,
    "red_options": nw.red_options,
    "mat_values": mat_values,
    "frost_info": frost_info,
    "achievement_groups": achievements_by_group,
    "achievement_state": achievement_state,
    "plural": leaf.plural,
    "max_candidates": MAX_CANDIDATES,
}


def summary(state: nw.State) -> str:
    if state.result is not None:
        who = " and ".join(state.result.winners)
        return (
            f"{who} won · {state.result.breakdowns[state.human].total} to "
            f"{state.result.breakdowns[nw.NORTH_WIND].total}"
        )
    return (
        f"{state.difficulty.capitalize()} · North Wind turn {state.turn} · "
        f"{state.acorns} acorns, {state.sun} sun"
    )


def describe(action: Mapping[str, Any]) -> str:
    kind = action.get("type")
    words: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "SetupAnimals": lambda a: "North Wind starts with " + ", ".join(a.get("animals", [])),
        "ReactionSun": lambda a: f"North Wind gains {a.get('sun')} reaction sun",
        "PileEmptied": lambda a: f"The {leaf.LEAF_NAMES.get(str(a.get('leaf')), '?')} pile ran out",
        "HumanSeason": lambda a: f"You advanced the season ({a.get('crossed')})",
        "EndHumanTurn": lambda a: "Your turn ended",
        "Draw": lambda a: (
            f"Drew {leaf.LEAF_NAMES.get(str(a.get('leaf')), '?')}, "
            f"{a.get('colour')}, {a.get('arrow')}"
        ),
        "Reshuffle": lambda a: "Drew the Reshuffle card",
        "Place": lambda a: (
            "Leaf placed: " + ", ".join(f"{n} {c}" for c, n in (a.get("tips") or {}).items())
        ),
        "Done": lambda a: "Action done",
        "Red": lambda a: f"Red action: {a.get('outcome')}",
        "Orange": lambda a: "Orange action" + (" (drew from the deck)" if a.get("drawn") else ""),
        "Brown": lambda a: f"Brown action: {a.get('move')}",
        "Season": lambda a: (
            f"North Wind advanced the season (+{a.get('acorns')}, {a.get('crossed')})"
        ),
        "Hibernate": lambda a: f"Frost: hibernate {a.get('animal') or 'nothing'}",
        "FinalScore": lambda a: "Final count entered",
        "Achieve": lambda a: "Achievements: " + ", ".join(map(str, a.get("ids", []))),
    }
    say = words.get(str(kind))
    return say(action) if say else str(kind)


SCREEN = LeafScreen(
    helpers=HELPERS,
    game="north_wind",
    board_template="north_wind/_board.html",
    parse_action=parse_action,
    options_template="north_wind/_options.html",
    parse_options=parse_options,
    summary=summary,
    describe=describe,
    lists_latest=lambda view: bool(view.notes),
)
