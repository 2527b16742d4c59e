"""Vectorised self-play: ``n`` :class:`~cluegym.wrappers.selfplay.SelfPlayEnv` copies for SB3.

Example:
    >>> env = make_vec_env(2, vec="dummy", seed=0, game="decrypto", seat="eve",
    ...                    opponents={"alice": "glove:k=16", "bob": "glove"})
    >>> env.num_envs, env.reset().shape
    (2, (2, 127))
    >>> from sb3_contrib import MaskablePPO  # doctest: +SKIP
    >>> MaskablePPO("MlpPolicy", env).learn(10_000)  # doctest: +SKIP
    >>> env.close()
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

import gymnasium
import numpy as np

from cluegym.envs.core.text import is_integer
from cluegym.harness.seeding import check_match_seed
from cluegym.wrappers.selfplay import SelfPlayEnv, make_game_env

__all__ = ["make_vec_env", "limit_threads"]


def limit_threads(threads: int) -> None:
    """Run torch and numpy's BLAS on ``threads`` threads in this process.

    Each defaults to a thread per core. In a process that shares the cores with others (each
    ``make_vec_env(vec="subproc")`` worker, a benchmark on a busy machine) the extra threads
    spin against the other processes: MaskablePPO on four Taboo workers on two cores trained
    5x slower with the BLAS's default (docs/performance.md, "Thirty-first pass").

    Example:
        >>> limit_threads(1)  # in a worker process, before it computes anything
    """
    # Deferred on purpose: torch is heavy, and the wrappers import without it.
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(threads)
    threadpool_limits(threads)  # kept for the process (not used as a context manager)


def make_vec_env(n_envs: int = 1, *, vec: str = "dummy", seed: int = 0, worker_threads: int | None = 1,
                 **kwargs: Any) -> Any:
    """``n_envs`` :class:`SelfPlayEnv` copies in an SB3 ``DummyVecEnv`` or ``SubprocVecEnv``.

    Each copy is wrapped in SB3's ``Monitor`` (episode returns and lengths, plus the unshaped
    ``game_return``) and seeded ``seed + i``. With ``"subproc"`` each worker runs torch and the
    BLAS on ``worker_threads`` threads (:func:`limit_threads`), and the game's ``preload()`` runs
    here before the workers are forked, so that they share what it reads (Dixit's deck; the
    word judge of Decrypto, Taboo and Undercover, whose NLTK import each worker would otherwise
    pay at its first check, ~2 s and ~125 MB). The
    ``DummyVecEnv`` returns each step's infos as copies of the envs' info dicts and their
    arrays instead of SB3's deep copy: the values in them are new at every step, so the
    copies are as independent (4.5-9.7% less CPU a decision in the vectorised env).

    Args:
        n_envs: number of envs.
        vec: ``"dummy"`` (one process) or ``"subproc"`` (one process per env).
        seed: env ``i`` is seeded ``seed + i``.
        worker_threads: with ``"subproc"``, the torch and BLAS threads of each worker (default
            1: the workers share the cores already); None leaves the libraries' defaults, a
            thread per core each, which the workers then spin against each other
            (:mod:`cluegym.benchmarks.vec_training` compares them).
        **kwargs: :class:`SelfPlayEnv` arguments (``game``, ``seat``, ``opponents``, ...).

    Raises:
        ValueError: ``vec`` is neither ``"dummy"`` nor ``"subproc"``, ``n_envs`` is no int
            >= 1, ``worker_threads`` is not None or a positive int, or ``seed`` is negative.
        TypeError: ``seed`` is no integer.
    """
    if vec not in ("dummy", "subproc"):
        raise ValueError(f"vec must be 'dummy' or 'subproc', got {vec!r}")
    if not is_integer(n_envs) or n_envs < 1:
        raise ValueError(f"n_envs must be an int >= 1, got {n_envs!r}")
    check_match_seed(seed)  # env i is seeded seed + i: None or -1 failed in SB3's or numpy's code
    if worker_threads is not None and (not is_integer(worker_threads) or worker_threads < 1):
        raise ValueError(f"worker_threads must be None or an int >= 1, got {worker_threads!r}")
    # Deferred on purpose: stable-baselines3 loads torch (heavy); the wrappers import without it.
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    def factory(index: int) -> Callable[[], gymnasium.Env]:
        def build() -> gymnasium.Env:
            if vec == "subproc" and worker_threads is not None:
                limit_threads(worker_threads)  # one process per env already: more threads contend
            env = Monitor(SelfPlayEnv(**kwargs), info_keywords=("game_return",))
            env.reset(seed=seed + index)
            return env
        return build

    builders = [factory(i) for i in range(n_envs)]
    if vec == "subproc":
        if "game" in kwargs:
            # What the game reads lazily (Dixit's deck, the word judge) read here, before the
            # fork: the workers share it instead of each reading and holding its own (~45 MB for
            # the shipped deck; NLTK's import for the judge).
            make_game_env(kwargs["game"], kwargs.get("env_kwargs")).unwrapped.preload()
        vec_env = SubprocVecEnv(builders, start_method="fork")
    else:
        vec_env = DummyVecEnv(builders)
        _copy_buffers_cheaply(vec_env)
    vec_env.seed(seed)
    return vec_env


class _StepInfos(list):
    """A ``DummyVecEnv``'s info buffer whose deep copy copies each info and its arrays.

    SB3's ``DummyVecEnv.step_wait`` returns ``deepcopy(buf_infos)``, so that what a step
    hands out shares nothing with the envs. Behind :func:`make_vec_env` every info is a new
    dict of new values at every step: :class:`SelfPlayEnv`'s scalars and strings, its
    opponents as a new dict, the game's result as a new nested dict
    (``ClueGameEnv.game_result`` builds one per call, tested per game), ``Monitor``'s episode
    dict; the only values the envs may still hold are arrays (the action mask), copied here.
    So this is as independent as the deep copy, which walked every finished game's result at
    the step that ended it (22-53 us a decision; docs/performance.md, "Sixteenth pass").
    """

    def __deepcopy__(self, memo: dict[int, Any]) -> list[dict[str, Any]]:
        return [{key: value.copy() if type(value) is np.ndarray else value for key, value in info.items()}
                for info in self]


class _ObservationBuffers(OrderedDict):
    """A ``DummyVecEnv``'s observation buffers (key -> array), deep-copied as array copies."""

    def __deepcopy__(self, memo: dict[int, Any]) -> OrderedDict:
        return OrderedDict((key, array.copy()) for key, array in self.items())


def _copy_buffers_cheaply(vec_env: Any) -> None:
    """Give ``vec_env`` (a ``DummyVecEnv`` of :func:`make_vec_env`'s envs) the buffers above.

    A version of SB3 without these attributes keeps its own buffers (and its deep copies)."""
    if isinstance(getattr(vec_env, "buf_infos", None), list):
        vec_env.buf_infos = _StepInfos(vec_env.buf_infos)
    if isinstance(getattr(vec_env, "buf_obs", None), OrderedDict):
        vec_env.buf_obs = _ObservationBuffers(vec_env.buf_obs)
