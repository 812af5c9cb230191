"""The documentation is part of the product: every example in it runs, the
site builds in strict mode, every page is in the navigation, every setting
the code reads is documented, and every picture is made by the screenshot
script."""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "site" not in p.parts)
WITH_EXAMPLES = [README, *PAGES]

FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)


def blocks(path: Path, *languages: str) -> list[tuple[int, str]]:
    """(line number, body) of each fenced block in one of these languages."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) in languages:
            found.append((text.count("\n", 0, match.start()) + 1, match.group(2)))
    return found


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


# --- every example runs --------------------------------------------------------


@pytest.mark.parametrize("path", WITH_EXAMPLES, ids=_ids(WITH_EXAMPLES))
def test_every_pycon_example_runs_as_a_doctest(path):
    examples = blocks(path, "pycon")
    if not examples:
        pytest.skip("no >>> examples on this page")
    globs: dict[str, object] = {}  # one page is one session, as a reader follows it
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for line, body in examples:
        test = parser.get_doctest(body, globs, f"{path.name}:{line}", str(path), line)
        runner.run(test, clear_globs=False)
        globs = test.globs
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) in {path.name} fail: see above"


@pytest.mark.parametrize("path", WITH_EXAMPLES, ids=_ids(WITH_EXAMPLES))
def test_every_python_block_runs(path):
    examples = blocks(path, "python", "py")
    if not examples:
        pytest.skip("no python blocks on this page")
    for line, body in examples:
        assert ">>>" not in body, f"{path.name}:{line}: write >>> examples as ```pycon"
        exec(compile(body, f"{path.name}:{line}", "exec"), {"__name__": "__docs__"})  # noqa: S102


def _console_commands(body: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block: ``$ `` starts a command."""
    pairs: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        elif pairs:
            pairs[-1][1].append(line)
        else:
            raise AssertionError(f"console block starts with output, not a $ command: {line!r}")
    return [(command, "\n".join(out).strip("\n")) for command, out in pairs]


CONSOLE_EXAMPLES = [
    (path, line, body) for path in WITH_EXAMPLES for line, body in blocks(path, "console")
]


@pytest.mark.parametrize(
    "path, line, body",
    CONSOLE_EXAMPLES,
    ids=[f"{p.relative_to(ROOT)}:{line}" for p, line, _ in CONSOLE_EXAMPLES],
)
def test_every_console_example_prints_what_it_claims(path, line, body, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEAFPILE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["LEAFPILE_INSTANCE"] = str(tmp_path / "instance")
    env["COLUMNS"] = "80"
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for command, expected in _console_commands(body):
        run = subprocess.run(
            command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, f"{path.name}:{line}: `{command}` failed:\n{run.stderr}"
        got = run.stdout.strip("\n")
        assert checker.check_output(expected + "\n", got + "\n", flags), (
            f"{path.name}:{line}: `{command}` printed\n{got}\nnot\n{expected}"
        )


# A line a person types: a command, a path, a variable, a comment or a subshell.
COMMAND_LINE = re.compile(r"^\s*(#|\(|[A-Za-z_][A-Za-z0-9_]*=|[./~]?[A-Za-z0-9_][\w./+-]*(\s|$))")


def _output_lines(body: str) -> list[str]:
    """Lines of a shell block that are not commands (continuation lines aside)."""
    found, continued = [], False
    for line in body.splitlines():
        if line.strip() and not continued and not COMMAND_LINE.match(line):
            found.append(line)
        continued = line.rstrip().endswith("\\")
    return found


def test_output_lines_are_told_from_commands():
    block = 'leafpile solve --seed 14 \\\n    --budget 2\nexport X=1\n{"seed": 14}\n$ ls\n'
    assert _output_lines(block) == ['{"seed": 14}', "$ ls"]


@pytest.mark.parametrize("path", WITH_EXAMPLES, ids=_ids(WITH_EXAMPLES))
def test_shell_blocks_that_are_not_run_claim_no_output(path):
    for line, body in blocks(path, "sh", "bash", "shell"):
        assert not _output_lines(body), (
            f"{path.name}:{line}: a block that shows output must be ```console with $ "
            f"before each command, so the test runs it: {_output_lines(body)}"
        )


# --- the site ------------------------------------------------------------------


def _nav_pages(items) -> list[str]:
    pages = []
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            pages += _nav_pages(value)
        else:
            pages.append(value)
    return pages


def _mkdocs_config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_every_docs_page_is_in_the_navigation_and_every_entry_exists():
    nav = _nav_pages(_mkdocs_config()["nav"])
    assert sorted(nav) == sorted(p.relative_to(DOCS).as_posix() for p in PAGES)


def test_the_site_builds_in_strict_mode(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or "mkdocs"
    run = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "site" / "api" / "index.html").is_file()
    # The rulings a game's page names are written out there from rulings.md
    # (companion/web/help_rulings.py), not left as a marker.
    built = {page: page.read_text(encoding="utf-8") for page in (tmp_path / "site").rglob("*.html")}
    assert not [page for page, html in built.items() if "<p>{{ rulings" in html]
    pairs = built[tmp_path / "site" / "pairs" / "index.html"]
    assert (
        '<details class="rulings">' in pairs
        and "<strong>PR7 A tie no card can break.</strong>" in pairs
    )


# --- settings ------------------------------------------------------------------

SETTING = re.compile(r"\bLEAFPILE_[A-Z0-9_]+\b")


def _settings_read_by_the_code() -> set[str]:
    """Every LEAFPILE_* name the app, its deploy scripts, the tests or the benchmarks use.

    A name counts where it is code, not prose: a string literal in Python
    (``os.environ.get("LEAFPILE_X")``, ``_flag("LEAFPILE_X")``, an environment
    built as a dict) or a variable in a shell script (``$LEAFPILE_X``, ``LEAFPILE_X=``).
    """
    found: set[str] = set()
    python = [*ROOT.glob("companion/**/*.py"), *ROOT.glob("benchmarks/*.py")]
    python += [*ROOT.glob("tests/*.py"), *ROOT.glob("deploy/**/*.py")]
    shell = [ROOT / ".ci" / "run", *(p for p in ROOT.glob("deploy/**/*") if p.suffix == "")]
    for path in python:
        if path.resolve() == Path(__file__).resolve():
            continue
        found |= set(re.findall(r"[\"'](LEAFPILE_[A-Z0-9_]+)[\"']", path.read_text("utf-8")))
    for path in shell:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r"\$\{?(LEAFPILE_[A-Z0-9_]+)", text))
        found |= set(re.findall(r"^\s*(?:export\s+)?(LEAFPILE_[A-Z0-9_]+)=", text, re.M))
    return found


def test_every_setting_is_in_the_configuration_table():
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    table_rows = {m.group(1) for m in re.finditer(r"^\| `(LEAFPILE_\w+)` \|", page, re.M)}
    code = _settings_read_by_the_code()
    assert {"LEAFPILE_DATABASE_URL", "LEAFPILE_INSTANCE", "LEAFPILE_PUBLIC_URL"} <= code
    missing = sorted(code - table_rows)
    assert missing == [], "settings the code reads that docs/configuration.md lacks"


# --- pictures ------------------------------------------------------------------

PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)")


def _pictures_shown() -> set[str]:
    """Every picture the README and the docs show, as a path under docs/."""
    shown = set()
    for path in WITH_EXAMPLES:
        for target in PICTURE.findall(path.read_text(encoding="utf-8")):
            full = (path.parent / target).resolve()
            assert full.is_file(), f"{path.name} shows {target}, which does not exist"
            shown.add(full.relative_to(DOCS).as_posix())
    return shown


def test_every_picture_is_retaken_by_the_screenshot_script():
    spec = importlib.util.spec_from_file_location("take_screenshots", DOCS / "take_screenshots.py")
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script  # dataclasses look their module up there
    spec.loader.exec_module(script)
    made = set(script.SHOTS)
    assert sorted(_pictures_shown() - made) == [], "pictures no function in take_screenshots makes"
