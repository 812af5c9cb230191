"""The solitaire screen through the test client: moves, deals, undo, hints,
the "winnable?" check, new and replayed deals, statistics."""

from __future__ import annotations

import re

import pytest

from companion.rules import actions, solitaire, solitaire_deals
from companion.rules.solitaire_solver import solve

DEAL = 20  # a deal the solver wins in a few hundred positions


@pytest.fixture(scope="module")
def winning_line():
    found = solve(solitaire.new_game(DEAL), budget=10, max_nodes=20_000)
    assert found.result == "won"
    return [actions.to_dict(m) for m in found.moves]


@pytest.fixture
def game(make_table):
    return make_table("solitaire", ["Solo"], {"deal": DEAL})


def play(store, table, moves):
    version = store.version(table.token)
    for move in moves:
        store.act(table.token, version, move)
        version += 1


def pick_and_target(move):
    return {"pick": f"{move['source']}:{move['count']}", "target": str(move["target"])}


def test_new_deal_by_number_starts_a_table_with_that_deal(phone, store):
    response = phone.post("/solitaire/new", {"deal": "1234", "name": "Ana"}, htmx=False)
    assert response.status_code == 303
    table = store.tables(game="solitaire")[0]
    assert table.options == {"deal": 1234} and table.players == ("Ana",)
    assert store.snapshot(table.token).state == solitaire.new_game(1234)


def test_an_empty_deal_number_picks_a_random_deal(phone, store):
    assert phone.post("/solitaire/new", {"deal": ""}, htmx=False).status_code == 303
    deal = store.tables(game="solitaire")[0].options["deal"]
    assert isinstance(deal, int) and deal >= 0


@pytest.mark.parametrize("deal", ["-1", "seven", "1234567890", "٣"])
def test_a_bad_deal_number_is_refused_with_422(phone, store, error_message, deal):
    response = phone.post("/solitaire/new", {"deal": deal}, htmx=False)
    assert response.status_code == 422
    assert "is not a whole number from 0 to 999999999" in error_message(response)
    assert store.tables(game="solitaire") == []


def test_the_board_shows_the_layout_but_never_the_face_down_cards(phone, game):
    html = phone.get(f"/t/{game.token}").get_data(as_text=True)
    state = solitaire.new_game(DEAL)
    assert f"Deal #{DEAL}" in html and "Deal (5 left)" in html and "16 face down" in html
    assert html.count('class="sol-card sol-back"') == 16
    for i, pile in enumerate(state.piles):
        top = solitaire.card_label(pile[-1])
        assert f'value="{i}:1"' in html and top in html
        for hidden in pile[:-1]:
            assert solitaire.card_words(hidden) not in html


def test_a_card_no_pile_would_take_now_is_drawn_narrower(phone, game):
    """A card that can be picked but that no pile would take now is marked
    ``sol-idle``: solitaire.css shows 28 px of it rather than a thumb's 44 px,
    so that a long pile keeps its top above a phone's fold."""
    html = phone.get(f"/t/{game.token}").get_data(as_text=True)
    state = solitaire.new_game(DEAL)
    idle = []
    for i in range(state.layout.piles):
        found = re.search(rf'<label class="([^"]*)"[^>]*data-pick="{i}:1"', html)
        assert found is not None
        idle.append("sol-idle" in found.group(1).split())
        assert idle[-1] == (not state.pile_view(i)[-1].goes)
    assert True in idle and False in idle  # the start of deal 20 has both


def test_the_status_and_how_to_make_room_for_the_piles(phone, game, store, winning_line):
    """The deals left are said on the Deal button only (the status keeps to
    one line), and after the first move the how-to goes below the piles; a
    spectator, with no Deal button, still reads the deals left."""
    html = phone.get(f"/t/{game.token}").get_data(as_text=True)
    assert "deals left" not in html and "Deal (5 left)" in html
    assert html.index("sol-how") < html.index("sol-piles")
    play(store, game, winning_line[:1])
    html = phone.get(f"/t/{game.token}").get_data(as_text=True)
    assert html.index("sol-piles") < html.index("sol-how")
    spectator = phone.get(f"/v/{game.view_token}").get_data(as_text=True)
    assert re.search(r"\d deals? left", spectator)


def test_a_move_is_a_pick_and_a_target(phone, game, store, winning_line):
    first = winning_line[0]
    response = phone.act(game, "move", **pick_and_target(first))
    assert response.status_code == 200
    assert store.snapshot(game.token).actions == (first,)
    assert "Moved a card from pile" in response.get_data(as_text=True)


def test_the_page_works_without_javascript(phone, game, store, winning_line):
    response = phone.post(
        f"/t/{game.token}/act",
        {"action": "move", "version": "0", **pick_and_target(winning_line[0])},
        htmx=False,
    )
    assert response.status_code == 303
    assert store.version(game.token) == 1


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({}, "Tap a card first"),
        ({"pick": "0:1"}, "Now tap the pile"),
        ({"pick": "0:1", "target": "9"}, "There is no pile 10"),
        ({"pick": "x:1", "target": "1"}, "is not a pile"),
        ({"pick": "0:2", "target": "1"}, "Pile 1 has only 1 face-up card"),
        ({"pick": "0:1", "target": "0"}, "Pile 1 is already where the cards are"),
    ],
)
def test_bad_moves_show_why_with_422_and_change_nothing(phone, game, store, error_message,
                                                       fields, words):  # fmt: skip
    response = phone.act(game, "move", **fields)
    assert response.status_code == 422
    assert words in error_message(response)
    assert store.version(game.token) == 0


def test_a_card_onto_another_suit_is_refused_in_words(phone, make_table, store, error_message):
    table = make_table("solitaire", ["Solo"], {"deal": DEAL})
    state = store.snapshot(table.token).state
    tops = [p[-1] for p in state.piles]
    s, t = next(
        (s, t) for s in range(6) for t in range(6)
        if s != t and solitaire.suit_of(tops[s]) != solitaire.suit_of(tops[t])
    )  # fmt: skip
    response = phone.act(table, "move", pick=f"{s}:1", target=str(t))
    assert response.status_code == 422
    assert "cards go only onto their own suit" in error_message(response)


def test_deal_button_deals_six_and_counts_down_to_none(phone, game, store, error_message):
    for left in (4, 3, 2, 1, 0):
        response = phone.act(game, "deal")
        assert response.status_code == 200
        assert f"Deal ({left} left)" in response.get_data(as_text=True)
    assert [len(p) for p in store.snapshot(game.token).state.piles] == [9, 9, 8, 8, 9, 9]
    response = phone.act(game, "deal")
    assert response.status_code == 422
    assert "No deals left" in error_message(response)


def test_undo_is_the_tables_undo(phone, game, store):
    phone.act(game, "deal")
    response = phone.post(f"/t/{game.token}/undo", {"version": str(store.version(game.token))})
    assert response.status_code == 200
    assert store.snapshot(game.token).state == solitaire.new_game(DEAL)


def test_hint_names_the_next_move_of_a_winning_line_and_preselects_it(phone, game, winning_line):
    response = phone.get(f"/t/{game.token}/solitaire/hint", htmx=True)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Hint: Move the" in html and "a winning line of" in html
    assert "with every card known (face down and in hand)" in html
    checked = re.search(r'name="pick" value="([^"]+)" class="visually-hidden" checked', html)
    assert checked is not None
    assert 'id="board"' in html and "<html" not in html  # the fragment for htmx


def test_hint_without_javascript_is_a_whole_page(phone, game):
    response = phone.get(f"/t/{game.token}/solitaire/hint")
    assert response.status_code == 200 and "<html" in response.get_data(as_text=True)


def test_winnable_check_answers_yes_for_a_winnable_deal(phone, game, store, winning_line):
    response = phone.get(f"/t/{game.token}/solitaire/check", htmx=True)
    yes = "Yes: with every card known (face down and in hand), "
    assert yes + "it can be won, in " in response.get_data(as_text=True)
    store.act(game.token, 0, winning_line[0])
    response = phone.get(f"/t/{game.token}/solitaire/check", htmx=True)
    assert yes + "it can be won from here, in " in response.get_data(as_text=True)


def test_winnable_check_also_judges_the_start_when_here_is_not_a_yes(
    phone, game, store, winning_line, monkeypatch
):
    from companion.rules import solitaire_solver
    from companion.web import solitaire_pages

    real_solve = solitaire_solver.solve
    calls = []

    def solve_unsure_from_here(state, budget=2.0, **kw):
        calls.append(state)
        if len(calls) == 1:
            return solitaire_solver.Solution("unknown", (), 0.1, 5)
        # The page's short budget is wall time, which a busy machine shrinks:
        # the node cap that wins this deal in the winning_line fixture instead.
        return real_solve(state, budget=10, max_nodes=20_000)

    monkeypatch.setattr(solitaire_pages.solitaire_solver, "solve", solve_unsure_from_here)
    monkeypatch.setattr(solitaire_pages, "KNOWN_WINS", solitaire_solver.KnownWins())
    store.act(game.token, 0, winning_line[0])
    html = phone.get(f"/t/{game.token}/solitaire/check", htmx=True).get_data(as_text=True)
    assert "Not decided: with every card known" in html
    assert "the solver found no win from here in 0.1 s (what a phone can wait)" in html
    assert "did not search every position, so this is neither a yes nor a no" in html
    assert f"Most deals can be won: {solitaire_pages.solver_odds()} of the deals tested" in html
    assert "From the start of the deal: Yes: with every card known" in html
    assert calls[1] == solitaire.new_game(DEAL)


@pytest.mark.parametrize(
    ("won", "tested", "said"),
    [(9_803, 10_000, "98.0 %"), (9_969, 10_000, "99.6 %"), (9_999, 10_000, "99.9 %"),
     (10, 10, "100.0 %"), (0, 0, "0.0 %"), (29, 100, "29.0 %"), (2, 3, "66.6 %")],
)  # fmt: skip
def test_the_share_won_never_rounds_up_to_every_deal(monkeypatch, won, tested, said):
    from companion.web import solitaire_pages

    table = solitaire_deals.DealTable({"easy": tuple(range(1, won + 1))}, (1, 2), tested)
    monkeypatch.setattr(solitaire_pages.solitaire_deals, "load", lambda: table)
    assert solitaire_pages.solver_odds() == said


def test_hint_and_winnable_agree_because_they_share_the_winning_lines_found(
    phone, game, store, winning_line, monkeypatch
):
    """Once "Winnable?" has said yes, a hint (there or further along the
    line) comes from that line, however slow the solver would be now."""
    from companion.rules import solitaire_solver
    from companion.web import solitaire_pages

    monkeypatch.setattr(solitaire_pages, "KNOWN_WINS", solitaire_solver.KnownWins())
    html = phone.get(f"/t/{game.token}/solitaire/check", htmx=True).get_data(as_text=True)
    assert "Yes: with every card known" in html
    line = solitaire_pages.KNOWN_WINS.line_from(solitaire.new_game(DEAL))
    assert line is not None

    def no_time_left(state, budget=2.0, **kw):
        return solitaire_solver.Solution("unknown", (), budget, 0)

    monkeypatch.setattr(solitaire_pages.solitaire_solver, "solve", no_time_left)
    play(store, game, [actions.to_dict(m) for m in line[:3]])
    html = phone.get(f"/t/{game.token}/solitaire/hint", htmx=True).get_data(as_text=True)
    assert f"a winning line of {len(line) - 3} moves starts with it" in html
    move = line[3]
    if isinstance(move, solitaire.Move):
        picked = f'name="pick" value="{move.source}:{move.count}" class="visually-hidden" checked'
        assert picked in html
    html = phone.get(f"/t/{game.token}/solitaire/check", htmx=True).get_data(as_text=True)
    assert f"it can be won from here, in {len(line) - 3} moves" in html


def test_a_deal_shipped_with_its_line_is_a_yes_and_a_hint_without_a_search(
    phone, make_table, store, monkeypatch
):
    """The deals the solver takes longest on ship with their winning line
    (solitaire_deals.winning_line): a phone's 1.5 s may not find it again,
    and a deal offered as one that can be won must not be "not decided"."""
    from companion.rules import solitaire_solver
    from companion.web import solitaire_pages

    seed = min(solitaire_deals._SHIPPED.text())
    line = solitaire_deals.winning_line(solitaire.new_game(seed))
    assert line is not None and seed in solitaire_deals.load().levels["hard"]
    searches = []

    def unsure(state, budget=2.0, **kw):
        searches.append(state)
        return solitaire_solver.Solution("unknown", (), budget, 0)

    monkeypatch.setattr(solitaire_pages.solitaire_solver, "solve", unsure)
    known = solitaire_solver.KnownWins(shipped=solitaire_deals.winning_line)
    monkeypatch.setattr(solitaire_pages, "KNOWN_WINS", known)
    table = make_table("solitaire", ["Solo"], {"deal": seed})
    html = phone.get(f"/t/{table.token}/solitaire/check", htmx=True).get_data(as_text=True)
    yes = "Yes: with every card known (face down and in hand), it can be won"
    assert f"{yes}, in {len(line)} moves" in html
    html = phone.get(f"/t/{table.token}/solitaire/hint", htmx=True).get_data(as_text=True)
    assert f"a winning line of {len(line)} moves starts with it" in html
    play(store, table, [actions.to_dict(m) for m in line[:2]])  # along the line: still known
    html = phone.get(f"/t/{table.token}/solitaire/check", htmx=True).get_data(as_text=True)
    assert f"it can be won from here, in {len(line) - 2} moves" in html
    assert searches == []
    version = str(store.version(table.token))
    assert phone.post(f"/t/{table.token}/undo", {"version": version}).status_code == 200
    off_the_line = next(
        move
        for move in solitaire.legal_moves(solitaire.apply(solitaire.new_game(seed), line[0]))
        if move != line[1]
    )
    store.act(table.token, store.version(table.token), actions.to_dict(off_the_line))
    html = phone.get(f"/t/{table.token}/solitaire/check", htmx=True).get_data(as_text=True)
    assert "Not decided" in html and len(searches) == 1  # from here: the solver's turn
    assert "From the start of the deal: Yes: with every card known" in html


def test_a_hint_without_a_win_says_it_is_a_guess_knowing_every_card(phone, game, monkeypatch):
    from companion.rules import solitaire_solver
    from companion.web import solitaire_pages

    def no_time_left(state, budget=2.0, **kw):
        return solitaire_solver.Solution("unknown", (), 1.5, 0)

    monkeypatch.setattr(solitaire_pages.solitaire_solver, "solve", no_time_left)
    monkeypatch.setattr(solitaire_pages, "KNOWN_WINS", solitaire_solver.KnownWins())
    html = phone.get(f"/t/{game.token}/solitaire/hint", htmx=True).get_data(as_text=True)
    assert "Hint: " in html
    assert "the solver, even with every card known (face down and in hand)," in html
    assert "found no win within 1.5 s, so this is its best guess" in html


def test_hint_and_check_are_only_for_solitaire_tables(phone, make_table):
    other = make_table("scorepad", ["Ana"], {})
    assert phone.get(f"/t/{other.token}/solitaire/hint").status_code == 404
    assert phone.get("/t/nonsense-token-of-no-table/solitaire/check").status_code == 404


def test_the_last_move_wins_and_the_board_says_so(phone, game, store, winning_line):
    play(store, game, winning_line[:-1])
    response = phone.act(game, "move", **pick_and_target(winning_line[-1]))
    html = response.get_data(as_text=True)
    moves = sum(1 for step in winning_line if step["type"] == "Move")  # deals are not moves
    assert f"Deal #{DEAL} is solved in {moves} moves." in html  # the end screen
    assert "You won deal" not in html
    assert 'value="move"' not in html
    assert store.snapshot(game.token).state.won


def test_statistics_count_played_won_and_streaks(phone, store, winning_line):
    def make_table(game, players, options):  # dealt on this phone: its own statistics
        response = phone.post("/solitaire/new", {"deal": str(options["deal"])}, htmx=False)
        return store.table(response.headers["Location"].rsplit("/", 1)[-1])

    won_first = make_table("solitaire", ["Solo"], {"deal": DEAL})
    play(store, won_first, winning_line)
    lost_second = make_table("solitaire", ["Solo"], {"deal": DEAL})
    play(store, lost_second, winning_line[:1])
    make_table("solitaire", ["Solo"], {"deal": DEAL})  # never played: does not count
    won_third = make_table("solitaire", ["Solo"], {"deal": DEAL})
    play(store, won_third, winning_line)
    in_play = make_table("solitaire", ["Solo"], {"deal": DEAL})
    play(store, in_play, winning_line[:2])  # the newest, still going: keeps the streak
    html = phone.get("/solitaire").get_data(as_text=True)
    stat = dict(re.findall(r'id="stat-(\w+)">(\d+)<', html))
    assert stat == {"played": "4", "won": "2", "streak": "1"}
    assert "Best streak" in html
    # Written like the solver's share on the same page: a space before the %.
    assert "<dt>Win rate</dt><dd>50 %</dd>" in html


def test_the_statistics_page_says_most_deals_can_be_won_by_a_solver_that_sees_all(phone):
    html = phone.get("/solitaire").get_data(as_text=True)
    odds = re.search(r'id="sol-odds">([^<]+)<', html)
    assert odds is not None
    assert odds.group(1).startswith("Most deals can be won. With every card known")
    from companion.rules import solitaire_deals
    from companion.web import solitaire_pages

    table = solitaire_deals.load()
    assert (
        f"the solver won {solitaire_pages.solver_odds()} of the {table.tested:,} deals"
        in odds.group(1)
    )
    assert "it has proved none of them lost" in odds.group(1)


def test_replay_button_starts_the_same_deal_again(phone, game, store):
    response = phone.post("/solitaire/new", {"deal": str(DEAL), "name": "Solo"}, htmx=False)
    assert response.status_code == 303
    assert [t.options["deal"] for t in store.tables(game="solitaire")] == [DEAL, DEAL]


def test_summary_line_in_the_table_list(phone, game):
    # The start page lists only this browser's tables (issue 10); so does the
    # solitaire page (issue 42), with the same line.
    phone.get(f"/t/{game.token}")
    html = phone.get("/solitaire").get_data(as_text=True)
    assert f"Deal #{DEAL}: 5 deals left, 16 face down" in html


def test_history_says_each_move_in_words(phone, game, store, winning_line):
    first = winning_line[0]
    store.act(game.token, 0, first)
    store.act(game.token, 1, {"type": "Deal"})
    html = phone.get(f"/t/{game.token}/history").get_data(as_text=True)
    assert "Dealt a card onto every pile" in html
    assert f"from pile {first['source'] + 1} to pile {first['target'] + 1}" in html


def test_spectators_see_the_cards_but_no_controls(phone, game):
    html = phone.get(f"/v/{game.view_token}").get_data(as_text=True)
    assert "sol-card" in html and f"Deal #{DEAL}" in html
    assert 'name="pick"' not in html and "Hint" not in html
