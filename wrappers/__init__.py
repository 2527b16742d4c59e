"""The cluegym wrappers: candidate actions, featurizers, self-play, reward shaping.

- :mod:`.candidates`: ``CandidateActions``, Text actions as ``Discrete(n)`` over candidates.
- :mod:`.featurizers`: the ``Featurizer`` base (features from :mod:`cluegym.agents.encoders`).
- :mod:`.seat_task`: ``SeatTask`` and ``make_task`` (the task a game names in its
  ``GameSpec.learner_task``, or ``generic_task`` over :mod:`.numeric` features for a game that
  names none).
- :mod:`.selfplay`: ``SelfPlayEnv`` (one learning seat as a ``gymnasium.Env``), its opponents
  drawn from :mod:`.policy_pool` (``PolicyPool``); :mod:`.vec_env`: ``make_vec_env`` for SB3.
- :mod:`.shaping`: potential-based reward shaping (off by default).
- :mod:`.decrypto`, :mod:`.undercover`, :mod:`.taboo`, :mod:`.dixit`: each game's features,
  candidate generators, shaping potential and learner tasks.

- :mod:`.multiseat`: ``MultiSeatEnv``/``MultiSeatParallelEnv``, several learning seats as a
  PettingZoo env for RLlib and Tianshou.
- :mod:`.registration`: ``gymnasium.make("cluegym/<game>-v0", seat=...)``; importing this
  package registers the ids.

See ``docs/training.md``. No model, torch or SB3 loads at import (the ids register cheaply).
"""

from cluegym.wrappers import registration  # noqa: F401 - registers the Gymnasium ids
