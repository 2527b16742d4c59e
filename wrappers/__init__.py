"""The cluegym wrappers: candidate actions, featurizers, self-play, reward shaping.

- :mod:`.candidates`: ``CandidateActions``, Text actions as ``Discrete(n)`` over candidates.
- :mod:`.featurizers`: the ``Featurizer`` base (features from :mod:`cluegym.agents.encoders`).
- :mod:`.selfplay`: ``SelfPlayEnv`` (one learning seat as a ``gymnasium.Env``), ``PolicyPool``,
  ``SeatTask`` and ``make_task`` (the task a game names in its ``GameSpec.learner_task``, or
  ``generic_task`` over :mod:`.numeric` features for a game that names none).
- :mod:`.shaping`: potential-based reward shaping (off by default).
- :mod:`.decrypto`, :mod:`.undercover`, :mod:`.taboo`, :mod:`.dixit`: each game's features,
  candidate generators, shaping potential and learner tasks.

See ``docs/training.md``. Nothing loads at import.
"""
