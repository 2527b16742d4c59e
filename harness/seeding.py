"""Seeds of a match: one for each game's env and one for each seat's agent in that game.

Both derive from the match seed through :class:`numpy.random.SeedSequence`, so game ``i``
plays the same whether it is played alone, resumed, or among thousands at any concurrency.

Example:
    >>> game_seed(0, 3) == game_seed(0, 3), game_seed(0, 3) != game_seed(1, 3)
    (True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cluegym.envs.core.text import describe

__all__ = ["agent_seed", "check_match_seed", "game_seed"]


def check_match_seed(seed: Any, name: str = "seed") -> None:
    """Raise unless ``seed`` is a match seed: a non-negative integer (Python's or numpy's).

    Checked before a match, tournament or training run starts: a negative seed made every
    game error at its first draw (numpy's ``SeedSequence`` takes no negative entropy), and a
    float or a bool is no seed (``1.5`` and ``1.7`` would deal the same games).

    Args:
        seed: the value given.
        name: how the error names it (``"seed"``, ``"eval_seed"``).

    Raises:
        TypeError: not an integer (None, a bool and a float included).
        ValueError: a negative integer.

    Example:
        >>> check_match_seed(0)
        >>> check_match_seed(-1)
        Traceback (most recent call last):
        ValueError: seed must be a non-negative integer, got -1
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be a non-negative integer, got {describe(seed)}")
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {seed}")


def game_seed(seed: int, index: int) -> int:
    """The env seed of game ``index`` of a match seeded ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint64)[0] % (2**63))


def agent_seed(seed: int, index: int, seat_index: int) -> int:
    """The seed of the agent in seat number ``seat_index`` for game ``index``."""
    return int(np.random.SeedSequence([seed, index, 1 + seat_index]).generate_state(1, dtype=np.uint64)[0] % (2**63))
