"""The installed version of Leafpile, read from the package's metadata.

pyproject.toml's ``version`` is the one place it is written: pip copies it
into the installed package's metadata, and ``leafpile --version``, the start-up
banner and every page's footer read it from there (docs/releasing.md).
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version

NOT_INSTALLED = "unknown (not installed)"


@cache
def leafpile_version() -> str:
    """``0.2.0``, or NOT_INSTALLED when run from a checkout nobody installed."""
    try:
        return version("leafpile")
    except PackageNotFoundError:
        return NOT_INSTALLED
