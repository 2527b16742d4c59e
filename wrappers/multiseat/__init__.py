"""The multi-agent learning view: several learning seats of one game, for MARL libraries.

Choose the learning seats of any game (all Undercover voters, Decrypto's Bob and Eve as two
policies, ...); the other seats are played by agent specs, as in
:class:`~cluegym.wrappers.selfplay.SelfPlayEnv`. Each learning seat sees and acts through its
:class:`~cluegym.wrappers.selfplay.SeatTask` (the single-seat SB3 path's features and
candidates): a ``float32`` feature vector and a ``Discrete(n)`` choice, Text actions becoming
choices among candidates. Every learning seat gets the same spaces (features and choices are
zero-padded to the largest seat, padded choices masked), as Tianshou requires:

- observation: ``Dict({observation_key: Box(d), "action_mask": Box(0, 1, (n,), int8)})``,
  PettingZoo's masking convention (``observation_key`` is ``"observation"`` for PettingZoo and
  Tianshou, ``"observations"`` for RLlib's action-masking RLModule);
- action: ``Discrete(n)``; an illegal choice is rejected by the game (the seat acts again, the
  game's fallback after ``max_retries``), and costs ``invalid_action_penalty``. A choice the
  seat's decision does not offer (a padded one, one outside ``0..n - 1``, one past its
  candidates) is rejected the same way, ``infos[seat]["rejected"]`` saying which
  (:meth:`~cluegym.wrappers.seat_task.SeatTask.choice_error`).

:class:`MultiSeatEnv` is a PettingZoo AEC env (only the learning seat to decide is selected:
the right view for turn-based phases); :class:`MultiSeatParallelEnv` is its ParallelEnv twin,
where the learning seats of a simultaneous block (e.g. Undercover's votes) decide together.
Both take RLlib's ``PettingZooEnv``/``ParallelPettingZooEnv`` and Tianshou's ``PettingZooEnv``
unchanged (README "Multi-agent RL libraries"). Rewards are each learning seat's game rewards,
plus optional potential-based shaping (``shaping=``, :mod:`cluegym.wrappers.shaping`, as the
single-seat SB3 path): each learning seat's transitions run from one of its decisions to its
next, so a seat gets ``scale * (gamma * phi(next decision) - phi(this decision))`` with its next
decision (``phi = 0`` at the end of the game). The unshaped return is always reported: the
finished game's infos hold ``game_return`` (the game's rewards only) and ``shaping_return``.

Example:
    >>> import numpy as np
    >>> env = MultiSeatEnv("decrypto", learners="bob,eve", opponents={"alice": "glove:k=16"})
    >>> env.possible_agents, env.action_space("eve")
    (['bob', 'eve'], Discrete(24))
    >>> env.reset(seed=0)
    >>> for seat in env.agent_iter():  # each learning seat takes its first legal choice
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    >>> info["game_result"]["end_reason"], info["game_return"]
    ('miscommunications', {'bob': -1.0, 'eve': 1.0})
"""

from cluegym.wrappers.multiseat.aec import MultiSeatEnv, learning_seats
from cluegym.wrappers.multiseat.parallel import MultiSeatParallelEnv

__all__ = ["MultiSeatEnv", "MultiSeatParallelEnv", "learning_seats"]
