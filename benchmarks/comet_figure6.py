"""CoMet's Figure 6 (seeds/comet.txt section 4.3): metaphor reasoning and generation in Undercover.

(a) The metaphor reasoner's method (the CoMet agent's ``reasoning=`` option):
    hypothesis-based reasoning (HR, the paper's), direct understanding (DU) and replace-based
    reasoning (RR, Tong et al. 2024). Each variant plays ``--baseline`` in both roles, as in
    Table 1. The paper plots "effectiveness" without naming the measure; we print the
    understanding metrics the reasoner feeds (balanced FER and OIAA), the balanced win rate
    and the metaphor success rate.
(b) The metaphor success rate (the share of a method's metaphors that misled every opponent
    while being recognized by every teammate, judged from the others' belief reports and
    votes: :func:`cluegym.agents.llm.comet.feedback.metaphor_feedback`) with 0, 50 and 100
    experiences. First CoMet plays itself (``--learn-games`` at most) and stores each metaphor
    with its feedback and revision in a JSONL pool until the pool holds the largest count;
    then CoMet with ``max_experiences=N, learn=false`` (only the pool's first N entries
    visible, nothing added) plays ``--baseline`` in both roles for every N.

Printed as tables; the PNG has (a) as grouped bars and (b) as a line. Paper sizes:
``--pairs 200 --episodes 10``; the small defaults (2 pairs x 1 episode, 0/4/8 experiences,
at most 4 learning games) are a check, not an estimate.

Usage:
    python -m cluegym.benchmarks.comet_figure6 --base-url http://127.0.0.1:8000/v1 --model gpt-4o \\
        --pairs 200 --episodes 10 --experiences 0,50,100 --learn-games 60 --pool pool.jsonl --out figure6.png
    python -m cluegym.benchmarks.comet_figure6 --part b --base-url URL --model M --pool pool.jsonl
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from cluegym.agents.llm.comet import ExperiencePool
from cluegym.benchmarks.comet_common import (
    add_endpoint_args, add_schedule_args, cell, endpoint_specs, metaphor_success, parse_methods, play_both_roles,
    play_undercover, report, run_cli, schedule_kwargs, with_endpoint,
)
from cluegym.benchmarks.plotting import figure_path, pyplot, save_figure
from cluegym.benchmarks.usage import check_outputs
from cluegym.envs.undercover.metrics import method_metrics

__all__ = ["DEFAULT_VARIANTS", "accumulate", "format_table", "main", "parse_counts", "plot", "run"]

#: Figure 6(a)'s reasoning methods.
DEFAULT_VARIANTS = "HR=comet;DU=comet:reasoning=direct;RR=comet:reasoning=replace"
#: Learning games use other seeds than the evaluation matches.
LEARN_SEED_OFFSET = 1000


def parse_counts(text: str) -> list[int]:
    """``"0,50,100"`` -> ``[0, 50, 100]``.

    Raises:
        ValueError: an entry that is not an integer >= 0, or none at all.
    """
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--experiences is a comma-separated list of integers, got {text!r}") from None
    if not counts or min(counts) < 0:
        raise ValueError(f"--experiences needs integers >= 0, got {text!r}")
    return sorted(set(counts))


def _row(played: list, label: str) -> dict[str, Any]:
    found = method_metrics(played)[label]
    return {"WR": found["balanced"]["WR"], "FER": found["balanced"]["FER"], "OIAA": found["balanced"]["OIAA"],
            "success": metaphor_success(played, label), "metrics": found}


def accumulate(pool_path: Path, target: int, args: argparse.Namespace, progress: bool = True) -> dict[str, int]:
    """CoMet self-play that stores every metaphor in the pool at ``pool_path`` until it holds
    ``target`` Undercover experiences or ``args.learn_games`` games were played.

    Returns:
        ``{"games": played, "experiences": the pool's size after}``.
    """
    spec = with_endpoint(f"comet:experience={pool_path}", args.base_url, args.model, args.local)
    pool = ExperiencePool(pool_path)
    played = 0
    bar = tqdm(total=args.learn_games, desc="comet figure 6 (learning)", unit="game", disable=not progress)
    try:
        while len(pool.entries("undercover")) < target and played < args.learn_games:
            batch = min(max(1, args.concurrency), args.learn_games - played)
            play_undercover(spec, spec, games=batch, seed=args.seed + LEARN_SEED_OFFSET + played, env_kwargs={},
                            concurrency=args.concurrency, bar=bar)
            played += batch
    finally:
        bar.close()
    return {"games": played, "experiences": len(pool.entries("undercover"))}


def run(args: argparse.Namespace, pool_path: Path, progress: bool = True) -> dict[str, Any]:
    """Play the parts ``args.part`` asks for.

    Returns:
        ``{"a": {label: row}, "b": {"N": row}, "learning": {...}, "baseline", "games_per_match"}``;
        a row has balanced ``WR``, ``FER``, ``OIAA``, the ``success`` counts of
        :func:`~cluegym.benchmarks.comet_common.metaphor_success` and the full ``metrics``.

    Raises:
        ValueError: bad options, or an LLM method without an endpoint.
        RuntimeError: a game errored.
    """
    opponents = parse_methods(args.baseline)
    if len(opponents) != 1:
        raise ValueError("--baseline is one LABEL=SPEC")
    label, spec = next(iter(opponents.items()))
    variants = parse_methods(args.variants) if args.part in ("a", "both") else {}
    counts = parse_counts(args.experiences) if args.part in ("b", "both") else []
    if args.learn_games < 0:
        raise ValueError(f"--learn-games must be >= 0, got {args.learn_games}")
    if label in variants:
        raise ValueError(f"the baseline label {label!r} is also a variant: give it another name")
    env_kwargs, games = schedule_kwargs(args.pairs, args.episodes)
    out: dict[str, Any] = {"a": {}, "b": {}, "learning": None, "baseline": label, "games_per_match": games}
    if variants:
        specs = endpoint_specs({**variants, label: spec}, args)
        bar = tqdm(total=2 * games * len(variants), desc="comet figure 6 (a)", unit="game", disable=not progress)
        try:
            for variant in variants:
                out["a"][variant] = _row(play_both_roles(variant, label, specs, games=games, seed=args.seed,
                                                         env_kwargs=env_kwargs, concurrency=args.concurrency, bar=bar),
                                         variant)
        finally:
            bar.close()
    if counts:
        out["learning"] = accumulate(pool_path, max(counts), args, progress)
        specs = endpoint_specs({f"{n} experiences": f"comet:experience={pool_path},max_experiences={n},learn=false"
                                for n in counts} | {label: spec}, args)
        bar = tqdm(total=2 * games * len(counts), desc="comet figure 6 (b)", unit="game", disable=not progress)
        try:
            for n in counts:
                method = f"{n} experiences"
                out["b"][str(n)] = _row(play_both_roles(method, label, specs, games=games, seed=args.seed,
                                                        env_kwargs=env_kwargs, concurrency=args.concurrency, bar=bar),
                                        method)
        finally:
            bar.close()
    return out


def format_table(figure: dict[str, Any]) -> str:
    """(a) and (b) as rows: balanced WR, FER, OIAA, then the metaphor success rate and count."""
    header = f"{'':<16}{'Bal. WR':>8}{'Bal. FER':>9}{'Bal. OIAA':>10}{'success':>9}{'metaphors':>10}"

    def line(name: str, row: dict[str, Any]) -> str:
        s = row["success"]
        return (f"{name:<16}  " + "   ".join(cell(row[k]) for k in ("WR", "FER", "OIAA"))
                + f"   {cell(s['rate'])}{s['metaphors']:>10}")

    lines = []
    if figure["a"]:
        lines += [f"(a) reasoning methods, against {figure['baseline']}", header, "-" * len(header)]
        lines += [line(k, v) for k, v in figure["a"].items()] + [""]
    if figure["b"]:
        learned = figure["learning"]
        lines += [f"(b) experiences, against {figure['baseline']} (pool: {learned['experiences']} experiences "
                  f"from {learned['games']} learning games)", header, "-" * len(header)]
        lines += [line(f"{k} experiences", v) for k, v in figure["b"].items()]
    return "\n".join(lines).rstrip()


def plot(figure: dict[str, Any], out: Path) -> None:
    """(a) grouped bars per reasoning method; (b) success rate against the experience count."""
    plt = pyplot()
    panels = [p for p in ("a", "b") if figure[p]]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        rows = figure[panel]
        if panel == "a":
            measures = (("WR", "Bal. WR"), ("FER", "Bal. FER"), ("OIAA", "Bal. OIAA"), ("success", "metaphor success"))
            width = 0.8 / len(measures)
            for j, (key, name) in enumerate(measures):
                values = [(v[key]["rate"] if key == "success" else v[key]) for v in rows.values()]
                xs = [i + (j - (len(measures) - 1) / 2) * width for i in range(len(rows))]
                ax.bar(xs, [0 if x is None else x for x in values], width, label=name)
                for x, value in zip(xs, values):
                    if value is None:  # a metric the method cannot report is marked, never drawn as 0
                        ax.text(x, 0.02, "n/a", rotation=90, ha="center", va="bottom", fontsize=7)
            ax.set_xticks(range(len(rows)), list(rows))
            ax.set(ylim=(0, 1.25), yticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
                   title=f"(a) reasoning methods vs {figure['baseline']}")
            ax.legend(fontsize=8, loc="upper center", ncol=2)
        else:
            xs = [int(k) for k in rows]
            ys = [v["success"]["rate"] for v in rows.values()]
            ax.plot([x for x, y in zip(xs, ys) if y is not None], [y for y in ys if y is not None], marker="o")
            ax.set_xticks(xs)
            ax.set(ylim=(0, 1), xlabel="experiences in the pool", ylabel="metaphor success rate",
                   title=f"(b) success rate vs experiences (vs {figure['baseline']})")
    fig.tight_layout()
    save_figure(fig, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("a", "b", "both"), default="both", help="which panel(s) to play (default both)")
    parser.add_argument("--variants", default=DEFAULT_VARIANTS, help='(a): ";"-separated LABEL=SPEC (default HR, DU, RR)')
    parser.add_argument("--baseline", default="CoT=llm-cot", help="LABEL=SPEC of the opponent (default CoT=llm-cot)")
    parser.add_argument("--experiences", default="0,4,8", help="(b): experience counts (paper: 0,50,100; default 0,4,8)")
    parser.add_argument("--learn-games", type=int, default=4,
                        help="(b): most self-play games to fill the pool (default 4)")
    parser.add_argument("--pool", default=None, help="(b): the JSONL experience pool (kept; reused when it exists). "
                                                     "Default: a temporary file")
    parser.add_argument("--out", default="comet_figure6.png", help="PNG path (default comet_figure6.png)")
    parser.add_argument("--json", help="also write the figure's data as JSON here")
    add_schedule_args(parser)
    add_endpoint_args(parser)
    args = parser.parse_args(argv)
    # before the games: --json or --out the pool's own file overwrote the experiences it keeps
    try:
        args.out = figure_path(args.out)
    except ValueError as exc:
        parser.error(str(exc))
    check_outputs(parser, {"--out": args.out, "--json": args.json}, inputs={"--pool": args.pool})
    if args.pool and args.part in ("b", "both"):
        try:  # as part (b)'s agents will open it: a folder or an unwritable file failed after part (a)'s games
            ExperiencePool.from_option(str(Path(args.pool).expanduser().resolve()))
        except ValueError as exc:
            parser.error(f"--pool: {exc}")

    def body() -> int:
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="comet_figure6_") as scratch:
            pool_path = Path(args.pool) if args.pool else Path(scratch) / "pool.jsonl"
            figure = run(args, pool_path.resolve())
        return report(format_table(figure), f"{figure['games_per_match']} games per match and role "
                      f"({args.pairs} pairs x {args.episodes})", start, figure, json_path=args.json,
                      plot=plot, out=args.out)

    return run_cli(body)


if __name__ == "__main__":
    raise SystemExit(main())
