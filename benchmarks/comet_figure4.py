"""CoMet's Figure 4 (seeds/comet.txt section 4.2): Adversarial Taboo outcomes.

(a) Every method (Naive ``llm``, CoT ``llm-cot``, CoMet by default) as the attacker against
    ``--opponent`` as the defender, and as the defender against ``--opponent`` as the
    attacker: the shares of games the method won, lost and drew (no guess by the turn limit).
    The paper does not name (a)'s opponent; we use CoT (its opponent in (b)), so the CoT rows
    are CoT against itself.
(b) With ``--models``: every method as the defender on each of those models against a CoT
    attacker on ``--attacker-model`` (the paper's: GPT-4o), the paper's cross-LLM comparison.

Printed as "Role (Method)  Win  Lose  Draw" rows; the PNG has one stacked bar per row (win,
draw, lose), as the paper's figure. Games per match: ``--games`` (seeded target draws from the
shipped nouns, or ``--targets``). The paper's CoMet defender rule applies (guess only on a
repeated suspicion; no forced guess on the last turn).

Usage:
    python -m cluegym.benchmarks.comet_figure4 --base-url http://127.0.0.1:8000/v1 --model gpt-4o \\
        --games 100 --out figure4.png
    python -m cluegym.benchmarks.comet_figure4 --base-url URL --model gpt-4o --games 100 \\
        --models "qwen2.5-72b;llama3.3-70b" --attacker-model gpt-4o
    python -m cluegym.benchmarks.comet_figure4 --methods "GloVe=glove;Random=random" --opponent GloVe=glove
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from cluegym.benchmarks.comet_common import (
    add_endpoint_args, cell, endpoint_specs, own_pool, parse_methods, play_taboo, report, run_cli, with_endpoint,
)
from cluegym.benchmarks.plotting import pyplot, save_figure

__all__ = ["DEFAULT_METHODS", "format_table", "main", "outcomes", "plot", "run"]

#: Figure 4's methods.
DEFAULT_METHODS = "Naive=llm;CoT=llm-cot;CoMet=comet"
#: Who a Taboo winner is, from a seat's point of view.
OTHER_SEAT = {"attacker": "defender", "defender": "attacker"}


def outcomes(results: list[dict[str, Any]], seat: str) -> dict[str, float]:
    """Win/lose/draw shares of ``seat`` ("attacker" or "defender") over finished games' results.

    Example:
        >>> outcomes([{"winner": "attacker"}, {"winner": None}], "defender")
        {'win': 0.0, 'lose': 0.5, 'draw': 0.5, 'games': 2}
    """
    n = len(results)
    if n == 0:
        return {"win": 0.0, "lose": 0.0, "draw": 0.0, "games": 0}
    return {"win": sum(r["winner"] == seat for r in results) / n,
            "lose": sum(r["winner"] == OTHER_SEAT[seat] for r in results) / n,
            "draw": sum(r["winner"] is None for r in results) / n, "games": n}


def run(methods: dict[str, str], opponent: tuple[str, str], args: argparse.Namespace,
        progress: bool = True) -> dict[str, Any]:
    """Play Figure 4's matches.

    Args:
        methods: label -> agent spec (without endpoint).
        opponent: ``(label, spec)`` of (a)'s opponent.
        args: parsed options (games, targets, endpoint, models, seed, concurrency).
        progress: show a progress bar.

    Returns:
        ``{"a": {"Attacker (M)": outcomes, "Defender (M)": ...}, "b": {"model (M)": outcomes}
        (empty without --models), "opponent", "games"}``.

    Raises:
        ValueError: bad options, or an LLM method without an endpoint.
        RuntimeError: a game errored.
    """
    if args.games < 1:
        raise ValueError(f"--games must be >= 1, got {args.games}")
    label, spec = opponent
    if methods.get(label, spec) != spec:
        raise ValueError(f"the opponent label {label!r} names another method's spec: give it another name")
    specs = endpoint_specs({**methods, label: spec}, args)
    env_kwargs = {"targets": [w.strip() for w in args.targets.split(",") if w.strip()]} if args.targets else {}
    models = [m.strip() for m in (args.models or "").split(";") if m.strip()]
    if models and args.local:
        raise ValueError("--models compares endpoint models: it does not combine with --local")
    attacker_model = args.attacker_model or args.model
    cot_attacker = with_endpoint("llm-cot", args.base_url, attacker_model) if models else ""
    total = args.games * (2 * len(methods) + len(models) * len(methods))
    bar = tqdm(total=total, desc="comet figure 4", unit="game", disable=not progress)
    played: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def match(attacker: str, defender: str) -> list[dict[str, Any]]:
        # The same pairing (e.g. CoT vs CoT, attacker and defender rows) is played once.
        if (attacker, defender) not in played:
            played[(attacker, defender)] = play_taboo(attacker, defender, games=args.games, seed=args.seed,
                                                      env_kwargs=env_kwargs, concurrency=args.concurrency, bar=bar)
        else:
            bar.update(args.games)
        return played[(attacker, defender)]

    out: dict[str, Any] = {"a": {}, "b": {}, "opponent": label, "games": args.games,
                           "attacker_model": attacker_model if models else None}
    try:
        for method in methods:
            out["a"][f"Attacker ({method})"] = outcomes(match(specs[method], specs[label]), "attacker")
        for method in methods:
            out["a"][f"Defender ({method})"] = outcomes(match(specs[label], specs[method]), "defender")
        for model in models:
            for method, method_spec in methods.items():
                defender = own_pool(with_endpoint(method_spec, args.base_url, model), f"{method}@{model}")
                out["b"][f"{model} ({method})"] = outcomes(match(cot_attacker, defender), "defender")
    finally:
        bar.close()
    return out


def format_table(figure: dict[str, Any]) -> str:
    """Both panels as "Role (Method)  Win  Lose  Draw" rows."""
    rows = [("(a) against " + figure["opponent"], figure["a"])]
    if figure["b"]:
        rows.append((f"(b) defender against a CoT attacker ({figure['attacker_model']})", figure["b"]))
    width = max(len(k) for _, panel in rows for k in panel) + 2
    lines = []
    for title, panel in rows:
        lines += [title, f"{'Role (Method)':<{width}}{'Win':>7}{'Lose':>7}{'Draw':>7}"]
        lines += [f"{key:<{width}} " + " ".join(cell(v[k]) for k in ("win", "lose", "draw")) for key, v in panel.items()]
        lines.append("")
    return "\n".join(lines).rstrip()


def plot(figure: dict[str, Any], out: Path) -> None:
    """Stacked horizontal bars (win, draw, lose) per row, one panel per part."""
    plt = pyplot()
    panels = [("(a) against " + figure["opponent"], figure["a"])]
    if figure["b"]:
        panels.append(("(b) defender vs a CoT attacker", figure["b"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 0.5 * max(len(p) for _, p in panels) + 1.8),
                             squeeze=False)
    for ax, (title, panel) in zip(axes[0], panels):
        labels = list(panel)[::-1]
        left = [0.0] * len(labels)
        for key, color in (("win", "#4c9a2a"), ("draw", "#b0b0b0"), ("lose", "#c0392b")):
            values = [panel[k][key] * 100 for k in labels]
            ax.barh(labels, values, left=left, color=color, label=key)
            for y, (x0, v) in enumerate(zip(left, values)):
                if v >= 8:
                    ax.text(x0 + v / 2, y, f"{v:.0f}", ha="center", va="center", fontsize=8, color="white")
            left = [a + b for a, b in zip(left, values)]
        ax.set(xlim=(0, 100), xlabel="% of games", title=title)
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle(f"Adversarial Taboo outcomes ({figure['games']} games per match)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--methods", default=DEFAULT_METHODS, help='";"-separated LABEL=SPEC (default: Naive, CoT, CoMet)')
    parser.add_argument("--opponent", default="CoT=llm-cot", help="LABEL=SPEC of (a)'s opponent (default CoT=llm-cot)")
    parser.add_argument("--games", type=int, default=4, help="games per match (default 4)")
    parser.add_argument("--targets", default=None, help="comma-separated target words (default: the shipped nouns)")
    parser.add_argument("--models", default=None, help='(b): ";"-separated endpoint models to compare as defenders')
    parser.add_argument("--attacker-model", default=None, help="(b): the CoT attacker's model (default --model)")
    parser.add_argument("--out", default="comet_figure4.png", help="PNG path (default comet_figure4.png)")
    parser.add_argument("--json", help="also write the outcomes as JSON here")
    add_endpoint_args(parser)
    args = parser.parse_args(argv)

    def body() -> int:
        methods = parse_methods(args.methods)
        opponents = parse_methods(args.opponent)
        if len(opponents) != 1:
            raise ValueError("--opponent is one LABEL=SPEC")
        start = time.perf_counter()
        figure = run(methods, next(iter(opponents.items())), args)
        return report(format_table(figure), f"{args.games} games per match", start, figure, json_path=args.json,
                      plot=plot, out=args.out)

    return run_cli(body)


if __name__ == "__main__":
    raise SystemExit(main())
