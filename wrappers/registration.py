"""Gymnasium ids for every registered game's learner view: ``gymnasium.make("cluegym/<game>-v<N>")``.

A Gymnasium env has one agent, so the id makes the single-seat learner view,
:class:`~cluegym.wrappers.selfplay.SelfPlayEnv` (the other seats played by agent specs). The
ids are registered when :mod:`cluegym.wrappers` is imported; Gymnasium's ``module:id`` form
imports it for you.

Example:
    >>> import gymnasium
    >>> env = gymnasium.make("cluegym.wrappers:cluegym/decrypto-v0", seat="eve")
    >>> import cluegym.wrappers  # or register first, then the plain id
    >>> env = gymnasium.make("cluegym/decrypto-v0", seat="eve", opponents={"alice": "glove:k=16"})
"""

from __future__ import annotations

from typing import Any

import gymnasium

from cluegym.envs.core.registry import env_module, game_spec, registered_specs
from cluegym.wrappers.selfplay import SelfPlayEnv

__all__ = ["gymnasium_id", "make_seat_env", "register_gymnasium_envs"]

#: The Gymnasium namespace of cluegym's ids.
NAMESPACE = "cluegym"


def gymnasium_id(game: str) -> str:
    """``"decrypto"`` -> ``"cluegym/decrypto-v0"`` (Gymnasium's ``namespace/name-vN``)."""
    spec = game_spec(game)
    return f"{NAMESPACE}/{spec.name}-v{spec.version}"


def make_seat_env(game: str, seat: str | None = None, **kwargs: Any) -> gymnasium.Env:
    """The learner view of one seat (what ``gymnasium.make`` calls).

    Args:
        game: the game's name.
        seat: the learning seat (required).
        **kwargs: :class:`~cluegym.wrappers.selfplay.SelfPlayEnv` arguments.

    Raises:
        ValueError: no seat, or an unknown one (the message lists the seats).
    """
    seats = list(env_module(game).raw_env().possible_agents)
    if seat is None or seat not in seats:
        raise ValueError(f"gymnasium.make({gymnasium_id(game)!r}) needs seat=one of {', '.join(seats)}"
                         + ("" if seat is None else f" (got {seat!r})"))
    return SelfPlayEnv(game, seat, **kwargs)


def register_gymnasium_envs() -> list[str]:
    """Register ``cluegym/<game>-v<N>`` for every registered game not registered yet.

    Returns:
        The ids registered by this call.
    """
    added = []
    for spec in registered_specs():
        env_id = f"{NAMESPACE}/{spec.name}-v{spec.version}"
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(id=env_id, entry_point=make_seat_env, kwargs={"game": spec.name})
        added.append(env_id)
    return added


register_gymnasium_envs()
