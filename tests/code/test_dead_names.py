"""No dead names: vulture over the app, the print kit and the benchmarks.

Code nothing calls still has to be read, kept typed and kept working by
whoever comes next. vulture finds names defined and never used; what it
cannot see is said here once (the route decorators; every word of the
templates and scripts counts as a use) or, name by name, with the reason, in
``dead_names_allowed.txt`` beside this file. A name used only by a test
belongs there too, saying which test, so that a helper kept alive by tests
alone is a choice someone wrote down.

The store's facade (``companion/tables/store.py``) re-exports only names
that something imports from it.
"""

from __future__ import annotations

import ast
import keyword
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = Path(__file__).with_name("dead_names_allowed.txt")
SCANNED = ("companion", "printables", "benchmarks")
# Decorators that hand a function to a framework, which calls it by itself.
FRAMEWORK_DECORATORS = (
    "@bp.get",  # Flask routes
    "@bp.post",
    "@bp.route",
    "@bp.after_request",  # a blueprint's response hook
    "@bp.app_template_global",  # a Jinja global
    "@event.listens_for",  # SQLAlchemy event listeners
    "@limiter.request_filter",  # Flask-Limiter's exemptions
)
ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s+#\s*(\S.*)")


def allowed() -> dict[str, str]:
    """The allow-list: name -> why it stays."""
    entries: dict[str, str] = {}
    for number, line in enumerate(ALLOWED.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        found = ENTRY.fullmatch(line.strip())
        assert found, f"{ALLOWED.name}:{number}: write 'name  # why it stays', not {line!r}"
        entries[found.group(1)] = found.group(2)
    return entries


def _words_of_templates_and_scripts() -> list[str]:
    """Every identifier in templates/ and the browser's scripts: a Jinja
    template reads attributes (``table.title``) that Python never does."""
    words: set[str] = set()
    for path in [*(ROOT / "templates").rglob("*.html"), *(ROOT / "companion/static").glob("*.js")]:
        words |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text()))
    return sorted(word for word in words if not keyword.iskeyword(word))


def test_vulture_finds_no_dead_name(tmp_path):
    uses = tmp_path / "uses.py"  # vulture's whitelist form: attribute reads of `_`
    names = [*_words_of_templates_and_scripts(), *allowed()]
    uses.write_text("".join(f"_.{name}\n" for name in names))
    found = subprocess.run(
        [sys.executable, "-m", "vulture", *SCANNED, str(uses), "--min-confidence", "60",
         "--ignore-decorators", ",".join(FRAMEWORK_DECORATORS)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert found.returncode in (0, 3), found.stderr  # 3: dead code found
    dead = found.stdout.splitlines()
    assert not dead, (
        "names nothing uses: remove them, or add each to tests/code/dead_names_allowed.txt "
        "with the reason it stays\n" + "\n".join(dead)
    )


def test_every_allowed_name_still_exists_and_says_why():
    code = "\n".join(
        path.read_text() for folder in SCANNED for path in (ROOT / folder).rglob("*.py")
    )
    for name, why in allowed().items():
        assert re.search(rf"\b{re.escape(name)}\b", code), f"{name} is gone: drop its line"
        assert len(why.split()) >= 2, f"{name}: say why it stays"


def test_the_store_re_exports_only_what_others_import_from_it():
    store = ROOT / "companion/tables/store.py"
    exported = next(
        [element.value for element in node.value.elts]  # type: ignore[attr-defined]
        for node in ast.parse(store.read_text()).body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__"
    )
    importers = [
        path
        for folder in (*SCANNED, "tests", "docs")
        for path in (ROOT / folder).rglob("*.py")
        if path != store
    ]
    absolute = re.compile(r"from companion\.tables\.store import (\([^)]*\)|.*)")
    relative = re.compile(r"from \.store import (\([^)]*\)|.*)")  # in companion/tables only
    via_module = re.compile(r"store_module\.(\w+)")  # the tests' `import ... store as store_module`
    imported: set[str] = set()
    for path in importers:
        text = path.read_text()
        groups = absolute.findall(text)
        if path.parent == store.parent:
            groups += relative.findall(text)
        for group in groups:
            imported |= set(re.findall(r"\w+", re.sub(r"#.*", "", group)))
        imported |= set(via_module.findall(text))
    assert sorted(set(exported) - imported) == [], "re-exported by the store, imported by nobody"
