"""Checks shared by the LLM agents and backends: option ranges, files named by options,
free-text bounds of an action space, and strict-JSON values for call logs (no model, no
network).

Example:
    >>> check_number("temperature", float("nan"), low=0, high=2, what="a number from 0 to 2")
    Traceback (most recent call last):
    ValueError: temperature must be a number from 0 to 2, got nan
    >>> import cluegym
    >>> text_bounds_error({"utterance": "x" * 500}, cluegym.make("taboo").action_space("attacker"))
    'the "utterance" is 500 characters long; at most 300 are allowed'
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from cluegym.envs.core.record import to_jsonable
from cluegym.harness.results import check_writable


def check_number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, integer: bool = False, what: str = "") -> None:
    """Raise a one-line ValueError unless ``value`` is a finite number (an integer when
    ``integer``) within ``[low, high]`` (``(low, high]`` when ``low_open``).

    Example:
        >>> check_number("temperature", float("nan"), low=0, high=2, what="a number from 0 to 2")
        Traceback (most recent call last):
        ValueError: temperature must be a number from 0 to 2, got nan
    """
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if ok and integer:
        ok = isinstance(value, (int, np.integer)) or (math.isfinite(value) and float(value).is_integer())
    ok = ok and (isinstance(value, (int, np.integer)) or math.isfinite(value))
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value <= high
    if not ok:
        raise ValueError(f"{name} must be {what}, got {value!r}")


#: Most re-asks of one kind an agent may be set to (``parse_retries``, ``max_retries``): each
#: re-ask resends the whole conversation, so 10**9 took 7 GB and 495 M prompt tokens for
#: three decisions, and HTTP retries back off for up to 30 s each.
MAX_RETRIES_OPTION = 20


def check_retries(name: str, value: Any) -> None:
    """Raise a one-line ValueError unless ``value`` is an integer from 0 to :data:`MAX_RETRIES_OPTION`."""
    check_number(name, value, low=0, high=MAX_RETRIES_OPTION, integer=True,
                 what=f"an integer from 0 to {MAX_RETRIES_OPTION}")


def check_llm_options(*, temperature: float, top_p: float, max_tokens: int, timeout: float, max_retries: int,
                      max_in_flight: int, parse_retries: int, decision_timeout: float) -> None:
    """Raise a one-line ValueError naming the first LLM agent option out of range."""
    check_number("temperature", temperature, low=0, high=2, what="a number from 0 to 2")
    check_number("top_p", top_p, low=0, low_open=True, high=1, what="a number in (0, 1]")
    check_number("max_tokens", max_tokens, low=1, integer=True, what="an integer >= 1")
    check_number("timeout", timeout, low=0, low_open=True, what="a finite number of seconds > 0")
    check_retries("max_retries", max_retries)
    check_number("max_in_flight", max_in_flight, low=1, integer=True, what="an integer >= 1")
    check_retries("parse_retries", parse_retries)
    check_number("decision_timeout", decision_timeout, low=0, low_open=True, what="a finite number of seconds > 0")


def check_option_file(path: Path, option: str, *, write: bool = True) -> None:
    """Raise a one-line ValueError naming ``option`` and ``path`` unless the file an agent's
    ``option=`` names can be read and, with ``write``, updated in place (a missing one is then
    created empty, with its folders; without ``write`` a missing one is fine).

    An agent is built before the match's first game: a bad path must fail there, not in
    every game after its LLM calls are spent.

    Example:
        >>> check_option_file(Path("/tmp"), "cache")
        Traceback (most recent call last):
        ValueError: the cache= file /tmp is a directory, not a file
    """
    what = f"the {option}= file"
    if write:
        # create: the file itself is opened for append (it is read back and added to in
        # place), not just its folder tested as for a file that is replaced whole
        check_writable(path, what, create=True)
    elif path.is_dir():
        raise ValueError(f"{what} {path} is a directory, not a file")
    try:
        with path.open("rb"):
            pass
    except FileNotFoundError:
        pass  # only without write: nothing to read yet
    except OSError as exc:
        raise ValueError(f"{what} {path} is not readable ({exc.strerror or exc})") from None


def text_bounds_error(value: Any, space: gymnasium.Space, where: str = "your answer") -> str | None:
    """Why ``value`` has free text longer than ``space`` allows (None when it fits or when
    the value does not have the space's shape: that is the env's to judge)."""
    if isinstance(space, gymnasium.spaces.Text):
        if isinstance(value, str) and len(value) > space.max_length:
            return f"{where} is {len(value)} characters long; at most {space.max_length} are allowed"
    elif isinstance(space, gymnasium.spaces.Dict) and isinstance(value, dict):
        for key, item in value.items():
            if key in space.spaces:
                error = text_bounds_error(item, space.spaces[key], f'the "{key}"')
                if error:
                    return error
    elif isinstance(space, gymnasium.spaces.Tuple) and isinstance(value, (list, tuple)) and len(value) == len(space):
        for i, (item, sub) in enumerate(zip(value, space.spaces)):
            error = text_bounds_error(item, sub, f"item {i + 1}")
            if error:
                return error
    return None


def json_safe(value: Any) -> Any:
    """``value`` as strict JSON data (non-finite floats become the strings NaN/Infinity)."""
    value = to_jsonable(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value
