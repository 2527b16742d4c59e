"""The env an RLlib run samples: the multi-seat learning view, with opponent pools and snapshots.

:class:`PooledMultiSeatEnv` is :class:`~cluegym.wrappers.multiseat.MultiSeatEnv` whose
non-learning seats draw their agent at every game from a pool of specs (``--opponent`` repeated
for one seat), and, in self-play, from frozen snapshots of the learner: checkpoint folders that
the driver publishes in ``snapshot_dir`` (:func:`publish_snapshot`). Each env reads that folder
when a game starts, so every env runner sees a snapshot as soon as it is published, with no
message to the runners (on several machines ``--out`` must then be a shared folder).
A snapshot plays a seat with the role of a learning seat, with that seat's policy.

:func:`make_rllib_env` is the env creator RLlib calls on every env runner (registered as
:data:`ENV_NAME`); it wraps the view in RLlib's own ``PettingZooEnv``, unchanged.

Example:
    >>> env = make_rllib_env({"game": "undercover", "learners": ["player_0", "player_1"],
    ...                       "opponents": {"*": ["glove:infer=false"]}})
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from cluegym.agents import check_agent_spec, make_agent
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.shaping import PotentialShaping

__all__ = ["ENV_NAME", "PooledMultiSeatEnv", "make_rllib_env", "publish_snapshot", "snapshot_specs"]

#: The name the env creator is registered under with Ray Tune's registry.
ENV_NAME = "cluegym_multiseat"
#: Chance that a seat with snapshots faces the newest one (as the SB3 path's pools).
LATEST_PROB = 0.5


def publish_snapshot(checkpoint: str | Path, snapshot_dir: str | Path, name: str) -> Path:
    """Move a saved checkpoint into ``snapshot_dir/name`` in one rename, so that an env never
    sees half a checkpoint."""
    target = Path(snapshot_dir) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        shutil.rmtree(target)
    os.replace(checkpoint, target)
    return target


def snapshot_specs(snapshot_dir: str | Path | None, policy: str, max_snapshots: int) -> list[str]:
    """Agent specs of the newest ``max_snapshots`` snapshots in ``snapshot_dir`` (oldest first),
    playing ``policy``. Snapshots are named ``step_<N>``."""
    if not snapshot_dir or not Path(snapshot_dir).is_dir():
        return []
    folders = [p for p in Path(snapshot_dir).iterdir() if p.is_dir() and p.name.startswith("step_")]
    folders.sort(key=lambda p: int(p.name.split("_", 1)[1]))
    return [f"rllib:path={p},policy={policy}" for p in folders[-max_snapshots:]]


class PooledMultiSeatEnv(MultiSeatEnv):
    """:class:`~cluegym.wrappers.multiseat.MultiSeatEnv` whose other seats draw their agent per game.

    Args:
        game, learners: as :class:`~cluegym.wrappers.multiseat.MultiSeatEnv`.
        opponents: seat -> list of agent specs (its pool); ``"*"`` for every seat not named;
            default: the game's default agents.
        snapshot_dir: folder of learner snapshots (``step_<N>`` checkpoints); None: no self-play.
        snapshot_policies: non-learning seat -> the policy its snapshots play (seats with a
            learning seat's role); seats not named never face snapshots.
        max_snapshots: snapshots kept in a pool (the newest).
        **kwargs: the other :class:`~cluegym.wrappers.multiseat.MultiSeatEnv` options.
    """

    def __init__(self, game: str, learners: str | Sequence[str] = "all", *,
                 opponents: Mapping[str, Sequence[str]] | None = None, snapshot_dir: str | None = None,
                 snapshot_policies: Mapping[str, str] | None = None, max_snapshots: int = 5, **kwargs: Any) -> None:
        pools = {seat: [specs] if isinstance(specs, str) else list(specs) for seat, specs in (opponents or {}).items()}
        empty = [seat for seat, specs in pools.items() if not specs]
        if empty:
            raise ValueError(f"opponent pool(s) of {', '.join(empty)} hold no agent spec")
        super().__init__(game, learners, opponents={seat: specs[0] for seat, specs in pools.items()}, **kwargs)
        wildcard = pools.get("*")
        self.pools = {seat: pools.get(seat) or wildcard or [spec] for seat, spec in self.opponent_specs.items()}
        # The first spec of a pool was built above; the others are drawn mid-run, in an env
        # runner, where an unknown one would end the training: checked now.
        for seat, specs in self.pools.items():
            for spec in specs[1:]:
                check_agent_spec(spec, game=game, seat=seat)
        self.snapshot_dir = snapshot_dir
        self.snapshot_policies = dict(snapshot_policies or {})
        self.max_snapshots = int(max_snapshots)
        self._agents_by_spec: dict[tuple[str, str], Any] = {
            (seat, spec): self._players[seat] for seat, spec in self.opponent_specs.items()}

    def _draw(self, seat: str) -> str:
        """The spec ``seat`` plays this game: the newest snapshot with probability
        :data:`LATEST_PROB` when there are snapshots, else uniform over the pool and snapshots."""
        assert self._rng is not None
        policy = self.snapshot_policies.get(seat)
        snapshots = snapshot_specs(self.snapshot_dir, policy, self.max_snapshots) if policy else []
        if snapshots and self._rng.random() < LATEST_PROB:
            return snapshots[-1]
        options = self.pools[seat] + snapshots
        return options[int(self._rng.integers(len(options)))] if len(options) > 1 else options[0]

    def _start_game(self, seed: int | None, options: Any = None) -> None:
        self._check_reset(seed, options)  # before the draws below change anything
        # The draw takes from the same generator as the game and agent seeds: one seed, one game.
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        for seat in self.opponent_specs:
            spec = self._draw(seat)
            key = (seat, spec)
            if key not in self._agents_by_spec:
                self._agents_by_spec[key] = make_agent(spec, game=self.game, seat=seat,
                                                       action_space=self.game_env.action_space(seat))
            self._players[seat] = self._agents_by_spec[key]
            self.opponent_specs[seat] = spec
        super()._start_game(None)  # the generator is set: continue it


def make_rllib_env(env_config: Mapping[str, Any]) -> Any:
    """RLlib's env creator: ``PettingZooEnv(PooledMultiSeatEnv(...))`` from the run's env config.

    ``env_config`` keys: ``game``, ``learners``, ``opponents`` (seat -> specs), ``task_options``,
    ``env_kwargs``, ``invalid_action_penalty``, ``snapshot_dir``, ``snapshot_policies``,
    ``max_snapshots``, ``shaping`` (a scale; 0: off) and ``gamma`` (the shaping's discount,
    PPO's).
    """
    # Deferred on purpose: ray[rllib] is an optional, heavy dependency (cluegym[rllib]).
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    scale = float(env_config.get("shaping", 0.0))
    shaping = (PotentialShaping.for_game(env_config["game"], gamma=float(env_config.get("gamma", 0.99)), scale=scale)
               if scale else None)
    view = PooledMultiSeatEnv(
        env_config["game"], env_config["learners"], opponents=env_config.get("opponents"),
        task_options=env_config.get("task_options"), env_kwargs=env_config.get("env_kwargs"),
        observation_key="observations", invalid_action_penalty=float(env_config.get("invalid_action_penalty", 0.0)),
        snapshot_dir=env_config.get("snapshot_dir"), snapshot_policies=env_config.get("snapshot_policies"),
        max_snapshots=int(env_config.get("max_snapshots", 5)), shaping=shaping,
    )
    return PettingZooEnv(view)
