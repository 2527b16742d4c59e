"""Undercover (the CoMet setup): rules, env, prompts and CoMet's 200 word pairs.

By concern: ``config`` (options and role/team names), ``state`` (the State and its finished
rounds), ``rules`` (the rules protocol's verbs), ``beliefs`` (belief reports: read and
scored), ``metrics`` (CoMet's metrics), ``word_pairs`` (the shipped pairs or yours),
``prompts`` (the observation text) and ``env`` (the PettingZoo adapter: spaces,
observations, checks, fallback, rendering).

:data:`GAME` declares the game to the registry (:mod:`cluegym.envs.core.registry`): the one
place that names its env and its parts in the layers above.
"""

from cluegym.envs.core.registry import GameSpec

GAME = GameSpec(
    name="undercover",
    version=0,
    env="cluegym.envs.undercover.env",
    baselines="cluegym.agents.embedding.undercover",
    llm_adapter="cluegym.agents.llm.adapters.undercover",
    learner_task="cluegym.wrappers.undercover:seat_task",
    potential="cluegym.wrappers.undercover:potential",
    data="cluegym.envs.undercover",
)
