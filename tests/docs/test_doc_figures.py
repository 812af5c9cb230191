"""Every figure the docs state comes from somewhere a reader can check
(issue 44, item 6).

A measured figure (a count with thousands separators, or a number with a
unit: µs, ms, s, %, positions) on any page of docs/ or in README.md is
sourced in one of four ways:

- it is printed by a console block on the page (``tests/docs/test_docs.py``
  runs those blocks and compares their output);
- its section (split at ``## ``) gives the command that measures it, naming a
  file or subcommand that exists, and the date of the measure, and, for a
  time, the machine's load (timings differ from machine to machine and from
  minute to minute: a reader reruns the command rather than expecting the
  same seconds);
- it is one the code holds (a default, a limit, a constant), and a test
  here reads it from the code and compares (``FROM_CODE``, ``PINNED``);
- it is not a measurement at all (a rule's numbers, an example message, the
  settings a measure was taken with): ``NOT_MEASURED`` and
  ``SETTINGS_OF_A_RUN`` name the words around it and say why, page by page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion import cli
from companion.rules import scorepad, solitaire_deals, solitaire_solver
from companion.tables import core, join_codes, models, notify
from companion.tables.games import solitaire as solitaire_games
from companion.web import costly, imports, ratelimit, solitaire_pages, stream
from companion.web import help as help_pages
from printables import proof, services

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [
    *sorted(p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md") if "site" not in p.parts),
    "README.md",
]

#: A measured figure: a count with thousands separators, or a number with a
#: unit. A number right after a minus sign (−3) is a score, never a measure.
FIGURE = re.compile(
    r"(?<![\w.,−])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(µs|ms|s|%|positions)?(?!\w)"
)
TIME_UNITS = ("µs", "ms", "s")
#: A command in backticks that measures: a script of benchmarks/ or docs/
#: (``python benchmarks/x.py``, ``.venv/bin/python -m benchmarks.x``, or the
#: script alone with its options, as the deploying page gives them), a
#: ``leafpile`` subcommand, ``pytest`` on named tests, a shell script of
#: docs/, or ``pdftoppm``.
COMMAND = (
    r"(?:(?:\.venv/bin/)?python3? )?(?:benchmarks|docs)/\w+\.py\b[^`\n]*"
    r"|(?:\.venv/bin/)?python3? -m benchmarks\.\w+[^`\n]*"
    r"|leafpile \w[^`\n]*"
    r"|(?:\.venv/bin/)?pytest [^`\n]*"
    r"|(?:bash )?docs/\w+\.sh[^`\n]*"
    r"|pdftoppm [^`\n]*"
)
MEASURING = re.compile(rf"`(?:[A-Z_]+=\S+ )*({COMMAND})`")  # settings may come first
#: The same commands on a line of a shell block (``sh``; optionally after ``$ ``).
SHELL_LINE = re.compile(rf"^(?:\$ )?(?:[A-Z_]+=\S+ )*({COMMAND})", re.M)
SHELLS = ("sh", "bash", "shell")  # a console block sources what it prints, no more
DATE = re.compile(r"(?<!\d)(\d{1,2} Nov(?:ember)? 20\d\d|20\d\d-\d\d-\d\d)(?!\d)")
#: The machine's load as a number ("load 4.5-6.9", "load average about 6"), or
#: a table's column of it.
LOAD = re.compile(
    r"\bload(?: average)?s?\b(?:\s+(?:of|about|at|was|is|around|between|from))*[\s:(]*\d"
    r"|\|\s*load[^|\n]*\|",
    re.I,
)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
LEAFPILE_COMMANDS = set(
    next(
        action.choices
        for action in cli._build_parser()._actions
        if action.dest == "command" and action.choices
    )
)


def _measured(text: str) -> list[re.Match[str]]:
    """The figures of ``text`` that a machine measured: counts, and numbers with a unit."""
    return [m for m in FIGURE.finditer(text) if "," in m.group(1) or m.group(2)]


def _figures(text: str) -> list[str]:
    return [m.group(0) for m in _measured(text)]


def _sections(text: str) -> list[str]:
    return re.split(r"^## ", text, flags=re.M)


def _widths(beams: tuple[solitaire_solver.BeamSpec, ...]) -> list[int]:
    return [b if isinstance(b, int) else b.width for b in beams]


def _package_text(name: str) -> str:
    return (ROOT / "companion" / "rules" / name).read_text(encoding="utf-8")


def _console_output(text: str) -> str:
    return "\n".join(
        line
        for language, body in FENCE.findall(text)
        if language == "console"
        for line in body.splitlines()
        if not line.startswith("$ ")
    )


def _names_what_exists(command: str) -> bool:
    """A command counts only if what it runs is there: the script, the test
    files, the ``leafpile`` subcommand."""
    words = re.findall(r"[^\s'\"\\]+", command)
    if words[0] == "leafpile":
        return words[1] in LEAFPILE_COMMANDS
    module = re.fullmatch(r"(?:\.venv/bin/)?python3? -m (benchmarks\.\w+)", " ".join(words[:3]))
    paths = [module.group(1).replace(".", "/") + ".py"] if module else []
    paths += [w.split("::")[0] for w in words if re.match(r"(benchmarks|docs|tests)/", w)]
    if words[0] == "pdftoppm":
        return all((ROOT / p).exists() for p in paths)
    return bool(paths) and all((ROOT / p).exists() for p in paths)


def _commands(section: str) -> list[str]:
    """The commands ``section`` gives, in its prose or its shell blocks, that run
    something that exists."""
    prose = FENCE.sub("", section)
    given = MEASURING.findall(prose) + [
        command
        for language, body in FENCE.findall(section)
        if language in SHELLS
        for command in SHELL_LINE.findall(body)
    ]
    return [command for command in given if _names_what_exists(command)]


def _spans(text: str, phrases: list[str]) -> list[tuple[int, int]]:
    """Where each phrase stands: every time it does (the same words are
    sourced, or are no measure, wherever the page repeats them)."""
    spans = []
    for phrase in phrases:
        found = [m.span() for m in re.finditer(re.escape(phrase), text)]
        assert found, f"the page no longer says {phrase!r}: update the list"
        spans += found
    return spans


@dataclass(frozen=True)
class Unsourced:
    section: str
    figure: str


def unsourced(page: str, text: str | None = None) -> list[Unsourced]:
    """The measured figures of ``page`` (or of ``text`` as that page) that nothing sources."""
    if text is None:
        text = (ROOT / page).read_text(encoding="utf-8")
    printed = _console_output(text)
    known = _spans(
        text,
        [said for p, said, _ in FROM_CODE if p == page]
        + [said for p, said, _, _ in PINNED if p == page]
        + [said for p, said, _ in NOT_MEASURED if p == page],
    ) + [
        match.span()
        for p, pattern, _ in SETTINGS_OF_A_RUN
        if p == page
        for match in re.finditer(pattern, text)
    ]
    found = []
    offset = 0
    for section in _sections(text):
        start = text.index(section, offset)
        offset = start + len(section)
        # Blocks are not prose: a console block's output is compared in
        # test_docs.py; masked so positions still line up with the page.
        prose = FENCE.sub(lambda m: " " * len(m.group(0)), section)
        commands, dated = _commands(section), DATE.search(prose)
        for match in _measured(prose):
            at = start + match.start()
            if any(a <= at < b for a, b in known):
                continue
            number, unit = match.groups()
            if re.search(rf"(?<![\d,.]){re.escape(number)}(?![\d,])", printed) or re.search(
                rf"(?<![\d,.]){re.escape(number.replace(',', ''))}(?![\d.])", printed
            ):
                continue
            if commands and dated and (unit not in TIME_UNITS or LOAD.search(prose)):
                continue
            found.append(Unsourced(section.splitlines()[0], match.group(0)))
    return found


# Sections whose figures are not all sourced yet: (page, the section's
# heading) and what is left, said plainly. Nothing else may be unsourced, and
# a section that has become clean must leave this list.
WORK_LEFT: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("page", PAGES)
def test_every_measured_figure_has_its_command_date_and_load_or_is_printed(page):
    left = [u for u in unsourced(page) if (page, u.section) not in WORK_LEFT]
    assert left == [], f"figures {page} states with nothing behind them"


@pytest.mark.parametrize(("page", "section"), list(WORK_LEFT))
def test_a_section_with_work_left_still_has_it(page, section):
    assert any(u.section == section for u in unsourced(page)), "done: drop it from WORK_LEFT"


def test_the_check_finds_a_figure_with_nothing_behind_it():
    section = "## Speed\n\nThe solver takes 87,900 positions and 2.5 s, and wins 98 %.\n"
    assert _figures(section) == ["87,900 positions", "2.5 s", "98 %"]
    assert _figures("wins 97.5%. Or 12 deals, 20th, 3 GiB") == ["97.5%"]
    assert not (_commands(section) or DATE.search(section))


def test_a_score_after_a_minus_sign_is_no_measure_but_seconds_after_a_dash_are():
    assert _figures("tokens, −3s, animals") == []
    assert _figures("each run took 9-15 s") == ["15 s"]


@pytest.mark.parametrize(
    ("command", "counts"),
    [
        ("python benchmarks/kit.py", True),
        (".venv/bin/python -m benchmarks.kit --repeat 3", True),
        ("python benchmarks/nowhere.py --fast", False),
        ("benchmarks/load.py --deploy --sweep", True),
        ("docs/install.md", False),
        (".venv/bin/python -m benchmarks.nowhere", False),
        ("leafpile solve --seed 563", True),
        ("leafpile conjure --seed 563", False),
        (".venv/bin/pytest tests/docs/test_doc_figures.py -q", True),
        (".venv/bin/pytest tests/docs/gone.py", False),
        ("bash docs/measure_install.sh", True),
        ("bash docs/measure_nothing.sh", False),
        ("pdftoppm -png -r 150 kit.pdf kit", True),
    ],
)
def test_a_command_counts_only_if_what_it_names_exists(command, counts):
    assert bool(_commands(f"Run `{command}` on 2026-11-28.")) is counts


def test_a_time_needs_the_machines_load_beside_its_command_and_date():
    timed = "## Speed\n\n`leafpile solve --seed 1` took 2.5 s on 2026-11-28.\n"
    assert unsourced("probe.md", timed) == [Unsourced("Speed", "2.5 s")]
    assert unsourced("probe.md", timed.replace("took", "took (load 3.1)")) == []
    assert unsourced("probe.md", timed.replace("took", "took (load not recorded)")) != []


def test_a_shell_block_gives_a_command_and_a_console_block_only_what_it_prints():
    shell = (
        "## Speed\n\nOn 2026-11-28 (load 2.0) it took 2.5 s:\n\n"
        "```sh\npython benchmarks/kit.py\n```\n"
    )
    assert unsourced("probe.md", shell) == []
    console = shell.replace("```sh\npython", "```console\n$ python")
    assert unsourced("probe.md", console) == [Unsourced("Speed", "2.5 s")]
    printed = (
        "## Speed\n\nIt took 2.5 s.\n\n```console\n$ leafpile solve --seed 1\ntook 2.5 s\n```\n"
    )
    assert unsourced("probe.md", printed) == []


def test_deal_100s_figure_is_the_one_its_console_block_prints():
    """The figure in the prose is the one the block's command prints (the block runs in
    tests/docs/test_docs.py); the old 87,900 was read off a time-budgeted run (deal 563,
    the example until s25)."""
    text = (DOCS / "install.md").read_text(encoding="utf-8")
    assert "87,900" not in text
    block = re.search(r"\$ leafpile solve --seed 100 --max-nodes \d+ --budget \d+\n(.*)", text)
    assert block, "the command behind deal 100's figure"
    nodes = re.search(r'"nodes": (\d+)', block.group(1)).group(1)
    assert re.search(rf"after {int(nodes):,}\s+positions", text)


# Join codes: 300 addresses at their limit for the 2 hours a code lives.
_GUESSES = 300 * ratelimit.MAX_FAILURES * 120


def _locator(length: int) -> int:
    return len(join_codes.JOIN_ALPHABET) ** join_codes.locator_length(length)


def _secret(length: int) -> int:
    return len(join_codes.JOIN_ALPHABET) ** (length - join_codes.locator_length(length))


# Figures the code holds: (page, what the page says, what it says with the
# code's value in it). The page must say both, so a changed constant fails.
FROM_CODE: list[tuple[str, str, str]] = [
    (
        "docs/solitaire.md",
        "no win in 1.5 s (what",
        f"no win in {solitaire_pages.HERE_BUDGET} s (what",
    ),
    (
        "docs/solitaire-solver.md",
        "same time (1.5 s;",
        f"same time ({solitaire_pages.HERE_BUDGET} s;",
    ),
    (
        "docs/solitaire-solver.md",
        "gets\n0.5 s more)",
        f"gets\n{solitaire_pages.START_BUDGET} s more)",
    ),
    (
        "docs/solitaire-solver.md",
        "The memory holds 5,000 positions",
        f"The memory holds {solitaire_solver.KnownWins().size:,} positions",
    ),
    (
        "docs/solitaire-solver.md",
        "A phone waits 1.5 s, and",
        f"A phone waits {solitaire_pages.HERE_BUDGET} s, and",
    ),
    (
        "docs/solitaire-solver.md",
        "took more than 1.5 s of CPU",
        f"took more than {solitaire_pages.HERE_BUDGET} s of CPU",
    ),
    (
        "docs/solitaire-solver.md",
        "more than the 0.5 s the check",
        f"more than the {solitaire_pages.START_BUDGET} s the check",
    ),
    (
        "docs/solitaire-solver.md",
        "more than 20,000 positions (`LINES_ABOVE`; 956 of the 9,964 won\ndeals)",
        f"more than {solitaire_deals.LINES_ABOVE:,} positions (`LINES_ABOVE`; "
        f"{len(solitaire_deals.parse_lines(_package_text(solitaire_deals.LINES_FILE))):,} "
        f"of the {len(solitaire_deals.load().winnable):,} won\ndeals)",
    ),
    (
        "docs/configuration.md",
        "backoff (0.5 s doubled up to 10 s)",
        f"backoff ({models.FIRST_RETRY_SECONDS:g} s doubled up to {models.LAST_RETRY_SECONDS:g} s)",
    ),
    (
        "docs/configuration.md",
        "a heartbeat every 20 s",
        f"a heartbeat every {stream.HEARTBEAT_SECONDS:g} s",
    ),
    ("docs/rulings.md", "within ±100,000;", f"within ±{scorepad.MAX_POINTS:,};"),
    *(
        ("docs/printing.md", said, said.replace("30 %", f"{proof.SCALE:.0%}".replace("%", " %")))
        for said in [
            "the cards at\n30 %, to check",
            "Every card of each deck at 30 %, numbered",
            "each deck at 30 %, numbered, and",
        ]
    ),
    *(
        (
            "docs/printing.md",
            said,
            said.replace("240 %", f"{services.INK_LIMIT:.0%}".replace("%", " %")),
        )
        for said in [
            "total ink at most 240 %, fonts",
            "the 240 % ink limit",
            "the four inks still pass 240 %",
        ]
    ),
    (
        "docs/deploying.md",
        "slow poll (60 s, `LEAFPILE_FALLBACK_POLL_SECONDS`)",
        f"slow poll ({stream.FALLBACK_POLL_SECONDS} s, `LEAFPILE_FALLBACK_POLL_SECONDS`)",
    ),
    (
        "docs/deploying.md",
        "heartbeat event every 20 s (`LEAFPILE_STREAM_HEARTBEAT`)",
        f"heartbeat event every {stream.HEARTBEAT_SECONDS:g} s (`LEAFPILE_STREAM_HEARTBEAT`)",
    ),
    (
        "docs/deploying.md",
        "polls within about 90 s",
        # a silent stream is noticed after 1.5 heartbeats + 2 s, then the slow poll comes
        "polls within about "
        f"{round(1.5 * stream.HEARTBEAT_SECONDS + 2 + stream.FALLBACK_POLL_SECONDS, -1):.0f} s",
    ),
    (
        "docs/deploying.md",
        "plus every 2 s the version of each table",
        f"plus every {notify.SQLITE_FULL_CHECK_SECONDS:g} s the version of each table",
    ),
    (
        "docs/deploying.md",
        "the snapshots of the last 2,048 table versions",
        f"the snapshots of the last {core.SNAPSHOT_CACHE_SIZE:,} table versions",
    ),
    (
        "docs/deploying.md",
        "sat idle for 10 s\nor more (`PING_AFTER_IDLE_SECONDS`",
        f"sat idle for {core.PING_AFTER_IDLE_SECONDS:g} s\nor more (`PING_AFTER_IDLE_SECONDS`",
    ),
    (
        "docs/deploying.md",
        "connection used in the last 10 s fails once",
        f"connection used in the last {core.PING_AFTER_IDLE_SECONDS:g} s fails once",
    ),
    (
        "docs/deploying.md",
        "trying again in 0.5 s`",
        f"trying again in {models.FIRST_RETRY_SECONDS:g} s`",
    ),
    (
        "docs/deploying.md",
        "| 75 s (a stream beats every 20 s) |",
        f"| 75 s (a stream beats every {stream.HEARTBEAT_SECONDS:g} s) |",
    ),
    (
        "docs/deploying.md",
        "an address with under 3 s of",
        f"an address with under {costly.LIGHT_SECONDS} s of",
    ),
    (
        "docs/deploying.md",
        "**Import limits**: 512 KB, 5,000 events, 10 s of replay",
        f"**Import limits**: {imports.MAX_IMPORT_BYTES // 1024} KB, "
        f"{imports.MAX_IMPORT_EVENTS:,} events, {imports.MAX_REPLAY_SECONDS:g} s of replay",
    ),
    (
        "docs/deploying.md",
        "its log at most **5,000 events**",
        f"its log at most **{imports.MAX_IMPORT_EVENTS:,} events**",
    ),
    *(
        ("docs/deploying.md", said, holds)
        for said, holds in [
            (
                "(10\nwrong codes a minute) for the 2 hours a code lives: 360,000 guesses",
                f"({ratelimit.MAX_FAILURES}\nwrong codes a minute) for the 2 hours a code lives: "
                f"{_GUESSES:,} guesses",
            ),
            (
                "| 8 characters (`deploy/serve`) | 50 in 390,625 | 1 in 390,625 | **0.00012** "
                "| 5 in 390,625 (1 in 78,000) |",
                f"| 8 characters (`deploy/serve`) | 50 in {_locator(8):,} | 1 in {_secret(8):,} "
                f"| **{_GUESSES * 50 / _locator(8) / _secret(8):.2g}** "
                f"| {join_codes.MAX_MISSES} in {_secret(8):,} "
                f"(1 in {round(_secret(8) / join_codes.MAX_MISSES, -3):,.0f}) |",
            ),
            (
                "| 5 characters (`leafpile`) | 50 in 625 | 1 in 15,625 | under 0.05 "
                "| 5 in 15,625 (1 in 3,125) |",
                f"| 5 characters (`leafpile`) | 50 in {_locator(5):,} | 1 in {_secret(5):,} "
                f"| under 0.05 | {join_codes.MAX_MISSES} in {_secret(5):,} "
                f"(1 in {_secret(5) // join_codes.MAX_MISSES:,}) |",
            ),
            (
                "With 8 characters the 360,000 guesses",
                f"With 8 characters the {_GUESSES:,} guesses",
            ),
            ("1 in 390,625 chance", f"1 in {_secret(8):,} chance"),
            (
                "(at most 1 in 3,125 each)",
                f"(at most 1 in {_secret(5) // join_codes.MAX_MISSES:,} each)",
            ),
        ]
    ),
    (
        "docs/solitaire-solver.md",
        "as 16 moves, not one (`RUN_BREAK`",
        f"as {solitaire_solver.RUN_BREAK:g} moves, not one (`RUN_BREAK`",
    ),
    (
        "docs/solitaire-solver.md",
        "for its first 22,000 positions (`HEAD_START`)",
        f"for its first {solitaire_solver.HEAD_START:,} positions (`HEAD_START`)",
    ),
    (
        "docs/solitaire-solver.md",
        "after 150 move numbers gives way too\n(`NARROW_BEAM_MOVES`",
        f"after {solitaire_solver.NARROW_BEAM_MOVES} move numbers gives way too\n"
        "(`NARROW_BEAM_MOVES`",
    ),
    (
        "docs/solitaire-solver.md",
        "The wider ones (640, 2,560, 10,240)",
        "The wider ones ({:,}, {:,}, {:,})".format(*_widths(solitaire_solver.BEAMS)[-3:]),
    ),
    (
        "docs/solitaire-solver.md",
        "and 640, 2,560 and 10,240\nshared out",
        "and {:,}, {:,} and {:,}\nshared out".format(*_widths(solitaire_solver.BEAMS)[-3:]),
    ),
    (
        "docs/solitaire-solver.md",
        "*Winnable?*'s 1.5 s never",
        f"*Winnable?*'s {solitaire_pages.HERE_BUDGET} s never",
    ),
    (
        "docs/solitaire-solver.md",
        "about what 1.5 s allows",
        f"about what {solitaire_pages.HERE_BUDGET} s allows",
    ),
    (
        "docs/solitaire-solver.md",
        "taking turns\nof 32 positions each",
        f"taking turns\nof {solitaire_solver._TURN} positions each",
    ),
    (
        "docs/solitaire-solver.md",
        "(a budget of 10 s or more, `DIVE_BUDGET`",
        f"(a budget of {solitaire_solver.DIVE_BUDGET:g} s or more, `DIVE_BUDGET`",
    ),
    (
        "docs/solitaire-solver.md",
        "once 20,000 positions are expanded without an answer\n(`DIVE_AFTER`",
        f"once {solitaire_solver.DIVE_AFTER:,} positions are expanded without an answer\n"
        "(`DIVE_AFTER`",
    ),
    (
        "docs/solitaire-solver.md",
        "**3,728,270 positions**\n(`MAX_POSITIONS`: 1 GiB at 288 bytes each",
        f"**{solitaire_solver.MAX_POSITIONS:,} positions**\n(`MAX_POSITIONS`: "
        f"{solitaire_solver.MEMORY_LIMIT_BYTES >> 30} GiB at "
        f"{solitaire_solver.POSITION_BYTES} bytes each",
    ),
    (
        "docs/solitaire-solver.md",
        "gives up at 1,864,135 positions, half the cap",
        f"gives up at {solitaire_solver.MAX_POSITIONS // 2:,} positions, half the cap",
    ),
    (
        "docs/solitaire-solver.md",
        "801 MiB\nat 3,728,270 positions",
        f"801 MiB\nat {solitaire_solver.MAX_POSITIONS:,} positions",
    ),
    (
        "docs/solitaire-solver.md",
        "stops its search at 97 % of the budget less 10 ms",
        f"stops its search at {solitaire_solver._SEARCH_SHARE:.0%}".replace("%", " %")
        + f" of the budget less {solitaire_solver._MARGIN * 1000:g} ms",
    ),
    (
        "docs/solitaire-solver.md",
        "A seed outside 0 to\n999,999,999, a budget outside 0 to 600 seconds (or not a number)"
        " and a node\nbudget outside 1 to 500,000 are refused",
        f"A seed outside 0 to\n{solitaire_games.MAX_DEAL:,}, a budget outside 0 to "
        f"{cli._MAX_SECONDS} seconds (or not a number) and a node\nbudget outside 1 to "
        f"{cli._MAX_NODES:,} are refused",
    ),
]

# Figures a file of the repo holds that Python cannot import (a script of the
# phone, a test's pinned figure): (page, what the page says, the file, what
# the file says).
PINNED: list[tuple[str, str, str, str]] = [
    (
        "docs/configuration.md",
        "one and a half heartbeats and 2 s",
        "companion/static/stream.js",
        "beat * 1500 + 2000",
    ),
    *(
        ("docs/developing.md", "runs the three benchmarks for 5 s each", ".ci/run", command)
        for command in (
            "python benchmarks/load.py --deploy --slow-clients 50 --tables 50 --seconds 5 ",
            "python benchmarks/abuse.py --seconds 5 ",
            "python benchmarks/push.py --server deploy --tables 20 --seconds 5 ",
        )
    ),
    (
        "docs/printing.md",
        "under 15% of a back sheet covered with ink instead of over 50%",
        "tests/printables/test_print_duplex.py",
        "assert dark > 0.5\n    assert light < 0.15\n",
    ),
    (
        "docs/solitaire-solver.md",
        "a depth-first or beam position at 192 bytes (the measured 150,\n"
        "rounded up by the same 28 %)",
        "companion/rules/solitaire_solver.py",
        "LEAN_POSITION_BYTES = 192  # a depth-first or beam position: the measured 150",
    ),
    (
        "docs/solitaire-solver.md",
        '(99.99 % reads "99.9 %", not "100 %")',
        "tests/web/test_solitaire_web.py",
        '(9_999, 10_000, "99.9 %")',
    ),
    (
        "docs/languages.md",
        "every marked string is accented, 40 % longer",
        "companion/i18n.py",
        'padding = "~" * max(1, round(len(text) * 0.4))',
    ),
    (
        "docs/deploying.md",
        "(10 s, the busy timeout)",
        "companion/tables/models.py",
        'cursor.execute("PRAGMA busy_timeout=10000")',
    ),
    ("docs/deploying.md", "at most 4,096\n", "companion/web/board_cache.py", "_SIZE = 4096\n"),
    (
        "docs/deploying.md",
        "one and a half heartbeats (plus 2 s)",
        "companion/static/stream.js",
        "beat * 1500 + 2000",
    ),
    (
        "docs/deploying.md",
        "after 1 s, never giving up",
        "deploy/systemd/leafpile-app@.service",
        "RestartSec=1\n",
    ),
    (
        "docs/deploying.md",
        "backoff (0.5 s\n  doubled up to 30 s) while it keeps dying within 10 s of its start",
        "deploy/supervise.py",
        "FIRST_BACKOFF, LAST_BACKOFF = 0.5, 30.0\n",
    ),
    (
        "docs/deploying.md",
        "backoff (0.5 s\n  doubled up to 30 s) while it keeps dying within 10 s of its start",
        "deploy/supervise.py",
        "QUICK_DEATH_SECONDS = 10.0 ",
    ),
    (
        "docs/deploying.md",
        "an entry acknowledged within **30 s** (the\nstated bound)",
        "tests/operations/test_chaos.py",
        "RECOVERY_BOUND = 30.0",
    ),
    *(
        ("docs/deploying.md", said, "companion/server.py", holds)
        for said, holds in [
            ("| 10 s from its first byte |", "HEADER_SECONDS = 10\n"),
            ("| 30 s after its headers", "BODY_SECONDS = 30\n"),
            ("| 75 s (a stream", "IDLE_SECONDS = 75\n"),
            ("(`LEAFPILE_KEEPALIVE_SECONDS`) | 15 s |", "KEEPALIVE_SECONDS = 15\n"),
            ("a request's head must be whole 10 s after its first byte", "HEADER_SECONDS = 10\n"),
        ]
    ),
    *(
        ("docs/deploying.md", said, "tests/operations/test_laptop_fair_share.py", holds)
        for said, holds in [
            ("`tests/operations/test_laptop_fair_share.py`:\n1,000 streams", "FLOOD = 1000\n"),
            ("each answered within 1 s;", "SERVED_WITHIN = 1.0 "),
            ("a byte every 5 s is\ndropped at 10 s", "one more byte, 5 s after the last"),
        ]
    ),
    (
        "docs/performance.md",
        "`python benchmarks/load.py` (60 s) or `--quick` (10 s)",
        "benchmarks/load.py",
        "seconds = args.seconds or (10.0 if args.quick else 60.0)",
    ),
    (
        "docs/performance.md",
        "every phone polls its table every 2 s",
        "benchmarks/load.py",
        "POLL_SECONDS = 2.0\n",
    ),
    (
        "docs/solitaire-solver.md",
        "a cap of 5,000 best-first positions holds 7,500",
        "tests/rules/test_solitaire_solver.py",
        "max_positions=5000,",
    ),
    (
        "docs/solitaire-solver.md",
        "a cap of 5,000 best-first positions holds 7,500",
        "tests/rules/test_solitaire_solver.py",
        "== lean == 7500",
    ),
    (
        "docs/solitaire-solver.md",
        "(which the complete searches left undecided after 60 s)",
        "tests/rules/test_solitaire_solver.py",
        "(the 60 s\n    run of 26 Nov 2026)",
    ),
    (
        "docs/solitaire-solver.md",
        "deal 35 is won within 15,182\npositions; with every beam first, not within 60,000)",
        "tests/rules/test_solitaire_solver.py",
        "head_start=0)\n    assert (found.result, found.nodes) == (WON, 15_182)",
    ),
    (
        "docs/solitaire-solver.md",
        "(deal 574, with no head start: 802\nbest-first positions, but 22,161 without these "
        "turns (the beams alone go\nfirst); with them 4,260:",
        "tests/rules/test_solitaire_solver.py",
        "beams=(), head_start=0).nodes == 802\n",
    ),
    (
        "docs/solitaire-solver.md",
        "(deal 574, with no head start: 802\nbest-first positions, but 22,161 without these "
        "turns (the beams alone go\nfirst); with them 4,260:",
        "tests/rules/test_solitaire_solver.py",
        "(WON, 4260)\n",
    ),
    (
        "docs/solitaire-solver.md",
        "(deal 574, with no head start: 802\nbest-first positions, but 22,161 without these "
        "turns (the beams alone go\nfirst); with them 4,260:",
        "tests/rules/test_solitaire_solver.py",
        "head_start=0).nodes == 22_161\n",
    ),
    (
        "docs/solitaire-solver.md",
        "best-first searches win within\n15,182 positions (no head start), but not within 60,000",
        "tests/rules/test_solitaire_solver.py",
        "head_start=0)\n    assert (found.result, found.nodes) == (WON, 15_182)",
    ),
    (
        "docs/solitaire-solver.md",
        "deals 1-40 at 3,000 positions",
        "tests/rules/test_solitaire_solver_verdicts.py",
        "\nCAP = 3000\n",
    ),
    (
        "docs/solitaire-solver.md",
        "deals 1-20 at\n20,000 positions",
        "tests/rules/test_solitaire_solver_verdicts.py",
        "\nWHOLE_CAP = 20_000\n",
    ),
]

# Figures that are not measurements: (page, the words around them, why).
NOT_MEASURED: list[tuple[str, str, str]] = [
    (
        "docs/languages.md",
        "every offered language has a catalog, 100 %\n  translated",
        "the rule the test holds each catalog to (complete), not a measure",
    ),
    ("docs/printing.md", "**Print at 100% (actual size)", "the scale to print at: an instruction"),
    ("docs/printing.md", 'the "print at 100%" note', "the note's words, the same instruction"),
    (
        "docs/deploying.md",
        "Before, one address opening 1,000 streams filled every connection and every\n"
        "other phone timed out, and a client sending a byte every 5 s held its",
        "what the attack of issue 42 did before the limits: the test below sends the same",
    ),
    (
        "docs/deploying.md",
        "instead of after a guessed 0.3-0.8 s",
        "the sleeps the tests used to guess with, not a measure",
    ),
    (
        "docs/table.md",
        "*Too many hints just now: try again in 40 s*",
        "an example of the refusal: the seconds count down to when the limit lets a hint through",
    ),
]

# Figures that are the settings a measure was taken with, not its result:
# (page, the pattern of words that names them, why). Every match is skipped,
# so a pattern says the setting's words, never a bare number.
SETTINGS_OF_A_RUN: list[tuple[str, str, str]] = [
    (
        "docs/solitaire-solver.md",
        r"(?:\bwidths?|beams of width) [\d,]+(?: and [\d,]+)?|[\d,]+-wide",
        "a beam's width: which beam ran (the ladder itself is compared with BEAMS above)",
    ),
    (
        "docs/solitaire-solver.md",
        r"(?:won in|undecided after|at|at a) 60 s\b",
        "the 60 s budget a deal of the long benchmark runs (`--budget 60`)",
    ),
    (
        "docs/solitaire-solver.md",
        r"(?:more than|within) 2 s\b",
        "the 2 s line the benchmark's report counts deals against",
    ),
    (
        "docs/solitaire-solver.md",
        r"within\s20,000\spositions|\(20,000 expansions|the benchmark's 20,000 positions",
        "the cap of positions an experiment gave each deal (`--max-nodes`)",
    ),
    (
        "docs/solitaire-solver.md",
        r"(?:out of its|cap of) 2,000,000 positions",
        "the old memory cap, a setting of the solver then",
    ),
]


@pytest.mark.parametrize(("page", "pattern", "why"), SETTINGS_OF_A_RUN)
def test_each_setting_pattern_still_names_something(page, pattern, why):
    assert re.search(pattern, (ROOT / page).read_text(encoding="utf-8")), why


@pytest.mark.parametrize(("page", "said", "holds"), FROM_CODE)
def test_the_figures_the_code_holds_are_the_codes(page, said, holds):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert said in text
    assert holds in text


@pytest.mark.parametrize(("page", "said", "test_file", "literal"), PINNED)
def test_the_figures_a_test_pins_are_the_tests(page, said, test_file, literal):
    assert said in (ROOT / page).read_text(encoding="utf-8")
    assert literal in (ROOT / test_file).read_text(encoding="utf-8")


def test_help_pages_state_no_measured_figure_the_code_does_not_hold():
    """A help page states what the app does, never a benchmark's result."""
    known = {"1.5 s", "100,000"}  # compared above; the score pad's limit (SP1)
    for page in (*help_pages.HELP_PAGES.values(), help_pages.TABLE_GUIDE):
        text = (DOCS / page).read_text(encoding="utf-8").split(help_pages.STOP)[0]
        extra = [f for f in _figures(text) if f not in known and not f.endswith("%")]
        assert extra == [], f"{page} states measured figures: {extra}"
