"""Adversarial Taboo prompts for LLM agents: the generalist's parsing and the CoT baseline.

* Generalist (``llm``): the env's prompt verbatim (CoMet's rules and Figure 18 role prompts);
  ``ANSWER: {"utterance": ..., "guess": ...}`` becomes the env's action.
* CoT (``llm-cot``): the same view plus step-by-step instructions for the role.
* CoMet (``comet``): Figure 18's structured prompts, see :mod:`cluegym.agents.llm.comet`.
"""

from __future__ import annotations

from typing import Any

from cluegym.agents.llm.agent import LLMAgent
from cluegym.agents.llm.backends import Message
from cluegym.agents.llm.parsing import ParseError, extract_dict, shown


def generalist_messages(observation: dict[str, Any], info: dict[str, Any], seat: str) -> list[Message]:
    """The env's prompt, verbatim."""
    return [{"role": "user", "content": str(observation["prompt"])}]


def make_action(seat: str, utterance: str, guess: str | None = None) -> dict[str, str]:
    """The env action for ``seat`` (the defender's empty guess means no guess)."""
    action = {"utterance": " ".join(str(utterance or "").split())}
    if seat == "defender":
        action["guess"] = " ".join(str(guess or "").split())
    return action


def parse_action(text: str, observation: dict[str, Any], info: dict[str, Any], seat: str) -> dict[str, str]:
    """``ANSWER: {"utterance": ..., "guess": ...}`` -> the env action.

    Raises:
        ParseError: no utterance (and, for the defender, no guess either).
    """
    try:
        answer = extract_dict(text, "utterance")
    except ParseError:
        if seat == "defender":
            try:
                answer = extract_dict(text, "guess")
            except ParseError:
                answer = None
        else:
            answer = None
    example = '{"utterance": "..."}' if seat == "attacker" else '{"utterance": "...", "guess": ""}'
    if answer is None:
        raise ParseError(f"no utterance found; end with ANSWER: {example}")
    utterance = answer.get("utterance")
    if utterance is not None and not isinstance(utterance, str):
        raise ParseError(f"the utterance must be text in quotes, got {shown(utterance)}; answer {example}")
    guess = answer.get("guess") if seat == "defender" else None
    if isinstance(guess, (list, tuple)):  # ["apple"]: the first candidate
        guess = guess[0] if guess else ""
    if guess is False:
        guess = None
    if guess is not None and not isinstance(guess, str):
        raise ParseError(f'the guess must be a word in quotes (or ""), got {shown(guess)}; answer {example}')
    action = make_action(seat, utterance or "", guess)
    if not action["utterance"] and not action.get("guess"):
        raise ParseError("the utterance is empty")
    return action


COT = {
    "attacker": (
        "Think step by step before answering:\n"
        "1. What does the defender seem to suspect, from their last replies?\n"
        "2. Which scenes, uses or associations of your secret word could lead them to say it unconsciously?\n"
        "3. Check that your utterance does not contain the secret word or any form of it.\n"
        'Then answer: ANSWER: {"utterance": "..."}'
    ),
    "defender": (
        "Think step by step before answering:\n"
        "1. What topic is the attacker steering towards in the last turns?\n"
        "2. List 1-3 candidate secret words, most likely first.\n"
        "3. Guess only if you suspected the same word last turn too (or this is your last turn); otherwise reply "
        "without using any candidate word.\n"
        'Then answer: ANSWER: {"utterance": "...", "guess": "your guess or empty"}'
    ),
}


class TabooCoTAgent(LLMAgent):
    """The CoT baseline for Adversarial Taboo (registered as ``llm-cot`` for taboo)."""

    games = ("taboo",)
    style = "taboo-cot"

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        messages = [{"role": "user", "content": str(observation["prompt"]) + "\n\n" + COT[self.seat]}]
        return await self.ask(messages, lambda t: parse_action(t, observation, info, self.seat), step="cot")


def specialist_class(seat: str) -> type[LLMAgent]:
    return TabooCoTAgent
