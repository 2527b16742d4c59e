"""Decrypto theory-of-mind experiments (paper section 5): Tables 2 and 3.

* **Table 2 (perspective taking).** After giving her hints, Alice is asked what Eve will
  guess (Listing 9). *Total Predict* = share of turns where the prediction equals Eve's
  actual guess; *Intercept Predict* = the same over the turns where Eve intercepted.
* **Table 3 (representational change, false belief).** From turn 2 on, Eve's context is
  branched before she guesses and prompted independently three times: (1) what are the
  keywords? (2) [keywords revealed] what did you think they were before the reveal? (3)
  [keywords revealed] what would a second Interceptor, who saw everything but the reveal,
  think they are? Strong RC: answer 2 == answer 1; strong FB: answer 3 == answer 1; weak
  RC/FB: answer 2/3 is not the real keywords. Questions 2 and 3 are asked after the game on
  the stored branch (the context is frozen, so this equals asking at the time), since Eve's
  agent never learns the keywords during play.

Run from the command line (the default plays the local SmolLM2; give an endpoint for real models)::

    python -m cluegym.benchmarks.decrypto_tom --games 4 --env max_turns=3
    python -m cluegym.benchmarks.decrypto_tom --games 32 --spec "llm-cot:backend=openai,model=gpt-4o-mini"

The probes themselves are part of the ``llm-cot`` Decrypto agents (``tom=true``, see
:mod:`cluegym.agents.llm.adapters.decrypto`); this module plays the games and scores them.

Example:
    Against a stand-in for a real endpoint (an OpenAI-compatible server on 127.0.0.1 whose
    "model" answers the keyword probes with fixed words and everything else as
    :func:`~cluegym.agents.llm.fake_server.decrypto_reply` does):

    >>> from cluegym.agents.llm.fake_server import FakeChatServer, decrypto_reply
    >>> def reply(request):
    ...     last = request["messages"][-1]["content"]
    ...     if "keywords are?" in last or "keywords were?" in last:
    ...         return 'ANSWER: {"keywords": ["sea", "star", "tree", "sky"]}'
    ...     return decrypto_reply({"messages": request["messages"][-1:]})
    >>> with FakeChatServer(reply) as server:
    ...     out = run_tom_eval(games=2, spec=f"llm-cot:backend=openai,base_url={server.base_url},model=m")
    >>> out["table2"]["predictions"], out["table2"]["total_predict"], out["table3"]["strong_rc"]
    (4, 0.0, 1.0)
    >>> out["records"][0]["tom"]["belief_probes"][0]["q1"]
    ['sea', 'star', 'tree', 'sky']
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any, Sequence

import numpy as np
from tqdm.auto import tqdm

from cluegym.agents import make_agent, parse_agent_spec
from cluegym.benchmarks.usage import (check_outputs, check_seat_specs, parse_options,
                                      positive_int)
from cluegym.envs.core.registry import env_module
from cluegym.harness import GameSlots, agent_seed, game_seed, own_seed_of, play_game_async, run_carrying_stops
from cluegym.harness.runner import check_match_counts

__all__ = ["main", "prediction_rows", "run_tom_eval", "table2", "table3"]


def _with_tom(spec: str) -> str:
    name, params = parse_agent_spec(spec)
    params.setdefault("tom", "true")
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


def seat_specs(spec: str, alice: str | None = None, bob: str | None = None,
               eve: str | None = None) -> dict[str, str]:
    """The spec each seat plays (``tom=true`` added for Alice and Eve), as :func:`run_tom_eval` builds them.

    Example:
        >>> seat_specs("llm-cot:model=m")["alice"]
        'llm-cot:model=m,tom=true'
    """
    return {"alice": _with_tom(alice or spec), "bob": bob or spec, "eve": _with_tom(eve or spec)}


def prediction_rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Alice's last prediction of Eve's guess per turn, with Eve's actual guess."""
    predictions: dict[int, list[int]] = {}
    for call in record.get("agent_logs", {}).get("alice", []):
        tom = call.get("tom") or {}
        if tom.get("probe") == "predict_eve" and call.get("parsed") is not None:
            predictions[int(tom["turn"])] = list(call["parsed"])
    rows = []
    for turn in record.get("result", {}).get("history", []):
        if turn["turn"] in predictions:
            rows.append({"turn": turn["turn"], "predicted": predictions[turn["turn"]], "eve_guess": turn["eve_guess"],
                         "interception": bool(turn["interception"])})
    return rows


def table2(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Table 2 over games: ``total_predict``, ``intercept_predict`` (NaN without
    interceptions) and the counts behind them."""
    rows = [row for record in records for row in prediction_rows(record)]
    hits = [row["predicted"] == row["eve_guess"] for row in rows]
    on_intercept = [h for h, row in zip(hits, rows) if row["interception"]]
    return {
        "total_predict": float(np.mean(hits)) if hits else float("nan"),
        "intercept_predict": float(np.mean(on_intercept)) if on_intercept else float("nan"),
        "predictions": len(rows),
        "intercept_turns": len(on_intercept),
    }


def table3(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Table 3 over probe rows ``{"q1", "q2", "q3", "truth"}``: strong/weak representational
    change and false belief pass rates (rows with an unreadable answer are left out of
    that measure and counted in ``unreadable``)."""
    def rate(values: list[bool]) -> float:
        return float(np.mean(values)) if values else float("nan")

    rc = [r for r in rows if r["q1"] is not None and r["q2"] is not None]
    fb = [r for r in rows if r["q1"] is not None and r["q3"] is not None]
    return {
        "strong_rc": rate([r["q2"] == r["q1"] for r in rc]),
        "strong_fb": rate([r["q3"] == r["q1"] for r in fb]),
        "weak_rc": rate([r["q2"] != r["truth"] for r in rows if r["q2"] is not None]),
        "weak_fb": rate([r["q3"] != r["truth"] for r in rows if r["q3"] is not None]),
        "probes": len(rows),
        "unreadable": sum(r[q] is None for r in rows for q in ("q1", "q2", "q3")),
    }


async def _play_tom_games(specs: dict[str, str], games: int, seed: int, env_kwargs: dict[str, Any],
                          concurrency: int, progress: bool) -> list[dict[str, Any]]:
    module = env_module("decrypto")
    slots = GameSlots(concurrency)
    records: dict[int, dict[str, Any]] = {}
    bar = tqdm(total=games, desc="decrypto ToM", unit="game") if progress else None

    async def one(index: int) -> None:
        env = module.env(**env_kwargs)
        agents = {seat: make_agent(spec, game="decrypto", seat=seat, action_space=env.action_space(seat))
                  for seat, spec in specs.items()}
        seeds = {s: agent_seed(seed, index, j, own_seed_of(agents[s])) for j, s in enumerate(env.possible_agents)}
        record = await play_game_async(env, agents, game_seed(seed, index), seeds)
        eve = agents["eve"]
        rows = await eve.belief_probes(record["result"]["keywords"]) if hasattr(eve, "belief_probes") else []
        record.setdefault("agent_logs", {}).setdefault("eve", []).extend(eve.drain_log() if hasattr(eve, "drain_log") else [])
        record["tom"] = {"belief_probes": rows, "predictions": prediction_rows(record)}
        records[index] = record
        if bar is not None:
            bar.update(1)

    try:
        await asyncio.gather(*(slots.play(lambda i=i: one(i)) for i in range(games)))
    finally:
        if bar is not None:
            bar.close()
    return [records[i] for i in sorted(records)]


def run_tom_eval(spec: str = "llm-cot", *, alice: str | None = None, bob: str | None = None, eve: str | None = None,
                 games: int = 4, seed: int = 0, env_kwargs: dict[str, Any] | None = None, concurrency: int = 1,
                 progress: bool = False) -> dict[str, Any]:
    """Play Decrypto games with ToM probes and return Tables 2 and 3.

    Args:
        spec: agent spec for every seat (``tom=true`` is added for Alice and Eve).
        alice, bob, eve: per-seat specs overriding ``spec``.
        games: number of games; ``seed``: match seed (games are seeded as in run_match).
        env_kwargs: Decrypto options (e.g. ``{"max_turns": 4}``).
        concurrency: games at once.

    Returns:
        ``{"table2", "table3", "metrics", "records"}``.

    Raises:
        ValueError: ``games`` or ``concurrency`` under 1, or a bad ``seed`` (before any agent
            is built): ``games=0`` returned NaN tables.
    """
    check_match_counts(games, seed, concurrency)
    specs = seat_specs(spec, alice, bob, eve)
    records = run_carrying_stops(_play_tom_games(specs, games, seed, dict(env_kwargs or {}), concurrency, progress))
    rows = [row for record in records for row in record["tom"]["belief_probes"]]
    metrics = env_module("decrypto").metrics([r["result"] for r in records])
    return {"table2": table2(records), "table3": table3(rows), "metrics": metrics, "records": records, "specs": specs}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cluegym.benchmarks.decrypto_tom",
                                     description="Decrypto theory-of-mind probes (paper Tables 2 and 3).")
    parser.add_argument("--spec", default="llm-cot", help="agent spec for every seat (default llm-cot, local SmolLM2)")
    parser.add_argument("--alice")
    parser.add_argument("--bob")
    parser.add_argument("--eve")
    parser.add_argument("--games", type=positive_int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=positive_int, default=1)
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", help="write tables and records as JSON here")
    args = parser.parse_args(argv)
    # every usage error before the first (LLM) game: a bad --out was found after all of them
    if args.seed < 0:  # else refused by the first game, after its agents (a model) were built
        parser.error(f"--seed must be an integer >= 0, got {args.seed}")
    check_outputs(parser, {"--out": args.out})
    env_kwargs = parse_options(args.env, "--env", parser=parser)
    try:
        env_module("decrypto").env(**env_kwargs)  # the options every game builds its env with
        check_seat_specs("decrypto", ((f"{seat} plays {spec!r}", seat, spec)
                                      for seat, spec in seat_specs(args.spec, args.alice, args.bob, args.eve).items()))
    except ValueError as exc:
        parser.error(str(exc))
    out = run_tom_eval(args.spec, alice=args.alice, bob=args.bob, eve=args.eve, games=args.games, seed=args.seed,
                       env_kwargs=env_kwargs, concurrency=args.concurrency, progress=True)
    print("Table 2 (Alice predicts Eve):", json.dumps(out["table2"]))
    print("Table 3 (Eve RC/FB):", json.dumps(out["table3"]))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
