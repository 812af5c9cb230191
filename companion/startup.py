"""What a server checks before it serves, and the one line it says when it cannot.

A host who set a setting wrong, pointed the app at a folder it cannot write
or at a database it cannot reach, gets one line that names what is wrong and
what to do, and the server stops (exit 1): not a 15-122 line traceback, and
not a silent fallback (``LEAFPILE_JOIN_CODE_LENGTH=11`` was clamped to 10,
``eight`` to the weak 5, on a public server). ``leafpile`` (companion/server.py)
and the production setup's gunicorn (deploy/gunicorn.conf.py) both run
:func:`check_settings` before anything starts.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

# Nothing heavy at import: gunicorn's master imports this module to check the
# settings before it forks workers, and must not hold SQLAlchemy or Flask
# (their locks made before gevent patches the workers).

#: Whole-number settings: (low, high, unit). The join code's bounds are
#: companion/tables/join_codes.py's SHORTEST and LONGEST; the pool's are
#: companion/app.py's database_pool (which the app applies).
WHOLE_SETTINGS: dict[str, tuple[int, int, str]] = {
    "LEAFPILE_DATABASE_POOL": (1, 1000, "connections"),
    "LEAFPILE_JOIN_CODE_LENGTH": (5, 10, "characters"),
    "LEAFPILE_PROXY_HOPS": (0, 10, "proxies"),
    "LEAFPILE_JOB_SLOTS": (1, 1000, "jobs"),
}
#: Settings in seconds (or days): (low, high, unit).
NUMBER_SETTINGS: dict[str, tuple[float, float, str]] = {
    "LEAFPILE_STREAM_HEARTBEAT": (0.01, 3600, "seconds"),
    "LEAFPILE_STREAM_LIFETIME": (0.01, 86_400, "seconds"),
    "LEAFPILE_FALLBACK_POLL_SECONDS": (0.01, 86_400, "seconds"),
    "LEAFPILE_EXPIRE_DAYS": (0, 36_500, "days (0: never)"),
}


def check_settings(env: Mapping[str, str] | None = None) -> None:
    """Raise ValueError, one line, for the first setting out of its range."""
    env = os.environ if env is None else env
    for name, (low, high, unit) in WHOLE_SETTINGS.items():
        text = env.get(name, "").strip()
        if text and not (text.isascii() and text.isdecimal() and low <= int(text) <= high):
            raise ValueError(
                f"{name} must be a whole number of {unit}, {low} to {high} (not {text!r})"
            )
    for name, (lowest, highest, unit) in NUMBER_SETTINGS.items():
        text = env.get(name, "").strip()
        if not text:
            continue
        try:
            number = float(text)
        except ValueError:
            number = float("nan")
        if not lowest <= number <= highest:  # NaN fails this too
            raise ValueError(
                f"{name} must be a number of {unit}, {lowest:g} to {highest:g} (not {text!r})"
            )
    database_wait(env.get("LEAFPILE_DATABASE_WAIT", ""))


def database_wait(setting: str | None = None) -> float:
    """``LEAFPILE_DATABASE_WAIT``: how long a process starting waits for a
    database server that does not answer (seconds; ``forever``; default 0,
    no wait). The production workers wait forever (deploy/gunicorn.conf.py):
    one that gave up would stop gunicorn ("Worker failed to boot") and with it
    the whole setup. ``leafpile`` on a laptop says at once what is wrong."""
    text = (os.environ.get("LEAFPILE_DATABASE_WAIT", "") if setting is None else setting).strip()
    if not text:
        return 0.0
    if text.lower() == "forever":
        return math.inf
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 86_400:  # NaN fails this too
        raise ValueError(
            "LEAFPILE_DATABASE_WAIT must be a number of seconds, 0 to 86400, or forever"
            f" (not {text!r})"
        )
    return seconds


def data_folder_problem(folder: Path, error: OSError, env: Mapping[str, str] | None = None) -> str:
    """One line: the data folder cannot be made or written, and what to do."""
    env = os.environ if env is None else env
    reason = error.strerror or type(error).__name__
    if env.get("LEAFPILE_INSTANCE"):
        return (
            f"cannot use the data folder {folder} ({reason}); "
            "set LEAFPILE_INSTANCE to a folder this user can write"
        )
    home = env.get("HOME", "")
    return (
        f"cannot use the data folder {folder} ({reason}): is HOME ({home}) a folder this "
        "user can write? Or set LEAFPILE_INSTANCE to one"
    )


def check_data_folder(folder: Path) -> None:
    """Make the data folder if it is missing; raise OSError if it cannot be used."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(13, "Permission denied", str(folder))


def database_problem(url: str, error: BaseException) -> str:
    """One line: why the database cannot be used (its URL without the password)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError, SQLAlchemyError

    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        shown = ""
    if isinstance(error, NoSuchModuleError) or (isinstance(error, ArgumentError) and shown):
        return (
            f"LEAFPILE_DATABASE_URL names a database Leafpile cannot use ({shown}); "
            "use postgresql+psycopg://USER:PASSWORD@HOST/NAME or sqlite:////PATH/leafpile.sqlite3"
        )
    if isinstance(error, ArgumentError):
        return (
            "LEAFPILE_DATABASE_URL is not a database URL; it looks like "
            "postgresql+psycopg://USER:PASSWORD@HOST/NAME or sqlite:////PATH/leafpile.sqlite3"
        )
    if isinstance(error, ImportError):
        driver = error.name or "its driver"
        hint = " (pip install 'leafpile[postgres]')" if "psycopg" in driver else ""
        return f"the database driver {driver} for {shown} is not installed{hint}"
    if isinstance(error, SQLAlchemyError):
        orig = getattr(error, "orig", None) or error
        reason = " ".join(str(orig).split("\n")[0].split())[:200]
        if isinstance(error, OperationalError):
            return (
                f"cannot reach the database {shown} ({reason}); "
                "check LEAFPILE_DATABASE_URL and that the database is running"
            )
        return f"the database {shown} refused to start Leafpile ({reason})"
    reason = getattr(error, "strerror", None) or str(error)
    return f"cannot open the database {shown} ({reason})"


def main() -> int:
    """``python -m companion.startup``: check the settings, the data folder and
    the database URL's form (not whether it answers: the production workers
    wait for it), one line and exit 1 if wrong. deploy/serve and the systemd
    units run it before they start anything, so a mistake is said once
    instead of a worker failing to boot again and again."""
    import sys

    try:
        check_settings()
    except ValueError as exc:
        print(f"leafpile: {exc}", file=sys.stderr)
        return 1
    instance = os.environ.get("LEAFPILE_INSTANCE")
    if instance:
        folder = Path(instance).expanduser()
        try:
            check_data_folder(folder)
        except OSError as exc:
            print(f"leafpile: {data_folder_problem(folder, exc)}", file=sys.stderr)
            return 1
    url = os.environ.get("LEAFPILE_DATABASE_URL", "")
    if url:
        from sqlalchemy import create_engine
        from sqlalchemy.exc import SQLAlchemyError

        try:
            create_engine(url).dispose()  # parses it and loads its driver; connects to nothing
        except (SQLAlchemyError, ImportError) as exc:
            print(f"leafpile: {database_problem(url, exc)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
