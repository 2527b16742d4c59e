"""Play matches: N seeded games of one game between agents, with metrics and resumable logs.

Each game ``i`` of a match with seed ``s`` is reset with a seed derived from ``(s, i)`` and
every agent with one derived from ``(s, i, seat)``, so a match is reproducible game by game
and can be resumed or extended: with ``results_path`` every finished game is appended to a
JSONL file (its full record) and a rerun skips the games already there.

Example:
    >>> summary = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove", "eve": "word2vec"},
    ...                     games=32, seed=0)
    >>> summary["metrics"]["avg_turns"]
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.base import Agent


def game_seed(seed: int, index: int) -> int:
    """The env seed of game ``index`` of a match seeded ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint64)[0] % (2**63))


def agent_seed(seed: int, index: int, seat_index: int) -> int:
    """The seed of the agent in seat number ``seat_index`` for game ``index``."""
    return int(np.random.SeedSequence([seed, index, 1 + seat_index]).generate_state(1, dtype=np.uint64)[0] % (2**63))


def resolve_seats(game: str, specs: dict[str, str], possible_agents: list[str]) -> dict[str, str]:
    """Fill every seat with an agent spec: explicit seats, then ``*``/``all``, then the game's defaults.

    Raises:
        ValueError: when a spec names a seat the game does not have.
    """
    module = cluegym.env_module(game)
    defaults: dict[str, str] = getattr(module, "DEFAULT_AGENTS", {})
    wildcard = specs.get("*", specs.get("all"))
    unknown = sorted(set(specs) - set(possible_agents) - {"*", "all"})
    if unknown:
        raise ValueError(f"{game} has no seat {', '.join(unknown)}; seats: {', '.join(possible_agents)}")
    seats: dict[str, str] = {}
    for seat in possible_agents:
        spec = specs.get(seat) or wildcard or defaults.get(seat) or defaults.get("*") or "random"
        seats[seat] = spec
    return seats


def build_agents(game: str, env: Any, seats: dict[str, str], seed: int | None = None) -> dict[str, Agent]:
    """One agent per seat from its spec (fresh instances: games never share agent state)."""
    return {
        seat: make_agent(spec, game=game, seat=seat, action_space=env.action_space(seat), seed=seed)
        for seat, spec in seats.items()
    }


async def play_game_async(env: Any, agents: dict[str, Agent], seed: int, agent_seeds: dict[str, int] | None = None,
                          options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play one game to the end and return its record (with per-seat returns)."""
    env.reset(seed=seed, options=options)
    for i, (seat, agent) in enumerate(agents.items()):
        agent.reset(None if agent_seeds is None else agent_seeds[seat])
    returns = {seat: 0.0 for seat in env.possible_agents}
    for seat in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        returns[seat] += float(reward)
        if terminated or truncated:
            action = None
        else:
            action = await agents[seat].act_async(observation, info)
        env.step(action)
    record = env.unwrapped.game_record()
    record["returns"] = returns
    # Agents that learn across games (CoMet's experience pool) see the finished record.
    for agent in agents.values():
        hook = getattr(agent, "observe_result", None)
        if callable(hook):
            outcome = hook(record)
            if inspect.isawaitable(outcome):
                await outcome
    # Agents that log their calls (LLM agents: prompts, replies, latency, tokens) expose
    # drain_log(); their logs travel with the game record.
    logs = {seat: agent.drain_log() for seat, agent in agents.items() if callable(getattr(agent, "drain_log", None))}
    if any(logs.values()):
        record["agent_logs"] = logs
    return record


def play_game(env: Any, agents: dict[str, Agent], seed: int, agent_seeds: dict[str, int] | None = None,
              options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Synchronous :func:`play_game_async`."""
    return asyncio.run(play_game_async(env, agents, seed, agent_seeds, options))


def _load_finished(path: Path, signature: dict[str, Any]) -> dict[int, dict[str, Any]]:
    finished: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return finished
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        # A kill mid-write left a partial last line: cut it off, or the next appended game
        # would be glued to it and lost too. That game is replayed.
        data = data[: data.rfind(b"\n") + 1]
        with path.open("r+b") as fh:
            fh.truncate(len(data))
    for n, line in enumerate(data.decode().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a kill: that game is replayed
        if row.get("match") != signature:
            raise ValueError(
                f"{path} holds games of a different match (line {n}: {row.get('match')}); "
                f"use another --results file for {signature}"
            )
        finished[int(row["index"])] = row["record"]
    return finished


def run_match(
    game: str,
    agents: dict[str, str],
    *,
    games: int = 1,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    concurrency: int = 1,
    results_path: str | Path | None = None,
    summary_path: str | Path | None = None,
    progress: bool = True,
    on_game: Callable[[int, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` seeded games and summarise them.

    Args:
        game: registered game name.
        agents: seat -> agent spec (``"*"`` fills every seat not named; the game's
            ``DEFAULT_AGENTS`` fill the rest).
        games: number of games.
        seed: match seed; game ``i`` uses :func:`game_seed` ``(seed, i)``.
        env_kwargs: game options passed to the env constructor.
        concurrency: games played at once (asyncio); agents that await I/O (LLM backends)
            overlap their requests, others simply run one after another.
        results_path: JSONL file; each finished game is appended, and a rerun resumes.
        summary_path: where to write the JSON summary.
        progress: show a tqdm progress bar.
        on_game: callback ``(index, record)`` after each finished game.

    Returns:
        ``{"game", "seats", "games", "seed", "env", "metrics", "agent_stats", "returns", "wall_s"}``.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    env_kwargs = dict(env_kwargs or {})
    module = cluegym.env_module(game)
    probe = module.env(**env_kwargs)
    seats = resolve_seats(game, agents, list(probe.possible_agents))
    build_agents(game, probe, seats)  # fail fast on a bad spec, before any game runs
    signature = {"game": game, "seats": seats, "seed": seed, "env": env_kwargs}
    results_file = Path(results_path) if results_path else None
    finished = _load_finished(results_file, signature) if results_file else {}
    todo = [i for i in range(games) if i not in finished]
    records: dict[int, dict[str, Any]] = {i: finished[i] for i in range(games) if i in finished}
    agent_stats: dict[str, dict[str, float]] = {seat: {} for seat in seats}

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=games, initial=games - len(todo), desc=f"{game}", unit="game", dynamic_ncols=True)

    # Envs are reused across games (reset() starts each game afresh): building one costs
    # milliseconds (spaces), which shows at high concurrency. At most `concurrency` exist.
    idle_envs: list[Any] = [probe]

    async def one(index: int, semaphore: asyncio.Semaphore) -> None:
        async with semaphore:
            env = idle_envs.pop() if idle_envs else module.env(**env_kwargs)
            players = build_agents(game, env, seats)
            seat_seeds = {s: agent_seed(seed, index, j) for j, s in enumerate(env.possible_agents)}
            try:
                record = await play_game_async(env, players, game_seed(seed, index), seat_seeds)
            finally:
                idle_envs.append(env)
            for seat, agent in players.items():
                for key, value in agent.stats().items():
                    agent_stats[seat][key] = agent_stats[seat].get(key, 0.0) + float(value)
            records[index] = record
            if results_file:
                results_file.parent.mkdir(parents=True, exist_ok=True)
                with results_file.open("a") as fh:
                    fh.write(json.dumps({"match": signature, "index": index, "record": record}) + "\n")
            if on_game:
                on_game(index, record)
            if bar is not None:
                bar.update(1)

    async def main() -> None:
        semaphore = asyncio.Semaphore(concurrency)
        await asyncio.gather(*(one(i, semaphore) for i in todo))

    start = time.perf_counter()
    try:
        asyncio.run(main())
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - start
    ordered = [records[i] for i in sorted(records)]
    results = [r["result"] for r in ordered]
    returns = {seat: float(np.mean([r["returns"][seat] for r in ordered])) for seat in seats}
    summary = {
        "game": game,
        "seats": seats,
        "games": len(ordered),
        "seed": seed,
        "env": env_kwargs,
        "metrics": _metrics(module, results, seats),
        "agent_stats": agent_stats,
        "mean_return": returns,
        "wall_s": wall,
        "games_per_s": len(todo) / wall if wall > 0 and todo else None,
    }
    summary["first_game"] = ordered[0] if ordered else None
    if summary_path:
        Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
        Path(summary_path).write_text(json.dumps({k: v for k, v in summary.items() if k != "first_game"}, indent=2))
    return summary


def _metrics(module: Any, results: list[dict[str, Any]], seats: dict[str, str]) -> dict[str, Any]:
    """The game's metrics; per agent too (``agent:<spec>``) when seats hold different agents
    and the game's ``metrics`` takes an ``agents`` mapping (Dixit)."""
    if len(set(seats.values())) > 1 and "agents" in inspect.signature(module.metrics).parameters:
        return module.metrics(results, agents=seats)
    return module.metrics(results)


def format_metrics(metrics: dict[str, Any]) -> str:
    """A two-column text table of metrics."""
    width = max((len(k) for k in metrics), default=0)
    lines = []
    for key, value in metrics.items():
        if isinstance(value, float):
            shown = f"{value:.3f}"
        elif isinstance(value, dict):
            shown = ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in value.items())
        else:
            shown = str(value)
        lines.append(f"  {key:<{width}}  {shown}")
    return "\n".join(lines)
