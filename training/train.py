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

The number it reports and plots is the seat task's metric; a task without one (the generic
task of a game that declares only its env) is measured by the seat's mean episode return,
``"mean_return"``. The run's pieces live beside this module: :mod:`.config` (the run),
:mod:`.evaluation`, :mod:`.callback` (what happens while SB3 learns), :mod:`.reporting`.

Example:
    A short run (a real one trains tens of thousands of steps on ``n_envs=4``):

    >>> cfg = TrainConfig("decrypto", "eve", steps=256, n_envs=1, eval_games=10, progress=False,
    ...                   opponents={"alice": ["glove:k=16"], "bob": ["glove"]},
    ...                   baselines=["glove", "random"], out="runs/decrypto-eve")
    >>> result = train(cfg)
    >>> result["steps"], [row["steps"] for row in result["curve"]]
    (256, [0, 256])
    >>> round(result["untrained"]["interception_rate"], 3), round(result["final"]["interception_rate"], 3)
    (0.05, 0.465)
    >>> result["baselines"]
    {'glove': 0.46511627906976744, 'random': 0.05}
    >>> sorted(path.name for path in Path("runs/decrypto-eve").iterdir())
    ['checkpoints', 'config.json', 'curve.png', 'eval.csv', 'policy.json', 'policy.zip', 'progress.csv', 'summary.json']
"""

from __future__ import annotations

import inspect
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cluegym
from cluegym.training.callback import TrainingClock, training_callback
from cluegym.training.config import DEFAULT_ALGO_KWARGS, TrainConfig, claim_run_folder, policy_metadata
from cluegym.training.evaluation import (MEAN_RETURN, check_evaluation_specs, evaluate_agent, evaluate_policy,
                                         evaluation_metric, evaluation_opponents, evaluation_row)
from cluegym.training.policy_agent import algorithm_class, load_policy, save_policy
from cluegym.training.reporting import keep_stopped_run, plot_curve, report_table, write_eval_csv
from cluegym.training.schedule import rounded_steps, same_parameters, steps_rounding, update_granularity
from cluegym.wrappers.policy_pool import PolicyPool
from cluegym.wrappers.seat_task import SeatTask, make_task
from cluegym.wrappers.shaping import PotentialShaping
from cluegym.wrappers.vec_env import make_vec_env

# TrainConfig, DEFAULT_ALGO_KWARGS (training.config), evaluate_agent, evaluate_policy, MEAN_RETURN
# (training.evaluation), plot_curve and report_table (training.reporting) are re-exported: the
# benchmarks' demonstrations and docs import them from here.
__all__ = ["train", "learner_task", "TrainConfig", "DEFAULT_ALGO_KWARGS", "MEAN_RETURN", "evaluate_agent",
           "evaluate_policy", "plot_curve", "report_table"]


def learner_task(config: TrainConfig) -> SeatTask:
    """The seat task the run trains, built against the run's game options (for its sizes)."""
    probe = cluegym.env_module(config.game).raw_env(**config.env_kwargs)
    return make_task(config.game, config.seat, probe, **config.task_options)


def train(config: TrainConfig) -> dict[str, Any]:
    """Run one training (see the module docstring); returns the run summary.

    Returns:
        ``{"policy": path, "metric": name, "curve": [...], "final": metrics, "untrained": metrics,
        "baselines": {spec: value}, "train_minutes", "steps", "steps_requested", "steps_trained",
        "steps_rounding", "config"}`` (also written to ``summary.json``). ``metric`` is the
        task's metric, or ``"mean_return"`` (the seat's mean episode return) for a task without
        one. ``final`` is the last curve point: ``policy.zip`` evaluated after the last update;
        ``steps`` = ``steps_trained`` = ``model.num_timesteps``; ``steps_rounding`` says how
        ``steps_requested`` became it (None when equal).
    """
    # Deferred on purpose: torch and stable-baselines3 are heavy; only a training run needs them.
    import torch
    from stable_baselines3.common.logger import configure

    torch.set_num_threads(max(1, int(config.torch_threads)))
    out = Path(config.out)
    # Everything the run is told is checked before its folder is touched: a mistake must not
    # leave a folder holding only config.json, nor overwrite the config.json of the run whose
    # policy.zip the folder holds. The task checks the game and task options, the views below
    # the opponents; the baselines are checked here, before any is evaluated.
    task = learner_task(config)
    metric = evaluation_metric(task)
    check_evaluation_specs(config.game, [config.seat], config.baselines, evaluation_opponents(config),
                           config.env_kwargs)
    if config.progress and task.metric is None:
        print(f"[{config.game}/{config.seat}] the task names no metric: evaluating by the seat's mean episode "
              f"return ({MEAN_RETURN})", flush=True)

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
        # Deferred on purpose: the scorer policies are torch/SB3 modules (heavy), needed only here.
        from cluegym.training.policies import scorer_policy

        policy, scorer_kwargs = scorer_policy(config.algo, per_choice)
        algo_kwargs["policy_kwargs"] = {**scorer_kwargs, **config.algo_kwargs.get("policy_kwargs", {})}
    model: Any = None
    claimed, closed = False, False
    rows: list[dict[str, Any]] = []
    try:
        algorithm = algorithm_class(config.algo)
        _check_algo_keywords(algorithm, config.algo_kwargs)
        model = algorithm(policy, env, seed=config.seed, device="cpu", verbose=0, **algo_kwargs)
        formats = ["csv"]
        if config.tensorboard:
            try:
                import tensorboard  # noqa: F401 - deferred: an optional package, probed only when asked for
            except ImportError as exc:
                raise ImportError("--tensorboard needs the tensorboard package (pip install tensorboard)") from exc
            formats.append("tensorboard")
        claim_run_folder(out, config.overwrite)
        claimed = True
        (out / "config.json").write_text(json.dumps(asdict(config), indent=2, default=str))

        baselines: dict[str, float] = {}
        for spec in config.baselines:
            baselines[spec] = float(evaluate_agent(config, spec, task=task)[metric])
            if config.progress:
                print(f"[{config.game}/{config.seat}] baseline {spec}: {metric} {baselines[spec]:.3f}", flush=True)
        model.set_logger(configure(str(out), formats))

        granularity, rule = update_granularity(model)
        if config.progress:
            expected = rounded_steps(config.steps, granularity)
            if expected != config.steps:
                print(f"[{config.game}/{config.seat}] steps {steps_rounding(config.steps, expected, rule)}", flush=True)
            if config.algo == "dqn" and model.learning_starts >= expected:
                print(f"[{config.game}/{config.seat}] warning: learning_starts={model.learning_starts:,} >= "
                      f"{expected:,} steps: the policy is never updated", flush=True)

        clock = TrainingClock()
        callback = training_callback(config, task, out, rows, clock)
        clock.restart()
        model.learn(total_timesteps=config.steps, callback=callback)
        train_seconds = clock()
        closed = True
        env.close()
        final_steps = int(model.num_timesteps)

        # The headline is the saved file, after the last update: save, load it back, evaluate that.
        metadata = policy_metadata(config, final_steps)
        policy_path = save_policy(model, out / "policy", metadata)
        save_policy(model, out / "checkpoints" / f"step_{final_steps}", metadata)
        saved, _ = load_policy(policy_path)
        if not same_parameters(model, saved):
            raise RuntimeError(f"{policy_path} does not hold the trained parameters (stale load cache?)")
        final = evaluation_row(config, task, policy_path, final_steps, train_seconds / 60.0)
    except BaseException as exc:
        if not closed:
            _close_after_failure(env)  # a subprocess VecEnv's workers would outlive the failed run
        if claimed:  # a refused or misconfigured run has nothing of its own in the folder
            keep_stopped_run(out, rows, int(model.num_timesteps) if model is not None else 0, exc)
        raise
    rows.append(final)
    model.logger.record(f"eval/{metric}", final[metric])
    model.logger.dump(final_steps)
    rounding = steps_rounding(config.steps, final_steps, rule)

    write_eval_csv(rows, out / "eval.csv")
    plot_curve(rows, metric, out / "curve.png", baselines=baselines,
               title=f"{config.game} {config.seat}: {config.algo}, {final_steps} steps, {train_seconds / 60:.1f} min")
    summary = {
        "policy": str(policy_path), "metric": metric, "curve": rows, "final": final,
        "untrained": rows[0], "baselines": baselines, "train_minutes": train_seconds / 60.0,
        "steps": final_steps, "steps_requested": config.steps, "steps_trained": final_steps,
        "steps_rounding": rounding, "config": asdict(config),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    return summary


def _close_after_failure(env: Any) -> None:
    """Close the run's envs on its way out of a failure, without hiding that failure: after a
    Ctrl-C the subprocess workers got the signal too, and talking to them raises."""
    try:
        env.close()
    except Exception:  # noqa: BLE001 - the failure being raised is the one to report
        pass


#: The algorithm's arguments a run sets itself, and where each comes from.
RUN_SETS = {"policy": "the task's policy", "env": "the learning view", "seed": "--seed",
            "device": "cpu", "verbose": "0: the run prints its own lines", "_init_setup_model": "True"}


def _check_algo_keywords(algorithm: type, algo_kwargs: dict[str, Any]) -> None:
    """Raise ValueError naming the arguments ``algorithm`` does not take (a misspelt
    ``--algo-arg`` gave a traceback of the algorithm's constructor)."""
    own = sorted(set(algo_kwargs) & set(RUN_SETS))
    if own:  # else the constructor's "got multiple values for keyword argument 'seed'"
        raise ValueError(f"algo_kwargs (--algo-arg): the run sets {', '.join(own)} itself ("
                         + "; ".join(RUN_SETS[name] for name in own) + ")")
    parameters = inspect.signature(algorithm).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    unknown = sorted(set(algo_kwargs) - set(parameters))
    if unknown:
        taken = sorted(set(parameters) - set(RUN_SETS))
        raise ValueError(f"algo_kwargs (--algo-arg): {algorithm.__name__} does not take {', '.join(unknown)}; "
                         f"it takes {', '.join(taken)}")
