"""The ``random`` agent at every seat of an env, reseeded per game: how the game tests play
many varied games (eliminations, rejections, fallbacks) reproducibly."""

from __future__ import annotations

from typing import Any

from cluegym.agents import make_agent


def random_agents(env: Any, game: str) -> dict[str, Any]:
    """A ``random`` agent per seat of ``env`` (a registered ``game``), by seat."""
    return {seat: make_agent("random", game=game, seat=seat, action_space=env.action_space(seat))
            for seat in env.possible_agents}


def start_game(env: Any, agents: dict[str, Any], seed: int) -> None:
    """Reset ``env`` with ``seed`` and each agent with a seed of its own drawn from it."""
    env.reset(seed=seed)
    for i, agent in enumerate(agents.values()):
        agent.reset(seed * 10 + i)
