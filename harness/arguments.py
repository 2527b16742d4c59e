"""The ``NAME=VALUE`` arguments every ``cluegym`` command shares, and its one-line usage error.

``cluegym run``/``play``, the benchmark scripts and ``cluegym train`` read ``--env``,
``--agent`` and the like with these (:mod:`cluegym.benchmarks.usage` re-exports them for the
scripts); :func:`cluegym.cli.main` prints a :class:`UsageError`.

Example:
    >>> parse_options(["max_turns=4", 'keywords=["a", "b"]', "deck=mine"], "--env")
    {'max_turns': 4, 'keywords': ['a', 'b'], 'deck': 'mine'}
"""

from __future__ import annotations

import argparse
import json
import shlex
from typing import Any, NoReturn, Sequence

__all__ = ["UsageError", "env_flag", "parse_assignments", "parse_option_value", "parse_options", "usage_error"]


class UsageError(SystemExit):
    """A one-line ``cluegym: error: ...`` for input that cannot run; exits 2 like argparse's
    own usage errors (a run that played but failed exits 1). :func:`cluegym.cli.main` prints it."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = " ".join(f"cluegym: error: {message}".split())

    def __str__(self) -> str:
        return self.message


def usage_error(message: str) -> NoReturn:
    """Stop the command with :class:`UsageError` ``message`` (as an expression in a branch)."""
    raise UsageError(message)


def parse_assignments(items: Sequence[str], what: str, form: str = "NAME=VALUE",
                      parser: argparse.ArgumentParser | None = None) -> dict[str, str]:
    """``["alice=glove:k=16", ...]`` -> ``{"alice": "glove:k=16"}``.

    Args:
        items: the repeated option's values.
        what: the option, as errors name it (``"--agent"``).
        form: how errors show the expected shape.
        parser: a script's own parser: its ``error`` reports instead (argparse's usage line).

    Raises:
        UsageError: an item without a name or a value, or a name given twice (the later one
            silently won); SystemExit from ``parser.error`` when a parser is given.

    Example:
        >>> parse_assignments(["alice=glove:k=16", "*=random"], "--agent")
        {'alice': 'glove:k=16', '*': 'random'}
    """
    fail = usage_error if parser is None else parser.error
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            fail(f"{what} {item!r} must look like {form}")
        if key.strip() in out:
            fail(f"{what} name {key.strip()!r} is given twice")
        out[key.strip()] = value.strip()
    return out


def parse_option_value(text: str) -> Any:
    """A ``--env key=value`` value: JSON when it parses (numbers, lists, ``true``), else the string.

    Example:
        >>> parse_option_value("3"), parse_option_value("[1, 2]"), parse_option_value("glove")
        (3, [1, 2], 'glove')
    """
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # RecursionError: "[[[[..." nested past the limit
        return text


def parse_options(items: Sequence[str], what: str, form: str = "KEY=VALUE",
                  parser: argparse.ArgumentParser | None = None) -> dict[str, Any]:
    """Game or task options given as ``--env KEY=VALUE`` (repeated): :func:`parse_assignments`
    with each value read by :func:`parse_option_value`.

    Raises:
        UsageError: as :func:`parse_assignments` (SystemExit from ``parser.error`` with a parser).

    Example:
        >>> parse_options(["max_turns=4", "reveal_captions=true"], "--env")
        {'max_turns': 4, 'reveal_captions': True}
    """
    return {key: parse_option_value(value) for key, value in parse_assignments(items, what, form, parser).items()}


def env_flag(key: str, value: Any) -> str:
    """The ``--env KEY=VALUE`` argument that gives option ``key`` the value ``value`` (the
    inverse of :func:`parse_options`), quoted for a shell where it needs it.

    Example:
        >>> print(env_flag("reveal_captions", True), env_flag("keywords", ["a", "b"]))
        --env reveal_captions=true --env 'keywords=["a", "b"]'
    """
    return f"--env {shlex.quote(f'{key}={json.dumps(value)}')}"
