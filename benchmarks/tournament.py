"""Round-robin tournaments between agents, for any game: who beats whom, and ratings.

A tournament splits the game's seats into two *sides* (Decrypto: the encoders Alice and Bob
against the interceptor Eve; Taboo: attacker and defender; Undercover: the three civilians
against the two undercover players, whose seats are fixed for the purpose; Dixit, a
free-for-all: the even seats against the odd ones; any other game: one seat per side when it
has two, else even against odd seats). Every pair of agents plays a match of ``games`` games
in each orientation (A on the first side and B on the second, then swapped), so every agent
plays every role against every other. All matches use the tournament seed: an orientation and
its swap play the same deals (a duplicate format, which cancels the luck of the deal).

Each match is a :func:`cluegym.agents.run_match` with its own results JSONL under
``OUT/matches/``: games are appended as they finish, and a rerun of the same tournament into
the same folder skips them (a kill -9 loses at most the games in flight). The reports
(:mod:`cluegym.benchmarks.tournament_report`) are rebuilt from those files at the end:
``games.jsonl`` (one line per game), ``head_to_head.csv`` + ``head_to_head.png``,
``ratings.md`` / ``ratings.json`` (OpenSkill ratings with uncertainty, per-role tables,
per-match lines) and ``tournament.json`` (the settings, checked on resume).

Example:
    >>> report = run_tournament("taboo", {"glove": "glove", "rand": "random"}, games=8, seed=0,
    ...                         out_dir="runs/taboo", progress=False)
    >>> [row["agent"] for row in report["ratings"]]
    ['glove', 'rand']

    cluegym tournament decrypto --agent glove=glove --agent w2v=word2vec --agent rand=random \\
        --games 16 --seed 0 --out runs/decrypto
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from cluegym.agents import AgentSpecError, make_agent, run_match
from cluegym.benchmarks.ratings import GameOutcome, head_to_head, per_role_table, rate_outcomes, side_scores
from cluegym.benchmarks.tournament_report import format_report, write_reports
from cluegym.envs.core.registry import env_module
from cluegym.harness import build_agents, resolve_seats
from cluegym.harness.distributed import check_ray_address
from cluegym.harness.runner import check_match_counts
from cluegym.harness.results import json_options, load_rows, match_signature, write_json_atomic
from cluegym.benchmarks.usage import parse_assignments, parse_options, usage_error

__all__ = ["Match", "Side", "plan_matches", "register_cli", "run_tournament", "tournament_sides"]

#: An agent's name in a tournament: used in file names and tables.
AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
#: Settings file of a tournament folder (a rerun must use the same ones).
SETTINGS_FILE = "tournament.json"
#: The longest agent name: a match's results file is ``NNN-<a>-vs-<b>.jsonl``.
MAX_AGENT_NAME = 100


@dataclass(frozen=True)
class Side:
    """One side of a tournament game: a name (the role) and the seats it holds."""

    name: str
    seats: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """One match of the schedule: ``agents[k]`` holds ``sides[k]`` for every game."""

    id: str
    agents: tuple[str, str]
    sides: tuple[Side, Side]
    env_kwargs: dict[str, Any]

    @property
    def seats(self) -> dict[str, str]:
        """Seat -> agent name."""
        return {seat: agent for agent, side in zip(self.agents, self.sides) for seat in side.seats}


def tournament_sides(game: str, seats: list[str], env_kwargs: dict[str, Any]) -> tuple[tuple[Side, Side], dict[str, Any]]:
    """The two sides of ``game`` and the game options that fix its roles to them.

    Args:
        game: registered game name.
        seats: the game's seats (``env.possible_agents``) with these options.
        env_kwargs: the tournament's game options.

    Returns:
        ``((side_a, side_b), extra_options)``; Undercover's extra option fixes the undercover
        seats to the last ``num_undercover`` seats so that the sides are its two teams.

    Raises:
        ValueError: a game with fewer than two seats, or Undercover with ``undercover_seats`` set.
    """
    if len(seats) < 2:
        raise ValueError(f"{game} has {len(seats)} seat(s); a tournament needs at least two")
    if game == "decrypto":
        return (Side("encoders", ("alice", "bob")), Side("interceptor", ("eve",))), {}
    if game == "undercover":
        if env_kwargs.get("undercover_seats") is not None:
            raise ValueError("undercover tournaments fix undercover_seats themselves (the last seats): "
                             "leave that option out")
        undercover = int(env_kwargs.get("num_undercover", 2))
        first = len(seats) - undercover
        return ((Side("civilians", tuple(seats[:first])), Side("undercover", tuple(seats[first:]))),
                {"undercover_seats": list(range(first, len(seats)))})
    if len(seats) == 2:
        return (Side(seats[0], (seats[0],)), Side(seats[1], (seats[1],))), {}
    even, odd = tuple(seats[0::2]), tuple(seats[1::2])
    return (Side("even seats", even), Side("odd seats", odd)), {}


def plan_matches(game: str, agents: list[str], seats: list[str], env_kwargs: dict[str, Any]) -> list[Match]:
    """The round-robin schedule: every pair of agents, in both orientations.

    Example:
        >>> [m.id for m in plan_matches("taboo", ["a", "b"], ["attacker", "defender"], {})]
        ['000-a-vs-b', '001-b-vs-a']
    """
    (first, second), extra = tournament_sides(game, seats, env_kwargs)
    matches: list[Match] = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            for pair in ((a, b), (b, a)):
                matches.append(Match(f"{len(matches):03d}-{pair[0]}-vs-{pair[1]}", pair, (first, second),
                                     {**env_kwargs, **extra}))
    return matches


def _check_settings(out_dir: Path, settings: dict[str, Any]) -> None:
    """Write the settings of a new tournament folder, or check a resumed one's."""
    path = out_dir / SETTINGS_FILE
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not a tournament settings file ({exc})") from None
        if not isinstance(old, dict):
            raise ValueError(f"{path} is not a tournament settings file (a JSON {type(old).__name__})")
        # More (or fewer) games per match is the same tournament, as with `cluegym run --results`:
        # game i of a match is the same game whatever the total.
        changed = sorted(k for k in settings.keys() | old.keys() if k != "games" and old.get(k) != settings.get(k))
        if changed:
            raise ValueError(f"{out_dir} holds a tournament with other settings ({', '.join(changed)} differ); "
                             f"use another --out folder or the same settings to resume")
        # The agents' order is the schedule's (match ids, and the order ratings take the games
        # in), which a dict comparison misses: the same agents in another order replayed every
        # game into new match files beside the old ones and rated the games anew.
        if list(old["agents"]) != list(settings["agents"]):
            raise ValueError(f"{out_dir} holds this tournament with its agents in another order "
                             f"({', '.join(old['agents'])}); give --agent in that order to resume")
    write_json_atomic(path, settings)


def _missing_parts(folder: Path) -> list[Path]:
    """``folder`` and those above it that do not exist yet, nearest first: what making it makes."""
    missing = []
    for path in (folder, *folder.parents):
        if path.exists():
            break
        missing.append(path)
    return missing


def _remove_if_unplayed(out: Path, made: list[Path]) -> None:
    """Undo what a new tournament wrote (``made``: its settings file and the folders it
    created, in that order) when it stopped before any game's row was written: that
    ``tournament.json`` alone refused the corrected rerun as a tournament with other settings."""
    if not made or any(path.stat().st_size for path in (out / "matches").glob("*.jsonl")):
        return
    for path in (out / "matches").glob("*.jsonl"):
        path.unlink()  # empty: opened for a match whose first game never finished
    for path in made:
        try:
            path.unlink() if path.suffix == ".json" else path.rmdir()  # rmdir: only an empty folder
        except OSError:
            return


def _check_agents(game: str, agents: dict[str, str], matches: list[Match], probe: Any) -> list[Match]:
    """Build every agent for every seat it would hold (fail fast on a bad spec); drop the
    matches an agent cannot play (e.g. a policy trained for one seat), keeping at least one
    side for every agent."""
    playable: dict[tuple[str, str], str | None] = {}
    for match in matches:
        for name, side in zip(match.agents, match.sides):
            if (name, side.name) in playable:
                continue
            try:
                build_agents(game, probe, {seat: agents[name] for seat in side.seats}, make_agent=make_agent)
                playable[(name, side.name)] = None
            except (AgentSpecError, ValueError) as exc:
                playable[(name, side.name)] = str(exc)
    for name in agents:
        reasons = [reason for (agent, _), reason in playable.items() if agent == name]
        if all(reasons):
            raise ValueError(f"agent {name!r} ({agents[name]}) cannot play any side of {game}: {reasons[0]}")
    return [m for m in matches if all(playable[(n, s.name)] is None for n, s in zip(m.agents, m.sides))]


def run_tournament(
    game: str,
    agents: dict[str, str],
    *,
    games: int,
    seed: int = 0,
    out_dir: str | Path,
    env_kwargs: dict[str, Any] | None = None,
    concurrency: int = 1,
    progress: bool = True,
    ray_address: str | None = None,
) -> dict[str, Any]:
    """Play (or resume) a round-robin tournament and write its reports.

    Args:
        game: registered game name.
        agents: agent name (letters, digits, ``_.+-``) -> agent spec, at least two.
        games: games per match (each pair plays ``2 * games``: both orientations).
        seed: the seed of every match (game ``i`` of each match is dealt alike).
        out_dir: the tournament folder (created; resumed when it holds this tournament).
        env_kwargs: game options.
        concurrency: games played at once within a match (LLM agents overlap their requests).
        progress: show one progress bar over every game of the tournament.
        ray_address: play each match's games as Ray tasks on this cluster (``"local"`` for a
            Ray of this machine), as ``cluegym run --ray-address`` does; the rows, and so the
            reports, are those of a local run.

    Returns:
        ``{"settings", "sides", "matches", "skipped", "ratings", "side_ratings", "head_to_head",
        "per_role", "agent_metrics", "ok", "problems"}``: ratings rows from
        :func:`~cluegym.benchmarks.ratings.rate_outcomes`, the matrix from
        :func:`~cluegym.benchmarks.ratings.head_to_head`, the per-role rows from
        :func:`~cluegym.benchmarks.ratings.per_role_table`; ``ok`` is false when a game errored
        (a rerun replays it).

    Raises:
        ValueError: bad agents, names, options, counts, seed or folder (before any game is played).
        TypeError: ``games``, ``seed`` or ``concurrency`` is no integer (as :func:`run_match` says).
        AgentSpecError: a spec that names no usable agent.
    """
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {len(agents)}")
    for name in agents:
        if not AGENT_NAME.fullmatch(name):
            raise ValueError(f"agent name {name!r} must be letters, digits, '_', '.', '+' or '-'")
        if len(name) > MAX_AGENT_NAME:  # two names make a match's file name, at most 255 bytes
            raise ValueError(f"agent name {name[:20]!r}... is {len(name)} characters; at most {MAX_AGENT_NAME}")
    # Checked here as every match checks them, not by the first match: its error came after
    # tournament.json was written, and the folder then refused the corrected rerun as "a
    # tournament with other settings".
    check_match_counts(games, seed, concurrency)
    if ray_address is not None:
        check_ray_address(ray_address)
    if importlib.util.find_spec("openskill") is None:  # before any game, not after them all
        raise ValueError("tournament ratings need the openskill package: pip install 'cluegym[tournament]'")
    env_kwargs = json_options(env_kwargs or {})  # as tournament.json and the match files read them back
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    module = env_module(game)
    probe = module.env(**env_kwargs)
    seats = list(probe.possible_agents)
    planned = plan_matches(game, list(agents), seats, env_kwargs)
    matches = _check_agents(game, agents, planned, module.env(**planned[0].env_kwargs))
    skipped = [m.id for m in planned if m not in matches]
    settings = {"game": game, "agents": agents, "games": games, "seed": seed, "env": env_kwargs}
    made = [out / SETTINGS_FILE] if not (out / SETTINGS_FILE).exists() else []
    made += _missing_parts(out / "matches")
    out.mkdir(parents=True, exist_ok=True)
    (out / "matches").mkdir(exist_ok=True)
    _check_settings(out, settings)

    def results_file(match: Match) -> Path:
        return out / "matches" / f"{match.id}.jsonl"

    def signature(match: Match) -> dict[str, Any]:
        # the harness's match signature (see cluegym.harness.runner): how its rows are keyed
        specs = resolve_seats(game, {seat: agents[name] for seat, name in match.seats.items()}, seats)
        return match_signature(game, specs, seed, match.env_kwargs)

    done = sum(sum("record" in row for row in load_rows(results_file(m), signature(m)).values()) for m in matches)
    bar = tqdm(total=games * len(matches), initial=done, desc=f"{game} tournament", unit="game",
               dynamic_ncols=True, disable=not progress)
    summaries: dict[str, dict[str, Any]] = {}
    try:
        for match in matches:
            bar.set_postfix_str(f"{match.agents[0]} vs {match.agents[1]}", refresh=False)
            summaries[match.id] = run_match(
                game, {seat: agents[name] for seat, name in match.seats.items()}, games=games, seed=seed,
                env_kwargs=match.env_kwargs, concurrency=concurrency, results_path=results_file(match),
                progress=False, on_game=lambda index, record: bar.update(1), ray_address=ray_address,
            )
    except BaseException:
        _remove_if_unplayed(out, made)  # e.g. no Ray cluster at --ray-address: nothing was played
        raise
    finally:
        bar.close()

    outcomes: list[tuple[int, int, GameOutcome]] = []
    match_rows: list[dict[str, Any]] = []
    for order, match in enumerate(matches):
        rows = load_rows(results_file(match), signature(match))
        for index in range(games):
            record = rows.get(index, {}).get("record")
            if record is None:
                continue
            scores = side_scores(record["returns"], [side.seats for side in match.sides])
            outcome = GameOutcome(match.id, index, match.agents, (match.sides[0].name, match.sides[1].name),
                                  (scores[0], scores[1]))
            outcomes.append((index, order, outcome))
        summary = summaries[match.id]
        match_rows.append({
            "id": match.id, "agents": list(match.agents), "sides": [s.name for s in match.sides],
            "seats": summary["seats"], "env": match.env_kwargs, "results": str(results_file(match)),
            "games": summary["games"], "errored": summary["errored_games"]["count"], "ok": summary["ok"],
            "problems": summary["problems"], "metrics": summary["metrics"],
        })
    # Index-major order (game 0 of every match, then game 1, ...): the sequential rating sees
    # every pairing early, so no pairing's games all come last.
    ordered = [outcome for _, _, outcome in sorted(outcomes, key=lambda t: (t[0], t[1]))]
    names = list(agents)
    problems = [f"{row['id']}: {p}" for row in match_rows for p in row["problems"]]
    rated = rate_outcomes(ordered, names)
    report = {
        "settings": settings,
        "sides": [{"name": s.name, "seats": list(s.seats)} for s in planned[0].sides],
        "matches": match_rows,
        "skipped": skipped,
        "ratings": rated["agents"],
        "side_ratings": rated["sides"],
        "head_to_head": head_to_head(ordered, names),
        "per_role": per_role_table(ordered, names),
        "agent_metrics": _agent_metrics(module, matches, out, signature, results_file),
        "ok": not problems,
        "problems": problems,
    }
    write_reports(out, report, ordered)
    return report


def _agent_metrics(module: Any, matches: list[Match], out: Path, signature: Any, results_file: Any) -> dict[str, Any]:
    """The game's own per-agent metrics (games whose ``metrics`` take an ``agents`` mapping, e.g.
    Dixit's storyteller and listener scores), averaged over matches weighted by games."""
    if "agents" not in inspect.signature(module.metrics).parameters:
        return {}
    sums: dict[str, dict[str, float]] = {}
    weights: dict[str, dict[str, float]] = {}
    for match in matches:
        rows = load_rows(results_file(match), signature(match))
        results = [row["record"]["result"] for row in rows.values() if "record" in row]
        if not results:
            continue
        metrics = module.metrics(results, agents=match.seats)
        for name in set(match.agents):
            for key, value in (metrics.get(f"agent:{name}") or {}).items():
                if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
                    sums.setdefault(name, {})[key] = sums.get(name, {}).get(key, 0.0) + value * len(results)
                    weights.setdefault(name, {})[key] = weights.get(name, {}).get(key, 0.0) + len(results)
    order = list(dict.fromkeys(name for match in matches for name in match.agents))
    return {name: {key: total / weights[name][key] for key, total in sums[name].items()} for name in order if name in sums}


def cmd_tournament(args: argparse.Namespace) -> int:
    """``cluegym tournament GAME``: play or resume, print the ratings; exit 0, 1 (errored games),
    2 (bad arguments) or 130 (interrupted: rerun to resume)."""
    try:
        env_module(args.game)
    except ValueError as exc:
        usage_error(str(exc))
    agents = parse_assignments(args.agent, "--agent")
    env_kwargs = parse_options(args.env, "--env")
    try:
        report = run_tournament(args.game, agents, games=args.games, seed=args.seed, out_dir=args.out,
                                env_kwargs=env_kwargs, concurrency=args.concurrency, progress=not args.no_progress,
                                ray_address=args.ray_address)
    except (AgentSpecError, ValueError, TypeError, OSError, ImportError) as exc:  # ImportError: no Ray
        usage_error(str(exc))
    except KeyboardInterrupt:
        print(f"\ncluegym: interrupted; the finished games are in {args.out}/matches, rerun to resume", file=sys.stderr)
        return 130
    print(format_report(report))
    print(f"reports written to {args.out}/ (ratings.md, ratings.json, head_to_head.csv, head_to_head.png, games.jsonl)")
    if not report["ok"]:
        print(f"cluegym: tournament has errors: {'; '.join(report['problems'][:5])}", file=sys.stderr)
        return 1
    return 0


def register_cli(subparsers: Any) -> None:
    """Add ``cluegym tournament``."""
    parser = subparsers.add_parser(
        "tournament", help="round-robin tournament between agents: head-to-head, ratings (resumable)",
        description="Every pair of agents plays GAMES games in each orientation (every agent plays every "
                    "role). Games are appended to OUT/matches/*.jsonl as they finish; rerunning the same "
                    "command resumes. Writes ratings (OpenSkill, with uncertainty), a head-to-head matrix "
                    "(CSV + heatmap PNG), per-role tables and games.jsonl into OUT.")
    parser.add_argument("game", help="game name, e.g. decrypto")
    parser.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC", required=True,
                        help="a competitor: its name in the tables and its agent spec, e.g. glove=glove:k=16 "
                             "or ppo-eve=ppo:path=runs/eve/policy.zip; repeat for each (at least two)")
    parser.add_argument("--games", type=int, default=10, help="games per match and orientation (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every match (default 0)")
    parser.add_argument("--out", required=True, help="tournament folder (resumed when it exists)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="game option; repeatable")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once within a match (default 1)")
    parser.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="play the games as Ray tasks on this cluster ('local': a Ray of this machine); "
                             "needs pip install 'cluegym[rllib]'")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=cmd_tournament)
