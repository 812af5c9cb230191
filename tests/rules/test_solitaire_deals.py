"""Deals that can be won, by difficulty: the shipped table and the new-game form."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import solitaire, solitaire_deals
from companion.rules.errors import RuleError
from companion.rules.solitaire_solver import solve

ROOT = Path(__file__).resolve().parents[2]


def benchmark() -> Path:
    """The run the shipped table came from, as its first line names it
    (``benchmarks/solitaire.py table --out FILE`` writes it)."""
    text = (ROOT / "companion" / "rules" / solitaire_deals.FILE).read_text()
    first = text.splitlines()[0]
    return ROOT / re.search(r"\((benchmarks/[^)]+\.jsonl)\)", first).group(1)  # type: ignore[union-attr]


KNOWN_WINS = ROOT / "benchmarks" / "solitaire-known-wins.jsonl"


def known_wins() -> dict[int, dict]:
    """Deals the benchmark left undecided that another search won alone
    (``benchmarks/solitaire.py known``), by seed."""
    rows = [json.loads(line) for line in KNOWN_WINS.read_text().splitlines() if line.strip()]
    return {row["seed"]: row for row in rows}


def test_the_shipped_table_lists_only_deals_the_benchmark_or_another_search_won():
    table = solitaire_deals.load()
    rows = {}
    for line in benchmark().read_text().splitlines():
        row = json.loads(line)
        rows[row["seed"]] = row
    assert table.winnable, "the table is empty"
    others = {seed for seed in known_wins() if rows[seed]["result"] != "won"}
    assert all(rows[seed]["result"] == "won" or seed in others for seed in table.winnable)
    assert others <= set(table.levels["hard"])  # the solver left them undecided
    first, second = table.cuts
    for level, seeds in table.levels.items():
        effort = [rows[seed]["nodes"] for seed in seeds if seed not in others]
        assert effort, level
        if level == "easy":
            assert max(effort) < first
        elif level == "medium":
            assert first <= min(effort) and max(effort) < second
        else:
            assert min(effort) >= second


@pytest.mark.parametrize("level", solitaire_deals.LEVELS)
def test_a_deal_of_each_level_is_won_by_the_solver_and_replays(level):
    seed = solitaire_deals.pick(level, random.Random(7))
    game = solitaire.new_game(seed)
    # The table's run gave each deal 10 s of CPU, some 400,000 positions at
    # most; a cap in positions keeps the answer the same on any machine.
    found = solve(game, budget=600, max_nodes=500_000)
    assert found.result == "won"
    assert solitaire.replay(game, found.moves).won


def test_the_levels_split_the_won_deals_in_thirds():
    text = solitaire_deals.write([(seed, seed * 10) for seed in range(1, 10)])
    table = solitaire_deals.parse(text)
    assert table.levels == {"easy": (1, 2, 3), "medium": (4, 5, 6), "hard": (7, 8, 9)}
    assert table.cuts == (40, 70)


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        ("any", "", "not a kind of deal"),
        ("hard", "", "no hard deals"),
        ("nonsense", "easy: 1\n", "not a kind of deal"),
    ],
)
def test_bad_kinds_and_empty_levels_are_refused_in_words(kind, text, message):
    with pytest.raises(RuleError, match=message):
        solitaire_deals.pick(kind, random.Random(1), solitaire_deals.parse(text))


def test_a_bad_level_in_the_table_is_refused():
    with pytest.raises(RuleError, match="not a difficulty level"):
        solitaire_deals.parse("trivial: 1 2\n")


@pytest.mark.parametrize("kind", ["winnable", *solitaire_deals.LEVELS])
def test_the_new_game_form_deals_a_winnable_deal_of_the_kind_asked(phone, store, kind):
    response = phone.post("/solitaire/new", {"deal": "", "kind": kind}, htmx=False)
    assert response.status_code == 303
    deal = store.tables(game="solitaire")[0].options["deal"]
    table = solitaire_deals.load()
    wanted = table.winnable if kind == "winnable" else table.levels[kind]
    assert deal in wanted


def test_a_typed_deal_number_wins_over_the_kind(phone, store):
    assert (
        phone.post("/solitaire/new", {"deal": "77", "kind": "easy"}, htmx=False).status_code == 303
    )
    assert store.tables(game="solitaire")[0].options == {"deal": 77}


def test_an_unknown_kind_is_refused_with_422_and_no_table(phone, store, error_message):
    response = phone.post("/solitaire/new", {"deal": "", "kind": "impossible"}, htmx=False)
    assert response.status_code == 422
    assert "is not a kind of deal" in error_message(response)
    assert store.tables(game="solitaire") == []


def test_both_new_game_forms_offer_the_kinds(phone):
    html = phone.get("/solitaire").get_data(as_text=True)
    for words in ("Any deal", "A deal that can be won", "Easy (can be won)", "Hard (can be won)"):
        assert words in html


def test_the_home_pages_new_table_form_offers_and_honours_the_kinds(phone, store):
    html = phone.get("/new/solitaire").get_data(as_text=True)
    assert 'name="kind"' in html and "Medium (can be won)" in html
    response = phone.post("/new/solitaire", {"player1": "Solo", "kind": "medium"}, htmx=False)
    assert response.status_code == 303
    deal = store.tables(game="solitaire")[0].options["deal"]
    assert deal in solitaire_deals.load().levels["medium"]


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.integers(0, 10**9), st.integers(1, 10**6), max_size=60))
def test_the_table_keeps_every_won_deal_once_and_harder_ones_never_lower(effort):
    rows = list(effort.items())
    table = solitaire_deals.parse(solitaire_deals.write(rows, tested=len(rows) + 5))
    assert sorted(table.winnable) == sorted(effort)
    rank = {level: i for i, level in enumerate(solitaire_deals.LEVELS)}
    level_of = {seed: rank[level] for level, seeds in table.levels.items() for seed in seeds}
    for a in effort:
        for b in effort:
            if effort[a] < effort[b]:
                assert level_of[a] <= level_of[b]
    assert table.tested == len(rows) + 5


# The winning lines shipped for the deals the solver takes longest on.

LINES = ROOT / "companion" / "rules" / solitaire_deals.LINES_FILE


def shipped_lines() -> dict[int, str]:
    return solitaire_deals.parse_lines(LINES.read_text())


def test_every_shipped_line_wins_its_deal_from_the_start():
    lines = shipped_lines()
    assert len(lines) > 100, "the lines file is (nearly) empty"
    for seed, text in lines.items():
        game = solitaire.new_game(seed)
        assert solitaire.replay(game, solitaire_deals.parse_line(text)).won, seed


def test_lines_ship_for_exactly_the_won_deals_that_took_the_most_positions():
    """Those the table's run won after more than LINES_ABOVE positions: every
    one of them; and those it left undecided that another search won."""
    rows = {row["seed"]: row for row in map(json.loads, benchmark().read_text().splitlines())}
    hardest = {
        seed
        for seed, row in rows.items()
        if row["result"] == "won" and row["nodes"] > solitaire_deals.LINES_ABOVE
    }
    others = {seed for seed in known_wins() if rows[seed]["result"] != "won"}
    assert set(shipped_lines()) == hardest | others
    assert hardest <= set(solitaire_deals.load().levels["hard"])
    assert f"won in benchmarks/{benchmark().name}" in LINES.read_text().splitlines()[0]


# The run before the table's (s14's solver): the lines shipped until s25
# were its winning lines, move for move as long.
RUN_BEFORE = ROOT / "benchmarks" / "solitaire-deals-10k-v8.jsonl"


def test_no_shipped_line_is_longer_than_any_line_known_before():
    """A hint follows the shipped line, so each is the shortest known
    (issue 47): no longer than the table's run found, than the line shipped
    before (the run before's, for the deals it won after more than
    LINES_ABOVE positions), or than another search found."""
    now = {row["seed"]: row for row in map(json.loads, benchmark().read_text().splitlines())}
    before = {row["seed"]: row for row in map(json.loads, RUN_BEFORE.read_text().splitlines())}
    others = known_wins()
    shorter = 0
    for seed, text in shipped_lines().items():
        moves = len(solitaire_deals.parse_line(text))
        known = [now[seed]["moves"]] if now[seed]["result"] == "won" else []
        if before[seed]["result"] == "won" and before[seed]["nodes"] > solitaire_deals.LINES_ABOVE:
            known.append(before[seed]["moves"])  # the line shipped until s25
        known += [others[seed]["moves"]] if seed in others else []
        assert known and moves <= min(known), seed
        shorter += moves < max(known)
    assert shorter > 0, "no line was shortened: is RUN_BEFORE the run before?"


def test_each_deal_another_search_won_was_undecided_and_its_line_wins():
    """The known wins (issue 47): deals the benchmark's solver left
    undecided, each won by a search named in benchmarks/solitaire.py's
    KNOWN_SEARCHES; a player is offered them and answered at once."""
    before = {row["seed"]: row for row in map(json.loads, RUN_BEFORE.read_text().splitlines())}
    others = known_wins()
    assert {1352, 1389, 6410} <= set(others)
    searches = (ROOT / "benchmarks" / "solitaire.py").read_text()
    for seed, row in others.items():
        assert before[seed]["result"] == "unknown", seed  # s14's solver left it undecided
        assert row["result"] == "won" and f'"{row["search"]}":' in searches, seed
        line = solitaire_deals.parse_line(row["line"])
        assert len(line) == row["moves"]
        assert solitaire.replay(solitaire.new_game(seed), line).won, seed
        shipped = solitaire_deals.winning_line(solitaire.new_game(seed))
        assert shipped is not None and len(shipped) <= len(line), seed


moves = st.one_of(
    st.just(solitaire.Deal()),
    st.builds(solitaire.Move, st.integers(0, 5), st.integers(0, 5), st.integers(1, 13)),
)


@given(st.lists(moves, max_size=40))
def test_a_line_reads_back_as_the_same_moves(line):
    text = solitaire_deals.format_line(line)
    assert solitaire_deals.parse_line(text) == tuple(line)
    lines = {7: text, 3: "D"}
    assert solitaire_deals.parse_lines(solitaire_deals.write_lines(lines, ["a note"])) == lines


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("16 X", "'X' is not a move"),
        ("1", "'1' is not a move"),
        ("01", "'01' is not a move"),
        ("16 d", "'d' is not a move"),
        ("1-6", "'1-6' is not a move"),
        ("1614", "'1614': a run moves 1 to 13 cards"),
        ("160", "'160': a run moves 1 to 13 cards"),
        ("1６", "'1６' is not a move"),  # a full-width digit: isdigit() alone says yes
        ("16３", "'16３' is not a move"),
    ],
)
def test_a_word_that_is_not_a_move_is_refused_in_words(text, message):
    with pytest.raises(RuleError, match=message):
        solitaire_deals.parse_line(text)


@pytest.mark.parametrize("row", ["16 25", "x: 16", ": 16", "-3: 16", "１２: 16"])
def test_a_row_that_is_not_a_deals_line_is_refused(row):
    with pytest.raises(RuleError, match="is not a deal's line"):
        solitaire_deals.parse_lines(row)


@pytest.fixture
def lines_of(monkeypatch):
    """Ship these lines instead of the package's file."""

    def ship(lines: dict[int, str]) -> None:
        monkeypatch.setattr(solitaire_deals, "_SHIPPED", solitaire_deals._ShippedLines())
        monkeypatch.setattr(solitaire_deals._SHIPPED, "_text", lines)

    return ship


def test_the_shipped_line_answers_only_at_the_very_start_of_its_deal(lines_of):
    seed = 20  # the solver wins it in a few hundred positions
    line = solve(solitaire.new_game(seed), budget=10, max_nodes=20_000).moves
    lines_of({seed: solitaire_deals.format_line(line)})
    start = solitaire.new_game(seed)
    assert solitaire_deals.winning_line(start) == line
    assert solitaire_deals.winning_line(solitaire.apply(start, line[0])) is None
    assert solitaire_deals.winning_line(solitaire.new_game(seed + 1)) is None
    small = solitaire.Layout(3, 2, (1, 1, 1), 1)
    assert solitaire_deals.winning_line(solitaire.new_game(seed, small)) is None
    unseeded = solitaire.State(start.layout, start.piles, start.hidden, start.hand)
    assert solitaire_deals.winning_line(unseeded) is None


@pytest.mark.parametrize("text", ["16 25", "D D D D D", "99 X"])
def test_a_shipped_line_that_does_not_win_is_never_given_out(lines_of, text):
    lines_of({20: text})
    assert solitaire_deals.winning_line(solitaire.new_game(20)) is None
