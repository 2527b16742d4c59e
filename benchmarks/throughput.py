"""Env throughput: AEC steps and games per second for every registered game.

Actions come from a cheap scripted policy (first legal choice, fixed words), so the figures
measure the environment (rules, observations with prompts, validation, records), not agents.
Each game is timed twice: with per-step observation digests in the record (the default, what
replay needs) and without (``record_observations=False``, for RL rollouts).

Usage:
    python -m cluegym.benchmarks.throughput --seconds 5
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np

import cluegym

_WORDS = ("river", "stone", "lantern", "meadow", "violin", "harbor", "comet", "orchard")


def scripted_action(space: gymnasium.Space, observation: Any, info: dict, step: int) -> Any:
    """First legal discrete choice; rotating plain words for text."""
    mask = observation.get("action_mask") if isinstance(observation, dict) else None
    if mask is None:
        mask = info.get("action_mask")
    if isinstance(space, gymnasium.spaces.Discrete):
        legal = np.flatnonzero(mask) if mask is not None else np.arange(space.n)
        return int(legal[step % len(legal)])
    if isinstance(space, gymnasium.spaces.Text):
        return _WORDS[step % len(_WORDS)]
    if isinstance(space, gymnasium.spaces.Tuple):
        return tuple(scripted_action(s, {}, {}, step + i) for i, s in enumerate(space.spaces))
    if isinstance(space, gymnasium.spaces.Dict):
        masks = mask if isinstance(mask, dict) else {}
        return {k: scripted_action(s, {"action_mask": masks.get(k)} if masks.get(k) is not None else {}, {}, step)
                for k, s in space.spaces.items()}
    return space.sample()


def _play(env: Any, seed: int, step0: int) -> int:
    env.reset(seed=seed)
    steps = 0
    for seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else scripted_action(env.action_space(seat), obs, info, step0 + steps))
        steps += 1
    return steps


def measure(game: str, seconds: float, **env_kwargs: Any) -> tuple[float, float]:
    """(steps per second, games per second) over about ``seconds`` of play."""
    env = cluegym.make(game, **env_kwargs)
    _play(env, seed=-1 % 2**31, step0=0)  # warm-up: lazy imports and caches are not throughput
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += _play(env, seed=games, step0=steps)
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--games", default=",".join(cluegym.registered_games()), help="comma-separated games")
    args = parser.parse_args(argv)
    print(f"{'game':<12} {'record digests':>15} {'steps/s':>10} {'games/s':>10}")
    for game in args.games.split(","):
        for digests in (True, False):
            steps_s, games_s = measure(game, args.seconds, record_observations=digests)
            print(f"{game:<12} {str(digests):>15} {steps_s:>10.0f} {games_s:>10.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
