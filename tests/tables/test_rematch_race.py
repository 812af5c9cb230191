"""Play again is one transaction: no phone can see half of it.

``test_end_browser.py::test_play_again_moves_four_phones_and_a_spectator_to_the_new_table``
once failed under load: Play again wrote the new table, carried the phones
over and wrote the link in separate transactions, and a guest whose poll
came in between collided with the carry-over, which deleted the new table
under everybody's feet. Now the store writes all three together
(``companion/tables/rematches.py``). Here the guest's poll is made to come in
the middle of that transaction, every time: it sees nothing of the rematch
until it is whole, then follows it with its seat.
"""

from __future__ import annotations

import threading

from companion.tables import rematches
from tests.end_games import finish_scorepad
from tests.web.test_end_screens import host_table


def test_a_guest_that_polls_while_play_again_runs_sees_all_of_it_or_nothing(
    phone, store, new_client_phone, monkeypatch
):
    table = host_table(phone, store, "scorepad", ["Ana", "Ben", "Cy", "Di"])
    guest = new_client_phone()
    assert guest.get(f"/t/{table.token}").status_code == 200
    assert guest.sit(table, "Ben").status_code in (200, 303)
    finish_scorepad(store, table)
    seen: list[str | None] = []
    real_carry = rematches._carry_phones

    def carry_with_a_poll_at_each_end(session, old, new):
        for moment in ("before", "after"):
            if moment == "after":
                real_carry(session, old, new)
            answer = guest.get(f"/t/{table.token}/poll?v=0", htmx=True)
            seen.append(answer.headers.get("HX-Redirect"))

    monkeypatch.setattr(rematches, "_carry_phones", carry_with_a_poll_at_each_end)
    started = phone.post(f"/t/{table.token}/rematch", htmx=False)
    assert started.status_code == 303, started.get_data(as_text=True)[-400:]
    new_token = started.headers["Location"].rsplit("/", 1)[-1]
    new = store.table(new_token)
    assert seen == [None, None]  # mid-transaction: no link to follow yet
    follow = guest.get(f"/t/{table.token}/poll?v=0", htmx=True)
    assert follow.headers["HX-Redirect"].endswith(f"/t/{new.token}")
    assert guest.get(f"/t/{new.token}").status_code == 200
    assert store.seats(new.token).get("Ben") is not None  # the guest kept its seat
    assert store.role_of(new.token, store.seats(new.token)["Ben"]) == "guest"


def test_two_taps_on_play_again_at_once_start_one_table(phone, store):
    """A double tap on Play again (two requests at the same moment): both
    answers name the same new table, and no second table is made."""
    table = host_table(phone, store, "scorepad", ["Ana", "Ben"])
    finish_scorepad(store, table)
    device = _host_device(store, table.token)
    started: list[str] = []
    barrier = threading.Barrier(2)

    def tap() -> None:
        barrier.wait()
        started.append(store.rematch(table.token, device).token)

    taps = [threading.Thread(target=tap) for _ in range(2)]
    for t in taps:
        t.start()
    for t in taps:
        t.join()
    assert len(started) == 2 and started[0] == started[1]
    assert len(store.tables(game="scorepad")) == 2  # the old table and one new one
    assert store.rematch(table.token, device).token == started[0]


def _host_device(store, token: str) -> str:
    from sqlalchemy import select

    from companion.tables.models import MemberRow, TableRow

    with store._read() as session:
        table_id = session.scalar(select(TableRow.id).where(TableRow.token == token))
        return session.scalar(
            select(MemberRow.device).where(MemberRow.table_id == table_id, MemberRow.role == "host")
        )
