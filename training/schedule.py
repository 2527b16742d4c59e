"""When an SB3 run updates, and keeping evaluation out of what it trains.

``learn(total_timesteps=N)`` collects whole rollouts (PPO, MaskablePPO, A2C: ``n_steps``
per env) or whole ``train_freq`` collections (DQN) before each update, so it trains ``N``
rounded up to that granularity; :func:`update_granularity` says what it is,
:func:`rounded_steps` what ``N`` becomes and :func:`steps_rounding` says so in words.
:func:`global_rng_kept` lets a run evaluate mid-training without changing what it trains,
and :func:`same_parameters` checks a saved policy against the model it came from.

Example:
    >>> from sb3_contrib import MaskablePPO
    >>> from cluegym.wrappers.vec_env import make_vec_env
    >>> env = make_vec_env(4, seed=0, game="decrypto", seat="eve", opponents={"alice": "random", "bob": "random"})
    >>> model = MaskablePPO("MlpPolicy", env, n_steps=256, seed=0, device="cpu")
    >>> rule = update_granularity(model)[1]; rule
    'MaskablePPO rollout = 256 steps x 4 envs'
    >>> steps_rounding(4000, rounded_steps(4000, 1024), rule)
    '4,000 rounded up to 4,096 (MaskablePPO rollout = 256 steps x 4 envs)'
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = ["update_granularity", "rounded_steps", "steps_rounding", "global_rng_kept", "same_parameters"]


def update_granularity(model: Any) -> tuple[int | None, str]:
    """Env steps an SB3 model collects between two updates, and that rule in words.

    ``None`` when it varies (DQN with ``train_freq`` in episodes); after training,
    ``model.num_timesteps`` is the truth either way.

    Example:
        >>> from sb3_contrib import MaskablePPO
        >>> from cluegym.wrappers.vec_env import make_vec_env
        >>> vec_env_of_4 = make_vec_env(4, seed=0, game="decrypto", seat="eve",
        ...                             opponents={"alice": "random", "bob": "random"})
        >>> update_granularity(MaskablePPO("MlpPolicy", vec_env_of_4, n_steps=256, seed=0, device="cpu"))
        (1024, 'MaskablePPO rollout = 256 steps x 4 envs')
    """
    n_envs = int(model.n_envs)
    envs = f"{n_envs:,} env{'s' if n_envs != 1 else ''}"
    name = type(model).__name__
    if hasattr(model, "rollout_buffer"):  # on-policy (PPO, MaskablePPO, A2C): whole rollouts
        return int(model.n_steps) * n_envs, f"{name} rollout = {int(model.n_steps):,} steps x {envs}"
    train_freq = getattr(model, "train_freq", None)
    unit = getattr(getattr(train_freq, "unit", None), "value", "")
    if unit == "step":  # off-policy: train_freq vector steps between updates
        return int(train_freq.frequency) * n_envs, f"{name} updates every {int(train_freq.frequency):,} steps x {envs}"
    episodes = int(getattr(train_freq, "frequency", 1))
    return None, f"{name} updates after every {episodes:,} episode{'s' if episodes != 1 else ''}"


def rounded_steps(requested: int, granularity: int | None) -> int:
    """The steps ``learn(total_timesteps=requested)`` trains: the next multiple of the
    granularity (``requested`` itself when the granularity is unknown).

    Example:
        >>> rounded_steps(512, 1024)
        1024
    """
    return requested if not granularity else -(-requested // granularity) * granularity


def steps_rounding(requested: int, trained: int, rule: str) -> str | None:
    """How the steps asked became the steps trained, or None when they are equal.

    Example:
        >>> steps_rounding(512, 1024, "PPO rollout = 1,024 steps x 1 env")
        '512 rounded up to 1,024 (PPO rollout = 1,024 steps x 1 env)'
    """
    if trained == requested:
        return None
    return f"{requested:,} rounded {'up' if trained > requested else 'down'} to {trained:,} ({rule})"


@contextmanager
def global_rng_kept() -> Iterator[None]:
    """Leave the global RNGs (``random``, numpy, torch) as they were after the block.

    Training draws its actions and minibatches from them, and loading a policy to evaluate
    it initialises a fresh network from torch's: without this, the trained policy would
    depend on when and how often it was evaluated.
    """
    import torch  # deferred: heavy, and only training needs it

    states = random.getstate(), np.random.get_state(), torch.get_rng_state()
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])


def same_parameters(model: Any, other: Any) -> bool:
    """Whether two SB3 models hold the same policy parameters, bit for bit."""
    import torch  # deferred: heavy, and only training needs it

    mine, theirs = model.policy.state_dict(), other.policy.state_dict()
    return mine.keys() == theirs.keys() and all(torch.equal(mine[k].cpu(), theirs[k].cpu()) for k in mine)
