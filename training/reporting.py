"""What a run leaves behind for people: the learning curve, ``eval.csv`` and a markdown table.

Example:
    >>> plot_curve(summary["curve"], summary["metric"], "runs/eve/curve.png", baselines=summary["baselines"])
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

__all__ = ["plot_curve", "write_eval_csv", "report_table"]


def plot_curve(rows: list[dict[str, Any]], metric: str, path: str | Path, *, title: str = "",
               baselines: dict[str, float] | None = None) -> Path:
    """Save a learning curve (metric vs env steps) with baselines as dashed lines."""
    # Deferred on purpose: pyplot is heavy, and the Agg backend must be chosen before it loads.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([r["steps"] for r in rows], [r[metric] for r in rows], marker="o", label="learner")
    for i, (name, value) in enumerate((baselines or {}).items()):
        ax.axhline(value, linestyle="--", color=f"C{i + 1}", label=name)
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel(metric.replace("_", " "))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def report_table(summary: dict[str, Any], learner: str, baselines: dict[str, str], out: str | Path) -> str:
    """A demonstration's markdown table (untrained, trained, baselines), saved and printed.

    Args:
        summary: what :func:`~cluegym.training.train.train` returned.
        learner: the first column's header, e.g. ``"player_0 voter (100 eval games)"``.
        baselines: row label -> baseline spec evaluated by the run (``summary["baselines"]``).
        out: run folder; the table goes to ``out/table.md``.

    Returns:
        The table.
    """
    metric = summary["metric"]
    lines = [f"| {learner} | {metric.replace('_', ' ')} | env steps | train min |", "|---|---|---|---|",
             f"| untrained policy | {summary['untrained'][metric]:.3f} | 0 | 0 |",
             f"| trained ({summary['config']['algo']}) | {summary['final'][metric]:.3f} | {summary['steps']} "
             f"| {summary['train_minutes']:.1f} |"]
    lines += [f"| {label} | {summary['baselines'][spec]:.3f} | - | - |" for label, spec in baselines.items()]
    table = "\n".join(lines)
    Path(out, "table.md").write_text(table + "\n")
    print(f"\n{table}\n\ncurve: {Path(out, 'curve.png')}")
    return table


def write_eval_csv(rows: list[dict[str, Any]], path: str | Path) -> Path:
    """Write every evaluation point (steps, training minutes, metrics) as CSV; the columns are
    the union of the rows' keys, in first-seen order."""
    path = Path(path)
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        writer.writeheader()
        writer.writerows(rows)
    return path
