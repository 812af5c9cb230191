"""The multiplayer Leaf score sheet through the test client (L1-L5)."""

import re

import pytest


def text(response) -> str:
    html = response.get_data(as_text=True)
    plain = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    return plain.replace("&#39;", "'").replace("&#34;", '"')


def notices(response) -> list[str]:
    found = re.findall(r'notice-\w+"[^>]*>(.*?)</p>', response.get_data(as_text=True), re.S)
    return [f.replace("&#39;", "'").replace("&#34;", '"') for f in found]


@pytest.fixture
def sheet(make_table):
    return make_table("leaf", ["Hera", "Cleo"])


HERA = {
    "player": "Hera",
    "den_raven": "2",
    "den_fox": "4",
    "den_owl": "1",
    "groups": "2 4",
    "tree": "3",
    "sun": "2",
    "leaf_cards": "3",
    "acorns": "8",
    "minus_three": "1",
}


def test_example_13_entered_on_the_sheet_gives_hera_33_with_a_breakdown(phone, sheet):
    r = phone.act(sheet, "tally", **HERA)
    assert r.status_code == 200
    assert "Still to count: Cleo" in text(r)
    r = phone.act(sheet, "tally", player="Cleo", tree="5", acorns="20")
    body = text(r)
    assert "Hera wins by 7 acorns, with 33." in text(r)  # the end screen's headline
    assert notices(r) == []  # and no second win box under it
    # the breakdown table: Winter Den 11, mushrooms 3 + 9, leftovers 2, tree 3, "-3" token
    assert "Winter Den animals 11 0" in body
    assert "Adult mushroom groups 12 0" in body
    assert "Sun + leaf cards ÷ 2 2 0" in body
    assert "Tree 3 6" in body
    assert '"-3" tokens −3 0' in body
    assert "Total 33 26" in body


def test_a_tie_on_acorns_goes_to_leaf_cards_and_sun_then_is_shared_L5(phone, make_table):
    table = make_table("leaf", ["Ana", "Ben", "Cleo"])
    phone.act(table, "tally", player="Ana", acorns="10", sun="1")
    phone.act(table, "tally", player="Ben", acorns="10")
    r = phone.act(table, "tally", player="Cleo", acorns="9")
    assert "Ana wins on the tie-break, level at 10 acorns." in text(r)
    assert "the leaf cards and sun decided it (L5)" in text(r)
    r = phone.act(table, "tally", player="Ben", acorns="10", leaf_cards="1")
    assert "Ana and Ben share the win with 10 acorns." in text(r)
    assert "Ana and Ben share the win: same acorns, same leaf cards and sun." in text(r)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"player": "Hera", "den_fox": "7"}, "Hera's foxes cannot be 7: at most 6."),
        ({"player": "Hera", "groups": "3 zero"}, "'zero' is not a group size"),
        ({"player": "Hera", "groups": "8 8"}, "only 15 mushrooms"),
        ({"player": "Hera", "sun": "-1"}, "is not a whole number"),
        ({"player": "Zed"}, "There is no player called 'Zed'"),
    ],
)
def test_bad_counts_answer_422_with_the_reason_and_keep_the_typing(
    phone, store, sheet, fields, message
):
    r = phone.act(sheet, "tally", **fields)
    assert r.status_code == 422
    assert message in " ".join(notices(r))
    assert store.version(sheet.token) == 0
    if "groups" in fields:
        assert f'value="{fields["groups"]}"' in r.get_data(as_text=True)


def test_an_entered_count_can_be_corrected_and_the_form_shows_it(phone, store, sheet):
    phone.act(sheet, "tally", **HERA)
    r = phone.act(sheet, "tally", **{**HERA, "acorns": "9"})
    assert r.status_code == 200
    assert store.snapshot(sheet.token).state.tally("Hera").acorn_tokens == 9
    page = phone.get(f"/t/{sheet.token}").get_data(as_text=True)
    assert 'value="2 4"' in page and "Correct Hera's count" in page.replace("&#39;", "'")


def test_the_sheet_works_without_javascript_full_page_post(phone, sheet):
    r = phone.post(f"/t/{sheet.token}/act", {"action": "tally", "version": "0", **HERA}, htmx=False)
    assert r.status_code == 303
    assert "Hera · counted ✓" in text(phone.get(f"/t/{sheet.token}"))


def test_home_lists_the_sheet_with_its_summary(phone, sheet):
    phone.act(sheet, "tally", **HERA)
    phone.get(f"/t/{sheet.token}")  # the start page lists the tables this browser opened
    assert "Still to count: Cleo" in text(phone.get("/"))


def test_a_seventh_fox_across_the_dens_is_refused_with_who_holds_them_lx2(
    phone, store, make_table, error_message
):
    table = make_table("leaf", ["Ana", "Ben", "Cleo"])
    phone.act(table, "tally", player="Ana", den_fox="3")
    phone.act(table, "tally", player="Ben", den_fox="2")
    version = store.version(table.token)
    r = phone.act(table, "tally", player="Cleo", den_fox="2")
    assert r.status_code == 422
    assert error_message(r) == (
        "There are only 6 foxes in the animal deck, but these counts hold 7 "
        "(Ana 3, Ben 2, Cleo 2). This tap was not entered."
    )
    assert store.version(table.token) == version
