"""The web layer is thin: it reads and writes through the store, never the database.

``companion/web/ruff.toml`` bans the same names for the editor and ruff;
this test holds the line in the suite. Blueprints share helpers through
modules of their own (``groups.py``, ``plays.py``, ``board.py`` ...), never by
importing each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
MODULES = sorted(WEB.rglob("*.py"))
# What would open a database session or build a query in a view.
BANNED = {
    "sqlalchemy.orm": {"Session", "sessionmaker"},
    "sqlalchemy": {"select", "func", "insert", "update", "delete"},
}
BANNED_MODULES = ("companion.tables.models",)


def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _imported(path: Path, root: Path) -> list[tuple[str, str | None]]:
    """(module, name) for every import of ``path`` (name None for ``import x``),
    relative imports made absolute (``root`` holds the top package)."""
    package = _module_name(path, root).rsplit(".", 1)[0]
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found += [(base, alias.name) for alias in node.names]
    return found


def queries_in(path: Path, root: Path) -> list[str]:
    """The imports of ``path`` that would open a session or build a query."""
    return [
        f"{module}.{name}" if name else module
        for module, name in _imported(path, root)
        if name in BANNED.get(module, ()) or module.startswith(BANNED_MODULES)
    ]


def blueprints_imported(path: Path, root: Path, modules: list[Path]) -> set[str]:
    """The other blueprint modules a blueprint module imports (empty for a helper module)."""
    blueprints = {_module_name(p, root) for p in modules if "Blueprint(" in p.read_text()}
    me = _module_name(path, root)
    if me not in blueprints:
        return set()
    found = _imported(path, root)
    imported = {m for m, _ in found} | {f"{m}.{n}" for m, n in found if n}
    return imported & (blueprints - {me})


ROOT = WEB.parent.parent


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(WEB)))
def test_no_view_opens_a_database_session_or_builds_a_query(path):
    bad = queries_in(path, ROOT)
    assert bad == [], f"{path.name} imports {bad}: add a store call in companion/tables"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(WEB)))
def test_blueprints_never_import_each_other(path):
    assert blueprints_imported(path, ROOT, MODULES) == set()


def test_the_checks_see_a_session_and_a_blueprint(tmp_path):
    """The two checks above fail on the imports they are for (on a copy of
    the package's layout, never in the source tree)."""
    web = tmp_path / "companion" / "web"
    web.mkdir(parents=True)
    (web / "records.py").write_text("from flask import Blueprint\nbp = Blueprint('r', __name__)\n")
    probe = web / "probe.py"
    probe.write_text(
        "from flask import Blueprint\n"
        "from sqlalchemy.orm import Session\n"
        "from sqlalchemy import func\n"
        "from .records import scope\n"
        "bp = Blueprint('probe', __name__)\n"
    )
    modules = [web / "records.py", probe]
    assert queries_in(probe, tmp_path) == ["sqlalchemy.orm.Session", "sqlalchemy.func"]
    assert blueprints_imported(probe, tmp_path, modules) == {"companion.web.records"}
