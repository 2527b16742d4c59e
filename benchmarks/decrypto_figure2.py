"""Reproduce the trend of Figure 2 of the Decrypto paper with the embedding baselines.

For K in 1, 2, 4, ..., 512 (the encoder's top-K hint pool), play Decrypto with
- self-play (SP): GloVe Alice + GloVe Bob, and
- cross-play (XP): GloVe Alice + word2vec Bob,
against a fixed interceptor (GloVe Eve by default), over ``--games`` games per point and
``--seeds`` match seeds. Prints, per K and pair, the share of games ending in
miscommunication and the average game length (mean +- standard error over seeds), and saves
both curves as a PNG.

Expected (paper): SP stays near-perfect as K grows, while XP miscommunication rises steeply at
high K (most XP games end in miscommunication for K > 128).

Usage:
    python -m cluegym.benchmarks.decrypto_figure2 --games 32 --seeds 3 --out figure2.png
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from cluegym.agents import run_match
from cluegym.benchmarks.plotting import figure_path, pyplot, save_figure
from cluegym.benchmarks.usage import check_outputs, check_seat_specs, positive_int

PAIRS = {"SP glove->glove": ("glove", "glove"), "XP glove->word2vec": ("glove", "word2vec")}


def parse_ks(text: str) -> list[int]:
    """An argparse ``type``: ``"1,2,4"`` -> ``[1, 2, 4]``, each an integer >= 1, none repeated.

    Example:
        >>> parse_ks("1,2,4")
        [1, 2, 4]
    """
    try:
        ks = [int(k) for k in text.split(",")]
    except ValueError:
        ks = []
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError(f"must be comma-separated integers >= 1, got {text!r}")
    if len(set(ks)) < len(ks):  # a repeated K would be played twice and kept once
        raise argparse.ArgumentTypeError(f"repeats a K value: {text!r}")
    return ks


def check_specs(ks: list[int], eve: str) -> None:
    """Every spec a match of :func:`run` builds is a valid agent, checked before the first one.

    Raises:
        AgentSpecError: the first bad spec, its seat named.
    """
    specs = [(seat, seat, spec) for alice_emb, bob_emb in PAIRS.values()
             for seat, spec in [*(("alice", f"{alice_emb}:k={k}") for k in ks), ("bob", bob_emb)]]
    check_seat_specs("decrypto", [*specs, ("--eve", "eve", eve)])


def run(ks: list[int], games: int, seeds: int, eve: str, progress: bool = True) -> dict:
    """Play every (pair, K, seed) match; return per pair and K the per-seed metrics."""
    table: dict[str, dict[int, list[dict]]] = {name: {} for name in PAIRS}
    for name, (alice_emb, bob_emb) in PAIRS.items():
        for k in ks:
            runs = []
            for seed in range(seeds):
                summary = run_match(
                    "decrypto",
                    {"alice": f"{alice_emb}:k={k}", "bob": bob_emb, "eve": eve},
                    games=games, seed=seed, progress=False,
                )
                runs.append(summary["metrics"])
            table[name][k] = runs
            if progress:
                m = aggregate(runs)
                print(f"  {name:<20} K={k:<4} miscomm. end {m['mis'][0]:.2f}  avg len {m['len'][0]:.2f}", flush=True)
    return table


def aggregate(runs: list[dict]) -> dict[str, tuple[float, float]]:
    """Mean and standard error over seeds of the two Figure-2 quantities."""
    def mean_sem(values: list[float]) -> tuple[float, float]:
        arr = np.array(values, dtype=float)
        sem = float(arr.std(ddof=1) / np.sqrt(len(arr))) if len(arr) > 1 else 0.0
        return float(arr.mean()), sem

    return {
        "mis": mean_sem([r["miscommunication_end_rate"] for r in runs]),
        "len": mean_sem([r["avg_turns"] for r in runs]),
        "int": mean_sem([r["interception_end_rate"] for r in runs]),
    }


def format_table(table: dict, ks: list[int]) -> str:
    """The printed table: one row per K, two columns per pair."""
    names = list(table)
    header = f"{'K':>5} | " + " | ".join(f"{n + ' miscomm.%':>26} {'avg length':>13}" for n in names)
    lines = [header, "-" * len(header)]
    for k in ks:
        cells = []
        for n in names:
            m = aggregate(table[n][k])
            cells.append(f"{100 * m['mis'][0]:>19.1f} +- {100 * m['mis'][1]:>4.1f} {m['len'][0]:>6.2f} +- {m['len'][1]:.2f}")
        lines.append(f"{k:>5} | " + " | ".join(cells))
    return "\n".join(lines)


def plot(table: dict, ks: list[int], out: Path) -> None:
    """Two panels as in the paper: miscommunication share and average length vs K (log x)."""
    plt = pyplot()

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name in table:
        stats = [aggregate(table[name][k]) for k in ks]
        for ax, key, scale in ((axes[0], "mis", 100), (axes[1], "len", 1)):
            mean = np.array([s[key][0] for s in stats]) * scale
            sem = np.array([s[key][1] for s in stats]) * scale
            ax.plot(ks, mean, marker="o", label=name)
            ax.fill_between(ks, mean - sem, mean + sem, alpha=0.2)
    axes[0].set(xscale="log", xlabel="K (top-K hint pool)", ylabel="% games ending in miscommunication")
    axes[1].set(xscale="log", xlabel="K (top-K hint pool)", ylabel="average game length (turns)")
    for ax in axes:
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("Decrypto embedding baselines: self-play vs cross-play (Figure 2 trend)")
    fig.tight_layout()
    save_figure(fig, out, dpi=120)  # creates the folder (savefig alone failed after the games)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=positive_int, default=32, help="games per (pair, K, seed) (default 32)")
    parser.add_argument("--seeds", type=positive_int, default=3, help="match seeds (default 3)")
    parser.add_argument("--ks", type=parse_ks, default="1,2,4,8,16,32,64,128,256,512", help="comma-separated K values")
    parser.add_argument("--eve", default="glove", help="interceptor agent spec (default glove)")
    parser.add_argument("--out", default="decrypto_figure2.png", help="PNG path")
    parser.add_argument("--json", help="also write the raw per-seed metrics here")
    args = parser.parse_args(argv)
    ks = args.ks
    # every usage error before the first match: the agents, the paths written at the end
    try:
        args.out = figure_path(args.out)
        check_specs(ks, args.eve)
    except ValueError as exc:
        parser.error(str(exc))
    check_outputs(parser, {"--out": args.out, "--json": args.json})
    start = time.perf_counter()
    table = run(ks, args.games, args.seeds, args.eve)
    elapsed = time.perf_counter() - start
    print()
    print(format_table(table, ks))
    print(f"\n{args.games} games x {args.seeds} seeds per point, interceptor {args.eve}; {elapsed:.0f} s")
    plot(table, ks, Path(args.out))
    print(f"plot written to {args.out}")
    if args.json:
        Path(args.json).write_text(json.dumps({n: {str(k): v for k, v in t.items()} for n, t in table.items()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
