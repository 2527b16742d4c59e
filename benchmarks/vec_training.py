"""Training throughput by vectorisation: MaskablePPO on ``n`` SB3 views in one process or in
subprocesses, decisions per wall-clock second.

``cluegym train`` runs ``--n-envs`` copies of the SB3 view (:class:`~cluegym.wrappers.selfplay.
SelfPlayEnv`) in one process (``--vec dummy``, the default) or one process each (``--vec
subproc``). This trains sb3-contrib's ``MaskablePPO`` with the project's defaults
(``DEFAULT_ALGO_KWARGS["maskable_ppo"]``, torch on one thread in the main process, as
``TrainConfig.torch_threads``) on each configuration: one warm-up rollout (the workers' start,
lazy loads, torch's first calls), then ``--steps`` decisions timed by the wall clock, the unit
that tells which configuration trains faster when the envs run in other processes.

The learner sits in the learning benchmarks' seat (:data:`~cluegym.benchmarks.learner_throughput.
SETUPS`) against the game's default opponents and delegate (``DEFAULT_AGENTS``, the embedding
baselines ``cluegym train`` plays against), or random players with ``--random-opponents``.
``--worker-threads`` sets the torch and BLAS threads of each subprocess
(``make_vec_env(worker_threads=...)``; ``default`` leaves the libraries' own, a thread per
core each, as the workers ran before issue 15's thirty-first pass: with the baselines' matrix
products they spun against each other, docs/performance.md).

Usage:
    python -m cluegym.benchmarks.vec_training                              # 3 games, dummy vs subproc
    python -m cluegym.benchmarks.vec_training --games taboo --worker-threads 1,default
    python -m cluegym.benchmarks.vec_training --steps 4096 --n-envs 8 --random-opponents
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from cluegym.benchmarks.host import describe_host
from cluegym.benchmarks.learner_throughput import SETUPS, warmed_maskable_ppo

__all__ = ["VecRate", "measure_training", "main"]

#: The games timed by default: Dixit's default opponents are vision models (minutes to warm).
DEFAULT_GAMES = ("decrypto", "undercover", "taboo")


@dataclass(frozen=True)
class VecRate:
    """One configuration's timed training: ``decisions`` learner decisions in ``seconds``."""

    decisions: int
    seconds: float

    @property
    def per_second(self) -> float:
        """Decisions trained per wall-clock second."""
        return self.decisions / self.seconds


def measure_training(game: str, vec: str, steps: int, *, n_envs: int = 4, worker_threads: int | None = 1,
                     random_opponents: bool = False, seed: int = 0) -> VecRate:
    """Train ``MaskablePPO`` on ``n_envs`` SB3 views of ``game`` vectorised by ``vec`` for
    ``steps`` decisions after one warm-up rollout; the timed part's decisions and seconds.

    Example:
        >>> rate = measure_training("decrypto", "subproc", 1024, random_opponents=True)
        >>> rate.per_second > 0
        True
    """
    from cluegym.wrappers.vec_env import make_vec_env  # deferred: SB3 and torch are heavy

    setup = SETUPS[game]
    # Random players, and the tasks' delegates the learning benchmarks give them; else SelfPlayEnv's
    # defaults (the game's DEFAULT_AGENTS and the tasks' default delegates).
    players = {"opponents": {"*": "random"}, "task_options": setup.task_options} if random_opponents else {}
    env = make_vec_env(n_envs, vec=vec, seed=seed, worker_threads=worker_threads, game=game, seat=setup.seat,
                       env_kwargs=setup.env_kwargs, **players)
    try:
        model = warmed_maskable_ppo(env, seed)
        start, before = time.perf_counter(), model.num_timesteps
        model.learn(steps, reset_num_timesteps=False)
        return VecRate(model.num_timesteps - before, time.perf_counter() - start)
    finally:
        env.close()


def _threads(text: str) -> int | None:
    if text.strip() == "default":
        return None
    value = int(text)
    if value < 1:
        raise ValueError(f"worker threads must be >= 1 or 'default', got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(DEFAULT_GAMES),
                        help=f"comma-separated games (default {','.join(DEFAULT_GAMES)}; also dixit)")
    parser.add_argument("--vec", default="dummy,subproc", help="comma-separated: dummy, subproc (default both)")
    parser.add_argument("--worker-threads", default="1",
                        help="comma-separated threads per subprocess worker, or 'default' (default 1)")
    parser.add_argument("--steps", type=int, default=8192, help="decisions timed per configuration (default 8192)")
    parser.add_argument("--n-envs", type=int, default=4, help="envs per configuration (default 4)")
    parser.add_argument("--random-opponents", action="store_true",
                        help="random players and delegates instead of the game's default baselines")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in SETUPS]
    if unknown or not games:
        parser.error(f"no learner task for {unknown or args.games!r}; choose from {', '.join(SETUPS)}")
    kinds = [v.strip() for v in args.vec.split(",") if v.strip()]
    if not kinds or any(v not in ("dummy", "subproc") for v in kinds):
        parser.error(f"--vec takes dummy and/or subproc, got {args.vec!r}")
    try:
        worker_threads = [_threads(t) for t in args.worker_threads.split(",") if t.strip()]
    except ValueError as exc:
        parser.error(f"--worker-threads: {exc}")
    if not worker_threads:
        parser.error("--worker-threads needs at least one value")
    if args.steps < 1 or args.n_envs < 1:
        parser.error("--steps and --n-envs must be >= 1")

    import torch  # deferred: heavy

    torch.set_num_threads(1)  # the main process as a training run sets it (TrainConfig.torch_threads)
    print(describe_host().lines())
    who = "random players" if args.random_opponents else "the default opponents (DEFAULT_AGENTS)"
    print(f"MaskablePPO, {args.n_envs} envs, {args.steps} decisions timed after a warm-up rollout, against {who}")
    print(f"{'game':<11} {'vec':<8} {'worker threads':>14} {'decisions':>9} {'wall s':>7} {'decisions/s':>11}")
    for game in games:
        for vec in kinds:
            for threads in worker_threads if vec == "subproc" else [None]:
                rate = measure_training(game, vec, args.steps, n_envs=args.n_envs, worker_threads=threads,
                                        random_opponents=args.random_opponents, seed=args.seed)
                label = "-" if vec == "dummy" else ("default" if threads is None else str(threads))
                print(f"{game:<11} {vec:<8} {label:>14} {rate.decisions:>9} {rate.seconds:>7.1f} "
                      f"{rate.per_second:>11.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
