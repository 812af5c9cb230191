"""`leafpile solve`: one JSON object per deal."""

from __future__ import annotations

import json

import pytest

from companion import cli
from companion.rules import actions, solitaire


def test_solve_prints_one_json_object_with_a_winning_line(capsys):
    assert cli.main(["solve", "--seed", "14", "--budget", "5"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert set(answer) == {"seed", "result", "moves", "seconds"}
    assert answer["seed"] == 14 and answer["result"] == "won"
    moves = [actions.from_dict(m, solitaire.ACTIONS) for m in answer["moves"]]
    assert solitaire.replay(solitaire.new_game(14), moves).won
    assert isinstance(answer["seconds"], float)


def test_solve_says_unknown_when_the_budget_is_too_small(capsys):
    assert cli.main(["solve", "--seed", "0", "--budget", "0"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["result"], answer["moves"]) == ("unknown", [])


def test_solve_needs_a_whole_seed(capsys):
    with pytest.raises(SystemExit):
        cli.main(["solve", "--seed", "seven"])
    assert "invalid int value: 'seven'" in capsys.readouterr().err
