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
from companion.rules.messages import marked
from companion.web.i18n import gettext, message_of, names_and, words

from . import FormError, FormPrompt
from .leaf import HELPERS as LEAF_HELPERS
from .leaf import LeafScreen, read_count, read_groups, read_tally

MAX_CANDIDATES = 4
# English words marked for the catalogs; the template words them (``_()``).
ARROW_WORDS = {"top-left": marked("↖ top-left"), "bottom-right": marked("↘ bottom-right")}
CROSSING_WORDS = {
    "none": marked("No line crossed"),
    "frost": marked("Crossed a Frost line"),
    "winter": marked("Crossed the Winter line"),
}
MOVE_WORDS = {
    "up": marked("Moved up 1 space"),
    "skip": marked("Your squirrel was there: moved on to the next space"),
    "top": marked("Already on the top space: stays, +1 acorn"),
}
RED_WORDS = {
    "baby": marked("Done: a baby mushroom placed"),
    "grow": marked("Done: a baby grown to an adult"),
    "acorn": marked("Nothing possible: +1 acorn instead"),
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
        raise FormError(
            gettext(
                "%(where)s: %(value)s is not an animal of Leaf.",
                where=where,
                value=repr(value[:20]),
            )
        )
    return value


def read_mat(form: Mapping[str, str]) -> tuple[nw.Slot, ...]:
    """The five mat spaces (``m1``..``m5`` and ``m1_acorn``...), None for an empty one."""
    mat: list[nw.Slot] = []
    for i in range(1, nw.MAT_SLOTS + 1):
        animal = _animal(str(form.get(f"m{i}", "")), gettext("Mat space %(n)s", n=i))
        mat.append(None if animal is None else (animal, bool(form.get(f"m{i}_acorn"))))
    return tuple(mat)


def read_tips(form: Mapping[str, str], prefix: str, what: str) -> dict[str, int]:
    tips = {
        colour: read_count(
            form,
            f"{prefix}{colour}",
            gettext(
                "%(what)s: %(colour)s tips", what=what, colour=words(leaf.COLOUR_WORDS[colour])
            ),
            high=leaf.MAX_TIPS,
        )
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
            _animal(str(form.get(f"a{i}", "")), gettext("Starting animal %(n)s", n=i))
            for i in range(1, need + 1)
        ]
        if any(a is None for a in animals):
            raise FormError(
                gettext("Choose all %(n)s of the North Wind's starting animals.", n=need)
            )
        return nw.SetupAnimals(tuple(a for a in animals if a is not None))
    if action == "end-turn":
        return nw.EndHumanTurn()
    if action == "human-season":
        crossed = _choice(form, "crossed", nw.CROSSINGS, gettext("Say whether a line was crossed."))
        return nw.HumanSeason(crossed)
    if action == "reaction":
        return nw.ReactionSun(
            read_count(form, "sun", gettext("the reaction sun"), high=15, default=None)
        )
    if action == "pile":
        return nw.PileEmptied(
            _choice(form, "leaf", leaf.LEAF_SHAPES, gettext("Choose which pile ran out."))
        )
    if action == "draw":
        return nw.Draw(
            leaf=_choice(
                form, "leaf", leaf.LEAF_SHAPES, gettext("Choose the leaf shape on the card.")
            ),
            colour=_choice(
                form, "colour", leaf.COLOURS, gettext("Choose the card's action colour.")
            ),
            arrow=_choice(form, "arrow", nw.ARROWS, gettext("Choose the card's arrow.")),
        )
    if action == "reshuffle":
        return nw.Reshuffle()
    if action == "place":
        return nw.Place(read_tips(form, "tips_", gettext("The placed leaf")))
    if action == "done":
        return nw.Done()
    if action == "red":
        outcome = _choice(form, "outcome", nw.RED_OUTCOMES, gettext("Say how the red action went."))
        return nw.Red(outcome)
    if action == "orange":
        drawn = _animal(str(form.get("drawn", "")), gettext("The animal drawn from the deck"))
        mat = read_mat(form)
        if drawn is None and _draws_from_the_deck(state, mat):
            raise FormPrompt(  # N8: the normal next step, not a mistake
                gettext(
                    "Nothing on the mat is wanted, so it takes the top card of the animal deck: "
                    "draw it and enter it below"
                )
            )
        return nw.Orange(
            mat=mat,
            drawn=None if drawn is None else (drawn, bool(form.get("drawn_acorn"))),
        )
    if action == "brown":
        move = _choice(form, "move", nw.BROWN_MOVES, gettext("Say where the squirrel went."))
        reward = {
            k: read_count(form, k, w, high=nw.MAX_REWARD)
            for k, w in (
                ("acorns", gettext("the space's acorns")),
                ("sun", gettext("the space's sun")),
                ("leaf_cards", gettext("the space's leaf cards")),
                ("animals", gettext("the space's animals")),
            )
        }
        return nw.Brown(move=move, fork=bool(form.get("fork")), **reward)
    if action == "season":
        return nw.Season(
            acorns=read_count(
                form,
                "acorns",
                gettext("the acorns on the new space"),
                high=nw.MAX_REWARD,
                default=None,
            ),
            crossed=_choice(
                form, "crossed", nw.CROSSINGS, gettext("Say whether a line was crossed.")
            ),
        )
    if action == "hibernate":
        animal = _animal(str(form.get("animal", "")), gettext("The animal to hibernate"))
        mat = read_mat(form) if "m1" in form else ()
        return nw.Hibernate(animal, mat)
    if action == "final":
        return nw.FinalScore(
            human=read_tally(form, "h_", your_count),
            north_wind_groups=tuple(
                read_groups(form, "nw_groups", gettext("The North Wind's mushroom groups"))
            ),
        )
    if action == "achieve":
        ids = [str(form.get(f"ach_{i}", "")) for i in range(len(nw.ACHIEVEMENT_GROUPS))]
        return nw.Achieve(tuple(x for x in ids if x))
    raise FormError(gettext("That button does nothing here. Reload the page."))


def your_count(field: str) -> str:
    """The label of a field of the solo player's own count: "Your foxes"."""
    return gettext("Your %(field)s", field=field)


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    difficulty = form.get("difficulty", "normal")
    if difficulty not in nw.DIFFICULTIES:
        raise FormError(gettext("Choose easy, normal or hard."))
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
            tips = read_tips(args, f"c{i}_", gettext("Placement %(n)s", n=i + 1))
            human = read_count(
                args,
                f"c{i}_human",
                gettext("Placement %(n)s: leaves with your mushrooms", n=i + 1),
                high=leaf.MAX_TIPS,
            )
            if tips or human:
                candidates.append({"tips": tips, "human_mushroom_leaves": human, "n": i + 1})
        if len(candidates) < 2:
            raise FormError(gettext("Fill in at least two placements to compare."))
        best = nw.choose_placement(card_colour, candidates)
    except (FormError, RuleError) as exc:
        error = words(message_of(exc))
        return {"candidates": candidates, "best": [], "best_n": [], "error": error}
    best_n = [candidates[i]["n"] for i in best]
    return {"candidates": candidates, "best": best, "best_n": best_n, "error": None}


def red_instruction(state: nw.State) -> tuple[str, str]:
    """What the awaited red action asks of the player (N6, N7): the step, and
    what to do when it cannot be done (said after the buttons, so they stay
    on the first screen in longer languages)."""
    if not state.hibernated:
        if nw.red_is_first(state):
            return gettext("Put a North Wind baby mushroom on the leaf it just placed."), ""
        return (
            gettext(
                "Put a North Wind baby mushroom on the touching leaf with the most open tips "
                "and no North Wind mushroom yet."
            ),
            gettext(
                "If every touching leaf already has one, grow one North Wind baby to an adult "
                "instead."
            ),
        )
    if state.babies:
        return (
            gettext("Grow one North Wind baby mushroom to an adult."),
            gettext("Choose one that makes a group of 3 connected adults if you can."),
        )
    return (
        gettext(
            "Put a North Wind baby mushroom on a leaf next to its largest mushroom group "
            "that has fewer than 3."
        ),
        gettext("If there is no such leaf, it takes 1 acorn instead."),
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


def player_name(name: str) -> str:
    """A player's name as shown: the North Wind's in this phone's language."""
    return gettext("North Wind") if name == nw.NORTH_WIND else name


HELPERS: dict[str, Any] = {
    **LEAF_HELPERS,
    "leaf_names": leaf.LEAF_WORDS,
    "animal_names": leaf.ANIMAL_WORDS,
    "colour_names": leaf.COLOUR_WORDS,
    "path_names": nw.PATH_WORDS,
    "difficulty_names": nw.DIFFICULTY_WORDS,
    "group_names": nw.GROUP_WORDS,
    "shapes": leaf.LEAF_SHAPES,
    "colours": leaf.COLOURS,
    "action_names": leaf.ACTION_WORDS,
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
    "plural": leaf.animal_count,
    "player_name": player_name,
    "max_candidates": MAX_CANDIDATES,
}


def summary(state: nw.State) -> str:
    if state.result is not None:
        return gettext(
            "%(names)s won · %(human)s to %(wind)s",
            names=names_and([player_name(p) for p in state.result.winners]),
            human=state.result.breakdowns[state.human].total,
            wind=state.result.breakdowns[nw.NORTH_WIND].total,
        )
    return gettext(
        "%(difficulty)s · North Wind turn %(turn)s · %(acorns)s acorns, %(sun)s sun",
        difficulty=words(nw.DIFFICULTY_WORDS.get(state.difficulty, state.difficulty)).capitalize(),
        turn=state.turn,
        acorns=state.acorns,
        sun=state.sun,
    )


def _named(names: Mapping[str, Any], key: object) -> str:
    """A shape, colour or animal key in words (a key not known stays as it is)."""
    return words(names.get(str(key), str(key)))


def _tips(action: Mapping[str, Any]) -> str:
    tips = action.get("tips") or {}
    return ", ".join(
        gettext("%(n)s %(colour)s", n=n, colour=_named(leaf.COLOUR_WORDS, c))
        for c, n in tips.items()
    )


def describe(action: Mapping[str, Any]) -> str:
    kind = action.get("type")

    def shape(a: Mapping[str, Any]) -> str:
        return _named(leaf.LEAF_WORDS, a.get("leaf"))

    said: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "SetupAnimals": lambda a: gettext(
            "North Wind starts with %(animals)s",
            animals=", ".join(_named(leaf.ANIMAL_WORDS, x) for x in a.get("animals", [])),
        ),
        "ReactionSun": lambda a: gettext("North Wind gains %(n)s reaction sun", n=a.get("sun")),
        "PileEmptied": lambda a: gettext("The %(leaf)s pile ran out", leaf=shape(a)),
        "HumanSeason": lambda a: gettext(
            "You advanced the season (%(crossed)s)", crossed=_crossed(a)
        ),
        "EndHumanTurn": lambda a: gettext("Your turn ended"),
        "Draw": lambda a: gettext(
            "Drew %(leaf)s, %(colour)s, %(arrow)s",
            leaf=shape(a),
            colour=_named(leaf.COLOUR_WORDS, a.get("colour")),
            arrow=_named(nw.ARROW_WORDS, a.get("arrow")),
        ),
        "Reshuffle": lambda a: gettext("Drew the Reshuffle card"),
        "Place": lambda a: gettext("Leaf placed: %(tips)s", tips=_tips(a)),
        "Done": lambda a: gettext("Action done"),
        "Red": lambda a: gettext(
            "Red action: %(outcome)s", outcome=gettext(RED_WORDS.get(str(a.get("outcome")), "?"))
        ),
        "Orange": lambda a: (
            gettext("Orange action (drew from the deck)")
            if a.get("drawn")
            else gettext("Orange action")
        ),
        "Brown": lambda a: gettext(
            "Brown action: %(move)s", move=gettext(MOVE_WORDS.get(str(a.get("move")), "?"))
        ),
        "Season": lambda a: gettext(
            "North Wind advanced the season (+%(acorns)s, %(crossed)s)",
            acorns=a.get("acorns"),
            crossed=_crossed(a),
        ),
        "Hibernate": lambda a: (
            gettext(
                "Frost: hibernate the %(animals)s",
                animals=_named(leaf.ANIMAL_PLURAL_WORDS, a["animal"]),
            )
            if a.get("animal")
            else gettext("Frost: nothing to hibernate")
        ),
        "FinalScore": lambda a: gettext("Final count entered"),
        "Achieve": lambda a: gettext(
            "Achievements: %(names)s",
            names="; ".join(
                words(nw.ACHIEVEMENT_BY_ID[x].text) if x in nw.ACHIEVEMENT_BY_ID else str(x)
                for x in a.get("ids", [])
            ),
        ),
    }
    say = said.get(str(kind))
    return say(action) if say else str(kind)


def _crossed(action: Mapping[str, Any]) -> str:
    return gettext(CROSSING_WORDS.get(str(action.get("crossed")), "?"))


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
