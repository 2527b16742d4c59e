"""The files a tournament writes: ratings (Markdown, JSON), head-to-head (CSV, heatmap), games.

Every file is written through a temporary file and renamed, so a kill leaves the old report or
the new one. The heatmap follows the papers' head-to-head figures: one cell per pair, the row
agent's score against the column agent, annotated, on a red (loses) to green (wins) scale.

Example:
    A tiny tournament (it writes these files itself), its games read back and reported again
    into another folder:

    >>> import json
    >>> from cluegym.benchmarks.tournament import run_tournament
    >>> report = run_tournament("taboo", {"glove": "glove", "rand": "random"}, games=4, seed=0,
    ...                         out_dir="runs/taboo", progress=False)
    >>> outcomes = [GameOutcome(**{k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(line).items()})
    ...             for line in Path("runs/taboo/games.jsonl").read_text().splitlines()]
    >>> outcomes[0]
    GameOutcome(match='000-glove-vs-rand', index=0, agents=('glove', 'rand'), sides=('attacker', 'defender'), scores=(1.0, -1.0))
    >>> Path("runs/report").mkdir(parents=True, exist_ok=True)
    >>> write_reports(Path("runs/report"), report, outcomes)
    >>> sorted(path.name for path in Path("runs/report").iterdir())
    ['games.jsonl', 'head_to_head.csv', 'head_to_head.png', 'ratings.json', 'ratings.md']
    >>> print(format_report(report))
    # taboo tournament
    <BLANKLINE>
    2 agents, 4 games per match and orientation, seed 0; sides: attacker (attacker) vs defender (defender).
    ...
    | rank | agent | spec | ordinal | mu | sigma | 95% interval | games | W | D | L | score |
    |---|---|---|---|---|---|---|---|---|---|---|---|
    | 1 | glove | `glove` | 8.81 | 30.61 | 7.27 | 16.4 .. 44.9 | 8 | 4 | 4 | 0 | 0.75 |
    | 2 | rand | `random` | -2.41 | 19.39 | 7.27 | 5.1 .. 33.6 | 8 | 0 | 4 | 4 | 0.25 |
    ...
    | 000-glove-vs-rand | glove | rand | 4 | 0 | yes |
    | 001-rand-vs-glove | rand | glove | 4 | 0 | yes |
    <BLANKLINE>
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")  # files only: never open a window, whatever the user's backend
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the backend

from cluegym.benchmarks.ratings import GameOutcome  # noqa: E402
from cluegym.harness.results import write_bytes_atomic, write_json_atomic  # noqa: E402

__all__ = ["format_report", "heatmap_png", "markdown_table", "strict_json", "write_reports"]


def _number(value: Any, digits: int = 2) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _cell_text(text: str) -> str:
    """``text`` as one Markdown table cell: a ``|`` (a folder or agent name may hold one) would
    end the cell early and a line break the row, so they are escaped and joined."""
    return " ".join(text.replace("|", "\\|").split("\n"))


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], digits: int = 2) -> str:
    """A GitHub Markdown table; floats shown with ``digits`` decimals, NaN as ``-``; a ``|`` in a
    cell is escaped (``\\|``) and a line break becomes a space.

    Example:
        >>> print(markdown_table(["a", "b"], [[1, 0.5], ["x|y", 2]]))
        | a | b |
        |---|---|
        | 1 | 0.50 |
        | x\\|y | 2 |
    """
    lines = ["| " + " | ".join(map(_cell_text, headers)) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cell_text(_number(v, digits)) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def format_report(report: dict[str, Any]) -> str:
    """The tournament report as Markdown: ratings, head-to-head, per role, per match."""
    settings = report["settings"]
    sides = " vs ".join(f"{s['name']} ({', '.join(s['seats'])})" for s in report["sides"])
    parts = [
        f"# {settings['game']} tournament",
        "",
        f"{len(settings['agents'])} agents, {settings['games']} games per match and orientation, seed "
        f"{settings['seed']}; sides: {sides}.",
        "",
        "## Ratings (OpenSkill Plackett-Luce, adjusted for the side; sorted by ordinal = mu - 3 sigma; "
        "interval mu +- 1.96 sigma)",
        "",
        markdown_table(
            ["rank", "agent", "spec", "ordinal", "mu", "sigma", "95% interval", "games", "W", "D", "L", "score"],
            [[r["rank"], r["agent"], f"`{settings['agents'][r['agent']]}`", r["ordinal"], r["mu"], r["sigma"],
              f"{r['low']:.1f} .. {r['high']:.1f}", r["games"], r["wins"], r["draws"], r["losses"], r["score"]]
             for r in report["ratings"]],
        ),
        "",
        "Each team also holds a virtual player for its side, rated with the agents: it absorbs the side's "
        "advantage (below), so an agent that plays only one side is rated fairly.",
        "",
        markdown_table(["side", "mu", "sigma", "games", "W", "D", "L", "score"],
                       [[r["side"], r["mu"], r["sigma"], r["games"], r["wins"], r["draws"], r["losses"], r["score"]]
                        for r in report.get("side_ratings", [])]),
        "",
        "## Head to head (row agent's score against the column agent: win 1, draw 0.5)",
        "",
    ]
    h2h = report["head_to_head"]
    parts.append(markdown_table(["", *h2h["agents"]], [[name, *row] for name, row in zip(h2h["agents"], h2h["score"])]))
    parts += ["", "## Per role", ""]
    parts.append(markdown_table(
        ["agent", "side", "games", "W", "D", "L", "score", "mean side score"],
        [[r["agent"], r["side"], r["games"], r["wins"], r["draws"], r["losses"], r["score"], r["mean_side_score"]]
         for r in report["per_role"]],
    ))
    if report.get("agent_metrics"):
        keys = sorted({k for values in report["agent_metrics"].values() for k in values})
        parts += ["", "## The game's own metrics per agent (weighted over matches)", ""]
        parts.append(markdown_table(["agent", *keys], [[name, *(values.get(k, math.nan) for k in keys)]
                                                       for name, values in report["agent_metrics"].items()]))
    parts += ["", "## Matches", ""]
    parts.append(markdown_table(
        ["match", *(s["name"] for s in report["sides"]), "games", "errored", "ok"],
        [[m["id"], *m["agents"], m["games"], m["errored"], "yes" if m["ok"] else "no"] for m in report["matches"]],
    ))
    if report.get("skipped"):
        parts += ["", f"Skipped (an agent cannot play that side): {', '.join(report['skipped'])}"]
    if report.get("problems"):
        parts += ["", "Problems: " + "; ".join(report["problems"])]
    return "\n".join(parts) + "\n"


def heatmap_png(h2h: dict[str, Any], title: str) -> bytes:
    """The head-to-head matrix as an annotated heatmap (PNG bytes)."""
    names, score = h2h["agents"], h2h["score"]
    n = len(names)
    size = max(3.5, 0.9 * n + 1.8)
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    try:
        masked = [[math.nan if v is None else v for v in row] for row in score]
        image = ax.imshow(masked, cmap="RdYlGn", vmin=0.0, vmax=1.0)
        ax.set_xticks(range(n), labels=names, rotation=35, ha="right")
        ax.set_yticks(range(n), labels=names)
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent")
        for i in range(n):
            for j in range(n):
                value = masked[i][j]
                text = "-" if math.isnan(value) else f"{100 * value:.0f}%\n({h2h['games'][i][j]})"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="black")
        ax.set_title(title, fontsize=10)
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="score (win 1, draw 0.5)")
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110)
    finally:
        plt.close(fig)
    return buffer.getvalue()


def write_reports(out: Path, report: dict[str, Any], outcomes: Sequence[GameOutcome]) -> None:
    """Write ``games.jsonl``, ``head_to_head.csv``/``.png``, ``ratings.md`` and ``ratings.json``."""
    lines = "".join(json.dumps(asdict(o)) + "\n" for o in outcomes)
    write_bytes_atomic(out / "games.jsonl", lines.encode())
    h2h = report["head_to_head"]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["agent \\ opponent", *h2h["agents"]])
    for name, row in zip(h2h["agents"], h2h["score"]):
        writer.writerow([name, *("" if math.isnan(v) else f"{v:.4f}" for v in row)])
    write_bytes_atomic(out / "head_to_head.csv", buffer.getvalue().encode())
    game = report["settings"]["game"]
    write_bytes_atomic(out / "head_to_head.png", heatmap_png(h2h, f"{game}: row agent's score vs column agent"))
    write_bytes_atomic(out / "ratings.md", format_report(report).encode())
    write_json_atomic(out / "ratings.json", strict_json(report))


def strict_json(value: Any) -> Any:
    """``value`` with every non-finite float as ``None`` (JSON has no NaN: a pair that never met
    is null) and tuples as lists."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value
