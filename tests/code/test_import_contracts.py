"""Every floor of the app imports only the floors below it (issue 41, item 7).

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and are
checked by import-linter, which reads the imports without running them:
web -> tables -> rules as layers, the print kit away from the tables and the
web, the referees away from everything else of the project, and the web app
away from the launcher (``companion.server``, ``companion.cli``) and the app
factory (``companion.app``). Each contract is its own test, so a broken one
is named by the failing test and import-linter's report says which import
chain breaks it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {contract["id"]: contract for contract in CONFIG["contracts"]}
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(cwd: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the project found in ``cwd`` (its pyproject.toml)."""
    if not LINT_IMPORTS.exists():
        pytest.fail("import-linter is not installed: pip install -e '.[test]'")
    chosen = [arg for contract in contracts for arg in ("--contract", contract)]
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", *chosen],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_contracts_are_the_ones_issue_41_asks_for():
    assert CONTRACTS["layers"]["layers"] == ["companion.web", "companion.tables", "companion.rules"]
    assert set(CONTRACTS["printables"]["forbidden_modules"]) == {
        "companion.tables",
        "companion.web",
    }
    assert set(CONTRACTS["web-not-launcher"]["forbidden_modules"]) == {
        "companion.server",
        "companion.cli",
        "companion.app",
    }


def test_the_rules_contract_forbids_every_module_of_the_project_beside_the_rules():
    """By a wildcard: a module added to companion/ later is forbidden to the
    referees too, without anyone remembering to list it."""
    assert set(CONTRACTS["rules"]["forbidden_modules"]) == {"companion.*", "printables"}


@pytest.mark.parametrize("contract", sorted(CONTRACTS))
def test_the_import_contract_is_kept(contract):
    result = _lint(ROOT, contract)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout, result.stdout


def test_an_import_across_the_floors_breaks_the_contracts(tmp_path):
    """The contracts can fail: in a copy of the project where a referee
    imports the web app and the print kit imports the store, import-linter
    reports exactly those contracts broken."""
    for package in ("companion", "printables"):
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("static", "fonts", "*.so", "__pycache__", "*.txt"),
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    rules = tmp_path / "companion" / "rules" / "pairs.py"
    rules.write_text(rules.read_text() + "\nimport companion.web.help  # planted\n")
    # A module no contract names: the wildcard still forbids it to the rules.
    (tmp_path / "companion" / "newcomer.py").write_text('"""Added later."""\n')
    cards = tmp_path / "companion" / "rules" / "cards.py"
    cards.write_text(cards.read_text() + "\nimport companion.newcomer  # planted\n")
    kit = tmp_path / "printables" / "proof.py"
    kit.write_text(kit.read_text() + "\nfrom companion.tables import store  # planted\n")
    result = _lint(tmp_path)
    assert result.returncode != 0
    out = result.stdout
    broken = {
        contract["id"] for contract in CONFIG["contracts"] if f"{contract['name']} BROKEN" in out
    }
    assert broken == {"layers", "rules", "printables"}, out
    assert "companion.rules.pairs -> companion.web.help" in out
    assert "companion.rules.cards -> companion.newcomer" in out
    assert "printables.proof -> companion.tables" in out
