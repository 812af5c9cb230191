"""Compiles the solitaire solver with mypyc when the machine can build C.

Everything else about the package is in ``pyproject.toml``; this file only
adds the one build step that a declarative file cannot say.

Why: the solver is pure Python, and a position costs it some 19 µs; compiled
by mypyc from the very same source it costs about half that, so "Winnable?"
and the hints look at 1.7-1.9 times as many positions within what a phone
can wait, and decide more deals
(``docs/solitaire-solver.md`` has the figures). mypyc rather than Cython or C of our
own: the module stays one Python file that the tests, mypy and a reader
share, and mypyc comes with mypy, which the project already uses.

When it is built: by ``pip install .`` (a wheel) on a machine with a C
compiler and Python's headers (``gcc`` and ``python3-dev`` on Debian); only
there does pip fetch mypy for the build (``setup_requires`` below). When
it is not: an editable install (``pip install -e .``: a compiled copy would
go on running after its source was edited; the tests exercise the compiled
module by building it themselves), ``LEAFPILE_PURE_PYTHON=1``, or a machine
that cannot build it (a stock Debian has no compiler): the install then goes
on with the pure module, which gives the same answers, more slowly.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOLVER = "companion/rules/solitaire_solver.py"
# The compiler: the very mypy of the test extra (pyproject.toml), which checks
# the module as it is compiled.
MYPY = "mypy==2.4.1"
# What pip asks for before the wheel (build requirements, metadata): no
# compiled module comes of them.
METADATA_COMMANDS = {"egg_info", "dist_info", "sdist"}


def can_compile() -> bool:
    """Whether this machine has what mypyc's C needs: a C compiler and
    Python's headers (Windows: left to the build, which finds MSVC itself).

    pip installs mypy (13 MB) into the build's environment only then: on a
    stock Debian, which has neither, the install skips it (docs/install.md).
    """
    if os.environ.get("LEAFPILE_PURE_PYTHON") == "1":
        return False
    if os.name == "nt":
        return True
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(compiler) is not None and headers.is_file()


class BuildCompiledSolver(build_ext):
    """``build_ext`` that compiles the solver, or leaves it pure and says why."""

    def finalize_options(self) -> None:
        # The extensions are made here, before setuptools reads them, and only
        # when they are built: pip runs this file three times for one install
        # (build requirements, metadata, the wheel), and setuptools finalizes
        # build_ext in the first two as well, where mypyc's 3-5 s of turning
        # the module into C were thrown away (docs/install.md).
        extensions = []
        editable = getattr(self, "editable_mode", False)  # pip install -e
        metadata_only = set(self.distribution.commands) <= METADATA_COMMANDS
        if editable or metadata_only or os.environ.get("LEAFPILE_PURE_PYTHON") == "1":
            pass
        elif not can_compile():
            self._stay_pure("no C compiler or no Python headers here (Debian: gcc, python3-dev)")
        else:
            try:
                from mypyc.build import mypycify

                extensions = mypycify(
                    # Only the solver is compiled; what it imports (the rules,
                    # and through the package the web app, whose libraries are
                    # not in pip's build environment) is read for its types.
                    ["--follow-imports=silent", "--ignore-missing-imports", SOLVER],
                    # gcc -O1 without debug symbols: the C compile is most of
                    # the install's time, and -O3 took 60 % more CPU for a
                    # solver no faster (docs/install.md has the figures).
                    opt_level="1",
                    debug_level="0",
                )
            except Exception as error:  # noqa: BLE001 - any failure leaves the pure module
                self._stay_pure(f"compiling it failed: {error}")
        self.distribution.ext_modules = extensions
        super().finalize_options()

    def run(self) -> None:
        # An earlier build's compiled solver may lie in the build folder (pip
        # builds in the checkout): without this, an install asked to stay pure
        # would pick it up again.
        self._remove_compiled_solver()
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - no compiler, no headers: pure
            self._remove_compiled_solver()  # half a compiled module would not import
            self._stay_pure(f"compiling it failed: {error}")

    def _remove_compiled_solver(self) -> None:
        # Both folders: with no extension to build, build_lib is the folder of
        # pure packages, while the compiled solver went to the platform's one.
        platform_lib = self.get_finalized_command("build").build_platlib
        for lib in {self.build_lib, platform_lib}:
            rules = os.path.join(lib, "companion", "rules")
            if not os.path.isdir(rules):
                continue
            for name in os.listdir(rules):
                if name.startswith("solitaire_solver") and name.endswith(tuple(EXTENSION_SUFFIXES)):
                    os.remove(os.path.join(rules, name))

    def _stay_pure(self, why: str) -> None:
        self.warn(
            f"the solitaire solver stays pure Python (it gives the same answers, "
            f"about half as fast): {why}"
        )


setup(
    # Build requirements beyond pyproject.toml's: setuptools hands these to
    # pip when it asks what the wheel needs (PEP 517).
    setup_requires=[MYPY] if can_compile() else [],
    # A placeholder, replaced in BuildCompiledSolver.finalize_options: without
    # an extension setuptools would never run build_ext.
    ext_modules=[Extension("companion.rules.solitaire_solver", sources=[])],
    cmdclass={"build_ext": BuildCompiledSolver},
)
