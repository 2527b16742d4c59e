"""One leaderboard across tournaments of several games (Markdown and a static HTML page).

Each tournament folder (written by ``cluegym tournament``) holds ``ratings.json``. Agents are
matched across games by their tournament name, so one name must stand for one agent spec in
every tournament (refused otherwise; a parameter set to its default counts as left out, so
``glove`` and ``glove:k=8`` are one spec in Undercover, where 8 is ``k``'s default), and a folder may be
given once. Each tournament is a
column: its game, or where several tournaments play one game, the game and the trailing part
of the folder path that tells them apart (``taboo (p/taboo)``). An agent's cross-game
standing is its mean *rank score* over the games it played, where a game's rank score is
``(n - rank) / (n - 1)`` for ``n`` rated agents (1 = first, 0 = last), so games with more
entrants do not weigh more; ties are broken by the mean head-to-head score (win 1, draw 0.5).
The HTML page is one self-contained file (the heatmaps are embedded as data URIs): it opens
offline.

Example:
    >>> from cluegym.benchmarks.tournament import run_tournament
    >>> for game in ("taboo", "undercover"):
    ...     _ = run_tournament(game, {"glove": "glove", "rand": "random"}, games=2, seed=0,
    ...                        out_dir=f"runs/{game}", progress=False)
    >>> board = build_leaderboard(["runs/taboo", "runs/undercover"])
    >>> print(leaderboard_markdown(board))  # doctest: +ELLIPSIS
    # Leaderboard
    <BLANKLINE>
    | rank | agent | rank score | mean score | taboo | undercover |
    |---|---|---|---|---|---|
    | 1 | glove | 1.00 | 0.88 | #1/2 (5.3) | #1/2 (8.7) |
    | 2 | rand | 0.00 | 0.12 | #2/2 (-1.7) | #2/2 (-5.0) |
    ...

    cluegym leaderboard runs/decrypto runs/taboo --out runs/leaderboard
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import math
from pathlib import Path, PurePath
from typing import Any

from cluegym.agents import AgentSpecError, check_agent_spec, parse_agent_spec
from cluegym.benchmarks.tournament_report import markdown_table
from cluegym.benchmarks.usage import usage_error
from cluegym.envs.core.options import declared_options
from cluegym.harness.results import write_bytes_atomic

__all__ = ["build_leaderboard", "leaderboard_html", "leaderboard_markdown", "register_cli"]


_MISSING = object()  # a key absent from the file (unlike one set to null)

#: The fields the leaderboard reads from each ``ratings`` row: JSON type and how it reads.
_ROW_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "agent": ((str,), "a string"), "rank": ((int,), "an integer"), "ordinal": ((int, float), "a number"),
    "mu": ((int, float), "a number"), "sigma": ((int, float), "a number"),
    "score": ((int, float, type(None)), "a number or null"),  # null: an agent that played no game
    "games": ((int,), "an integer"),
}


def _json_kind(value: Any) -> str:
    """How a parsed JSON value's type reads in an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "a string", list: "a list"}.get(type(value), "an object")


def _expect(path: Path, value: Any, where: str, kinds: tuple[type, ...], wanted: str) -> Any:
    """Return ``value`` when it is one of ``kinds``.

    Raises:
        ValueError: naming the file and the field (``where``), when ``value`` is missing or of
            another type (a boolean is no number, though Python's bool is an int).
    """
    if value is _MISSING:
        raise ValueError(f"{path} is not a tournament report ({where} is missing)")
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ValueError(f"{path} is not a tournament report ({where} is {_json_kind(value)}, not {wanted})")
    return value


def _load_tournament(folder: Path) -> dict[str, Any]:
    """Read a tournament folder's ``ratings.json``, checking every field the leaderboard uses.

    Raises:
        ValueError: no such file, not JSON, or a field missing or of the wrong type (one line
            naming the file and the field), checked here so that no later step meets it.
    """
    path = folder / "ratings.json"
    if not path.is_file():
        raise ValueError(f"{folder} is not a tournament folder (no ratings.json; run `cluegym tournament ... --out {folder}`)")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not readable JSON ({exc})") from None
    _expect(path, data, "the file", (dict,), "an object")
    settings = _expect(path, data.get("settings", _MISSING), "settings", (dict,), "an object")
    ratings = _expect(path, data.get("ratings", _MISSING), "ratings", (list,), "a list")
    _expect(path, settings.get("game", _MISSING), "settings.game", (str,), "a string")
    _expect(path, settings.get("games", _MISSING), "settings.games", (int,), "an integer")
    agents = _expect(path, settings.get("agents", _MISSING), "settings.agents", (dict,), "an object")
    for name, spec in agents.items():
        _expect(path, spec, f"settings.agents.{name}", (str,), "a string")
    rated: set[str] = set()
    for index, row in enumerate(ratings):
        where = f"ratings[{index}]"
        _expect(path, row, where, (dict,), "an object")
        for key, (kinds, wanted) in _ROW_FIELDS.items():
            _expect(path, row.get(key, _MISSING), f"{where}.{key}", kinds, wanted)
        if row["agent"] not in agents:  # its spec is what tells agents of one name apart
            raise ValueError(f"{path} is not a tournament report ({where}.agent {row['agent']!r} is not in "
                             f"settings.agents)")
        if row["agent"] in rated:
            raise ValueError(f"{path} is not a tournament report ({where} rates {row['agent']!r} a second time)")
        rated.add(row["agent"])
        if not 1 <= row["rank"] <= len(ratings):  # the rank score assumes ranks 1..n
            raise ValueError(f"{path} is not a tournament report ({where}.rank is {row['rank']}, not 1 to "
                             f"{len(ratings)})")
    return data


def _distinct_folders(folders: list[str | Path]) -> dict[Path, Path]:
    """The folders, resolved path -> path as given, each tournament folder once.

    Raises:
        ValueError: two arguments naming one folder (``p/taboo ./p/taboo``, or through a symlink):
            its games would count twice.
    """
    seen: dict[Path, Path] = {}
    for folder in map(Path, folders):
        try:
            real = folder.resolve()
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python < 3.13)
            raise ValueError(f"{folder} is not a tournament folder ({exc})") from None
        if real in seen:
            given = f"{folder} is given twice" if str(seen[real]) == str(folder) else \
                f"{seen[real]} and {folder} are the same tournament folder"
            raise ValueError(f"{given}; give each tournament once (it would count twice)")
        seen[real] = folder
    return seen


def _spec_key(spec: str, game: str, seats: list[str]) -> Any:
    """What makes two agent specs one agent: its name and the parameters it sets away from
    their defaults, in any order (in Undercover, ``glove`` and ``glove:k=8``, 8 being ``k``'s
    default, are one agent).

    Example:
        >>> seats = [f"player_{i}" for i in range(5)]
        >>> _spec_key("glove:k=8", "undercover", seats), _spec_key("glove:k=9, seed=1", "undercover", seats)
        (('glove', ()), ('glove', (('k', '9'), ('seed', '1'))))
    """
    try:
        name, params = parse_agent_spec(spec)
    except AgentSpecError:  # a spec this checkout cannot parse: only the same text is the same agent
        return spec.strip()
    defaults = _default_params(spec, params, game, seats)
    return name, tuple(sorted((key, value) for key, value in params.items() if key not in defaults))


def _default_params(spec: str, params: dict[str, str], game: str, seats: list[str]) -> set[str]:
    """The parameters ``spec`` sets to their default at every seat of ``game``, as this
    checkout's agents declare them; none when it cannot tell (an agent it does not know, a seat
    it does not play, or no seats: a report without its sides)."""
    if not seats:
        return set()
    defaults = set(params)
    for seat in seats:
        try:
            cls, values = check_agent_spec(spec, game=game, seat=seat)
        except AgentSpecError:
            return set()
        options = declared_options(cls, inherited=True)
        defaults = {key for key in defaults if key in options and _same_value(values.get(key), options[key].default)}
    return defaults


def _same_value(value: Any, default: Any) -> bool:
    try:
        return type(value) is type(default) and bool(value == default)
    except Exception:  # noqa: BLE001 - a value that does not compare (an array) is not the default
        return False


def _report_seats(data: dict[str, Any]) -> list[str]:
    """The seats a tournament's agents played (its sides' seats); none when the report does
    not say (hand-written, or from before the sides were written)."""
    sides = data.get("sides")
    if not isinstance(sides, list):
        return []
    seats = [seat for side in sides if isinstance(side, dict) for seat in side.get("seats") or ()]
    return seats if seats and all(isinstance(seat, str) for seat in seats) else []


def _check_agent_specs(tournaments: list[tuple[Path, dict[str, Any]]]) -> None:
    """Refuse an agent name that stands for different specs in different tournaments.

    Raises:
        ValueError: naming the first such name, its specs and their folders: matched by name,
            different agents would be averaged into one row.
    """
    uses: dict[str, dict[Any, tuple[str, list[str]]]] = {}  # name -> spec key -> (spec, folders)
    for folder, data in tournaments:
        game, seats = data["settings"]["game"], _report_seats(data)
        for row in data["ratings"]:
            spec = data["settings"]["agents"][row["agent"]]
            key = _spec_key(spec, game, seats)
            uses.setdefault(row["agent"], {}).setdefault(key, (spec, []))[1].append(str(folder))
    clashes = sorted(name for name, specs in uses.items() if len(specs) > 1)
    if not clashes:
        return
    name = clashes[0]
    specs = "; ".join(f"{spec!r} in {', '.join(where)}" for spec, where in uses[name].values())
    also = f", as {'does' if len(clashes) == 2 else 'do'} {', '.join(map(repr, clashes[1:]))}" if clashes[1:] else ""
    raise ValueError(f"agent name {name!r} stands for different agents ({specs}){also}; the leaderboard matches "
                     "agents by name, so give different agents different names in their tournaments")


def _column_names(tournaments: list[tuple[Path, str]]) -> list[str]:
    """One unique column name per ``(resolved folder, game)``: the game, or where several
    tournaments play it, the game and the fewest trailing folders that set its path apart."""
    names = []
    for real, game in tournaments:
        others = [r for r, g in tournaments if g == game and r != real]
        if not others:
            names.append(game)
            continue
        # Resolved paths are distinct, so at worst the whole path sets this one apart; labels of
        # one length differ by this choice, labels of two lengths by their number of parts.
        depth = next(k for k in range(1, len(real.parts) + 1) if all(o.parts[-k:] != real.parts[-k:] for o in others))
        names.append(f"{game} ({PurePath(*real.parts[-depth:]).as_posix()})")
    return names


def build_leaderboard(folders: list[str | Path]) -> dict[str, Any]:
    """Merge tournaments into one leaderboard.

    Args:
        folders: tournament folders (one per game; two of the same game are both kept, each
            column named by the part of its path that tells them apart).

    Returns:
        ``{"games": [{"name", "folder", "game", "agents", "games_per_match", "heatmap"}],
        "rows": [{"agent", "rank", "rank_score", "score", "games_played", "per_game": {name: {...}}}]}``,
        rows best first.

    Raises:
        ValueError: no folder, a folder given twice, a folder that holds no well-formed
            tournament report, or an agent name that stands for different specs.
    """
    if not folders:
        raise ValueError("give at least one tournament folder")
    distinct = _distinct_folders(folders)
    tournaments = [(folder, _load_tournament(folder)) for folder in distinct.values()]
    _check_agent_specs(tournaments)
    names = _column_names([(real, data["settings"]["game"]) for real, (_, data) in zip(distinct, tournaments)])
    games: list[dict[str, Any]] = []
    per_agent: dict[str, dict[str, dict[str, Any]]] = {}
    for name, (folder, data) in zip(names, tournaments):
        ratings = data["ratings"]
        n = len(ratings)
        heatmap = folder / "head_to_head.png"
        games.append({"name": name, "folder": str(folder), "game": data["settings"]["game"], "agents": n,
                      "games_per_match": data["settings"]["games"],
                      "heatmap": heatmap if heatmap.is_file() else None})
        for row in ratings:
            per_agent.setdefault(row["agent"], {})[name] = {
                "rank": row["rank"], "of": n, "ordinal": row["ordinal"], "mu": row["mu"], "sigma": row["sigma"],
                "score": row["score"], "games": row["games"],
                "rank_score": (n - row["rank"]) / (n - 1) if n > 1 else 1.0,
                "spec": data["settings"]["agents"][row["agent"]],
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
    """The leaderboard as one self-contained HTML page (heatmaps embedded).

    Raises:
        ValueError: a heatmap that cannot be read (named).
    """
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
        try:
            data = base64.b64encode(Path(game["heatmap"]).read_bytes()).decode("ascii")
        except OSError as exc:
            raise ValueError(f"{game['heatmap']} is not readable ({exc.strerror or exc})") from None
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


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """``cluegym leaderboard DIR...``: print the Markdown; with ``--out``, write .md and .html."""
    try:
        board = build_leaderboard(args.folders)
        text = leaderboard_markdown(board)
        # Rendered before anything is written: a heatmap that cannot be read leaves no half output.
        page = leaderboard_html(board) if args.out else ""
    except ValueError as exc:
        usage_error(str(exc))
    print(text)
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(out / "leaderboard.md", text.encode())
            write_bytes_atomic(out / "leaderboard.html", page.encode())
        except OSError as exc:
            usage_error(f"--out {out} is not writable ({exc.strerror or exc})")
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
