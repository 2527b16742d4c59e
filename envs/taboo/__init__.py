"""Adversarial Taboo (as in CoMet): rules, env, prompts, derivative matching, target words.

:data:`GAME` declares the game to the registry (:mod:`cluegym.envs.core.registry`): the one
place that names its env and its parts in the layers above.
"""

from cluegym.envs.core.registry import GameSpec

GAME = GameSpec(
    name="taboo",
    version=0,
    env="cluegym.envs.taboo.env",
    baselines="cluegym.agents.embedding.taboo",
    llm_adapter="cluegym.agents.llm.adapters.taboo",
    learner_task="cluegym.wrappers.taboo:seat_task",
    potential="cluegym.wrappers.taboo:potential",
    data="cluegym.envs.taboo",
)
