"""PettingZoo's standard wrappers as cluegym applies them (``env()`` = ``wrap(raw_env())``)."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcement, with :meth:`forfeit` passed through as a step.

    ``env.forfeit(reason)`` on the wrapped env counts as the seat's move inside
    ``env.agent_iter()`` (``env.unwrapped.forfeit`` works too, in a loop over
    ``env.agent_selection``: PettingZoo's iterator insists on a wrapper call between seats).
    """

    def step(self, action: Any) -> None:
        """PettingZoo's ordered step, asking the env for its seats directly (not through
        ``__getattr__``, which the hot loop of a rollout would pay at every step)."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo's errors and warnings

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """PettingZoo's ordered reset, calling the env directly (not through ``__getattr__``:
        a short game pays it once per game)."""
        self.env.reset(seed=seed, options=options)
        # after the env's reset: one that raised (a bad seed or options) started no game
        self._has_reset = True
        self._has_updated = True

    def agent_iter(self, max_iter: int = 2**63) -> wrappers.order_enforcing.AECOrderEnforcingIterable:
        """PettingZoo's ordered seat iterator (the same checks), reading the env directly."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _SeatIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected seat's ``(observation, reward, terminated, truncated, info)``.

        The same as PettingZoo's, asked of the env directly: PettingZoo's version reads five
        attributes through the wrapper's ``__getattr__`` at every step."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def action_space(self, agent: str) -> Any:
        """The seat's action space, asked of the env directly (a policy asks at every step)."""
        return self.env.action_space(agent)

    def observation_space(self, agent: str) -> Any:
        """The seat's observation space, asked of the env directly."""
        return self.env.observation_space(agent)

    def state(self) -> Any:
        """The rules' State of the current game (the whole hidden state, for tests and tools;
        None before the first reset), as the parallel env's ``state()`` gives it.

        PettingZoo's ``state()`` is a global view for centralized critics; cluegym defines no
        ``state_space``, and its global view is the State itself. The raw env holds it in its
        ``state`` attribute, so PettingZoo's own wrapper, which calls ``self.env.state()``, met
        a State where it expected a method (a TypeError).

        Example:
            >>> from cluegym.envs.taboo.env import env
            >>> game = env(); game.reset(seed=0)
            >>> game.state() is game.unwrapped.state
            True
        """
        return self.unwrapped.state

    def forfeit(self, reason: str) -> None:
        """See :meth:`ClueGameEnv.forfeit`."""
        if not self._has_reset:
            raise RuntimeError("forfeit() needs a game in progress: call reset() first")
        self.env.forfeit(reason)
        self._has_updated = True


class _SeatIterable(wrappers.order_enforcing.AECOrderEnforcingIterable):
    def __iter__(self) -> _SeatIterator:
        return _SeatIterator(self.env, self.max_iter)


class _SeatIterator(wrappers.order_enforcing.AECOrderEnforcingIterator):
    """PettingZoo's AECOrderEnforcingIterator, reading ``agents`` and ``agent_selection`` of
    the wrapped env itself."""

    def __init__(self, env: OrderEnforcingWrapper, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._game = env.env

    def __next__(self) -> str:
        game = self._game
        if not game.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return game.agent_selection


def wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's standard checks: out-of-bounds and order enforcement.

    cluegym validates actions itself (invalid ones are rejected with a reason, not a crash),
    so no ``TerminateIllegalWrapper`` is applied.
    """
    return OrderEnforcingWrapper(env)
