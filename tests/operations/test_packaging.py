"""`pip install .` (not editable) must ship every module, template and static file.

Checked against the packaging configuration, so a new folder of code, a new
template type or a new static file cannot be left out of installs unnoticed.
"""

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def _covered(relative: str, patterns: list[str]) -> bool:
    # setuptools globs: "**/" matches any depth, including none.
    return any(fnmatch(relative, p) or fnmatch(relative, p.replace("**/", "")) for p in patterns)


def test_every_folder_of_python_code_is_a_listed_package():
    listed = set(CONFIG["packages"])
    for top in ("companion", "printables"):
        for module in (ROOT / top).rglob("*.py"):
            package = ".".join(module.parent.relative_to(ROOT).parts)
            assert package in listed, (
                f"{package} (holding {module.name}) is not in pyproject packages"
            )


def test_every_template_is_package_data():
    patterns = CONFIG["package-data"]["leafpile_templates"]
    for path in _files(ROOT / "templates"):
        relative = str(path.relative_to(ROOT / "templates"))
        assert _covered(relative, patterns), f"templates/{relative} would not be installed"


def test_every_static_file_is_package_data():
    patterns = CONFIG["package-data"]["companion"]
    for path in _files(ROOT / "companion" / "static"):
        relative = str(path.relative_to(ROOT / "companion"))
        assert _covered(relative, patterns), f"companion/{relative} would not be installed"


def test_the_templates_folder_is_installed_as_leafpile_templates():
    assert CONFIG["package-dir"]["leafpile_templates"] == "templates"
    assert "leafpile_templates" in CONFIG["packages"]


def test_every_data_file_of_the_rules_is_package_data():
    """The solitaire's table of won deals and its shipped winning lines: an
    install without them would offer no deal that can be won."""
    patterns = CONFIG["package-data"]["companion.rules"]
    for path in (ROOT / "companion" / "rules").iterdir():
        if not path.is_file() or path.suffix in (".py", ".so") or path.name == "ruff.toml":
            continue
        assert _covered(path.name, patterns), f"companion/rules/{path.name} would not be installed"
