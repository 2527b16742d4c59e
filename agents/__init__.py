"""cluegym agents and their registry.

Agents are named in specs like ``glove:k=16,seed=3``: a registered name, then optional
``key=value`` parameters checked against the agent class's keyword arguments.

Registry values are ``"module:attr"`` strings (optionally with preset parameters), loaded
lazily. ``attr`` is either an :class:`~cluegym.agents.base.Agent` subclass or a dispatcher
``(game, seat) -> Agent subclass`` for families (e.g. embedding baselines) that have one
class per game and seat.

Example:
    >>> from cluegym.agents import make_agent, parse_agent_spec
    >>> parse_agent_spec("glove:k=16")
    ('glove', {'k': '16'})
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import gymnasium

from cluegym.agents.base import Agent
from cluegym.envs.core.options import OptionError, check_options, declared_options

#: name -> "module:attr" or ("module:attr", preset parameters). One line per agent.
AGENTS: dict[str, str | tuple[str, dict[str, Any]]] = {
    "random": "cluegym.agents.random_agent:RandomAgent",
    "glove": ("cluegym.agents.embedding:embedding_agent_class", {"embedding": "glove"}),
    "word2vec": ("cluegym.agents.embedding:embedding_agent_class", {"embedding": "word2vec"}),
    "minilm": ("cluegym.agents.embedding:embedding_agent_class", {"embedding": "minilm"}),
    "ppo": "cluegym.training.policy_agent:PolicyAgent",
    "task-random": "cluegym.training.policy_agent:TaskRandomAgent",
    "llm": "cluegym.agents.llm.agent:LLMAgent",
    "llm-cot": "cluegym.agents.llm.agent:specialist_class",
    "comet": "cluegym.agents.llm.comet:comet_class",
    "caption": "cluegym.agents.embedding.dixit:CaptionAgent",
    "vision": "cluegym.agents.embedding.dixit:VisionAgent",
}

__all__ = ["AGENTS", "Agent", "AgentSpecError", "make_agent", "parse_agent_spec", "agent_params"]


class AgentSpecError(OptionError):
    """An agent spec names an unknown agent or parameter, or a value of the wrong type."""


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:k=v,k2=v2"`` into ``("name", {"k": "v", "k2": "v2"})``."""
    name, _, rest = spec.strip().partition(":")
    if not name:
        raise AgentSpecError(f"empty agent name in spec {spec!r}")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise AgentSpecError(f"agent parameter {item!r} in {spec!r} is not key=value")
        params[key.strip()] = value.strip()
    return name, params


def _load(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def agent_class(name: str, game: str, seat: str) -> tuple[type[Agent], dict[str, Any]]:
    """Resolve a registered agent name to its class for ``game``/``seat`` and preset params."""
    if name not in AGENTS:
        raise AgentSpecError(f"unknown agent {name!r}; registered agents: {', '.join(sorted(AGENTS))}")
    entry = AGENTS[name]
    path, preset = (entry, {}) if isinstance(entry, str) else entry
    target = _load(path)
    if inspect.isclass(target) and issubclass(target, Agent):
        cls = target
    else:
        cls = target(game=game, seat=seat, **preset)
        preset = {}
    if "*" not in cls.games and game not in cls.games:
        raise AgentSpecError(f"agent {name!r} does not play {game!r} (it plays: {', '.join(cls.games)})")
    return cls, dict(preset)


def agent_params(cls: type[Agent]) -> dict[str, inspect.Parameter]:
    """The tunable keyword parameters of an agent class (``seed`` included)."""
    params: dict[str, inspect.Parameter] = {}
    for klass in reversed(cls.__mro__):
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        for p in inspect.signature(init).parameters.values():
            if p.kind is inspect.Parameter.KEYWORD_ONLY:
                params[p.name] = p
    return params


def make_agent(
    spec: str,
    *,
    game: str,
    seat: str,
    action_space: gymnasium.Space,
    seed: int | None = None,
    **overrides: Any,
) -> Agent:
    """Build an agent from a spec string.

    Args:
        spec: ``"name[:key=value,...]"``, e.g. ``"glove:k=16"``.
        game: registered game name the agent will play.
        seat: the seat it plays.
        action_space: the env's action space for that seat.
        seed: default seed (a ``seed=`` in the spec wins).
        **overrides: extra parameters, as if given in the spec.

    Raises:
        AgentSpecError: unknown agent or parameter (the message lists what exists and the
            closest name) or a value that does not convert to the parameter's declared type
            (text converts as for game options: ``"16"`` -> 16, ``"true"`` -> True; NaN and
            infinities are rejected).
    """
    name, raw = parse_agent_spec(spec)
    cls, preset = agent_class(name, game, seat)
    # the same checks and text coercion as game options (cluegym.envs.core.options)
    kwargs = check_options(
        {**preset, **raw, **overrides}, declared_options(cls, inherited=True),
        owner=f"agent {name!r} ({cls.__name__})", noun="parameter", error=AgentSpecError,
    )
    kwargs.setdefault("seed", seed)
    return cls(game, seat, action_space, **kwargs)
