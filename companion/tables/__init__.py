"""The tables: what a game night keeps, between the referees and the web.

The store (:mod:`companion.tables.store`) writes each table's log to the
database and reads it back as a snapshot; the per-game modules in
:mod:`companion.tables.games` turn phone input into rules actions. It imports
:mod:`companion.rules` and never :mod:`companion.web`: the import contracts in
``pyproject.toml`` (``tests/code/test_import_contracts.py``) hold it to that.
"""
