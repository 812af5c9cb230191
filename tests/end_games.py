"""Whole games played to their end through the store, for the end-screen and records tests.

Each ``finish_<game>(store, table, seed)`` drives a table with real shuffled
decks (or fixed entries) until its game is over and returns the final state.
"""

from __future__ import annotations

import random
from typing import Any

from companion.rules import actions, pairs, venture
from companion.rules.cards import PAIRS_DECK

SOLITAIRE_DEAL = 20  # the deal SOLITAIRE_WIN wins


def act(store: Any, table: Any, action: dict[str, Any]) -> Any:
    return store.act(table.token, store.version(table.token), action)


def state_of(store: Any, table: Any) -> Any:
    return store.snapshot(table.token).state


def finish_pairs(store: Any, table: Any, seed: int = 7) -> Any:
    rng = random.Random(seed)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    deck = deck[pairs.BURN :]
    for _ in range(2000):
        game = state_of(store, table)
        if game.is_over:
            return game
        if game.reshuffle_due:
            act(store, table, {"type": "Reshuffle"})
            deck = list(PAIRS_DECK)
            for card in game.scored() + game.in_play():
                deck.remove(card)
            rng.shuffle(deck)
            deck = deck[pairs.BURN :]
            continue
        if game.phase == "play" and not game.must_hit(game.to_act) and rng.random() < 0.3:
            owner, rank = game.proposed_fold()
            act(store, table, {"type": "Fold", "player": game.to_act, "card": rank, "owner": owner})
            continue
        kind = {"deal": "Deal", "tiebreak": "TieBreak", "play": "Hit"}[game.phase]
        card = next(c for c in deck if c not in game.used_up())
        deck.remove(card)
        try:
            act(store, table, {"type": kind, "player": game.to_act, "card": card})
        except ValueError:
            continue
    raise AssertionError("the Pairs game never ended")


def finish_venture(store: Any, table: Any, seed: int = 3) -> Any:
    players = table.players
    rng = random.Random(seed)
    deck = list(PAIRS_DECK)
    rng.shuffle(deck)
    size = venture.slug_size(len(players))
    act(store, table, {"type": "EnterSlug", "cards": deck[:size]})
    hand = venture.hand_size(len(players))
    hands = {p: deck[size + i * hand : size + (i + 1) * hand] for i, p in enumerate(players)}
    for turn in range(hand):
        for p in players:
            act(store, table, {"type": "Bid", "player": p, "card": hands[p][turn]})
    return state_of(store, table)


def finish_autumn_leaves(store: Any, table: Any, seed: int = 5) -> Any:
    from tests.rules.test_autumn_leaves_rules import random_action  # the rules tests' random player

    rng = random.Random(seed)
    for _ in range(3000):
        game = state_of(store, table)
        if game.phase == "over":
            return game
        act(store, table, actions.to_dict(random_action(game, rng)))
    raise AssertionError("the Autumn Leaves game never ended")


def finish_leaf(store: Any, table: Any) -> Any:
    tallies = [
        {"acorn_tokens": 8, "den": {"fox": 3}, "tree": 2, "sun": 2, "leaf_cards": 3},
        {"acorn_tokens": 5, "den": {"owl": 2}, "mushroom_groups": [3], "tree": 1},
        {"acorn_tokens": 2, "tree": 0, "sun": 1},
        {"acorn_tokens": 11},
    ]
    for player, tally in zip(table.players, tallies, strict=False):
        act(store, table, {"type": "EnterTally", "player": player, "tally": tally})
    return state_of(store, table)


def finish_autumn_ash(store: Any, table: Any) -> Any:
    """Each player in turn bags a row of their first bagging colour (sizes 1, 2, 3: a
    start colour is never bagged, XA8); Rainbow, bagging first, reaches 21 first."""
    race = state_of(store, table)
    first_colour = {race.rainbow: "yellow", race.xeno: "white"}
    turn = 0
    while race.winner is None:
        player = race.players[turn % 2]
        pieces = [[first_colour[player], size] for size in (1, 2, 3)]
        act(store, table, {"type": "Bag", "player": player, "pieces": pieces})
        race = state_of(store, table)
        turn += 1
    return race


def finish_scorepad(store: Any, table: Any, rows: list[list[int]] | None = None) -> Any:
    n = len(table.players)
    for row in rows or [[3 + i for i in range(n)], [10 - 2 * i for i in range(n)], [1] * n]:
        act(store, table, {"type": "AddRound", "scores": row})
    act(store, table, {"type": "Finish"})
    return state_of(store, table)


SOLITAIRE_WIN = (  # deal 20 won: "D" deals, "STC" moves C cards from pile S to pile T
    "421 021 411 511 341 351 231 202 D 351 131 421 041 201 024 021 051 302 321 D 021 513 154 "
    "141 412 153 518 139 252 022 402 141 042 202 121 022 D 311 531 451 412 143 414 521 D 412 "
    "401 341 3210 2311 251 012 504 251 054 D 301 501 544 455 507 058 509 511 251 212 124 247 "
    "428 2413 3211 2312 029 2010 122 152 252 121 512 156 518 521 129 2111 1512"
)


def finish_solitaire(store: Any, table: Any) -> Any:
    """A winning line found once by the solver and kept here, so these tests do not
    depend on the solver's search."""
    for step in SOLITAIRE_WIN.split():
        if step == "D":
            act(store, table, {"type": "Deal"})
        else:
            move = {"source": int(step[0]), "target": int(step[1]), "count": int(step[2:])}
            act(store, table, {"type": "Move", **move})
    return state_of(store, table)


NORTH_WIND_STEPS = (
    *[("pile", {"leaf": x}) for x in ("ginkgo", "sweetgum", "sassafras")],
    ("end-turn", {}),
    ("draw", {"leaf": "tulip-poplar", "colour": "green", "arrow": "top-left"}),
    ("place", {"tips_green": "2"}),
    ("done", {}),
    ("done", {}),
    ("hibernate", {"animal": ""}),
    ("final", {"h_acorns": "30", "h_sun": "6", "h_groups": "3 3"}),
)


def finish_north_wind(phone: Any, table: Any) -> Any:
    """Through a phone's forms (the North Wind's actions are many and detailed)."""
    for action, fields in NORTH_WIND_STEPS:
        response = phone.act(table, action, **fields)
        assert response.status_code == 200, (action, response.get_data(as_text=True)[-400:])
    return phone.store.snapshot(table.token).state
