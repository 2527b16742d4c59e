"""Learning is real: Decrypto Eve and Bob trained from scratch against the baseline encoder.

Each seat is trained with MaskablePPO (shared-weight choice scorer over GloVe similarity
features, potential-based shaping on) against the GloVe baselines: Alice ``glove:k=16`` and
the other guesser ``glove``. Every checkpoint is evaluated as a cluegym agent
(``ppo:path=...``) on the same 100 seeded games, next to the embedding baseline and a random
player in the learner's seat. Writes ``<out>/decrypto_training.png`` (both learning curves),
one run folder per seat (policy, logs, curve), and prints the table.

Usage:
    python -m cluegym.benchmarks.train_decrypto --out runs/train_decrypto
    python -m cluegym.benchmarks.train_decrypto --seats eve --eve-steps 4000

An ``--out`` holding an earlier run (a seat's run folder, ``summary.json`` or the figure) is
refused unless ``--overwrite``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cluegym.benchmarks.train_scripts import add_overwrite, checked_config, refuse_earlier_run
from cluegym.benchmarks.usage import positive_int
from cluegym.training.train import TrainConfig, train

#: What each seat is trained against and measured by (the issue's bar: the embedding baseline).
SEATS: dict[str, dict[str, Any]] = {
    "eve": {"opponents": {"alice": ["glove:k=16"], "bob": ["glove"]}, "steps": 4_000},
    "bob": {"opponents": {"alice": ["glove:k=16"], "eve": ["glove"]}, "steps": 3_000},
}


#: The figure written in ``--out`` beside the seats' run folders.
FIGURE = "decrypto_training.png"


def seat_config(seat: str, out: Path, steps: dict[str, int], eval_games: int, seed: int, n_envs: int,
                overwrite: bool = False) -> TrainConfig:
    """The training run of ``seat`` in ``out/decrypto-<seat>`` (``steps[seat]`` missing or 0: the seat's default)."""
    spec = SEATS[seat]
    seat_steps = steps.get(seat) or spec["steps"]
    return TrainConfig(
        "decrypto", seat, algo="maskable_ppo", steps=seat_steps, n_envs=n_envs,
        opponents=spec["opponents"], eval_every=max(1, seat_steps // 4),
        eval_games=eval_games, eval_seed=seed + 7, baselines=["glove", "random"], shaping=1.0,
        seed=seed, out=str(out / f"decrypto-{seat}"), overwrite=overwrite,
    )


def run(seats: list[str], out: Path, steps: dict[str, int], eval_games: int, seed: int, n_envs: int,
        overwrite: bool = False) -> list[dict[str, Any]]:
    """Train each seat in turn (an earlier run in a seat's folder is replaced only with ``overwrite``)."""
    # every seat's config first: a bad value stops the run before the first seat trains
    configs = [seat_config(seat, out, steps, eval_games, seed, n_envs, overwrite) for seat in seats]
    rows = []
    for seat, config in zip(seats, configs):
        summary = train(config)
        metric = summary["metric"]
        rows.append({
            "seat": seat, "metric": metric, "untrained": summary["untrained"][metric],
            "trained": summary["final"][metric], "glove": summary["baselines"]["glove"],
            "random": summary["baselines"]["random"], "steps": summary["steps"],
            "minutes": summary["train_minutes"], "curve": summary["curve"], "policy": summary["policy"],
        })
    return rows


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    # Deferred on purpose: pyplot is heavy, and the Agg backend must be chosen before it loads
    # (doing that at import time would change the backend of any program importing this module).
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(rows), figsize=(5.5 * len(rows), 4), squeeze=False)
    for ax, row in zip(axes[0], rows):
        ax.plot([c["steps"] for c in row["curve"]], [c[row["metric"]] for c in row["curve"]], marker="o",
                label="MaskablePPO (trained)")
        ax.axhline(row["glove"], linestyle="--", color="C1", label="GloVe baseline")
        ax.axhline(row["random"], linestyle=":", color="C2", label="random")
        ax.set_title(f"Decrypto {row['seat']}: {row['steps']} steps, {row['minutes']:.1f} min")
        ax.set_xlabel("env steps (learner decisions)")
        ax.set_ylabel(row["metric"].replace("_", " "))
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="center right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def table(rows: list[dict[str, Any]], eval_games: int) -> str:
    lines = [f"| seat | metric ({eval_games} eval games) | untrained | trained | GloVe baseline | random | env steps | train min |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['seat']} | {r['metric']} | {r['untrained']:.3f} | {r['trained']:.3f} | {r['glove']:.3f} "
                     f"| {r['random']:.3f} | {r['steps']} | {r['minutes']:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seats", nargs="+", choices=sorted(SEATS), default=["eve", "bob"])
    parser.add_argument("--eve-steps", type=positive_int, help=f"default {SEATS['eve']['steps']}")
    parser.add_argument("--bob-steps", type=positive_int, help=f"default {SEATS['bob']['steps']}")
    parser.add_argument("--eval-games", type=positive_int, default=100)
    parser.add_argument("--n-envs", type=positive_int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/train_decrypto")
    add_overwrite(parser)
    args = parser.parse_args(argv)
    twice = sorted({seat for seat in args.seats if args.seats.count(seat) > 1})
    if twice:  # the second run of a seat would replace the first one's folder
        parser.error(f"--seats names {', '.join(twice)} more than once")
    out = Path(args.out)
    # out itself holds summary.json and the figure; each seat trains in its own folder below it
    refuse_earlier_run(parser, out, args.overwrite, runs=["", *(f"decrypto-{seat}" for seat in args.seats)],
                       files=[FIGURE])
    steps = {"eve": args.eve_steps or 0, "bob": args.bob_steps or 0}
    for seat in args.seats:  # a bad value (e.g. a seed out of range): a usage error before the first seat trains
        checked_config(parser, seat_config, seat, out, steps, args.eval_games, args.seed, args.n_envs)
    rows = run(args.seats, out, steps, args.eval_games, args.seed, args.n_envs, overwrite=args.overwrite)
    out.mkdir(parents=True, exist_ok=True)  # made by the seats' runs already; created only now, after training
    plot(rows, out / FIGURE)
    (out / "summary.json").write_text(json.dumps(rows, indent=2))
    print()
    print(table(rows, args.eval_games))
    print(f"\ncurves: {out / FIGURE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
