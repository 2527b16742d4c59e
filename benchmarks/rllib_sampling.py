"""RLlib sampling throughput of the multi-agent learning view: 1 vs 2 env runners.

RLlib's PPO samples with remote EnvRunners, each stepping its own copy of the learning view
(``PettingZooEnv(MultiSeatEnv(...))``, the zero-glue setup of the README) with the current
policies (action-masking modules). This times exactly that: one ``sample`` call on every
runner at once (``num_timesteps`` each), ``--rounds`` times after one warm-up round, and prints
env steps per second summed over runners (the median round), for each runner count. An env
step is a step of the learning view as RLlib counts it (one learner decision; the other seats'
moves happen inside it). It is the ceiling on how fast PPO can collect experience; learning
costs come on top.

Ray runs on this machine only (127.0.0.1, no dashboard), with one logical CPU per runner plus
one for the driver. On a 2-core machine two runners share the cores with the driver, so the
speed-up of the second runner is bounded by the cores, not by cluegym.

Usage:
    python -m cluegym.benchmarks.rllib_sampling                       # decrypto bob+eve, 1 vs 2 runners
    python -m cluegym.benchmarks.rllib_sampling --game undercover --learners all --runners 1,2,4
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from cluegym.benchmarks.usage import positive_int
from cluegym.wrappers.multiseat import MultiSeatEnv

__all__ = ["measure_sampling", "main"]

ENV_NAME = "cluegym_rllib_sampling"


def _make_env(env_config: dict[str, Any]) -> Any:
    # Deferred on purpose: ray[rllib] is an optional, heavy dependency (cluegym[rllib]).
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(MultiSeatEnv(env_config["game"], env_config["learners"], observation_key="observations"))


def measure_sampling(game: str, learners: str, runners: int, steps: int, rounds: int, seed: int = 0) -> dict[str, Any]:
    """Env steps per second that ``runners`` EnvRunners sample together.

    Args:
        game: registered game name.
        learners: the learning seats (``"bob,eve"``, ``"all"``); one policy per seat.
        runners: remote EnvRunners (>= 1).
        steps: env steps each runner samples per round.
        rounds: timed rounds (after one warm-up round).
        seed: RLlib's seed.

    Returns:
        ``{"runners", "steps_per_s" (median round), "rounds" (each round's steps/s), "steps"}``.
    """
    # Deferred on purpose: ray[rllib] is an optional, heavy dependency (cluegym[rllib]).
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    if runners < 1:
        raise ValueError(f"runners must be >= 1, got {runners}")
    register_env(ENV_NAME, _make_env)
    seats = MultiSeatEnv(game, learners).possible_agents
    modules = {seat: RLModuleSpec(module_class=ActionMaskingTorchRLModule) for seat in seats}
    algo = (PPOConfig()
            .environment(ENV_NAME, env_config={"game": game, "learners": learners})
            .multi_agent(policies=set(seats), policy_mapping_fn=lambda agent_id, *args, **kwargs: agent_id)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
            .env_runners(num_env_runners=runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
            .debugging(seed=seed)
            .build_algo())
    try:
        def one_round() -> tuple[int, float]:
            start = time.perf_counter()
            samples = algo.env_runner_group.foreach_env_runner(
                lambda runner: sum(len(episode) for episode in runner.sample(num_timesteps=steps)),
                local_env_runner=False)
            return int(sum(samples)), time.perf_counter() - start

        one_round()  # warm-up: models, caches and lazy imports in every runner
        rates = []
        total = 0
        for _ in range(rounds):
            sampled, seconds = one_round()
            total += sampled
            rates.append(sampled / seconds)
    finally:
        algo.stop()
    return {"runners": runners, "steps_per_s": statistics.median(rates), "rounds": rates, "steps": total}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="decrypto", help="game (default decrypto)")
    parser.add_argument("--learners", default="bob,eve", help="learning seats (default bob,eve; 'all' for every seat)")
    parser.add_argument("--runners", default="1,2", help="runner counts to compare, each once (default 1,2)")
    parser.add_argument("--steps", type=positive_int, default=1000,
                        help="env steps per runner per round (default 1000)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="timed rounds (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        counts = [int(n) for n in args.runners.split(",") if n.strip()]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        parser.error(f"--runners must be positive whole numbers, e.g. 1,2 (got {args.runners!r})")
    twice = sorted({n for n in counts if counts.count(n) > 1})
    if twice:
        parser.error(f"--runners names {', '.join(map(str, twice))} more than once")
    # The view every runner builds (less RLlib's wrapper), built once here: an unknown game, a
    # seat the game lacks or a view the game cannot make is a usage error now, not a traceback
    # once Ray has started.
    try:
        MultiSeatEnv(args.game, args.learners, observation_key="observations").close()
    except ValueError as error:
        parser.error(f"--game {args.game} --learners {args.learners}: {error}")
    try:
        import ray  # optional dependency (cluegym[rllib]): needed by this benchmark only
    except ImportError:
        parser.error("this benchmark needs Ray/RLlib: pip install 'cluegym[rllib]'")
    ray.init(num_cpus=max(counts) + 1, include_dashboard=False, _node_ip_address="127.0.0.1",
             configure_logging=False, log_to_driver=False)
    try:
        rows = []
        for count in counts:
            row = measure_sampling(args.game, args.learners, count, args.steps, args.rounds, args.seed)
            rows.append(row)
            print(f"{args.game} ({args.learners}): {count} env runner(s): {row['steps_per_s']:8.0f} env steps/s "
                  f"(median of {args.rounds} rounds of {args.steps} steps per runner)", flush=True)
    finally:
        ray.shutdown()
    base = rows[0]["steps_per_s"]
    print("\nrunners  env steps/s  speed-up")
    for row in rows:
        print(f"{row['runners']:>7}  {row['steps_per_s']:>11.0f}  {row['steps_per_s'] / base:>7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
