"""The README is a newcomer's first two minutes: short, two commands that CI
runs as written, pictures that exist, and the published rules API documented
(its examples run in tests/docs/test_docs.py with every docs page)."""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
API_PAGE = ROOT / "docs" / "api.md"

RUN_LINE = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/leafpile"
TEST_LINE = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest -n auto"
)

# The published rules API (DESIGN.md, "The rules API").
PUBLIC_API = [
    "cards.PAIRS_DECK",
    "cards.copies",
    "pairs.losing_score",
    "venture.slug_size",
    "venture.hand_size",
    "venture.resolve",
    "venture.final_scores",
    "autumn_leaves.can_place",
    "autumn_leaves.play_order",
    "autumn_leaves.hand_score",
    "leaf.animal_acorns",
    "leaf.mushroom_acorns",
    "leaf.leftover_acorns",
    "north_wind.leaf_boost",
    "north_wind.choose_placement",
    "north_wind.choose_animal",
    "autumn_ash.bag_points",
]


def readme_commands() -> list[str]:
    """The shell lines of the README's "Two commands" section, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, re.S)


def test_the_readme_gives_exactly_two_commands_run_then_test():
    assert readme_commands() == [RUN_LINE, TEST_LINE]


def test_ci_runs_the_readmes_test_line_exactly():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in ci.splitlines()]
    # As the body of a one-line function, so `set -e` stops CI when any part fails.
    assert f"readme_test_line() {{ {TEST_LINE}; }}" in lines
    assert "readme_test_line" in lines


def test_the_readme_is_read_in_two_minutes():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150


def test_the_readme_says_what_it_is_shows_pictures_and_where_to_go_next():
    text = README.read_text(encoding="utf-8")
    assert text.startswith("# Leafpile\n\nA table companion")
    pictures = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", text)
    assert len(pictures) >= 6
    for picture in pictures:
        assert (ROOT / picture).is_file(), picture
    assert "## Where to go next" in text
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / link).is_file() or link in _pages_written_by_others(), link


def _pages_written_by_others() -> set[str]:
    """Pages the nav lists: they exist by the end (tests/docs/test_docs.py checks the nav)."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    return {f"docs/{name}" for name in re.findall(r":\s*([\w-]+\.md)\s*$", nav, re.M)}


@pytest.mark.parametrize("name", PUBLIC_API)
def test_every_public_rules_function_exists_and_is_documented(name):
    module_name, attribute = name.split(".")
    module = importlib.import_module(f"companion.rules.{module_name}")
    assert hasattr(module, attribute), f"{name} is missing from the rules library"
    assert f"`{name}(" in API_PAGE.read_text(encoding="utf-8") or f"`{name}`" in (
        API_PAGE.read_text(encoding="utf-8")
    ), f"{name} is not in docs/api.md's contract table"
