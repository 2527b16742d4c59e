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
import json
import sys
from typing import Any, Sequence

#: Extra subcommands: name -> module with ``register_cli(subparsers)``. One line each.
COMMANDS: dict[str, str] = {
    "train": "cluegym.training.cli",
    "dixitbench": "cluegym.benchmarks.dixitbench",
}


def _parse_value(text: str) -> Any:
    """``--env key=value`` values: JSON when it parses (numbers, lists, true), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_assignments(items: Sequence[str], what: str) -> dict[str, str]:
    """``["alice=glove:k=16", ...]`` -> ``{"alice": "glove:k=16"}`` with a clear error."""
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise SystemExit(f"cluegym: error: {what} {item!r} must look like NAME=VALUE")
        out[key.strip()] = value.strip()
    return out


def cmd_list(args: argparse.Namespace) -> int:
    import inspect

    import cluegym
    from cluegym.agents import AGENTS, agent_class, agent_params

    print("games:")
    for name in cluegym.registered_games():
        module = cluegym.env_module(name)
        env = module.env()
        seats = ", ".join(env.possible_agents)
        doc = (inspect.getdoc(module) or "").splitlines()[0]
        print(f"  {name:<12} seats: {seats}\n  {'':<12} {doc}")
    print("agents (name[:key=value,...]):")
    for name in sorted(AGENTS):
        plays = []
        params: dict[str, Any] = {}
        for game in cluegym.registered_games():
            try:
                env = cluegym.make(game)
                cls, _ = agent_class(name, game, env.possible_agents[0])
                plays.append(game)
                params.update({k: p.default for k, p in agent_params(cls).items()})
            except Exception:  # noqa: BLE001 - an agent that does not play this game
                continue
        shown = ", ".join(f"{k}={v!r}" for k, v in sorted(params.items()))
        print(f"  {name:<12} plays: {', '.join(plays) or '-'}\n  {'':<12} params: {shown}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import cluegym
    from cluegym.agents import AgentSpecError
    from cluegym.benchmarks.match import format_metrics, run_match
    from cluegym.envs.core.record import transcript

    try:
        cluegym.env_module(args.game)
    except ValueError as exc:
        raise SystemExit(f"cluegym: error: {exc}")
    agents = parse_assignments(args.agent, "--agent")
    env_kwargs = {k: _parse_value(v) for k, v in parse_assignments(args.env, "--env").items()}
    try:
        summary = run_match(
            args.game, agents, games=args.games, seed=args.seed, env_kwargs=env_kwargs,
            concurrency=args.concurrency, results_path=args.results, summary_path=args.summary,
            progress=not args.no_progress,
        )
    except (AgentSpecError, ValueError, TypeError, FileNotFoundError) as exc:
        raise SystemExit(f"cluegym: error: {exc}")
    first = summary.pop("first_game")
    if args.show and first is not None:
        print("\nfirst game:")
        print(transcript(first))
    print(f"\n{args.game}: {summary['games']} games, seed {args.seed}")
    for seat, spec in summary["seats"].items():
        print(f"  {seat:<10} {spec}")
    print("metrics:")
    print(format_metrics(summary["metrics"]))
    stats = {f"{seat}.{k}": v for seat, s in summary["agent_stats"].items() for k, v in s.items()}
    if stats:
        print("agent stats:")
        print(format_metrics(stats))
    if summary.get("games_per_s"):
        print(f"  ({summary['games_per_s']:.2f} games/s)")
    if args.summary:
        print(f"summary written to {args.summary}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cluegym", description="Clue-giving games for multi-agent RL and LLM agents.")
    sub = parser.add_subparsers(dest="command", required=True)

    p_list = sub.add_parser("list", help="list registered games and agents")
    p_list.set_defaults(func=cmd_list)

    p_run = sub.add_parser("run", help="play a match of N games and print its metrics")
    p_run.add_argument("game", help="game name, e.g. decrypto")
    p_run.add_argument("--agent", action="append", default=[], metavar="SEAT=SPEC",
                       help="agent for a seat, e.g. alice=glove:k=16 (SEAT '*' fills all seats); repeatable")
    p_run.add_argument("--games", type=int, default=1, help="number of games (default 1)")
    p_run.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    p_run.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                       help="game option, e.g. max_turns=6; repeatable")
    p_run.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    p_run.add_argument("--summary", help="write the JSON summary here")
    p_run.add_argument("--results", help="append each finished game to this JSONL file; reruns resume")
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
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
