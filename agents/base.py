"""The agent interface shared by every player: random, embedding baselines, LLMs, RL policies.

An agent plays one seat of one game. The match harness (:mod:`cluegym.harness`) calls
:meth:`Agent.reset` before each game and :meth:`Agent.act_async` whenever the seat is to move;
an agent that cannot decide raises :class:`Forfeit` (defined by the harness, re-exported here).
When the env rejects an action it says why in ``info["error"]`` and the same seat moves
again, so an agent can correct itself.

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> env = cluegym.make("decrypto"); env.reset(seed=0)
    >>> alice = make_agent("glove", game="decrypto", seat="alice", action_space=env.action_space("alice"), seed=0)
    >>> bob = make_agent("glove", game="decrypto", seat="bob", action_space=env.action_space("bob"), seed=0)
    >>> obs, _, _, _, info = env.last()  # alice encrypts first
    >>> obs["code"], obs["keywords"]
    (array([1, 2, 3]), ('dairy', 'lens', 'stick', 'petroleum'))
    >>> hints = alice.act(obs, info); hints
    ('food', 'differential', 'shape')
    >>> env.step(hints)
    >>> obs, _, _, _, info = env.last()  # then bob decodes: an index into CODES
    >>> bob.act(obs, info)
    0
"""

from __future__ import annotations

from typing import Any

import gymnasium

from cluegym.envs.core.rng import default_rng
# Forfeit belongs to the match harness (the layer below); re-exported here for agents.
from cluegym.harness.agent_protocol import Forfeit

__all__ = ["Agent", "Forfeit"]


class Agent:
    """Base class for a player of one seat.

    Subclasses accept their tunable parameters as keyword-only ``__init__`` arguments with
    type annotations and defaults: agent specs such as ``glove:k=16`` are validated and
    coerced against that signature (see :func:`cluegym.agents.make_agent`).

    Attributes:
        game: registered game name, e.g. ``"decrypto"``.
        seat: the seat this agent plays, e.g. ``"bob"``.
        action_space: the env's action space for the seat.
        seed: the seed it was built with (a spec's ``seed=``), or None; a match mixes it into
            the seed it resets the agent with every game (:func:`cluegym.harness.own_seed_of`).
        rng: the agent's own generator, reseeded by :meth:`reset`.
    """

    #: Games this agent class can play; ``("*",)`` means any game.
    games: tuple[str, ...] = ("*",)
    #: Whether :meth:`act` reads its ``observation``. An agent that decides from ``info``
    #: alone (its ``action_mask``) says False, and the learning views then pass it
    #: ``observation=None`` instead of building an observation nobody reads (PettingZoo's
    #: ``last(observe=False)``).
    reads_observation: bool = True

    def __init__(
        self,
        game: str,
        seat: str,
        action_space: gymnasium.Space,
        *,
        seed: int | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self._action_space = action_space
        self._space_seed: int | None = None
        self.seed = seed
        self.rng = default_rng(seed)

    @property
    def action_space(self) -> gymnasium.Space:
        """The env's action space for the seat, seeded by the last :meth:`reset` seed.

        Seeded when first asked for after a reset, not at every reset: seeding a ``Dict``
        space builds a generator per entry, which costs more than a short game's steps, and
        most agents never sample their space."""
        if self._space_seed is not None:
            self._action_space.seed(self._space_seed)
            self._space_seed = None
        return self._action_space

    @action_space.setter
    def action_space(self, space: gymnasium.Space) -> None:
        self._action_space = space
        self._space_seed = None

    def reset(self, seed: int | None = None) -> None:
        """Start a new game. ``seed`` reseeds the agent's generator (and its action space)."""
        self.rng = default_rng(seed)
        if seed is not None:
            self._space_seed = seed

    def check_env(self, env: Any) -> None:
        """Raise ValueError when this agent cannot play ``env`` as it is configured.

        Called on the env the agent was built for before any game of a match, tournament,
        ``cluegym play`` or learning view (:class:`cluegym.harness.EnvChecker`), so such a
        configuration is refused in one line instead of every decision being an agent error.
        The default accepts every env; the Dixit caption agent refuses hidden captions.
        """

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Return an action for the current observation (``info`` holds masks and errors)."""
        raise NotImplementedError

    async def act_async(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Async form of :meth:`act`; LLM agents override it to overlap requests."""
        return self.act(observation, info)

    def stats(self) -> dict[str, float]:
        """Counters the agent wants reported with the match metrics (e.g. parse failures)."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, seat={self.seat!r})"
