"""Undercover prompts for LLM agents: the generalist's parsing and the CoT baseline.

* Generalist (``llm``): the env's prompt verbatim; the reply's
  ``ANSWER: {"description": ...}`` / ``ANSWER: {"vote": "player_3"}`` (with optional
  ``"beliefs"``) becomes the env's ``Dict(description, vote, beliefs)`` action.
* CoT (``llm-cot``): CoMet's chain-of-thought baseline: the same view (rules, word, history;
  no strategy) plus "Let's think step by step" and the answer format, which asks for a belief
  report (features read, others' roles, own role) so that FER, OIAA and SIAA can be computed
  for CoT too. It is not told to reason about its identity or how to describe.
* CoMet (``comet``): see :mod:`cluegym.agents.llm.comet`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from cluegym.agents.llm.agent import LLMAgent
from cluegym.agents.llm.backends import Message
from cluegym.agents.llm.parsing import ParseError, extract_dict, loads_lenient, shown, small_int
from cluegym.envs.undercover.env import BELIEFS_MAX_CHARS

SPEAK, VOTE = 0, 1


def player_name(index: int) -> str:
    return f"player_{int(index)}"


def player_index(value: Any, num_players: int, allowed: Any = None) -> int:
    """``"player_3"``, ``"Player 3"``, ``3``, ``3.0`` or ``"3"`` -> 3.

    Args:
        value: the vote as the model wrote it.
        num_players: players in the game.
        allowed: optional mask (one entry per player) of the players that may be named,
            e.g. the observation's ``vote_mask`` (living players other than oneself).

    Raises:
        ParseError: no player number, one out of range, or one the mask excludes.
    """
    expected = 'the vote must name a player like "player_2"'
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, str, np.integer, np.floating)):
        raise ParseError(f"{expected}, got {shown(value)}")
    if isinstance(value, str):
        text = value[:200]
        found = re.findall(r"player[\s_#-]*(-?\d+)", text, re.IGNORECASE) or re.findall(r"-?\d+", text)
        if not found:
            raise ParseError(f"{expected}, got {shown(value)}")
        number = small_int(found[-1])
    else:
        number = small_int(value.item() if isinstance(value, np.generic) else value)
    if number is None:
        raise ParseError(f"{expected} by its whole number (player_0 to player_{num_players - 1}), got {shown(value)}")
    if not 0 <= number < num_players:
        raise ParseError(f"there is no player_{number}; players are player_0 to player_{num_players - 1}")
    if allowed is not None and not np.asarray(allowed)[number]:
        options = ", ".join(player_name(p) for p, ok in enumerate(np.asarray(allowed)) if ok)
        raise ParseError(f"you cannot vote for player_{number}; vote for a living player other than yourself: {options}")
    return number


def beliefs_json(value: Any) -> str | None:
    """A belief report as the env's JSON text (None when absent, not a dictionary, not
    strict JSON, or longer than the env's ``beliefs`` field allows)."""
    if isinstance(value, str):
        try:
            value = loads_lenient(value[:BELIEFS_MAX_CHARS])
        except ParseError:
            return None
    if not isinstance(value, dict) or not value:
        return None
    try:
        text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return None
    return text if len(text) <= BELIEFS_MAX_CHARS else None


def generalist_messages(observation: dict[str, Any], info: dict[str, Any], seat: str) -> list[Message]:
    """The env's prompt, verbatim."""
    return [{"role": "user", "content": str(observation["prompt"])}]


def parse_action(text: str, observation: dict[str, Any], info: dict[str, Any], seat: str) -> dict[str, Any]:
    """``{"description": ..., "beliefs": ...}`` when speaking, ``{"vote": i, "beliefs": ...}`` when voting.

    Raises:
        ParseError: no answer for the current phase.
    """
    phase = int(observation["phase"])
    key = "description" if phase == SPEAK else "vote"
    try:
        answer = extract_dict(text, key)
    except ParseError:
        example = '{"description": "your one-sentence description"}' if phase == SPEAK else '{"vote": "player_X"}'
        raise ParseError(f"no {key} found; end with ANSWER: {example}") from None
    action: dict[str, Any] = {}
    beliefs = beliefs_json(answer.get("beliefs"))
    if beliefs:
        action["beliefs"] = beliefs
    if phase == SPEAK:
        action["description"] = description_text(answer[key])
    else:
        action["vote"] = player_index(answer[key], len(observation["alive"]), observation.get("vote_mask"))
    return action


def description_text(value: Any) -> str:
    """A description from the answer: a non-empty string, whitespace collapsed.

    Raises:
        ParseError: not a string, or empty.
    """
    if not isinstance(value, str):
        raise ParseError(f'the description must be a sentence in quotes, got {shown(value)}; '
                         'answer {"description": "your one-sentence description"}')
    description = " ".join(value.split())
    if not description:
        raise ParseError("the description is empty")
    return description


# ------------------------------------------------------------------------------ CoT
#: The answer format both CoT requests end with: the belief report the metrics read (features
#: for FER, others for OIAA, self for SIAA). It asks for a report, not for a way to reason.
COT_REPORT = (
    '"beliefs": {{"features": {{"player_X": "the feature player_X described", ...}}, '
    '"others": {{"player_X": "civilian or undercover", ...}}, "self": "civilian or undercover", '
    '"other_word": "..."}}'
)
#: CoMet's CoT baseline (Wei et al., 2022): think step by step, then answer. No strategy and
#: no instruction to reason about one's own identity (the paper: CoT agents "default to
#: assuming they are civilians without reasoning").
COT_SPEAK = (
    "Let's think step by step about the game so far, then give your description.\n"
    'End with: ANSWER: {{"description": "...", ' + COT_REPORT + "}}"
)
COT_VOTE = (
    "Let's think step by step about the game so far, then give your vote.\n"
    'End with: ANSWER: {{"vote": "player_X", ' + COT_REPORT + "}}"
)


class UndercoverCoTAgent(LLMAgent):
    """CoMet's CoT baseline for Undercover (registered as ``llm-cot`` for undercover)."""

    games = ("undercover",)
    style = "undercover-cot"

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        guide = COT_SPEAK if int(observation["phase"]) == SPEAK else COT_VOTE
        messages = [{"role": "user", "content": str(observation["prompt"]) + "\n\n" + guide.format(word=observation["word"])}]
        return await self.ask(messages, lambda t: parse_action(t, observation, info, self.seat), step="cot")


def specialist_class(seat: str) -> type[LLMAgent]:
    return UndercoverCoTAgent
