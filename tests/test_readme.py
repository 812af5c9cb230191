"""The README is part of the product: its examples run and it names the public API."""

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

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


def test_the_readme_examples_run():
    # A closing ``` ends an example's expected output, as a blank line would.
    text = README.read_text().replace("\n```", "\n\n```")
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("name", PUBLIC_API)
def test_every_public_rules_function_exists_and_is_documented(name):
    import importlib

    module_name, attribute = name.split(".")
    module = importlib.import_module(f"companion.rules.{module_name}")
    assert hasattr(module, attribute), f"{name} is missing from the rules library"
    assert name in README.read_text(), f"{name} is not mentioned in README.md"


def test_the_readme_gives_exactly_two_setup_commands():
    text = README.read_text()
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, re.S)
    assert commands == ["pip install . && leafpile", "pip install -e '.[test]' && pytest"]
    assert "pip install -e '.[test]' && pytest" in (ROOT / ".ci" / "run").read_text()
