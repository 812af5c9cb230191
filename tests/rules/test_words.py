"""Words for players (issue 20, item 5): no ruling ids, agreeing articles, full stops."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

from companion.web.words import for_players, with_article, without_ids

IDS = re.compile(r"\((?:[A-Z]{1,3}\d{1,2}[-–, ]*)+\)")


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("the drone at A3 blocks it head on (X9)", "The drone at A3 blocks it head on."),
        ("not the fox (N12)", "Not the fox."),
        ("grows a baby (N6, N7, N10)", "Grows a baby."),
        ("Beginner's rules (X5-X14)", "Beginner's rules."),
        ("level: the tie-break decided it (L5).", "Level: the tie-break decided it."),
        ("a seat of its own (LT2) and more", "A seat of its own and more."),
        # Squares are not ids: the corners stay.
        ("a corner (A1, E1, A6, E6), not C3 (X6)", "A corner (A1, E1, A6, E6), not C3."),
        # Articles agree.
        ("a orange drone", "An orange drone."),
        ("A orange drone moves", "An orange drone moves."),
        ("a yellow queen", "A yellow queen."),
        ("Ana hit a 8, Ben a 11, Cleo an 7", "Ana hit an 8, Ben an 11, Cleo a 7."),
        ("a one-card hand", "A one-card hand."),
        # Every sentence ends.
        ("no more mushroom reactions", "No more mushroom reactions."),
        ("what now?", "What now?"),
        ("it says \u201cgo.\u201d", "It says \u201cgo.\u201d"),
        ("Choose:", "Choose:"),
        ("", ""),
    ],
)  # fmt: skip
def test_messages_for_players_read_as_sentences_without_ids(said, shown):
    assert for_players(said) == shown


@given(st.text(alphabet="aAnN oe8X1(),.-:?ABCDE6", max_size=40))
def test_for_players_is_idempotent(text):
    once = for_players(text)
    assert for_players(once) == once


def test_markup_stays_markup():
    shown = for_players(Markup("<b>a orange</b> drone (X9)"))
    assert isinstance(shown, Markup) and shown == Markup("<b>an orange</b> drone.")


def test_a_refusal_has_no_ruling_id_and_a_full_stop_before_this_tap_was_not_entered(
    phone, store, make_table, error_message
):
    table = make_table("north_wind", ["Ana"], {"difficulty": "hard"})
    phone.act(table, "setup", a1="fox", a2="fox", a3="owl")
    phone.act(table, "human-season", crossed="frost")
    version = store.version(table.token)
    response = phone.act(table, "hibernate", animal="owl")  # N12: the foxes go, not the owl
    assert response.status_code == 422
    assert error_message(response) == (
        "The North Wind hibernates its largest group (fox), not the owl. This tap was not entered."
    )
    assert store.version(table.token) == version
    # The history's detail and the rules library keep the id.
    with pytest.raises(ValueError, match=r"not the owl \(N12\)"):
        store.act(table.token, version, {"type": "Hibernate", "animal": "owl", "mat": []})


def test_labels_get_an_agreeing_article_and_no_id():
    assert with_article("orange drone") == "an orange drone"
    assert with_article("yellow queen") == "a yellow queen"
    assert without_ids("a capping piece becomes a pawn (X10)") == "a capping piece becomes a pawn"
