"""The application factory."""

from __future__ import annotations

import importlib.util
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

import platformdirs
from flask import Flask
from htmx_flask import Htmx


def default_instance_folder() -> Path:
    """Where tables live unless ``LEAFPILE_INSTANCE`` says otherwise.

    The platform's user data directory (``~/.local/share/leafpile`` on Linux,
    ``~/Library/Application Support/leafpile`` on macOS), never a folder inside
    the install: deleting or rebuilding a virtual environment must not delete
    anybody's tables.
    """
    return Path(platformdirs.user_data_dir("leafpile", appauthor=False))


def _templates_folder() -> str:
    """``templates/`` beside the package in a checkout, else the installed copy."""
    checkout = Path(__file__).resolve().parent.parent / "templates"
    if (checkout / "base.html").is_file():
        return str(checkout)
    spec = importlib.util.find_spec("leafpile_templates")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Leafpile's templates are not installed; reinstall the package")
    return str(next(iter(spec.submodule_search_locations)))


def _secret_key(instance: Path) -> str:
    """Generate the session key once and keep it in the instance folder.

    Several workers may start at once on a fresh folder: each writes its
    candidate to a private temporary file and links it into place, which only
    the first can do, so every process ends up reading the same key. The
    file is created readable by its owner only.
    """
    key_file = instance / "secret_key"
    if not key_file.exists():
        fd, temporary = tempfile.mkstemp(prefix=".secret_key.", dir=instance)  # mode 0600
        try:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32))
            os.link(temporary, key_file)
        except FileExistsError:
            pass  # another process got there first: use its key
        finally:
            os.unlink(temporary)
    return key_file.read_text().strip()


def database_pool(setting: str) -> int | None:
    """``LEAFPILE_DATABASE_POOL``: PostgreSQL connections a process keeps open
    (None: the store's default). A wrong setting stops the server at start."""
    if not setting.strip():
        return None
    if not setting.strip().isdecimal() or not 1 <= int(setting) <= 1000:
        raise ValueError(
            "LEAFPILE_DATABASE_POOL must be a whole number of connections,"
            f" 1 to 1000 (not {setting!r})"
        )
    return int(setting)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the companion.

    Configuration comes from ``test_config`` (tests), else the environment:
    ``LEAFPILE_DATABASE_URL`` (any SQLAlchemy URL; default a SQLite file in
    the instance folder) and ``LEAFPILE_INSTANCE`` (the instance folder, where
    the database and the generated session key live; default
    :func:`default_instance_folder`). docs/configuration.md lists every setting.
    """
    instance = (
        (test_config or {}).get("INSTANCE_PATH")
        or os.environ.get("LEAFPILE_INSTANCE")
        or default_instance_folder()
    )
    app = Flask(
        __name__,
        template_folder=_templates_folder(),
        instance_path=str(Path(instance).expanduser().resolve()),
        instance_relative_config=True,
    )
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        DATABASE_URL=os.environ.get("LEAFPILE_DATABASE_URL")
        or f"sqlite:///{Path(app.instance_path) / 'leafpile.sqlite3'}",
        PUBLIC_URL=None,  # the URL phones use to join; set by `leafpile` from the LAN address
        JOIN_CODE_MINUTES=120,
    )
    if test_config:
        app.config.update(test_config)
    if "BGG_IDS" not in app.config:
        from .tables.exports import parse_bgg_ids

        # A wrong setting stops the server at start, with the reason, rather
        # than filing plays under no game (or the wrong one) all evening.
        app.config["BGG_IDS"] = parse_bgg_ids(os.environ.get("LEAFPILE_BGG_IDS", ""))
    if "DATABASE_POOL" not in app.config:
        app.config["DATABASE_POOL"] = database_pool(os.environ.get("LEAFPILE_DATABASE_POOL", ""))
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))

    Htmx(app)
    # The job workers that draw pages build an app of their own with this
    # factory (companion/web/costly.py): handed down, since the web layer
    # never imports the app factory (tests/code/test_import_contracts.py).
    app.extensions["leafpile_app_factory"] = create_app

    from .web import init_web

    init_web(app)  # it adds /healthz, which says whether the database answers
    return app
