"""Potential-based reward shaping from the game score (off by default).

Sparse end-of-game rewards (+1/-1 after up to 8 Decrypto turns, after a whole Undercover
game) make learning slow. Potential-based shaping (Ng, Harada & Russell, 1999) adds
``F = gamma * phi(s') - phi(s)`` to each learner step, where ``phi`` is a *potential* read
from the game score for the learner's seat. Such a term never changes which policy is
optimal; it only tells the learner sooner how it is doing. By convention ``phi`` is 0 at the
end of a game (so the shaped return of a whole game equals the unshaped one minus
``phi(start)``, a constant).

Potentials per game (a seat's view of the score, higher is better for that seat):

- Decrypto: encoders (Alice, Bob): ``turns_survived / max_turns - miscommunications /
  miscommunication_limit - interceptions / interception_limit``; Eve: the negative.
- Undercover: ``(opponents eliminated - own team eliminated) / players`` for the seat's team.
- Taboo: 0 (its only score is the outcome: shaping changes nothing).
- Dixit: ``own points / (rounds * 3)`` minus the mean of the others'.

A game names its potential in its ``GameSpec.potential`` (``"module:function"``, the function
``(raw_env, seat) -> float``); a game that names none has no shaping. :class:`cluegym.wrappers.selfplay.SelfPlayEnv` applies
shaping when given ``shaping=PotentialShaping(...)`` (or ``shaping=True`` for the game's
default) and always reports the unshaped reward in ``info["unshaped_reward"]``.

Example:
    >>> from cluegym.wrappers.selfplay import SelfPlayEnv
    >>> shaping = PotentialShaping.for_game("decrypto", scale=1.0, gamma=0.99)
    >>> env = SelfPlayEnv("decrypto", "eve", shaping=shaping)
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(0)  # Eve guesses code 0; no interception
    >>> round(reward, 5), info["unshaped_reward"]  # the encoders survived a turn: Eve's potential fell
    (-0.12375, 0.0)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable

from cluegym.envs.core.registry import game_spec, load_reference, registered_specs

__all__ = ["PotentialShaping", "check_shaping_scale", "potential_function"]

Potential = Callable[[Any, str], float]


def potential_function(game: str) -> Potential:
    """The potential ``game`` declares (its ``GameSpec.potential``).

    Raises:
        ValueError: an unknown game, or one without a potential (or its module is missing).
    """
    reference = game_spec(game).potential
    if reference is None:
        games = ", ".join(sorted({s.name for s in registered_specs() if s.potential}))
        raise ValueError(f"no reward-shaping potential for {game!r}; games: {games}")
    try:
        return load_reference(reference)
    except (ModuleNotFoundError, AttributeError) as exc:
        raise ValueError(f"no reward-shaping potential for {game!r} in this installation") from exc


def check_shaping_scale(scale: Any, name: str = "shaping") -> float:
    """``scale`` as a float: a finite number >= 0 (0: no shaping).

    Raises:
        TypeError: not a number (a bool or a string included).
        ValueError: negative, nan or infinite.

    Example:
        >>> check_shaping_scale(1)
        1.0
        >>> check_shaping_scale(float("nan"))
        Traceback (most recent call last):
        ValueError: shaping must be a finite scale >= 0, got nan
    """
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"{name} must be a scale (a number >= 0), got {scale!r}")
    if not (math.isfinite(scale) and scale >= 0):
        raise ValueError(f"{name} must be a finite scale >= 0, got {scale}")
    return float(scale)


@dataclass
class PotentialShaping:
    """``F = scale * (gamma * phi(s') - phi(s))`` with ``phi(terminal) = 0``.

    Args:
        potential: ``(raw_env, seat) -> float``, the seat's view of the game score.
        gamma: the learner's discount (use the algorithm's ``gamma`` to keep optimal
            policies unchanged).
        scale: multiplier of the shaping term.
    """

    potential: Potential
    gamma: float = 0.99
    scale: float = 1.0

    @classmethod
    def for_game(cls, game: str, gamma: float = 0.99, scale: float = 1.0) -> "PotentialShaping":
        """Shaping with the game's registered potential."""
        return cls(potential_function(game), gamma=gamma, scale=scale)

    def __post_init__(self) -> None:
        # A nan or negative scale trained on nan rewards or against the potential, found at
        # the first update; a gamma outside [0, 1] is no discount.
        self.scale = check_shaping_scale(self.scale)
        if isinstance(self.gamma, bool) or not isinstance(self.gamma, numbers.Real) or not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"shaping gamma must be a discount in [0, 1], got {self.gamma!r}")
        if not callable(self.potential):
            raise TypeError(f"shaping potential must be a function (raw_env, seat) -> float, got {self.potential!r}")

    def phi(self, raw_env: Any, seat: str, terminal: bool) -> float:
        """The potential of the current state (0 when the game is over)."""
        return 0.0 if terminal else float(self.potential(raw_env, seat))

    def term(self, phi_before: float, phi_after: float) -> float:
        """The shaping reward for a transition between two potentials."""
        return self.scale * (self.gamma * phi_after - phi_before)
