"""The tests tree mirrors the code, and its files are named for what they pin.

A newcomer looking for the tests of ``companion/tables/backup.py`` finds them
under ``tests/tables/``; a file called after an issue number says nothing
once the issue is closed, so none may be.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

# One folder per package of the code, and one per kind of check that spans them.
MIRRORS = {"rules": "companion/rules", "tables": "companion/tables", "web": "companion/web",
           "printables": "printables"}  # fmt: skip
SPANNING = {"browser", "operations", "docs", "code"}


def _test_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_every_test_file_lives_in_a_folder_of_the_tree():
    folders = set(MIRRORS) | SPANNING
    misplaced = [p.relative_to(ROOT) for p in _test_files() if p.parent.name not in folders]
    assert not misplaced, f"move these into one of tests/{sorted(folders)}: {misplaced}"
    assert all(p.parent.parent == TESTS for p in _test_files()), "one level of folders only"


def test_the_mirrored_folders_match_packages_of_the_code():
    for folder, package in MIRRORS.items():
        assert (ROOT / package / "__init__.py").is_file(), package
        assert any((TESTS / folder).glob("test_*.py")), folder


def test_no_test_file_is_named_after_an_issue():
    issue_like = re.compile(r"issue|(^|_)\d+(_|$)")
    named = [p.name for p in _test_files() if issue_like.search(p.stem)]
    assert not named, f"name these after the module or behaviour they pin: {named}"


def test_a_mentioned_test_file_exists():
    """Docs and docstrings that point at a test file point at one that exists
    (``tests/web/test_secrets.py`` once named a file that never was)."""
    mention = re.compile(r"\btests/(?:[a-z]+/)*test_[a-z0-9_]+\.py")
    sources = [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / ".ci").glob("*"),
               *(ROOT / "companion").rglob("*.py"), *(ROOT / "printables").rglob("*.py"),
               *TESTS.rglob("*.py"), ROOT / "pyproject.toml"]  # fmt: skip
    missing = sorted(
        {
            (str(path.relative_to(ROOT)), found)
            for path in sources
            if path.is_file()
            for found in mention.findall(path.read_text(encoding="utf-8"))
            if not (ROOT / found).is_file()
        }
    )
    assert not missing, missing


def test_a_test_file_named_without_its_folder_exists_somewhere():
    known = {p.name for p in TESTS.rglob("*.py")}
    bare = re.compile(r"(?<![/\w])test_[a-z0-9_]+\.py")
    named = {
        (str(path.relative_to(TESTS)), found)
        for path in TESTS.rglob("*.py")
        for found in bare.findall(path.read_text(encoding="utf-8"))
    }
    assert not {pair for pair in named if pair[1] not in known}
