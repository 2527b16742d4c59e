"""The training run of the profile-guided build: every game played as the benchmarks play it.

Where GCC builds the package, ``scripts/setup.sh`` builds it instrumented
(``CLUEGYM_PGO=generate``), runs this module, and builds it again from the counts the run
left in ``build/pgo/`` (``CLUEGYM_PGO=use``; :func:`cluegym.compiled.pgo_flags`). The
compiler lays out for speed what ran here: each registered game's scripted loop of
:mod:`cluegym.benchmarks.throughput`, with and without record digests, and its SB3 and
multi-seat learning views with random players (:mod:`cluegym.benchmarks.learner_throughput`).
What did not run here (error paths, other options) is built as in a plain build.

Run it on a build that is not instrumented and it only plays (nothing is recorded): that is
how the tests check it.

Usage:
    CLUEGYM_PGO=generate python -m cluegym.benchmarks.pgo   # ~35 s (on the instrumented build,
                                                            # which otherwise warns on import)
    python -m cluegym.benchmarks.pgo --seconds 0.2 --no-views
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from tqdm import tqdm

import cluegym
from cluegym.benchmarks.throughput import measure

#: Seconds each game's scripted loop plays per mode (with and without digests) by default.
DEFAULT_SECONDS = 2.0
#: Seconds each learning view plays by default.
DEFAULT_VIEW_SECONDS = 0.5


def train(games: list[str] | None = None, seconds: float = DEFAULT_SECONDS, views: bool = True,
          view_seconds: float = DEFAULT_VIEW_SECONDS, progress: bool = True) -> dict[str, float]:
    """Play every part of the training run; return each part's steps (or decisions) per second.

    Args:
        games: the games to play (default: every registered game).
        seconds: how long each game's scripted loop plays, per mode.
        views: also play the learning views (SB3 and multi-seat) of each game.
        view_seconds: how long each view plays.
        progress: show a progress bar.

    Example:
        >>> rates = train(["taboo"], seconds=0.1, views=False, progress=False)
        >>> sorted(rates)
        ['taboo (digests)', 'taboo (no digests)']
    """
    games = list(games) if games is not None else cluegym.registered_games()
    loops = [(game, digests) for game in games for digests in (True, False)]
    views_played = [(game, view) for game in games for view in ("sb3", "multi-seat")] if views else []
    rates: dict[str, float] = {}
    with tqdm(total=len(loops) + len(views_played), desc="profile-guided build: training run",
              disable=not progress, unit="part") as bar:
        for game, digests in loops:
            label = f"{game} ({'digests' if digests else 'no digests'})"
            rates[label] = measure(game, seconds, record_observations=digests)[0]
            bar.update()
        if views_played:
            # Imported here: the views pull in the learning stack (torch), which the loops do not need.
            from cluegym.benchmarks.learner_throughput import SETUPS, measure_multiseat, measure_selfplay
        for game, view in views_played:
            measure_view = measure_selfplay if view == "sb3" else measure_multiseat
            rates[f"{game} ({view} view)"] = measure_view(game, SETUPS[game], view_seconds).decisions_s
            bar.update()
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", help="games to play, each once (default: every registered game)")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS,
                        help=f"seconds per game and mode (default {DEFAULT_SECONDS})")
    parser.add_argument("--view-seconds", type=float, default=DEFAULT_VIEW_SECONDS,
                        help=f"seconds per learning view (default {DEFAULT_VIEW_SECONDS})")
    parser.add_argument("--no-views", action="store_true", help="play the games' loops only")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    # Finite too: inf never ended the run and nan played nothing. (One message for both, as before.)
    if not all(math.isfinite(value) and value > 0 for value in (args.seconds, args.view_seconds)):
        parser.error(f"--seconds and --view-seconds must be positive finite numbers, "
                     f"got {args.seconds:g} and {args.view_seconds:g}")
    if args.games is not None:
        registered = cluegym.registered_games()
        if not args.games:  # "--games" alone played nothing
            parser.error(f"--games names no game; registered: {', '.join(registered)}")
        unknown = [game for game in args.games if game not in registered]
        if unknown:  # else a traceback once the run reached it
            parser.error(f"unknown game(s) {', '.join(unknown)}; registered: {', '.join(registered)}")
        twice = sorted({game for game in args.games if args.games.count(game) > 1})
        if twice:
            parser.error(f"--games names {', '.join(twice)} more than once")
    mode = cluegym.compiled.pgo_build_mode()
    if mode != "generate":
        print(f"note: this build is not instrumented (profile-guided mode {mode!r}): the run records nothing",
              file=sys.stderr)
    start = time.perf_counter()
    rates = train(args.games, args.seconds, not args.no_views, args.view_seconds, not args.no_progress)
    for label, rate in rates.items():
        print(f"{label:32s} {rate:10.0f} /s")
    print(f"training run: {time.perf_counter() - start:.0f} s (build mode {mode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
