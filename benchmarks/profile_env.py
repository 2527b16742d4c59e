"""Profile one game's env under the throughput benchmark's scripted policy (cProfile).

Prints the functions that take the most time of their own (``tottime``) and, with
``--cumulative``, those with the most time including callees, so an optimization starts from
data. docs/performance.md keeps the before/after tables this prints.

Usage:
    python -m cluegym.benchmarks.profile_env dixit --games 200 --top 15
    python -m cluegym.benchmarks.profile_env taboo --no-digests
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats

import cluegym
from cluegym.benchmarks.throughput import play_game


def profile(game: str, games: int, top: int, sort: str, **env_kwargs: object) -> str:
    """The top ``top`` rows of a cProfile of ``games`` games of ``game`` (warm env)."""
    env = cluegym.make(game, **env_kwargs)
    play_game(env, seed=-1 % 2**31, step0=0)  # warm-up: lazy imports and caches are not the env
    profiler = cProfile.Profile()
    steps = 0
    profiler.enable()
    for seed in range(games):
        steps += play_game(env, seed=seed, step0=steps)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(sort).print_stats(top)
    return f"{game}: {games} games, {steps} steps\n" + out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=cluegym.registered_games())
    parser.add_argument("--games", type=int, default=200, help="games to profile (default 200)")
    parser.add_argument("--top", type=int, default=15, help="rows to print (default 15)")
    parser.add_argument("--cumulative", action="store_true", help="sort by cumulative time, not own time")
    parser.add_argument("--no-digests", action="store_true", help="record_observations=False")
    args = parser.parse_args(argv)
    print(profile(args.game, args.games, args.top, "cumulative" if args.cumulative else "tottime",
                  record_observations=not args.no_digests))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
