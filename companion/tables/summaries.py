"""The end of a game in numbers and words: who won, by how much, how it went.

Pure: no Flask, no SQL. :func:`summarise` takes a table's game, setup and
effective actions (its log after undo and redo) and returns a
:class:`Summary` once the game is over, else None. The running totals come
from replaying the actions with the game's own ``apply``, so a chart's last
points are the final totals by construction.

What "over" means, game by game (our rulings, also in docs/records.md):

* Pairs: someone reached the losing score. Nobody wins (P2): the loser is
  the only result, the others are ranked by their points (low is good).
* Score pad: a host tapped *Finish the game* (a ``Finish`` action).
* Solitaire: won, or no legal move is left (a loss).
* The others: their rules say when (Venture's last round, Autumn Leaves'
  sixth hand, the Leaf sheet's last tally, the North Wind's final score,
  Autumn Ash's first total of 21).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.rules import autumn_ash, autumn_leaves, leaf, north_wind, pairs, scorepad, solitaire
from companion.rules import venture as venture_rules

from .games import load

WON = "won"
LOST = "lost"
SHARED = "shared"  # a shared win
PLAYED = "played"  # neither won nor lost (Pairs: everyone but the loser)


@dataclass(frozen=True)
class Standing:
    """One player's line in the final table, best first."""

    player: str
    score: int | None
    place: int  # 1 = best; equal scores share a place
    outcome: str  # WON, SHARED, LOST or PLAYED


@dataclass(frozen=True)
class Series:
    """One line of the chart: a player's running total after each step."""

    player: str
    points: tuple[int, ...]


@dataclass(frozen=True)
class Summary:
    game: str
    headline: str  # "Ana wins by 4 points."
    winners: tuple[str, ...]
    losers: tuple[str, ...]
    margin: int | None  # between the winner (or loser) and the next player
    low_wins: bool
    unit: str  # "points", "acorns", "cards"
    standings: tuple[Standing, ...]
    x_title: str  # what a step of the chart is: "Round", "Hand", "Bag" ...
    x_labels: tuple[str, ...]
    series: tuple[Series, ...]
    facts: tuple[str, ...] = ()
    variant: str = ""  # "continuous" for Continuous Pairs, the difficulty for the North Wind
    achievements: tuple[str, ...] = field(default=())  # North Wind ticks (N14)


def summarise(
    game: str,
    players: Sequence[str],
    options: Mapping[str, Any],
    seed: int,
    actions: Sequence[Mapping[str, Any]],
    state: Any = None,
) -> Summary | None:
    """The summary of a finished table, or None while it is being played.

    ``state`` is the state after ``actions`` when the caller has it (it saves
    a replay when the game is not over).
    """
    over = _IS_OVER.get(game)
    if over is None:
        return None
    kind = load()[game]
    if state is None:
        state = kind.new_state(tuple(players), options, seed)
        for action in actions:
            state = kind.apply(state, action)
    if not over(state):
        return None
    states = [kind.new_state(tuple(players), options, seed)]
    for action in actions:
        states.append(kind.apply(states[-1], action))
    return _SUMMARISE[game](states, list(actions))


# --- shared helpers ------------------------------------------------------------------


def _ranked(
    scores: Mapping[str, int], *, low_wins: bool, winners: Sequence[str], losers: Sequence[str]
) -> tuple[Standing, ...]:
    # Equal scores: a tie-break's winner is listed first, a loser last.
    order = sorted(
        scores,
        key=lambda p: (scores[p] if low_wins else -scores[p], p not in winners, p in losers),
    )
    standings = []
    for player in order:
        place = 1 + sum(
            1
            for q in scores
            if (scores[q] < scores[player] if low_wins else scores[q] > scores[player])
        )
        if player in winners:
            outcome = SHARED if len(winners) > 1 else WON
        elif player in losers or winners:  # where someone wins, everyone else lost
            outcome = LOST
        else:
            outcome = PLAYED
        standings.append(Standing(player, scores[player], place, outcome))
    return tuple(standings)


def _plural(n: int, unit: str) -> str:
    if abs(n) == 1 and unit.endswith("s"):
        return f"{n} {unit[:-1]}"
    return f"{n} {unit}"


def _names(names: Sequence[str]) -> str:
    items = list(names)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _win_headline(
    scores: Mapping[str, int], winners: Sequence[str], *, low_wins: bool, unit: str
) -> tuple[str, int | None]:
    """'Ana wins by 4 points.' and the margin (None when nobody else scored)."""
    best = scores[winners[0]]
    others = [s for p, s in scores.items() if p not in winners]
    if len(winners) > 1:
        return f"{_names(winners)} share the win with {_plural(best, unit)}.", 0
    if not others:
        return f"{winners[0]} wins with {_plural(best, unit)}.", None
    runner_up = min(others) if low_wins else max(others)
    margin = abs(best - runner_up)
    if margin == 0:  # won on a tie-break (Leaf's leaf cards and sun)
        return f"{winners[0]} wins on the tie-break, level at {_plural(best, unit)}.", 0
    return f"{winners[0]} wins by {_plural(margin, unit)}, with {best}.", margin


def _running(
    states: Sequence[Any], step: Callable[[Any], Any], totals: Callable[[Any], dict[str, int]]
) -> list[dict[str, int]]:
    """Totals after each completed step: a point every time ``step(state)`` changes."""
    points = [totals(states[0])]
    mark = step(states[0])
    for state in states[1:]:
        now = step(state)
        if now != mark:
            mark = now
            points.append(totals(state))
    if points[-1] != totals(states[-1]):
        points.append(totals(states[-1]))
    return points


def _series(players: Sequence[str], points: Sequence[Mapping[str, int]]) -> tuple[Series, ...]:
    return tuple(Series(p, tuple(point[p] for point in points)) for p in players)


def _labels(count: int) -> tuple[str, ...]:
    """Step labels: 'Start', then 1, 2, 3 ..."""
    return ("Start", *(str(i) for i in range(1, count)))


# --- Pairs ---------------------------------------------------------------------------


def _pairs(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: pairs.State = states[-1]
    totals = final.totals()
    loser = final.loser or ""
    # A point each time somebody scores: once a round in Pairs, once a turn
    # that scores in Continuous Pairs.
    points = _running(states, lambda s: tuple(len(c) for c in s.scoring), lambda s: s.totals())
    others = sorted(t for p, t in totals.items() if p != loser)
    margin = totals[loser] - others[-1] if others else None
    headline = (
        f"{loser} reached {totals[loser]} of {final.target} points and loses the game. "
        f"Nobody wins. The others finish on {_names([str(t) for t in others])}."
    )
    facts = []
    pairs_made = [s.last for s in states[1:] if s.last is not None and s.last.kind == "pair"]
    if pairs_made:
        biggest = max(pairs_made, key=lambda e: e.rank or 0)
        facts.append(f"Biggest pair: {biggest.player}'s {biggest.rank}s.")
    folds = [s.last for s in states[1:] if s.last is not None and s.last.kind == "fold"]
    if folds:
        by_player = {p: sum(1 for e in folds if e.player == p) for p in final.players}
        most = max(by_player.values())
        folders = [p for p, n in by_player.items() if n == most]
        facts.append(f"Most folds: {_names(folders)} ({most}).")
    cards = {p: len(final.scoring_cards(p)) for p in final.players}
    most_cards = max(cards.values())
    facts.append(
        f"Most scoring cards: {_names([p for p, n in cards.items() if n == most_cards])}"
        f" ({most_cards})."
    )
    if final.last is not None:
        facts.append(f"The hand that decided it: {final.last.describe()}.")
    return Summary(
        game="pairs",
        headline=headline,
        winners=(),
        losers=(loser,),
        margin=margin,
        low_wins=True,
        unit="points",
        standings=_ranked(totals, low_wins=True, winners=(), losers=(loser,)),
        x_title="Scoring turn" if final.continuous else "Round",
        x_labels=_labels(len(points)),
        series=_series(final.players, points),
        facts=tuple(facts),
        variant="continuous" if final.continuous else "",
    )


# --- Venture -------------------------------------------------------------------------


def _venture(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: venture_rules.State = states[-1]
    outcome = final.outcome
    assert outcome is not None
    scores = outcome.scores
    points = _running(states, lambda s: s.rounds_played, lambda s: s.scores())
    headline, margin = _win_headline(scores, outcome.winners, low_wins=False, unit="points")
    facts = []
    piles = final.captured_piles()
    most = max(len(c) for c in piles.values())
    facts.append(
        f"Most cards captured: {_names([p for p, c in piles.items() if len(c) == most])} ({most})."
    )
    steps = [(r.number, st) for r in final.rounds for st in r.resolution.steps if st.captured]
    if steps:
        number, best = max(steps, key=lambda item: (len(item[1].captured), sum(item[1].captured)))
        facts.append(f"Biggest capture: round {number}, {best.describe()}.")
    if outcome.full_sets:
        sets = [
            f"{p} ({', '.join(str(r) for r in ranks)})"
            for p, ranks in outcome.full_sets.items()
            if ranks
        ]
        if sets:
            facts.append(f"Full sets: {'; '.join(sets)}.")
    decided = _deciding_step(points, outcome.winners, low_wins=False)
    if decided:
        facts.append(f"The lead for good came in round {decided}.")
    return Summary(
        game="venture",
        headline=headline,
        winners=tuple(outcome.winners),
        losers=(),
        margin=margin,
        low_wins=False,
        unit="points",
        standings=_ranked(scores, low_wins=False, winners=outcome.winners, losers=()),
        x_title="Round",
        x_labels=_labels(len(points)),
        series=_series(final.players, points),
        facts=tuple(facts),
        variant="drafting" if final.drafting else "",
    )


def _deciding_step(
    points: Sequence[Mapping[str, int]], winners: Sequence[str], *, low_wins: bool
) -> int | None:
    """The step after which the winner led (or shared the lead) to the end."""
    if len(winners) != 1 or len(points) < 2:
        return None
    winner = winners[0]
    decided = None
    for i in range(len(points) - 1, 0, -1):
        point = points[i]
        best = min(point.values()) if low_wins else max(point.values())
        ahead = point[winner] == best and sum(1 for v in point.values() if v == best) == 1
        if not ahead:
            break
        decided = i
    return decided


# --- Autumn Leaves -------------------------------------------------------------------


def _autumn_leaves(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: autumn_leaves.State = states[-1]
    players = final.players
    running = [dict.fromkeys(players, 0)]
    for result in final.results:
        running.append({p: running[-1][p] + result.scores[i] for i, p in enumerate(players)})
    totals = running[-1]
    winners = final.game_winners
    headline, margin = _win_headline(totals, winners, low_wins=True, unit="points")
    facts = []
    emptied = {p: sum(1 for r in final.results if r.winner == p) for p in players}
    most = max(emptied.values())
    if most:
        facts.append(
            f"Most hands won: {_names([p for p, n in emptied.items() if n == most])} ({most})."
        )
    best_hand = min(
        ((r.scores[i], r.number, p) for r in final.results for i, p in enumerate(players)),
        default=None,
    )
    if best_hand is not None:
        facts.append(
            f"Best single hand: {best_hand[2]}, {_plural(best_hand[0], 'points')}"
            f" in hand {best_hand[1]}."
        )
    decided = _deciding_step(running, winners, low_wins=True)
    if decided:
        facts.append(
            f"The hand that decided it: hand {decided}, after which {winners[0]} stayed ahead."
        )
    return Summary(
        game="autumn_leaves",
        headline=headline,
        winners=tuple(winners),
        losers=(),
        margin=margin,
        low_wins=True,
        unit="points",
        standings=_ranked(totals, low_wins=True, winners=winners, losers=()),
        x_title="Hand",
        x_labels=_labels(len(running)),
        series=_series(players, running),
        facts=tuple(facts),
    )


# --- Leaf and the North Wind ---------------------------------------------------------

_LINES = (
    # Short labels: seven of them share a phone-wide chart.
    ("tokens", "Tokens"),
    ("penalty", "−3s"),
    ("animals", "Den"),
    ("mushrooms", "Mush."),
    ("leftover", "Spare"),
    ("tree", "Tree"),
    ("bonus", "Bonus"),
)


def _breakdown_running(result: leaf.Result) -> tuple[list[dict[str, int]], tuple[str, ...]]:
    """Acorns added up line by line of the score sheet (L5): the Leaf 'rounds'."""
    running = [dict.fromkeys(result.breakdowns, 0)]
    labels = ["Start"]
    for name, label in _LINES:
        values = {p: getattr(b, name) for p, b in result.breakdowns.items()}
        if name == "bonus" and not any(values.values()):
            continue
        sign = -1 if name == "penalty" else 1
        running.append({p: running[-1][p] + sign * values[p] for p in values})
        labels.append(label)
    return running, tuple(labels)


def _leaf_facts(result: leaf.Result) -> list[str]:
    facts = []
    for name, label in (("animals", "animals"), ("mushrooms", "mushrooms"), ("tree", "the tree")):
        values = {p: getattr(b, name) for p, b in result.breakdowns.items()}
        most = max(values.values())
        if most > 0:
            facts.append(
                f"Most acorns from {label}: "
                f"{_names([p for p, v in values.items() if v == most])} ({most})."
            )
    if result.decided_by == "leaf cards and sun":
        facts.append("Level on acorns: the leaf cards and sun decided it (L5).")
    return facts


def _leaf(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: leaf.State = states[-1]
    result = final.result
    assert result is not None
    totals = {p: b.total for p, b in result.breakdowns.items()}
    running, labels = _breakdown_running(result)
    headline, margin = _win_headline(totals, result.winners, low_wins=False, unit="acorns")
    return Summary(
        game="leaf",
        headline=headline,
        winners=tuple(result.winners),
        losers=(),
        margin=margin,
        low_wins=False,
        unit="acorns",
        standings=_ranked(totals, low_wins=False, winners=result.winners, losers=()),
        x_title="Score sheet line",
        x_labels=labels,
        series=_series(final.players, running),
        facts=tuple(_leaf_facts(result)),
    )


def _north_wind(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: north_wind.State = states[-1]
    result = final.result
    assert result is not None
    human, wind = final.human, north_wind.NORTH_WIND
    totals = {p: b.total for p, b in result.breakdowns.items()}
    running, labels = _breakdown_running(result)
    if len(result.winners) > 1:
        headline, margin = (
            "A shared win with the North Wind: same acorns, same leaf cards and sun.",
            0,
        )
    elif final.human_won:
        margin = totals[human] - totals[wind]
        headline = (
            f"{human} beat the North Wind by {_plural(margin, 'acorns')},"
            f" {totals[human]} to {totals[wind]}."
        )
    else:
        margin = totals[wind] - totals[human]
        headline = (
            f"The North Wind won by {_plural(margin, 'acorns')}, {totals[wind]} to {totals[human]}."
        )
    facts = _leaf_facts(result)
    gains: dict[int, int] = {}
    for before, after in zip(states, states[1:], strict=False):
        if after.acorns > before.acorns:
            gains[after.turn] = gains.get(after.turn, 0) + after.acorns - before.acorns
    if gains:
        turn, gained = max(gains.items(), key=lambda item: (item[1], -item[0]))
        facts.append(f"The North Wind's best turn: turn {turn}, {_plural(gained, 'acorns')}.")
    facts.append(
        f"Difficulty: {final.difficulty}; the North Wind played {_plural(final.turn, 'turns')}."
    )
    winners = tuple(result.winners)
    return Summary(
        game="north_wind",
        headline=headline,
        winners=tuple(p for p in winners if p == human),
        losers=() if final.human_won or len(winners) > 1 else (human,),
        margin=margin,
        low_wins=False,
        unit="acorns",
        standings=_ranked(
            totals, low_wins=False, winners=winners, losers=() if final.human_won else (human,)
        ),
        x_title="Score sheet line",
        x_labels=labels,
        series=_series((human, wind), running),
        facts=tuple(facts),
        variant=final.difficulty,
        achievements=tuple(final.achievements),
    )


# --- Autumn Ash ----------------------------------------------------------------------


def _autumn_ash(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: autumn_ash.Race = states[-1]
    totals = final.totals
    winner = final.winner
    assert winner is not None
    loser = final.xeno if winner == final.rainbow else final.rainbow
    points = [s.totals for s in states]
    margin = totals[winner] - totals[loser]
    headline = f"{winner} reached {totals[winner]} first and wins by {_plural(margin, 'points')}."
    facts = []
    if final.bags:
        player, best = max(final.bags, key=lambda bag: bag[1].total)
        facts.append(f"Biggest bag: {player}, {best.describe()}.")
        counts = {p: sum(1 for q, _ in final.bags if q == p) for p in final.players}
        facts.append(f"Bags: {', '.join(f'{p} {n}' for p, n in counts.items())}.")
        last_player, last = final.bags[-1]
        facts.append(f"The bag that decided it: {last_player}'s {last.describe()}.")
    return Summary(
        game="autumn_ash",
        headline=headline,
        winners=(winner,),
        losers=(loser,),
        margin=margin,
        low_wins=False,
        unit="points",
        standings=_ranked(totals, low_wins=False, winners=(winner,), losers=(loser,)),
        x_title="Bag",
        x_labels=_labels(len(points)),
        series=_series(final.players, points),
        facts=tuple(facts),
    )


# --- Score pad -----------------------------------------------------------------------


def _scorepad(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: scorepad.ScorePad = states[-1]
    players = final.players
    running = [dict.fromkeys(players, 0)]
    for row in final.rounds:
        running.append({p: running[-1][p] + row[i] for i, p in enumerate(players)})
    totals = running[-1]
    low = final.lowest_wins
    winners = final.leaders()
    headline, margin = _win_headline(totals, winners, low_wins=low, unit="points")
    facts = []
    if final.rounds:
        best = (min if low else max)(
            (
                (row[i], n, p)
                for n, row in enumerate(final.rounds, 1)
                for i, p in enumerate(players)
            ),
            key=lambda item: item[0],
        )
        facts.append(f"Best round: {best[2]}, {_plural(best[0], 'points')} in round {best[1]}.")
    decided = _deciding_step(running, winners, low_wins=low)
    if decided:
        facts.append(
            f"The round that decided it: round {decided}, after which {winners[0]} stayed ahead."
        )
    return Summary(
        game="scorepad",
        headline=headline,
        winners=tuple(winners),
        losers=(),
        margin=margin,
        low_wins=low,
        unit="points",
        standings=_ranked(totals, low_wins=low, winners=winners, losers=()),
        x_title="Round",
        x_labels=_labels(len(running)),
        series=_series(players, running),
        facts=tuple(facts),
        variant="lowest wins" if low else "",
    )


# --- Solitaire -----------------------------------------------------------------------


def _solitaire(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: solitaire.State = states[-1]
    won = final.won
    moves = sum(1 for a in actions if a.get("type") == "Move")
    deals = sum(1 for a in actions if a.get("type") == "Deal")
    face_down = [s.face_down_count for s in states]
    headline = (
        f"Deal #{final.seed} is solved in {moves} moves."
        if won
        else f"Deal #{final.seed} is stuck after {moves} moves: no move is left."
    )
    player = "Face-down cards"
    return Summary(
        game="solitaire",
        headline=headline,
        winners=("you",) if won else (),
        losers=() if won else ("you",),
        margin=None,
        low_wins=True,
        unit="cards",
        standings=(),
        x_title="Move",
        x_labels=tuple(str(i) for i in range(len(face_down))),
        series=(Series(player, tuple(face_down)),),
        facts=(f"Moves: {moves}. Deals from the hand: {deals}.",),
    )


def _solitaire_over(state: solitaire.State) -> bool:
    return state.won or not solitaire.legal_moves(state)


_IS_OVER: dict[str, Callable[[Any], bool]] = {
    "pairs": lambda s: s.is_over,
    "venture": lambda s: s.is_over,
    "autumn_leaves": lambda s: s.phase == autumn_leaves.OVER,
    "leaf": lambda s: s.result is not None,
    "north_wind": lambda s: s.phase == "over",
    "autumn_ash": lambda s: s.winner is not None,
    "scorepad": lambda s: bool(getattr(s, "finished", False)),
    "solitaire": _solitaire_over,
}

_SUMMARISE: dict[str, Callable[[list[Any], list[Mapping[str, Any]]], Summary]] = {
    "pairs": _pairs,
    "venture": _venture,
    "autumn_leaves": _autumn_leaves,
    "leaf": _leaf,
    "north_wind": _north_wind,
    "autumn_ash": _autumn_ash,
    "scorepad": _scorepad,
    "solitaire": _solitaire,
}


def is_over(game: str, state: Any) -> bool:
    """Whether a table of ``game`` in ``state`` has finished."""
    check = _IS_OVER.get(game)
    return bool(check and check(state))
