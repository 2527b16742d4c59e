"""A Taboo defender that learns when to guess: trained from scratch against the GloVe attacker.

The learner is the defender's guess (choice 0: no guess yet; 1-7: the words closest to the
attacker's talk, :class:`cluegym.wrappers.taboo.GuessCandidates`); its utterances come from
the GloVe defender. Right guess +1, wrong guess -1, no guess by the turn limit 0 (a draw).
MaskablePPO with the shared-weight choice scorer. Every checkpoint is evaluated as a cluegym
agent on the same seeded games, next to the GloVe defender and a random guesser
(``task-random``).

Usage:
    python -m cluegym.benchmarks.train_taboo --out runs/train_taboo
"""

from __future__ import annotations

from pathlib import Path

from cluegym.benchmarks.train_scripts import checked_config, demo_parser, parse_demo_args
from cluegym.training.train import TrainConfig, report_table, train


def main(argv: list[str] | None = None) -> int:
    parser = demo_parser(__doc__, steps=4_000, eval_games=100, out="runs/train_taboo")
    args = parse_demo_args(parser, argv)
    out = Path(args.out)
    config = checked_config(
        parser, TrainConfig, "taboo", "defender", steps=args.steps, n_envs=args.n_envs,
        opponents={"attacker": ["glove"]}, eval_every=max(1, args.steps // 4), eval_games=args.eval_games,
        eval_seed=args.seed + 7, baselines=["glove", "task-random"], algo_kwargs={"n_steps": 128}, seed=args.seed,
        out=str(out), overwrite=args.overwrite,
    )
    summary = train(config)
    report_table(summary, f"defender ({args.eval_games} eval games)",
                 {"GloVe defender": "glove", "random guesser (task-random)": "task-random"}, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
