"""The cluegym wrappers: candidate actions, featurizers, self-play, reward shaping.

- :mod:`.candidates`: ``CandidateActions``, Text actions as ``Discrete(n)`` over candidates.
- :mod:`.featurizers`: cached word, sentence and image encoders; the ``Featurizer`` base.
- :mod:`.selfplay`: ``SelfPlayEnv`` (one learning seat as a ``gymnasium.Env``), ``PolicyPool``,
  ``SeatTask`` and the per-game task registry ``TASKS``.
- :mod:`.shaping`: potential-based reward shaping (off by default).
- :mod:`.decrypto`, :mod:`.undercover`, :mod:`.taboo`, :mod:`.dixit`: each game's features,
  candidate generators, shaping potential and learner tasks.

See ``docs/training.md``. Nothing loads at import.
"""
