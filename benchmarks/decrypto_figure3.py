"""Figure 3 of the Decrypto paper: the cross-play matrix of every encoder x decoder, and the
competitive matrix of every homogeneous team x interceptor.

Top row (cooperative): for every (encoder, decoder) pair of agents, Alice = the encoder agent
(embedding baselines at ``k=K``, the paper's K=16), Bob = the decoder agent, against a fixed
interceptor (``--eve``, GloVe by default; the paper's was Llama-3.1-70B): the share of games
ending in miscommunication and the average game length. Bottom row (competitive): a
homogeneous team (Alice and Bob the same agent) against every interceptor agent: the share of
games ending in interception and the average game length. Every cell is mean +- standard
error over ``--seeds`` match seeds of ``--games`` games; both matrices are printed and drawn
as heatmaps (one PNG).

Agents are the three packaged embeddings by default; ``--agent LABEL=SPEC`` adds any agent
(an LLM: ``--agent gpt=llm-cot:backend=openai,model=gpt-4o-mini``), which then plays every
role with that spec (an embedding name alone gets ``:k=K`` as the encoder).

Usage:
    python -m cluegym.benchmarks.decrypto_figure3 --games 16 --seeds 2 --out figure3.png
    python -m cluegym.benchmarks.decrypto_figure3 --games 32 --seeds 3   # the paper's sizes
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from cluegym.agents import run_match
from cluegym.agents.encoders import EMBEDDINGS
from cluegym.benchmarks.plotting import figure_path, pyplot, save_figure
from cluegym.benchmarks.usage import check_outputs, check_seat_specs

#: The agents of the default matrix: the packaged embeddings.
DEFAULT_AGENTS: dict[str, str] = {name: name for name in EMBEDDINGS}


def role_specs(spec: str, k: int) -> dict[str, str]:
    """The specs an agent plays each seat with: an embedding name is the top-``k`` encoder as
    Alice and the plain baseline otherwise; any other spec plays every seat as given.

    Example:
        >>> role_specs("glove", 16)
        {'alice': 'glove:k=16', 'bob': 'glove', 'eve': 'glove'}
    """
    name = spec.split(":", 1)[0]
    alice = f"{spec}{',' if ':' in spec else ':'}k={k}" if name in EMBEDDINGS and "k=" not in spec else spec
    return {"alice": alice, "bob": spec, "eve": spec}


def mean_sem(values: list[float]) -> tuple[float, float]:
    """Mean and standard error (ddof=1; 0 for one value) of per-seed values."""
    arr = np.asarray(values, dtype=float)
    sem = float(arr.std(ddof=1) / np.sqrt(len(arr))) if len(arr) > 1 else 0.0
    return float(arr.mean()), sem


def run(agents: dict[str, str], k: int, eve: str, games: int, seeds: int, progress: bool = True) -> dict[str, Any]:
    """Play both matrices.

    Returns:
        ``{"cooperative": {enc: {dec: [metrics per seed]}}, "competitive": {team: {eve: [...]}}}``
        with each game's metrics as :func:`cluegym.envs.decrypto.rules.metrics` returns them.
    """
    roles = {label: role_specs(spec, k) for label, spec in agents.items()}
    cells = [("cooperative", a, b) for a in agents for b in agents] + [("competitive", a, e) for a in agents for e in agents]
    table: dict[str, dict[str, dict[str, list[dict]]]] = {"cooperative": {}, "competitive": {}}
    bar = tqdm(total=len(cells) * seeds, desc="figure 3", unit="match", disable=not progress)
    for kind, row, col in cells:
        if kind == "cooperative":
            seats = {"alice": roles[row]["alice"], "bob": roles[col]["bob"], "eve": eve}
        else:
            seats = {"alice": roles[row]["alice"], "bob": roles[row]["bob"], "eve": roles[col]["eve"]}
        runs = []
        for seed in range(seeds):
            summary = run_match("decrypto", seats, games=games, seed=seed, progress=False)
            runs.append(summary["metrics"])
            bar.update(1)
        table[kind].setdefault(row, {})[col] = runs
    bar.close()
    return table


def cell_stats(runs: list[dict], kind: str) -> dict[str, tuple[float, float]]:
    """The cell's event share (miscommunication or interception endings) and average length."""
    event = "miscommunication_end_rate" if kind == "cooperative" else "interception_end_rate"
    return {"event": mean_sem([r[event] for r in runs]), "len": mean_sem([r["avg_turns"] for r in runs])}


def format_table(table: dict[str, Any]) -> str:
    """Both matrices as text: rows = encoder (team), columns = decoder (interceptor)."""
    out = []
    for kind, rows_name, cols_name, event in (
        ("cooperative", "encoder \\ decoder", "decoder", "% ending in miscommunication"),
        ("competitive", "team \\ interceptor", "interceptor", "% ending in interception"),
    ):
        rows = list(table[kind])
        cols = list(next(iter(table[kind].values())))
        out.append(f"{kind}: {event}, average game length (mean +- s.e. over seeds)")
        header = f"{rows_name:>20} | " + " | ".join(f"{c:>24}" for c in cols)
        out += [header, "-" * len(header)]
        for r in rows:
            cells = []
            for c in cols:
                s = cell_stats(table[kind][r][c], kind)
                cells.append(f"{100 * s['event'][0]:5.1f}+-{100 * s['event'][1]:4.1f} {s['len'][0]:5.2f}+-{s['len'][1]:4.2f}")
            out.append(f"{r:>20} | " + " | ".join(f"{c:>24}" for c in cells))
        out.append("")
    return "\n".join(out)


def plot(table: dict[str, Any], out: Path, title: str) -> None:
    """Four heatmaps as in the paper: cooperative (top) and competitive (bottom), event share
    (left) and average length (right)."""
    plt = pyplot()

    fig, axes = plt.subplots(2, 2, figsize=(10, 8.5))
    for i, (kind, ylabel, xlabel, event) in enumerate((
        ("cooperative", "encoder (Alice)", "decoder (Bob)", "% games ending in miscommunication"),
        ("competitive", "encoder-decoder team", "interceptor (Eve)", "% games ending in interception"),
    )):
        rows = list(table[kind])
        cols = list(next(iter(table[kind].values())))
        for j, (key, scale, label, cmap) in enumerate((("event", 100, event, "Reds"), ("len", 1, "average turns", "Blues"))):
            values = np.array([[cell_stats(table[kind][r][c], kind)[key][0] * scale for c in cols] for r in rows])
            ax = axes[i, j]
            image = ax.imshow(values, cmap=cmap, vmin=0, vmax=100 if key == "event" else 8)
            for (y, x), v in np.ndenumerate(values):
                ax.text(x, y, f"{v:.0f}" if key == "event" else f"{v:.1f}", ha="center", va="center")
            ax.set_xticks(range(len(cols)), cols, rotation=30)
            ax.set_yticks(range(len(rows)), rows)
            ax.set(xlabel=xlabel, ylabel=ylabel, title=label)
            fig.colorbar(image, ax=ax, fraction=0.046)
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, out)


def parse_agents(items: list[str] | None, default: dict[str, str] | None = None) -> dict[str, str]:
    """``["gpt=llm-cot:model=x", "glove"]`` -> ``{"gpt": "llm-cot:model=x", "glove": "glove"}``;
    no items: ``default`` (this figure's embedding baselines when None).

    Raises:
        ValueError: an item without a label or a spec, or a label given twice (the later one
            silently replaced the earlier agent).
    """
    if not items:
        return dict(DEFAULT_AGENTS if default is None else default)
    agents: dict[str, str] = {}
    for item in items:
        label, eq, spec = item.partition("=")
        if not eq or ":" in label:  # "glove:k=8" has its '=' inside the spec, not a label
            label, spec = item, item
        if not label.strip() or not spec.strip():
            raise ValueError(f"--agent {item!r}: expected LABEL=SPEC or SPEC")
        if label.strip() in agents:
            raise ValueError(f"--agent label {label.strip()!r} is given twice")
        agents[label.strip()] = spec.strip()
    return agents


def check_specs(agents: dict[str, str], k: int, eve: str) -> None:
    """Every spec as each seat plays it (:func:`role_specs`, and ``eve``) is a valid agent,
    checked before the first match (a bad one failed after the earlier cells had played).

    Raises:
        AgentSpecError: the first bad spec, its label and seat named.
    """
    check_seat_specs("decrypto", [
        *((f"--agent {label} as {seat}", seat, seat_spec)
          for label, spec in agents.items() for seat, seat_spec in role_specs(spec, k).items()),
        ("--eve", "eve", eve),
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", action="append", metavar="[LABEL=]SPEC",
                        help="an agent of the matrix (repeat; default: glove, word2vec, minilm)")
    parser.add_argument("--k", type=int, default=16, help="the embedding encoders' top-K (paper: 16)")
    parser.add_argument("--eve", default="glove", help="the fixed interceptor of the cooperative matrix (default glove)")
    parser.add_argument("--games", type=int, default=16, help="games per cell and seed (paper: 32; default 16)")
    parser.add_argument("--seeds", type=int, default=2, help="match seeds (paper: 3; default 2)")
    parser.add_argument("--out", default="decrypto_figure3.png", help="PNG path")
    parser.add_argument("--json", help="also write the per-seed metrics here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.games < 1 or args.seeds < 1 or args.k < 1:
        parser.error("--games, --seeds and --k must be >= 1")
    # every usage error before the first match: the paths written at the end, the agents
    try:
        args.out = figure_path(args.out)
        agents = parse_agents(args.agent)
        check_specs(agents, args.k, args.eve)
    except ValueError as exc:
        parser.error(str(exc))
    check_outputs(parser, {"--out": args.out, "--json": args.json})
    start = time.perf_counter()
    table = run(agents, args.k, args.eve, args.games, args.seeds, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    print(format_table(table))
    print(f"{args.games} games x {args.seeds} seeds per cell, K={args.k}, cooperative interceptor {args.eve}; "
          f"{elapsed:.0f} s")
    plot(table, Path(args.out), f"Decrypto cross-play (Figure 3), K={args.k}, Eve={args.eve} in the top row")
    print(f"plot written to {args.out}")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
