"""The tree through the web forms (issue 44): a squirrel the tree cannot hold
is refused with a reason a player can read, and nothing is entered (LX3,
N9, NX5). The rules are pinned in test_leaf_rules.py and
test_north_wind_rules.py; this checks the words reach the phone."""

import re

import pytest


def notices(response) -> list[str]:
    found = re.findall(r'notice-\w+"[^>]*>(.*?)</p>', response.get_data(as_text=True), re.S)
    return [re.sub(r"\s+", " ", f).replace("&#39;", "'").replace("&#34;", '"') for f in found]


@pytest.mark.parametrize("climbed", ["16", "40"])
def test_the_score_sheet_refuses_a_squirrel_past_the_tree_and_says_why_LX3(
    phone, store, make_table, climbed
):
    sheet = make_table("leaf", ["Hera", "Cleo"])
    r = phone.act(sheet, "tally", player="Hera", tree=climbed, acorns="8")
    assert r.status_code == 422
    said = " ".join(notices(r))
    assert f"cannot have climbed {climbed} spaces: no path up the tree is longer than 15" in said
    assert "LX3" not in said  # ids are for the docs, not for players
    assert store.version(sheet.token) == 0


def test_the_north_wind_found_on_the_top_cannot_move_up_and_is_told_what_to_tap_N9_NX5(
    phone, store, make_table
):
    table = make_table("north_wind", ["Ana"], {"difficulty": "hard"})
    for action, fields in (
        ("setup", {"a1": "fox", "a2": "owl", "a3": "owl"}),
        ("end-turn", {}),
        ("draw", {"leaf": "ginkgo", "colour": "brown", "arrow": "top-left"}),
        ("place", {"tips_brown": "3"}),
        ("brown", {"move": "up", "acorns": "1"}),
        ("brown", {"move": "top"}),
    ):
        assert phone.act(table, action, **fields).status_code == 200, action
    state = store.snapshot(table.token).state
    assert (state.height, state.at_top) == (1, True)
    version = store.version(table.token)
    r = phone.act(table, "brown", move="up")
    assert r.status_code == 422
    said = " ".join(notices(r))
    assert "already on the top space of the tree (1 space up), so it cannot move up" in said
    assert '"Already on the top space"' in said and "NX5" not in said
    assert store.version(table.token) == version
    assert phone.act(table, "brown", move="top").status_code == 200  # what the tree allows
