"""CoMet's Figure 5 (seeds/comet.txt section 4.3): radar charts of every method's Balanced
Metrics in Undercover, one chart per baseline ("against CoT", "against CoMet w/o Met.").

The data are Table 1's ``Bal.`` rows: read from ``comet_table1 --json`` output (``--table``),
or played here with Table 1's own options (``--methods``, ``--baselines``, ``--pairs``,
``--episodes``, the endpoint). Each axis is one of the six metrics (WR, PPC, IISC, FER, SIAA,
OIAA) on 0..1; an axis on which some method of the chart is ``n/a`` (e.g. FER for an agent
that reports no features) is left out of that chart and named under it, never drawn as 0.

Usage:
    python -m cluegym.benchmarks.comet_table1 --base-url URL --model M --pairs 200 --episodes 10 --json t1.json
    python -m cluegym.benchmarks.comet_figure5 --table t1.json --out figure5.png
    python -m cluegym.benchmarks.comet_figure5 --methods "GloVe=glove;Random=random" --baselines GloVe
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from cluegym.benchmarks.comet_common import cell, parse_methods, run_cli
from cluegym.benchmarks.plotting import figure_path, pyplot, save_figure
from cluegym.benchmarks.comet_table1 import add_table1_args
from cluegym.benchmarks.comet_table1 import run as run_table1
from cluegym.benchmarks.usage import check_outputs
from cluegym.envs.undercover.metrics import METRIC_NAMES

__all__ = ["axes_of", "format_table", "load_table", "main", "plot"]


def load_table(path: str | Path) -> dict[str, Any]:
    """A ``comet_table1 --json`` file.

    Raises:
        ValueError: the file is not Table 1's JSON (no ``against`` rows with balanced metrics).
    """
    try:
        table = json.loads(Path(path).read_text())
        for rows in table["against"].values():
            for values in rows.values():
                if "WR" not in values["balanced"]:
                    raise KeyError("balanced WR")
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path} is not comet_table1 --json output ({type(exc).__name__}: {exc})") from None
    return table


def axes_of(rows: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The metrics every method of a chart reports (its axes) and those left out (n/a somewhere)."""
    kept = [m for m in METRIC_NAMES if all(v["balanced"].get(m) is not None for v in rows.values())]
    return kept, [m for m in METRIC_NAMES if m not in kept]


def format_table(table: dict[str, Any]) -> str:
    """The Balanced Metric rows that the charts draw."""
    header = f"{'Bal. (Method)':<28}" + "".join(f"{name:>7}" for name in METRIC_NAMES)
    lines = []
    for baseline, rows in table["against"].items():
        lines += [f"against {baseline}", header, "-" * len(header)]
        lines += [f"{method:<28}" + "".join(" " + cell(v["balanced"].get(n)) for n in METRIC_NAMES)
                  for method, v in rows.items()]
        lines.append("")
    return "\n".join(lines).rstrip()


def plot(table: dict[str, Any], out: Path) -> None:
    """One radar chart per baseline; a polygon per method over the metrics all of them report.

    Raises:
        ValueError: a chart with fewer than three metrics every method reports (no radar).
    """
    plt = pyplot()
    charts = list(table["against"].items())
    fig = plt.figure(figsize=(5.2 * len(charts), 5.4))
    for i, (baseline, rows) in enumerate(charts):
        kept, dropped = axes_of(rows)
        if len(kept) < 3:
            raise ValueError(f"against {baseline}: only {len(kept)} metric(s) reported by every method; a radar needs 3")
        angles = np.linspace(0, 2 * np.pi, len(kept), endpoint=False).tolist()
        ax = fig.add_subplot(1, len(charts), i + 1, projection="polar")
        for method, values in rows.items():
            points = [values["balanced"][m] for m in kept]
            ax.plot(angles + angles[:1], points + points[:1], label=method, linewidth=1.6)
            ax.fill(angles + angles[:1], points + points[:1], alpha=0.12)
        ax.set_xticks(angles, kept)
        ax.set_ylim(0, 1)
        ax.set_title(f"({chr(ord('a') + i)}) against {baseline}", pad=18)
        if dropped:
            ax.set_xlabel(f"n/a for some method, not drawn: {', '.join(dropped)}", labelpad=14, fontsize=8)
        ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.12), fontsize=8)
    fig.suptitle("Balanced metrics in Undercover")
    fig.tight_layout()
    save_figure(fig, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--table", help="comet_table1 --json output to plot (otherwise Table 1 is played here)")
    parser.add_argument("--out", default="comet_figure5.png", help="PNG path (default comet_figure5.png)")
    add_table1_args(parser)
    args = parser.parse_args(argv)
    # the file matplotlib writes (``--out adir`` wrote adir.png), checked before any game
    try:
        args.out = figure_path(args.out)
    except ValueError as exc:
        parser.error(str(exc))
    check_outputs(parser, {"--out": args.out}, inputs={"--table": args.table})

    def body() -> int:
        start = time.perf_counter()
        if args.table:
            table = load_table(args.table)
        else:
            table = run_table1(parse_methods(args.methods), args.baselines.split(";"), args)
        print(format_table(table))
        plot(table, Path(args.out))
        print(f"\nfigure written to {args.out}; {time.perf_counter() - start:.0f} s")
        return 0

    return run_cli(body)


if __name__ == "__main__":
    raise SystemExit(main())
