"""Learning is real: a Dixit listener over caption features beats chance by a wide margin.

The learner sits in ``player_0`` and only votes as a listener (pick the storyteller's card
among the 4 candidates, never its own: chance is 1/3); its stories and distractor cards come
from the ``caption`` baseline, as do the three other players. The game runs with
``reveal_captions=True`` (the shipped deck's captions in the observation; no joint
image-text model is packaged, so clue and cards meet through the captions). MaskablePPO with
the shared-weight choice scorer over :class:`cluegym.wrappers.dixit.ListenerFeatures`
(MiniLM and GloVe clue-caption similarities). Every checkpoint is evaluated as a cluegym agent
on the same seeded games, next to a random listener (``task-random``) and the caption
baseline in the same seat.

Usage:
    python -m cluegym.benchmarks.train_dixit --out runs/train_dixit
"""

from __future__ import annotations

from pathlib import Path

from cluegym.benchmarks.train_scripts import checked_config, demo_parser, parse_demo_args
from cluegym.training.train import TrainConfig, report_table, train

TABLE = "caption"


def main(argv: list[str] | None = None) -> int:
    parser = demo_parser(__doc__, steps=1_500, eval_games=10, out="runs/train_dixit",
                         eval_games_help="games per evaluation (18 votes each)")
    args = parse_demo_args(parser, argv)
    out = Path(args.out)
    config = checked_config(
        parser, TrainConfig, "dixit", "player_0", steps=args.steps, n_envs=args.n_envs,
        opponents={f"player_{i}": [TABLE] for i in range(1, 4)}, eval_every=max(1, args.steps // 3),
        eval_games=args.eval_games, eval_seed=args.seed + 7, baselines=[TABLE, "task-random"], shaping=1.0,
        env_kwargs={"reveal_captions": True}, algo_kwargs={"n_steps": 64}, seed=args.seed, out=str(out),
        overwrite=args.overwrite,
    )
    summary = train(config)
    report_table(summary, f"player_0 listener ({args.eval_games} eval games, {18 * args.eval_games} votes)",
                 {"random listener (task-random; chance 1/3)": "task-random", "caption baseline": TABLE}, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
