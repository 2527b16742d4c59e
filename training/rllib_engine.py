"""``cluegym train GAME --engine rllib``: multi-agent PPO with action masking, on RLlib.

RLlib (new API stack) samples the multi-seat learning view
(:class:`~cluegym.wrappers.multiseat.MultiSeatEnv`, through RLlib's own ``PettingZooEnv`` and
:mod:`.rllib_env`'s opponent pools) and trains one PPO policy per policy id
(:mod:`.rllib_config`: ``shared``, ``per-seat`` or ``per-role``) with RLlib's
``ActionMaskingTorchRLModule``, which reads ``obs["action_mask"]``. While it learns, the run:

- every ``snapshot_every`` env steps (self-play) saves a checkpoint into ``out/snapshots``,
  which the non-learning seats sharing a learning seat's role then draw from;
- every ``eval_every`` env steps saves a checkpoint (``out/checkpoints/step_N``) and evaluates
  it as cluegym agents (``rllib:path=...``) in every learning seat, in a seeded match against
  fixed opponents, the same games each time; step 0 (the untrained policies) too;
- after the last iteration saves ``out/checkpoint`` (an RLlib Algorithm checkpoint, with
  :data:`~cluegym.training.rllib_agent.METADATA_FILE`), checks that it holds the trained
  parameters, and evaluates that folder, reloaded: the curve's last point, ``final``;
- writes ``eval.csv``, ``curve.png`` and ``summary.json`` as the SB3 path does
  (:mod:`.reporting`), with each learning seat's task metric (``SEAT:METRIC``) and a headline:
  the seats' shared metric averaged over them, or else the first seat's.

Ray: ``ray_address="local"`` starts a Ray of this machine on 127.0.0.1 for the run (stopped
after); an address joins that cluster (every node needs cluegym and its model packages; see
docs/rllib.md). Iterations sample ``train_batch_size_per_learner`` env steps each, so ``steps``
is rounded up to whole iterations, as the run says.

Example:
    >>> cfg = RLlibTrainConfig("undercover", seats=["player_0", "player_1", "player_2"],
    ...                        opponents={"*": ["glove:infer=false"]}, baselines=["glove:infer=false"])
    >>> cfg.out, cfg.steps
    ('runs/undercover-player_0+player_1+player_2-rllib-s0', 20000)
    >>> summary = train_rllib(cfg)  # doctest: +SKIP
    [undercover/player_0+player_1+player_2] baseline glove:infer=false: vote_accuracy 0.858
    [undercover/player_0+player_1+player_2] step       0  vote_accuracy 0.652  (0.0 min training)
    ...
    [undercover/player_0+player_1+player_2] step   20480  vote_accuracy 0.917  (1.8 min training)
    >>> round(summary["final"]["vote_accuracy"], 3)  # doctest: +SKIP
    0.917
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from cluegym.agents import run_match
from cluegym.harness.distributed import connect_ray, import_ray
from cluegym.training.callback import TrainingClock
from cluegym.training.config import claim_run_folder
from cluegym.training.evaluation import check_evaluation_specs, checked_evaluation, evaluation_metric
from cluegym.training.reporting import keep_stopped_run, plot_curve, write_eval_csv
from cluegym.training.rllib_agent import METADATA_FILE, MODULES_DIR, load_rllib_module
from cluegym.training.rllib_config import (DEFAULT_HIDDEN, DEFAULT_PPO_KWARGS, RLlibTrainConfig, SeatPolicyMap,
                                           checkpoint_metadata, policy_ids)
from cluegym.training.rllib_env import ENV_NAME, PooledMultiSeatEnv, make_rllib_env, publish_snapshot
from cluegym.training.schedule import global_rng_kept, steps_rounding
from cluegym.wrappers.seat_task import make_task

__all__ = ["train_rllib", "RLlibTrainConfig", "evaluate_seats", "seat_metric_names"]


def scorer_layout(view: PooledMultiSeatEnv) -> int | None:
    """``per_choice`` when every learning seat has the same per-choice feature layout filling
    the view's padded sizes (one scorer reads them all), else None."""
    layouts = set()
    for task in view.tasks.values():
        per_choice = getattr(task.featurizer, "per_choice", None)
        size = int(np.prod(task.featurizer.observation_space.shape))
        if not per_choice or task.n_actions != view.n_actions or size != view.feature_size:
            return None
        layouts.add(int(per_choice))
    return layouts.pop() if len(layouts) == 1 else None


def _learning_view(config: RLlibTrainConfig) -> PooledMultiSeatEnv:
    """The run's learning view, built once in the driver for its seats, sizes and tasks."""
    return PooledMultiSeatEnv(config.game, config.seats, opponents=config.opponents,
                              task_options=config.task_options, env_kwargs=config.env_kwargs)


def seat_metric_names(view: PooledMultiSeatEnv) -> tuple[dict[str, str], str]:
    """Each learning seat's metric column (``SEAT:METRIC``) and the headline metric: the metric
    the seats share (averaged over them), else the first seat's column.

    Example:
        >>> from cluegym.training.rllib_env import PooledMultiSeatEnv
        >>> view = PooledMultiSeatEnv("undercover", ["player_0", "player_1"], opponents={"*": ["random"]})
        >>> seat_metric_names(view)
        ({'player_0': 'player_0:vote_accuracy', 'player_1': 'player_1:vote_accuracy'}, 'vote_accuracy')
    """
    names = {seat: evaluation_metric(task) for seat, task in view.tasks.items()}
    columns = {seat: f"{seat}:{name}" for seat, name in names.items()}
    shared = set(names.values())
    headline = next(iter(shared)) if len(shared) == 1 else columns[view.possible_agents[0]]
    return columns, headline


def evaluate_seats(config: RLlibTrainConfig, view: PooledMultiSeatEnv, specs: Mapping[str, str]) -> dict[str, float]:
    """The numbers of one evaluation: ``specs`` (learning seat -> agent spec) play the learning
    seats, the evaluation opponents the others, on the run's seeded evaluation games.

    Returns:
        The game's numeric metrics, each learning seat's task metric (``SEAT:METRIC``; the
        seat's mean return for a task without a metric) and the headline metric.

    Raises:
        EvaluationError: a game errored, or a seat's agent failed every decision.
    """
    opponents = config.eval_opponents or {seat: view.pools[seat][0] for seat in view.opponent_specs}
    results: list[dict[str, Any]] = []
    summary = run_match(config.game, {**opponents, **specs}, games=config.eval_games, seed=config.eval_seed,
                        env_kwargs=config.env_kwargs, progress=False,
                        on_game=lambda index, record: results.append(record["result"]))
    checked_evaluation(summary, ", ".join(f"{spec} in {seat}" for seat, spec in specs.items()))
    numbers = {k: float(v) for k, v in summary["metrics"].items() if isinstance(v, (int, float))}
    columns, headline = seat_metric_names(view)
    for seat, task in view.tasks.items():
        value = task.score(summary["metrics"], results) if task.metric is not None else summary["mean_return"][seat]
        numbers[columns[seat]] = float(value)
    if headline not in columns.values():
        numbers[headline] = float(np.mean([numbers[c] for c in columns.values()]))
    return numbers


def _sampled_steps(result: Mapping[str, Any]) -> int:
    """Env steps sampled so far, from an RLlib result dict."""
    runners = result.get("env_runners", {})
    value = runners.get("num_env_steps_sampled_lifetime", result.get("num_env_steps_sampled_lifetime", 0))
    return int(value)


def _ppo_config(config: RLlibTrainConfig, env_config: dict[str, Any], mapping: Mapping[str, str],
                view: PooledMultiSeatEnv) -> Any:
    """The RLlib ``PPOConfig`` of the run: one action-masking module per policy id (with the
    per-choice scorer when ``config.scorer`` and every learning seat's features allow it)."""
    # Deferred on purpose: ray[rllib] is an optional, heavy dependency (cluegym[rllib]).
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    kwargs = {**DEFAULT_PPO_KWARGS, **config.algo_kwargs}
    hidden = list(kwargs.pop("fcnet_hiddens", DEFAULT_HIDDEN))
    model = {"fcnet_hiddens": hidden, "fcnet_activation": "tanh", "vf_share_layers": False}
    module_class: type = ActionMaskingTorchRLModule
    per_choice = scorer_layout(view) if config.scorer else None
    if per_choice:
        # Deferred on purpose: the scorer module subclasses an RLlib class (ray is optional).
        from cluegym.training.rllib_scorer import ScorerMaskingTorchRLModule

        module_class = ScorerMaskingTorchRLModule
        model.update(per_choice=per_choice, feature_size=int(view.feature_size))
    modules = {pid: RLModuleSpec(module_class=module_class, model_config=model)
               for pid in sorted(set(mapping.values()))}
    return (PPOConfig()
            .environment(ENV_NAME, env_config=env_config)
            .multi_agent(policies=set(modules), policy_mapping_fn=SeatPolicyMap(mapping))
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
            .env_runners(num_env_runners=int(config.num_env_runners), num_envs_per_env_runner=1)
            .training(**kwargs)
            .debugging(seed=int(config.seed)))


def _save(algo: Any, path: Path, metadata: dict[str, Any]) -> Path:
    """An Algorithm checkpoint at ``path`` with the cluegym metadata beside RLlib's files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    algo.save_to_path(str(path.resolve()))
    (path / METADATA_FILE).write_text(json.dumps(metadata, indent=2, sort_keys=True, default=str))
    return path


def _check_saved(algo: Any, checkpoint: Path, policies: set[str]) -> None:
    """Fail unless the checkpoint's modules hold the learner's current parameters."""
    weights = algo.learner_group.get_weights(module_ids=sorted(policies))
    for pid in sorted(policies):
        live = weights[pid]
        saved = load_rllib_module(checkpoint, pid).get_state()
        same = set(live) == set(saved) and all(
            np.array_equal(np.asarray(_numpy(live[k])), np.asarray(_numpy(saved[k]))) for k in live)
        if not same:
            raise RuntimeError(f"{checkpoint / MODULES_DIR / pid} does not hold the trained parameters")


def _numpy(value: Any) -> Any:
    """A tensor's values as numpy (state dicts hold tensors or arrays)."""
    return value.detach().cpu().numpy() if hasattr(value, "detach") else value


def train_rllib(config: RLlibTrainConfig) -> dict[str, Any]:
    """Run one RLlib training (see the module docstring); returns the run summary.

    Returns:
        ``{"checkpoint", "metric", "seat_metrics" (seat -> column), "policies" (seat -> id),
        "curve", "final", "untrained", "baselines" ({spec: headline}), "baseline_rows"
        ({spec: row}), "train_minutes", "steps", "steps_requested", "steps_trained",
        "steps_rounding", "config"}`` (also written to ``summary.json``).

    Raises:
        ValueError: bad seats, opponents or options. RayNotInstalledError: no Ray.
        ConnectionError: no Ray cluster at ``ray_address``.
    """
    # Deferred on purpose: torch is heavy; one thread is fastest for these small networks (and
    # leaves the other cores to the env runners).
    import torch

    torch.set_num_threads(1)
    out = Path(config.out)
    # Checked before the run's folder is touched (see cluegym.training.train): the view checks
    # the seats, opponents and options; the baselines and evaluation opponents are checked
    # here, Ray's presence too, and PPO's config is built and validated (below).
    view = _learning_view(config)
    seats = list(view.possible_agents)
    check_evaluation_specs(config.game, seats, config.baselines, config.eval_opponents or {}, config.env_kwargs)
    roles = {seat: task.role for seat, task in view.tasks.items()}
    mapping = policy_ids(seats, roles, config.policies)
    snapshot_policies = {}
    if config.selfplay:
        for seat in view.opponent_specs:
            role = _seat_role(view, seat)
            same = [s for s in seats if role is not None and roles[s] == role]
            if same:
                snapshot_policies[seat] = mapping[same[0]]
    env_config = {"game": config.game, "learners": seats, "opponents": config.opponents,
                  "task_options": config.task_options, "env_kwargs": config.env_kwargs,
                  "invalid_action_penalty": config.invalid_action_penalty, "max_snapshots": config.max_snapshots,
                  "shaping": float(config.shaping),
                  "gamma": float({**DEFAULT_PPO_KWARGS, **config.algo_kwargs}["gamma"]),
                  "snapshot_dir": str((out / "snapshots").resolve()) if snapshot_policies else None,
                  "snapshot_policies": snapshot_policies}
    import_ray()  # no Ray: RayNotInstalledError, naming the extra, before anything is written
    try:
        ppo_config = _ppo_config(config, env_config, mapping, view)
    except TypeError as exc:  # PPOConfig.training(): "got an unexpected keyword argument 'x'"
        raise ValueError(f"algo_kwargs: RLlib's PPO does not take them: {exc}") from exc
    # RLlib's own checks of the values (a minibatch larger than the batch, a malformed schedule;
    # the config checked each value alone) ran only when the algorithm was built: after
    # config.json, Ray and the baselines.
    ppo_config.validate()
    claim_run_folder(out, config.overwrite)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2, default=str))
    if config.selfplay and not snapshot_policies and config.progress:
        print(f"[{config.game}] self-play: no non-learning seat shares a learning seat's role; "
              "snapshots are saved but never played", flush=True)
    columns, headline = seat_metric_names(view)
    tag = f"[{config.game}/{'+'.join(seats)}]"
    rows: list[dict[str, Any]] = []
    steps, connected, algo = 0, False, None
    try:
        baselines: dict[str, float] = {}
        baseline_rows: dict[str, dict[str, float]] = {}
        for spec in config.baselines:
            baseline_rows[spec] = evaluate_seats(config, view, {seat: spec for seat in seats})
            baselines[spec] = baseline_rows[spec][headline]
            if config.progress:
                print(f"{tag} baseline {spec}: {headline} {baselines[spec]:.3f}", flush=True)

        # Deferred on purpose: ray[rllib] is an optional, heavy dependency (cluegym[rllib]).
        import ray
        from ray.tune.registry import register_env

        connected = connect_ray(config.ray_address)
        register_env(ENV_NAME, make_rllib_env)
        algo = ppo_config.build_algo()
        policies = set(mapping.values())
        clock = TrainingClock()

        def evaluate(steps: int, checkpoint: Path) -> dict[str, Any]:
            began = time.perf_counter()
            with global_rng_kept():
                specs = {seat: f"rllib:path={checkpoint},policy={mapping[seat]}" for seat in seats}
                row = {"steps": steps, "train_minutes": clock() / 60.0, **evaluate_seats(config, view, specs)}
            rows.append(row)
            if config.progress:
                print(f"{tag} step {steps:>7}  {headline} {row[headline]:.3f}  ({row['train_minutes']:.1f} min "
                      "training)", flush=True)
            clock.pause(time.perf_counter() - began)  # evaluation time is not training time
            return row

        def save(folder: Path, steps: int) -> Path:
            return _save(algo, folder, checkpoint_metadata(config, view, mapping, steps))

        clock.restart()
        evaluate(0, save(out / "checkpoints" / "step_0", 0))
        steps, next_eval, next_snapshot = 0, config.eval_every, config.snapshot_every
        while steps < config.steps:
            steps = _sampled_steps(algo.train())
            if snapshot_policies and steps >= next_snapshot:
                next_snapshot = (steps // config.snapshot_every + 1) * config.snapshot_every
                began = time.perf_counter()
                saved = save(out / "snapshots" / f".saving_step_{steps}", steps)
                publish_snapshot(saved, out / "snapshots", f"step_{steps}")
                clock.pause(time.perf_counter() - began)
            if steps >= next_eval and steps < config.steps:
                next_eval = (steps // config.eval_every + 1) * config.eval_every
                evaluate(steps, save(out / "checkpoints" / f"step_{steps}", steps))
        train_seconds = clock()

        # The headline is the saved checkpoint, after the last update: save, check, evaluate it reloaded.
        final_checkpoint = save(out / "checkpoint", steps)
        save(out / "checkpoints" / f"step_{steps}", steps)
        _check_saved(algo, final_checkpoint, policies)
        final = evaluate(steps, final_checkpoint)
        final["train_minutes"] = train_seconds / 60.0
    except BaseException as exc:
        keep_stopped_run(out, rows, steps, exc)
        raise
    finally:
        if algo is not None:
            algo.stop()
        if connected:
            ray.shutdown()

    batch = int({**DEFAULT_PPO_KWARGS, **config.algo_kwargs}["train_batch_size_per_learner"])
    rounding = steps_rounding(config.steps, steps, f"PPO iteration = {batch:,} env steps")
    write_eval_csv(rows, out / "eval.csv")
    plot_curve(rows, headline, out / "curve.png", baselines=baselines,
               title=f"{config.game}, {len(seats)} seats ({config.policies}): RLlib PPO, {steps:,} steps, "
                     f"{train_seconds / 60:.1f} min")
    summary = {
        "checkpoint": str(final_checkpoint), "metric": headline, "seat_metrics": columns, "policies": mapping,
        "curve": rows, "final": final, "untrained": rows[0], "baselines": baselines,
        "baseline_rows": baseline_rows, "train_minutes": train_seconds / 60.0, "steps": steps,
        "steps_requested": config.steps, "steps_trained": steps, "steps_rounding": rounding, "config": asdict(config),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=lambda v: None if v is None else str(v)))
    return summary


def _seat_role(view: PooledMultiSeatEnv, seat: str) -> str | None:
    """The task role of a non-learning seat (None when the game has no task for it)."""
    try:
        return make_task(view.game, seat, view.game_env, **dict(view.tasks[view.possible_agents[0]].options)).role
    except ValueError:
        return None

