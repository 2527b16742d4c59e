"""The ``cluegym`` command.

Subcommands are registered once in :data:`COMMANDS` (name -> module exposing
``register_cli(subparsers)``), so a feature adds one line here, not a new parser.

Examples:
    cluegym list
    cluegym run decrypto --agent alice=glove:k=16 --agent bob=glove --agent eve=word2vec \\
        --games 32 --seed 0 --summary out.json
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from typing import Any, Sequence

import cluegym
from cluegym.agents import AgentSpecError, agent_class, agent_params, registered_agents, run_match
from cluegym.benchmarks.usage import UsageError, parse_assignments, parse_options
from cluegym.envs.core.record import transcript
from cluegym.harness import RayNotInstalledError, format_metrics

#: Extra subcommands: name -> module with ``register_cli(subparsers)``. One line each.
COMMANDS: dict[str, str] = {
    "train": "cluegym.training.cli",
    "dixitbench": "cluegym.benchmarks.dixitbench",
    "tournament": "cluegym.benchmarks.tournament",
    "leaderboard": "cluegym.benchmarks.leaderboard",
    "replay": "cluegym.benchmarks.replay_html",
    "play": "cluegym.benchmarks.play_server",
}


def cmd_list(args: argparse.Namespace) -> int:
    """``cluegym list``: games and agents; ``cluegym list GAME``: that game's options."""
    if args.game is not None:
        try:
            return _list_game_options(args.game)
        except ValueError as exc:  # an unknown game: the message lists the registered ones
            raise UsageError(str(exc)) from None
    try:
        return _list_overview()
    except AgentSpecError as exc:  # a malformed agent entry point: the message names it
        raise UsageError(str(exc)) from None


def _seat_params(name: str, game: str, seat: str) -> dict[str, Any] | None:
    """Agent ``name``'s parameters and their defaults in ``game``'s ``seat`` (a registered
    preset's values included), or None when it does not play that seat."""
    try:
        cls, preset = agent_class(name, game, seat)
    except Exception:  # noqa: BLE001 - an agent that does not play this seat
        return None
    return {**{k: p.default for k, p in agent_params(cls).items()}, **preset}


def _list_overview() -> int:
    """Print the registered games (seats, one-line card) and agents (games they play, parameters)."""
    seats_of: dict[str, list[str]] = {}
    print("games:")
    for name in cluegym.registered_games():
        module = cluegym.env_module(name)
        seats_of[name] = list(module.env().possible_agents)
        doc = (inspect.getdoc(module) or "").splitlines()[0]
        print(f"  {name:<12} seats: {', '.join(seats_of[name])}\n  {'':<12} {doc}")
    print("agents (name[:key=value,...]):")
    for name in registered_agents():
        plays: list[str] = []
        defaults: dict[str, set[str]] = {}
        # Every seat: one seat a game showed a parameter's default of that seat only (glove's
        # k=8 of Decrypto for the Taboo attacker's 30), and missed another seat's parameters.
        for game, seats in seats_of.items():
            for seat in seats:
                params = _seat_params(name, game, seat)
                if params is None:
                    continue
                if game not in plays:
                    plays.append(game)
                for key, value in params.items():
                    defaults.setdefault(key, set()).add(repr(value))
        shown = ", ".join(f"{key}={next(iter(values))}" if len(values) == 1 else f"{key}=<by seat>"
                          for key, values in sorted(defaults.items()))
        print(f"  {name:<12} plays: {', '.join(plays) or '-'}\n  {'':<12} params: {shown}")
    print("<by seat>: the default differs between seats. `cluegym list GAME` shows a game's options (set them "
          "with `cluegym run GAME --env NAME=VALUE`) and each seat's agents with their defaults.")
    return 0


def _list_game_options(game: str) -> int:
    """Print a game's seats, default agents, every option (type, default, description) and the
    agents each seat takes, with their parameters' defaults there."""
    module = cluegym.env_module(game)
    name = cluegym.env_class(game).game_id.rsplit("_v", 1)[0]
    doc = (inspect.getdoc(module) or "").splitlines()[0]
    print(f"{name} ({cluegym.env_class(game).game_id}): {doc}")
    seats = list(module.env().possible_agents)
    print(f"seats: {', '.join(seats)}")
    defaults = getattr(module, "DEFAULT_AGENTS", None)
    if defaults:
        print(f"default agents: {', '.join(f'{seat}={spec}' for seat, spec in defaults.items())}")
    print(f"options (cluegym run {name} --env NAME=VALUE, or cluegym.make({name!r}, NAME=VALUE)):")
    for option in cluegym.game_options(game).values():
        default = "required" if option.required else f"= {option.default!r}"
        print(f"  {option.name}: {option.type_name} {default}")
        if option.description:
            print(f"      {option.description}")
    print(f"agents by seat (cluegym run {name} --agent SEAT=NAME:key=value,...):")
    listings: dict[str, list[str]] = {}  # a seat's agent lines -> the seats with those lines
    for seat in seats:
        lines = []
        for agent in registered_agents():
            params = _seat_params(agent, game, seat)
            if params is not None:
                shown = ", ".join(f"{key}={value!r}" for key, value in sorted(params.items()))
                lines.append(f"    {agent:<12} {shown or '-'}")
        listings.setdefault("\n".join(lines), []).append(seat)
    for lines, same in listings.items():  # Undercover's five players take the same agents
        print(f"  {', '.join(same)}:\n{lines}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """``cluegym run GAME``: play a match, print its report; exit 0 (ok), 1 (a game errored or a
    seat never got a move through), 2 (bad arguments) or 130 (interrupted)."""
    try:
        cluegym.env_module(args.game)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    agents = parse_assignments(args.agent, "--agent")
    env_kwargs = parse_options(args.env, "--env")
    try:
        summary = run_match(
            args.game, agents, games=args.games, seed=args.seed, env_kwargs=env_kwargs,
            concurrency=args.concurrency, results_path=args.results, summary_path=args.summary,
            progress=not args.no_progress, ray_address=args.ray_address,
        )
    except (AgentSpecError, RayNotInstalledError, ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        saved = f"; the finished games are in {args.results}, rerun to resume" if args.results else ""
        print(f"\ncluegym: interrupted{saved}", file=sys.stderr)
        return 130
    first = summary.pop("first_game")
    if args.show and first is not None:
        print("\nfirst game:")
        print(transcript(first))
    print_run_summary(summary)
    if args.summary:
        print(f"summary written to {args.summary}")
    if not summary["ok"]:
        print(f"cluegym: run failed: {'; '.join(summary['problems'])}", file=sys.stderr)
        return 1
    return 0


#: Per-seat columns of the run table: (header, where, counter); where is "seat" (from the
#: game records) or "agent" (the agent's own stats). Agent columns show only when reported.
SEAT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("moves", "seat", "decisions"), ("invalid", "seat", "invalid_actions"), ("fallbacks", "seat", "fallbacks"),
    ("forfeits", "seat", "forfeits"), ("agent_err", "seat", "agent_errors"), ("llm_calls", "agent", "llm_calls"),
    ("failed", "agent", "failed_calls"), ("retries", "agent", "http_retries"), ("parse_fail", "agent", "parse_failures"),
)


def print_run_summary(summary: dict[str, Any]) -> None:
    """The closing report of ``cluegym run``: seats, metrics, per-seat counters, errored games."""
    errored = summary["errored_games"]
    total = summary["games"] + errored["count"]
    print(f"\n{summary['game']}: {summary['games']} of {total} games finished, seed {summary['seed']}")
    for seat, spec in summary["seats"].items():
        print(f"  {seat:<10} {spec}")
    print("metrics:")
    print(format_metrics(summary["metrics"]) if summary["metrics"] else "  (no finished game)")
    agent_stats, counters = summary["agent_stats"], summary["seat_counters"]
    columns = [(h, where, key) for h, where, key in SEAT_COLUMNS
               if where == "seat" or any(key in s for s in agent_stats.values())]
    width = max(len(seat) for seat in summary["seats"])
    print("per seat:")
    print(f"  {'':<{width}} " + " ".join(f"{h:>10}" for h, _, _ in columns))
    for seat in summary["seats"]:
        values = [(counters if where == "seat" else agent_stats)[seat].get(key, 0) for _, where, key in columns]
        print(f"  {seat:<{width}} " + " ".join(f"{v:>10.0f}" for v in values))
    stats = {f"{seat}.{k}": v for seat, s in agent_stats.items() for k, v in s.items()}
    if stats:
        print("agent stats:")
        print(format_metrics(stats))
    if errored["count"]:
        print(f"errored games: {errored['count']} (a rerun with the same --results replays just these)")
        for game in errored["games"][:10]:
            print(f"  game {game['index']}: {game['error']}")
        if errored["count"] > 10:
            print(f"  ... and {errored['count'] - 10} more (see errored_games in the summary)")
    if summary.get("games_per_s"):
        print(f"  ({summary['games_per_s']:.2f} games/s)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cluegym", description="Clue-giving games for multi-agent RL and LLM agents.")
    sub = parser.add_subparsers(dest="command", required=True)

    p_list = sub.add_parser("list", help="list registered games and agents, or one game's options",
                            description="Without GAME: the registered games and agents. With GAME: every "
                                        "option of that game with its type, default and description.")
    p_list.add_argument("game", nargs="?", default=None, help="a game name, e.g. decrypto: show its options")
    p_list.set_defaults(func=cmd_list)

    p_run = sub.add_parser(
        "run", help="play a match of N games and print its metrics",
        description="Play a match of N seeded games and print its metrics. Exit status: 0 when every game "
                    "finished, 1 when a game errored or a seat's agent never got a move through (e.g. every "
                    "LLM call failed), 2 for bad arguments (checked before any game is played).")
    p_run.add_argument("game", help="game name, e.g. decrypto")
    p_run.add_argument("--agent", action="append", default=[], metavar="SEAT=SPEC",
                       help="agent for a seat, e.g. alice=glove:k=16 (SEAT '*' fills all seats); repeatable")
    p_run.add_argument("--games", type=int, default=1, help="number of games (default 1)")
    p_run.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    p_run.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                       help="game option, e.g. max_turns=6; repeatable")
    p_run.add_argument("--concurrency", type=int, default=1,
                       help="games played at once in this process (default 1; not used with --ray-address)")
    p_run.add_argument("--ray-address", metavar="ADDR",
                       help="play the games as Ray tasks on this cluster, on as many workers as it gives: "
                            "HEAD:PORT, 'auto' (the cluster `ray start` started on this machine) or 'local' "
                            "(a new Ray in this process); same records as a local run; needs "
                            "pip install 'cluegym[rllib]'")
    p_run.add_argument("--summary", help="write the JSON summary here (also when games errored)")
    p_run.add_argument("--results", help="append each game (finished or errored) to this JSONL file; "
                                         "reruns resume and replay the errored games")
    p_run.add_argument("--show", action=argparse.BooleanOptionalAction, default=True,
                       help="print the first game's transcript (default on)")
    p_run.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p_run.set_defaults(func=cmd_run)

    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                continue  # feature not installed in this checkout
            raise
        module.register_cli(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cluegym`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(exc.message, file=sys.stderr)
        raise


if __name__ == "__main__":
    sys.exit(main())
