"""A solver for Autumn Leaves solitaire: a winning line, or a proof of a loss.

The solver knows every card (the companion dealt them), including the
face-down ones and the order of the hand, so what it answers is "can this
deal be won *with every card known*", which is more than a player can see.

How it searches: a portfolio of searches that rank positions differently
and miss different deals, each given its share of the budget (every
answer names the one that decided it, ``Solution.member``). First, for
``HEAD_START`` positions, the first best-first search below runs alone:
it breaks no run it need not, wins most deals at once, and its lines are
the short ones a player would take. Then come beam searches
(:class:`_Beam`), quick and incomplete: each keeps only the ``width`` most
promising new positions of every move number and goes on from those
alone, so it reaches the end of a deal (a win needs some 90 moves) after
``width x 90`` positions or so. A narrow beam wins most of the other deals
in a few milliseconds; one that finds nothing gives way to a wider one
(:data:`BEAMS`), for at most ``BEAM_SHARE`` of the budget. A beam that
finds nothing proves nothing: it threw positions away.

Then two best-first searches run side by side, taking turns of
a few positions each. Each one always goes on from the open position with
the lowest ``greed x score + moves made`` (see :class:`Weights`; a run
broken costs ``run_break`` moves), and
remembers every position it has seen so it never expands one twice. The two
differ only in their weights: a deal one of them wanders on is usually quick
for the other (the time a best-first search needs varies wildly from deal to
deal, and a second, differently tuned search cuts off that long tail). In
a long search a third one, depth first (:class:`_Dive`), joins them after
``DIVE_AFTER`` positions: it finds some wins they wander past. Should they
fill the memory cap, the time left goes to a few more beams
(:data:`AFTER_THE_CAP`), which can only win.

Why "lost" is a proof. No search ever throws a position away: every
legal successor of an expanded position goes on its queue (or stack) unless
the very same position was queued before. Positions are compared card for card,
face-down counts and cards dealt included; only once the hand is empty are
the piles compared as a set, because then which pile is which changes
nothing any more, and face-down cards that can never stop a run do not
count as face down (:func:`canonical_hidden`). So when one search's queue
runs empty, it has expanded every position reachable from the start, none
of them won, and the deal is lost. Running out of time, of positions
(``max_nodes``) or of memory (``MAX_POSITIONS``) before that leaves the
answer "unknown": never "lost".

No move is taken without branching: the moves other patience solvers call
safe (a card onto its successor, say) can lose a won position here, where
every higher card of one's suit is a parking place (the tests keep such
positions).

Compiled. ``pip install .`` compiles this very module with mypyc where the
machine can build C (``setup.py``), and a position then costs half as much;
``tests/operations/test_solitaire_compiled.py`` checks that the compiled module answers
exactly as this source, so keep it compilable (:data:`BUILD` says which runs).

>>> from companion.rules import solitaire
>>> game = solitaire.new_game(seed=1, layout=solitaire.Layout(3, 2, (1, 1, 1), 1))
>>> found = solve(game, budget=5)
>>> found.result, solitaire.replay(game, found.moves).won
('won', True)
"""

from __future__ import annotations

import functools
import gc
import heapq
import os
import struct
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, fields, replace
from operator import itemgetter
from typing import Any, Final, Literal

from ._switch import let_other_threads_run as _let_other_threads_run
from .solitaire import Deal, Move, State, apply, is_won

WON, LOST, UNKNOWN = "won", "lost", "unknown"
KNOWN_LINE: Final = "a line known before"  # Solution.member of KnownWins' answers

#: "compiled" when this module runs as mypyc built it (``setup.py``: about
#: twice as fast), "python" when it runs from its source.
BUILD = "python" if __file__.endswith((".py", ".pyc")) else "compiled"

# The clock is read before every expansion: a reading costs 0.1 µs, an
# expansion 10-30 µs (compiled or not; a few ms on a starved machine), so the search
# overruns its deadline only by what it takes to answer.
# Freeing a search's memory (a few small objects per position) happens inside
# the budget too, and takes a few percent of the time spent building it: so
# the search itself stops at 97 % of the budget, less 10 ms for the answer.
_SEARCH_SHARE = 0.97
_MARGIN = 0.01
_TURN: Final = 32  # expansions one search makes before the other takes its turn
# After each turn (and every _TURN positions of a narrow beam) the solver calls
# _let_other_threads_run: compiled by mypyc it would otherwise keep a server's
# other threads waiting for as long as it searched (see companion/rules/_switch.py).

# Memory. A best-first position costs 225 bytes (its key, its entry in the
# table of seen keys, the way back, its queue entry: the growth of
# ``resource.getrusage``'s peak over 3,728,270 positions of deal 70, 801 MiB),
# a depth-first one 146-150 (its key and table entry: 7,182,000 positions of
# deal 341, s9), a beam's about 150 (its key and table entry, and the
# successors of one move number: 119 MiB for 831,313 positions at width
# 2,560, 273 MiB for 1,864,135 at 10,240; a wide beam gives up at half the
# cap). Each kind is counted at its own cost, rounded up by the same 28 %
# (until s10 every position was counted at 288 bytes, and the long searches
# stopped at the cap with a third of it unused), and all the searches
# together stop at MEMORY_LIMIT_BYTES: 1 GiB. Measured with the interpreter,
# compiled (s14): 941 MiB resident at the peak of the searches of deal 6410,
# and 1,019 MiB for deal 806 once the beams after the cap have run too (some
# of the searches' memory stays resident after they are freed): little to
# spare, so any change that holds more needs measuring. ``max_positions``
# (of :func:`solve`) states the cap in best-first positions. Reaching the
# cap ends the search "unknown", never "lost": a search that stopped early
# has not covered every position.
MEMORY_LIMIT_BYTES = 1 << 30
POSITION_BYTES = 288  # a best-first position: the measured 225, rounded up for safety
LEAN_POSITION_BYTES = 192  # a depth-first or beam position: the measured 150, likewise
MAX_POSITIONS = MEMORY_LIMIT_BYTES // POSITION_BYTES
# The count above is an estimate; the memory the process really takes is
# measured as well (:class:`_Resident`), so that the bound holds whatever
# the count misses (what a wide beam holds beside its positions, the
# interpreter's own growth, a machine whose objects cost more). Every
# MEMORY_CHECK_EVERY expansions (some 30-80 ms of searching, at most a few
# MiB) the solver reads the process's resident memory, and stops "memory" once
# it has grown by MEMORY_LIMIT_BYTES less MEMORY_CHECK_MARGIN since the solve
# began: the margin covers the growth between two readings. A reading costs
# some 10 µs. Only Linux tells it (``/proc/self/statm``); elsewhere the count
# alone holds. The growth, not the total: what the process held before
# (the app, an earlier solve's freed memory it kept) is not the search's.
# (In a server, what other requests take meanwhile counts too: the measure
# errs on the safe side.)
MEMORY_CHECK_EVERY = 4096
MEMORY_CHECK_MARGIN = 32 << 20
# The beams' widths, tried in turn: doubling up to BEAM_ALONE (a failed
# narrow beam costs half the next), then four times (the wide ones take
# turns with the complete searches, and a long search needs the widest soon).
# Measured on deals 1-200 (26 Nov 2026, with Weights()): 32 % are won by the
# 10-wide beam alone, 72 % by the 40-wide one, 90 % by the 160-wide one; the
# best-first searches had needed a median of 4,000 positions (the 40-wide
# beam: 4,400, but a beam's position costs two thirds as much, with no queue
# to keep). Of the 23 deals of 1-1000 that the complete searches had left
# undecided after 60 s, beams up to 160 wide won 4, the 640-wide one 9
# more and the 2,560-wide one 3 more.
# Doubling rather than quadrupling the narrow ones took the median CPU time
# of deals 1-100 from 101 ms to 71 ms (simulated from each width's
# measured times). The beams alone stop at BEAM_SHARE of the budget, leaving
# the rest to the complete searches (the only ones that can prove a loss,
# and the source of a hint when nothing is won).
# (BEAMS itself is defined below Weights: one of its beams has weights of
# its own.)
BEAM_SHARE = 0.5
# Beams up to this width run alone, one after the other; wider ones take
# turns with the complete searches (see _search).
BEAM_ALONE = 160
# After each beam that runs alone and finds nothing, the complete searches go
# on for this share of the positions that beam took: deals that every beam
# misses and a best-first search wins at once are not held up for long
# (deal 574: 0.03 s alone, 1 s of CPU behind the beams of 10 to 160, 0.14 s
# with these turns). On deals 1-100 it costs the median some 7 ms of CPU
# (77 ms against 70; 80 ms with a share of 0.5).
BETWEEN_BEAMS = 0.25
# Move numbers after which a wide beam (wider than BEAM_ALONE) gives way to
# the next one, won or not. A beam never expands a position twice, but on
# some deals it finds new positions without end (cards parked and re-parked
# among the same places): on deal 8624 the 640-wide beam was still going
# 641 moves deep after 400,000 positions, so the 2,560-wide beam that wins
# that deal in 394,069 never started within 60 s. Wide beams won within 144
# moves on the slow deals measured (the 640-wide on 70 deals, s12). Narrow
# beams cost little however deep they go, and some win late (the 10-wide
# one won deal 8064 after 472 moves), so they had no such limit until s25
# (NARROW_BEAM_MOVES, for shorter lines).
WIDE_BEAM_MOVES = 300
# The same for a narrow beam (up to BEAM_ALONE), since s25: one that has
# not won after 150 move numbers is shuffling cards between parking places,
# and the line it would find is long (deals 54, 83 and 100 in 206, 163 and
# 233 moves). The next rung, or the complete searches, then win the deal in
# some 100 moves: mean line on deals 1-100 97.9 moves against 100.4 with no
# limit, every deal still decided within 2 s (s25, with a head start of
# 10,000). (Deal 8064, which the
# 10-wide beam won after 472 moves in s12, is left to wider searches.)
NARROW_BEAM_MOVES = 150
# Once the wide beams take turns with the complete searches, a wide beam
# gets this many expansions for each one of theirs. On the hardest deals it
# is the beams that win: with a turn like the others' (a quarter of the
# expansions once the depth-first search is in) deals 243 and 730 stayed
# undecided after 60 s of CPU, and with as many as the searches together
# both were won, in 28 and 51 s (s10, v8). Twice as many decided 7 more of
# the held-out deals 1001-3000 within 2 s of CPU (1,968 against 1,961, the
# same median; s14), and four times as many no more (1,968).
WIDE_BEAM_SHARE = 2
# Expanded positions after which a depth-first search joins the best-first
# ones (see _Dive): most deals are won before, and it would only slow them.
# It is for long searches only: in a budget under DIVE_BUDGET seconds (a
# hint, "Winnable?") it would take a third of the positions from the
# best-first searches, which win nearly every deal decided that quickly.
DIVE_AFTER = 20_000
DIVE_BUDGET = 10.0
# Positions the first complete search (the one that breaks no run it need
# not, see SEARCHES) expands alone before any beam starts. Its lines are
# short (a mean of 96 moves on deals 1-100, where the beams' are 105-115
# and some narrow ones' over 200), and it wins 93 of deals 1-100 (the 2 s
# run of s25): most hints then follow a line a player would take. 22,000
# rather than 10,000 (s25): deal 9 needs 21,292 of its positions and,
# behind the beams, took 1.98 s of CPU with 10,000; on held-out deals
# 1001-1300 at 2 s, 293 decided with 22,000, 294 with 10,000, 293 with the
# beams first. The price is the median deal's time (85 ms of CPU against
# 40 ms with the beams first). See docs/solitaire-solver.md, "The
# portfolio (s25)".
HEAD_START = 22_000

# The clock the budget is measured on; tests replace it with a fake one.
clock: Callable[[], float] = time.perf_counter


def _statm_resident_bytes() -> int | None:
    """The process's resident memory in bytes, or None where the system
    does not tell it (anything but Linux)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


# How the resident memory is read (see MEMORY_CHECK_EVERY); tests replace it.
resident_bytes: Callable[[], int | None] = _statm_resident_bytes


@dataclass(frozen=True)
class Weights:
    """How a search scores a position: an estimate of the work left.

    Every card that does not lie on its successor (the next higher card of its
    suit) must move at least once more. How much more work it is depends on
    what it lies on: parked on a higher card of its own suit it is cheap to
    put right (``parked``, plus ``parked_gap`` for each rank in between,
    which must all be slotted in); lying on another suit's card (or on a lower
    one of its own) it is dearer (``off_suit``). A pile whose bottom card is
    not a King must be taken apart (``bottom``); a face-down card cannot
    move yet (``face_down``); a card still in hand will land somewhere
    (``in_hand``). The search takes the open position with the lowest
    ``greed x score + moves made``; a best-first search (not a beam) counts
    ``run_break`` more moves for each move that lifts cards off their
    face-up successor, breaking a run that was in order.

    The weights were tuned at a fixed node budget on deals 1001-1080 (not the
    deals the benchmark reports on); the optimum is sharp, in ``in_hand``
    above all (it decides how soon the search deals), so change them only
    with ``benchmarks/solitaire.py`` at hand.
    """

    off_suit: float = 1.5
    parked: float = 1.1
    parked_gap: float = 0.1
    bottom: float = 1.5
    face_down: float = 1.0
    in_hand: float = 1.0
    greed: float = 2.0
    run_break: float = 0.0  # a multiple of 0.25: see _Search.expand


# The two best-first searches. Since s25 both are charged 16 moves for
# breaking a run (``run_break``): a run in order is split only when no
# line that keeps it looks as good. Alone, at 2 s of CPU, the first wins 98
# of deals 1-100 where it won 94 without (held-out deals 1001-1100: 97
# against 94, in two thirds of the CPU), among them deals 9, 21 and 23,
# which the whole solver missed within 2 s; and it wins deals 1181, 2193
# and 2200 (undecided at 60 s in s14) within 13 s. A charge of 1 to 4 did
# less (4: 9 won in 1.0 s against 0.6 s, 2200 not within 20 s); from 8 on
# it is a rule rather than a cost (16 and 1,000 expand the same positions
# on deals 1-100). An independent best-first solver with such a charge
# (issue 47) won the deals the solver missed: that is where it comes from.
RUN_BREAK = 16.0
SEARCHES = (
    Weights(run_break=RUN_BREAK),
    Weights(parked=1.0, in_hand=1.05, greed=2.2, run_break=RUN_BREAK),
)
# The beams' weights: a card in hand a little dearer, so a beam deals a little
# sooner. On deals 1-100 (measured 26 Nov 2026, the deals reported on, so
# the gain may be a little flattering) the beams of 10, 40 and 160 in turn
# then take a median of 101 ms of CPU a deal, against 115 ms with
# ``Weights()``; 1.2 is worse again for the wider beams (57 of 100 won at
# width 40 against 71).
BEAM_WEIGHTS = Weights(in_hand=1.1)
# The weights of every beam from 20 up, and of a second 10-wide one (s8):
# ranks in between a parked card and the card it lies on cost twice as much
# (``parked_gap``). Two narrow beams that rank positions differently miss
# different deals: on held-out deals 1001-1200 (26 Nov 2026) the 10-wide
# beam wins 82 alone and 85 with these weights, 114 the two together, where
# the 20-wide one (which costs both) wins 111. From 20 up these weights do
# better alone (s11, held-out deals 1001-1300, each beam alone: 185 against
# 178 won at width 20, 239 against 234 at 80); see BEAMS for the ladder.
BEAM_GAP_WEIGHTS = Weights(in_hand=1.1, parked_gap=0.2)


def _said(weights: Weights) -> str:
    """The weights that differ from ``Weights()``, as a member's name
    says them (" (run break 16)"), or ""."""
    plain = Weights()
    changed = []
    for field in fields(weights):
        value = getattr(weights, field.name)
        if value != getattr(plain, field.name):
            changed.append(f"{field.name.replace('_', ' ')} {value:g}")
    return f" ({', '.join(changed)})" if changed else ""


@dataclass(frozen=True)
class Beam:
    """One rung of the ladder of beams that is not a plain width (see
    :class:`_Beam`): its own weights, or ``by_deals``, an equal share of
    the width for each number of deals made (see :func:`_keep_by_deals`)."""

    width: int
    weights: Weights = BEAM_WEIGHTS
    by_deals: bool = False


# The ladder of beams (see the comments above BEAM_SHARE): a width, with
# BEAM_WEIGHTS, or a Beam. From 160 up they share out their width by deals
# made (s10). Measured each beam alone, 27 Nov 2026: on held-out deals
# 1001-1200 the 160-wide beam wins 165 plainly and 183 shared out (157 both);
# on the 34 deals of 1-1000 that the v5 run won after more than 2 s of CPU,
# a 640-wide one 16 against 25, a 2,560-wide one 27 against 31 (and it wins
# deals 243, 310 and 990, which nothing had won before). Narrower beams
# lose by it: at width 10, 82 plainly against 16 (a share of 1 or 2 a
# count), at 40, 145 against 136. The plain 160-wide beam stays, as a twin
# (one rung): without it five deals of 1-1000 that it wins in 0.6 s took
# 2-6 s (the v6 run).
# From 20 up every beam has BEAM_GAP_WEIGHTS (s11). The whole solver at 2 s
# of CPU, on held-out deals 1301-3300, wins 1,947 deals against 1,945 with
# BEAM_WEIGHTS there, in 7 % less CPU (320 s against 345), and 1,397 within
# 0.1 s against 1,369; the 2,560-wide beam alone still wins 243, 310 and
# 990, and 283 as well.
BeamSpec = int | Beam
BEAMS: tuple[BeamSpec, ...] = (
    10,
    Beam(10, BEAM_GAP_WEIGHTS),
    Beam(20, BEAM_GAP_WEIGHTS),
    Beam(40, BEAM_GAP_WEIGHTS),
    Beam(80, BEAM_GAP_WEIGHTS),
    Beam(160, BEAM_GAP_WEIGHTS),
    Beam(160, BEAM_GAP_WEIGHTS, by_deals=True),
    Beam(640, BEAM_GAP_WEIGHTS, by_deals=True),
    Beam(2560, BEAM_GAP_WEIGHTS, by_deals=True),
    Beam(10240, BEAM_GAP_WEIGHTS, by_deals=True),
)

# Beams for the time left once the complete searches fill the memory cap
# (MEMORY_LIMIT_BYTES). The cap ends them, and with them any hope of a
# proof; the time left (15-25 s of a 60 s budget, compiled) then goes to
# beams alone, in the memory the searches held, each with a fresh table.
# Only a win can come of them, and no deal decided before the cap is
# touched. Compiled, the cap binds first on 53 of the 55 deals of 1-10000
# left undecided at 60 s of CPU (s13). Beams that rank positions
# differently from the ladder's: each alone, on the 60 deals s11 left
# undecided, the gap of 0.5 won five, a card in hand at 1.0 with a gap of
# 0.1 three, the gap of 0.3 four (and on 54 deals won late, each about as
# many as the ladder's own 2,560-wide beam: s12). Widest-winning first.
# (A fourth, 10,240 wide, won deals 1389 and 2200 of 1-10000 in s14 but
# took the process over MEMORY_LIMIT_BYTES, beside what the searches leave
# resident. Held to the measured memory (MEMORY_CHECK_EVERY), it is stopped
# on both before it wins, at 1,024 and 1,025 MiB resident: s15.)
AFTER_THE_CAP: tuple[BeamSpec, ...] = (
    Beam(2560, Weights(in_hand=1.1, parked_gap=0.5), by_deals=True),
    Beam(2560, Weights(in_hand=1.0, parked_gap=0.1), by_deals=True),
    Beam(2560, Weights(in_hand=1.1, parked_gap=0.3), by_deals=True),
)


def _beam(spec: BeamSpec, state: State) -> _Beam:
    """A beam search of a rung from BEAMS (see there); a wide one stops
    after WIDE_BEAM_MOVES move numbers."""
    most = WIDE_BEAM_MOVES if _width(spec) > BEAM_ALONE else NARROW_BEAM_MOVES
    if isinstance(spec, int):
        return _Beam(BEAM_WEIGHTS, state, spec, max_moves=most)
    return _Beam(spec.weights, state, spec.width, by_deals=spec.by_deals, max_moves=most)


def _width(spec: BeamSpec) -> int:
    return spec if isinstance(spec, int) else spec.width


@dataclass(frozen=True)
class Solution:
    """What the solver found.

    ``result`` is ``"won"`` (``moves`` is a winning line from the position),
    ``"lost"`` (no sequence of moves wins: every reachable position was
    searched) or ``"unknown"`` (the budget ran out first). ``best_line`` is
    the line to the most promising position seen, for hints when unknown.
    ``nodes`` counts the positions expanded, by all the searches together.
    """

    result: str
    moves: tuple[Move | Deal, ...]
    seconds: float
    nodes: int
    best_line: tuple[Move | Deal, ...] = ()
    stopped_by: str = ""  # for "unknown": "time", "nodes" or "memory"
    # The search that decided ("best-first (run break 16)", "beam 10 (in
    # hand 1.1)": its kind, width and the weights that differ from
    # Weights()'s), KNOWN_LINE for a line known before, "" when unknown.
    member: str = ""


@dataclass(frozen=True)
class Hint:
    """The move to try next, and how sure the companion is about it.

    ``result`` is the solver's verdict from this position (see
    :class:`Solution`); ``move`` is the first move of a winning line when
    won, else the first move towards the best position the search saw (None
    when there is no move at all).
    """

    move: Move | Deal | None
    result: str
    line_length: int
    seconds: float


# A position inside the solver: piles as bytes (bottom → top), face-down
# counts, and how many cards of the hand have been dealt.
_Piles = tuple[bytes, ...]
_Hidden = tuple[int, ...]
_Step = bytes  # (source, target, count) as 3 bytes; 255 255 0 is a deal
_DEAL: Final[_Step] = b"\xff\xff\x00"
# (``Final`` on the constants read for every position: compiled, they are
# then C constants, not look-ups in the module's dictionary. With _STEPS as a
# plain dict, not an lru_cache, and the beams' counts by deals tallied as
# they go, 3.7 % of the CPU time of deals 738, 984, 922, 505 and 21, s14.)
_STEPS: Final[dict[int, list[list[list[_Step]]]]] = {}  # see _steps


def _steps(piles: int) -> list[list[list[_Step]]]:
    """Every move's step for ``piles`` piles, made once a process:
    ``_steps(piles)[source][target][count]`` (a run has 13 cards at most)."""
    table = _STEPS.get(piles)
    if table is None:
        table = [
            [[bytes((s, t, c)) for c in range(14)] for t in range(piles)] for s in range(piles)
        ]
        _STEPS[piles] = table
    return table


def canonical_hidden(pile: bytes | tuple[int, ...], hidden: int) -> int:
    """The face-down count that plays exactly like ``hidden`` on ``pile``.

    A face-down card matters only while it stops a run: when it is the next
    higher card of its suit below the card on it (face up it would join that
    card's run). Any other face-down card can never move before it comes to
    the top, and then it turns face up anyway. So the count is cut down to
    just above the highest face-down card that does stop a run; positions
    that differ only below that are the same position for every line.
    """
    for j in range(min(hidden, len(pile) - 1) - 1, -1, -1):
        if pile[j] == pile[j + 1] + 1:
            return j + 1
    return 0


def _key(piles: _Piles, hidden: _Hidden, dealt: int, hand_len: int) -> bytes:
    """The identity of a position (see the module text for the merges).

    Cards are below 64, so a 255 byte cannot be a card and separates the
    piles; a key with no deals left starts with 254. Face-down counts enter
    as :func:`canonical_hidden`.
    """
    if any(hidden):
        hidden = tuple(canonical_hidden(p, h) for p, h in zip(piles, hidden, strict=True))
    if dealt == hand_len:  # no deals left: the piles are interchangeable
        chunks = sorted([bytes((h,)) + p for p, h in zip(piles, hidden, strict=True)])
        return b"\xfe" + b"\xff".join(chunks)
    return _layout_bytes(piles, hidden, dealt)


def _layout_bytes(piles: _Piles, hidden: _Hidden, dealt: int) -> bytes:
    """The position in pile order: what a key is while deals are left."""
    return bytes((dealt, *hidden)) + b"\xff".join(piles)


def _won(piles: _Piles, suits: int, ranks: int) -> bool:
    count = 0
    for p in piles:
        if not p:
            continue
        if len(p) != ranks or p[0] & 15 != ranks:
            return False
        for i in range(1, ranks):
            if p[i] != p[i - 1] - 1:
                return False
        count += 1
    return count == suits


def _action(step: _Step) -> Move | Deal:
    return Deal() if step == _DEAL else Move(*step)


class _Scores:
    """The :class:`Weights` as lookup tables: ``link[below][card]`` is what a
    card costs lying on ``below``, ``base[card]`` what it costs at the bottom."""

    def __init__(self, weights: Weights, ranks: int) -> None:
        self.weights = weights
        self.link = [[weights.off_suit] * 64 for _ in range(64)]
        for below in range(64):
            for card in range(64):
                if below >> 4 != card >> 4 or below <= card:
                    continue
                gap = below - card - 1
                self.link[below][card] = (
                    0.0 if gap == 0 else (weights.parked + weights.parked_gap * (gap - 1))
                )
        self.base = [0.0 if card & 15 == ranks else weights.bottom for card in range(64)]

    def of(self, piles: _Piles, hidden: _Hidden, in_hand: int) -> float:
        link, base = self.link, self.base
        score = self.weights.in_hand * in_hand + self.weights.face_down * sum(hidden)
        for pile in piles:
            if pile:
                score += base[pile[0]]
                for below, card in zip(pile, pile[1:], strict=False):
                    score += link[below][card]
        return score


@functools.lru_cache(maxsize=32)
def _scores(weights: Weights, ranks: int) -> _Scores:
    """The tables of ``weights``, built once a process: building them takes
    0.2 ms, once for every search and beam (deals 1-150 at 2 s, taking
    turns: median 55.1 ms of CPU against 56.8). They are only read, so
    searches and threads share them."""
    return _Scores(weights, ranks)


# A successor: (change in score, step, piles, face-down counts, cards dealt,
# key). (Until s9 it also carried the position in pile order with its real
# face-down counts, which no search read: building it cost some 4 % of a beam.)
_Child = tuple[float, _Step, _Piles, _Hidden, int, bytes]
_NOTHING_SEEN: frozenset[bytes] = frozenset()


def _children(
    piles: _Piles,
    hidden: _Hidden,
    dealt: int,
    hand: bytes,
    scores: _Scores,
    seen: Container[bytes] = _NOTHING_SEEN,
    canon: list[int] | None = None,
) -> Iterator[_Child]:
    """Every successor of a position, with the change in its score and its
    key (:func:`_key`), in a fixed order; those whose key is in ``seen`` when
    their turn comes are left out (a caller that adds each key it is given
    to ``seen`` before asking for the next thus never gets a key twice).

    Exactly the rules engine's successors (a test checks it, and the keys
    against :func:`_key`), except moves that give back the same position once
    no deals are left: a whole pile into a space, or a second space for the
    same cards.

    Why it is quick: a move changes two piles, so the key is built from the
    parent's pieces. A pile's canonical face-down count (see
    :func:`canonical_hidden`) only looks at cards at or below its lowest
    face-up card, which cards put on top never change: only the source
    pile's is worked out again, once for all the targets of its run. Nothing
    but the key is built for a successor already seen. ``canon``, the
    position's canonical counts, saves working them out when known.
    """
    link, base = scores.link, scores.base
    face_down = scores.weights.face_down
    width = len(piles)
    steps = _steps(width)
    hand_len = len(hand)
    no_deals = dealt >= hand_len
    if canon is None:
        canon = [canonical_hidden(p, h) if h else 0 for p, h in zip(piles, hidden, strict=True)]
    # No deals left: keys are the piles sorted, each led by its count.
    chunks = [bytes((h,)) + p for h, p in zip(canon, piles, strict=True)] if no_deals else []
    header = b"" if no_deals else bytes((dealt, *canon))
    # The highest top card of each suit (0 for none), and whether a pile is
    # empty: most runs go nowhere, and are passed over on these alone.
    # ``targets[suit]``: the piles a card of that suit may go onto, in pile
    # order (so the successors keep their order), with their top card (0 for
    # a space); a card need not look at the other suits' piles at all.
    highest = [0] * 4
    space = False
    targets: list[list[tuple[int, int]]] = [[], [], [], []]
    for t, dest in enumerate(piles):
        if dest:
            top = dest[-1]
            if top > highest[top >> 4]:
                highest[top >> 4] = top
            targets[top >> 4].append((t, top))
        else:
            space = True
            for suit_targets in targets:
                suit_targets.append((t, 0))
    for s in range(width):
        pile = piles[s]
        n = len(pile)
        if not n:
            continue
        # The run's cards rise by one from the top down, so those with a
        # higher card of their suit on top somewhere are the top ``most``;
        # with a space, every one of them may move.
        most = n if space else highest[pile[-1] >> 4] - pile[-1]
        if most <= 0:
            continue  # nowhere to go: the run need not even be measured
        h = hidden[s]
        run = 1
        while run < most and n - run - 1 >= h and pile[n - run - 1] == pile[n - run] + 1:
            run += 1
        for c in range(1, run + 1):
            card = pile[n - c]
            left = n - c
            rest, moving = pile[:left], pile[left:]
            if left:
                new_h = h if h < left else left - 1  # S2: the new top turns up
                lifted = -link[rest[-1]][card] - face_down * (h - new_h)
            else:
                new_h = 0
                lifted = -base[card]
            if new_h == h:  # nothing turned up: the pile's canonical count stays
                new_hidden, rest_canon = hidden, canon[s]
                child_header = header
            else:
                new_hidden = hidden[:s] + (new_h,) + hidden[s + 1 :]
                rest_canon = canonical_hidden(rest, new_h) if new_h else 0
                if not no_deals:
                    child_canon = canon.copy()
                    child_canon[s] = rest_canon
                    child_header = bytes((dealt, *child_canon))
            if no_deals:
                rest_chunk = bytes((rest_canon,)) + rest
            space_done = False
            for t, top in targets[card >> 4]:
                if top:
                    if top <= card:  # the source pile too: its top is in the run
                        continue
                    change = lifted + link[top][card]
                else:
                    if no_deals and (c == n or space_done):
                        continue  # the same position with the piles swapped
                    space_done = True
                    change = lifted + base[card]
                new_piles = list(piles)
                new_piles[s] = rest
                new_piles[t] = piles[t] + moving
                if no_deals:
                    sorted_chunks = chunks.copy()
                    sorted_chunks[s] = rest_chunk
                    sorted_chunks[t] += moving
                    sorted_chunks.sort()
                    key = b"\xfe" + b"\xff".join(sorted_chunks)
                else:
                    key = child_header + b"\xff".join(new_piles)
                if key in seen:
                    continue
                yield change, steps[s][t][c], tuple(new_piles), new_hidden, dealt, key
    if not no_deals:
        deal = hand[dealt : dealt + width]
        change = -scores.weights.in_hand * width
        for pile, card in zip(piles, deal, strict=True):
            change += link[pile[-1]][card] if pile else base[card]
        dealt_piles = tuple(map(bytes.__add__, piles, _one_by_one(deal)))
        if dealt + width >= hand_len:  # the last deal
            key = b"\xfe" + b"\xff".join(
                sorted(bytes((h,)) + p for h, p in zip(canon, dealt_piles, strict=True))
            )
        else:
            key = bytes((dealt + width, *canon)) + b"\xff".join(dealt_piles)
        if key not in seen:
            yield change, _DEAL, dealt_piles, hidden, dealt + width, key


@functools.lru_cache(maxsize=64)
def _one_by_one(cards: bytes) -> tuple[bytes, ...]:
    """``cards`` as one-card pieces (a deal's, one for each pile): a deal's
    cards are the same for every position that makes it."""
    return tuple(cards[i : i + 1] for i in range(len(cards)))


# A queue entry is one int that sorts exactly like the tuple (priority,
# score, tie): each float as 64 bits that sort like it, then the tie. One
# small int instead of a tuple of three objects saves some 90 bytes an open
# position (see MAX_POSITIONS), and the score is read back from it.
_DOUBLE: Final = struct.Struct("<d")
_BITS: Final = struct.Struct("<Q")
_SIGN: Final = 1 << 63
_ALL: Final = (1 << 64) - 1


def _sortable(value: float) -> int:
    """64 bits that sort like ``value`` (an IEEE double, not NaN)."""
    bits = int.from_bytes(_DOUBLE.pack(value), "little")
    return bits ^ _ALL if bits & _SIGN else bits | _SIGN


def _unsortable(bits: int) -> float:
    """The float :func:`_sortable` came from."""
    (value,) = _DOUBLE.unpack(_BITS.pack(bits & ~_SIGN if bits & _SIGN else bits ^ _ALL))
    return float(value)


def _fix(piles: _Piles, hidden: _Hidden) -> bytes:
    """What a key leaves out: the real face-down counts, and each pile's
    bottom card (0 for none), which tells the real order of sorted piles."""
    return bytes(hidden) + bytes([pile[0] if pile else 0 for pile in piles])


class _Search:
    """One best-first search over the positions reachable from the start.

    Its memory is what bounds a long search (see ``MAX_POSITIONS``), so a
    position costs as few objects as it can: its key in ``seen``, its place
    in ``where`` (by a number, its id), the id it came from and the step in
    flat arrays, and one int in the queue.
    """

    position_bytes = POSITION_BYTES

    def __init__(self, weights: Weights, state: State) -> None:
        layout = state.layout
        self.scores = _scores(weights, layout.ranks)
        self.name = "best-first" + _said(weights)
        self.greed = weights.greed
        self.run_break = weights.run_break
        self.suits, self.ranks, self.width = layout.suits, layout.ranks, layout.piles
        self.hand = bytes(state.hand)
        piles: _Piles = tuple(bytes(p) for p in state.piles)
        score = self.scores.of(piles, state.hidden, len(self.hand))
        root = _key(piles, state.hidden, 0, len(self.hand))
        # Every position ever queued, by key: the table that makes the search
        # exhaustive. Bytes only, so the garbage collector need not look in.
        self.seen: set[bytes] = {root}
        # By id (the order positions were queued in, 0 the start): the key,
        # the real face-down counts and bottom cards (``fixes``, 2 bytes a
        # pile), where the line came from, and the step. A key holds
        # canonical counts (:func:`canonical_hidden`) and, with no deals
        # left, the piles sorted, while the score counts the real face-down
        # cards and the steps number the real piles: the bottom cards put the
        # piles back in order (they differ, save empty piles, which are alike).
        self.where: list[bytes] = [root]
        self.fixes = bytearray(_fix(piles, state.hidden))
        self.back = array("i", [-1])
        self.steps = bytearray(_DEAL)  # the start's step is never read
        # Open positions as ints sorting like (greed x score + moves made,
        # score, newest first): see _sortable.
        self.queue: list[int] = [self._entry(self.greed * score, score, 0)]
        self.best_score, self.best_id = score, 0
        self.won_id: int | None = None

    @staticmethod
    def _entry(priority: float, score: float, ident: int) -> int:
        return (_sortable(priority) << 128) | (_sortable(score) << 64) | (_SIGN - ident)

    @property
    def size(self) -> int:
        """Positions held (queued or expanded)."""
        return len(self.where)

    def expand(self) -> None:
        """Expand the most promising open position; sets ``won_id`` on a win."""
        entry = heapq.heappop(self.queue)
        ident = _SIGN - (entry & _ALL)
        score = _unsortable((entry >> 64) & _ALL)
        priority = _unsortable(entry >> 128)
        hand, hand_len, seen = self.hand, len(self.hand), self.seen
        where, fixes, back, steps, queue = self.where, self.fixes, self.back, self.steps, self.queue
        greed, run_break = self.greed, self.run_break
        # The moves made once this one is, each run broken counted as
        # run_break more: read back from the priority, to the quarter move
        # that run_break is a multiple of (the float sum is not exact).
        made = round(4 * (priority - greed * score)) / 4 + 1
        piles, hidden, dealt = self.position(ident)
        entry_of, push = self._entry, heapq.heappush
        for change, step, c_piles, c_hidden, c_dealt, c_key in _children(
            piles,
            hidden,
            dealt,
            hand,
            self.scores,
            seen,
            None if dealt == hand_len else list(where[ident][1 : 1 + self.width]),
        ):
            seen.add(c_key)  # before the next child: see _children
            child = len(where)
            where.append(c_key)
            fixes += _fix(c_piles, c_hidden)
            back.append(ident)
            steps += step
            if c_dealt == hand_len and _won(c_piles, self.suits, self.ranks):
                self.won_id = child
                return
            c_score = score + change
            if c_score < self.best_score:
                self.best_score, self.best_id = c_score, child
            cost = made + run_break if run_break and _breaks_run(piles, hidden, step) else made
            push(queue, entry_of(greed * c_score + cost, c_score, child))

    def position(self, ident: int) -> tuple[_Piles, _Hidden, int]:
        """The piles (in their real order), face-down counts and cards dealt."""
        key, width = self.where[ident], self.width
        fix = self.fixes[2 * width * ident : 2 * width * (ident + 1)]
        hidden = tuple(bytes(fix[:width]))  # mypyc cannot iterate a bytearray
        if key[0] != 0xFE:
            return tuple(key[1 + width :].split(b"\xff")), hidden, key[0]
        by_bottom = {chunk[1]: chunk[1:] for chunk in key[1:].split(b"\xff") if len(chunk) > 1}
        piles = tuple(by_bottom[bottom] if bottom else b"" for bottom in bytes(fix[width:]))
        return piles, hidden, len(self.hand)

    @property
    def won_line(self) -> tuple[Move | Deal, ...] | None:
        return None if self.won_id is None else self.line_to(self.won_id)

    def line_to(self, ident: int) -> tuple[Move | Deal, ...]:
        steps: list[Move | Deal] = []
        while ident > 0:
            steps.append(_action(bytes(self.steps[3 * ident : 3 * ident + 3])))
            ident = self.back[ident]
        return tuple(reversed(steps))


def _breaks_run(piles: _Piles, hidden: _Hidden, step: _Step) -> bool:
    """Whether ``step`` lifts cards off their successor lying face up
    (the next higher card of their suit): a run in order is split. (Off a
    face-down successor it is not: that turns the successor up.)"""
    if step == _DEAL:
        return False
    source, _, count = step
    pile = piles[source]
    left = len(pile) - count  # the cards that stay
    return left > hidden[source] and pile[left - 1] == pile[left] + 1


class _Dive:
    """A depth-first search: from each position it tries the successors
    cheapest first (the change in score of :class:`Weights`), and it never
    expands a position twice (a table of every position seen, like the
    best-first searches). It finds some wins the best-first searches wander
    past, and a position costs it only its key: no queue, no way back (the
    line is the stack).

    Why its "lost" is a proof too: a position enters ``seen`` only as it is
    expanded (its successors listed on the stack), and every listed
    successor is expanded in turn unless it was seen. So an empty stack
    means every position reachable from the start was expanded.
    """

    position_bytes = LEAN_POSITION_BYTES

    def __init__(self, weights: Weights, state: State) -> None:
        layout = state.layout
        self.name = "depth-first" + _said(weights)
        self.scores = _scores(weights, layout.ranks)
        self.suits, self.ranks = layout.suits, layout.ranks
        self.start = state
        self.hand = bytes(state.hand)
        piles: _Piles = tuple(bytes(p) for p in state.piles)
        self.seen: set[bytes] = {_key(piles, state.hidden, 0, len(self.hand))}
        self.path = bytearray()  # the steps to the position on top of the stack
        self.won_line: tuple[Move | Deal, ...] | None = None
        # Each position on the way, its successors still to try: cheapest last.
        self.queue: list[list[_Child]] = [self._successors(piles, state.hidden, 0)]

    @property
    def size(self) -> int:
        return len(self.seen)

    def _successors(self, piles: _Piles, hidden: _Hidden, dealt: int) -> list[_Child]:
        children = list(_children(piles, hidden, dealt, self.hand, self.scores, self.seen))
        if dealt + len(piles) >= len(self.hand):  # a win is at most one step away
            for child in children:
                if child[4] == len(self.hand) and _won(child[2], self.suits, self.ranks):
                    self.won_line = _shortcut(self.start, self.line() + (_action(child[1]),))
                    break
        children.sort(key=_change, reverse=True)
        return children

    def expand(self) -> None:
        """Expand the next position (sets ``won_line`` on a win), or
        backtrack until there is one, or empty the stack."""
        stack, seen, path = self.queue, self.seen, self.path
        while stack:
            children = stack[-1]
            if not children:
                stack.pop()
                del path[-3:]  # the start's frame has no step: path is empty then
                continue
            _, step, piles, hidden, dealt, key = children.pop()
            if key in seen:
                continue
            seen.add(key)
            path += step
            stack.append(self._successors(piles, hidden, dealt))
            return

    def line(self) -> tuple[Move | Deal, ...]:
        return tuple(_action(bytes(self.path[i : i + 3])) for i in range(0, len(self.path), 3))


class _Beam:
    """A beam search: it expands every position of one move number, keeps
    the ``width`` successors with the lowest score (:class:`Weights`; ties in
    the order they came) and goes on from those alone. Positions seen before
    (in the same table as the best-first searches use) are left out.

    Why it helps: a best-first search compares positions of every move
    number, and on this game's wide plateaus (cards parked and re-parked at
    the same cost) it wanders among short lines before it goes deep. A beam
    compares only positions as far along as each other, so it always goes
    deeper. It is not complete: ``done`` means it ran out of positions to
    keep, or made ``max_moves`` move numbers (None: no limit), which proves
    nothing. With ``by_deals`` it keeps an equal share of ``width`` for
    each number of deals made (:func:`_keep_by_deals`).
    """

    position_bytes = LEAN_POSITION_BYTES

    def __init__(
        self,
        weights: Weights,
        state: State,
        width: int,
        *,
        by_deals: bool = False,
        max_moves: int | None = None,
    ) -> None:
        layout = state.layout
        self.name = f"beam {width}{' by deals' if by_deals else ''}{_said(weights)}"
        self.scores = _scores(weights, layout.ranks)
        self.suits, self.ranks, self.width = layout.suits, layout.ranks, width
        self.by_deals = by_deals
        self.hand = bytes(state.hand)
        piles: _Piles = tuple(bytes(p) for p in state.piles)
        root = _key(piles, state.hidden, 0, len(self.hand))
        self.seen: set[bytes] = {root}
        score = self.scores.of(piles, state.hidden, len(self.hand))
        # (score, piles, face-down counts, cards dealt, the way here, key): the
        # way is a chain of (the way to the parent, step), None at the start.
        self.level: list[_BeamNode] = [(score, piles, state.hidden, 0, None, root)]
        self.index = 0  # the next position of ``level`` to expand
        self.following: list[_BeamNode] = []  # their successors
        self.counts: dict[int, int] = {}  # theirs by cards dealt (with by_deals)
        self.won_line: tuple[Move | Deal, ...] | None = None
        self.done = False
        self.moves = 0  # the move number of ``level``
        self.max_moves = max_moves

    @property
    def size(self) -> int:
        return len(self.seen)

    def expand(self) -> None:
        """Expand the next position of this move number (sets ``won_line``
        on a win); after the last one, keep the best ``width`` successors."""
        score, piles, hidden, dealt, way, key = self.level[self.index]
        self.index += 1
        hand, seen, following = self.hand, self.seen, self.following
        # While deals are left the key holds the canonical face-down counts,
        # which _children would otherwise work out again (7 % of a beam).
        canon = None if dealt == len(hand) else list(key[1 : 1 + len(piles)])
        before = len(following)
        dealing = 0  # its successor that deals, if any (always the last one)
        for change, step, c_piles, c_hidden, c_dealt, c_key in _children(
            piles, hidden, dealt, hand, self.scores, seen, canon
        ):
            seen.add(c_key)  # before the next child: see _children
            if c_dealt == len(hand) and _won(c_piles, self.suits, self.ranks):
                self.won_line = _unwind((way, step))
                return
            following.append((score + change, c_piles, c_hidden, c_dealt, (way, step), c_key))
            dealing = c_dealt - dealt
        if self.by_deals:  # how many successors each number of deals made has
            counts = self.counts
            moves = len(following) - before - (1 if dealing else 0)
            if moves:
                counts[dealt] = counts.get(dealt, 0) + moves
            if dealing:
                counts[dealt + dealing] = counts.get(dealt + dealing, 0) + 1
        if self.index == len(self.level):
            following.sort(key=_SCORE_OF)  # stable: ties keep the order they came in
            if self.by_deals:
                following = _keep_by_deals(following, self.width, self.counts)
                self.counts = {}
            self.level, self.following, self.index = following[: self.width], [], 0
            self.moves += 1
            self.done = not self.level or self.moves == self.max_moves

    @property
    def best_line(self) -> tuple[Move | Deal, ...]:
        """The line to the best position of the furthest move number reached."""
        return _unwind(self.level[0][4]) if self.level else ()


# A beam's position: (score, piles, face-down counts, cards dealt, way, key),
# the way being (the parent's way, step), None at the start. (The parent's
# way is typed Any: mypyc, which compiles this module, crashes on a
# recursive alias.)
_Way = tuple[Any, _Step] | None
_BeamNode = tuple[float, _Piles, _Hidden, int, _Way, bytes]


# A beam position's score, as a sort key: in C, where a function of ours
# (boxing the float it returns) took 5 % of a 640-wide beam.
_SCORE_OF = itemgetter(0)


def _keep_by_deals(ranked: list[_BeamNode], width: int, counts: dict[int, int]) -> list[_BeamNode]:
    """The ``width`` best of ``ranked`` (in its order) for a beam that
    shares its width out equally among the numbers of deals made (a share
    of at least one: with more counts than ``width``, the best ones);
    ``counts`` says how many of ``ranked`` there are of each number.

    Why: a plain beam soon holds only positions that dealt at the same
    moment, since dealing changes the score by whole cards at once; a deal
    whose win needs another moment for a deal (often a later one, with more
    cards sorted first) is then out of every beam. A share that no position
    fills is left empty: filling it with the best of the others did no
    better in a trial (deals 1001-1200 at width 40: 134 won, against 136).
    """
    if not counts:
        return []
    share = max(1, width // len(counts))
    # Stop as soon as every share is full (or the width): a wide beam ranks
    # tens of thousands of successors and keeps a few hundred.
    room = min(width, sum(min(share, count) for count in counts.values()))
    taken = dict.fromkeys(counts, 0)
    kept = []
    for node in ranked:
        dealt = node[3]
        if taken[dealt] < share:
            taken[dealt] += 1
            kept.append(node)
            if len(kept) == room:
                break
    return kept


def _unwind(way: _Way) -> tuple[Move | Deal, ...]:
    steps: list[Move | Deal] = []
    while way is not None:
        way, step = way
        steps.append(_action(step))
    return tuple(reversed(steps))


def _shortcut(state: State, line: tuple[Move | Deal, ...]) -> tuple[Move | Deal, ...]:
    """``line`` without its detours: from each position on it, the one move
    that reaches the latest position further along it (a few ms for a line
    of hundreds of moves). The depth-first search's lines wander (it takes
    the first move that looks cheapest, not the shortest way); the positions
    are compared exactly (piles in order, real face-down counts), so the
    rest of the line still applies, and the result still ends in the same
    won position."""
    hand, width = bytes(state.hand), state.layout.piles
    scores = _scores(SEARCHES[0], state.layout.ranks)
    here: list[tuple[_Piles, _Hidden, int]] = []
    dealt = 0
    for action in (None, *line):
        if action is not None:
            state = apply(state, action)
            dealt += width if isinstance(action, Deal) else 0
        here.append((tuple(bytes(p) for p in state.piles), state.hidden, dealt))
    where = {_layout_bytes(*position): i for i, position in enumerate(here)}
    short: list[Move | Deal] = []
    i = 0
    while i < len(line):
        best, step = i + 1, line[i]
        for _, c_step, c_piles, c_hidden, c_dealt, _ in _children(*here[i], hand, scores):
            j = where.get(_layout_bytes(c_piles, c_hidden, c_dealt), 0)
            if j > best:
                best, step = j, _action(c_step)
        short.append(step)
        i = best
    return tuple(short)


def _change(child: _Child) -> float:
    return child[0]


def _stop(out_of_nodes: bool, out_of_time: bool, out_of_memory: bool) -> str:
    """Why a search stops undecided ("" while it may go on); the memory is
    the stated bound (see MAX_POSITIONS)."""
    if out_of_nodes:
        return "nodes"
    if out_of_time:
        return "time"
    return "memory" if out_of_memory else ""


def solve(
    state: State,
    budget: float = 2.0,
    *,
    max_nodes: int | None = None,
    searches: tuple[Weights, ...] = SEARCHES,
    max_positions: int = MAX_POSITIONS,
    dive_after: int | None | Literal["auto"] = "auto",
    beams: tuple[BeamSpec, ...] = BEAMS,
    after_the_cap: tuple[BeamSpec, ...] = AFTER_THE_CAP,
    head_start: int = HEAD_START,
) -> Solution:
    """Search for a winning line from ``state`` for at most ``budget`` seconds
    and, when given, at most ``max_nodes`` expanded positions (a budget that
    makes the answer the same on any machine).

    The first of the best-first ``searches`` goes first, alone, for
    ``head_start`` positions (see :data:`HEAD_START`; 0 for none). Beam
    searches of the given ``beams`` widths come next, one after the
    other, for at most ``BEAM_SHARE`` of the budget (see :class:`_Beam`;
    ``()`` for none). Then the best-first ``searches`` take turns; once ``dive_after`` positions
    are expanded without an answer, a depth-first search (:class:`_Dive`)
    joins them (None: never; "auto": after ``DIVE_AFTER`` when the budget
    is at least ``DIVE_BUDGET`` seconds, else never). Should the searches
    fill the memory cap, the ``after_the_cap`` beams use the time left
    (see :data:`AFTER_THE_CAP`). Every returned
    winning line replays to a win through
    :func:`companion.rules.solitaire.apply`; "lost" only comes from an
    exhausted search (see the module text). The clock is read before
    every position and the search stops early enough to free its memory
    within the budget too (it runs inside a web request). Raises nothing
    for a legal state. ``member`` names the search that decided.
    """
    start = clock()
    deadline = start + _SEARCH_SHARE * max(0.0, budget) - _MARGIN
    if is_won(state):
        return Solution(WON, (), clock() - start, 0)
    if dive_after == "auto":
        dive_after = DIVE_AFTER if budget >= DIVE_BUDGET else None
    # The searches build hundreds of thousands of small objects and no cycles:
    # Python's cycle collector would only walk them all, now and then, for
    # tens of milliseconds, and overrun the budget. It is off while we search.
    collecting = gc.isenabled()
    gc.disable()
    resident = _Resident()
    try:
        found = _search(
            state,
            searches,
            deadline,
            max_nodes,
            max_positions,
            dive_after,
            beams,
            start + BEAM_SHARE * (deadline - start),
            resident,
            head_start,
        )
        if found.stopped_by == "memory" and after_the_cap:
            # The searches' memory is free by now: _search has returned.
            found = _beams_after_the_cap(
                state, found, after_the_cap, deadline, max_nodes, max_positions, resident
            )
    finally:  # the searches' memory is freed by now
        if collecting:
            gc.enable()
    return replace(found, seconds=clock() - start)


def _search(
    state: State,
    searches: tuple[Weights, ...],
    deadline: float,
    max_nodes: int | None,
    max_positions: int,
    dive_after: int | None,
    beams: tuple[BeamSpec, ...],
    beams_until: float,
    resident: _Resident,
    head_start: int,
) -> Solution:
    """The first search alone for ``head_start`` positions, the beams,
    then the searches taking turns (see :func:`solve`);
    ``seconds`` is left 0. ``resident`` measures the process's memory
    (:class:`_Resident`)."""
    nodes = 0
    node_cap = float("inf") if max_nodes is None else max_nodes
    firsts = [_Search(weights, state) for weights in searches]
    runs: list[_Search | _Dive] = list(firsts)
    beam_line: tuple[Move | Deal, ...] = ()
    beam: _Beam | None = None  # the wide beam taking turns, once there is one
    wide = [spec for spec in beams if _width(spec) > BEAM_ALONE]
    cap = max_positions * POSITION_BYTES  # the memory all the searches may hold

    def expansions(run: _Search | _Dive, count: int, room: int) -> Solution | None:
        """Up to ``count`` expansions of one complete search, which may hold
        ``room`` positions: the answer, or None to go on."""
        nonlocal nodes
        for _ in range(count):
            if run.won_line is not None:
                break
            if not run.queue:  # exhausted, and not won (just above)
                return Solution(LOST, (), 0.0, nodes, _best_line(firsts), member=run.name)
            stop = _stop(
                nodes >= node_cap,
                clock() >= deadline,
                run.size >= room or resident.over(nodes),
            )
            if stop:
                best = _best_line(firsts) or beam_line
                return Solution(UNKNOWN, (), 0.0, nodes, best, stop)
            run.expand()
            nodes += 1
        line = run.won_line
        return None if line is None else Solution(WON, line, 0.0, nodes, line, member=run.name)

    def turns(until: float) -> Solution | None:
        """Turns of the complete searches (and of the wide beam, if any)
        until ``nodes`` reaches ``until``: the answer, or None to go on (or
        when there is no complete search to take turns)."""
        nonlocal nodes, dive_after, beam
        while nodes < until:
            if dive_after is not None and (nodes >= dive_after or not runs):
                runs.append(_Dive(searches[0] if searches else Weights(), state))
                dive_after = None
            if not runs:
                return None  # no complete search was asked for
            beam_bytes = 0 if beam is None else _bytes(beam)
            for run in runs:
                # Only this search grows during its turn: the others' memory is fixed.
                others = sum(_bytes(r) for r in runs if r is not run) + beam_bytes
                room = (cap - others) // run.position_bytes  # positions it may hold
                found = expansions(run, _TURN, room)
                if found is not None:
                    return found
                _let_other_threads_run()
            if beam is None:
                continue
            others = sum(_bytes(r) for r in runs)
            room = (cap - others) // beam.position_bytes
            # The wide beam gets WIDE_BEAM_SHARE times the expansions of the
            # complete searches together: on the hardest deals it is the beams
            # that win (see WIDE_BEAM_SHARE).
            for _ in range(WIDE_BEAM_SHARE * _TURN * len(runs)):
                if beam.won_line is not None:
                    return Solution(WON, beam.won_line, 0.0, nodes, beam.won_line, member=beam.name)
                if beam.done or _bytes(beam) >= cap // 2:
                    # Ran dry or WIDE_BEAM_MOVES deep, or holds half the memory the
                    # complete searches may need: the next width (a fresh table),
                    # or no beam any more.
                    beam = _beam(wide.pop(0), state) if wide else None
                    break
                stop = _stop(
                    nodes >= node_cap,
                    clock() >= deadline,
                    beam.size >= room or resident.over(nodes),
                )
                if stop:
                    best = _best_line(firsts) or beam_line
                    return Solution(UNKNOWN, (), 0.0, nodes, best, stop)
                beam.expand()
                nodes += 1
            _let_other_threads_run()
        return None

    # The first complete search alone, before any beam (HEAD_START): most
    # deals it wins at once, in a line shorter than a beam's.
    for _ in range(0, head_start if firsts else 0, _TURN):
        found = expansions(firsts[0], _TURN, cap // firsts[0].position_bytes)
        if found is not None:
            return found
        _let_other_threads_run()
    if head_start and firsts:  # the narrow beams' share is of the time it left
        now = clock()
        beams_until = now + BEAM_SHARE * (deadline - now)
    narrows = [spec for spec in beams if _width(spec) <= BEAM_ALONE]
    began = nodes
    for i, spec in enumerate(narrows):
        narrow = _beam(spec, state)
        # The positions it may hold beside the complete searches' so far.
        room = (cap - sum(_bytes(r) for r in runs)) // narrow.position_bytes
        while not narrow.done:
            if narrow.won_line is not None:
                line = narrow.won_line
                return Solution(WON, line, 0.0, nodes, line, member=narrow.name)
            now = clock()
            if nodes >= node_cap or now >= deadline:
                stop = "nodes" if nodes >= node_cap else "time"
                best = _best_line(firsts) or narrow.best_line
                return Solution(UNKNOWN, (), 0.0, nodes, best, stop)
            if now >= beams_until or narrow.size >= room or resident.over(nodes):
                break  # the complete searches' turn
            narrow.expand()
            nodes += 1
            if not nodes % _TURN:
                _let_other_threads_run()
        beam_line = narrow.best_line
        if not narrow.done:
            break  # stopped by its share of the time or by memory: wider ones would be too
        del narrow  # its memory is free before the complete searches go on
        if i + 1 < len(narrows) and _width(narrows[i + 1]) == _width(spec):
            # A twin of the same width comes next: the two are one rung of the
            # ladder, and the turns below come after both (for their positions
            # together). On deals 1-200 the median deal is won by the twin.
            continue
        # Between two beams, the complete searches go on for a while: some
        # deals that every beam misses they win at once (deal 574: 29 ms
        # alone, 2.6 s behind the beams of 10 to 160).
        found = turns(nodes + BETWEEN_BEAMS * (nodes - began))
        if found is not None:
            return found
        began = nodes
    # The wider beams take turns with the complete searches instead: alone
    # they would hold up, for many seconds, the deals that a best-first search
    # wins at once (deal 35: 29 s behind a ladder of beams, 0.07 s without).
    beam = _beam(wide.pop(0), state) if wide else None
    found = turns(float("inf"))
    if found is None:  # no complete search was asked for: nothing proves a loss
        return Solution(UNKNOWN, (), 0.0, nodes, beam_line, "nodes")
    return found


def _beams_after_the_cap(
    state: State,
    capped: Solution,
    beams: tuple[BeamSpec, ...],
    deadline: float,
    max_nodes: int | None,
    max_positions: int,
    resident: _Resident,
) -> Solution:
    """The ``beams``, one after the other, alone, for the time and
    positions ``capped`` (a search stopped by the memory cap) left, and
    within the measured memory (``resident``): a win, or ``capped`` itself
    with the positions counted (never "lost": a beam throws positions away)."""
    nodes = capped.nodes
    node_cap = float("inf") if max_nodes is None else max_nodes
    room = max_positions * POSITION_BYTES // LEAN_POSITION_BYTES
    for spec in beams:
        beam = _beam(spec, state)
        while not beam.done and beam.size < room and not resident.over(nodes):
            if beam.won_line is not None:
                return Solution(WON, beam.won_line, 0.0, nodes, beam.won_line, member=beam.name)
            stop = _stop(nodes >= node_cap, clock() >= deadline, False)
            if stop:
                return replace(capped, nodes=nodes, stopped_by=stop)
            beam.expand()
            nodes += 1
            if not nodes % _TURN:
                _let_other_threads_run()
        if beam.won_line is not None:  # won on its very last position
            return Solution(WON, beam.won_line, 0.0, nodes, beam.won_line, member=beam.name)
    return replace(capped, nodes=nodes)


class _Resident:
    """Whether the process has grown by the memory limit since the solve
    began, read every MEMORY_CHECK_EVERY expansions (see there)."""

    def __init__(self) -> None:
        self.start = resident_bytes()
        self.next_reading = MEMORY_CHECK_EVERY

    def over(self, nodes: int) -> bool:
        """Whether the limit is reached, ``nodes`` positions into the solve
        (the memory is read only once every MEMORY_CHECK_EVERY of them)."""
        if self.start is None or nodes < self.next_reading:
            return False
        self.next_reading = nodes + MEMORY_CHECK_EVERY
        now = resident_bytes()
        return now is not None and now - self.start >= MEMORY_LIMIT_BYTES - MEMORY_CHECK_MARGIN


def _bytes(run: _Search | _Dive | _Beam) -> int:
    """The memory a search holds, as MAX_POSITIONS counts it."""
    return run.size * run.position_bytes


def _best_line(runs: list[_Search]) -> tuple[Move | Deal, ...]:
    """The line to the most promising position any best-first search saw,
    judged by the first search's weights so that the scores compare."""
    if not runs:
        return ()
    yardstick = runs[0].scores

    def score(run: _Search) -> float:
        piles, hidden, dealt = run.position(run.best_id)
        return yardstick.of(piles, hidden, len(run.hand) - dealt)

    best = min(runs, key=score)
    return best.line_to(best.best_id)


def hint(state: State, budget: float = 1.0, *, max_nodes: int | None = None) -> Hint:
    """The next move to try: the first move of a winning line if the solver
    finds one within ``budget`` seconds, otherwise the first move towards the
    most promising position it saw (or, with nothing better, the first legal
    move it would try). ``move`` is None only when no move is possible."""
    return hint_from(state, solve(state, budget, max_nodes=max_nodes))


def hint_from(state: State, found: Solution) -> Hint:
    """The hint a :class:`Solution` for ``state`` gives (see :func:`hint`):
    so a hint and a verdict from the same search always agree."""
    line = found.moves if found.result == WON else found.best_line
    move: Move | Deal | None = line[0] if line else None
    if move is None and not is_won(state):
        scores = _scores(SEARCHES[0], state.layout.ranks)
        piles = tuple(bytes(p) for p in state.piles)
        children = _children(piles, state.hidden, 0, bytes(state.hand), scores)
        cheapest = min(children, key=lambda child: child[0], default=None)
        if cheapest is not None:
            move = _action(cheapest[1])
    return Hint(move, found.result, len(line), found.seconds)


class KnownWins:
    """Winning lines found before, kept by position, so that asking twice
    gives the same answer. A line found from one position wins from every
    position along it too, so each of those is remembered with the rest of
    the line. Holds at most ``size`` positions, dropping the least recently
    used; safe to share between threads.

    ``shipped(state)``, when given, is asked before any search: a winning
    line known ahead (the app passes :func:`solitaire_deals.winning_line`,
    the lines shipped for the deals the solver takes longest on), or None.
    """

    def __init__(
        self,
        size: int = 5000,
        *,
        shipped: Callable[[State], tuple[Move | Deal, ...] | None] | None = None,
    ) -> None:
        self.size = size
        self.shipped = shipped
        self._lines: OrderedDict[tuple[object, ...], tuple[Move | Deal, ...]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(state: State) -> tuple[object, ...]:
        return (state.layout, state.piles, state.hidden, state.hand)

    def line_from(self, state: State) -> tuple[Move | Deal, ...] | None:
        """A known winning line from ``state``, or None."""
        with self._lock:
            line = self._lines.get(self._key(state))
            if line is not None:
                self._lines.move_to_end(self._key(state))
            return line

    def remember(self, state: State, line: tuple[Move | Deal, ...]) -> None:
        """Remember ``line`` (which wins from ``state``) for every position on it."""
        on_the_way = []
        for i, move in enumerate(line):
            on_the_way.append((self._key(state), line[i:]))
            state = apply(state, move)
        with self._lock:
            for key, rest in on_the_way:
                self._lines[key] = rest
                self._lines.move_to_end(key)
            while len(self._lines) > self.size:
                self._lines.popitem(last=False)

    def solve(
        self,
        state: State,
        budget: float,
        *,
        max_nodes: int | None = None,
        run: Callable[..., Solution] | None = None,
    ) -> Solution:
        """:func:`solve`, answered at once when a winning line is known.

        ``run(search, state, budget, max_nodes=...)`` runs the search itself
        when given (a server runs it off its event loop); the known lines stay
        on the caller's side of it.
        """
        known = self.line_from(state)
        if known is None and self.shipped is not None:
            known = self.shipped(state)
            if known is not None:  # the positions along it are known now too
                self.remember(state, known)
        if known is not None:
            return Solution(WON, known, 0.0, 0, known, member=KNOWN_LINE)
        if run is None:
            found = solve(state, budget, max_nodes=max_nodes)
        else:
            found = run(solve, state, budget, max_nodes=max_nodes)
        if found.result == WON:
            self.remember(state, found.moves)
        return found
