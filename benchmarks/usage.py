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

import argparse
import json
import math
import os
from pathlib import Path
from typing import Any, Iterable, NoReturn, Sequence

from cluegym.harness.results import check_writable

__all__ = [
    "UsageError", "check_outputs", "check_seat_specs", "non_negative_float", "parse_assignments", "parse_option_value", "positive_float",
    "positive_int", "usage_error",
]


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


# -- argparse types: a bad number is argparse's own one-line usage error, exit 2 ----------------

def positive_int(text: str) -> int:
    """An argparse ``type``: an integer >= 1 (``--games``, ``--steps``, ``--rounds``).

    Example:
        >>> positive_int("3")
        3
        >>> positive_int("0")
        Traceback (most recent call last):
        argparse.ArgumentTypeError: must be an integer >= 1, got '0'
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """An argparse ``type``: a finite number > 0 (``--seconds``: ``inf`` never ended a run and
    ``nan`` measured nothing).

    Example:
        >>> positive_float("inf")
        Traceback (most recent call last):
        argparse.ArgumentTypeError: must be a finite number > 0, got 'inf'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """An argparse ``type``: a finite number >= 0 (``--delay``)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def check_seat_specs(game: str, specs: Iterable[tuple[str | None, str, str]]) -> None:
    """Check each ``(label, seat, spec)`` as ``seat`` of ``game`` plays it, without building
    the agent (building one may load a model): a script's agents before its first match.

    Raises:
        AgentSpecError: the first bad spec, as ``"<label>: <why>"`` (just why for label None).

    Example:
        >>> check_seat_specs("decrypto", [("--eve", "eve", "nosuch")])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        cluegym.agents.AgentSpecError: --eve: unknown agent 'nosuch'; registered agents: ...
    """
    from cluegym.agents import AgentSpecError, check_agent_spec  # deferred: the agents' registry

    for label, seat, spec in specs:
        try:
            check_agent_spec(spec, game=game, seat=seat)
        except AgentSpecError as exc:
            if label is None:
                raise
            raise AgentSpecError(f"{label}: {exc}") from None


def check_outputs(parser: argparse.ArgumentParser, outputs: dict[str, Any],
                  inputs: dict[str, Any] | None = None) -> None:
    """Before any work: every output path given can be written, and none is an input or
    another output; else ``parser.error`` (one line, exit 2).

    A results file or a sheet overwritten by a table, or a path in a missing folder found only
    after an hour of games, lost the user's work. Missing parent folders are created (as every
    output of a match is); ``None`` entries (an output not asked for) are skipped.

    Args:
        parser: the command's parser (its ``error`` reports).
        outputs: flag -> path, e.g. ``{"--json": args.json}``.
        inputs: flag -> path of the files the command reads.

    Example:
        >>> parser = argparse.ArgumentParser(prog="decrypto_table1")
        >>> check_outputs(parser, {"--json": "games.jsonl"}, {"--results": "games.jsonl"})
        Traceback (most recent call last):
        SystemExit: 2
    """
    given = {flag: Path(path) for flag, path in outputs.items() if path is not None}
    read = {flag: Path(path) for flag, path in (inputs or {}).items() if path is not None}
    seen: dict[str, str] = {}
    for flag, path in given.items():
        real = os.path.realpath(path)
        for other, source in read.items():
            if real == os.path.realpath(source):
                parser.error(f"{flag} {path} is the same file as {other}: it would be overwritten")
        if real in seen:
            parser.error(f"{flag} and {seen[real]} are the same file: {path}")
        seen[real] = flag
        try:
            check_writable(path, flag, create=False)
        except ValueError as error:
            parser.error(str(error))
