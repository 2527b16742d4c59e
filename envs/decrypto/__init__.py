"""Decrypto (3-player variant of the Decrypto benchmark paper): rules, env, data.

:data:`GAME` declares the game to the registry (:mod:`cluegym.envs.core.registry`): the one
place that names its env and its parts in the layers above.
"""

from cluegym.envs.core.registry import GameSpec

GAME = GameSpec(
    name="decrypto",
    version=0,
    env="cluegym.envs.decrypto.env",
    baselines="cluegym.agents.embedding.decrypto",
    llm_adapter="cluegym.agents.llm.adapters.decrypto",
    learner_task="cluegym.wrappers.decrypto:seat_task",
    potential="cluegym.wrappers.decrypto:potential",
    data="cluegym.envs.decrypto",
)
