"""The North Wind solo screen through the test client: forms → actions → instructions."""

import re

import pytest

from companion.rules import north_wind as nw

MAT = {"m1": "owl", "m2": "fox", "m3": "", "m4": "frog", "m4_acorn": "1", "m5": ""}


def text(response) -> str:
    html = response.get_data(as_text=True)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'")


def notices(response) -> list[str]:
    return re.findall(r'notice-\w+"[^>]*>(.*?)</p>', response.get_data(as_text=True), re.S)


@pytest.fixture
def solo(make_table):
    return make_table("north_wind", ["Ana"], {"difficulty": "normal"})


def play(phone, table, *steps):
    response = None
    for action, fields in steps:
        response = phone.act(table, action, **fields)
        assert response.status_code == 200, (action, notices(response))
    return response


START = (("setup", {"a1": "fox", "a2": "owl"}), ("end-turn", {}))


def test_new_solo_table_takes_a_difficulty_and_shows_setup(phone, store):
    response = phone.post("/new/north_wind", {"player1": "Ana", "difficulty": "hard"}, htmx=False)
    assert response.status_code == 303
    table = store.tables(game="north_wind")[0]
    page = phone.get(f"/t/{table.token}")
    assert "Give the North Wind 2 sun and draw 3 random animal cards" in text(page)


def test_new_solo_table_refuses_an_unknown_difficulty(phone, store):
    response = phone.post("/new/north_wind", {"player1": "Ana", "difficulty": "brutal"}, htmx=False)
    assert response.status_code == 422
    assert "Choose easy, normal or hard" in text(response)
    assert store.tables(game="north_wind") == []


def test_a_drawn_card_says_which_leaf_to_take_and_an_empty_pile_says_draw_again(phone, solo):
    play(phone, solo, *START, ("pile", {"leaf": "ginkgo"}))
    r = play(phone, solo, ("draw", {"leaf": "ginkgo", "colour": "red", "arrow": "top-left"}))
    assert "the ginkgo pile is empty, draw again" in text(r)
    r = play(phone, solo, ("draw", {"leaf": "sweetgum", "colour": "red", "arrow": "top-left"}))
    assert "Take the top sweetgum leaf" in text(r)


def test_the_reshuffle_card_resets_the_deck(phone, solo):
    play(phone, solo, *START, ("draw", {"leaf": "ginkgo", "colour": "red", "arrow": "top-left"}))
    phone.post(f"/t/{solo.token}/undo", {"version": str(phone.store.version(solo.token))})
    r = play(phone, solo, ("reshuffle", {}))
    assert "13 of 13 cards left" in text(r)


def test_undo_of_a_draw_and_redo_bring_back_the_same_card(phone, store, solo):
    play(
        phone,
        solo,
        *START,
        ("draw", {"leaf": "sassafras", "colour": "orange", "arrow": "bottom-right"}),
    )
    phone.post(f"/t/{solo.token}/undo", {"version": str(store.version(solo.token))})
    assert store.snapshot(solo.token).state.phase == "draw"
    phone.post(f"/t/{solo.token}/redo", {"version": str(store.version(solo.token))})
    assert store.snapshot(solo.token).state.card == nw.Card("sassafras", "orange", "bottom-right")


def test_compare_form_names_the_best_spot_or_lets_the_human_choose_N3(phone, solo):
    play(phone, solo, *START, ("draw", {"leaf": "sweetgum", "colour": "red", "arrow": "top-left"}))
    base = f"/t/{solo.token}/board?compare=1"
    # example 16: spots 1, 2, 3 → the North Wind takes spot 3
    r = phone.get(
        base + "&c0_red=2&c0_green=1&c1_red=2&c1_yellow=2&c1_human=1"
        "&c2_red=2&c2_yellow=1&c2_orange=1",
        htmx=True,
    )
    assert "The North Wind takes spot 3." in notices(r)
    assert (
        'name="tips_red" type="number" min="0" max="12" inputmode="numeric"\n'
        '               value="2"' in r.get_data(as_text=True)
    )
    r = phone.get(base + "&c0_red=1&c0_green=1&c1_red=1&c1_green=1", htmx=True)
    assert "Spots 1 and 2 tie on every rule: you choose." in notices(r)
    r = phone.get(base + "&c0_red=1", htmx=True)
    assert "Fill in at least two placements to compare." in notices(r)
    r = phone.get(base + "&c0_red=x&c1_red=1", htmx=True)
    assert r.status_code == 200 and "is not a whole number" in notices(r)[0]


def test_a_full_north_wind_turn_gives_exact_instructions_N4_to_N11(phone, store, solo):
    play(
        phone,
        solo,
        *START,
        ("draw", {"leaf": "tulip-poplar", "colour": "orange", "arrow": "bottom-right"}),
    )
    r = play(phone, solo, ("place", {"tips_red": "1", "tips_orange": "1", "tips_yellow": "1"}))
    body = text(r)
    assert "Leaf boost: it touches only 3 tips" in body  # N4
    assert "grow one North Wind baby to an adult instead" in body  # boosted: additional red
    r = play(phone, solo, ("red", {"outcome": "grow"}))
    assert "Enter the mat as it is now" in text(r)
    r = play(phone, solo, ("orange", MAT))
    assert "the North Wind takes the fox from space 2" in text(r)  # N8: bottom-right tie
    r = play(phone, solo, ("done", {}))
    assert "The North Wind's turn is over; Ana plays." in text(r)  # N11: only 2 sun
    state = store.snapshot(solo.token).state
    assert (state.sun, state.adults, state.forest_counts) == (2, 1, {"fox": 2, "owl": 1})


def test_orange_with_nothing_wanted_asks_for_the_deck_card_and_keeps_the_mat(
    phone, store, make_table
):
    table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
    play(
        phone,
        table,
        ("end-turn", {}),
        ("draw", {"leaf": "ginkgo", "colour": "orange", "arrow": "top-left"}),
        ("place", {"tips_orange": "2", "tips_green": "2"}),
    )
    version = store.version(table.token)
    mat = {"m1": "owl", "m2": "fox", "m3": "", "m4": "", "m5": ""}
    r = phone.act(table, "orange", **mat)
    assert r.status_code == 200  # the normal N8 step, not a refusal
    assert "takes the top card of the animal deck: draw it and enter it below" in notices(r)[0]
    assert 'class="notice notice-info"' in r.get_data(as_text=True)
    assert "notice-error" not in r.get_data(as_text=True)
    assert store.version(table.token) == version
    assert '<option value="owl" selected>' in r.get_data(as_text=True)  # the mat stays
    r = play(phone, table, ("orange", {**mat, "drawn": "raven", "drawn_acorn": "1"}))
    assert "takes the raven from the top of the animal deck and 1 acorn" in text(r)


def test_brown_season_and_frost_flow_N9_N11_N12(phone, store, make_table):
    table = make_table("north_wind", ["Ana"], {"difficulty": "hard"})
    play(
        phone,
        table,
        ("setup", {"a1": "fox", "a2": "owl", "a3": "owl"}),
        ("end-turn", {}),
        ("draw", {"leaf": "ginkgo", "colour": "brown", "arrow": "top-left"}),
        ("place", {"tips_brown": "1", "tips_yellow": "3"}),
    )
    r = play(phone, table, ("brown", {"move": "up", "fork": "1", "acorns": "1"}))
    assert "at the fork it takes the left path" in text(r)
    play(phone, table, ("done", {}), ("done", {}))
    r = play(phone, table, ("done", {}))
    assert "The North Wind has 5 sun" in text(r)
    r = play(phone, table, ("season", {"crossed": "frost", "acorns": "2"}))
    assert "Move the North Wind's 2 owls to its Winter Den." in text(r)
    r = play(phone, table, ("hibernate", {"animal": "owl"}))
    state = store.snapshot(table.token).state
    assert state.den_counts == {"owl": 2} and state.phase == "human" and state.acorns == 3


def test_a_frost_tie_needs_the_mat_and_refuses_the_wrong_type_N12(phone, store, solo):
    play(phone, solo, ("setup", {"a1": "fox", "a2": "owl"}), ("human-season", {"crossed": "frost"}))
    r = phone.get(f"/t/{solo.token}")
    assert "Its largest groups tie (fox, owl, 1 each)" in text(r)
    mat = {"m1": "fox", "m2": "", "m3": "", "m4": "", "m5": ""}
    r = phone.act(solo, "hibernate", animal="fox", **mat)
    assert r.status_code == 422 and "(owl), not the fox" in notices(r)[0]
    play(phone, solo, ("hibernate", {"animal": "owl", **mat}))
    assert phone.store.snapshot(solo.token).state.den_counts == {"owl": 1}


@pytest.mark.parametrize(
    ("action", "fields", "message"),
    [
        ("draw", {"leaf": "sweetgum", "arrow": "top-left"}, "Choose the card's action colour."),
        ("draw", {"leaf": "oak", "colour": "red", "arrow": "top-left"}, "Choose the leaf shape"),
        ("done", {}, "Cannot finish a yellow or green action now: it is Ana's turn"),
        ("reaction", {"sun": "2"}, "only 0 mushrooms on the board"),
        ("reaction", {"sun": "two"}, "is not a whole number"),
        ("nonsense", {}, "That button does nothing here"),
    ],
)
def test_bad_input_shows_a_message_with_status_422_and_changes_nothing(
    phone, store, solo, action, fields, message
):
    play(phone, solo, START[0])
    version = store.version(solo.token)
    r = phone.act(solo, action, **fields)
    assert r.status_code == 422
    assert message in " ".join(notices(r)).replace("&#39;", "'")
    assert store.version(solo.token) == version


def finish(phone, table):
    """Empty three piles, play one short North Wind turn, pass the last Frost."""
    play(
        phone,
        table,
        *[("pile", {"leaf": x}) for x in ("ginkgo", "sweetgum", "sassafras")],
        ("end-turn", {}),
        ("draw", {"leaf": "tulip-poplar", "colour": "green", "arrow": "top-left"}),
        ("place", {"tips_green": "2"}),
        ("done", {}),
        ("done", {}),
    )


def test_final_scoring_shows_both_breakdowns_and_the_forest_bonus_N13(phone, store, solo):
    play(phone, solo, ("setup", {"a1": "fox", "a2": "owl"}))
    finish(phone, solo)
    r = phone.get(f"/t/{solo.token}")
    assert "The last Frost" in text(r)
    play(
        phone,
        solo,
        ("hibernate", {"animal": "fox", "m1": "owl", "m2": "", "m3": "", "m4": "", "m5": ""}),
    )
    r = phone.act(solo, "final", h_groups="3 x")
    assert r.status_code == 422 and "'x' is not a group size" in text(r)
    assert 'value="3 x"' in r.get_data(as_text=True)  # the typed count stays
    r = play(phone, solo, ("final", {"h_acorns": "20", "h_tree": "2", "h_den_raven": "2"}))
    body = text(r)
    assert "Ana beat the North Wind by 25 acorns, 29 to 4." in body  # the end screen, once
    assert "You beat the North Wind" not in body
    assert "Forest bonus" in body  # N13: 1 owl in its Forest against none of yours


def test_a_win_ticks_achievements_that_show_on_their_own_page_N14(phone, store, make_table):
    for name in ("First", "Second"):
        table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
        phone.get(f"/t/{table.token}")  # this phone's table: its achievements (issue 23)
        finish(phone, table)
        play(
            phone,
            table,
            ("hibernate", {"animal": ""}),
            ("final", {"h_acorns": "30", "h_sun": "6", "h_groups": "3 3"}),
        )
        r = play(
            phone,
            table,
            (
                "achieve",
                {
                    "ach_0": "",
                    "ach_1": "",
                    "ach_2": "sun-5",
                    "ach_3": "two-threes" if name == "First" else "",
                },
            ),
        )
        assert "Ticked for this win" in text(r)
    page = text(phone.get("/achievements"))
    assert "2 of 22 filled · 2 wins in 2 solo games" in page
    assert "2× · last:" in page


def test_achievements_refuse_two_from_one_group_and_one_the_count_contradicts(
    phone, store, make_table
):
    table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
    finish(phone, table)
    play(phone, table, ("hibernate", {"animal": ""}), ("final", {"h_acorns": "30"}))
    r = phone.act(table, "achieve", ach_2="sun-5")
    assert r.status_code == 422 and "does not show" in text(r)
    assert 'value="sun-5" disabled' in r.get_data(as_text=True)


def test_a_refused_tick_keeps_the_other_ticks(phone, store, make_table):
    """Issue 43: a refusal used to clear every tick, making the player start over."""
    table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
    finish(phone, table)
    play(phone, table, ("hibernate", {"animal": ""}), ("final", {"h_acorns": "30"}))
    r = phone.act(table, "achieve", ach_0="eight-kinds", ach_2="sun-5")
    assert r.status_code == 422 and "does not show" in text(r)
    body = r.get_data(as_text=True)
    assert 'value="eight-kinds" checked' in body
    assert 'name="ach_0" value="" checked' not in body
    assert 'name="ach_1" value="" checked' in body  # untouched groups stay at none


def test_spectators_see_the_north_wind_but_get_no_forms(phone, store, solo):
    play(phone, solo, *START)
    r = phone.get(f"/v/{solo.view_token}")
    assert r.status_code == 200
    assert "Turn over the top North Wind card" in text(r)
    assert 'name="action" value="draw"' not in r.get_data(as_text=True)


@pytest.mark.parametrize(
    "extra", [(), (("draw", {"leaf": "ginkgo", "colour": "red", "arrow": "top-left"}),)]
)
def test_the_spectator_page_never_carries_the_tables_edit_token(phone, solo, extra):
    play(phone, solo, *START, *extra)
    body = phone.get(f"/v/{solo.view_token}").get_data(as_text=True)
    assert solo.token not in body


def test_history_describes_north_wind_actions_in_words(phone, solo):
    play(
        phone,
        solo,
        *START,
        ("draw", {"leaf": "silver-maple", "colour": "yellow", "arrow": "top-left"}),
    )
    body = text(phone.get(f"/t/{solo.token}/history"))
    assert "Drew silver maple, yellow, top-left" in body
    assert "North Wind starts with fox, owl" in body


# every action that reads fields (end-turn, reshuffle and done read none)
ACTION_NAMES = (
    "setup",
    "human-season",
    "reaction",
    "pile",
    "draw",
    "place",
    "red",
    "orange",
    "brown",
    "season",
    "hibernate",
    "final",
    "achieve",
    "",
)
JUNK = {
    "a1": "dragon",
    "a2": "",
    "crossed": "maybe",
    "sun": "999999",
    "leaf": "oak",
    "colour": "purple",
    "arrow": "sideways",
    "tips_red": "-1",
    "tips_green": "99",
    "outcome": "explode",
    "m1": "cat",
    "m1_acorn": "yes",
    "drawn": "<b>",
    "move": "down",
    "acorns": "1e3",
    "animal": "unicorn",
    "h_groups": "0 0",
    "h_tree": "x",
    "nw_groups": "99",
    "ach_0": "nope",
    "ach_1": "den-5",
}


@pytest.mark.parametrize(
    "steps",
    [
        (),
        START,
        (*START, ("draw", {"leaf": "ginkgo", "colour": "orange", "arrow": "top-left"})),
        (
            *START,
            ("draw", {"leaf": "ginkgo", "colour": "orange", "arrow": "top-left"}),
            ("place", {"tips_orange": "1", "tips_brown": "1", "tips_red": "1", "tips_yellow": "1"}),
        ),
    ],
    ids=["setup", "draw", "place", "act"],
)
def test_junk_in_any_form_of_any_phase_is_a_422_never_a_500(phone, store, solo, steps):
    play(phone, solo, *steps)
    version = store.version(solo.token)
    for name in ACTION_NAMES:
        response = phone.act(solo, name, **JUNK)
        assert response.status_code == 422, name
        assert notices(response), name
    assert store.version(solo.token) == version


def test_achievements_page_is_empty_but_friendly_before_any_solo_game(phone):
    page = text(phone.get("/achievements"))
    assert "0 of 22 filled · 0 wins in 0 solo games played in this browser." in page
    assert "Six animals of one kind in your Winter Den" in page


def test_compare_and_draw_work_without_javascript(phone, store, solo):
    play(phone, solo, *START)
    r = phone.post(
        f"/t/{solo.token}/act",
        {
            "action": "draw",
            "version": "2",
            "leaf": "ginkgo",
            "colour": "yellow",
            "arrow": "top-left",
        },
        htmx=False,
    )
    assert r.status_code == 303
    page = phone.get(f"/t/{solo.token}?compare=1&c0_yellow=1&c0_red=1&c1_yellow=2")
    assert page.status_code == 200
    assert "The North Wind takes spot 2." in notices(page)


def test_the_frost_tie_says_the_north_wind_hibernates_the_type_n12(phone, store, make_table):
    table = make_table("north_wind", ["Ana"], {"difficulty": "normal"})
    play(phone, table, ("setup", {"a1": "fox", "a2": "owl"}))
    play(phone, table, ("human-season", {"crossed": "frost"}))
    page = text(phone.get(f"/t/{table.token}"))
    assert "it hibernates the type with the fewest on the animal mat" in page
    assert "keeps the type" not in page
