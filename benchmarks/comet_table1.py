"""CoMet's Table 1 (seeds/comet.txt section 4.3): every method against each baseline, as civilians
and as undercover, with the six metrics per role and each method's Balanced Metric.

For every baseline B and method M, two matches are played on CoMet's protocol (every word
pair, ``--episodes`` games each, seeded): M's team as civilians against B's team as undercover,
and the roles swapped (one match when M is B). Players of a team share a method, as in the
paper. Printed per baseline: ``Und. (M)`` and ``Civ. (M)`` rows with WR, PPC, IISC, FER, SIAA and
OIAA, then ``Bal. (M)``: avg(civ, und) - Var(civ, und) per metric (Figure 5's data). A metric
a method cannot report (FER for an agent that reports no features, the embedding baselines'
FER) prints ``n/a``. FER, PPC and IISC are judged by the WordNet judge
(:mod:`cluegym.envs.undercover.judge`).

Paper sizes: ``--pairs 200 --episodes 10``. Small defaults (2 pairs x 1 episode) for a check.

Usage:
    python -m cluegym.benchmarks.comet_table1 --base-url http://127.0.0.1:8000/v1 --model qwen \\
        --methods "CoT=llm-cot;CoMet w/o Met.=comet:ablate=met;CoMet=comet" \\
        --baselines "CoT;CoMet w/o Met." --pairs 200 --episodes 10 --json table1.json
    python -m cluegym.benchmarks.comet_table1 --methods "GloVe=glove;Random=random" --baselines GloVe
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from cluegym.benchmarks.comet_common import (
    add_endpoint_args, cell, parse_methods, play_undercover, schedule_kwargs, with_endpoint,
)
from cluegym.envs.undercover.metrics import METRIC_NAMES, method_metrics

__all__ = ["format_table", "main", "run"]


def run(methods: dict[str, str], baselines: list[str], *, pairs: int | None, episodes: int, seed: int,
        base_url: str | None, model: str | None, concurrency: int = 4, progress: bool = True) -> dict[str, Any]:
    """Play Table 1's matches and compute its rows.

    Args:
        methods: label -> agent spec (without endpoint).
        baselines: labels (of ``methods``) to play against.
        pairs, episodes: CoMet's schedule (first ``pairs`` word pairs, ``episodes`` games each).

    Returns:
        ``{"against": {baseline: {method: {"civilian", "undercover", "balanced"}}}, "games"}``.

    Raises:
        ValueError: a baseline that is not a method, or an LLM method without an endpoint.
    """
    unknown = [b for b in baselines if b not in methods]
    if unknown:
        raise ValueError(f"baseline {unknown[0]!r} is not one of the methods: {', '.join(methods)}")
    specs = {label: with_endpoint(spec, base_url, model) for label, spec in methods.items()}
    env_kwargs, games = schedule_kwargs(pairs, episodes)
    matches = [(b, m) for b in baselines for m in methods]
    total = sum(games * (1 if m == b else 2) for b, m in matches)
    bar = tqdm(total=total, desc="comet table 1", unit="game", disable=not progress)
    out: dict[str, Any] = {"against": {}, "games_per_match": games}
    try:
        for baseline, method in matches:
            played: list[tuple[dict[str, Any], dict[str, str]]] = []
            civ_seats = {f"player_{i}": method if i < 3 else baseline for i in range(5)}
            for result in play_undercover(specs[method], specs[baseline], games=games, seed=seed,
                                          env_kwargs=env_kwargs, concurrency=concurrency, bar=bar):
                played.append((result, civ_seats))
            if method != baseline:
                und_seats = {f"player_{i}": baseline if i < 3 else method for i in range(5)}
                for result in play_undercover(specs[baseline], specs[method], games=games, seed=seed + 1,
                                              env_kwargs=env_kwargs, concurrency=concurrency, bar=bar):
                    played.append((result, und_seats))
            out["against"].setdefault(baseline, {})[method] = method_metrics(played)[method]
    finally:
        bar.close()
    return out


def format_table(table: dict[str, Any]) -> str:
    """Table 1's layout: per baseline, Und. rows, Civ. rows, then the balanced rows."""
    header = f"{'Role (Method)':<28}" + "".join(f"{name:>7}" for name in METRIC_NAMES)
    lines = [header, "-" * len(header)]
    for baseline, rows in table["against"].items():
        lines.append(f"against {baseline}")
        for role, short in (("undercover", "Und."), ("civilian", "Civ."), ("balanced", "Bal.")):
            for method, values in rows.items():
                lines.append(f"{short + ' (' + method + ')':<28}" + "".join(" " + cell(values[role].get(n))
                                                                          for n in METRIC_NAMES))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--methods", default="CoT=llm-cot;CoMet w/o Met.=comet:ablate=met;CoMet=comet",
                        help='";"-separated LABEL=SPEC (default: CoT, CoMet w/o Met., CoMet)')
    parser.add_argument("--baselines", default="CoT;CoMet w/o Met.", help='";"-separated method labels to play against')
    parser.add_argument("--pairs", type=int, default=2, help="word pairs, in the shipped order (paper: 200; default 2)")
    parser.add_argument("--episodes", type=int, default=1, help="games per pair and role assignment (paper: 10; default 1)")
    parser.add_argument("--json", help="also write the table as JSON here (comet_figure5 plots it)")
    add_endpoint_args(parser)
    args = parser.parse_args(argv)
    try:
        methods = parse_methods(args.methods)
        baselines = [b.strip() for b in args.baselines.split(";") if b.strip()]
        start = time.perf_counter()
        table = run(methods, baselines, pairs=args.pairs, episodes=args.episodes, seed=args.seed,
                    base_url=args.base_url, model=args.model, concurrency=args.concurrency)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_table(table))
    print(f"\n{table['games_per_match']} games per match ({args.pairs} pairs x {args.episodes}); "
          f"{time.perf_counter() - start:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=2))
        print(f"table written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
