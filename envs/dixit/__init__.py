"""Dixit (DixitWorld arena rules): rules, env, the card deck and its shipped default data.

By concern: ``config`` (options and presets), ``state`` (the State), ``scoring`` (a round's
points), ``rules`` (the rules protocol's verbs), ``metrics`` (DixitArena's metrics), ``deck``
and ``deck_options`` (cards, captions, images), ``prompts``, ``render`` (the table) and
``env`` (the PettingZoo adapter: spaces, observations, checks, fallback).

:data:`GAME` declares the game to the registry (:mod:`cluegym.envs.core.registry`): the one
place that names its env and its parts in the layers above.
"""

from cluegym.envs.core.registry import GameSpec

GAME = GameSpec(
    name="dixit",
    version=0,
    env="cluegym.envs.dixit.env",
    baselines="cluegym.agents.embedding.dixit",
    llm_adapter="cluegym.agents.llm.adapters.dixit",
    learner_task="cluegym.wrappers.dixit:seat_task",
    potential="cluegym.wrappers.dixit:potential",
    data="cluegym.envs.dixit",
    # The listener task compares the clue with the cards' captions, and the storyteller's and
    # distractor's delegate (the caption agent) reads them too: no learning view works without.
    learner_env={"reveal_captions": True},
)
