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
from companion.rules.messages import Message, Param, marked, plain, refusal, refusal_n

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
    headline: Message  # "Ana wins by 4 points.", worded where shown
    winners: tuple[str, ...]
    losers: tuple[str, ...]
    margin: int | None  # between the winner (or loser) and the next player
    low_wins: bool
    unit: str  # "points", "acorns", "cards": a key, worded where shown
    standings: tuple[Standing, ...]
    # What a step of the chart is ("Round", "Hand", "Bag" ...) and each
    # step's label: numbers, or English words marked for the catalogs and
    # worded where shown ("Start", the Leaf sheet's lines).
    x_title: str
    x_labels: tuple[str, ...]
    series: tuple[Series, ...]
    facts: tuple[Message, ...] = ()
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


# The words are messages (companion/rules/messages.py): an id, parameters and
# English words, worded in the language of the phone that shows them. Their
# str() is the English sentence.


def _points(n: int) -> Message:
    return refusal_n("end.points", "%(n)s point", "%(n)s points", "n", n=n)


def _acorns(n: int) -> Message:
    return refusal_n("end.acorns", "%(n)s acorn", "%(n)s acorns", "n", n=n)


def _amount(n: int, unit: str) -> Message:
    return _acorns(n) if unit == "acorns" else _points(n)


def _names(names: Sequence[str]) -> Param:
    """'Ana', 'Ana and Ben', 'Ana, Ben and Cy'."""
    items = list(names)
    if len(items) == 1:
        return items[0]
    return refusal(
        "end.names", "%(names)s and %(name)s", names=", ".join(items[:-1]), name=items[-1]
    )


def _win_headline(
    scores: Mapping[str, int], winners: Sequence[str], *, low_wins: bool, unit: str
) -> tuple[Message, int | None]:
    """'Ana wins by 4 points.' and the margin (None when nobody else scored)."""
    best = scores[winners[0]]
    others = [s for p, s in scores.items() if p not in winners]
    if len(winners) > 1:
        return refusal(
            "end.win.shared",
            "%(names)s share the win with %(score)s.",
            names=_names(winners),
            score=_amount(best, unit),
        ), 0
    if not others:
        return refusal(
            "end.win.alone", "%(player)s wins with %(score)s.", player=winners[0],
            score=_amount(best, unit),
        ), None  # fmt: skip
    runner_up = min(others) if low_wins else max(others)
    margin = abs(best - runner_up)
    if margin == 0:  # won on a tie-break (Leaf's leaf cards and sun)
        return refusal(
            "end.win.tie_break",
            "%(player)s wins on the tie-break, level at %(score)s.",
            player=winners[0],
            score=_amount(best, unit),
        ), 0
    return refusal(
        "end.win.by",
        "%(player)s wins by %(margin)s, with %(score)s.",
        player=winners[0],
        margin=_amount(margin, unit),
        score=best,
    ), margin


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
    return (marked("Start"), *(str(i) for i in range(1, count)))


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
    headline = refusal_n(
        "end.pairs.lost",
        "%(loser)s reached %(score)s of %(target)s point and loses the game. "
        "Nobody wins. The others finish on %(others)s.",
        "%(loser)s reached %(score)s of %(target)s points and loses the game. "
        "Nobody wins. The others finish on %(others)s.",
        "target",
        loser=loser,
        score=totals[loser],
        target=final.target,
        others=_names([str(t) for t in others]),
    )
    facts: list[Message] = []
    pairs_made = [s.last for s in states[1:] if s.last is not None and s.last.kind == "pair"]
    if pairs_made:
        biggest = max(pairs_made, key=lambda e: e.rank or 0)
        facts.append(
            refusal(
                "end.pairs.biggest_pair",
                "Biggest pair: %(player)s's %(rank)ss.",
                player=str(biggest.player),
                rank=str(biggest.rank),
            )
        )
    folds = [s.last for s in states[1:] if s.last is not None and s.last.kind == "fold"]
    if folds:
        by_player = {p: sum(1 for e in folds if e.player == p) for p in final.players}
        most = max(by_player.values())
        folders = [p for p, n in by_player.items() if n == most]
        facts.append(
            refusal("end.pairs.most_folds", "Most folds: %(names)s (%(n)s).",
                    names=_names(folders), n=most)
        )  # fmt: skip
    cards = {p: len(final.scoring_cards(p)) for p in final.players}
    most_cards = max(cards.values())
    facts.append(
        refusal(
            "end.pairs.most_cards",
            "Most scoring cards: %(names)s (%(n)s).",
            names=_names([p for p, n in cards.items() if n == most_cards]),
            n=most_cards,
        )
    )
    if final.last is not None:
        facts.append(_pairs_decided(final.last))
    return Summary(
        game="pairs",
        headline=headline,
        winners=(),
        losers=(loser,),
        margin=margin,
        low_wins=True,
        unit="points",
        standings=_ranked(totals, low_wins=True, winners=(), losers=(loser,)),
        x_title=marked("Scoring turn") if final.continuous else marked("Round"),
        x_labels=_labels(len(points)),
        series=_series(final.players, points),
        facts=tuple(facts),
        variant="continuous" if final.continuous else "",
    )


def _pairs_decided(last: pairs.Event) -> Message:
    """The last scoring turn of a Pairs game, in words."""
    player, rank = str(last.player), str(last.rank)
    if last.kind == "pair":
        return refusal(
            "end.pairs.decided.pair",
            "The hand that decided it: %(player)s paired %(rank)ss and scores %(rank)s.",
            player=player,
            rank=rank,
        )
    if last.kind == "fold" and last.owner in (None, last.player):
        return refusal(
            "end.pairs.decided.fold_own",
            "The hand that decided it: %(player)s folded and takes their own %(rank)s.",
            player=player,
            rank=rank,
        )
    if last.kind == "fold":
        return refusal(
            "end.pairs.decided.fold",
            "The hand that decided it: %(player)s folded and takes %(owner)s's %(rank)s.",
            player=player,
            owner=str(last.owner),
            rank=rank,
        )
    return plain(f"The hand that decided it: {last.describe()}.")  # never the last turn


# --- Venture -------------------------------------------------------------------------


def _venture(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: venture_rules.State = states[-1]
    outcome = final.outcome
    assert outcome is not None
    scores = outcome.scores
    points = _running(states, lambda s: s.rounds_played, lambda s: s.scores())
    headline, margin = _win_headline(scores, outcome.winners, low_wins=False, unit="points")
    facts: list[Message] = []
    piles = final.captured_piles()
    most = max(len(c) for c in piles.values())
    facts.append(
        refusal(
            "end.venture.most_captured",
            "Most cards captured: %(names)s (%(n)s).",
            names=_names([p for p, c in piles.items() if len(c) == most]),
            n=most,
        )
    )
    steps = [(r.number, st) for r in final.rounds for st in r.resolution.steps if st.captured]
    if steps:
        number, best = max(steps, key=lambda item: (len(item[1].captured), sum(item[1].captured)))
        facts.append(
            refusal(
                "end.venture.biggest_capture",
                "Biggest capture: round %(round)s, %(player)s's %(rank)s takes %(cards)s.",
                round=number,
                player=best.players[0],
                rank=best.rank,
                cards=", ".join(str(card) for card in best.captured),
            )
        )
    if outcome.full_sets:
        sets = [
            f"{p} ({', '.join(str(r) for r in ranks)})"
            for p, ranks in outcome.full_sets.items()
            if ranks
        ]
        if sets:
            facts.append(
                refusal("end.venture.full_sets", "Full sets: %(sets)s.", sets="; ".join(sets))
            )
    decided = _deciding_step(points, outcome.winners, low_wins=False)
    if decided:
        facts.append(
            refusal("end.venture.lead", "The lead for good came in round %(round)s.", round=decided)
        )
    return Summary(
        game="venture",
        headline=headline,
        winners=tuple(outcome.winners),
        losers=(),
        margin=margin,
        low_wins=False,
        unit="points",
        standings=_ranked(scores, low_wins=False, winners=outcome.winners, losers=()),
        x_title=marked("Round"),
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
    facts: list[Message] = []
    emptied = {p: sum(1 for r in final.results if r.winner == p) for p in players}
    most = max(emptied.values())
    if most:
        facts.append(
            refusal(
                "end.autumn_leaves.most_hands",
                "Most hands won: %(names)s (%(n)s).",
                names=_names([p for p, n in emptied.items() if n == most]),
                n=most,
            )
        )
    best_hand = min(
        ((r.scores[i], r.number, p) for r in final.results for i, p in enumerate(players)),
        default=None,
    )
    if best_hand is not None:
        facts.append(
            refusal(
                "end.autumn_leaves.best_hand",
                "Best single hand: %(player)s, %(points)s in hand %(hand)s.",
                player=best_hand[2],
                points=_points(best_hand[0]),
                hand=best_hand[1],
            )
        )
    decided = _deciding_step(running, winners, low_wins=True)
    if decided:
        facts.append(
            refusal(
                "end.autumn_leaves.decided",
                "The hand that decided it: hand %(hand)s, after which %(player)s stayed ahead.",
                hand=decided,
                player=winners[0],
            )
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
        x_title=marked("Hand"),
        x_labels=_labels(len(running)),
        series=_series(players, running),
        facts=tuple(facts),
    )


# --- Leaf and the North Wind ---------------------------------------------------------

_LINES = (
    # Short labels: seven of them share a phone-wide chart.
    ("tokens", marked("Tokens")),
    ("penalty", "−3s"),
    ("animals", marked("Den")),
    ("mushrooms", marked("Mush.")),
    ("leftover", marked("Spare")),
    ("tree", marked("Tree")),
    ("bonus", marked("Bonus")),
)


def _breakdown_running(result: leaf.Result) -> tuple[list[dict[str, int]], tuple[str, ...]]:
    """Acorns added up line by line of the score sheet (L5): the Leaf 'rounds'."""
    running = [dict.fromkeys(result.breakdowns, 0)]
    labels = [marked("Start")]
    for name, label in _LINES:
        values = {p: getattr(b, name) for p, b in result.breakdowns.items()}
        if name == "bonus" and not any(values.values()):
            continue
        sign = -1 if name == "penalty" else 1
        running.append({p: running[-1][p] + sign * values[p] for p in values})
        labels.append(label)
    return running, tuple(labels)


_MOST_ACORNS = (
    ("animals", refusal("end.leaf.most.animals", "Most acorns from animals: %(names)s (%(n)s).")),
    (
        "mushrooms",
        refusal("end.leaf.most.mushrooms", "Most acorns from mushrooms: %(names)s (%(n)s)."),
    ),
    ("tree", refusal("end.leaf.most.tree", "Most acorns from the tree: %(names)s (%(n)s).")),
)


def _leaf_facts(result: leaf.Result) -> list[Message]:
    facts = []
    for name, words in _MOST_ACORNS:
        values = {p: getattr(b, name) for p, b in result.breakdowns.items()}
        most = max(values.values())
        if most > 0:
            names = _names([p for p, v in values.items() if v == most])
            facts.append(Message(words.id, words.default, {"names": names, "n": most}))
    if result.decided_by == "leaf cards and sun":
        facts.append(
            refusal("end.leaf.level", "Level on acorns: the leaf cards and sun decided it (L5).")
        )
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
        x_title=marked("Score sheet line"),
        x_labels=labels,
        series=_series(final.players, running),
        facts=tuple(_leaf_facts(result)),
    )


_DIFFICULTIES: dict[str, Param] = {
    "easy": refusal("end.north_wind.easy", "easy"),
    "normal": refusal("end.north_wind.normal", "normal"),
    "hard": refusal("end.north_wind.hard", "hard"),
}


def _north_wind(states: list[Any], actions: list[Mapping[str, Any]]) -> Summary:
    final: north_wind.State = states[-1]
    result = final.result
    assert result is not None
    human, wind = final.human, north_wind.NORTH_WIND
    totals = {p: b.total for p, b in result.breakdowns.items()}
    running, labels = _breakdown_running(result)
    headline: Message
    if len(result.winners) > 1:
        headline, margin = (
            refusal(
                "end.north_wind.shared",
                "A shared win with the North Wind: same acorns, same leaf cards and sun.",
            ),
            0,
        )
    elif final.human_won:
        margin = totals[human] - totals[wind]
        headline = refusal(
            "end.north_wind.beaten",
            "%(player)s beat the North Wind by %(margin)s, %(score)s to %(wind)s.",
            player=human,
            margin=_acorns(margin),
            score=totals[human],
            wind=totals[wind],
        )
    else:
        margin = totals[wind] - totals[human]
        headline = refusal(
            "end.north_wind.won",
            "The North Wind won by %(margin)s, %(wind)s to %(score)s.",
            margin=_acorns(margin),
            wind=totals[wind],
            score=totals[human],
        )
    facts = _leaf_facts(result)
    gains: dict[int, int] = {}
    for before, after in zip(states, states[1:], strict=False):
        if after.acorns > before.acorns:
            gains[after.turn] = gains.get(after.turn, 0) + after.acorns - before.acorns
    if gains:
        turn, gained = max(gains.items(), key=lambda item: (item[1], -item[0]))
        facts.append(
            refusal(
                "end.north_wind.best_turn",
                "The North Wind's best turn: turn %(turn)s, %(acorns)s.",
                turn=turn,
                acorns=_acorns(gained),
            )
        )
    facts.append(
        refusal_n(
            "end.north_wind.difficulty",
            "Difficulty: %(difficulty)s; the North Wind played %(n)s turn.",
            "Difficulty: %(difficulty)s; the North Wind played %(n)s turns.",
            "n",
            difficulty=_DIFFICULTIES.get(final.difficulty, final.difficulty),
            n=final.turn,
        )
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
        x_title=marked("Score sheet line"),
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
    headline = refusal(
        "end.autumn_ash.won",
        "%(player)s reached %(score)s first and wins by %(margin)s.",
        player=winner,
        score=totals[winner],
        margin=_points(margin),
    )
    facts: list[Message] = []
    if final.bags:
        player, best = max(final.bags, key=lambda bag: bag[1].total)
        facts.append(
            refusal(
                "end.autumn_ash.biggest_bag",
                "Biggest bag: %(player)s, %(points)s.",
                player=player,
                points=_points(best.total),
            )
        )
        counts = {p: sum(1 for q, _ in final.bags if q == p) for p in final.players}
        facts.append(
            refusal(
                "end.autumn_ash.bags",
                "Bags: %(counts)s.",
                counts=", ".join(f"{p} {n}" for p, n in counts.items()),
            )
        )
        last_player, last = final.bags[-1]
        facts.append(
            refusal(
                "end.autumn_ash.decided",
                "The bag that decided it: %(player)s's, %(points)s.",
                player=last_player,
                points=_points(last.total),
            )
        )
    return Summary(
        game="autumn_ash",
        headline=headline,
        winners=(winner,),
        losers=(loser,),
        margin=margin,
        low_wins=False,
        unit="points",
        standings=_ranked(totals, low_wins=False, winners=(winner,), losers=(loser,)),
        x_title=marked("Bag"),
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
    facts: list[Message] = []
    if final.rounds:
        best = (min if low else max)(
            (
                (row[i], n, p)
                for n, row in enumerate(final.rounds, 1)
                for i, p in enumerate(players)
            ),
            key=lambda item: item[0],
        )
        facts.append(
            refusal(
                "end.scorepad.best_round",
                "Best round: %(player)s, %(points)s in round %(round)s.",
                player=best[2],
                points=_points(best[0]),
                round=best[1],
            )
        )
    decided = _deciding_step(running, winners, low_wins=low)
    if decided:
        facts.append(
            refusal(
                "end.scorepad.decided",
                "The round that decided it: round %(round)s, after which %(player)s stayed ahead.",
                round=decided,
                player=winners[0],
            )
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
        x_title=marked("Round"),
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
        refusal_n(
            "end.solitaire.solved",
            "Deal #%(deal)s is solved in %(moves)s move.",
            "Deal #%(deal)s is solved in %(moves)s moves.",
            "moves",
            deal=str(final.seed),
            moves=moves,
        )
        if won
        else refusal_n(
            "end.solitaire.stuck",
            "Deal #%(deal)s is stuck after %(moves)s move: no move is left.",
            "Deal #%(deal)s is stuck after %(moves)s moves: no move is left.",
            "moves",
            deal=str(final.seed),
            moves=moves,
        )
    )
    player = marked("Face-down cards")  # the chart's one line: worded where shown
    return Summary(
        game="solitaire",
        headline=headline,
        winners=("you",) if won else (),
        losers=() if won else ("you",),
        margin=None,
        low_wins=True,
        unit="cards",
        standings=(),
        x_title=marked("Move"),
        x_labels=tuple(str(i) for i in range(len(face_down))),
        series=(Series(player, tuple(face_down)),),
        facts=(
            refusal(
                "end.solitaire.moves",
                "Moves: %(moves)s. Deals from the hand: %(deals)s.",
                moves=moves,
                deals=deals,
            ),
        ),
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
