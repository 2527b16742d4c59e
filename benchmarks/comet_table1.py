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
import time
from typing import Any

from tqdm.auto import tqdm

from cluegym.benchmarks.comet_common import (
    add_endpoint_args, add_schedule_args, cell, endpoint_specs, parse_labels, parse_methods, play_both_roles,
    report, run_cli, schedule_kwargs,
)
from cluegym.envs.undercover.metrics import METRIC_NAMES, method_metrics

__all__ = ["DEFAULT_BASELINES", "DEFAULT_METHODS", "add_table1_args", "format_table", "main", "run"]

#: Table 1's methods and baselines.
DEFAULT_METHODS = "CoT=llm-cot;CoMet w/o Met.=comet:ablate=met;CoMet=comet"
DEFAULT_BASELINES = "CoT;CoMet w/o Met."


def run(methods: dict[str, str], baselines: list[str], args: argparse.Namespace,
        progress: bool = True) -> dict[str, Any]:
    """Play Table 1's matches and compute its rows.

    Args:
        methods: label -> agent spec (without endpoint).
        baselines: labels (of ``methods``) to play against.
        args: the parsed options of :func:`add_table1_args` (schedule, endpoint, seed,
            concurrency).
        progress: show a progress bar.

    Returns:
        ``{"against": {baseline: {method: {"civilian", "undercover", "balanced"}}},
        "games_per_match"}``.

    Raises:
        ValueError: a baseline that is not a method, or an LLM method without an endpoint.
        RuntimeError: a game errored (a dead endpoint).
    """
    baselines = parse_labels(";".join(baselines), methods)
    specs = endpoint_specs(methods, args)
    env_kwargs, games = schedule_kwargs(args.pairs, args.episodes)
    matches = [(b, m) for b in baselines for m in methods]
    total = sum(games * (1 if m == b else 2) for b, m in matches)
    bar = tqdm(total=total, desc="comet table 1", unit="game", disable=not progress)
    out: dict[str, Any] = {"against": {}, "games_per_match": games}
    try:
        for baseline, method in matches:
            played = play_both_roles(method, baseline, specs, games=games, seed=args.seed, env_kwargs=env_kwargs,
                                     concurrency=args.concurrency, bar=bar)
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


def add_table1_args(parser: argparse.ArgumentParser) -> None:
    """Table 1's options: ``--methods``, ``--baselines``, the schedule and the endpoint."""
    parser.add_argument("--methods", default=DEFAULT_METHODS,
                        help='";"-separated LABEL=SPEC (default: CoT, CoMet w/o Met., CoMet)')
    parser.add_argument("--baselines", default=DEFAULT_BASELINES, help='";"-separated method labels to play against')
    add_schedule_args(parser)
    add_endpoint_args(parser)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_table1_args(parser)
    parser.add_argument("--json", help="also write the table as JSON here (comet_figure5 plots it)")
    args = parser.parse_args(argv)

    def body() -> int:
        methods = parse_methods(args.methods)
        start = time.perf_counter()
        table = run(methods, args.baselines.split(";"), args)
        return report(format_table(table), f"{table['games_per_match']} games per match ({args.pairs} pairs x "
                      f"{args.episodes})", start, table, json_path=args.json)

    return run_cli(body)


if __name__ == "__main__":
    raise SystemExit(main())
