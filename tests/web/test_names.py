"""Score table heads tell players apart (issue 43): names.short_names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.web.names import short_names

CASES = [
    # the three: one cut, two whole (nothing shorter tells them apart)
    (["Anna", "Anne", "Andrew"], ["Anna", "Anne", "And"]),
    (["Ana", "Ben", "Cleo", "Dev", "Eve", "Finn"], ["Ana", "Ben", "Cle", "Dev", "Eve", "Fin"]),
    # a name that begins another stays whole; the longer one shows where it differs
    (["Ann", "Anna", "Annabel"], ["Ann", "Anna", "Annab"]),
    (["Christopher", "Christina", "Chris"], ["Christo", "Christi", "Chris"]),
    # case does not tell names apart on a glance
    (["anna", "Annabel"], ["anna", "Annab"]),
    # a head never ends in a space ("Jo " reads as "Jo")
    (["Jo Ann", "Jo Bob", "Joe"], ["Jo A", "Jo B", "Joe"]),
    # an accent stays with its letter, written either way
    (["Zoe\u0301 Martin", "Zoe\u0301 Moss"], ["Zoe\u0301 Ma", "Zoe\u0301 Mo"]),
    (["Élodie", "Élise"], ["Élo", "Éli"]),
    (["李小龍", "李小明"], ["李小龍", "李小明"]),
    (["Al", "Bo"], ["Al", "Bo"]),
]


@pytest.mark.parametrize(("players", "heads"), CASES)
def test_each_head_is_the_shortest_beginning_no_other_name_shares(players, heads):
    assert [short_names(players)[p] for p in players] == heads


@given(st.lists(st.text(min_size=1, max_size=12).map(str.strip).filter(bool), min_size=1,
                max_size=12, unique_by=lambda name: name.casefold()))  # fmt: skip
def test_no_two_players_ever_read_the_same(players):
    short = short_names(players)
    heads = [short[p].casefold() for p in players]
    assert len(set(heads)) == len(players)
    for player in players:
        assert player.startswith(short[player]) or short[player] == player
