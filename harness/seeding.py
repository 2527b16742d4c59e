"""Seeds of a match: one for each game's env and one for each seat's agent in that game.

Both derive from the match seed through :class:`numpy.random.SeedSequence`, so game ``i``
plays the same whether it is played alone, resumed, or among thousands at any concurrency.

Example:
    >>> game_seed(0, 3) == game_seed(0, 3), game_seed(0, 3) != game_seed(1, 3)
    (True, True)
"""

from __future__ import annotations

import numpy as np

__all__ = ["agent_seed", "game_seed"]


def game_seed(seed: int, index: int) -> int:
    """The env seed of game ``index`` of a match seeded ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint64)[0] % (2**63))


def agent_seed(seed: int, index: int, seat_index: int) -> int:
    """The seed of the agent in seat number ``seat_index`` for game ``index``."""
    return int(np.random.SeedSequence([seed, index, 1 + seat_index]).generate_state(1, dtype=np.uint64)[0] % (2**63))
