"""CoMet's Table 2 (seeds/comet.txt section 4.3): the ablation study in Undercover.

Every CoMet variant (the agent's ``ablate=`` option drops modules: ``met`` is the
hypothesis-based metaphor reasoner and the metaphor generator, ``fe`` the feature extractor,
``bm`` the belief mapper, ``sm`` the self-monitor, ``sp`` the strategy planner) plays
``--baseline`` in both roles on CoMet's protocol (every word pair, ``--episodes`` games each,
seeded), exactly as Table 1 pairs methods. Printed in the paper's layout: a check mark per
module the variant keeps, then the win rate.

The paper prints one "Win Rate" per variant and does not say against whom or in which role.
We print the win rate as civilian, as undercover, their mean (``WR``: both roles weigh the
same, the headline column) and the Balanced Metric ``avg - Var``. The opponent is CoT by
default (``--baseline``).

Paper sizes: ``--pairs 200 --episodes 10``. Small defaults (2 pairs x 1 episode) for a check.

Usage:
    python -m cluegym.benchmarks.comet_table2 --base-url http://127.0.0.1:8000/v1 --model qwen \\
        --pairs 200 --episodes 10 --json table2.json
    python -m cluegym.benchmarks.comet_table2 --base-url URL --model M \\
        --variants "CoMet=comet;CoMet w/o SM=comet:ablate=sm" --baseline "CoMet w/o Met.=comet:ablate=met"
"""

from __future__ import annotations

import argparse
import re
import time
from typing import Any

from tqdm.auto import tqdm

from cluegym.agents.llm.comet import MODULES
from cluegym.benchmarks.comet_common import (
    add_endpoint_args, add_schedule_args, cell, endpoint_specs, parse_methods, play_both_roles, report, run_cli,
    schedule_kwargs,
)
from cluegym.envs.undercover.metrics import method_metrics

__all__ = ["DEFAULT_VARIANTS", "format_table", "kept_modules", "main", "run"]

#: Table 2's rows: CoMet and its ablations, in the paper's order.
DEFAULT_VARIANTS = (
    "CoMet=comet;CoMet w/o Met.=comet:ablate=met;CoMet w/o Met.&FE=comet:ablate=met+fe;"
    "CoMet w/o Met.&BM=comet:ablate=met+bm;CoMet w/o Met.&SP=comet:ablate=met+sp;"
    "CoMet w/o Met.&SM=comet:ablate=met+sm"
)
#: Table 2's module columns, in the paper's order.
COLUMNS = ("met", "fe", "bm", "sm", "sp")


def kept_modules(spec: str) -> dict[str, bool] | None:
    """Which CoMet modules a spec keeps (None for a spec that is not CoMet).

    Example:
        >>> kept_modules("comet:ablate=met+sm")
        {'met': False, 'fe': True, 'bm': True, 'sm': False, 'sp': True}
    """
    name, _, options = spec.partition(":")
    if name != "comet":
        return None
    match = re.search(r"(?:^|,)ablate=([^,]*)", options)
    dropped = {m for m in re.split(r"[+/ ]", match.group(1).lower()) if m} if match else set()
    return {m: m not in dropped for m in COLUMNS if m in MODULES}


def run(variants: dict[str, str], baseline: tuple[str, str], args: argparse.Namespace,
        progress: bool = True) -> dict[str, Any]:
    """Play every variant against the baseline in both roles.

    Args:
        variants: label -> CoMet spec (without endpoint).
        baseline: ``(label, spec)`` of the opponent.
        args: parsed options (schedule, endpoint, seed, concurrency).
        progress: show a progress bar.

    Returns:
        ``{"baseline", "games_per_match", "rows": {label: {"modules", "civilian", "undercover",
        "WR", "balanced"}}}`` (win rates; the full six metrics per role under ``metrics``).

    Raises:
        ValueError: an LLM variant without an endpoint, or a baseline label used by a variant.
        RuntimeError: a game errored.
    """
    label, spec = baseline
    if label in variants:
        raise ValueError(f"the baseline label {label!r} is also a variant: give it another name")
    specs = endpoint_specs({**variants, label: spec}, args)
    env_kwargs, games = schedule_kwargs(args.pairs, args.episodes)
    bar = tqdm(total=2 * games * len(variants), desc="comet table 2", unit="game", disable=not progress)
    rows: dict[str, Any] = {}
    try:
        for variant in variants:
            played = play_both_roles(variant, label, specs, games=games, seed=args.seed, env_kwargs=env_kwargs,
                                     concurrency=args.concurrency, bar=bar)
            found = method_metrics(played)[variant]
            civ, und = found["civilian"]["WR"], found["undercover"]["WR"]
            rows[variant] = {"modules": kept_modules(variants[variant]), "civilian": civ, "undercover": und,
                             "WR": (civ + und) / 2, "balanced": found["balanced"]["WR"], "metrics": found}
    finally:
        bar.close()
    return {"baseline": label, "games_per_match": games, "rows": rows}


def format_table(table: dict[str, Any]) -> str:
    """Table 2's layout: module check marks, then the win rates."""
    width = max([len("Method")] + [len(v) for v in table["rows"]]) + 2
    header = (f"{'Method':<{width}}" + "".join(f"{m.upper() if m != 'met' else 'Met.':>6}" for m in COLUMNS)
              + "".join(f"{h:>8}" for h in ("WR", "WR civ", "WR und", "Bal. WR")))
    lines = [f"against {table['baseline']}", header, "-" * len(header)]
    for label, row in table["rows"].items():
        marks = "".join(f"{'-' if row['modules'] is None else ('✓' if row['modules'][m] else '×'):>6}" for m in COLUMNS)
        lines.append(f"{label:<{width}}{marks}" + "".join(
            "  " + cell(row[k]) for k in ("WR", "civilian", "undercover", "balanced")))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default=DEFAULT_VARIANTS,
                        help='";"-separated LABEL=SPEC (default: CoMet and the paper\'s five ablations)')
    parser.add_argument("--baseline", default="CoT=llm-cot", help="LABEL=SPEC of the opponent (default CoT=llm-cot)")
    parser.add_argument("--json", help="also write the table as JSON here")
    add_schedule_args(parser)
    add_endpoint_args(parser)
    args = parser.parse_args(argv)

    def body() -> int:
        variants = parse_methods(args.variants)
        opponents = parse_methods(args.baseline)
        if len(opponents) != 1:
            raise ValueError("--baseline is one LABEL=SPEC")
        baseline = next(iter(opponents.items()))
        start = time.perf_counter()
        table = run(variants, baseline, args)
        return report(format_table(table), f"{table['games_per_match']} games per role ({args.pairs} pairs x "
                      f"{args.episodes})", start, table, json_path=args.json)

    return run_cli(body)


if __name__ == "__main__":
    raise SystemExit(main())
