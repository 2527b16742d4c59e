"""cluegym agents and their registry.

Agents are named in specs like ``glove:k=16,seed=3``: a registered name, then optional
``key=value`` parameters checked against the agent class's keyword arguments.

A registry entry's target is an :class:`~cluegym.agents.base.Agent` subclass or a dispatcher
``(game, seat, **preset) -> Agent subclass`` for families (e.g. embedding baselines) that
have one class per game and seat, given as the object or as a ``"module:attr"`` string loaded
on first use. Agents defined above this layer (the trained policies ``ppo`` and
``task-random`` of :mod:`cluegym.training`) are declared by their package as entry points::

    [project.entry-points."cluegym.agents"]
    ppo = "cluegym.training.policy_agent:PolicyAgent"

and registered the first time the registry is consulted (their modules load only when the
agent is built).

Example:
    >>> from cluegym.agents import make_agent, parse_agent_spec, register_agent, run_match
    >>> parse_agent_spec("glove:k=16")
    ('glove', {'k': '16'})
    >>> register_agent("glove-wide", "cluegym.agents.embedding:embedding_agent_class", embedding="glove")
    >>> run_match("decrypto", {"*": "random"}, games=4, progress=False)["ok"]
    True
"""

from __future__ import annotations

import importlib
import inspect
import re
import threading
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable

import gymnasium

from cluegym.agents.base import Agent
from cluegym.envs.core.options import OptionError, check_options, declared_options
from cluegym.envs.core.registry import game_spec
from cluegym.harness import run_match as run_match_with

#: What a registry entry names: an Agent subclass, a dispatcher ``(game, seat, **preset) ->
#: Agent subclass``, or either as a ``"module:attr"`` string (loaded on first use).
AgentTarget = str | type[Agent] | Callable[..., type[Agent]]

#: name -> target, or (target, preset parameters). One line per agent; see :func:`register_agent`.
AGENTS: dict[str, AgentTarget | tuple[AgentTarget, dict[str, Any]]] = {
    "random": "cluegym.agents.random_agent:RandomAgent",
    "glove": ("cluegym.agents.embedding:embedding_agent_class", {"embedding": "glove"}),
    "word2vec": ("cluegym.agents.embedding:embedding_agent_class", {"embedding": "word2vec"}),
    "minilm": ("cluegym.agents.embedding:embedding_agent_class", {"embedding": "minilm"}),
    "llm": "cluegym.agents.llm.agent:LLMAgent",
    "llm-cot": "cluegym.agents.llm.agent:specialist_class",
    "comet": "cluegym.agents.llm.comet:comet_class",
    "caption": "cluegym.agents.embedding.dixit:CaptionAgent",
    "vision": "cluegym.agents.embedding.dixit:VisionAgent",
    "human": "cluegym.agents.human:HumanAgent",
}

#: The entry-point group where installed packages declare agents (``name = "module:attr"``).
ENTRY_POINT_GROUP = "cluegym.agents"
#: An agent name: letters, digits, ``_``, ``.`` and ``-`` (no ``:``, ``,`` or ``=``: specs use them).
AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: A ``module:attr`` reference.
TARGET_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")

#: agent name -> the entry point that registered it (named in load errors).
_ENTRY_POINT_OF: dict[str, EntryPoint] = {}
_entry_points_loaded = False
_lock = threading.RLock()

__all__ = [
    "AGENTS", "ENTRY_POINT_GROUP", "Agent", "AgentSpecError", "AgentTarget", "agent_class", "agent_params",
    "check_agent_spec", "game_name", "load_entry_points", "make_agent", "parse_agent_spec", "register_agent",
    "registered_agents", "run_match",
]


class AgentSpecError(OptionError):
    """An agent spec names an unknown agent or parameter, or a value of the wrong type; or a
    registered agent cannot be loaded (the message names its entry point when it has one)."""


def _entry_point_text(entry: EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    source = f", distribution {dist.name}" if dist is not None else ""
    return f"entry point '{entry.name} = {entry.value}' (group {ENTRY_POINT_GROUP}{source})"


def load_entry_points() -> None:
    """Register the agents that installed packages declare in the ``cluegym.agents``
    entry-point group (once; the registry calls this on first use). Only the names are read:
    an agent's module is imported when the agent is built.

    Raises:
        AgentSpecError: a malformed entry point, or one naming an agent registered otherwise
            (the message names the entry point). Raised again on every use until fixed.
    """
    global _entry_points_loaded
    with _lock:
        if _entry_points_loaded:
            return
        found: dict[str, EntryPoint] = {}
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            where = _entry_point_text(entry)
            if not AGENT_NAME.fullmatch(entry.name):
                raise AgentSpecError(f"{where}: {entry.name!r} is not an agent name "
                                     f"(letters, digits, '_', '.', '-')")
            if not TARGET_REFERENCE.fullmatch(entry.value):
                raise AgentSpecError(f"{where}: the value must be 'module:attr' naming an Agent class or "
                                     f"a dispatcher (game, seat) -> Agent class")
            taken = found.get(entry.name) or _ENTRY_POINT_OF.get(entry.name)
            if (taken is not None and taken.value != entry.value) or (taken is None and entry.name in AGENTS):
                other = _entry_point_text(taken) if taken is not None else "a built-in agent"
                raise AgentSpecError(f"{where}: agent {entry.name!r} is already registered by {other}")
            found[entry.name] = entry
        for name, entry in found.items():
            AGENTS[name] = entry.value
            _ENTRY_POINT_OF[name] = entry
        _entry_points_loaded = True


def register_agent(name: str, target: AgentTarget, *, replace: bool = False, **preset: Any) -> None:
    """Register an agent under ``name`` (plug-ins, tests, agents defined above this layer).

    Args:
        name: the name used in specs (``name:key=value,...``).
        target: an Agent subclass, a dispatcher ``(game, seat, **preset) -> Agent subclass``,
            or either as a ``"module:attr"`` string (loaded when the agent is first built).
        replace: replace an agent already registered under ``name`` instead of failing.
        **preset: parameters given to the class (or, for a dispatcher, to the dispatcher).

    Raises:
        AgentSpecError: a malformed name or target, or a name already registered.

    Example:
        >>> register_agent("glove-k8", "cluegym.agents.embedding:embedding_agent_class", embedding="glove")
    """
    if not isinstance(name, str) or not AGENT_NAME.fullmatch(name):
        raise AgentSpecError(f"agent name must be letters, digits, '_', '.' or '-', got {name!r}")
    if isinstance(target, str) and not TARGET_REFERENCE.fullmatch(target):
        raise AgentSpecError(f"agent {name!r}: target must be 'module:attr', got {target!r}")
    if not isinstance(target, str) and not callable(target):
        raise AgentSpecError(f"agent {name!r}: target must be an Agent class, a dispatcher or 'module:attr', "
                             f"got {type(target).__name__}")
    load_entry_points()
    with _lock:
        if name in AGENTS and not replace:
            raise AgentSpecError(f"agent {name!r} is already registered; pass replace=True to replace it")
        AGENTS[name] = (target, dict(preset)) if preset else target
        _ENTRY_POINT_OF.pop(name, None)


def registered_agents() -> list[str]:
    """The registered agent names, sorted (entry-point agents included)."""
    load_entry_points()
    return sorted(AGENTS)


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:k=v,k2=v2"`` into ``("name", {"k": "v", "k2": "v2"})``.

    Raises:
        AgentSpecError: no agent name, an item that is not ``key=value``, or a parameter
            with no value (``glove:embedding=`` silently meant the default embedding, and
            ``candidates=`` the current folder).

    Example:
        >>> parse_agent_spec("glove:k=16, embedding=word2vec")
        ('glove', {'k': '16', 'embedding': 'word2vec'})
    """
    name, _, rest = spec.strip().partition(":")
    if not name:
        raise AgentSpecError(f"empty agent name in spec {spec!r}")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise AgentSpecError(f"agent parameter {item!r} in {spec!r} is not key=value")
        if not value.strip():
            raise AgentSpecError(f"agent parameter {key.strip()!r} in {spec!r} has no value: give one, or leave "
                                 f"the parameter out for its default")
        params[key.strip()] = value.strip()
    return name, params


def _load_target(name: str, target: AgentTarget) -> type[Agent] | Callable[..., type[Agent]]:
    """The object an entry names; a failed import of an entry-point agent names its entry point."""
    if not isinstance(target, str):
        return target
    module, _, attr = target.partition(":")
    entry = _ENTRY_POINT_OF.get(name)
    if entry is None:
        return getattr(importlib.import_module(module), attr)
    try:
        loaded = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise AgentSpecError(f"agent {name!r} from {_entry_point_text(entry)} cannot be loaded: "
                             f"{type(exc).__name__}: {exc}") from exc
    if not callable(loaded):
        raise AgentSpecError(f"agent {name!r} from {_entry_point_text(entry)} names a "
                             f"{type(loaded).__name__}, not an Agent class or a dispatcher")
    return loaded


def game_name(game: str) -> str:
    """``game`` as agents know it: a versioned id (``"decrypto_v0"``) becomes its game's name,
    so the ids ``cluegym.make`` takes build agents too; an unregistered name is kept.

    Example:
        >>> game_name("decrypto_v0"), game_name("decrypto")
        ('decrypto', 'decrypto')
    """
    try:
        return game_spec(game).name
    except (ValueError, TypeError):
        return game


def agent_class(name: str, game: str, seat: str) -> tuple[type[Agent], dict[str, Any]]:
    """Resolve a registered agent name to its class for ``game``/``seat`` and preset params."""
    load_entry_points()
    if name not in AGENTS:
        raise AgentSpecError(f"unknown agent {name!r}; registered agents: {', '.join(sorted(AGENTS))}")
    entry = AGENTS[name]
    reference, preset = entry if isinstance(entry, tuple) else (entry, {})
    target = _load_target(name, reference)
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
        seed: default seed (a ``seed=`` in the spec wins). A match builds its agents with no
            default and reseeds each one every game: an agent whose spec sets ``seed=S`` gets
            per-game seeds derived from ``S`` too (:func:`cluegym.harness.agent_seed`), so
            ``seed=5`` and ``seed=6`` play differently and the same ``S`` plays the same.
        **overrides: extra parameters, as if given in the spec.

    Raises:
        AgentSpecError: unknown agent or parameter (the message lists what exists and the
            closest name) or a value that does not convert to the parameter's declared type
            (text converts as for game options: ``"16"`` -> 16, ``"true"`` -> True; NaN and
            infinities are rejected).
    """
    game = game_name(game)
    cls, kwargs = _checked_spec(spec, game, seat, overrides)
    kwargs.setdefault("seed", seed)
    return cls(game, seat, action_space, **kwargs)


def check_agent_spec(spec: str, *, game: str, seat: str, **overrides: Any) -> tuple[type[Agent], dict[str, Any]]:
    """The agent class and checked parameters :func:`make_agent` builds ``spec`` with, without
    building it: what a view or a tournament checks before its first game (building an agent
    may load a model).

    Raises:
        AgentSpecError: ``spec`` is no str, or as :func:`make_agent` says.

    Example:
        >>> check_agent_spec("glove:k=16", game="decrypto", seat="alice")[1]["k"]
        16
    """
    return _checked_spec(spec, game_name(game), seat, overrides)


def _checked_spec(spec: str, game: str, seat: str, overrides: dict[str, Any]) -> tuple[type[Agent], dict[str, Any]]:
    """:func:`check_agent_spec` for a ``game`` already named as agents know it (:func:`game_name`)."""
    if not isinstance(spec, str):
        raise AgentSpecError(f"an agent spec must be a str ('name[:key=value,...]'), got {spec!r}")
    name, raw = parse_agent_spec(spec)
    cls, preset = agent_class(name, game, seat)
    # the same checks and text coercion as game options (cluegym.envs.core.options)
    kwargs = check_options(
        {**preset, **raw, **overrides}, declared_options(cls, inherited=True),
        owner=f"agent {name!r} ({cls.__name__})", noun="parameter", error=AgentSpecError,
    )
    return cls, kwargs


def run_match(game: str, agents: dict[str, str], **options: Any) -> dict[str, Any]:
    """:func:`cluegym.harness.run_match` with agents built from this registry (:func:`make_agent`).

    Args:
        game: registered game name.
        agents: seat -> agent spec (``"*"`` fills the seats not named).
        **options: the harness's options: ``games``, ``seed``, ``env_kwargs``, ``concurrency``,
            ``results_path``, ``summary_path``, ``progress``, ``on_game``, ``ray_address`` (play
            the games as Ray tasks on that cluster; :func:`make_agent` is importable on its workers).

    Example:
        >>> summary = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove", "eve": "word2vec"},
        ...                     games=32, seed=0, progress=False)
        >>> summary["metrics"]["avg_turns"], summary["ok"]
        (4.5, True)
    """
    return run_match_with(game, agents, make_agent=make_agent, **options)
