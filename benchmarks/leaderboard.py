"""One leaderboard across tournaments of several games (Markdown and a static HTML page).

Each tournament folder (written by ``cluegym tournament``) holds ``ratings.json``. Agents are
matched across games by their tournament name. An agent's cross-game standing is its mean
*rank score* over the games it played, where a game's rank score is ``(n - rank) / (n - 1)``
for ``n`` rated agents (1 = first, 0 = last), so games with more entrants do not weigh more;
ties are broken by the mean head-to-head score (win 1, draw 0.5). The HTML page is one
self-contained file (the heatmaps are embedded as data URIs): it opens offline.

Example:
    >>> board = build_leaderboard(["runs/decrypto", "runs/taboo"])
    >>> print(leaderboard_markdown(board))

    cluegym leaderboard runs/decrypto runs/taboo --out runs/leaderboard
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import math
import sys
from pathlib import Path
from typing import Any, NoReturn

from cluegym.benchmarks.tournament_report import markdown_table

__all__ = ["build_leaderboard", "leaderboard_html", "leaderboard_markdown", "register_cli"]


def _load_tournament(folder: Path) -> dict[str, Any]:
    path = folder / "ratings.json"
    if not path.is_file():
        raise ValueError(f"{folder} is not a tournament folder (no ratings.json; run `cluegym tournament ... --out {folder}`)")
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not readable JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("ratings"), list) or "settings" not in data:
        raise ValueError(f"{path} is not a tournament report (no settings/ratings)")
    return data


def build_leaderboard(folders: list[str | Path]) -> dict[str, Any]:
    """Merge tournaments into one leaderboard.

    Args:
        folders: tournament folders (one per game; two of the same game are both kept, named
            by folder).

    Returns:
        ``{"games": [{"name", "folder", "game", "agents", "games_per_match", "heatmap"}],
        "rows": [{"agent", "rank", "rank_score", "score", "games_played", "per_game": {name: {...}}}]}``,
        rows best first.

    Raises:
        ValueError: no folder, or a folder that holds no tournament report.
    """
    if not folders:
        raise ValueError("give at least one tournament folder")
    games: list[dict[str, Any]] = []
    per_agent: dict[str, dict[str, dict[str, Any]]] = {}
    for folder in map(Path, folders):
        data = _load_tournament(folder)
        game = data["settings"]["game"]
        name = game if all(g["game"] != game for g in games) else f"{game} ({folder.name})"
        ratings = data["ratings"]
        n = len(ratings)
        heatmap = folder / "head_to_head.png"
        games.append({"name": name, "folder": str(folder), "game": game, "agents": n,
                      "games_per_match": data["settings"]["games"],
                      "heatmap": heatmap if heatmap.is_file() else None})
        for row in ratings:
            per_agent.setdefault(row["agent"], {})[name] = {
                "rank": row["rank"], "of": n, "ordinal": row["ordinal"], "mu": row["mu"], "sigma": row["sigma"],
                "score": row["score"], "games": row["games"],
                "rank_score": (n - row["rank"]) / (n - 1) if n > 1 else 1.0,
                "spec": data["settings"]["agents"].get(row["agent"], ""),
            }
    rows = []
    for agent, cells in per_agent.items():
        scores = [c["score"] for c in cells.values() if c["score"] is not None]
        rows.append({
            "agent": agent, "rank_score": sum(c["rank_score"] for c in cells.values()) / len(cells),
            "score": sum(scores) / len(scores) if scores else math.nan, "games_played": len(cells), "per_game": cells,
        })
    rows.sort(key=lambda r: (-r["rank_score"], -(r["score"] if r["score"] == r["score"] else -1.0), r["agent"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return {"games": games, "rows": rows}


def _cell(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "-"
    return f"#{cell['rank']}/{cell['of']} ({cell['ordinal']:.1f})"


def leaderboard_markdown(board: dict[str, Any]) -> str:
    """The leaderboard as Markdown: one row per agent, one column per game (rank and ordinal)."""
    names = [g["name"] for g in board["games"]]
    table = markdown_table(
        ["rank", "agent", "rank score", "mean score", *names],
        [[r["rank"], r["agent"], r["rank_score"], r["score"], *(_cell(r["per_game"].get(n)) for n in names)]
         for r in board["rows"]],
    )
    legend = ("Per game: rank among its entrants and OpenSkill ordinal (mu - 3 sigma). Rank score: mean over the "
              "games played of (n - rank) / (n - 1). Mean score: head-to-head points per game (win 1, draw 0.5).")
    sources = ", ".join(f"{g['name']}: {g['folder']} ({g['agents']} agents, {g['games_per_match']} games per match)"
                        for g in board["games"])
    return f"# Leaderboard\n\n{table}\n\n{legend}\n\nTournaments: {sources}.\n"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: .35em .7em; text-align: right; }
th { background: #f2f2f2; } td.name { text-align: left; font-weight: 600; }
td.first { background: #d9f2d9; } figure { display: inline-block; margin: 1em; }
figcaption { text-align: center; font-size: .9em; color: #555; } .note { color: #555; font-size: .9em; }
"""


def leaderboard_html(board: dict[str, Any]) -> str:
    """The leaderboard as one self-contained HTML page (heatmaps embedded)."""
    names = [g["name"] for g in board["games"]]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["rank", "agent", "rank score", "mean score", *names])
    body = []
    for row in board["rows"]:
        cells = [f"<td>{row['rank']}</td>", f"<td class='name'>{html.escape(row['agent'])}</td>",
                 f"<td>{row['rank_score']:.2f}</td>", f"<td>{row['score']:.2f}</td>"]
        for name in names:
            cell = row["per_game"].get(name)
            title = "" if cell is None else (f" title='{html.escape(cell['spec'])}: mu {cell['mu']:.1f}, "
                                             f"sigma {cell['sigma']:.1f}, {cell['games']} games'")
            css = " class='first'" if cell is not None and cell["rank"] == 1 else ""
            cells.append(f"<td{css}{title}>{html.escape(_cell(cell))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    figures = []
    for game in board["games"]:
        if game["heatmap"] is None:
            continue
        data = base64.b64encode(Path(game["heatmap"]).read_bytes()).decode("ascii")
        figures.append(f"<figure><img alt='{html.escape(game['name'])} head to head' width='420' "
                       f"src='data:image/png;base64,{data}'><figcaption>{html.escape(game['name'])}: head to head"
                       f"</figcaption></figure>")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>cluegym leaderboard</title>"
        f"<style>{_STYLE}</style></head><body><h1>cluegym leaderboard</h1>"
        f"<table id='leaderboard'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        "<p class='note'>Per game: rank among its entrants and OpenSkill ordinal (mu - 3 sigma); hover for mu, "
        "sigma and games. Rank score: mean over the games played of (n - rank) / (n - 1). Mean score: "
        "head-to-head points per game (win 1, draw 0.5).</p>"
        f"{''.join(figures)}</body></html>\n"
    )


def _usage_error(message: str) -> NoReturn:
    print(" ".join(f"cluegym: error: {message}".split()), file=sys.stderr)
    raise SystemExit(2)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """``cluegym leaderboard DIR...``: print the Markdown; with ``--out``, write .md and .html."""
    try:
        board = build_leaderboard(args.folders)
    except ValueError as exc:
        _usage_error(str(exc))
    text = leaderboard_markdown(board)
    print(text)
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "leaderboard.md").write_text(text)
            (out / "leaderboard.html").write_text(leaderboard_html(board))
        except OSError as exc:
            _usage_error(f"--out {out} is not writable ({exc.strerror or exc})")
        print(f"written {out}/leaderboard.md and {out}/leaderboard.html")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add ``cluegym leaderboard``."""
    parser = subparsers.add_parser("leaderboard", help="merge tournaments of several games into one leaderboard",
                                   description="Merge `cluegym tournament` folders (one per game) into a "
                                               "cross-game leaderboard: Markdown, and with --out a static HTML page.")
    parser.add_argument("folders", nargs="+", metavar="DIR", help="tournament folders (each holds ratings.json)")
    parser.add_argument("--out", help="write leaderboard.md and leaderboard.html into this folder")
    parser.set_defaults(func=cmd_leaderboard)
