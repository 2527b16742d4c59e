"""``cluegym train``: train one seat with Stable-Baselines3 by self-play, or several seats with RLlib.

Examples:
    cluegym train decrypto --seat eve --steps 8000 --opponent alice=glove:k=16 --opponent bob=glove \\
        --baseline glove --baseline random --shaping 1 --out runs/decrypto-eve
    cluegym train undercover --seat player_0 --selfplay --opponent '*=glove' --steps 20000
    cluegym train GAME --seat SEAT    # a game that declares only its env: reports mean_return
    cluegym run decrypto --agent eve=ppo:path=runs/decrypto-eve/policy.zip --games 100
    cluegym train undercover --engine rllib --seats player_0,player_1,player_2 --policies shared \\
        --opponent '*=glove:infer=false' --baseline glove:infer=false --steps 12288 --out runs/uc-rllib
    cluegym train decrypto --engine rllib --seats bob,eve --policies per-seat --opponent alice=glove:k=16 \\
        --num-env-runners 2 --ray-address 127.0.0.1:6379
    cluegym run undercover --agent player_0=rllib:path=runs/uc-rllib/checkpoint --agent '*=glove:infer=false'
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import cluegym
from cluegym.agents import AgentSpecError
from cluegym.harness import format_metrics
from cluegym.harness.arguments import env_flag, parse_options
from cluegym.training.evaluation import EvaluationError
from cluegym.training.train import MEAN_RETURN, TrainConfig, train


def _stopped(exc: BaseException) -> str:
    """``exc`` as one line, with the notes a stopped run added to it (what its folder keeps)."""
    return " ".join(" ".join([str(exc), *getattr(exc, "__notes__", [])]).split())


def _interrupted(exc: KeyboardInterrupt) -> SystemExit:
    """Ctrl-C: say what the run's folder keeps, and exit 130 as the other commands do."""
    notes = " ".join(" ".join(getattr(exc, "__notes__", [])).split())
    print(f"\ncluegym train: interrupted{'; ' + notes if notes else ''}", file=sys.stderr)
    return SystemExit(130)


def _play_command(game: str, env_kwargs: dict[str, Any]) -> str:
    """``cluegym run GAME`` with the run's game options: the games its evaluations played,
    with the options the game's learner task needs (Dixit's ``reveal_captions=true``: the
    policy's agent refuses an env without them; the config holds them)."""
    return " ".join([f"cluegym run {game}", *(env_flag(key, value) for key, value in env_kwargs.items())])


def _pairs(items: list[str], what: str) -> list[tuple[str, str]]:
    """``--opponent SEAT=SPEC`` items in order: a seat named again adds to its pool (the
    options' ``--env`` and the like refuse a name given twice: :func:`parse_options`)."""
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
    if args.engine == "rllib":
        return cmd_train_rllib(args)
    rllib_only = {"--seats": args.seats != "all", "--policies": args.policies != "shared",
                  "--num-env-runners": bool(args.num_env_runners), "--ray-address": args.ray_address is not None}
    given = [flag for flag, used in rllib_only.items() if used]
    if given:
        raise SystemExit(f"cluegym train: error: {', '.join(given)} belong to --engine rllib")
    if args.seat is None:
        raise SystemExit("cluegym train: error: the sb3 engine trains one seat: give --seat SEAT "
                         "(several seats: --engine rllib --seats A,B)")
    seats = list(module.env().possible_agents)
    if args.seat not in seats:
        raise SystemExit(f"cluegym train: error: {args.game} has no seat {args.seat!r}; seats: {', '.join(seats)}")
    opponents: dict[str, list[str]] = {}
    wildcard: list[str] = []  # '*': every opponent seat not named, whatever the flags' order (as rllib's)
    for seat, spec in _pairs(args.opponent, "--opponent"):
        if seat in ("*", "all"):
            wildcard.append(spec)
            continue
        if seat not in seats or seat == args.seat:
            raise SystemExit(f"cluegym train: error: --opponent seat {seat!r} is not an opponent seat "
                             f"(learner {args.seat!r}; seats: {', '.join(seats)})")
        opponents.setdefault(seat, []).append(spec)
    defaults = getattr(module, "DEFAULT_AGENTS", {})
    for seat in seats:
        if seat != args.seat and seat not in opponents:
            opponents[seat] = list(wildcard) or [defaults.get(seat) or defaults.get("*") or "random"]
    try:
        config = TrainConfig(
            game=args.game, seat=args.seat, algo=args.algo, steps=args.steps, n_envs=args.n_envs, vec=args.vec,
            opponents=opponents, selfplay=args.selfplay, snapshot_every=args.snapshot_every,
            max_snapshots=args.max_snapshots, eval_every=args.eval_every or max(1, args.steps // 4),
            eval_games=args.eval_games, eval_seed=args.eval_seed, baselines=args.baseline,
            shaping=args.shaping, invalid_action_penalty=args.invalid_penalty,
            task_options=parse_options(args.task, "--task"),
            env_kwargs=parse_options(args.env, "--env"),
            algo_kwargs=parse_options(args.algo_arg, "--algo-arg"),
            seed=args.seed, out=args.out or "", overwrite=args.overwrite, tensorboard=args.tensorboard,
            scorer=args.scorer,
        )
        summary = train(config)
    except (AgentSpecError, ValueError, TypeError, FileNotFoundError, FileExistsError, ImportError,
            EvaluationError) as exc:
        raise SystemExit(f"cluegym train: error: {_stopped(exc)}")
    except KeyboardInterrupt as exc:
        raise _interrupted(exc) from None
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
    print(f"policy: {summary['policy']}  (play it: {_play_command(args.game, config.env_kwargs)} "
          f"--agent {args.seat}=ppo:path={summary['policy']})")
    print(f"curve: {config.out}/curve.png  logs: {config.out}/progress.csv, {config.out}/eval.csv")
    return 0


def cmd_train_rllib(args: argparse.Namespace) -> int:
    """``cluegym train GAME --engine rllib``: multi-agent PPO on RLlib (:mod:`.rllib_engine`)."""
    # Deferred on purpose: the RLlib engine imports ray[rllib] (optional and heavy) when it runs.
    from cluegym.harness.distributed import RayNotInstalledError
    from cluegym.training.rllib_engine import RLlibTrainConfig, train_rllib

    sb3_only = {"--seat": args.seat is not None, "--tensorboard": args.tensorboard,
                "--algo": args.algo != "maskable_ppo", "--vec": args.vec != "dummy", "--n-envs": args.n_envs != 4}
    given = [flag for flag, used in sb3_only.items() if used]
    if given:
        raise SystemExit(f"cluegym train: error: {', '.join(given)} belong to the sb3 engine; --engine rllib takes "
                         "--seats, --policies, --num-env-runners, --ray-address (and trains PPO)")
    opponents: dict[str, list[str]] = {}
    for seat, spec in _pairs(args.opponent, "--opponent"):
        opponents.setdefault("*" if seat == "all" else seat, []).append(spec)
    try:
        config = RLlibTrainConfig(
            game=args.game, seats=args.seats, policies=args.policies, steps=args.steps, opponents=opponents,
            selfplay=args.selfplay, snapshot_every=args.snapshot_every, max_snapshots=args.max_snapshots,
            eval_every=args.eval_every or max(1, args.steps // 4), eval_games=args.eval_games,
            eval_seed=args.eval_seed, baselines=args.baseline, invalid_action_penalty=args.invalid_penalty,
            shaping=args.shaping,
            task_options=parse_options(args.task, "--task"),
            env_kwargs=parse_options(args.env, "--env"),
            algo_kwargs=parse_options(args.algo_arg, "--algo-arg"),
            num_env_runners=args.num_env_runners, ray_address=args.ray_address or "local", scorer=args.scorer,
            seed=args.seed, out=args.out or "", overwrite=args.overwrite,
        )
        summary = train_rllib(config)
    except (AgentSpecError, ValueError, TypeError, FileNotFoundError, FileExistsError, ImportError, ConnectionError,
            RayNotInstalledError, EvaluationError) as exc:
        raise SystemExit(f"cluegym train: error: {_stopped(exc)}")
    except KeyboardInterrupt as exc:
        raise _interrupted(exc) from None
    seats = list(summary["policies"])
    print(f"\n{args.game}/{'+'.join(seats)}: RLlib PPO ({args.policies} policies: "
          f"{', '.join(f'{s}->{p}' for s, p in summary['policies'].items())}), {summary['steps_trained']:,} env steps, "
          f"{summary['train_minutes']:.1f} min training")
    if summary["steps_rounding"]:
        print(f"--steps {summary['steps_rounding']}")
    columns = list(summary["seat_metrics"].values())
    pick = (lambda row: {c: row[c] for c in columns})
    # "trained" is the saved checkpoint itself, reloaded and evaluated after the last iteration.
    rows = {"untrained": pick(summary["untrained"]), "trained (checkpoint)": pick(summary["final"]),
            **{f"baseline {spec}": pick(row) for spec, row in summary["baseline_rows"].items()}}
    print(f"each learning seat's metric on {config.eval_games} evaluation games (seed {config.eval_seed}); "
          f"headline {summary['metric']}:")
    print(format_metrics(rows))
    checkpoint = summary["checkpoint"]
    print(f"checkpoint: {checkpoint}  (play it: {_play_command(args.game, config.env_kwargs)} " + " ".join(
        f"--agent {s}=rllib:path={checkpoint},policy={p}" for s, p in summary["policies"].items()) + ")")
    print(f"curve: {config.out}/curve.png  logs: {config.out}/eval.csv, {config.out}/summary.json")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add the ``train`` subcommand to the ``cluegym`` parser."""
    p = subparsers.add_parser("train", help="train one seat with Stable-Baselines3 (self-play, policy pool), or "
                                            "several seats with RLlib (--engine rllib)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help="game name, e.g. decrypto")
    p.add_argument("--engine", choices=("sb3", "rllib"), default="sb3",
                   help="sb3 (default): one seat, Stable-Baselines3; rllib: several learning seats, RLlib PPO with "
                        "action masking (needs cluegym[rllib])")
    p.add_argument("--seat", help="sb3: the learner's seat, e.g. eve (required)")
    p.add_argument("--seats", default="all",
                   help="rllib: the learning seats, comma-separated (e.g. bob,eve) or 'all' (default)")
    p.add_argument("--policies", choices=("shared", "per-seat", "per-role"), default="shared",
                   help="rllib: one policy for every learning seat (shared, default), one per seat, or one per "
                        "role (seats whose tasks share a role share a policy)")
    p.add_argument("--num-env-runners", type=int, default=0,
                   help="rllib: env runner processes sampling in parallel (default 0: sample in the driver)")
    p.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="rllib: join the Ray cluster at HOST:PORT (or 'auto'); default: a Ray of this machine "
                        "on 127.0.0.1, started for the run")
    p.add_argument("--algo", default="maskable_ppo", help="sb3: maskable_ppo (default), ppo, a2c or dqn")
    p.add_argument("--steps", type=int, default=20_000,
                   help="learner env steps (default 20000); rllib: rounded up to whole iterations "
                        "(train_batch_size_per_learner, default 512)")
    p.add_argument("--opponent", action="append", default=[], metavar="SEAT=SPEC",
                   help="add SPEC to SEAT's opponent pool ('*' for every opponent seat not named); repeatable. "
                        "Seats not named play the game's default agents")
    p.add_argument("--selfplay", action="store_true",
                   help="add learner snapshots to the pools of seats with the learner's role (rllib: of a learning "
                        "seat's role, playing that seat's policy)")
    p.add_argument("--snapshot-every", type=int, default=5_000, help="env steps between snapshots (default 5000)")
    p.add_argument("--max-snapshots", type=int, default=5, help="snapshots kept per pool (default 5)")
    p.add_argument("--eval-every", type=int, default=0, help="env steps between evaluations (default steps/4)")
    p.add_argument("--eval-games", type=int, default=100, help="games per evaluation (default 100)")
    p.add_argument("--eval-seed", type=int, default=12_345, help="match seed of the evaluation games")
    p.add_argument("--baseline", action="append", default=[], metavar="SPEC",
                   help="also evaluate this agent in the learner's seat (rllib: in every learning seat) "
                        "(reference line); repeatable")
    p.add_argument("--shaping", type=float, default=0.0,
                   help="potential-based reward shaping scale from the game score (default 0: off)")
    p.add_argument("--invalid-penalty", type=float, default=0.0, help="reward for a rejected action (default 0)")
    p.add_argument("--task", action="append", default=[], metavar="KEY=VALUE",
                   help="seat-task option, e.g. embedding=glove, or metric=success_rate (a game metric) for "
                        "a game without a task of its own, which otherwise reports mean_return (the seat's "
                        "mean episode return); repeatable")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="game option; repeatable")
    p.add_argument("--algo-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="algorithm option (JSON values), e.g. learning_rate=0.0003 (rllib: PPOConfig.training "
                        "keywords, e.g. lr=0.0003, train_batch_size_per_learner=1024, and fcnet_hiddens=[64,64]); "
                        "repeatable")
    p.add_argument("--n-envs", type=int, default=4, help="parallel envs (default 4)")
    p.add_argument("--vec", choices=("dummy", "subproc"), default="dummy", help="vectorisation (default dummy)")
    p.add_argument("--seed", type=int, default=0, help="seed of the model and envs (default 0)")
    p.add_argument("--out", help="run folder (default runs/<game>-<seat>-<algo>-s<seed>)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier run in --out (without it, a folder holding one is refused)")
    p.add_argument("--tensorboard", action="store_true", help="also write TensorBoard logs (needs tensorboard)")
    p.add_argument("--scorer", action=argparse.BooleanOptionalAction, default=True,
                   help="score each choice with one shared network when the task allows (default on)")
    p.set_defaults(func=cmd_train)
