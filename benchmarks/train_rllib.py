"""Learning is real on RLlib: three seats trained together, one shared policy, against an embedding table.

Two setups (``--game``), both three learning seats (``player_0``, ``player_1``, ``player_2``)
sharing one PPO policy (RLlib's action-masking module with the per-choice scorer of
:mod:`cluegym.training.rllib_scorer`; ``--no-scorer``: RLlib's MLP) over the multi-seat
learning view, with potential-based shaping from the game score (``--shaping``, the SB3
demos' scale 1; the evaluation always plays the unshaped game):

- ``dixit`` (the default): the learners are three Dixit listeners (pick the storyteller's card
  among the 4 candidates, never their own: chance 1/3) at a table whose fourth seat is the
  ``caption`` baseline; their stories and distractor cards come from the same ``caption``
  agent, so the comparison is about listening alone. The game shows the shipped deck's
  captions (``reveal_captions=True``: no joint image-text model is packaged). Metric:
  listener accuracy.
- ``undercover``: the learners are three Undercover voters (``Discrete(5)``, masked to the
  living others) against two ``glove:infer=false`` players; their descriptions come from the
  same GloVe describer. Roles are dealt at random each game. Metric: vote accuracy (share of a
  seat's votes naming a player of the other team).

Every checkpoint is evaluated as ``rllib`` cluegym agents in the three learning seats, on the
same seeded games (match seed ``--seed`` + 7) against the same table, next to the embedding
baseline in those three seats and a random player that plays the rest of the seat the same
way (``task-random``). The headline is the metric averaged over the three seats.

Usage:
    python -m cluegym.benchmarks.train_rllib --out runs/train_rllib --plot docs/img/train_rllib.png
    python -m cluegym.benchmarks.train_rllib --game undercover --out runs/train_rllib_undercover

An ``--out`` holding an earlier run is refused unless ``--overwrite`` (which replaces it).
"""

from __future__ import annotations

import argparse
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluegym.benchmarks.train_scripts import add_overwrite, checked_config, refuse_earlier_run
from cluegym.benchmarks.usage import check_outputs, parse_options, positive_int
from cluegym.training.rllib_engine import RLlibTrainConfig, train_rllib

LEARNERS = ["player_0", "player_1", "player_2"]
#: Potential-based shaping scale of the demonstration (the SB3 demos').
SHAPING = 1.0


@dataclass(frozen=True)
class Setup:
    """One demonstration: the table, the game options and the run's defaults.

    Attributes:
        table: agent spec of the non-learning seats and the embedding baseline.
        learners_label: what the learning seats are, for the table's first column.
        random_label: what ``task-random`` is, for the table.
        steps, eval_every, eval_games: the run's defaults.
        env_kwargs: game options.
    """

    table: str
    learners_label: str
    random_label: str
    steps: int
    eval_every: int
    eval_games: int
    env_kwargs: dict[str, Any] = field(default_factory=dict)


SETUPS: dict[str, Setup] = {
    "dixit": Setup("caption", "three Dixit listeners, shared policy, vs a `caption` table",
                   "random listener (task-random; chance 1/3)", steps=6_144, eval_every=1_536, eval_games=50,
                   env_kwargs={"reveal_captions": True}),
    "undercover": Setup("glove:infer=false", "three Undercover voters, shared policy, vs two `glove:infer=false`",
                        "random voter (task-random)", steps=12_288, eval_every=3_072, eval_games=100),
}


def rllib_table(summary: dict[str, Any], setup: Setup, wall_seconds: float, out: str | Path) -> str:
    """The demonstration's markdown table (untrained, trained, baselines), saved and printed."""
    metric = summary["metric"]
    games = summary["config"]["eval_games"]
    lines = [f"| {setup.learners_label} ({games} eval games) | {metric.replace('_', ' ')} | env steps | train min |",
             "|---|---|---|---|",
             f"| untrained policy | {summary['untrained'][metric]:.3f} | 0 | 0 |",
             f"| trained (RLlib PPO, checkpoint reloaded) | **{summary['final'][metric]:.3f}** | {summary['steps']:,} "
             f"| {summary['train_minutes']:.1f} |"]
    labels = {setup.table: f"embedding baseline (`{setup.table}`)", "task-random": setup.random_label}
    lines += [f"| {labels.get(spec, spec)} | {value:.3f} | - | - |" for spec, value in summary["baselines"].items()]
    table = "\n".join(lines)
    Path(out, "table.md").write_text(table + f"\n\nwhole command: {wall_seconds / 60:.1f} min wall-clock\n")
    print(f"\n{table}\n\nwhole command (evaluations included): {wall_seconds / 60:.1f} min wall-clock; "
          f"curve: {Path(out, 'curve.png')}")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(SETUPS), default="dixit")
    parser.add_argument("--steps", type=positive_int,
                        help="env steps (learner decisions) to train (default: the setup's)")
    parser.add_argument("--eval-games", type=positive_int, help="games per evaluation (default: the setup's)")
    parser.add_argument("--eval-every", type=positive_int,
                        help="env steps between evaluations (default: the setup's)")
    parser.add_argument("--num-env-runners", type=int, default=0)
    parser.add_argument("--scorer", action=argparse.BooleanOptionalAction, default=True,
                        help="per-choice scorer actor (default) or RLlib's MLP")
    parser.add_argument("--shaping", type=float, default=SHAPING,
                        help=f"potential-based shaping scale (default {SHAPING}; 0: the game's reward alone)")
    parser.add_argument("--algo-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="PPO keyword over the engine's defaults (repeatable), e.g. lr=0.0003")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/train_rllib")
    add_overwrite(parser)
    parser.add_argument("--plot", default="", help="also copy the curve here (e.g. docs/img/train_rllib.png)")
    args = parser.parse_args(argv)
    setup = SETUPS[args.game]
    refuse_earlier_run(parser, args.out, args.overwrite)
    if args.plot and Path(args.plot).resolve() == Path(args.out, "curve.png").resolve():  # copyfile onto itself
        parser.error(f"--plot {args.plot} is the run's own curve (--out's curve.png): give another path")
    check_outputs(parser, {"--plot": args.plot or None})
    algo_kwargs = parse_options(args.algo_arg, "--algo-arg", parser=parser)  # JSON values: numbers, lists
    began = time.perf_counter()
    # None (not given): the setup's default; the flags take only numbers >= 1
    config = checked_config(
        parser, RLlibTrainConfig, args.game, seats=LEARNERS, policies="shared",
        steps=setup.steps if args.steps is None else args.steps, opponents={"*": [setup.table]},
        eval_every=setup.eval_every if args.eval_every is None else args.eval_every,
        eval_games=setup.eval_games if args.eval_games is None else args.eval_games, eval_seed=args.seed + 7,
        baselines=[setup.table, "task-random"], env_kwargs=dict(setup.env_kwargs),
        num_env_runners=args.num_env_runners, scorer=args.scorer, shaping=args.shaping,
        algo_kwargs=algo_kwargs, seed=args.seed, out=args.out, overwrite=args.overwrite,
    )
    summary = train_rllib(config)
    rllib_table(summary, setup, time.perf_counter() - began, args.out)
    if args.plot:
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(args.out, "curve.png"), args.plot)
        print(f"curve copied to {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
