"""Adversarial Taboo prompts for LLM agents: the generalist's parsing and the CoT baseline.

* Generalist (``llm``, the paper's Naive baseline): the env's prompt verbatim (rules, role,
  dialogue; no strategy); ``ANSWER: {"utterance": ..., "guess": ...}`` becomes the env's action.
* CoT (``llm-cot``): the same view plus "Let's think step by step" (no strategy, no push to
  guess on the last turn).
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


#: The CoT baseline (Wei et al., 2022): think step by step, then answer. Figure 18's strategies
#: (metaphors, interference, guessing only on a repeated suspicion) are CoMet's, not CoT's.
COT = {
    "attacker": (
        "Let's think step by step about the conversation so far, then give your next utterance.\n"
        'End with: ANSWER: {"utterance": "..."}'
    ),
    "defender": (
        "Let's think step by step about the conversation so far, then give your reply, and a guess if you "
        "want to guess now (leave it empty otherwise).\n"
        'End with: ANSWER: {"utterance": "...", "guess": ""}'
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
