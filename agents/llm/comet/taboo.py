"""CoMet for Adversarial Taboo: the paper's simplified CoMet (seeds/comet.txt, Figure 18).

The attacker answers with ``<FOCUS>``/``<DISTRACT>``/``<DIALOGUE>`` given the dialogue and
its previous output, the defender with ``<STRATEGY>``/``<CANDIDATE>``/``<DIALOGUE>`` and
guesses only when it asks to and suspected the same word in the previous round (Figure 18);
where the paper is silent we choose: a guess asked for without a repeated suspicion is not
made, and no guess is forced on the last turn (no guess by the limit is a draw). The experience pool
(:class:`~cluegym.agents.llm.comet.pool.ExperiencePool`) gives the attacker past games'
utterances and outcomes.

From the command line::

    cluegym run taboo --agent '*=comet:backend=openai,model=gpt-4o,experience=default' --games 20

Example:
    >>> from cluegym.agents import run_match
    >>> from cluegym.agents.llm.fault_server import serve_faults
    >>> with serve_faults() as server:  # a local stand-in that answers in the tagged formats
    ...     summary = run_match("taboo", {"*": f"comet:backend=openai,base_url={server},model=m,"
    ...                                       f"experience=experience.jsonl"},
    ...                         games=1, seed=0, progress=False)
    >>> summary["ok"], summary["metrics"]["avg_turns"], summary["agent_stats"]["attacker"]["llm_calls"]
    (True, 10.0, 5.0)
    >>> from pathlib import Path
    >>> len(Path("experience.jsonl").read_text().splitlines())  # the attacker's game, kept as experience
    1
"""

from __future__ import annotations

import json
import re
from typing import Any

from cluegym.agents.llm.checks import check_number
from cluegym.agents.llm.adapters.taboo import make_action
from cluegym.agents.llm.agent import LLMAgent
from cluegym.agents.llm.comet.pool import ExperiencePool
from cluegym.agents.llm.comet.prompts import TABOO_ATTACKER, TABOO_DEFENDER
from cluegym.agents.llm.parsing import parse_tags
from cluegym.envs.core.text import quote_text


def taboo_history(observation: dict[str, Any]) -> str:
    """The dialogue so far, one ``Attacker: ...``/``Defender: ...`` line per utterance."""
    lines = []
    for i, text in enumerate(observation["dialogue"]):
        if text:
            lines.append(f"{'Attacker' if i % 2 == 0 else 'Defender'}: {quote_text(text)}")
    return "\n".join(lines) if lines else "(the conversation has not started)"


def parse_attacker(text: str) -> dict[str, str]:
    """Figure 18's attacker reply: ``<FOCUS>``, ``<DISTRACT>`` and the required ``<DIALOGUE>``."""
    return parse_tags(text, ("FOCUS", "DISTRACT", "DIALOGUE"), required=("DIALOGUE",))


def parse_defender(text: str) -> dict[str, str]:
    """Figure 18's defender reply: ``<STRATEGY>``, the required ``<CANDIDATE>``, ``<DIALOGUE>``."""
    return parse_tags(text, ("STRATEGY", "CANDIDATE", "DIALOGUE"), required=("CANDIDATE",))


class CoMetTabooAgent(LLMAgent):
    """CoMet for Adversarial Taboo (Figure 18), registered as ``comet`` for taboo.

    Args:
        experience: experience pool (see :class:`CoMetUndercoverAgent`); the attacker sees
            past games' utterances and outcomes.
        examples: experiences shown to the attacker.
        **kwargs: the :class:`~cluegym.agents.llm.agent.LLMAgent` options.
    """

    games = ("taboo",)
    style = "comet"

    def __init__(self, game: str, seat: str, action_space: Any, *, experience: str = "run", examples: int = 3,
                 **kwargs: Any) -> None:
        # -1 showed every experience but one: prompts that grew over a run
        check_number("examples", examples, low=0, integer=True, what="an integer >= 0")
        super().__init__(game, seat, action_space, **kwargs)
        self.pool = ExperiencePool.from_option(experience)
        self.examples = int(examples)
        self.previous = "(none)"
        self.candidates: list[str] = []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.previous, self.candidates = "(none)", []

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        history = taboo_history(observation)
        if self.seat == "attacker":
            target = str(observation["target"])
            shown = self.pool.examples("taboo", None, (target,), self.examples)
            experience = ""
            if shown:
                experience = "[Reference experience from earlier games]\n" + "\n".join(
                    f"- target '{e.get('target')}': you said {json.dumps(e.get('utterances', [])[:3])}; "
                    f"result: {e.get('outcome')}" for e in shown) + "\n"
            prompt = TABOO_ATTACKER.format(word=target, history=history, response=self.previous, experience=experience)
            parsed = await self.ask([{"role": "user", "content": prompt}], parse_attacker, step="comet_attacker")
            self.previous = f"<FOCUS>{parsed.get('focus', '')}</FOCUS><DIALOGUE>{parsed['dialogue']}</DIALOGUE>"
            return make_action("attacker", parsed["dialogue"])
        prompt = TABOO_DEFENDER.format(history=history, response=self.previous)
        parsed = await self.ask([{"role": "user", "content": prompt}], parse_defender, step="comet_defender")
        candidate = re.split(r"[,;/\n]", parsed["candidate"].strip("[] "))[0].strip().strip("[]").lower()
        wants_guess = "guess" in parsed.get("strategy", "").lower()
        # Figure 18's rule, and nothing else: guess only when asked to and the same word was
        # suspected last round too. No guess is forced on the last turn (the paper has none;
        # the turn limit then ends the game in a draw).
        confirmed = bool(self.candidates) and self.candidates[-1] == candidate
        guess = candidate if candidate and wants_guess and confirmed else ""
        self.candidates.append(candidate)
        self.previous = f"<STRATEGY>{'guess' if guess else 'continue'}</STRATEGY><CANDIDATE>{candidate}</CANDIDATE>"
        utterance = parsed.get("dialogue", "")
        if not utterance and not guess:
            utterance = "I see, tell me more."
        return make_action("defender", utterance, guess)

    async def observe_result(self, record: dict[str, Any]) -> None:
        """Attacker: store this game's utterances and outcome in the experience pool."""
        if self.seat != "attacker":
            return
        result = record.get("result", {})
        utterances = [u.get("text") for u in result.get("dialogue", []) if u.get("speaker") == "attacker"]
        outcome = {"attacker": "won", "defender": "lost"}.get(result.get("winner"), "draw")
        self.pool.add({"game": "taboo", "role": "attacker", "target": result.get("target"), "utterances": utterances,
                       "outcome": f"{outcome} ({result.get('end_reason')})", "success": outcome == "won"})
