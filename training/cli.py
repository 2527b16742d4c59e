"""``cluegym train``: train one seat with Stable-Baselines3 by self-play.

Examples:
    cluegym train decrypto --seat eve --steps 8000 --opponent alice=glove:k=16 --opponent bob=glove \\
        --baseline glove --baseline random --shaping 1 --out runs/decrypto-eve
    cluegym train undercover --seat player_0 --selfplay --opponent '*=glove' --steps 20000
    cluegym train GAME --seat SEAT    # a game that declares only its env: reports mean_return
    cluegym run decrypto --agent eve=ppo:path=runs/decrypto-eve/policy.zip --games 100
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import cluegym
from cluegym.agents import AgentSpecError
from cluegym.harness import format_metrics
from cluegym.training.train import MEAN_RETURN, TrainConfig, train


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pairs(items: list[str], what: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise SystemExit(f"cluegym train: error: {what} {item!r} must look like NAME=VALUE")
        out.append((key.strip(), value.strip()))
    return out


def cmd_train(args: argparse.Namespace) -> int:
    try:
        module = cluegym.env_module(args.game)
    except ValueError as exc:
        raise SystemExit(f"cluegym train: error: {exc}")
    seats = list(module.env().possible_agents)
    if args.seat not in seats:
        raise SystemExit(f"cluegym train: error: {args.game} has no seat {args.seat!r}; seats: {', '.join(seats)}")
    opponents: dict[str, list[str]] = {}
    for seat, spec in _pairs(args.opponent, "--opponent"):
        targets = [s for s in seats if s != args.seat] if seat in ("*", "all") else [seat]
        for target in targets:
            if target not in seats or target == args.seat:
                raise SystemExit(f"cluegym train: error: --opponent seat {target!r} is not an opponent seat "
                                 f"(learner {args.seat!r}; seats: {', '.join(seats)})")
            opponents.setdefault(target, []).append(spec)
    defaults = getattr(module, "DEFAULT_AGENTS", {})
    for seat in seats:
        if seat != args.seat and seat not in opponents:
            opponents[seat] = [defaults.get(seat) or defaults.get("*") or "random"]
    try:
        config = TrainConfig(
            game=args.game, seat=args.seat, algo=args.algo, steps=args.steps, n_envs=args.n_envs, vec=args.vec,
            opponents=opponents, selfplay=args.selfplay, snapshot_every=args.snapshot_every,
            max_snapshots=args.max_snapshots, eval_every=args.eval_every or max(1, args.steps // 4),
            eval_games=args.eval_games, eval_seed=args.eval_seed, baselines=args.baseline,
            shaping=args.shaping, invalid_action_penalty=args.invalid_penalty,
            task_options={k: _value(v) for k, v in _pairs(args.task, "--task")},
            env_kwargs={k: _value(v) for k, v in _pairs(args.env, "--env")},
            algo_kwargs={k: _value(v) for k, v in _pairs(args.algo_arg, "--algo-arg")},
            seed=args.seed, out=args.out or "", tensorboard=args.tensorboard, scorer=args.scorer,
        )
        summary = train(config)
    except (AgentSpecError, ValueError, FileNotFoundError, ImportError) as exc:
        raise SystemExit(f"cluegym train: error: {exc}")
    metric = summary["metric"]
    print(f"\n{args.game}/{args.seat}: {args.algo}, {summary['steps_trained']:,} env steps, "
          f"{summary['train_minutes']:.1f} min training")
    if summary["steps_rounding"]:
        print(f"--steps {summary['steps_rounding']}")
    # "trained" is policy.zip itself, evaluated after the last update.
    rows = {"untrained": summary["untrained"][metric], "trained (policy.zip)": summary["final"][metric],
            **{f"baseline {k}": v for k, v in summary["baselines"].items()}}
    print(f"{metric} on {config.eval_games} evaluation games (seed {config.eval_seed}):")
    print(format_metrics(rows))
    if metric == MEAN_RETURN:
        print(f"({MEAN_RETURN}: the {args.seat} seat's mean episode return, since its task names no metric; "
              "the generic task takes a game metric instead: --task metric=NAME)")
    print(f"policy: {summary['policy']}  (play it: --agent {args.seat}=ppo:path={summary['policy']})")
    print(f"curve: {config.out}/curve.png  logs: {config.out}/progress.csv, {config.out}/eval.csv")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add the ``train`` subcommand to the ``cluegym`` parser."""
    p = subparsers.add_parser("train", help="train one seat with Stable-Baselines3 (self-play, policy pool)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help="game name, e.g. decrypto")
    p.add_argument("--seat", required=True, help="the learner's seat, e.g. eve")
    p.add_argument("--algo", default="maskable_ppo", help="maskable_ppo (default), ppo, a2c or dqn")
    p.add_argument("--steps", type=int, default=20_000, help="learner env steps (default 20000)")
    p.add_argument("--opponent", action="append", default=[], metavar="SEAT=SPEC",
                   help="add SPEC to SEAT's opponent pool ('*' for every other seat); repeatable. "
                        "Seats not named play the game's default agents")
    p.add_argument("--selfplay", action="store_true",
                   help="add learner snapshots to the pools of seats with the learner's role")
    p.add_argument("--snapshot-every", type=int, default=5_000, help="env steps between snapshots (default 5000)")
    p.add_argument("--max-snapshots", type=int, default=5, help="snapshots kept per pool (default 5)")
    p.add_argument("--eval-every", type=int, default=0, help="env steps between evaluations (default steps/4)")
    p.add_argument("--eval-games", type=int, default=100, help="games per evaluation (default 100)")
    p.add_argument("--eval-seed", type=int, default=12_345, help="match seed of the evaluation games")
    p.add_argument("--baseline", action="append", default=[], metavar="SPEC",
                   help="also evaluate this agent in the learner's seat (reference line); repeatable")
    p.add_argument("--shaping", type=float, default=0.0,
                   help="potential-based reward shaping scale from the game score (default 0: off)")
    p.add_argument("--invalid-penalty", type=float, default=0.0, help="reward for a rejected action (default 0)")
    p.add_argument("--task", action="append", default=[], metavar="KEY=VALUE",
                   help="seat-task option, e.g. embedding=glove, or metric=success_rate (a game metric) for "
                        "a game without a task of its own, which otherwise reports mean_return (the seat's "
                        "mean episode return); repeatable")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="game option; repeatable")
    p.add_argument("--algo-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="algorithm option (JSON values), e.g. learning_rate=0.0003; repeatable")
    p.add_argument("--n-envs", type=int, default=4, help="parallel envs (default 4)")
    p.add_argument("--vec", choices=("dummy", "subproc"), default="dummy", help="vectorisation (default dummy)")
    p.add_argument("--seed", type=int, default=0, help="seed of the model and envs (default 0)")
    p.add_argument("--out", help="run folder (default runs/<game>-<seat>-<algo>-s<seed>)")
    p.add_argument("--tensorboard", action="store_true", help="also write TensorBoard logs (needs tensorboard)")
    p.add_argument("--scorer", action=argparse.BooleanOptionalAction, default=True,
                   help="score each choice with one shared network when the task allows (default on)")
    p.set_defaults(func=cmd_train)
