"""The referees stay a pure library: no web, database or PDF imports."""

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "companion" / "rules"
FORBIDDEN = ("flask", "werkzeug", "sqlalchemy", "reportlab", "htmx_flask", "qrcode")
PROJECT_OUTSIDE_RULES = ("companion.web", "companion.tables", "printables")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", sorted(RULES.glob("*.py")), ids=lambda p: p.name)
def test_rules_module_imports_nothing_outside_the_pure_library(path):
    bad = [
        name
        for name in _imports(path)
        if name.split(".")[0] in FORBIDDEN or name.startswith(PROJECT_OUTSIDE_RULES)
    ]
    assert bad == [], f"{path.name} imports {bad}"
