"""What the match harness needs from an agent, and how an agent gives up one decision.

The harness sits below :mod:`cluegym.agents`: it never imports it. It calls agents through
:class:`MatchAgent` (any object with these methods plays) and builds them through an
:class:`AgentFactory` passed in by the caller, e.g. :func:`cluegym.agents.make_agent`.

Example:
    >>> from cluegym.harness import Forfeit, run_match
    >>> class Resigner:  # every decision falls back to the env's documented move
    ...     def reset(self, seed=None): pass
    ...     async def act_async(self, observation, info): raise Forfeit("no idea")
    ...     def stats(self): return {}
    >>> summary = run_match("decrypto", {"*": "resign"}, make_agent=lambda spec, **kw: Resigner(), progress=False)
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import gymnasium

__all__ = ["AgentFactory", "CallLogger", "EnvChecker", "Forfeit", "MatchAgent", "ResultObserver"]


class Forfeit(Exception):
    """This agent cannot decide: apply the env's fallback for this one decision, with this reason.

    Raised by an agent's ``act`` / ``act_async`` when it gives up on the current decision (an
    LLM reply that stays unreadable after the re-asks, an endpoint that keeps failing or
    refuses the request, a decision deadline that passed). The match harness calls
    ``env.unwrapped.forfeit(str(exc))``: the env applies its documented fallback at once and
    records the reason; the game and the match go on. ``str(exc)`` never holds a secret.
    Also importable as ``cluegym.agents.base.Forfeit``.

    Example:
        >>> import asyncio
        >>> import cluegym
        >>> class Resigner:
        ...     async def act_async(self, observation, info): raise Forfeit("no idea")
        >>> agent, env = Resigner(), cluegym.make("decrypto")
        >>> env.reset(seed=0)
        >>> observation, reward, terminated, truncated, info = env.last()
        >>> try:
        ...     action = asyncio.run(agent.act_async(observation, info))  # the harness awaits it
        ... except Forfeit as exc:
        ...     env.unwrapped.forfeit(str(exc))
        >>> step = env.unwrapped.game_record()["steps"][-1]
        >>> step["agent"], step["forfeit"], step["fallback"]["action"]
        ('alice', 'no idea', ['(pass)', '(pass)', '(pass)'])
    """


@runtime_checkable
class MatchAgent(Protocol):
    """The calls the harness makes on the agent of one seat (``cluegym.agents.base.Agent`` has them).

    ``reset`` starts a game (``seed`` reseeds the agent), ``act_async`` returns the seat's
    action (or raises :class:`Forfeit`), ``stats`` returns numeric counters reported with the
    match. Three hooks are optional: :class:`ResultObserver`, :class:`CallLogger` and
    :class:`EnvChecker`. An agent
    whose ``seed`` attribute is a non-negative integer (the seed it was built with, e.g. a
    spec's ``seed=``) is reset with per-game seeds that mix it in (:func:`~cluegym.harness.agent_seed`).
    """

    def reset(self, seed: int | None = None) -> None:
        """Start a new game."""

    async def act_async(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The action for the current observation (``info`` holds masks and the last error)."""

    def stats(self) -> dict[str, float]:
        """Counters to report with the match metrics (e.g. LLM calls, parse failures)."""


@runtime_checkable
class ResultObserver(Protocol):
    """Optional hook: an agent that learns across games (CoMet's experience pool) sees each
    finished record. The result may be awaitable."""

    def observe_result(self, record: dict[str, Any]) -> Any:
        """Take in a finished game's record."""


@runtime_checkable
class CallLogger(Protocol):
    """Optional hook: an agent that logs its calls (LLM agents: prompts, replies, latency)
    hands them over after each game; they travel with the game record."""

    def drain_log(self) -> list[dict[str, Any]]:
        """The calls logged since the last drain (and forget them)."""


@runtime_checkable
class EnvChecker(Protocol):
    """Optional hook: an agent that can play only some configurations of its game (the Dixit
    caption agent needs ``reveal_captions=True``) says so before any game is played: the
    harness calls it on the env the agent was built for and a ValueError refuses the match
    in one line, where every decision would otherwise have been an agent error."""

    def check_env(self, env: Any) -> None:
        """Raise ValueError when this agent cannot play ``env`` as it is configured."""


class AgentFactory(Protocol):
    """Builds the agent of one seat from its spec, e.g. :func:`cluegym.agents.make_agent`.

    Raises:
        ValueError: a spec that does not name a usable agent (before any game runs).
    """

    def __call__(self, spec: str, *, game: str, seat: str, action_space: gymnasium.Space,
                 seed: int | None = None) -> MatchAgent:
        """A fresh agent for ``seat`` of ``game`` (games never share agent state)."""
