"""Table 1 of the Decrypto paper: replay recorded games' hints to a new decoder or interceptor.

The paper collected 9 games of human encoder-decoder teams and showed their hints, turn by
turn, to other agents playing Eve (top half: events = interceptions) or Bob (bottom half:
events = miscommunications). This driver does the same with any finished games recorded by
``cluegym run decrypto --results games.jsonl`` (human games included, once recorded): for each
game and turn it rebuilds what the new seat would have seen (keywords for Bob, the hint and
code history of the earlier turns, the turn's hints) with the env's own view
(:meth:`~cluegym.envs.decrypto.env.DecryptoEnv.view`), asks the new agent, and rescores the
game with its guesses in place of the recorded seat's, the other guesser's recorded guesses
kept.

Metrics per new agent, as in the paper's columns (mean +- standard error over ``--seeds``
agent seeds): Events (total over the games), Event Rate (events per turn replayed), Surv. Rate
(share of games the encoders survive) and Avg. Game Len. (turns until the rescored game ends).
A rescored game ends at the first turn where either limit is reached. Games that the new seat
would have prolonged beyond the recorded turns (the recorded game ended on the old seat's
events) cannot be continued: they are counted as ``truncated`` and left out of the survival
rate. The paper avoided this by letting its humans play all 8 turns; record games with
``--env miscommunication_limit=99 --env interception_limit=99`` to do the same.

Usage:
    cluegym run decrypto --agent alice=glove:k=16 --agent bob=glove --agent eve=glove --games 9 \\
        --env miscommunication_limit=99 --env interception_limit=99 --results games.jsonl
    python -m cluegym.benchmarks.decrypto_table1 --results games.jsonl --role interceptor \\
        --agent glove --agent word2vec --agent minilm
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Iterable

import numpy as np
from tqdm import tqdm

import cluegym
from cluegym.agents import make_agent
from cluegym.benchmarks.decrypto_figure3 import parse_agents
from cluegym.benchmarks.usage import check_outputs, check_seat_specs, positive_int
from cluegym.envs.decrypto.rules import DecryptoState, TurnRecord

#: role name -> (the seat replaced, the event it counts)
ROLES: dict[str, tuple[str, str]] = {"interceptor": ("eve", "interception"), "decoder": ("bob", "miscommunication")}
#: Options of the recorded game that shape the view (the limits of the rescoring are the
#: driver's own, 2 and 2 by default: recorded games may have been played past them).
GAME_OPTIONS = ("max_turns", "code_length", "num_keywords")


def read_games(path: str | Path) -> list[dict[str, Any]]:
    """The finished Decrypto game records of a ``cluegym run --results`` JSONL file.

    Raises:
        FileNotFoundError: no such file.
        ValueError: a line that is not JSON, or no finished Decrypto game in the file.
    """
    games = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
        record = row.get("record") if isinstance(row, dict) else None
        result = (record or {}).get("result") or {}
        if result.get("history") and result.get("keywords"):
            games.append(record)
    if not games:
        raise ValueError(f"{path}: no finished Decrypto game records (write them with cluegym run --results)")
    return games


def replay_game(record: dict[str, Any], seat: str, agent: Any | None, env: Any) -> dict[str, Any]:
    """Replay one recorded game with ``agent`` guessing in ``seat`` (None: the recorded
    guesses, rescored under ``env``'s limits); the rescored outcome.

    Returns:
        ``{"turns", "events", "survived", "truncated", "guesses"}``: turns until the rescored
        game ends, the new seat's events, whether the encoders survived, whether the record ran
        out before the rescored game ended, and the new guesses (codes).
    """
    config = env.unwrapped.game_config
    history = [TurnRecord(turn=t["turn"], code=tuple(t["code"]), hints=tuple(t["hints"]),
                          bob_guess=tuple(t["bob_guess"]), eve_guess=tuple(t["eve_guess"]))
               for t in record["result"]["history"]]
    keywords = tuple(record["result"]["keywords"])
    codes = env.unwrapped.codes
    played: list[TurnRecord] = []
    mis = inter = events = 0
    guesses = []
    if agent is not None:
        agent.reset(seed=int(record.get("seed") or 0))
    for turn in history:
        state = DecryptoState(keywords=keywords, turn=turn.turn, phase="decode", code=turn.code, hints=turn.hints,
                              history=list(played), miscommunications=mis, interceptions=inter)
        if agent is None:
            guess = turn.bob_guess if seat == "bob" else turn.eve_guess
        else:
            guess = tuple(codes[int(agent.act(env.unwrapped.view(state, seat), {}))])
        guesses.append(list(guess))
        new = TurnRecord(turn=turn.turn, code=turn.code, hints=turn.hints,
                         bob_guess=guess if seat == "bob" else turn.bob_guess,
                         eve_guess=guess if seat == "eve" else turn.eve_guess)
        played.append(new)
        mis += new.miscommunication
        inter += new.interception
        events += new.miscommunication if seat == "bob" else new.interception
        if mis >= config.miscommunication_limit or inter >= config.interception_limit:
            return {"turns": len(played), "events": events, "survived": False, "truncated": False, "guesses": guesses}
        if len(played) >= config.max_turns:
            return {"turns": len(played), "events": events, "survived": True, "truncated": False, "guesses": guesses}
    return {"turns": len(played), "events": events, "survived": False, "truncated": True, "guesses": guesses}


def mean_sem(values: Iterable[float]) -> tuple[float, float]:
    """Mean and standard error (ddof=1; 0 for one value)."""
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return float("nan"), 0.0
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(arr.size)) if arr.size > 1 else 0.0


def score(replays: list[dict[str, Any]]) -> dict[str, float]:
    """Events, event rate, survival rate (of the games not truncated), average length, truncated."""
    turns = sum(r["turns"] for r in replays)
    decided = [r for r in replays if not r["truncated"]]
    return {
        "events": float(sum(r["events"] for r in replays)),
        "event_rate": sum(r["events"] for r in replays) / max(turns, 1),
        "survival_rate": float(np.mean([r["survived"] for r in decided])) if decided else float("nan"),
        "avg_length": turns / max(len(replays), 1),
        "truncated": float(sum(r["truncated"] for r in replays)),
    }


def recorded_score(games: list[dict[str, Any]], seat: str, env: Any) -> dict[str, float]:
    """The recorded seat's own row, rescored under the same limits (the paper's "Human" row
    when the records are human games)."""
    return score([replay_game(record, seat, None, env) for record in games])


def make_env(games: list[dict[str, Any]], miscommunication_limit: int = 2, interception_limit: int = 2) -> Any:
    """The env whose view and limits the replay uses: the records' game shape, these limits."""
    options = {k: v for k, v in (games[0].get("config") or {}).items() if k in GAME_OPTIONS}
    return cluegym.make("decrypto", miscommunication_limit=miscommunication_limit,
                        interception_limit=interception_limit, **options)


def run(games: list[dict[str, Any]], role: str, agents: dict[str, str], seeds: int, env: Any,
        progress: bool = True) -> dict[str, dict[str, tuple[float, float]]]:
    """Every agent replays every game once per seed; per agent, mean +- s.e. of :func:`score`."""
    seat, _ = ROLES[role]
    table: dict[str, dict[str, tuple[float, float]]] = {}
    bar = tqdm(total=len(agents) * seeds * len(games), desc=f"table 1 ({role})", unit="game", disable=not progress)
    for label, spec in agents.items():
        per_seed = []
        for seed in range(seeds):
            agent = make_agent(spec, game="decrypto", seat=seat, action_space=env.action_space(seat), seed=seed)
            replays = []
            for record in games:
                replays.append(replay_game(record, seat, agent, env))
                bar.update(1)
            per_seed.append(score(replays))
        table[label] = {key: mean_sem(s[key] for s in per_seed) for key in per_seed[0]}
    bar.close()
    return table


def format_table(table: dict[str, dict[str, tuple[float, float]]], role: str, recorded: dict[str, float]) -> str:
    """The paper's columns: Events, Event Rate, Surv. Rate, Avg. Game Len. (+ truncated)."""
    header = f"{'role':<12} {'model':<24} {'events':>14} {'event rate':>17} {'surv. rate':>17} {'avg. len':>13} {'truncated':>9}"
    lines = [header, "-" * len(header)]

    def row(label: str, stats: dict[str, tuple[float, float]]) -> str:
        e, r, s, n, t = (stats[k] for k in ("events", "event_rate", "survival_rate", "avg_length", "truncated"))
        return (f"{role:<12} {label:<24} {e[0]:>7.2f} +- {e[1]:4.2f} {100 * r[0]:>8.2f}% +- {100 * r[1]:4.2f}"
                f" {100 * s[0]:>8.2f}% +- {100 * s[1]:4.2f} {n[0]:>6.2f} +- {n[1]:4.2f} {t[0]:>9.1f}")

    for label, stats in table.items():
        lines.append(row(label, stats))
    lines.append(row("(recorded seat)", {k: (v, 0.0) for k, v in recorded.items()}))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", required=True, help="a cluegym run --results JSONL of Decrypto games")
    parser.add_argument("--role", choices=sorted(ROLES), default="interceptor",
                        help="the seat the new agents take: interceptor (Eve) or decoder (Bob)")
    parser.add_argument("--agent", action="append", metavar="[LABEL=]SPEC",
                        help="a new guesser (repeat; default: glove, word2vec)")
    parser.add_argument("--seeds", type=positive_int, default=3, help="agent seeds (the paper's 3)")
    parser.add_argument("--miscommunication-limit", type=positive_int, default=2, help="rescoring limit (default 2)")
    parser.add_argument("--interception-limit", type=positive_int, default=2, help="rescoring limit (default 2)")
    parser.add_argument("--json", help="also write the table here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    # --json the same file as --results overwrote the recorded games with the table
    check_outputs(parser, {"--json": args.json}, inputs={"--results": args.results})
    try:
        games = read_games(args.results)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    seat = ROLES[args.role][0]
    try:
        agents = parse_agents(args.agent, default={"glove": "glove", "word2vec": "word2vec"})
        # checked before any replay (a bad one failed after the others)
        check_seat_specs("decrypto", ((f"--agent {label}", seat, spec) for label, spec in agents.items()))
        env = make_env(games, args.miscommunication_limit, args.interception_limit)
    except ValueError as exc:  # also a limit the game refuses, or records of another game shape
        parser.error(str(exc))
    start = time.perf_counter()
    table = run(games, args.role, agents, args.seeds, env, progress=not args.no_progress)
    recorded = recorded_score(games, ROLES[args.role][0], env)
    print(format_table(table, args.role, recorded))
    print(f"{len(games)} recorded games x {args.seeds} seeds per agent; {time.perf_counter() - start:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"role": args.role, "agents": table, "recorded": recorded}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
