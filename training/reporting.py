"""What a run leaves behind for people: the learning curve, ``eval.csv`` and a markdown table,
and what a run that stopped before its end keeps (:func:`keep_stopped_run`).

Example:
    >>> from pathlib import Path
    >>> summary = {"metric": "interception_rate", "baselines": {"glove": 0.35, "random": 0.04},
    ...            "curve": [{"steps": 0, "interception_rate": 0.05}, {"steps": 512, "interception_rate": 0.12}]}
    >>> Path("runs/eve").mkdir(parents=True, exist_ok=True)
    >>> plot_curve(summary["curve"], summary["metric"], "runs/eve/curve.png", baselines=summary["baselines"])
    PosixPath('runs/eve/curve.png')
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

__all__ = ["plot_curve", "write_eval_csv", "report_table", "keep_stopped_run"]


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


def keep_stopped_run(out: str | Path, rows: list[dict[str, Any]], steps: int, error: BaseException) -> str:
    """Keep what a run that stopped before its end did, and say so on ``error``.

    A run stopped by an error or Ctrl-C (an evaluation whose games errored, a broken
    opponent, a full disk) used to leave its checkpoints without the curve that measured
    them: the evaluations so far lived only in memory. This writes them to ``out/eval.csv``
    and adds a note to ``error`` (shown by ``cluegym train``) naming what the folder keeps.
    No ``summary.json`` is written: that file stands for a finished run, and a stopped run
    has no final number.

    Args:
        out: the run's folder (already claimed).
        rows: the evaluations so far (curve points), possibly none.
        steps: env steps trained when the run stopped.
        error: the exception that stopped the run; the note is added to it.

    Returns:
        The note.

    Example:
        >>> from pathlib import Path
        >>> Path("runs/eve").mkdir(parents=True, exist_ok=True)  # the run's folder, claimed at its start
        >>> keep_stopped_run("runs/eve", [{"steps": 0, "interception_rate": 0.1}], 512, KeyboardInterrupt())  # doctest: +ELLIPSIS
        'the run stopped after 512 env steps, before its summary.json; runs/eve keeps eval.csv (1 evaluation)...'
    """
    folder = Path(out)
    kept = []
    if rows:
        write_eval_csv(rows, folder / "eval.csv")
        kept.append(f"eval.csv ({len(rows)} evaluation{'s' if len(rows) != 1 else ''})")
    checkpoint_steps = [int(m.group(1)) for p in (folder / "checkpoints").glob("step_*")
                        if (m := re.fullmatch(r"step_(\d+)(\.zip)?", p.name))]
    if checkpoint_steps:
        kept.append(f"checkpoints/ (the last at step {max(checkpoint_steps):,})")
    for name in ("policy.zip", "checkpoint"):
        if (folder / name).exists():
            kept.append(f"{name} (saved, not evaluated)")
    note = (f"the run stopped after {steps:,} env steps, before its summary.json; {folder} keeps "
            f"{', '.join(kept) or 'only its config.json'}; rerunning into it needs --overwrite (overwrite=True)")
    error.add_note(note)
    return note
