"""Play one game between agents: the loop, forfeits, and the finished game's record.

No game is lost to an agent: an agent that cannot decide (:class:`~cluegym.harness.Forfeit`)
or fails (any other exception) forfeits only that decision; the env applies its documented
fallback and records the reason. Failures of the env or of an agent's ``reset`` /
``observe_result`` propagate to the caller (the match runner ends that game only).

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> from cluegym.harness.seats import build_agents, resolve_seats
    >>> env = cluegym.make("decrypto")
    >>> seats = resolve_seats("decrypto", {"*": "random"}, env.possible_agents)
    >>> agents = build_agents("decrypto", env, seats, make_agent=make_agent)
    >>> record = play_game(env, agents, seed=3, agent_seeds={"alice": 0, "bob": 1, "eve": 2})  # the same game every run
    >>> record["returns"], record["result"]["winner"]
    ({'alice': -1.0, 'bob': -1.0, 'eve': 1.0}, 'interceptor')
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import numpy as np

from cluegym.harness.agent_protocol import Forfeit, MatchAgent
from cluegym.harness.results import error_text

__all__ = ["agent_game_stats", "play_game", "play_game_async"]


async def play_game_async(env: Any, agents: dict[str, MatchAgent], seed: int, agent_seeds: dict[str, int] | None = None,
                          options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play one game to the end and return its record (with per-seat returns).

    An agent's exception costs that decision only: :class:`~cluegym.harness.Forfeit`
    becomes ``env.unwrapped.forfeit(reason)``, any other ``Exception`` a forfeit with reason
    ``"agent error: <type>: <message>"``; the env applies its fallback and records why.
    Failures of the env or of ``reset``/``observe_result`` propagate to the caller.

    Args:
        env: the game's AEC env (reset here with ``seed`` and ``options``).
        agents: seat -> agent.
        seed: the env seed of this game.
        agent_seeds: seat -> the seed each agent is reset with (None: agents reset unseeded).
        options: ``env.reset`` options.
    """
    env.reset(seed=seed, options=options)
    for seat, agent in agents.items():
        agent.reset(None if agent_seeds is None else agent_seeds[seat])
    returns = {seat: 0.0 for seat in env.possible_agents}
    # A plain loop rather than env.agent_iter(): PettingZoo's order-enforcing iterator insists
    # on a wrapper step() between seats, and a forfeit goes to the unwrapped env.
    while env.agents:
        seat = env.agent_selection
        observation, reward, terminated, truncated, info = env.last()
        returns[seat] += float(reward)
        if terminated or truncated:
            env.step(None)
            continue
        try:
            action = await agents[seat].act_async(observation, info)
        except Forfeit as exc:
            env.unwrapped.forfeit(error_text(exc, with_type=False))
            continue
        except Exception as exc:  # noqa: BLE001 - an agent's failure costs one decision, never the game
            env.unwrapped.forfeit(f"agent error: {error_text(exc)}")
            continue
        env.step(action)
    record = env.unwrapped.game_record()
    record["returns"] = returns
    # Agents that learn across games (CoMet's experience pool) see the finished record.
    # Optional hooks (agent_protocol.ResultObserver, CallLogger) are looked up as attributes.
    for agent in agents.values():
        observe_result = getattr(agent, "observe_result", None)
        if callable(observe_result):
            outcome = observe_result(record)
            if inspect.isawaitable(outcome):
                await outcome
    # Agents that log their calls (LLM agents: prompts, replies, latency, tokens) expose
    # drain_log(); their logs travel with the game record.
    logs = {seat: agent.drain_log() for seat, agent in agents.items() if callable(getattr(agent, "drain_log", None))}
    if any(logs.values()):
        record["agent_logs"] = logs
    return record


def play_game(env: Any, agents: dict[str, MatchAgent], seed: int, agent_seeds: dict[str, int] | None = None,
              options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Synchronous :func:`play_game_async`."""
    return asyncio.run(play_game_async(env, agents, seed, agent_seeds, options))


def agent_game_stats(agents: dict[str, MatchAgent]) -> dict[str, dict[str, float]]:
    """Each seat's agent counters (its ``stats()``; agents are built fresh for every game, so
    these are the game's own counts). Non-numeric and non-finite values are left out."""
    out: dict[str, dict[str, float]] = {}
    for seat, agent in agents.items():
        try:
            stats = agent.stats()
        except Exception:  # noqa: BLE001 - counters of a failing agent are best effort
            stats = {}
        out[seat] = {str(k): float(v) for k, v in stats.items()
                     if isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and np.isfinite(v)}
    return out
