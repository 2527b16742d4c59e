"""Train one seat of a cluegym game with Stable-Baselines3, by self-play against a policy pool.

:func:`train` builds vectorised :class:`~cluegym.wrappers.selfplay.SelfPlayEnv` copies,
trains an SB3 algorithm (sb3-contrib ``MaskablePPO`` by default: it reads the legal-choice
masks; ``ppo``/``a2c``/``dqn`` where masks are not needed), and while it learns:

- every ``snapshot_every`` env steps saves a frozen snapshot and adds it to the opponent
  pools of seats with the learner's role (``selfplay=True``; symmetric games such as
  Undercover; Decrypto's three seats all differ, so there snapshots only serve as checkpoints);
- at the first update boundary after every ``eval_every`` steps saves a checkpoint and
  evaluates it as a cluegym agent (``ppo:path=...``) in a seeded match against fixed
  baselines, the same games each time; step 0 (the untrained policy) is evaluated too, and
  each point records the exact env steps its policy was trained on;
- after the last update saves ``policy.zip`` + ``policy.json``, loads it back and evaluates
  that file on the same games: the curve's last point and the summary's ``final``;
- trains whole rollouts (PPO family) or whole ``train_freq`` collections (DQN), so ``steps``
  is rounded up to that granularity; the rounding is printed and recorded
  (``steps_requested``, ``steps_trained`` = ``model.num_timesteps``, ``steps_rounding``);
- logs to CSV (``progress.csv``, SB3's logger; TensorBoard too when the ``tensorboard``
  package is installed and asked for), with the unshaped game return always logged as
  ``rollout/game_return_mean`` next to SB3's (possibly shaped) ``rollout/ep_rew_mean``;
- writes ``eval.csv``, a learning-curve PNG (``curve.png``, with the baselines' level as
  dashed lines) and ``summary.json``.

Example:
    >>> cfg = TrainConfig("decrypto", "eve", steps=30_000, opponents={"alice": ["glove:k=16"], "bob": ["glove"]},
    ...                   baselines=["glove", "random"], out="runs/decrypto-eve")
    >>> result = train(cfg)
    >>> result["final"]["interception_rate"]
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import cluegym
from cluegym.agents import run_match
from cluegym.training.policy_agent import ALGORITHMS, algorithm_class, load_policy, save_policy
from cluegym.training.schedule import (global_rng_kept, rounded_steps, same_parameters, steps_rounding,
                                       update_granularity)
from cluegym.wrappers.selfplay import PolicyPool, make_task, make_vec_env
from cluegym.wrappers.shaping import PotentialShaping

__all__ = ["TrainConfig", "DEFAULT_ALGO_KWARGS", "train", "evaluate_policy", "evaluate_agent", "plot_curve",
           "report_table"]

#: Defaults per algorithm, tuned for these small feature vectors (overridable per run).
DEFAULT_ALGO_KWARGS: dict[str, dict[str, Any]] = {
    "maskable_ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 10, "learning_rate": 1e-3,
                     "ent_coef": 0.01, "gamma": 0.99, "policy_kwargs": {"net_arch": [64, 64]}},
    "ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 10, "learning_rate": 1e-3,
            "ent_coef": 0.01, "gamma": 0.99, "policy_kwargs": {"net_arch": [64, 64]}},
    "a2c": {"n_steps": 16, "learning_rate": 1e-3, "gamma": 0.99, "policy_kwargs": {"net_arch": [64, 64]}},
    "dqn": {"learning_rate": 1e-3, "buffer_size": 50_000, "learning_starts": 1_000, "batch_size": 64,
            "gamma": 0.99, "train_freq": 4, "target_update_interval": 1_000, "exploration_fraction": 0.3,
            "policy_kwargs": {"net_arch": [64, 64]}},
}


@dataclass
class TrainConfig:
    """Everything one training run needs (saved with the run as ``config.json``).

    Attributes:
        game, seat: what to learn.
        algo: ``maskable_ppo`` (default), ``ppo``, ``a2c`` or ``dqn``.
        steps: learner env steps (decisions) to train; rounded up to the algorithm's update
            granularity (:func:`~cluegym.training.schedule.update_granularity`), as the run says.
        n_envs: parallel envs; ``vec`` ``"dummy"`` (one process) or ``"subproc"``.
        opponents: seat -> agent specs forming its pool (default: the game's DEFAULT_AGENTS).
        selfplay: put learner snapshots into same-role seats' pools.
        snapshot_every, max_snapshots: snapshot period (env steps) and pool size.
        eval_every, eval_games, eval_seed: evaluation period, games and match seed.
        eval_opponents: seat -> spec for evaluation (default: each pool's first spec).
        baselines: agent specs evaluated in the learner's seat on the same games, for the
            curve's reference lines and the summary table (e.g. ``["glove", "random"]``).
        shaping: potential-based shaping scale (0: off, the default).
        invalid_action_penalty: reward for a rejected action.
        task_options, env_kwargs: the seat task's and the game's options.
        algo_kwargs: overrides of :data:`DEFAULT_ALGO_KWARGS`.
        seed: seeds the model and the envs.
        out: run folder.
        tensorboard: also log for TensorBoard (needs the ``tensorboard`` package).
        torch_threads: torch CPU threads (1 is fastest for these small networks).
        scorer: when the featurizer lays out per-choice features, score every choice with
            one shared network (:mod:`cluegym.training.policies`; PPO family); else an MLP.
        progress: print evaluation lines while training.
    """

    game: str
    seat: str
    algo: str = "maskable_ppo"
    steps: int = 50_000
    n_envs: int = 4
    vec: str = "dummy"
    opponents: dict[str, list[str]] = field(default_factory=dict)
    selfplay: bool = False
    snapshot_every: int = 10_000
    max_snapshots: int = 5
    eval_every: int = 10_000
    eval_games: int = 100
    eval_seed: int = 12_345
    eval_opponents: dict[str, str] | None = None
    baselines: list[str] = field(default_factory=list)
    shaping: float = 0.0
    invalid_action_penalty: float = 0.0
    task_options: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    algo_kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    out: str = ""
    tensorboard: bool = False
    progress: bool = True
    scorer: bool = True
    torch_threads: int = 1

    def __post_init__(self) -> None:
        if self.algo not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algo!r}; choose from {', '.join(ALGORITHMS)}")
        for name in ("steps", "n_envs", "snapshot_every", "max_snapshots", "eval_every", "eval_games"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.vec not in ("dummy", "subproc"):
            raise ValueError(f"vec must be 'dummy' or 'subproc', got {self.vec!r}")
        self.opponents = {seat: [specs] if isinstance(specs, str) else list(specs)
                          for seat, specs in self.opponents.items()}
        self.out = self.out or f"runs/{self.game}-{self.seat}-{self.algo}-s{self.seed}"


def evaluate_agent(config: TrainConfig, spec: str, games: int | None = None,
                   task: Any = None) -> dict[str, Any]:
    """Metrics of agent ``spec`` in the learner's seat on the evaluation games.

    Every evaluation (each checkpoint, each baseline) plays the same seeded games against the
    same opponents, so the numbers compare directly. With ``task``, the task's metric is
    added under its name.
    """
    seats = {config.seat: spec, **_eval_opponents(config)}
    results: list[dict[str, Any]] = []
    summary = run_match(config.game, seats, games=games or config.eval_games, seed=config.eval_seed,
                        env_kwargs=config.env_kwargs, progress=False,
                        on_game=lambda index, record: results.append(record["result"]))
    metrics = dict(summary["metrics"])
    if task is not None and task.metric is not None:
        metrics[task.metric_name] = task.score(metrics, results)
    return metrics


def evaluate_policy(config: TrainConfig, path: str | Path, games: int | None = None,
                    task: Any = None) -> dict[str, Any]:
    """Metrics of a saved policy (played as ``ppo:path=...``) on the evaluation games."""
    return evaluate_agent(config, f"ppo:path={path}", games, task)


def _eval_opponents(config: TrainConfig) -> dict[str, str]:
    if config.eval_opponents is not None:
        return dict(config.eval_opponents)
    return {seat: specs[0] for seat, specs in config.opponents.items() if specs}


def _task(config: TrainConfig) -> Any:
    probe = cluegym.env_module(config.game).raw_env(**config.env_kwargs)
    return make_task(config.game, config.seat, probe, **config.task_options)


def _metadata(config: TrainConfig, steps: int) -> dict[str, Any]:
    return {"game": config.game, "seat": config.seat, "algo": config.algo, "steps": steps,
            "task_options": config.task_options, "env_kwargs": config.env_kwargs,
            "opponents": config.opponents, "seed": config.seed, "cluegym": cluegym.__version__}


def plot_curve(rows: list[dict[str, Any]], metric: str, path: str | Path, *, title: str = "",
               baselines: dict[str, float] | None = None) -> Path:
    """Save a learning curve (metric vs env steps) with baselines as dashed lines."""
    # Deferred on purpose: pyplot is heavy, and the Agg backend must be chosen before it loads.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([r["steps"] for r in rows], [r[metric] for r in rows], marker="o", label="learner")
    for i, (name, value) in enumerate((baselines or {}).items()):
        ax.axhline(value, linestyle="--", color=f"C{i + 1}", label=name)
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel(metric.replace("_", " "))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def report_table(summary: dict[str, Any], learner: str, baselines: dict[str, str], out: str | Path) -> str:
    """A demonstration's markdown table (untrained, trained, baselines), saved and printed.

    Args:
        summary: what :func:`train` returned.
        learner: the first column's header, e.g. ``"player_0 voter (100 eval games)"``.
        baselines: row label -> baseline spec evaluated by the run (``summary["baselines"]``).
        out: run folder; the table goes to ``out/table.md``.

    Returns:
        The table.
    """
    metric = summary["metric"]
    lines = [f"| {learner} | {metric.replace('_', ' ')} | env steps | train min |", "|---|---|---|---|",
             f"| untrained policy | {summary['untrained'][metric]:.3f} | 0 | 0 |",
             f"| trained ({summary['config']['algo']}) | {summary['final'][metric]:.3f} | {summary['steps']} "
             f"| {summary['train_minutes']:.1f} |"]
    lines += [f"| {label} | {summary['baselines'][spec]:.3f} | - | - |" for label, spec in baselines.items()]
    table = "\n".join(lines)
    Path(out, "table.md").write_text(table + "\n")
    print(f"\n{table}\n\ncurve: {Path(out, 'curve.png')}")
    return table


def _evaluation_row(config: TrainConfig, task: Any, path: Path, steps: int, minutes: float) -> dict[str, Any]:
    """One curve point: the saved policy at ``path`` played on the evaluation games."""
    metrics = evaluate_policy(config, path, task=task)
    row = {"steps": steps, "train_minutes": minutes,
           **{k: v for k, v in metrics.items() if isinstance(v, (int, float))}}
    if config.progress:
        print(f"[{config.game}/{config.seat}] step {steps:>7}  {task.metric_name} {row[task.metric_name]:.3f}"
              f"  ({minutes:.1f} min training)", flush=True)
    return row


def _callback(config: TrainConfig, task: Any, out: Path, rows: list[dict[str, Any]], clock: "_Clock") -> Any:
    from stable_baselines3.common.callbacks import BaseCallback  # deferred: heavy (torch)

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
                path = save_policy(self.model, out / "checkpoints" / f"step_{steps}", _metadata(config, steps))
                row = _evaluation_row(config, task, path, steps, clock() / 60.0)
            rows.append(row)
            self.logger.record(f"eval/{task.metric_name}", row[task.metric_name])
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
                                   _metadata(config, int(self.num_timesteps)))
                self.training_env.env_method("add_snapshot", str(path))
            return True

        def _on_rollout_end(self) -> None:
            returns = [ep["game_return"] for ep in self.model.ep_info_buffer if "game_return" in ep]
            if returns:
                self.logger.record("rollout/game_return_mean", float(np.mean(returns)))

    return TrainingCallback()


class _Clock:
    """Training wall time, excluding the time spent evaluating."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.paused = 0.0

    def pause(self, seconds: float) -> None:
        self.paused += seconds

    def __call__(self) -> float:
        return time.perf_counter() - self.start - self.paused


def train(config: TrainConfig) -> dict[str, Any]:
    """Run one training (see the module docstring); returns the run summary.

    Returns:
        ``{"policy": path, "metric": name, "curve": [...], "final": metrics, "untrained": metrics,
        "baselines": {spec: value}, "train_minutes", "steps", "steps_requested", "steps_trained",
        "steps_rounding", "config"}`` (also written to ``summary.json``). ``final`` is the last
        curve point: ``policy.zip`` evaluated after the last update; ``steps`` =
        ``steps_trained`` = ``model.num_timesteps``; ``steps_rounding`` says how
        ``steps_requested`` became it (None when equal).
    """
    # Deferred on purpose: torch and stable-baselines3 are heavy; only a training run needs them.
    from stable_baselines3.common.logger import configure

    import torch

    torch.set_num_threads(max(1, int(config.torch_threads)))
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2, default=str))
    task = _task(config)
    if task.metric is None:
        raise ValueError(f"the {config.game}/{config.seat} task defines no evaluation metric")

    baselines: dict[str, float] = {}
    for spec in config.baselines:
        baselines[spec] = float(evaluate_agent(config, spec, task=task)[task.metric_name])
        if config.progress:
            print(f"[{config.game}/{config.seat}] baseline {spec}: {task.metric_name} {baselines[spec]:.3f}", flush=True)

    shaping = None
    if config.shaping:
        gamma = {**DEFAULT_ALGO_KWARGS[config.algo], **config.algo_kwargs}.get("gamma", 0.99)
        shaping = PotentialShaping.for_game(config.game, gamma=gamma, scale=config.shaping)
    env = make_vec_env(
        config.n_envs, vec=config.vec, seed=config.seed, game=config.game, seat=config.seat,
        opponents={seat: PolicyPool(specs, config.max_snapshots) for seat, specs in config.opponents.items()},
        task_options=config.task_options, env_kwargs=config.env_kwargs, shaping=shaping,
        selfplay=config.selfplay, invalid_action_penalty=config.invalid_action_penalty,
        max_snapshots=config.max_snapshots,
    )
    algo_kwargs = {**DEFAULT_ALGO_KWARGS[config.algo], **config.algo_kwargs}
    if config.algo in ("maskable_ppo", "ppo", "a2c") and "n_steps" in algo_kwargs and "batch_size" in algo_kwargs:
        algo_kwargs["batch_size"] = min(algo_kwargs["batch_size"], algo_kwargs["n_steps"] * config.n_envs)
    policy: Any = "MlpPolicy"
    per_choice = getattr(task.featurizer, "per_choice", None)
    if config.scorer and per_choice and config.algo != "dqn":
        from cluegym.training.policies import scorer_policy  # deferred: imports torch and SB3

        policy, scorer_kwargs = scorer_policy(config.algo, per_choice)
        algo_kwargs["policy_kwargs"] = {**scorer_kwargs, **config.algo_kwargs.get("policy_kwargs", {})}
    model = algorithm_class(config.algo)(policy, env, seed=config.seed, device="cpu", verbose=0, **algo_kwargs)
    formats = ["csv"]
    if config.tensorboard:
        try:
            import tensorboard  # noqa: F401
        except ImportError as exc:
            raise ImportError("--tensorboard needs the tensorboard package (pip install tensorboard)") from exc
        formats.append("tensorboard")
    model.set_logger(configure(str(out), formats))

    granularity, rule = update_granularity(model)
    if config.progress:
        expected = rounded_steps(config.steps, granularity)
        if expected != config.steps:
            print(f"[{config.game}/{config.seat}] steps {steps_rounding(config.steps, expected, rule)}", flush=True)
        if config.algo == "dqn" and model.learning_starts >= expected:
            print(f"[{config.game}/{config.seat}] warning: learning_starts={model.learning_starts:,} >= {expected:,} "
                  f"steps: the policy is never updated", flush=True)

    rows: list[dict[str, Any]] = []
    clock = _Clock()
    callback = _callback(config, task, out, rows, clock)
    clock.start = time.perf_counter()
    model.learn(total_timesteps=config.steps, callback=callback)
    train_seconds = clock()
    env.close()
    final_steps = int(model.num_timesteps)

    # The headline is the saved file, after the last update: save, load it back, evaluate that.
    metadata = _metadata(config, final_steps)
    policy_path = save_policy(model, out / "policy", metadata)
    save_policy(model, out / "checkpoints" / f"step_{final_steps}", metadata)
    saved, _ = load_policy(policy_path)
    if not same_parameters(model, saved):
        raise RuntimeError(f"{policy_path} does not hold the trained parameters (stale load cache?)")
    final = _evaluation_row(config, task, policy_path, final_steps, train_seconds / 60.0)
    rows.append(final)
    model.logger.record(f"eval/{task.metric_name}", final[task.metric_name])
    model.logger.dump(final_steps)
    rounding = steps_rounding(config.steps, final_steps, rule)

    with (out / "eval.csv").open("w", newline="") as fh:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        writer = csv.DictWriter(fh, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    plot_curve(rows, task.metric_name, out / "curve.png", baselines=baselines,
               title=f"{config.game} {config.seat}: {config.algo}, {final_steps} steps, {train_seconds / 60:.1f} min")
    summary = {
        "policy": str(policy_path), "metric": task.metric_name, "curve": rows, "final": final,
        "untrained": rows[0], "baselines": baselines, "train_minutes": train_seconds / 60.0,
        "steps": final_steps, "steps_requested": config.steps, "steps_trained": final_steps,
        "steps_rounding": rounding, "config": asdict(config),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    return summary
