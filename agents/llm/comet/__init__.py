"""CoMet (Communicating with Metaphor, seeds/comet.txt section 3) for Undercover and Adversarial Taboo.

* :mod:`.undercover`: :class:`CoMetUndercoverAgent`, one prompt step per module (feature
  extractor, metaphor reasoner, belief mapper, self-monitor, strategy planner, metaphor
  generator, voter), with ablations (``ablate=met`` is "CoMet w/o Met.").
* :mod:`.taboo`: :class:`CoMetTabooAgent`, the paper's simplified CoMet for Adversarial
  Taboo (Figure 18).
* :mod:`.pool`: :class:`ExperiencePool`, the JSONL experience pool both agents learn from.
* :mod:`.prompts`: the prompt texts, as module constants.

:func:`comet_class` is what the agent registry names ``comet``.

From the command line::

    cluegym run undercover --agent '*=comet:backend=openai,model=gpt-4o,experience=default' --games 20

Example:
    >>> from cluegym.agents import run_match
    >>> from cluegym.agents.llm.fault_server import serve_faults
    >>> comet_class("undercover", "player_0").__name__, comet_class("taboo", "attacker").__name__
    ('CoMetUndercoverAgent', 'CoMetTabooAgent')
    >>> with serve_faults() as server:  # a local stand-in that answers every CoMet prompt step
    ...     summary = run_match("taboo", {"*": f"comet:backend=openai,base_url={server},model=m"},
    ...                         games=1, seed=0, progress=False)
    >>> summary["ok"], summary["metrics"]["avg_turns"], len(server.records)
    (True, 10.0, 10)
"""

from __future__ import annotations

from cluegym.agents.llm.agent import LLMAgent
from cluegym.agents.llm.comet.pool import ExperiencePool
from cluegym.agents.llm.comet.prompts import METHODS
from cluegym.agents.llm.comet.taboo import CoMetTabooAgent, parse_attacker, parse_defender, taboo_history
from cluegym.agents.llm.comet.undercover import (
    MODULES,
    CoMetUndercoverAgent,
    parse_description,
    parse_vote,
    transcript_from_observation,
)

#: The games CoMet plays.
COMET_GAMES = ("undercover", "taboo")

__all__ = [
    "COMET_GAMES",
    "METHODS",
    "MODULES",
    "CoMetTabooAgent",
    "CoMetUndercoverAgent",
    "ExperiencePool",
    "comet_class",
    "parse_attacker",
    "parse_defender",
    "parse_description",
    "parse_vote",
    "taboo_history",
    "transcript_from_observation",
]


def comet_class(game: str, seat: str) -> type[LLMAgent]:
    """The CoMet agent class for ``game`` (Undercover or Adversarial Taboo).

    Raises:
        ValueError: a game CoMet does not play.
    """
    if game == "undercover":
        return CoMetUndercoverAgent
    if game == "taboo":
        return CoMetTabooAgent
    raise ValueError(f"CoMet plays {' and '.join(COMET_GAMES)}, not {game!r}")
