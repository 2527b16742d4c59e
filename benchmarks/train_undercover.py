"""Learning is real: an Undercover voter trained from scratch beats the random voter.

The learner sits in ``player_0`` and only votes (``Discrete(5)``, masked to the living
others); its descriptions come from the GloVe describer, as do the four other players'
(``glove:infer=false``: the embedding baseline without its role-inference step, which keeps
training fast). MaskablePPO with the shared-weight choice scorer over the voter features of
:mod:`cluegym.wrappers.undercover`, potential-based shaping on. Every checkpoint is evaluated
as a cluegym agent on the same seeded games against the same table, next to a random voter
that speaks the same way (``task-random``) and the embedding baseline's own vote.

Usage:
    python -m cluegym.benchmarks.train_undercover --out runs/train_undercover
"""

from __future__ import annotations

from pathlib import Path

from cluegym.benchmarks.train_scripts import checked_config, demo_parser, parse_demo_args
from cluegym.training.train import TrainConfig, report_table, train

TABLE = "glove:infer=false"


def main(argv: list[str] | None = None) -> int:
    parser = demo_parser(__doc__, steps=3_000, eval_games=100, out="runs/train_undercover")
    args = parse_demo_args(parser, argv)
    out = Path(args.out)
    config = checked_config(
        parser, TrainConfig, "undercover", "player_0", steps=args.steps, n_envs=args.n_envs,
        opponents={f"player_{i}": [TABLE] for i in range(1, 5)}, eval_every=max(1, args.steps // 4),
        eval_games=args.eval_games, eval_seed=args.seed + 7, baselines=[TABLE, "task-random"], shaping=1.0,
        algo_kwargs={"n_steps": 128}, seed=args.seed, out=str(out), overwrite=args.overwrite,
    )
    summary = train(config)
    report_table(summary, f"player_0 voter ({args.eval_games} eval games)",
                 {"random voter (task-random)": "task-random", f"embedding baseline ({TABLE})": TABLE}, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
