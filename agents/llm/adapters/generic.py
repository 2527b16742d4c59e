"""The generic LLM adapter: any game, read through the seat's action space.

A game whose ``GameSpec`` names no ``llm_adapter`` is still playable by the generalist
``llm`` agent: the prompt is the observation's ``"prompt"``, verbatim, and the reply is read
by the seat's action space (after the last ``ANSWER:`` marker when there is one):

* ``Discrete``: one whole number in the space's range, and legal by ``obs["action_mask"]``
  (or ``info["action_mask"]``) when there is one; a reply naming several numbers is
  unreadable, never guessed at;
* ``Text``: the reply text, cleaned to one line of printable text (surrounding quotes
  dropped), within the space's ``min_length``/``max_length``;
* ``Dict`` / ``Tuple``: a JSON object / array whose entries are read per sub-space as above
  (a missing Text entry that may be empty counts as ``""``).

Anything else is a :class:`~cluegym.agents.llm.parsing.ParseError` with a reason the agent
sends back to the model. There are no specialist (``llm-cot``) prompts for such a game.

Example:
    >>> adapter = GenericAdapter(gymnasium.spaces.Discrete(20, start=1))
    >>> mask = np.zeros(20, dtype=np.int8); mask[[6, 7]] = 1  # only 7 and 8 are legal
    >>> adapter.parse_action("I will go with ANSWER: 7", {"action_mask": mask}, {}, "guesser")
    7
    >>> adapter.parse_action("ANSWER: 3", {"action_mask": mask}, {}, "guesser")
    Traceback (most recent call last):
    cluegym.agents.llm.parsing.ParseError: your answer: 3 is not allowed now; allowed: 7, 8
"""

from __future__ import annotations

import json
import re
from typing import Any

import gymnasium
import numpy as np

from cluegym.agents.llm.backends import Message
from cluegym.agents.llm.parsing import (
    ParseError, after_marker, clean_reply, extract_dict, last_json_array, parse_int, shown, small_int,
)
from cluegym.envs.core.text import clean_text

__all__ = ["GenericAdapter", "read_answer"]

#: Numbers standing alone (not glued to letters, as in ``player_3``).
_STANDALONE_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w])")
#: Legal values listed in a message before it says "...".
SHOWN_CHOICES = 12


class GenericAdapter:
    """Prompt and parsing for a game without its own LLM adapter (see the module docstring).

    Args:
        action_space: the seat's action space.
    """

    def __init__(self, action_space: gymnasium.Space) -> None:
        self.action_space = action_space

    def generalist_messages(self, observation: dict[str, Any], info: dict[str, Any], seat: str) -> list[Message]:
        """The env's prompt, verbatim.

        Raises:
            ValueError: the observation has no ``"prompt"``.
        """
        if not isinstance(observation, dict) or "prompt" not in observation:
            raise ValueError(f"the observation of {seat!r} has no 'prompt': the generic LLM adapter shows "
                             "the env's prompt verbatim")
        return [{"role": "user", "content": str(observation["prompt"])}]

    def parse_action(self, text: str, observation: dict[str, Any], info: dict[str, Any], seat: str) -> Any:
        """The env action in ``text``, read by the action space.

        Raises:
            ParseError: no readable action (the reason says what to answer).
        """
        mask = observation.get("action_mask") if isinstance(observation, dict) else None
        if mask is None and isinstance(info, dict):
            mask = info.get("action_mask")
        return read_answer(text, self.action_space, mask)

    def __repr__(self) -> str:
        return f"GenericAdapter({self.action_space})"


def read_answer(reply: str, space: gymnasium.Space, mask: Any = None) -> Any:
    """The action for ``space`` in an LLM ``reply`` (see the module docstring).

    Raises:
        ParseError: no readable action for this space.
    """
    cleaned = clean_reply(reply)
    tail = after_marker(cleaned)
    answer = tail if tail is not None else cleaned
    if isinstance(space, gymnasium.spaces.Discrete):
        return _read_number(answer, space, mask)
    if isinstance(space, gymnasium.spaces.Text):
        return _read_text(_unquote(answer), space, "your answer")
    if isinstance(space, gymnasium.spaces.Dict):
        return _read_entries(extract_dict(reply), space, mask, "your answer")
    if isinstance(space, gymnasium.spaces.Tuple):
        return _read_entries(_extract_list(cleaned, len(space.spaces)), space, mask, "your answer")
    raise ParseError(f"the generic LLM adapter cannot read a {type(space).__name__} action; this game needs "
                     "its own adapter")


def _read_number(answer: str, space: gymnasium.spaces.Discrete, mask: Any) -> int:
    low, high = int(space.start), int(space.start + space.n - 1)
    example = _legal_values(space, mask)[:1] or [low]
    numbers = list(dict.fromkeys(_STANDALONE_NUMBER.findall(answer)))
    if not numbers:
        raise ParseError(f"no number found; answer with one whole number from {low} to {high}, "
                         f"e.g. ANSWER: {example[0]}")
    if len(numbers) > 1:
        named = ", ".join(numbers[:5]) + (", ..." if len(numbers) > 5 else "")
        raise ParseError(f"your answer names several numbers ({named}); give exactly one, e.g. ANSWER: {example[0]}")
    return _check_discrete(numbers[0], space, mask, "your answer")


def _check_discrete(value: Any, space: gymnasium.spaces.Discrete, mask: Any, where: str) -> int:
    low, high = int(space.start), int(space.start + space.n - 1)
    number = small_int(value)
    if number is None:
        try:
            number = parse_int(value, low, high, what="whole number")
        except ParseError as exc:
            raise ParseError(f"{where}: {exc}") from None
    if not low <= number <= high:
        raise ParseError(f"{where}: the answer must be a whole number from {low} to {high}, got {number}")
    legal = _legal_values(space, mask)
    if mask is not None and legal and number not in legal:
        listed = ", ".join(str(v) for v in legal[:SHOWN_CHOICES]) + (", ..." if len(legal) > SHOWN_CHOICES else "")
        raise ParseError(f"{where}: {number} is not allowed now; allowed: {listed}")
    return number


def _legal_values(space: gymnasium.spaces.Discrete, mask: Any) -> list[int]:
    if mask is None:
        return []
    flags = np.asarray(mask).reshape(-1)[: space.n]
    return [int(space.start + i) for i in np.flatnonzero(flags)]


def _unquote(text: str) -> str:
    text = text.strip().strip("*").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        if text[0] == '"':
            try:
                value = json.loads(text)
            except ValueError:
                value = None
            if isinstance(value, str):
                return value
        return text[1:-1]
    return text


def _read_text(value: Any, space: gymnasium.spaces.Text, where: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ParseError(f"{where} must be text in quotes, got {shown(value)}")
    text = clean_text(value)
    if len(text) < space.min_length:
        raise ParseError(f"{where} is empty; give at least {space.min_length} characters" if not text else
                         f"{where} is {len(text)} characters long; at least {space.min_length} are needed")
    if len(text) > space.max_length:
        raise ParseError(f"{where} is {len(text)} characters long; at most {space.max_length} are allowed")
    return text


def _read_entries(value: Any, space: gymnasium.Space, mask: Any, where: str) -> Any:
    """``value`` (parsed JSON) read against ``space``, entry by entry."""
    if isinstance(space, gymnasium.spaces.Discrete):
        return _check_discrete(value, space, mask, where)
    if isinstance(space, gymnasium.spaces.Text):
        return _read_text(value, space, where)
    if isinstance(space, gymnasium.spaces.Dict):
        if not isinstance(value, dict):
            raise ParseError(f"{where} must be a JSON object with {_keys(space)}, got {shown(value)}")
        entries = {str(k).lower(): v for k, v in value.items()}
        masks = mask if isinstance(mask, dict) else {}
        out: dict[str, Any] = {}
        for key, sub in space.spaces.items():
            if key.lower() not in entries:
                if isinstance(sub, gymnasium.spaces.Text) and sub.min_length == 0:
                    out[key] = ""
                    continue
                raise ParseError(f'{where} lacks "{key}"; give a JSON object with {_keys(space)}')
            out[key] = _read_entries(entries[key.lower()], sub, masks.get(key), f'the "{key}"')
        return out
    if isinstance(space, gymnasium.spaces.Tuple):
        size = len(space.spaces)
        if not isinstance(value, (list, tuple)) or len(value) != size:
            raise ParseError(f"{where} must be a JSON array of {size} entries, got {shown(value)}")
        masks = mask if isinstance(mask, (list, tuple)) and len(mask) == size else [None] * size
        return tuple(_read_entries(item, sub, m, f"entry {i + 1}")
                     for i, (item, sub, m) in enumerate(zip(value, space.spaces, masks)))
    raise ParseError(f"{where}: the generic LLM adapter cannot read a {type(space).__name__} entry")


def _keys(space: gymnasium.spaces.Dict) -> str:
    return ", ".join(f'"{key}"' for key in space.spaces)


def _extract_list(cleaned: str, size: int) -> list[Any]:
    """The last JSON array of ``size`` entries, after the ANSWER marker first, then anywhere."""
    value = last_json_array(cleaned, lambda v: len(v) == size)
    if value is not None:
        return value
    raise ParseError(f"no JSON array of {size} entries found; answer like ANSWER: [...]")
