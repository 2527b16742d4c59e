"""The checks the ``cluegym`` commands and benchmark scripts share: argparse types for counts
and durations, agent specs and output paths checked before any work.

The one-line usage error (:class:`UsageError`) and the ``NAME=VALUE`` arguments
(:func:`parse_assignments`, :func:`parse_options`) live in :mod:`cluegym.harness.arguments`, where
``cluegym train`` (a layer below) reads them too; they are re-exported here.

Example:
    >>> str(UsageError("--games must be >= 1, got 0"))
    'cluegym: error: --games must be >= 1, got 0'
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any, Iterable

from cluegym.harness.arguments import UsageError, parse_assignments, parse_option_value, parse_options, usage_error
from cluegym.harness.results import check_writable

__all__ = [
    "UsageError", "check_outputs", "check_seat_specs", "non_negative_float", "parse_assignments", "parse_option_value",
    "parse_options", "positive_float", "positive_int", "usage_error",
]


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
