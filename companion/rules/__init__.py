"""The referees: pure Python rules for the games Leafpile supports.

This package is a library of its own (other programs may import it). It never
imports Flask, SQLAlchemy, reportlab or anything else of the project outside
``companion.rules``; ``companion/rules/ruff.toml`` and
``tests/code/test_rules_purity.py`` enforce that.

Conventions every game module follows:

* Invalid input raises a :class:`~companion.rules.errors.RuleError`
  (a ``ValueError``) whose message names the bad value and says why, in words
  a person at the table understands.
* A game with turns is a state machine: ``new_game(...)`` returns a frozen
  state; actions are frozen dataclasses; ``apply(state, action)`` returns the
  next state and never mutates its argument. ``ACTIONS`` maps action names to
  classes for :mod:`companion.rules.actions` (JSON round trip), so a table is
  ``setup + list of actions`` and undo is a replay without the last action.
* Randomness is passed in (a seed in the setup or an ``rng`` argument), so a
  replay of the same actions always gives the same state.
"""
