"""The Autumn Ash screens: the board mirror and the race scorer.

*Board* (a referee): the phone mirrors the board. Tap one of your pieces to
light the squares it may reach, tap a square, pick the new size; the
companion bags and scores the rows itself. The selection lives in the page
address (``?sel=C3&to=C1&enter=A1-2``), so it works without JavaScript and
a refresh from another phone (a new version) simply clears it.

*Race* (a score pad): tap the pyramids a move bagged, see the points. Each
player has a bag form with their own five colours; every pyramid of a colour
and size is a toggle (two of each, one for the starting colours).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.rules import autumn_ash
from companion.rules.autumn_ash import BoardGame, Entry, Move, Piece, Position, Square
from companion.rules.errors import RuleError
from companion.rules.messages import refusal_n
from companion.web.i18n import gettext, message_of, words

from . import FormError, Screen

SIZE_WORDS = {"1": autumn_ash.PAWN, "2": autumn_ash.DRONE, "3": autumn_ash.QUEEN}


# --- the race ----------------------------------------------------------------


def piece_field(colour: str, pips: int, copy: int) -> str:
    """The form field of one pyramid toggle: ``red-2-0``."""
    return f"{colour}-{pips}-{copy}"


def toggles(side: str) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """For the template: each colour of ``side`` with its (pips, copy, field) toggles,
    largest first."""
    rows = []
    for colour in autumn_ash.PROGRESSIONS[side]:
        fields = [
            (pips, copy, piece_field(colour, pips, copy))
            for pips in (autumn_ash.QUEEN, autumn_ash.DRONE, autumn_ash.PAWN)
            for copy in range(autumn_ash.TRIOS[colour])
        ]
        rows.append((colour, fields))
    return rows


def _parse_bag(form: Mapping[str, str], state: autumn_ash.Race) -> autumn_ash.Bag:
    if form.get("action") != "bag":
        raise FormError(gettext("That button does nothing in Autumn Ash. Reload the page."))
    player = form.get("player", "")
    if player not in state.players:
        raise FormError(
            gettext("There is no player called %(name)s in this race.", name=repr(player[:40]))
        )
    side = state.side(player)
    pieces = tuple(
        (colour, pips)
        for colour, fields in toggles(side)
        for pips, _, field_name in fields
        if form.get(field_name)
    )
    if not pieces:
        raise FormError(
            gettext("Tap the pyramids %(player)s bagged first, then score the bag.", player=player)
        )
    return autumn_ash.Bag(player, pieces)


# --- the board: reading the page address ---------------------------------------


def _entry(text: str | None, position: Position) -> Entry | None:
    """``"A1-2"`` → the entry of a green/clear drone at A1, if it is open now."""
    if not text:
        return None
    corner, _, size = text.partition("-")
    try:
        entry = Entry(Square.parse(corner), SIZE_WORDS[size])
    except (RuleError, KeyError):
        return None
    return entry if entry in autumn_ash.entries(position) else None


def _square(text: str | None) -> Square | None:
    if not text:
        return None
    try:
        return Square.parse(text)
    except RuleError:
        return None


@dataclass(frozen=True)
class Cell:
    """One square as the mirror draws it."""

    square: Square
    stack: tuple[Piece, ...]
    selectable: bool = False  # one of the mover's pieces with a legal move
    selected: bool = False
    lit: bool = False  # a legal destination of the selected piece
    chosen: bool = False  # the destination picked, waiting for the size
    entered: bool = False  # the piece entered this turn (not yet sent)
    bagged_last: bool = False  # a square the last turn bagged
    moved_last: bool = False  # where the last turn's piece went
    corner: bool = False  # an entry point (X6)
    near: bool = False  # within reach of the selected piece but closed: a tap says why
    why: str = ""  # why a tap on this square does nothing (issue 20), else ""

    @property
    def top(self) -> Piece | None:
        return self.stack[-1] if self.stack else None

    @property
    def label(self) -> str:
        """What a screen reader says for the square."""
        square = str(self.square)
        if not self.stack:
            said = gettext("%(square)s: empty", square=square)
        else:
            pieces = [words(p.message) for p in reversed(self.stack)]
            said = gettext("%(square)s: %(piece)s", square=square, piece=pieces[0])
            for piece in pieces[1:]:
                said = gettext("%(pieces)s, on top of %(piece)s", pieces=said, piece=piece)
        state = []
        if self.selected:
            state.append(gettext("selected"))
        if self.lit:
            state.append(gettext("you can move here"))
        if self.chosen:
            state.append(gettext("chosen"))
        if state:
            said = gettext("%(square)s (%(state)s)", square=said, state=", ".join(state))
        return said


@dataclass(frozen=True)
class SizeChoice:
    size: int
    piece: Piece  # what the moved piece becomes
    move: Move | None  # None: not allowed now
    why: str = ""


@dataclass(frozen=True)
class Mirror:
    """Everything the board template shows for one request."""

    game: BoardGame
    position: Position
    board: Position  # after this turn's entry, if one is chosen
    to_move: str | None  # None once the game is over
    can_act: bool
    entry: Entry | None
    entries: tuple[Entry, ...]
    selected: Square | None
    chosen: Square | None
    rows: tuple[tuple[Cell, ...], ...]
    choices: tuple[SizeChoice, ...]
    reasons: tuple[tuple[str, str], ...]  # (square, why it is dark), on request
    show_why: bool
    must_pass: bool
    refusal: str | None  # why the tapped dark square is closed
    needs_entry: bool  # only turns with an entry are legal (XA2)
    params: Mapping[str, str] = field(default_factory=dict)

    def link(self, **changes: str | None) -> dict[str, str]:
        """The page-address parameters after ``changes`` (None removes one)."""
        params = dict(self.params)
        for key, value in changes.items():
            if value is None:
                params.pop(key, None)
            else:
                params[key] = value
        return params

    @property
    def moving(self) -> Piece | None:
        return self.board.top(self.selected) if self.selected else None

    def stash(self, side: str) -> list[tuple[str, list[tuple[int, int]]]]:
        """``side``'s stash by colour: (colour, [(size, count) queen first])."""
        counts = self.position.stash_of(side)
        return [
            (colour, [(s, counts[Piece(colour, s)]) for s in (3, 2, 1)])
            for colour in autumn_ash.PROGRESSIONS[side]
        ]


def mirror(state: BoardGame, args: Mapping[str, str], me: str | None) -> Mirror | None:
    """Read the selection from the page address and work out what to light."""
    position = state.position
    if position is None:
        return None
    to_move = state.to_move
    can_act = to_move is not None and (me is None or me == to_move)
    every = autumn_ash.legal_moves(position)
    # Offer only the entries some legal move can follow.
    useful = {m.entry for m in every if m.entry}
    open_entries = tuple(e for e in autumn_ash.entries(position) if e in useful)
    entry = _entry(args.get("enter"), position) if can_act else None
    if entry not in open_entries:
        entry = None
    board = autumn_ash.after_entry(position, entry)
    legal = [m for m in every if m.entry == entry]
    movable = {m.origin for m in legal}
    selected = _square(args.get("sel")) if can_act else None
    if selected not in movable:
        selected = None
    targets = {m.destination: m for m in legal if m.origin == selected} if selected else {}
    chosen = _square(args.get("to")) if selected else None
    refusal = None
    if selected and chosen is not None and chosen not in targets:
        refusal = _why_closed(position, board, selected, chosen)
        chosen = None
    last_bagged: set[Square] = set()
    last_moved: Square | None = None
    if state.turns:
        _, result = state.turns[-1]
        last_bagged = {s for s, _ in result.bagged}
        last_moved = result.move.destination if result.move else None
    rows = tuple(
        tuple(
            Cell(
                square=square,
                stack=board.stack(square),
                selectable=can_act and square in movable,
                selected=square == selected,
                lit=square in targets,
                chosen=square == chosen,
                entered=entry is not None and square == entry.square,
                bagged_last=square in last_bagged,
                moved_last=square == last_moved,
                corner=square in autumn_ash.CORNERS,
                near=selected is not None
                and square not in targets
                and 0 < _steps(selected, square) <= 2,
                why=_why_idle(position, board, selected, targets, movable, square)
                if can_act
                else "",
            )
            for column in range(len(autumn_ash.COLUMNS))
            for square in [Square(row * len(autumn_ash.COLUMNS) + column)]
        )
        for row in reversed(range(autumn_ash.ROWS))
    )
    choices: list[SizeChoice] = []
    if selected and chosen:
        mover = board.top(selected)
        assert mover is not None
        colour = autumn_ash.next_colour(mover.colour) or mover.colour
        by_size = {m.size: m for m in legal if m.origin == selected and m.destination == chosen}
        capping = bool(board.stack(chosen))
        for size in (autumn_ash.QUEEN, autumn_ash.DRONE, autumn_ash.PAWN):
            piece = Piece(colour, size)
            if size in by_size:
                choices.append(SizeChoice(size, piece, by_size[size]))
            elif capping:
                choices.append(
                    SizeChoice(size, piece, None, gettext("a capping piece becomes a pawn"))
                )
            elif not position.in_stash(piece):
                choices.append(SizeChoice(size, piece, None, gettext("none left in the stash")))
            else:
                choices.append(
                    SizeChoice(size, piece, None, gettext("would leave the other side stuck"))
                )
    show_why = args.get("why") == "1" and can_act
    reasons = _reasons(board, position, selected, targets, movable) if show_why else ()
    params = {k: v for k, v in (("enter", args.get("enter") if entry else None),) if v}
    if selected:
        params["sel"] = str(selected)
    return Mirror(
        game=state,
        position=position,
        board=board,
        to_move=to_move,
        can_act=can_act,
        entry=entry,
        entries=open_entries if can_act else (),
        selected=selected,
        chosen=chosen,
        rows=rows,
        choices=tuple(choices),
        reasons=reasons,
        show_why=show_why,
        refusal=refusal,
        needs_entry=entry is None and not legal and to_move is not None and can_act,
        must_pass=to_move is not None and not every,
        params=params,
    )


def _reasons(
    board: Position,
    position: Position,
    selected: Square | None,
    targets: Mapping[Square, Move],
    movable: set[Square],
) -> tuple[tuple[str, str], ...]:
    """Why each dark square near the selected piece (or each of the mover's
    pieces that cannot move) is dark, in the rules' own words."""
    found: list[tuple[str, str]] = []
    if selected is None:
        for square in autumn_ash.SQUARES:
            top = board.top(square)
            if top is not None and top.side == board.turn and square not in movable:
                found.append((str(square), _first_reason(board, square)))
        return tuple(found)
    for square in autumn_ash.SQUARES:
        if square in targets or square == selected:
            continue
        if _steps(selected, square) <= 2:
            found.append((str(square), _why_closed(position, board, selected, square)))
    return tuple(found)


def _why_idle(
    position: Position,
    board: Position,
    selected: Square | None,
    targets: Mapping[Square, Move],
    movable: set[Square],
    square: Square,
) -> str:
    """Why a tap on ``square`` does nothing, for the squares that are neither
    a piece to pick nor a square to go to ("" for those): burnt ash, the
    other side's piece, an empty square, a piece of the mover's stuck."""
    if square == selected or square in targets or square in movable:
        return ""
    if selected is not None and _steps(selected, square) <= 2:
        return ""  # near: its link asks the referee (the refusal notice)
    if selected is not None:
        return _why_closed(position, board, selected, square)
    top = board.top(square)
    if top is None:
        return gettext(
            "%(square)s is empty: tap one of your pieces first, then a lit square",
            square=str(square),
        )
    if top.side == board.turn:
        return _first_reason(board, square)
    reason = autumn_ash.why_not_message(board, square, square)
    return words(reason) if reason else ""


def _steps(a: Square, b: Square) -> int:
    columns = len(autumn_ash.COLUMNS)
    return abs(a.index % columns - b.index % columns) + abs(a.index // columns - b.index // columns)


def _why_closed(position: Position, board: Position, origin: Square, target: Square) -> str:
    """The rules' reason the piece on ``origin`` may not go to ``target`` now."""
    reason = autumn_ash.why_not_message(board, origin, target)
    if reason:
        return words(reason)
    top = board.top(origin)
    other = "Xeno" if position.turn == "rainbow" else "Rainbow"
    return gettext(
        "the %(piece)s cannot go to %(square)s: that would leave %(side)s without any legal "
        "move (X13)",
        piece=_named(top),
        square=str(target),
        side=other,
    )


def _named(piece: Piece | None) -> str:
    """A piece's name in this phone's language."""
    return words(piece.message) if piece else "?"


def _first_reason(board: Position, square: Square) -> str:
    """Why a piece of the side to move has no legal move at all."""
    for target in autumn_ash.SQUARES:
        if target != square:
            reason = autumn_ash.why_not_message(board, square, target)
            if reason and reason.id != autumn_ash.TOO_FAR:
                return words(reason)
    return gettext(
        "the %(piece)s on %(square)s has no legal move (X13)",
        piece=_named(board.top(square)),
        square=str(square),
    )


# --- the board: reading the forms ------------------------------------------------


def _parse_board(
    form: Mapping[str, str], state: BoardGame, me: str | None
) -> autumn_ash.SetUp | autumn_ash.Play | autumn_ash.Pass:
    action = form.get("action")
    if action == "setup":
        return _parse_setup(form, state)
    position = state.position
    if position is None:
        raise FormError(gettext("Place the six start pieces first."))
    to_move = state.to_move
    if to_move is None:
        raise FormError(gettext("The game is over: undo to take back the last move."))
    if me is not None and me != to_move:
        raise FormError(
            gettext("It is %(player)s's turn: this phone is %(me)s's.", player=to_move, me=me)
        )
    if action == "pass":
        return autumn_ash.Pass(to_move)
    if action != "move":
        raise FormError(gettext("That button does nothing in Autumn Ash. Reload the page."))
    entry = None
    if form.get("enter"):
        entry = _entry(form.get("enter"), position)
        if entry is None:
            raise FormError(
                gettext("That corner entry is not open any more. Look at the board again.")
            )
    origin, target = _square(form.get("from")), _square(form.get("to"))
    size = SIZE_WORDS.get(form.get("size", ""))
    if origin is None or target is None or size is None:
        raise FormError(gettext("Tap a piece, then a lit square, then the new size."))
    move = Move(origin, target, size, entry)
    # The listed move carries its path, so the log reads "A1→B1→B2"; a move
    # that is not listed goes to the referee as it is, to be refused with its reason.
    move = next((m for m in autumn_ash.legal_moves(position) if m == move), move)
    board = autumn_ash.after_entry(position, entry)
    mover = board.top(origin)
    colour = autumn_ash.next_colour(mover.colour) if mover else None
    becomes = f"{colour} {autumn_ash.SIZE_NAMES[size]}" if colour else "nothing"
    return autumn_ash.Play(
        player=to_move,
        move=move.text(),
        piece=str(mover) if mover else "nothing",
        becomes=becomes,
    )


def _parse_setup(form: Mapping[str, str], state: BoardGame) -> autumn_ash.SetUp:
    first = form.get("first", "")
    if first not in state.players:
        raise FormError(gettext("Choose who moves first."))
    if form.get("layout") == "ours":
        placements: list[tuple[str, str]] = [(p[0], p[1]) for p in autumn_ash.OUR_LAYOUT]
    else:
        placements = []
        for colour in ("green", "clear"):
            for size in (autumn_ash.QUEEN, autumn_ash.DRONE, autumn_ash.PAWN):
                piece = Piece(colour, size)
                square = _square(form.get(f"place-{piece.code}"))
                if square is None:
                    raise FormError(
                        gettext("Choose a square for the %(piece)s.", piece=_named(piece))
                    )
                placements.append((str(square), str(piece)))
    try:  # check here so the message comes before anything is written
        autumn_ash.start_position(placements, state.side(first))
    except RuleError as exc:
        raise FormError(words(message_of(exc))) from exc
    return autumn_ash.SetUp(tuple(placements), first)


# --- both modes --------------------------------------------------------------


def parse_action(form: Mapping[str, str], state: Any, me: str | None) -> Any:
    """A rules action of :mod:`companion.rules.autumn_ash` (the race or the board)."""
    if isinstance(state, BoardGame):
        return _parse_board(form, state, me)
    return _parse_bag(form, state)


def parse_options(form: Mapping[str, str], players: tuple[str, ...]) -> dict[str, Any]:
    choice = form.get("rainbow", "1")
    if choice not in ("1", "2"):
        raise FormError(gettext("Choose which player plays the Rainbow colours."))
    index = int(choice) - 1
    if len(players) != 2:
        raise FormError(
            words(
                refusal_n(
                    "autumn_ash.options.players",
                    "Autumn Ash is for 2 players; %(n)s was entered.",
                    "Autumn Ash is for 2 players; %(n)s were entered.",
                    "n",
                    n=len(players),
                )
            )
        )
    mode = form.get("mode", "race")
    if mode not in ("race", "board"):
        raise FormError(gettext("Choose how to play: referee the board, or only keep the score."))
    rules = form.get("rules", "standard")
    if rules not in ("standard", "beginner"):
        raise FormError(gettext("Choose the standard or the Beginner's rules."))
    options: dict[str, Any] = {"rainbow": players[index]}
    if mode == "board":
        options.update(mode="board", rules=rules)
    return options


def summary(state: Any) -> str:
    totals = state.totals
    if state.winner:
        return gettext(
            "%(player)s won with %(score)s", player=state.winner, score=totals[state.winner]
        )
    line = " · ".join(f"{p} {totals[p]}" for p in state.players)
    if isinstance(state, BoardGame):
        if state.position is None:
            return gettext("%(scores)s · setting up", scores=line)
        if state.to_move:
            return gettext("%(scores)s · %(player)s to move", scores=line, player=state.to_move)
        return gettext("%(scores)s · over", scores=line)
    return line


def _piece_text(text: object) -> str:
    """A piece named in a logged action ("red drone"), in this phone's language."""
    try:
        return words(Piece.parse(str(text)).message)
    except RuleError:
        return str(text)


def describe(action: Mapping[str, Any]) -> str:
    kind = action.get("type")
    player = str(action.get("player", "?"))
    if kind == "Play":
        return _describe_play(action)
    if kind == "Pass":
        return gettext("%(player)s had no legal move and passed", player=player)
    if kind == "SetUp":
        placements = action.get("placements") or []
        ours = [list(p) for p in autumn_ash.OUR_LAYOUT] == [list(p) for p in placements]
        first = str(action.get("first"))
        if ours:
            return gettext("Start pieces placed (our layout); %(player)s moves first", player=first)
        where = ", ".join(f"{_piece_text(p[1])} {p[0]}" for p in placements if len(p) == 2)
        return gettext(
            "Start pieces placed (%(where)s); %(player)s moves first", where=where, player=first
        )
    if kind != "Bag":
        return str(kind or "?")
    try:
        score = autumn_ash.score_bag(tuple(tuple(p) for p in action.get("pieces", ())))
    except (RuleError, TypeError):
        return gettext(
            "%(player)s bagged %(pieces)s", player=player, pieces=str(action.get("pieces"))
        )
    names = ", ".join(words(autumn_ash.piece_message(*p)) for p in score.pieces)
    return gettext(
        "%(player)s bagged %(pieces)s: %(score)s",
        player=player,
        pieces=names,
        score=words(score.message()),
    )


def _describe_play(action: Mapping[str, Any]) -> str:
    player = str(action.get("player", "?"))
    try:
        move = Move.parse(str(action.get("move", "")))
    except RuleError:
        return gettext("%(player)s moved %(move)s", player=player, move=str(action.get("move")))
    route = "→".join(str(s) for s in (move.origin, *(move.path or (move.destination,))))
    moved = gettext(
        "%(piece)s %(route)s, now %(article)s %(became)s",
        piece=_piece_text(action.get("piece")),
        route=route,
        article="an" if str(action.get("becomes"))[:1] in ("a", "e", "i", "o", "u") else "a",
        became=_piece_text(action.get("becomes")),
    )
    if move.entry:
        return gettext(
            "%(player)s: entered a new %(size)s at %(square)s; %(moved)s",
            player=player,
            size=words(autumn_ash.size_message(move.entry.size)),
            square=str(move.entry.square),
            moved=moved,
        )
    return gettext("%(player)s: %(moved)s", player=player, moved=moved)


@dataclass(frozen=True)
class AshScreen(Screen):
    """The screen plus the mirror's view model, which the board template calls."""

    mirror: Callable[[BoardGame, Mapping[str, str], str | None], Mirror | None] = mirror


SCREEN = AshScreen(
    game="autumn_ash",
    board_template="autumn_ash/_board.html",
    parse_action=parse_action,
    options_template="autumn_ash/_options.html",
    parse_options=parse_options,
    summary=summary,
    describe=describe,
)
