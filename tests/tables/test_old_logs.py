"""Tables kept from an older version still open (ruling in docs/live-table.md,
*Tables kept from an older version*).

A ruling that tightens a referee (XA8 refused bags an older version accepted)
must not make a stored table unreadable: the refused entry is read as set
aside, the history says so, and the table goes on from the entries that count.
"""

from __future__ import annotations

import pytest

from companion import create_app
from companion.rules import autumn_ash

GREEN_BAG = {"type": "Bag", "player": "Ana", "pieces": [["green", 1], ["green", 2], ["green", 3]]}
ORANGE_BAG = {
    "type": "Bag",
    "player": "Ben",
    "pieces": [["orange", 1], ["orange", 1], ["orange", 2]],
}
YELLOW_BAG = {
    "type": "Bag",
    "player": "Ana",
    "pieces": [["yellow", 1], ["yellow", 2], ["yellow", 3]],
}


def _older_referee(monkeypatch: pytest.MonkeyPatch) -> None:
    """A referee that, like an older version's, let three greens through."""
    strict = autumn_ash.apply

    def lenient(state, action):
        if isinstance(action, autumn_ash.Bag) and {c for c, _ in action.pieces} == {"green"}:
            return state
        return strict(state, action)

    monkeypatch.setattr(autumn_ash, "apply", lenient)


@pytest.fixture
def old_table(app, make_table, store, monkeypatch):
    """An Autumn Ash race with a green bag entered before XA8, then an orange one."""
    race = make_table("autumn_ash", ["Ana", "Ben"])
    with monkeypatch.context() as older:
        _older_referee(older)
        store.act(race.token, 0, GREEN_BAG)
    store.act(race.token, 1, ORANGE_BAG)
    # The upgrade: the server restarts, so this process forgets what it served.
    store._cache.clear()
    store._newest.clear()
    return race


def _reopened(app):
    """The same database opened by a new server process (nothing cached)."""
    return create_app({**app.config, "TESTING": True}).extensions["leafpile_store"]


def test_an_entry_the_rules_now_refuse_is_set_aside_and_the_table_opens(app, old_table, phone):
    store = _reopened(app)
    snap = store.snapshot(old_table.token)
    assert snap.state.totals == {"Ana": 0, "Ben": 7}  # the green bag does not count
    assert [e.kind for e in snap.events] == ["set-aside", "action"]
    assert snap.actions == (ORANGE_BAG,)
    page = phone.get(f"/t/{old_table.token}")
    assert page.status_code == 200
    history = phone.get(f"/t/{old_table.token}/history").get_data(as_text=True)
    assert "Set aside:" in history and "no longer counts" in history


def test_the_table_goes_on_and_undo_skips_the_set_aside_entry(app, old_table):
    store = _reopened(app)
    after = store.act(old_table.token, 2, YELLOW_BAG)
    assert after.state.totals == {"Ana": 6, "Ben": 7}
    store.undo(old_table.token, 3)
    store.undo(old_table.token, 4)  # takes back the orange bag, never the set-aside one
    snap = _reopened(app).snapshot(old_table.token)
    assert snap.state.totals == {"Ana": 0, "Ben": 0}
    assert snap.can_undo is False
    assert [e.kind for e in snap.events][:1] == ["set-aside"]


def test_nothing_in_the_database_is_rewritten(app, old_table):
    from sqlalchemy import select

    from companion.tables.models import EventRow

    store = _reopened(app)
    store.snapshot(old_table.token)
    with store._read() as session:
        kinds = session.scalars(select(EventRow.kind).order_by(EventRow.seq)).all()
    assert kinds == ["action", "action"]


def test_an_export_of_such_a_table_keeps_the_entry_and_an_import_names_it(app, old_table):
    from companion.tables.errors import TableError

    store = _reopened(app)
    exported = store.export(old_table.token)
    assert [e["payload"] for e in exported["events"]][0] == GREEN_BAG
    with pytest.raises(TableError, match="does not replay: .*green"):
        store.import_table(exported)
