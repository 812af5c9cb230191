"""Autumn Ash refereed on the board: X5-X14, the text's examples, perft, properties."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules import actions, autumn_ash
from companion.rules.autumn_ash import (
    OUR_LAYOUT,
    IllegalMove,
    Move,
    Piece,
    Position,
    Square,
    destinations,
    legal_moves,
    outcome,
    play,
    start_position,
    why_not,
)
from companion.rules.errors import IllegalAction, RuleError

EMPTY = ".,.,.,.,."
# Burnt Rainbow pieces on the four corners: nobody can enter (X6), nothing there moves (X12).
CORNERS_TOP, CORNERS_BOTTOM = "black2,.,.,.,black2", "black3,.,.,.,black3"


def board(*rows: str, rest: str = "rainbow") -> Position:
    """A position from its six rows, row 6 first (see Position.parse)."""
    return Position.parse("/".join(rows) + " " + rest)


def lone(
    row4: str = EMPTY, row3: str = ".,.,yellow3,.,.", rest: str = "rainbow", row5: str = EMPTY
) -> Position:
    """A yellow queen on C3 (by default), corners full, more rows to fill in."""
    return board(CORNERS_TOP, row5, row4, row3, EMPTY, CORNERS_BOTTOM, rest=rest)


def dests(position: Position, square: str) -> set[str]:
    return {str(s) for s in destinations(position, square)}


def sizes(position: Position, origin: str, destination: str) -> list[int]:
    return sorted(m.size for m in destinations(position, origin)[Square.parse(destination)])


# --- the text's own examples -------------------------------------------------

# The movement example's diagram is lost (X4). Assumed layout: the Rainbow queens
# are yellow; an opposing white drone on A3 is "the opposing drone" that keeps the
# A1 queen off A2 and A3; the friendly red pawn is the one on D1, next to C1.
MOVEMENT = board(EMPTY, EMPTY, EMPTY, "white2,.,yellow3,.,.", ".,.,.,cyan2,.", "yellow3,.,.,red1,.")

# The scoring example's diagram is lost too. Assumed layout (the only one we found
# that gives the stated 16 and 8 points): Xeno's orange drone on A3; cyan queen on
# C3; on D3 a red queen, a cyan pawn and a red pawn (bottom first); a cyan drone on
# B4 and a cyan pawn on B5 (the text's "B3 to B4" row read as B3-B5); Rainbow's
# yellow drone on E3 and queen on D1.
SCORING_ROWS = (
    EMPTY,
    ".,cyan1,.,.,.",
    ".,cyan2,.,.,.",
    "orange2,.,cyan3,red3+cyan1+red1,yellow2",
    EMPTY,
    ".,.,.,yellow3,.",
)


def test_movement_example_queen_on_a1_reaches_only_b1_b2_c1_x7_x9():
    assert dests(MOVEMENT, "A1") == {"B1", "B2", "C1"}
    # Blocked by the opposing drone (head on), not by the friendly red pawn next to C1.
    assert why_not(MOVEMENT, "A1", "A2") == (
        "the yellow queen cannot enter A2: the white drone at A3 blocks it head on (X9)"
    )


def test_movement_example_queen_on_c3_may_stand_beside_the_drone_from_the_side_x9():
    assert {"C2", "D3"} <= dests(MOVEMENT, "C3")
    assert why_not(MOVEMENT, "C3", "D2") is not None  # onto the drone itself: never


def test_movement_example_pawn_on_d1_caps_the_drone_and_becomes_a_blue_pawn_x10():
    assert sizes(MOVEMENT, "D1", "D2") == [autumn_ash.PAWN]
    result = play(MOVEMENT, Move.parse("D1-D2=P"))
    assert result.position.stack("D2") == (Piece("cyan", 2), Piece("blue", 1))
    with pytest.raises(IllegalMove, match="a capping piece always becomes a pawn"):
        play(MOVEMENT, Move.parse("D1-D2=Q"))


def test_scoring_example_xeno_bags_two_rows_for_up_to_16_x2_x11():
    position = board(*SCORING_ROWS, rest="xeno")
    result = play(position, Move.parse("A3-B3=Q"))
    assert sorted(str(s) for s, _ in result.bagged) == ["B3", "B4", "B5", "C3", "D3"]
    assert result.bag is not None and result.bag.total == 16  # 10 pips + cyan 6, one bonus
    assert result.position.scores == (0, 16)
    # The cyan pawn in the middle of D3 is bagged; the red pawn above it drops down.
    assert result.position.stack("D3") == (Piece("red", 3), Piece("red", 1))
    # "Up to": a smaller new piece scores less (both cyan pawns are on the board).
    assert play(position, Move.parse("A3-B3=D")).position.scores == (0, 15)
    assert sizes(position, "A3", "B3") == [autumn_ash.DRONE, autumn_ash.QUEEN]


def test_scoring_example_rainbow_drone_caps_d3_and_bags_three_reds_in_the_stack_for_8_x11():
    position = board(*SCORING_ROWS, rest="rainbow")
    result = play(position, Move.parse("E3-D3=P"))
    assert result.position.scores == (8, 0)
    assert result.position.stack("D3") == (Piece("cyan", 1),)  # dropped to the bottom
    assert "bagged 3 red at D3: 5 pips + red 3 = 8" in result.describe()


def test_scoring_example_the_queen_on_d1_may_not_cap_the_friendly_pawn_x10():
    position = board(*SCORING_ROWS, rest="rainbow")
    assert why_not(position, "D1", "D3") == (
        "the yellow queen cannot cap the red pawn at D3: "
        "a pawn can only be capped by a drone or a pawn (X10)"
    )


def test_issue_example_message_names_piece_square_and_reason_x9():
    position = board(EMPTY, EMPTY, EMPTY, EMPTY, ".,red3,.,cyan2,.", EMPTY)
    with pytest.raises(IllegalMove) as caught:
        play(position, Move.parse("B2-C2=P"))
    assert str(caught.value) == (
        "the red queen cannot enter C2: the cyan drone at D2 blocks it head on (X9)"
    )
    assert isinstance(caught.value, ValueError)  # every refusal is a ValueError


# --- perft -------------------------------------------------------------------

PERFT = Path(__file__).parent / "data" / "autumn_ash_perft.txt"


def _perft_lines() -> list[tuple[str, int, int, str]]:
    rows = []
    for line in PERFT.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            text, depth, count, _how, note = (part.strip() for part in line.split(";", 4))
            rows.append((text, int(depth), int(count), note))
    return rows


def perft(position: Position, depth: int) -> int:
    if depth == 0:
        return 1
    moves = legal_moves(position)
    if not moves:
        if outcome(position):
            return 0
        return perft(play(position, None).position, depth - 1)  # the forced pass (X13)
    return sum(perft(play(position, m).position, depth - 1) for m in moves)


@pytest.mark.parametrize(("text", "depth", "count", "note"), _perft_lines())
def test_perft(text, depth, count, note):
    position = Position.parse(text)
    assert str(position) == text  # the file is in canonical form
    assert perft(position, depth) == count, note


# --- X5 setup ------------------------------------------------------------------


def test_x5_our_layout_puts_both_start_trios_on_the_board_and_the_rest_in_the_stashes():
    position = start_position(OUR_LAYOUT, "xeno")
    assert position.turn == "xeno" and position.scores == (0, 0)
    assert sum(len(s) for s in position.stacks) == 6
    rainbow = position.stash_of("rainbow")
    assert all(rainbow[Piece("green", s)] == 0 for s in (1, 2, 3))  # the second trio is out
    assert all(n == 2 for p, n in rainbow.items() if p.colour != "green")
    assert sum(position.stash_of("xeno").values()) == 4 * 6


@pytest.mark.parametrize(
    ("placements", "words"),
    [
        (OUR_LAYOUT[:5], "clear drone missing"),
        ((*OUR_LAYOUT[:5], ("B2", "clear drone")), "B2 already holds the green pawn"),
        ((*OUR_LAYOUT[:5], ("B5", "clear pawn")), "the clear pawn is placed twice"),
        ((*OUR_LAYOUT[:5], ("B5", "white drone")), "each side starts with its green or clear"),
        ((*OUR_LAYOUT[:5], ("F5", "clear drone")), "'F5' is not a square"),
        ((*OUR_LAYOUT[:5], ("B5", "clear giant")), "'giant' is not a piece size"),
    ],
)
def test_x5_a_setup_that_is_not_the_two_start_trios_is_refused(placements, words):
    with pytest.raises(RuleError, match=words):
        start_position(placements)


# --- X6 entry ------------------------------------------------------------------


def test_x6_entry_places_a_start_colour_piece_from_the_stash_then_the_turn_moves():
    position = start_position(OUR_LAYOUT)
    assert not any(m.entry for m in legal_moves(position))  # no green in the stash yet
    after = play(position, Move.parse("B2-B3=P")).position  # the green pawn goes back
    after = play(after, Move.parse("D5-D4=P")).position
    entries = {m.entry.text() for m in legal_moves(after) if m.entry}
    assert entries == {"P@A1", "P@E1", "P@A6", "P@E6"}
    result = play(after, Move.parse("P@A1 A1-A2=D"))  # the entered piece may move at once
    assert result.position.top("A2") == Piece("yellow", 2)
    assert result.position.top("A1") is None
    assert "entered a green pawn at A1" in result.describe()


@pytest.mark.parametrize(
    ("move", "words"),
    [
        ("P@C3 C1-B1=P", "enters on an empty corner"),
        ("Q@A1 C1-B1=P", "no green queen in the stash"),
        ("P@A1 A1-A1=P", "must end its move on another square"),
    ],
)
def test_x6_an_entry_that_is_not_allowed_is_refused(move, words):
    position = start_position(OUR_LAYOUT)
    position = play(position, Move.parse("B2-B3=P")).position
    position = play(position, Move.parse("D5-D4=P")).position
    with pytest.raises(IllegalMove, match=words):
        play(position, Move.parse(move))


def test_x6_entry_needs_an_empty_corner():
    position = lone()
    stash = tuple(
        1 if p == Piece("green", 1) else n
        for p, n in zip(autumn_ash.KINDS, position.stash, strict=True)
    )
    position = Position(position.stacks, stash)
    with pytest.raises(IllegalMove, match="the corner holds the black drone"):
        play(position, Move.parse("P@A6 C3-C4=P"))


# --- X7 movement ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows4_3", "origin", "target", "ok", "words"),
    [
        ((EMPTY, ".,.,yellow3,.,."), "C3", "C5", True, None),
        ((EMPTY, ".,.,yellow3,.,."), "C3", "D4", True, None),  # the path may turn
        ((EMPTY, ".,.,yellow3,.,."), "C3", "C6", False, "one or two orthogonal steps"),
        ((EMPTY, ".,.,yellow3,.,."), "C3", "E4", False, "one or two orthogonal steps"),
        ((".,.,red3,.,.", ".,.,yellow3,.,."), "C3", "C5", False, "a piece never jumps"),
        ((EMPTY, ".,.,yellow3,.,."), "C3", "C3", False, "another square"),
        ((".,.,blue3,.,.", ".,.,yellow1,.,."), "C3", "C4", True, None),  # stacking
    ],
)
def test_x7_one_or_two_orthogonal_steps_never_through_an_occupied_square(
    rows4_3, origin, target, ok, words
):
    position = lone(*rows4_3)
    assert (why_not(position, origin, target) is None) is ok
    if words:
        assert words in why_not(position, origin, target)


def test_x7_stacking_ends_the_move_so_nothing_lies_beyond_a_stack():
    position = lone(".,.,blue3,.,.", ".,.,yellow1,.,.")
    assert "C4" in dests(position, "C3") and "C5" not in dests(position, "C3")


def test_x7_each_move_comes_with_a_path_that_prints_and_parses():
    for move in legal_moves(lone()):
        assert move.path[-1] == move.destination
        assert len(move.path) in (1, 2)
        assert Move.parse(move.text()) == move


def test_x7_only_the_side_to_move_moves_its_own_top_pieces():
    position = lone(".,.,blue3,.,.", ".,.,yellow1+white2,.,.")
    assert "is Xeno's: it is Rainbow's turn" in why_not(position, "C3", "C2")
    assert why_not(position, "B3", "B2") == "there is no piece on B3"


# --- X8 change ------------------------------------------------------------------


def test_x8_the_piece_becomes_the_next_colour_in_any_size_the_stash_holds():
    position = lone()
    assert sizes(position, "C3", "C4") == [1, 2, 3]
    result = play(position, Move.parse("C3-C4=D"))
    assert result.position.top("C4") == Piece("red", 2)
    assert result.position.in_stash(Piece("yellow", 3)) == 2  # the old queen went back
    assert result.position.in_stash(Piece("red", 2)) == 1


def test_x8_without_a_piece_of_the_next_colour_the_piece_cannot_move():
    # Both red trios buried under burnt ash: the yellow queen has nothing to become.
    position = lone("red1+black1,red1+black1,red2+red2+red3+red3+purple3,.,.", ".,.,yellow3,.,.")
    assert why_not(position, "C3", "D3") == (
        "the yellow queen on C3 cannot move: it must become red and the stash has no red "
        "piece left (X8)"
    )
    assert not destinations(position, "C3")


def test_x8_a_size_the_stash_lacks_is_refused_with_the_choices():
    position = lone("red3+black1,red3+black1,.,.,.")
    with pytest.raises(IllegalMove, match="cannot become a red queen: .* choose pawn or drone"):
        play(position, Move.parse("C3-D3=Q"))


# --- X9 blocking ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("row4", "row3", "origin", "target", "blocked_by"),
    [
        # An opposing pawn keeps queens off the squares next to it...
        (".,.,.,white1,.", ".,.,yellow3,.,.", "C3", "C4", "white pawn at D4 keeps queens off"),
        # ...but not drones or pawns,
        (".,.,.,white1,.", ".,.,yellow2,.,.", "C3", "C4", None),
        (".,.,.,white1,.", ".,.,yellow1,.,.", "C3", "C4", None),
        # and a queen already next to it may step away (not onto it).
        (".,.,yellow3,white1,.", EMPTY, "C4", "B4", None),
        # An opposing drone stops a drone or queen arriving head on...
        (EMPTY, "yellow2,.,white2,.,.", "A3", "B3", "white drone at C3 blocks it head on"),
        (EMPTY, "yellow3,.,white2,.,.", "A3", "B3", "white drone at C3 blocks it head on"),
        # ...not a pawn, and not a piece arriving from the side.
        (EMPTY, "yellow1,.,white2,.,.", "A3", "B3", None),
        ("yellow3,.,.,.,.", ".,.,white2,.,.", "A4", "B3", None),  # A4-B4-B3: side step
        # Own pieces never block.
        (".,.,.,green1,.", ".,.,yellow3,.,.", "C3", "C4", None),
        # Only the top piece blocks: a capped pawn does not.
        (".,.,.,white1+red1,.", ".,.,yellow3,.,.", "C3", "C4", None),
    ],
)
def test_x9_blocking_by_the_top_piece_at_the_start_of_the_turn(row4, row3, origin, target,
                                                               blocked_by):  # fmt: skip
    position = lone(row4, row3)
    reason = why_not(position, origin, target)
    if blocked_by:
        assert reason and blocked_by in reason and reason.endswith("(X9)")
    else:
        assert reason is None


def test_x9_burnt_ash_still_blocks_x12():
    position = lone(".,.,.,purple1,.")
    assert "purple pawn at D4 keeps queens off" in why_not(position, "C3", "C4")


# --- X10 capping ----------------------------------------------------------------

CAPPING = [
    # (rules, mover, top, allowed)
    ("standard", 3, 3, True), ("standard", 2, 3, True), ("standard", 1, 3, True),
    ("standard", 3, 2, False), ("standard", 2, 2, False), ("standard", 1, 2, True),
    ("standard", 3, 1, False), ("standard", 2, 1, True), ("standard", 1, 1, True),
    ("beginner", 3, 3, True), ("beginner", 2, 3, True), ("beginner", 1, 3, True),
    ("beginner", 3, 2, False), ("beginner", 2, 2, True), ("beginner", 1, 2, True),
    ("beginner", 3, 1, False), ("beginner", 2, 1, False), ("beginner", 1, 1, True),
]  # fmt: skip


@pytest.mark.parametrize(("rules", "mover", "top", "allowed"), CAPPING)
@pytest.mark.parametrize("top_colour", ["blue", "white"])  # own or opposing
def test_x10_x14_who_may_cap_whom(rules, mover, top, allowed, top_colour):
    # A white pawn on E5 keeps Xeno able to move after the cap (X13).
    position = board(CORNERS_TOP, ".,.,.,.,white1", EMPTY,
                     f".,.,yellow{mover},{top_colour}{top},.", EMPTY, CORNERS_BOTTOM,
                     rest=f"rainbow 0-0 {rules}")  # fmt: skip
    reason = why_not(position, "C3", "D3")
    assert (reason is None) is allowed, reason
    if allowed:
        assert sizes(position, "C3", "D3") == [autumn_ash.PAWN]  # always caps as a pawn
    else:
        assert "can only be capped by" in reason and reason.endswith("(X10)"), reason


def test_x10_without_a_pawn_of_the_next_colour_a_piece_cannot_stack():
    position = lone("red1+black1,red1+black1,.,.,.", ".,.,yellow2,blue3,.")
    assert why_not(position, "C3", "D3") == (
        "the yellow drone cannot cap the blue queen at D3: it would become a red pawn and "
        "the stash has none left (X10)"
    )
    assert "C2" in dests(position, "C3")  # it can still move onto empty squares


def test_x10_capped_pieces_neither_move_nor_block_but_count_in_rows():
    # (A white pawn on E5 gives Xeno a move whatever the queen does: X13.)
    position = lone(".,.,white1+yellow1,.,.", ".,.,yellow3,.,.", row5=".,.,.,.,white1")
    assert "C4" not in dests(position, "C3")  # its top is the yellow pawn: a queen may not cap
    assert "B4" in dests(position, "C3")  # the capped white pawn does not repel the queen


# --- X11 rows -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "move", "bagged", "points"),
    [
        # (rows 5 to 2) orthogonal: A4 B4 and the new red pawn on C4
        (
            (EMPTY, "red1,red2,.,.,.", ".,.,yellow3,.,.", EMPTY),
            "C3-C4=P",
            "A4 B4 C4",
            1 + 2 + 1 + 3,
        ),
        # diagonal: B2 C3 D4 with the moved piece in the middle
        ((EMPTY, ".,.,.,red3,.", ".,yellow1,.,.,.", ".,red2,.,.,."), "B3-C3=P", "B2 C3 D4", 6 + 3),
        # a red at any level of a stack counts; pieces of other colours stay
        (
            (EMPTY, ".,.,.,red1+white3,.", ".,yellow1,.,.,.", ".,red2,.,.,."),
            "B3-C3=D",
            "B2 C3 D4",
            5 + 3,
        ),
        # four in a line: all four are bagged
        ((EMPTY, "red1,red1,.,red3,.", ".,.,yellow2,.,.", EMPTY), "C3-C4=Q", "A4 B4 C4 D4", 8 + 3),
        # two in a line is no row
        ((EMPTY, ".,red1,.,.,.", ".,.,yellow2,.,.", EMPTY), "C3-C4=Q", "", 0),
        # vertical: three reds in one stack, a white between them does not interrupt
        ((EMPTY, ".,.,red3+white1+red1,.,.", ".,.,yellow2,.,.", EMPTY), "C3-C4=P", "C4", 5 + 3),
    ],
)
def test_x11_rows_of_three_through_the_moved_piece_are_bagged_and_scored(
    rows, move, bagged, points
):
    position = board(CORNERS_TOP, *rows, CORNERS_BOTTOM)
    result = play(position, Move.parse(move))
    assert " ".join(sorted({str(s) for s, _ in result.bagged})) == bagged
    assert result.position.scores == (points, 0)
    for square, piece in result.bagged:
        assert piece.colour == "red" and piece not in result.position.stack(square)


def test_x11_a_piece_in_two_rows_is_bagged_once_and_the_bonus_counts_once():
    # A3-B3-C3 across and A4-B3-C2 diagonally: the new red drone on B3 is in both.
    position = board(CORNERS_TOP, EMPTY, "red1,.,.,.,.", "red1,.,red3,.,.", ".,yellow2,red2,.,.",
                     CORNERS_BOTTOM)  # fmt: skip
    result = play(position, Move.parse("B2-B3=D"))
    assert sorted(str(s) for s, _ in result.bagged) == ["A3", "A4", "B3", "C2", "C3"]
    assert result.bag is not None and result.bag.total == (1 + 1 + 3 + 2 + 2) + 3


def test_x11_bagged_pieces_return_to_the_stash_and_the_stack_drops():
    position = board(CORNERS_TOP, EMPTY, ".,.,.,red3+white3+red1,.", ".,.,yellow2,.,.",
                     EMPTY, CORNERS_BOTTOM)  # fmt: skip
    result = play(position, Move.parse("C3-D3-D4=P"))
    assert result.position.stack("D4") == (Piece("white", 3),)
    assert result.position.in_stash(Piece("red", 1)) == 2


def test_x11_only_lines_through_the_moved_piece_count():
    # A red row elsewhere on the board is left alone.
    position = lone("red1,red2,red3,.,.", ".,.,.,.,yellow2")
    result = play(position, Move.parse("E3-E2=P"))
    assert result.bag is None and result.position.top("A4") == Piece("red", 1)


# --- X12 burnt ash ----------------------------------------------------------------


def test_x12_burnt_ash_never_moves_but_can_be_capped_and_bagged():
    position = lone(".,.,black1,.,.", EMPTY)
    assert "burnt ash: it never moves again (X12)" in why_not(position, "C4", "C5")
    position = board(EMPTY, EMPTY, ".,.,black3,.,.", ".,.,blue1,.,.", EMPTY, EMPTY)
    result = play(position, Move.parse("C3-C4=P"))  # a blue pawn caps the black queen
    assert result.position.stack("C4") == (Piece("black", 3), Piece("black", 1))
    # A column of burnt black pieces is bagged like any row.
    position = board("black3,.,.,.,.", ".,blue2,.,.,.", "black2,.,.,.,.", EMPTY, EMPTY, EMPTY)
    result = play(position, Move.parse("B5-A5=P"))
    assert result.bag is not None and result.bag.total == 3 + 1 + 2 + 12


# --- X13 no move -------------------------------------------------------------------

STUCK = board("white2,black2,.,.,.", EMPTY, "green1,.,.,.,yellow2",
              "yellow1+black3,.,.,.,yellow3+green2+green3+black1", EMPTY,
              ".,.,clear1+black2,clear2+purple1,clear3+purple1")  # fmt: skip
FORCED = board("white2,black2,.,.,.", ".,yellow3+black1,.,.,.", "green1,yellow1+black3,.,.,.",
               "yellow1+black3,.,.,.,yellow3+green2+green3+black1", EMPTY,
               ".,.,clear1+black2,clear2+purple1,clear3+purple1")  # fmt: skip


def test_x13_a_move_that_leaves_the_opponent_without_a_move_is_illegal():
    with pytest.raises(IllegalMove) as caught:
        play(STUCK, Move.parse("A4-A5=D"))
    assert str(caught.value) == (
        "the green pawn cannot go to A5: that would leave Xeno without any legal move (X13)"
    )
    assert play(STUCK, Move.parse("A4-A5=P")).position.turn == "xeno"


def test_x13_unless_every_move_would_do_so_then_the_opponent_passes():
    assert [m.text() for m in legal_moves(FORCED)] == ["A4-A5=D"]
    after = play(FORCED, Move.parse("A4-A5=D")).position
    assert legal_moves(after) == []
    with pytest.raises(IllegalMove, match="has a legal move, so cannot pass"):
        play(FORCED, None)
    passed = play(after, None)
    assert passed.position.turn == "rainbow" and passed.describe().startswith("no legal move")


def test_xa5_when_neither_side_can_move_the_higher_score_wins():
    # Nothing on the board can move and no one can enter: the game is over.
    position = Position.parse(
        "black2,.,.,.,black2/.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./black3,.,.,.,black3 "
        "xeno 5-7 standard"
    )
    position = Position(position.stacks, tuple(0 if p.colour in ("green", "clear") else n
                        for p, n in zip(autumn_ash.KINDS, position.stash, strict=True)),
                        "xeno", (5, 7))  # fmt: skip
    result = outcome(position)
    assert result is not None and result.winner == "xeno"


# --- X3 winning ---------------------------------------------------------------------


def test_x3_reaching_21_wins_at_once_and_ends_the_game():
    position = lone(".,red3,.,red3,.", ".,.,yellow2,.,.", rest="rainbow 12-0")
    result = play(position, Move.parse("C3-C4=D"))
    assert result.position.scores == (12 + 8 + 3, 0)
    assert outcome(result.position) == autumn_ash.Outcome("rainbow", "reached 21")
    assert legal_moves(result.position) == []
    with pytest.raises(IllegalMove, match="the game is over"):
        play(result.position, Move.parse("C5-C6=P"))


# --- value types ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("C3", "is not a move"),
        ("C3-C9=D", "'C9' is not a square"),
        ("C3-C4=X", "'X' is not a size"),
        ("Z@A1 C3-C4=D", "'Z' is not a size"),
        ("", "is not a move"),
    ],
)
def test_move_text_that_is_not_a_move_is_refused_with_the_reason(text, words):
    with pytest.raises(RuleError, match=words):
        Move.parse(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("./././././.", "needs 5 squares"),
        ("x", "6 rows"),
        (".,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./green1,green1,.,.,.", "only 1 green"),
        (".,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./pink1,.,.,.,. rainbow", "'pink'"),
        (".,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,. blue", "not a side"),
    ],
)
def test_position_text_that_is_not_a_position_is_refused(text, words):
    with pytest.raises(RuleError, match=words):
        Position.parse(text)


@given(st.sampled_from(autumn_ash.SQUARES))
def test_square_parse_print_is_the_identity(square):
    assert Square.parse(str(square)) == square
    assert Square.parse(str(square).lower()) == square


# --- the table game ---------------------------------------------------------------


def _setup_dict(first: str = "Ana") -> dict:
    return actions.to_dict(autumn_ash.SetUp(OUR_LAYOUT, first))


def test_board_game_takes_json_actions_and_refuses_turns_out_of_order():
    game = autumn_ash.new_board_game("Ana", "Ben")
    with pytest.raises(IllegalAction, match="place the six start pieces first"):
        autumn_ash.apply(game, autumn_ash.Play("Ana", "C1-C2=P", "green queen", "yellow pawn"))
    game = autumn_ash.apply(game, actions.from_dict(_setup_dict("Ben"), autumn_ash.ACTIONS))
    assert game.to_move == "Ben"
    with pytest.raises(IllegalAction, match="it is Ben's turn, not Ana's"):
        autumn_ash.apply(game, autumn_ash.Play("Ana", "C1-C2=P", "green queen", "yellow pawn"))
    with pytest.raises(IllegalAction, match="the board changed"):
        autumn_ash.apply(game, autumn_ash.Play("Ben", "C6-C5=P", "clear pawn", "white pawn"))
    with pytest.raises(IllegalAction, match="bags the rows itself"):
        autumn_ash.apply(game, autumn_ash.Bag("Ben", (("white", 1),)))
    game = autumn_ash.apply(game, autumn_ash.Play("Ben", "C6-C5=P", "clear queen", "white pawn"))
    assert game.to_move == "Ana" and game.totals == {"Ana": 0, "Ben": 0}
    race = autumn_ash.new_game("Ana", "Ben")
    with pytest.raises(IllegalAction, match="keeps only the score"):
        autumn_ash.apply(race, autumn_ash.SetUp(OUR_LAYOUT, "Ana"))


# --- properties ----------------------------------------------------------------------


def _conserved(position: Position) -> None:
    """Every piece of the game is on the board or in its owner's stash, once."""
    counts = list(position.stash)
    for stack in position.stacks:
        for piece in stack:
            counts[autumn_ash.KINDS.index(piece)] += 1
    assert tuple(counts) == autumn_ash.FULL_SET
    assert Position.parse(str(position)) == position  # the stash is exactly what is left


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.booleans(), st.sampled_from(["rainbow", "xeno"]))
def test_random_games_conserve_pieces_and_scores_and_undo_restores_exactly(data, beginner, first):
    """Pieces are never created or lost across stash, board and bags; the scores are
    the sum of the bags; replaying the log without its last turn gives back exactly
    the game before it (the table's undo)."""
    game = autumn_ash.new_board_game("Ana", "Ben", beginner=beginner)
    log = [autumn_ash.SetUp(OUR_LAYOUT, "Ana" if first == "rainbow" else "Ben")]
    game = autumn_ash.apply(game, log[0])
    for _ in range(data.draw(st.integers(1, 14))):
        assert game.position is not None
        if game.outcome:
            break
        moves = legal_moves(game.position)
        player = game.player(game.position.turn)
        if not moves:
            action: object = autumn_ash.Pass(player)
        else:
            move = data.draw(st.sampled_from(moves))
            result = play(game.position, move)
            piece = autumn_ash.after_entry(game.position, move.entry).top(move.origin)
            action = autumn_ash.Play(player, move.text(), str(piece), str(result.became))
        stored = actions.from_dict(actions.to_dict(action), autumn_ash.ACTIONS)
        before = game
        game = autumn_ash.apply(game, stored)
        log.append(stored)
        _conserved(game.position)
        bags = [t.bag.total for p, t in game.turns if t.bag and p == game.rainbow]
        assert game.position.scores[0] == sum(bags)
        # Undo = replay without the last action.
        replay = autumn_ash.new_board_game("Ana", "Ben", beginner=beginner)
        for done in log[:-1]:
            replay = autumn_ash.apply(replay, done)
        assert replay == before


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_listed_move_is_accepted_and_every_other_is_refused(data):
    position = start_position(OUR_LAYOUT, data.draw(st.sampled_from(["rainbow", "xeno"])))
    for _ in range(data.draw(st.integers(0, 8))):
        moves = legal_moves(position)
        if not moves:
            break
        position = play(position, data.draw(st.sampled_from(moves))).position
    listed = set(legal_moves(position))
    # Every move with no entry, and every move after one entry the stash allows
    # (and one it does not: a corner that is not one, or a size not in the stash).
    entry = data.draw(st.sampled_from([None, *autumn_ash.entries(position)]))
    if data.draw(st.booleans()):
        entry = autumn_ash.Entry(data.draw(st.sampled_from(autumn_ash.SQUARES)),
                                 data.draw(st.sampled_from(autumn_ash.SIZES)))  # fmt: skip
    occupied = [s for s in autumn_ash.SQUARES if position.stacks[s.index]]
    origins = [*occupied, entry.square] if entry else occupied
    for origin in origins:
        for target in autumn_ash.SQUARES:
            for size in autumn_ash.SIZES:
                move = Move(origin, target, size, entry)
                if move in listed:
                    assert play(position, move).move == move
                else:
                    with pytest.raises(IllegalMove):
                        play(position, move)


def _independent_step_ok(position: Position, mover: Piece, start: Square, end: Square) -> bool:
    """X7/X9 for one step, written out again from the rulings (standard rules)."""
    (sc, sr), (ec, er) = divmod(start.index, 5)[::-1], divmod(end.index, 5)[::-1]
    if abs(sc - ec) + abs(sr - er) != 1:
        return False
    for near in autumn_ash.SQUARES:
        (nc, nr) = divmod(near.index, 5)[::-1]
        top = position.top(near)
        if top is None or top.side == mover.side or abs(nc - ec) + abs(nr - er) != 1:
            continue
        if mover.size == 3 and top.size == 1:
            return False  # X9: a pawn keeps queens off its neighbours
        if mover.size >= 2 and top.size == 2 and (nc - ec, nr - er) == (ec - sc, er - sr):
            return False  # X9: a drone stops drones and queens head on
    return True


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_listed_path_is_legal_step_by_step_and_x13_is_all_or_nothing(data):
    position = start_position(OUR_LAYOUT, data.draw(st.sampled_from(["rainbow", "xeno"])))
    for _ in range(data.draw(st.integers(0, 12))):
        moves = legal_moves(position)
        for move in moves:
            board = autumn_ash.after_entry(position, move.entry)
            mover = board.top(move.origin)
            assert mover is not None and mover.side == position.turn and not mover.is_burnt
            squares = [move.origin, *move.path]
            assert squares[-1] == move.destination != move.origin
            for start, end in zip(squares, squares[1:], strict=False):
                assert _independent_step_ok(board, mover, start, end), move.text()
            for middle in move.path[:-1]:
                assert not board.stack(middle), move.text()  # X7: never through a piece
        # X13: either no listed move leaves the opponent stuck, or all of them do
        # (a winning move is exempt: XA4).
        afters = [play(position, m).position for m in moves]
        stuck = {not autumn_ash._can_move(after) for after in afters if after.winner is None}
        assert len(stuck) <= 1
        if not moves:
            break
        position = play(position, data.draw(st.sampled_from(moves))).position


def test_a_move_into_orange_says_an_orange_piece():
    from companion.rules.autumn_ash import Move, Position, play

    p = Position.parse(".,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./.,white2,.,.,./.,.,.,.,. xeno")
    assert play(p, Move.parse("B2-C2=D")).describe().endswith("now an orange drone")
