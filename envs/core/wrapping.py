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

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected seat's ``(observation, reward, terminated, truncated, info)``.

        The same as PettingZoo's, asked of the env directly: PettingZoo's version reads five
        attributes through the wrapper's ``__getattr__`` at every step."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def forfeit(self, reason: str) -> None:
        """See :meth:`ClueGameEnv.forfeit`."""
        if not self._has_reset:
            raise RuntimeError("forfeit() needs a game in progress: call reset() first")
        self.env.forfeit(reason)
        self._has_updated = True


def wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's standard checks: out-of-bounds and order enforcement.

    cluegym validates actions itself (invalid ones are rejected with a reason, not a crash),
    so no ``TerminateIllegalWrapper`` is applied.
    """
    return OrderEnforcingWrapper(env)
