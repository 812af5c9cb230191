"""`leafpile solve`: one JSON object per deal, and one line for bad input."""

from __future__ import annotations

import json

import pytest

from companion import cli
from companion.rules import actions, solitaire


def test_solve_prints_one_json_object_with_a_winning_line(capsys):
    assert cli.main(["solve", "--seed", "14", "--budget", "30", "--max-nodes", "20000"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert set(answer) == {"seed", "result", "moves", "seconds", "nodes", "search", "solver"}
    assert answer["solver"] == "python"  # the editable install of the tests (setup.py)
    assert answer["seed"] == 14 and answer["result"] == "won"
    assert answer["search"] == "best-first (run break 16)"  # the head start wins it
    moves = [actions.from_dict(m, solitaire.ACTIONS) for m in answer["moves"]]
    assert solitaire.replay(solitaire.new_game(14), moves).won
    assert isinstance(answer["seconds"], float) and 0 < answer["nodes"] <= 20000


def test_solve_says_unknown_when_the_budget_is_too_small(capsys):
    assert cli.main(["solve", "--seed", "0", "--budget", "0"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["result"], answer["moves"]) == ("unknown", [])


def test_a_node_budget_is_kept_and_gives_the_same_answer_twice(capsys):
    answers = []
    for _ in range(2):
        assert cli.main(["solve", "--seed", "0", "--budget", "60", "--max-nodes", "300"]) == 0
        answers.append(json.loads(capsys.readouterr().out))
    assert answers[0]["nodes"] == 300 and answers[0]["result"] == "unknown"
    assert answers[0]["moves"] == answers[1]["moves"] and answers[0]["nodes"] == answers[1]["nodes"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--seed", "seven"], "--seed must be a deal number from 0 to 999,999,999, not 'seven'"),
        (["--seed", "-1"], "--seed must be a deal number from 0 to 999,999,999, not '-1'"),
        (["--seed", "1000000000"], "--seed must be a deal number from 0 to 999,999,999"),
        (["--seed", "3", "--budget", "-1"], "--budget must be a number of seconds from 0 to 600"),
        (["--seed", "3", "--budget", "nan"], "--budget must be a number of seconds from 0 to 600"),
        (["--seed", "3", "--budget", "inf"], "--budget must be a number of seconds from 0 to 600"),
        (["--seed", "3", "--budget", "1e9"], "--budget must be a number of seconds from 0 to 600"),
        (["--seed", "3", "--max-nodes", "0"], "--max-nodes must be a number of positions from 1"),
        (["--seed", "3", "--max-nodes", "-5"], "--max-nodes must be a number of positions from 1"),
        (["--seed", "3", "--max-nodes", "10**9"], "--max-nodes must be a number of positions"),
        (["--seed", "3", "--max-nodes", "99999999"], "to 500,000, not '99999999'"),
    ],
)
def test_bad_numbers_are_refused_in_one_line_with_exit_code_2(capsys, arguments, message):
    assert cli.main(["solve", *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("leafpile solve: ") and message in captured.err
    assert captured.err.count("\n") == 1  # one line, no usage text
