"""End screens and Play again through the test client (issue 13)."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import north_wind
from companion.tables.rematches import next_players, next_title
from companion.tables.summaries import summarise
from companion.web.charts import line_chart, nice_step
from tests.end_games import (
    SOLITAIRE_DEAL,
    finish_autumn_ash,
    finish_autumn_leaves,
    finish_leaf,
    finish_north_wind,
    finish_pairs,
    finish_scorepad,
    finish_solitaire,
    finish_venture,
)


def page(phone, table) -> str:
    response = phone.get(f"/t/{table.token}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def headline(body: str) -> tuple[str, str]:
    """(notice kind, text) of the end screen's headline."""
    found = re.search(r'class="notice notice-(\w+) end-headline"[^>]*>(.*?)</p>', body, re.S)
    assert found, "the end screen shows a headline"
    return found.group(1), html_lib.unescape(found.group(2))


def legend(body: str) -> dict[str, int]:
    """The chart legend: each line's name and its last point."""
    items = re.findall(r"</svg>([^<:]+): <strong>(-?\d+)</strong></li>", body)
    return {html_lib.unescape(name): int(value) for name, value in items}


def polyline_ends(body: str) -> list[float]:
    """The y of each chart line's last point (SVG units)."""
    return [
        float(p.split()[-1].split(",")[1])
        for p in re.findall(r'<polyline[^>]*points="([^"]+)"', body)
    ]


FINISHERS = {
    "pairs": (["Ana", "Ben", "Cy"], {}, finish_pairs),
    "venture": (["Ana", "Ben", "Cy"], {}, finish_venture),
    "autumn_leaves": (["Ana", "Ben", "Cy"], {}, finish_autumn_leaves),
    "leaf": (["Ana", "Ben", "Cy"], {}, finish_leaf),
    "autumn_ash": (["Ana", "Ben"], {"rainbow": "Ana"}, finish_autumn_ash),
    "scorepad": (["Ana", "Ben", "Cy"], {}, finish_scorepad),
    "solitaire": (["Solo"], {"deal": SOLITAIRE_DEAL}, finish_solitaire),
}


def final_totals(game: str, state) -> dict[str, int]:
    if game == "pairs" or game == "scorepad":
        return state.totals()
    if game == "venture":
        return state.outcome.scores
    if game == "autumn_leaves":
        return dict(zip(state.players, state.totals, strict=True))
    if game == "leaf":
        return {p: b.total for p, b in state.result.breakdowns.items()}
    if game == "autumn_ash":
        return state.totals
    return {"Face-down cards": state.face_down_count}


@pytest.mark.parametrize("game", sorted(FINISHERS))
def test_each_game_played_to_its_end_shows_the_end_screen(phone, store, make_table, game):
    players, options, finish = FINISHERS[game]
    table = make_table(game, players, options)
    assert "end-headline" not in page(phone, table)  # not while the game is on
    state = finish(store, table)
    body = page(phone, table)
    kind, text = headline(body)
    assert legend(body) == final_totals(game, state)  # the chart ends on the final totals
    assert len(polyline_ends(body)) == len(final_totals(game, state))
    # A table made outside this browser: it may not start the next game, and is told who may.
    assert "Play again with the same players" not in body
    assert "The host's phone can start the next game" in body
    if game == "pairs":
        assert kind == "loss" and "loses the game. Nobody wins." in text
        assert 'class="pad-key"' not in body and "in the deck" not in body
    elif game == "solitaire":
        assert kind == "win" and "is solved in" in text
    else:
        assert kind == "win" and ("wins" in text or "share the win" in text)


@pytest.mark.parametrize("game", [*sorted(FINISHERS), "north_wind"])
def test_each_game_says_its_result_once(phone, store, make_table, game):
    """The end screen's headline is the only win box: no board repeats the win."""
    if game == "north_wind":
        table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
        finish_north_wind(phone, table)
    else:
        players, options, finish = FINISHERS[game]
        table = make_table(game, players, options)
        finish(store, table)
    body = page(phone, table)
    kind, _ = headline(body)
    boxes = re.findall(r'class="notice notice-(win|loss)[ "]', body)
    assert boxes == [kind]
    for repeat in ("Game over:", "You won deal", "You beat the North Wind", "points: the first to"):
        assert repeat not in body


def test_the_north_wind_end_screen_names_its_best_turn(phone, store, make_table):
    table = make_table("north_wind", ["Ana"], {"difficulty": "easy"})
    finish_north_wind(phone, table)
    body = page(phone, table)
    kind, text = headline(body)
    state = store.snapshot(table.token).state
    totals = {p: b.total for p, b in state.result.breakdowns.items()}
    assert kind == "win" and text == (
        f"Ana beat the North Wind by {totals['Ana'] - totals[north_wind.NORTH_WIND]} acorns, "
        f"{totals['Ana']} to {totals[north_wind.NORTH_WIND]}."
    )
    assert legend(body) == totals
    assert "The North Wind&#39;s best turn: turn 1, 2 acorns." in body
    assert "the North Wind played 1 turn." in body


def test_undo_reopens_the_game_and_redo_ends_it_again(phone, store, make_table):
    table = make_table("scorepad", ["Ana", "Ben"])
    finish_scorepad(store, table)
    assert "end-headline" in page(phone, table)
    assert "Undo" in page(phone, table)  # Undo last entry stays on the end screen
    phone.post(f"/t/{table.token}/undo", {"version": str(store.version(table.token))})
    body = page(phone, table)
    assert "end-headline" not in body and "Add the round" in body
    phone.post(f"/t/{table.token}/redo", {"version": str(store.version(table.token))})
    assert "end-headline" in page(phone, table)


def test_a_loss_is_never_in_the_green_win_box(phone, store, make_table):
    table = make_table("pairs", ["Ana", "Ben"], {"target": 5})
    for action in (
        {"type": "Deal", "player": "Ana", "card": 5},
        {"type": "Deal", "player": "Ben", "card": 9},
        {"type": "Hit", "player": "Ana", "card": 5},
    ):
        store.act(table.token, store.version(table.token), action)
    body = page(phone, table)
    assert headline(body) == (
        "loss",
        "Ana reached 5 of 5 points and loses the game. Nobody wins. The others finish on 0.",
    )
    assert "notice-win" not in body
    assert "Biggest pair: Ana&#39;s 5s." in body


def test_summary_of_a_score_pad_by_hand():
    actions = [
        {"type": "AddRound", "scores": [5, 3, 9]},
        {"type": "AddRound", "scores": [5, 8, 0]},
        {"type": "Finish"},
    ]
    summary = summarise("scorepad", ("Ana", "Ben", "Cy"), {}, 1, actions)
    assert summary is not None
    assert [(s.player, s.score, s.place, s.outcome) for s in summary.standings] == [
        ("Ben", 11, 1, "won"),
        ("Ana", 10, 2, "lost"),
        ("Cy", 9, 3, "lost"),
    ]
    assert str(summary.headline) == "Ben wins by 1 point, with 11."  # a message: English by str()
    assert [s.points for s in summary.series] == [(0, 5, 10), (0, 3, 11), (0, 9, 9)]
    assert summary.x_labels == ("Start", "1", "2")
    assert summarise("scorepad", ("Ana", "Ben", "Cy"), {}, 1, actions[:2]) is None  # not finished


def test_lowest_wins_score_pad_ties_share_the_win():
    actions = [{"type": "AddRound", "scores": [4, 4, 9]}, {"type": "Finish"}]
    summary = summarise("scorepad", ("Ana", "Ben", "Cy"), {"lowest_wins": True}, 1, actions)
    assert summary is not None and summary.low_wins
    assert str(summary.headline) == "Ana and Ben share the win with 4 points."
    assert [s.outcome for s in summary.standings] == ["shared", "shared", "lost"]


def test_chart_geometry_puts_the_highest_value_at_the_top():
    chart = line_chart([("A", [0, 5, 10]), ("B", [0, -3, 2])], ["Start", "1", "2"], "Round")
    a, b = chart.lines
    assert a.dots[0][0] == chart.left and a.dots[-1][0] == chart.right
    assert a.dots[-1][1] < b.dots[-1][1]  # 10 above 2
    assert chart.zero is not None  # the values cross zero: a zero line
    assert [t.label for t in chart.y_ticks] == ["\u22125", "0", "5", "10"]
    assert nice_step(37) == 10 and nice_step(0) == 1 and nice_step(3) == 1


def test_rematch_seating_and_titles():
    assert next_players("scorepad", ("Ana", "Ben", "Cy")) == ("Ben", "Cy", "Ana")
    assert next_players("pairs", ("Ana", "Ben", "Cy")) == ("Ana", "Ben", "Cy")
    assert next_title("Friday") == "Friday (game 2)"
    assert next_title("Friday (game 2)") == "Friday (game 3)"
    assert len(next_title("x" * 60)) == 60


# --- Play again -------------------------------------------------------------------------


def host_table(phone, store, game, players, **options):
    form = {f"player{i}": p for i, p in enumerate(players, 1)} | options
    response = phone.post(f"/new/{game}", form, htmx=False)
    assert response.status_code == 303, response.get_data(as_text=True)[-500:]
    return store.table(response.headers["Location"].rsplit("/", 1)[-1])


def test_play_again_starts_a_new_table_and_old_phones_follow(phone, store, new_client_phone):
    table = host_table(phone, store, "scorepad", ["Ana", "Ben", "Cy"], wins="lowest")
    finish_scorepad(store, table)
    response = phone.post(f"/t/{table.token}/rematch", htmx=False)
    assert response.status_code == 303
    new = store.table(response.headers["Location"].rsplit("/", 1)[-1])
    assert new.token != table.token and new.players == ("Ben", "Cy", "Ana")
    assert new.options == {"lowest_wins": True} and new.version == 0
    assert new.title == f"{table.title[:51]} (game 2)"
    # A second tap (another phone of the host, a double tap) finds the same table.
    again = phone.post(f"/t/{table.token}/rematch", htmx=True)
    assert again.status_code == 204 and again.headers["HX-Redirect"] == f"/t/{new.token}"
    # Phones polling the old table, up to date or not, are sent on; spectators too.
    guest = new_client_phone()
    for version in (table.version, store.version(table.token), 0):
        poll = guest.get(f"/t/{table.token}/poll?v={version}", htmx=True)
        assert poll.status_code == 204 and poll.headers["HX-Redirect"] == f"/t/{new.token}"
    poll = guest.get(f"/v/{table.view_token}/poll?v=0", htmx=True)
    assert poll.headers["HX-Redirect"] == f"/v/{new.view_token}"
    # The old table stays readable as it was.
    assert "end-headline" in page(guest, table)


def test_play_again_is_refused_before_the_end_and_for_guests(
    phone, store, new_client_phone, error_message
):
    table = host_table(phone, store, "scorepad", ["Ana", "Ben"])
    response = phone.post(f"/t/{table.token}/rematch", htmx=True)
    assert response.status_code == 422
    assert "This game is not over yet" in error_message(response)
    finish_scorepad(store, table)
    guest = new_client_phone()
    guest.get(f"/t/{table.token}")
    response = guest.post(f"/t/{table.token}/rematch", htmx=True)
    assert response.status_code == 422
    assert "only the host" in error_message(response).lower()
    assert len(store.tables()) == 1
    plain = phone.get(f"/t/{table.token}/poll?v=0", htmx=True)
    assert "HX-Redirect" not in plain.headers


def test_play_again_on_a_missing_table_is_a_404(phone):
    assert phone.post("/t/nosuchtable123/rematch", htmx=True).status_code == 404


def test_templates_get_the_sessions_own_csrf_token(app):
    """A board rendered once and shared through the poll cache swaps each phone's token
    in; that needs templates to print exactly the session's token. (Flask-WTF's own
    context function printed a freshly timestamped one, so a guest's polled board
    carried the host's token and the guest's taps were refused. Found through the
    Play again button.)"""
    from flask import render_template_string, session

    from companion.web import csrf_token

    with app.test_request_context("/"):
        session["csrf_token"] = "raw-token-of-this-session"
        session["csrf_signed"] = "signed.long.ago"
        assert csrf_token() == "signed.long.ago"
        assert render_template_string("{{ csrf_token() }}") == "signed.long.ago"


# --- Chart labels: readable on a phone, never on top of each other (issue 20) -----------
def _boxes(chart):
    """Approximate label boxes (x0, y0, x1, y1): 0.62 em a character, 0.8 em above the
    baseline and 0.25 em below, as the app's sans-serif digits and letters measure."""
    size = chart.label_size

    def box(x, baseline, text, anchor):
        width = 0.62 * size * len(text)
        x0 = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        return (x0, baseline - 0.8 * size, x0 + width, baseline + 0.25 * size)

    ys = [box(chart.left - 6, t.position + 5, t.label, "end") for t in chart.y_ticks]
    xs = [box(t.position, chart.bottom + chart.x_label_drop, t.label, t.anchor)
          for t in chart.x_ticks]  # fmt: skip
    return ys, xs


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-40, 120), min_size=2, max_size=14), min_size=1, max_size=6))
def test_chart_labels_never_overlap_and_stay_inside(series):
    count = max(len(v) for v in series)
    labels = ["Start", *(str(i) for i in range(1, count))]
    chart = line_chart([(f"P{i}", v) for i, v in enumerate(series)], labels, "Round")
    ys, xs = _boxes(chart)
    assert chart.label_size >= 13
    for x_box in xs:
        assert x_box[0] >= 0 and x_box[2] <= chart.width and x_box[3] <= chart.height
        assert not any(_overlap(x_box, y_box) for y_box in ys)
    for a, b in zip(xs, xs[1:], strict=False):
        assert a[2] < b[0]  # the x labels keep apart
    assert xs[0][0] >= chart.left  # "Start" begins at the axis, not under "−20"


def test_negative_ticks_use_a_real_minus_and_start_is_clear_of_minus_20():
    chart = line_chart([("A", [0, -20, -12]), ("B", [0, 8, 15])], ["Start", "1", "2"], "Hand")
    assert chart.y_ticks[0].label == "\u221220"
    assert chart.x_ticks[0].label == "Start" and chart.x_ticks[0].anchor == "start"
    assert chart.x_ticks[-1].anchor == "end"


def test_a_tie_break_winner_is_listed_above_the_player_level_with_them_l5():
    tallies = {
        "Cal": {"acorn_tokens": 20, "sun": 0},  # 20 acorns, no spare
        "Dee": {"acorn_tokens": 19, "sun": 2},  # 19 + 1 for 2 sun = 20; wins on spare (L5)
        "Eve": {"acorn_tokens": 5},
    }
    actions = [{"type": "EnterTally", "player": p, "tally": t} for p, t in tallies.items()]
    summary = summarise("leaf", tuple(tallies), {}, 1, actions)
    assert summary is not None and summary.winners == ("Dee",)
    lines = [(s.place, s.player, s.outcome) for s in summary.standings]
    assert lines == [(1, "Dee", "won"), (1, "Cal", "lost"), (3, "Eve", "lost")]
