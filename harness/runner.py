"""Run a match: N seeded games of one game between agents, with metrics and resumable logs.

Each game ``i`` of a match with seed ``s`` is reset with :func:`~cluegym.harness.game_seed`
``(s, i)`` and every agent with :func:`~cluegym.harness.agent_seed` ``(s, i, seat)`` (and
its spec's ``seed=``, when it has one), so a
match is reproducible game by game and can be resumed or extended: with ``results_path``
every finished game is appended to a JSONL file (its full record and its agents' counters)
and a rerun skips the games already there, so a resumed summary equals an uninterrupted one.

No game is lost to an agent (see :mod:`cluegym.harness.play`). Anything else that fails
inside a game (env, agent reset, an env bug) ends only that game: it is logged as errored
with its reason, the other games go on, and a rerun replays it. The summary says
``"ok": false`` (and ``cluegym run`` exits 1) when a game errored or a seat never got a
decision through (e.g. a dead LLM endpoint).

Games run in this process (``concurrency`` at once), or with ``ray_address`` as Ray tasks
across a cluster (:mod:`~cluegym.harness.distributed`): the same rows either way.

The harness does not know the agent registry: the caller passes the agent factory
(:func:`cluegym.agents.run_match` passes :func:`cluegym.agents.make_agent`).

Example:
    >>> from cluegym.agents import make_agent
    >>> summary = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove", "eve": "word2vec"},
    ...                     make_agent=make_agent, games=32, seed=0, progress=False)
    >>> summary["metrics"]["avg_turns"], summary["ok"]
    (4.5, True)
"""

from __future__ import annotations

import asyncio
import inspect
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import numpy as np
from tqdm.auto import tqdm

from cluegym.envs.core.registry import env_module
from cluegym.envs.core.text import is_integer
from cluegym.harness.agent_protocol import AgentFactory, MatchAgent
from cluegym.harness.distributed import check_ray_address, play_games_on_ray
from cluegym.harness.match_game import play_match_game_async
from cluegym.harness.play import agent_game_stats
from cluegym.harness.results import (check_writable, error_text, json_options, load_rows, match_signature,
                                     seat_counters, sum_agent_stats, write_json_atomic)
from cluegym.harness.seats import build_agents, resolve_seats
from cluegym.harness.seeding import check_match_seed
from cluegym.harness.stopping import GameSlots, run_carrying_stops

__all__ = ["POSTFIX_EVERY_S", "MatchProgress", "check_match_counts", "format_metrics", "resumed_rows", "run_match", "summarize"]

#: Seconds between progress-bar postfix updates (LLM counters polled from the live agents).
POSTFIX_EVERY_S = 0.5


class MatchProgress:
    """The tqdm bar of one match and its postfix (``calls= retries= failed= last= errored=``).

    Attributes:
        bar: the tqdm bar (one step per finished or errored game).
        live: game index -> the agents of a game being played (their counters show live).
        finished: counters summed over the games finished in this run.
        errored: games that errored in this run.
    """

    def __init__(self, game: str, total: int, done: int) -> None:
        self.bar = tqdm(total=total, initial=done, desc=game, unit="game", dynamic_ncols=True)
        self.finished: dict[str, float] = {}
        self.live: dict[int, dict[str, MatchAgent]] = {}
        self.errored = 0
        self.last_latency: float | None = None
        self._calls_seen: dict[tuple[int, str], float] = {}

    def game_done(self, index: int, stats: dict[str, dict[str, float]], errored: bool) -> None:
        """Count game ``index`` (its agents' final counters) and advance the bar."""
        self.live.pop(index, None)
        for seat, seat_stats in stats.items():
            self._note_latency((index, seat), seat_stats)
            self._calls_seen.pop((index, seat), None)
            for key, value in seat_stats.items():
                if not key.startswith("last_"):
                    self.finished[key] = self.finished.get(key, 0.0) + value
        self.errored += errored
        self.refresh()
        self.bar.update(1)

    def _note_latency(self, key: tuple[int, str], seat_stats: dict[str, float]) -> None:
        """Keep the latency of a seat that made a call since the last look."""
        calls = seat_stats.get("llm_calls", 0.0)
        if calls > self._calls_seen.get(key, 0.0) and "last_latency_s" in seat_stats:
            self.last_latency = seat_stats["last_latency_s"]
        self._calls_seen[key] = calls

    def refresh(self) -> None:
        """Recompute the postfix from the finished games and the live agents."""
        totals = dict(self.finished)
        for index, agents in self.live.items():
            for seat, seat_stats in agent_game_stats(agents).items():
                self._note_latency((index, seat), seat_stats)
                for key, value in seat_stats.items():
                    totals[key] = totals.get(key, 0.0) + value
        parts = []
        if "llm_calls" in totals:
            parts.append(f"calls={totals['llm_calls']:.0f}")
            parts.append(f"retries={totals.get('http_retries', 0.0):.0f}")
            parts.append(f"failed={totals.get('failed_calls', 0.0):.0f}")
            if self.last_latency is not None:
                parts.append(f"last={self.last_latency:.2f}s")
        if self.errored:
            parts.append(f"errored={self.errored}")
        if parts:
            self.bar.set_postfix_str(" ".join(parts), refresh=False)

    async def poll(self) -> None:
        """Refresh the postfix every :data:`POSTFIX_EVERY_S` seconds until cancelled."""
        while True:
            await asyncio.sleep(POSTFIX_EVERY_S)
            self.refresh()
            self.bar.refresh()

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()


def check_match_counts(games: int, seed: int, concurrency: int) -> None:
    """Raise ValueError for a match's ``games`` or ``concurrency`` under 1 or a negative match
    ``seed``, TypeError for one that is no integer: what :func:`run_match` and the benchmarks
    that play their own matches check before any game.

    Example:
        >>> check_match_counts(0, 0, 1)
        Traceback (most recent call last):
        ValueError: games must be >= 1, got 0
    """
    check_count("games", games)
    check_match_seed(seed)
    check_count("concurrency", concurrency)


def check_count(name: str, count: Any) -> None:
    """Raise TypeError unless ``count`` is an integer (a float or a bool, ``1.5`` or ``True``,
    failed in ``range()`` inside the event loop, or counted as 1), ValueError when it is under 1.

    Example:
        >>> check_count("steps", 2.5)
        Traceback (most recent call last):
        TypeError: steps must be an integer >= 1, got 2.5
    """
    if not is_integer(count):
        raise TypeError(f"{name} must be an integer >= 1, got {count!r}")
    if count < 1:
        raise ValueError(f"{name} must be >= 1, got {count}")


def run_match(
    game: str,
    agents: dict[str, str],
    *,
    make_agent: AgentFactory,
    games: int = 1,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    concurrency: int = 1,
    results_path: str | Path | None = None,
    summary_path: str | Path | None = None,
    progress: bool = True,
    on_game: Callable[[int, dict[str, Any]], None] | None = None,
    ray_address: str | None = None,
) -> dict[str, Any]:
    """Play ``games`` seeded games and summarise them.

    Everything that can be checked before play is: game options, seats, agent specs (each
    built once), both output paths (writable, not directories) and the results file's rows.

    Args:
        game: registered game name.
        agents: seat -> agent spec (``"*"`` fills every seat not named; the game's
            ``DEFAULT_AGENTS`` fill the rest).
        make_agent: the agent factory that turns a spec into an agent, e.g.
            :func:`cluegym.agents.make_agent`.
        games: number of games.
        seed: match seed; game ``i`` uses :func:`game_seed` ``(seed, i)``.
        env_kwargs: game options passed to the env constructor.
        concurrency: games played at once (asyncio); agents that await I/O (LLM backends)
            overlap their requests, others simply run one after another. Local runs only.
        results_path: JSONL file; each finished or errored game is appended, and a rerun
            resumes (errored games are played again).
        summary_path: where to write the JSON summary (also when games errored).
        progress: show a tqdm progress bar.
        on_game: callback ``(index, record)`` after each finished (not errored) game.
        ray_address: play the games as Ray tasks on this cluster (``"HOST:PORT"``, ``"auto"``
            or ``"local"``; see :mod:`cluegym.harness.distributed`), on as many workers as it
            gives; ``make_agent`` must be importable there. Rows, records and summary are those
            of a local run. Needs ``pip install 'cluegym[rllib]'``.

    Returns:
        ``{"game", "seats", "games", "seed", "env", "metrics", "agent_stats", "seat_counters",
        "mean_return", "errored_games", "ok", "problems", "wall_s", "games_per_s", "first_game"}``;
        ``games`` counts the finished games, ``errored_games`` is ``{"count", "games": [{"index",
        "error"}]}``, ``problems`` says why ``ok`` is false.

    Raises:
        ValueError: a bad option, seat, spec, path or results row, or a negative seed (before any
            game runs). TypeError: a seed that is no integer.
        RayNotInstalledError: ``ray_address`` without Ray installed (before any game runs).
        ConnectionError: no Ray cluster at ``ray_address``.
        KeyboardInterrupt, asyncio.CancelledError: the run was stopped; finished games stay
            in ``results_path``; in-flight games are cancelled (on Ray: they stop with the
            connection this call opened, or at their next check of the run's stop signal on
            one it found open, see :func:`~cluegym.harness.distributed.play_games_on_ray`).
    """
    check_match_counts(games, seed, concurrency)
    if ray_address is not None:
        check_ray_address(ray_address)
    env_kwargs = json_options(env_kwargs or {})  # what the record and the results file hold
    module = env_module(game)
    probe = module.env(**env_kwargs)
    seats = resolve_seats(game, agents, list(probe.possible_agents))
    build_agents(game, probe, seats, make_agent=make_agent)  # fail fast on a bad spec, before any game runs
    results_file = Path(results_path) if results_path else None
    summary_file = Path(summary_path) if summary_path else None
    if results_file and summary_file and results_file.resolve() == summary_file.resolve():
        raise ValueError(f"--results and --summary are the same file: {results_file}")
    if summary_file:
        check_writable(summary_file, "--summary", create=False)
    signature = match_signature(game, seats, seed, env_kwargs)
    seed = signature["seed"]  # a numpy integer as a Python one: it goes into every row
    rows = resumed_rows(module, results_file, signature) if results_file else {}
    finished = sum(1 for i, row in rows.items() if i < games and "record" in row)
    to_play = games - finished
    # The games left, in order, made as they are taken: a list of them (and a task per game)
    # took gigabytes before the first game of a match of millions.
    todo = (i for i in range(games) if "record" not in rows.get(i, {}))

    bar = MatchProgress(game, games, finished) if progress else None
    # Envs are reused across games (reset() starts each game afresh): building one costs
    # milliseconds (spaces), which shows at high concurrency. At most `concurrency` exist.
    idle_envs: list[Any] = [probe]

    def record_row(index: int, row: dict[str, Any], line: str) -> None:
        # A finished or errored game, played here or on a Ray worker: kept for the summary,
        # appended to the results file, counted on the bar.
        rows[index] = row
        if results_file:
            with results_file.open("a") as fh:
                fh.write(line)
        if bar is not None:
            bar.game_done(index, row["agent_stats"], "error" in row)
        if on_game and "record" in row:
            on_game(index, row["record"])

    async def one(index: int) -> None:
        def show_live(players: dict[str, MatchAgent]) -> None:
            if bar is not None:
                bar.live[index] = players

        row, line, env = await play_match_game_async(
            game, seats, index, seed=seed, signature=signature, make_agent=make_agent,
            new_env=lambda: idle_envs.pop() if idle_envs else module.env(**env_kwargs), on_agents=show_live,
        )
        if env is not None:
            idle_envs.append(env)
        record_row(index, row, line)

    async def play_all() -> None:
        # GameSlots: once a game raised (an agent's KeyboardInterrupt, an unwritable results
        # file), no waiting game starts, and the stop is re-raised once the loop is closed.
        slots = GameSlots(concurrency)

        async def player() -> None:
            # Each of `concurrency` players takes the next game left until none is (the
            # generator is shared: every index is taken once, in order).
            for index in todo:
                await slots.play(lambda index=index: one(index))
                if slots.stopping:
                    return
                # The loop's turn between games: a game whose agents never await (random,
                # the embedding baselines) plays without yielding, and Ctrl-C (asyncio.run
                # cancels this run at its next yield) went unheard until the last game.
                await asyncio.sleep(0)

        players = [asyncio.create_task(player()) for _ in range(min(concurrency, to_play))]
        tasks = players + ([asyncio.create_task(bar.poll())] if bar is not None else [])
        try:
            # Games end on their own; one() only raises for what is not a game's fault (the
            # results file cannot be written, an on_game callback failed): that stops the run.
            await asyncio.gather(*players)
        finally:
            # Stopped (Ctrl-C, cancellation, or the failure above): cancel the games still
            # playing, so their HTTP requests are cancelled too; finished games are kept.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    start = time.perf_counter()
    try:
        if ray_address is None:
            run_carrying_stops(play_all())
        elif to_play:
            play_games_on_ray(ray_address, list(todo), game=game, seats=seats, seed=seed, env_kwargs=env_kwargs,
                              signature=signature, make_agent=make_agent, on_row=record_row)
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - start
    summary = summarize(module, game, seats, seed, env_kwargs, {i: rows[i] for i in sorted(rows) if i < games})
    summary["wall_s"] = wall
    summary["games_per_s"] = to_play / wall if wall > 0 and to_play else None
    if summary_file:
        write_json_atomic(summary_file, {k: v for k, v in summary.items() if k != "first_game"})
    return summary


def summarize(module: ModuleType, game: str, seats: dict[str, str], seed: int, env_kwargs: dict[str, Any],
              rows: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The summary of a match from its game rows (index -> row with ``record`` or ``error``).

    Only the rows count, so a resumed match sums the same counters as an uninterrupted one.
    """
    ordered = [rows[i]["record"] for i in sorted(rows) if "record" in rows[i]]
    errored = [{"index": i, "error": rows[i]["error"]} for i in sorted(rows) if "record" not in rows[i]]
    agent_stats = sum_agent_stats(seats, [rows[i].get("agent_stats") for i in sorted(rows)])
    counters = seat_counters(seats, ordered)
    problems = []
    if errored:
        problems.append(f"{len(errored)} of {len(rows)} games errored")
    for seat in seats:
        stats, seat_count = agent_stats[seat], counters[seat]
        # llm_calls counts every finished call, failed ones included
        failed = stats.get("failed_calls", 0.0)
        if failed > 0 and failed >= stats.get("llm_calls", 0.0):
            problems.append(f"seat {seat}: all {failed:.0f} LLM calls failed")
        elif seat_count["agent_errors"] > 0 and seat_count["agent_errors"] == seat_count["decisions"]:
            problems.append(f"seat {seat}: every decision failed with an agent error")
        elif seat_count["forfeits"] > 0 and seat_count["forfeits"] == seat_count["decisions"]:
            # Its agent gave up every decision (replies that never parsed, a human whose input
            # closed): the env's fallbacks played the seat, not the agent the match names.
            problems.append(f"seat {seat}: every decision was forfeited")
    return {
        "game": game,
        "seats": seats,
        "games": len(ordered),
        "seed": seed,
        "env": env_kwargs,
        "metrics": _metrics(module, [r["result"] for r in ordered], seats) if ordered else {},
        "agent_stats": agent_stats,
        "seat_counters": counters,
        "mean_return": {seat: float(np.mean([r["returns"][seat] for r in ordered])) for seat in seats} if ordered else {},
        "errored_games": {"count": len(errored), "games": errored},
        "ok": not problems,
        "problems": problems,
        "first_game": ordered[0] if ordered else None,
    }


def _metrics(module: ModuleType, results: list[dict[str, Any]], seats: dict[str, str]) -> dict[str, Any]:
    """The game's metrics; per agent too (``agent:<spec>``) when seats hold different agents
    and the game's ``metrics`` takes an ``agents`` mapping (Dixit)."""
    if len(set(seats.values())) > 1 and "agents" in inspect.signature(module.metrics).parameters:
        return module.metrics(results, agents=seats)
    return module.metrics(results)


def resumed_rows(module: ModuleType, path: Path, signature: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The rows a match resumes from its results file ``path`` (:func:`load_rows`), once the
    file is known to be writable, a results file of this match (``signature``: see
    :func:`~cluegym.harness.results.match_signature`), and every finished game's result one
    the game's ``metrics`` can read: everything :func:`run_match` checks of it before play.

    Raises:
        ValueError: one line naming the file and what is wrong. A row edited or written by
            another tool (``result: {}``) used to fail only when the summary was computed,
            after every missing game was played, with a traceback from the game's metrics.
    """
    check_writable(path, "--results", create=True)
    rows = load_rows(path, signature)
    for index in sorted(rows):
        record = rows[index].get("record")
        if record is None:
            continue
        try:
            _metrics(module, [record["result"]], signature["seats"])
        except Exception as exc:  # noqa: BLE001 - any failure means the row is not this game's
            raise ValueError(f"{path}: the result of game {index} is not one the game's metrics can read "
                             f"({error_text(exc)}); remove that line to replay the game") from None
    return rows


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
