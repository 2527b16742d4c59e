"""The one-line usage error of every ``cluegym`` command, and the ``NAME=VALUE`` arguments they share.

The commands live in two layers (``cluegym.cli`` and the benchmarks' ``register_cli``
modules under it), so these live here, where both can import them; :func:`cluegym.cli.main`
prints the error.

Example:
    >>> raise UsageError("--games must be >= 1, got 0")
    Traceback (most recent call last):
    UsageError: cluegym: error: --games must be >= 1, got 0
"""

from __future__ import annotations

import json
from typing import Any, NoReturn, Sequence

__all__ = ["UsageError", "parse_assignments", "parse_option_value", "usage_error"]


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


def parse_assignments(items: Sequence[str], what: str, form: str = "NAME=VALUE") -> dict[str, str]:
    """``["alice=glove:k=16", ...]`` -> ``{"alice": "glove:k=16"}``.

    Args:
        items: the repeated option's values.
        what: the option, as errors name it (``"--agent"``).
        form: how errors show the expected shape.

    Raises:
        UsageError: an item without a name or a value, or a name given twice (the later one
            silently won).

    Example:
        >>> parse_assignments(["alice=glove:k=16", "*=random"], "--agent")
        {'alice': 'glove:k=16', '*': 'random'}
    """
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            usage_error(f"{what} {item!r} must look like {form}")
        if key.strip() in out:
            usage_error(f"{what} name {key.strip()!r} is given twice")
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
