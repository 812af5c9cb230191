"""Every figure the help pages and install.md state comes from somewhere a
reader can check (issue 44, item 6).

- A figure on a help page (what the phone serves) is one the app itself
  holds: the test reads it from the code and compares.
- A figure in install.md is either printed by a console block on the page
  (``tests/docs/test_docs.py`` runs those blocks and compares their output), or
  stated in a section that gives the command that measures it and the date
  of the measure (timings differ from machine to machine; a reader reruns
  the command rather than expecting the same seconds).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.rules import solitaire_solver
from companion.web import help as help_pages
from companion.web import solitaire_pages

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

#: A measured figure: a count with thousands separators, or a number with a unit.
FIGURE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(µs|ms|s|%|positions)?\b")
#: Commands that measure what install.md states.
MEASURING = re.compile(r"`(leafpile solve [^`]*|python benchmarks/\w+\.py[^`]*|bash docs/\w+\.sh)`")
DATE = re.compile(r"\b(\d{1,2} Nov 2026|2026-\d\d-\d\d)\b")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _measured(text: str) -> list[str]:
    """The figures of ``text`` that a machine measured: counts, and numbers with a unit."""
    found = []
    for match in FIGURE.finditer(text):
        number, unit = match.groups()
        if "," in number or unit:
            found.append(match.group(0))
    return found


def _sections(text: str) -> list[str]:
    return re.split(r"^## ", text, flags=re.M)


def _console_output(text: str) -> str:
    return "\n".join(
        line
        for language, body in FENCE.findall(text)
        if language == "console"
        for line in body.splitlines()
        if not line.startswith("$ ")
    )


def test_every_figure_in_install_md_has_its_command_and_date_or_is_printed():
    text = (DOCS / "install.md").read_text(encoding="utf-8")
    printed = _console_output(text)
    unsourced = []
    for section in _sections(text):
        prose = FENCE.sub("", section)
        sourced = MEASURING.search(prose) and DATE.search(prose)
        for figure in _measured(prose):
            number = figure.split()[0].rstrip("µsm%")
            if number.replace(",", "") in printed or sourced:
                continue
            unsourced.append((section.splitlines()[0], figure))
    assert unsourced == [], "figures install.md states with no command and date behind them"


def test_deal_563s_figure_is_the_one_its_console_block_prints():
    """The figure in the prose is the one the block's command prints (the block runs in
    tests/docs/test_docs.py); the old 87,900 was read off a time-budgeted run."""
    text = (DOCS / "install.md").read_text(encoding="utf-8")
    assert "87,900" not in text
    block = re.search(r"\$ leafpile solve --seed 563 --max-nodes \d+ --budget \d+\n(.*)", text)
    assert block, "the command behind deal 563's figure"
    nodes = re.search(r'"nodes": (\d+)', block.group(1)).group(1)
    assert re.search(rf"after {int(nodes):,}\s+positions", text)


def test_the_check_finds_a_figure_with_nothing_behind_it():
    section = "## Speed\n\nThe solver takes 87,900 positions and 2.5 s.\n"
    figures = _measured(section)
    assert figures == ["87,900 positions", "2.5 s"]
    assert not (MEASURING.search(section) and DATE.search(section))


# What the solitaire's pages say, and where the app holds it.
SOLITAIRE_FIGURES = [
    ("solitaire.md", "no win in 1.5 s (what", f"no win in {solitaire_pages.HERE_BUDGET} s (what"),
    ("solitaire-solver.md", "same time (1.5 s;", f"same time ({solitaire_pages.HERE_BUDGET} s;"),
    ("solitaire-solver.md", "gets\n0.5 s more)", f"gets\n{solitaire_pages.START_BUDGET} s more)"),
    (
        "solitaire-solver.md",
        "The memory holds 5,000 positions",
        f"The memory holds {solitaire_solver.KnownWins().size:,} positions",
    ),
]


@pytest.mark.parametrize(("page", "said", "holds"), SOLITAIRE_FIGURES)
def test_the_solitaire_pages_figures_are_the_apps(page, said, holds):
    text = (DOCS / page).read_text(encoding="utf-8").split(help_pages.STOP)[0]
    assert said in text
    assert holds in text


def test_help_pages_state_no_measured_figure_the_code_does_not_hold():
    """A help page states what the app does, never a benchmark's result."""
    known = {"1.5 s", "100,000"}  # compared above; the score pad's limit (SP1)
    for page in (*help_pages.HELP_PAGES.values(), help_pages.TABLE_GUIDE):
        text = (DOCS / page).read_text(encoding="utf-8").split(help_pages.STOP)[0]
        extra = [f for f in _measured(text) if f not in known and not f.endswith("%")]
        assert extra == [], f"{page} states measured figures: {extra}"
