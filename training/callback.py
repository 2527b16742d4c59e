"""What a training run does while SB3 learns: snapshots, periodic evaluation, return logging.

:func:`training_callback` builds the SB3 callback :func:`~cluegym.training.train.train`
passes to ``model.learn``; :class:`TrainingClock` measures training time without the time
spent evaluating.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from cluegym.training.config import TrainConfig, policy_metadata
from cluegym.training.evaluation import evaluation_metric, evaluation_row
from cluegym.training.policy_agent import save_policy
from cluegym.training.schedule import global_rng_kept
from cluegym.wrappers.seat_task import SeatTask

__all__ = ["TrainingClock", "training_callback"]


class TrainingClock:
    """Training wall time, excluding the time spent evaluating.

    Example:
        >>> import time
        >>> clock = TrainingClock()
        >>> began = time.perf_counter(); time.sleep(0.2)  # an evaluation mid-training
        >>> seconds_spent_evaluating = time.perf_counter() - began
        >>> clock.pause(seconds_spent_evaluating); minutes = clock() / 60
        >>> clock() < 0.1  # the 0.2 s spent evaluating is not training time
        True
    """

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.paused = 0.0

    def restart(self) -> None:
        """Start counting now (set-up before ``learn`` is not training)."""
        self.start = time.perf_counter()
        self.paused = 0.0

    def pause(self, seconds: float) -> None:
        """Leave ``seconds`` (spent on something else) out of the training time."""
        self.paused += seconds

    def __call__(self) -> float:
        return time.perf_counter() - self.start - self.paused


def training_callback(config: TrainConfig, task: SeatTask, out: Path, rows: list[dict[str, Any]],
                      clock: TrainingClock) -> Any:
    """The SB3 callback of one run (a ``BaseCallback``).

    Args:
        config: the run.
        task: the learner's seat task (its evaluation metric names the curve).
        out: run folder; checkpoints go to ``out/checkpoints``, snapshots to ``out/snapshots``.
        rows: the curve; each evaluation appends its point.
        clock: training time; evaluations pause it.
    """
    # Deferred on purpose: stable-baselines3 loads torch (heavy); only a training run needs it.
    from stable_baselines3.common.callbacks import BaseCallback

    metric = evaluation_metric(task)

    class TrainingCallback(BaseCallback):
        """Snapshots into the pool, periodic evaluation, unshaped-return logging.

        Evaluations run at the start of a rollout, when every step collected so far has gone
        into an update (SB3 calls ``_on_rollout_end`` before the update, and ``_on_step``
        mid-rollout): a point labelled N steps is the policy trained on exactly N steps.
        """

        def __init__(self) -> None:
            super().__init__()
            self.next_snapshot = config.snapshot_every
            self.next_eval = config.eval_every

        def evaluate(self) -> None:
            began = time.perf_counter()
            steps = int(self.num_timesteps)
            with global_rng_kept():
                path = save_policy(self.model, out / "checkpoints" / f"step_{steps}", policy_metadata(config, steps))
                row = evaluation_row(config, task, path, steps, clock() / 60.0)
            rows.append(row)
            self.logger.record(f"eval/{metric}", row[metric])
            clock.pause(time.perf_counter() - began)  # evaluation time is not training time

        def _on_training_start(self) -> None:
            if not rows:
                self.evaluate()

        def _on_rollout_start(self) -> None:
            if self.num_timesteps >= self.next_eval:
                # The next multiple of eval_every: one evaluation per boundary, however long the rollouts.
                self.next_eval = (self.num_timesteps // config.eval_every + 1) * config.eval_every
                self.evaluate()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_snapshot:
                self.next_snapshot += config.snapshot_every
                path = save_policy(self.model, out / "snapshots" / f"step_{self.num_timesteps}",
                                   policy_metadata(config, int(self.num_timesteps)))
                self.training_env.env_method("add_snapshot", str(path))
            return True

        def _on_rollout_end(self) -> None:
            returns = [ep["game_return"] for ep in self.model.ep_info_buffer if "game_return" in ep]
            if returns:
                self.logger.record("rollout/game_return_mean", float(np.mean(returns)))

    return TrainingCallback()
