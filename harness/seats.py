"""Who sits where: agent specs resolved to every seat, then one fresh agent per seat.

Example:
    >>> resolve_seats("decrypto", {"*": "glove", "eve": "random"}, ["alice", "bob", "eve"])
    {'alice': 'glove', 'bob': 'glove', 'eve': 'random'}
"""

from __future__ import annotations

from typing import Any

from cluegym.envs.core.registry import env_module
from cluegym.harness.agent_protocol import AgentFactory, MatchAgent

__all__ = ["build_agents", "check_agents_fit", "resolve_seats"]

#: Spec keys that fill every seat not named explicitly.
WILDCARDS = ("*", "all")


def resolve_seats(game: str, specs: dict[str, str], possible_agents: list[str]) -> dict[str, str]:
    """Fill every seat with an agent spec: explicit seats, then ``*``/``all``, then the game's
    ``DEFAULT_AGENTS``, then ``random``.

    Raises:
        ValueError: when a spec names a seat the game does not have.
    """
    defaults: dict[str, str] = getattr(env_module(game), "DEFAULT_AGENTS", {})
    wildcard = specs.get("*", specs.get("all"))
    unknown = sorted(set(specs) - set(possible_agents) - set(WILDCARDS))
    if unknown:
        raise ValueError(f"{game} has no seat {', '.join(unknown)}; seats: {', '.join(possible_agents)}")
    return {
        seat: specs.get(seat) or wildcard or defaults.get(seat) or defaults.get("*") or "random"
        for seat in possible_agents
    }


def build_agents(game: str, env: Any, seats: dict[str, str], *, make_agent: AgentFactory,
                 seed: int | None = None) -> dict[str, MatchAgent]:
    """One agent per seat from its spec (fresh instances: games never share agent state).

    Args:
        game: registered game name.
        env: the game's env (its ``action_space(seat)`` goes to each agent).
        seats: seat -> agent spec, e.g. from :func:`resolve_seats`.
        make_agent: the agent factory, e.g. :func:`cluegym.agents.make_agent`.
        seed: default agent seed (a ``seed=`` in a spec wins). A match passes none: an agent's
            seed is then its spec's, which the match mixes into the seed it resets that agent
            with every game (:func:`~cluegym.harness.agent_seed`).

    Raises:
        ValueError: an agent that cannot play ``env`` as configured (:func:`check_agents_fit`).
    """
    agents = {
        seat: make_agent(spec, game=game, seat=seat, action_space=env.action_space(seat), seed=seed)
        for seat, spec in seats.items()
    }
    check_agents_fit(env, agents)
    return agents


def check_agents_fit(env: Any, agents: dict[str, Any]) -> None:
    """Let each agent with the :class:`~cluegym.harness.agent_protocol.EnvChecker` hook refuse
    ``env`` (e.g. the Dixit caption agent without ``reveal_captions=True``).

    Raises:
        ValueError: ``seat: <the agent's reason>`` for the first agent that refuses.
    """
    for seat, agent in agents.items():
        check = getattr(agent, "check_env", None)  # cheaper than isinstance on a Protocol
        if check is not None:
            try:
                check(env)
            except ValueError as error:
                raise ValueError(f"{seat}: {error}") from None
