"""Seeds of a match: one for each game's env and one for each seat's agent in that game.

Both derive from the match seed through :class:`numpy.random.SeedSequence`, so game ``i``
plays the same whether it is played alone, resumed, or among thousands at any concurrency.
An agent built with a seed of its own (a spec's ``seed=S``, e.g. ``random:seed=5``) is still
reset every game, with a seed derived from the match seed, the game, the seat *and* ``S``:
``seed=5`` and ``seed=6`` play differently, the same ``S`` plays the same, and each game
still differs from the others. An agent without one gets the seed it always got.

Example:
    >>> game_seed(0, 3) == game_seed(0, 3), game_seed(0, 3) != game_seed(1, 3)
    (True, True)
    >>> agent_seed(0, 3, 1, own_seed=5) != agent_seed(0, 3, 1, own_seed=6) != agent_seed(0, 3, 1)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cluegym.envs.core.rng import check_seed
from cluegym.envs.core.text import is_integer

__all__ = ["agent_seed", "check_match_seed", "game_seed", "own_seed_of", "with_own_seed"]


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
    check_seed(seed, name, optional=False)


def _first_seed(sequence: np.random.SeedSequence) -> int:
    """The first 64-bit word ``sequence`` generates, as a non-negative seed below 2**63."""
    return int(sequence.generate_state(1, dtype=np.uint64)[0] % (2**63))


def game_seed(seed: int, index: int) -> int:
    """The env seed of game ``index`` of a match seeded ``seed``."""
    return _first_seed(np.random.SeedSequence([seed, index]))


def agent_seed(seed: int, index: int, seat_index: int, own_seed: int | None = None) -> int:
    """The seed the agent in seat number ``seat_index`` is reset with for game ``index``.

    Args:
        seed: the match seed.
        index: the game's index in the match.
        seat_index: the seat's number in the env's ``possible_agents``.
        own_seed: the agent's own seed (see :func:`own_seed_of`), mixed in as well; None (an
            agent without one) gives the seed such an agent always got.
    """
    # As a spawn key, which numpy appends after padding the entropy with zeros: a plain extra
    # entry would be that padding, and own seed 0 would give the seed of an agent without one.
    spawn_key = () if own_seed is None else (own_seed,)
    return _first_seed(np.random.SeedSequence([seed, index, 1 + seat_index], spawn_key=spawn_key))


def own_seed_of(agent: Any) -> int | None:
    """The seed ``agent`` was built with (its spec's ``seed=``), or None.

    That is its ``seed`` attribute (:class:`cluegym.agents.base.Agent` keeps the seed it was
    built with there) when that is a non-negative integer. The match builds its agents with no
    default seed, so only a spec (or a registered preset) sets one.
    """
    value = getattr(agent, "seed", None)
    # A bool is no seed, and a seed() method (Gymnasium's old API) is not one either.
    if not is_integer(value) or value < 0:
        return None
    return int(value)


def with_own_seed(drawn: int, own_seed: int | None) -> int:
    """``drawn``, a seed drawn for an agent outside a match, with the agent's own seed mixed in.

    The learning views (:class:`~cluegym.wrappers.SelfPlayEnv`, the multi-seat view) draw each
    opponent's seed from their own generator, game after game; this mixes in the opponent's own
    seed (its spec's ``seed=S``, see :func:`own_seed_of`) as :func:`agent_seed` does in a
    match, so ``random:seed=5`` and ``random:seed=6`` play differently there too.

    Args:
        drawn: the seed drawn (a non-negative integer).
        own_seed: the agent's own seed, or None, which leaves ``drawn`` as it is (an agent
            without one gets the seed it always got).

    Example:
        >>> with_own_seed(7, None)
        7
        >>> with_own_seed(7, 5) != with_own_seed(7, 6) != 7
        True
    """
    if own_seed is None:
        return drawn
    return _first_seed(np.random.SeedSequence([drawn], spawn_key=(own_seed,)))
