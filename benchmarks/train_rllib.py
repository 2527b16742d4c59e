"""Learning is real on RLlib: three Undercover voters trained together beat the embedding baseline.

``player_0``, ``player_1`` and ``player_2`` learn together (one shared PPO policy: RLlib's
action-masking module with the per-choice scorer of :mod:`cluegym.training.rllib_scorer`, over
the multi-seat learning view; ``--no-scorer``: RLlib's MLP instead); ``player_3`` and ``player_4`` are
the GloVe describer-voter without role inference (``glove:infer=false``). Roles are dealt at
random each game, so each learner is sometimes a civilian, sometimes undercover. The learners
only vote (``Discrete(5)``, masked to the living others); their descriptions come from the
same GloVe describer, so the comparison is about voting alone. The reward is the game's
(win/loss), no shaping.

Every checkpoint is evaluated as ``rllib`` cluegym agents in the three learning seats, on the
same seeded games against the same two players, next to the embedding baseline's vote
(``glove:infer=false`` in the three seats) and a random voter that speaks the same way
(``task-random``). The metric is vote accuracy (share of a seat's votes that name a player of
the other team), averaged over the three seats.

Usage:
    python -m cluegym.benchmarks.train_rllib --out runs/train_rllib --plot docs/img/train_rllib.png
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path
from typing import Any

from cluegym.training.rllib_engine import RLlibTrainConfig, train_rllib

TABLE = "glove:infer=false"
LEARNERS = ["player_0", "player_1", "player_2"]


def rllib_table(summary: dict[str, Any], wall_seconds: float, out: str | Path) -> str:
    """The demonstration's markdown table (untrained, trained, baselines), saved and printed."""
    metric = summary["metric"]
    lines = [f"| three voters, shared policy ({summary['config']['eval_games']} eval games) | "
             f"{metric.replace('_', ' ')} | env steps | train min |", "|---|---|---|---|",
             f"| untrained policy | {summary['untrained'][metric]:.3f} | 0 | 0 |",
             f"| trained (RLlib PPO, checkpoint reloaded) | {summary['final'][metric]:.3f} | {summary['steps']:,} "
             f"| {summary['train_minutes']:.1f} |"]
    labels = {TABLE: f"embedding baseline ({TABLE})", "task-random": "random voter (task-random)"}
    lines += [f"| {labels.get(spec, spec)} | {value:.3f} | - | - |" for spec, value in summary["baselines"].items()]
    table = "\n".join(lines)
    Path(out, "table.md").write_text(table + f"\n\nwhole command: {wall_seconds / 60:.1f} min wall-clock\n")
    print(f"\n{table}\n\nwhole command (evaluations included): {wall_seconds / 60:.1f} min wall-clock; "
          f"curve: {Path(out, 'curve.png')}")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=12_288, help="env steps (learner votes) to train")
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--eval-every", type=int, default=3_072)
    parser.add_argument("--num-env-runners", type=int, default=0)
    parser.add_argument("--scorer", action=argparse.BooleanOptionalAction, default=True,
                        help="per-choice scorer actor (default) or RLlib's MLP")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/train_rllib")
    parser.add_argument("--plot", default="", help="also copy the curve here (e.g. docs/img/train_rllib.png)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    config = RLlibTrainConfig(
        "undercover", seats=LEARNERS, policies="shared", steps=args.steps,
        opponents={"*": [TABLE]}, eval_every=args.eval_every, eval_games=args.eval_games,
        eval_seed=args.seed + 7, baselines=[TABLE, "task-random"], num_env_runners=args.num_env_runners,
        scorer=args.scorer, seed=args.seed, out=args.out,
    )
    summary = train_rllib(config)
    rllib_table(summary, time.perf_counter() - began, args.out)
    if args.plot:
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(args.out, "curve.png"), args.plot)
        print(f"curve copied to {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
