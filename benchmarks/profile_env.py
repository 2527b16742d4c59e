"""Profile one game's env under the throughput benchmark's scripted policy (cProfile).

Prints the functions that take the most time of their own (``tottime``) and, with
``--cumulative``, those with the most time including callees, so an optimization starts from
data. docs/performance.md keeps the before/after tables this prints.

cProfile cannot see into the compiled game layer (cluegym/compiled.py: a compiled function is
one native call to it), so the profile runs the game layer's Python sources: run from a
process where it is compiled, the command runs itself again with ``CLUEGYM_PURE_PYTHON=1``.

Usage:
    python -m cluegym.benchmarks.profile_env dixit --games 200 --top 15
    python -m cluegym.benchmarks.profile_env taboo --no-digests
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys

import cluegym
from cluegym.compiled import OFF_SWITCH, compiled_modules
from cluegym.benchmarks.throughput import play_game
from cluegym.benchmarks.usage import positive_int


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
    note = " (the compiled game layer's functions are hidden from cProfile)" if compiled_modules() else ""
    return f"{game}: {games} games, {steps} steps{note}\n" + out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=cluegym.registered_games())
    parser.add_argument("--games", type=positive_int, default=200, help="games to profile (default 200)")
    parser.add_argument("--top", type=positive_int, default=15, help="rows to print (default 15)")
    parser.add_argument("--cumulative", action="store_true", help="sort by cumulative time, not own time")
    parser.add_argument("--no-digests", action="store_true", help="record_observations=False")
    args = parser.parse_args(argv)
    if argv is None and compiled_modules():  # the command, compiled: profile the sources instead
        os.execve(sys.executable, [sys.executable, "-m", "cluegym.benchmarks.profile_env", *sys.argv[1:]],
                  {**os.environ, OFF_SWITCH: "1"})
    print(profile(args.game, args.games, args.top, "cumulative" if args.cumulative else "tottime",
                  record_observations=not args.no_digests))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
