"""Guess the number with a hint: the test-only fifth game (see docs/adding_a_game.md).

It lives outside ``cluegym.envs`` on purpose: it proves that a game defined by nothing but a
folder and a :class:`~cluegym.envs.core.registry.GameSpec` gets conformance, the ``random``
and ``llm`` agents, the learner view and ``cluegym run`` for free. A built-in game would be
found by the registry from this same ``GAME``; this one is registered by the tests::

    cluegym.register_game(GAME)
"""

from cluegym.envs.core.registry import GameSpec

#: Only the env is named: baselines, LLM adapter, learner task and potential fall back to the
#: generic versions (or, for baselines and shaping, to "none").
GAME = GameSpec(name="fifthgame", version=0, env=f"{__name__}.env")
