"""Vectorised self-play: ``n`` :class:`~cluegym.wrappers.selfplay.SelfPlayEnv` copies for SB3.

Example:
    >>> env = make_vec_env(4, vec="subproc", seed=0, game="decrypto", seat="eve",
    ...                    opponents={"alice": "glove:k=16", "bob": "glove"})
    >>> MaskablePPO("MlpPolicy", env).learn(10_000)
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium

from cluegym.wrappers.selfplay import SelfPlayEnv

__all__ = ["make_vec_env"]


def make_vec_env(n_envs: int = 1, *, vec: str = "dummy", seed: int = 0, **kwargs: Any) -> Any:
    """``n_envs`` :class:`SelfPlayEnv` copies in an SB3 ``DummyVecEnv`` or ``SubprocVecEnv``.

    Each copy is wrapped in SB3's ``Monitor`` (episode returns and lengths, plus the unshaped
    ``game_return``) and seeded ``seed + i``.

    Args:
        n_envs: number of envs.
        vec: ``"dummy"`` (one process) or ``"subproc"`` (one process per env).
        seed: env ``i`` is seeded ``seed + i``.
        **kwargs: :class:`SelfPlayEnv` arguments (``game``, ``seat``, ``opponents``, ...).

    Raises:
        ValueError: ``vec`` is neither ``"dummy"`` nor ``"subproc"``.
    """
    if vec not in ("dummy", "subproc"):
        raise ValueError(f"vec must be 'dummy' or 'subproc', got {vec!r}")
    # Deferred on purpose: stable-baselines3 loads torch (heavy); the wrappers import without it.
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    def factory(index: int) -> Callable[[], gymnasium.Env]:
        def build() -> gymnasium.Env:
            if vec == "subproc":
                import torch  # deferred: heavy; only a subprocess env needs to set its threads

                torch.set_num_threads(1)  # one process per env already: threads only contend
            env = Monitor(SelfPlayEnv(**kwargs), info_keywords=("game_return",))
            env.reset(seed=seed + index)
            return env
        return build

    builders = [factory(i) for i in range(n_envs)]
    vec_env = SubprocVecEnv(builders, start_method="fork") if vec == "subproc" else DummyVecEnv(builders)
    vec_env.seed(seed)
    return vec_env
