"""numpy's random calls that every game makes, with numpy's results, faster.

- :func:`default_rng`: ``np.random.default_rng(seed)``, built in about a quarter of the time
  for an integer seed;
- :func:`integers`: ``int(rng.integers(high))``; :func:`choice_without_replacement`:
  ``rng.choice(n, size, replace=False).tolist()``; :func:`permutation`:
  ``rng.permutation(n).tolist()``: the same values, drawn from the same
  generator (left in the same state), without numpy's Python-level argument handling (1-5
  us a call: a game draws a few per game, the random agent one per move);
- :func:`check_seed`: what every ``reset(seed=...)`` accepts (None or a non-negative integer),
  checked before a reset changes anything.

Each takes the fast path where a small C extension was built (``envs/core/_rng.c``, compiled
by ``pip install`` where a C compiler is) and calls numpy otherwise; ``tests/games/test_rng.py``
checks them against numpy, draw for draw.

Every game's ``reset`` and every agent's ``reset`` makes the generator of its seed. numpy's
``default_rng(seed)`` spends ~9 us on it, most of it hashing the seed into PCG64's state
(``SeedSequence``, numpy scalars under ``np.errstate``): as much as a short game's step, paid
once per game per seat. :func:`default_rng` returns the same generator, numpy's ``Generator``
over numpy's ``PCG64`` in the same state (the same draws, ``spawn`` children and
``bit_generator.seed_seq.entropy``), in ~2 us: the seed's words come from the extension.

Example:
    >>> default_rng(7).integers(100, size=3).tolist() == np.random.default_rng(7).integers(100, size=3).tolist()
    True
    >>> integers(default_rng(3), 24) == int(np.random.default_rng(3).integers(24))
    True
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from cluegym.envs.core.extensions import load_extension
from cluegym.envs.core.text import describe, is_integer

#: The version of ``_rng.c``'s interface this module calls (its ``API``).
_RNG_API = 1
#: The C extension; None where it was not built (no C compiler at install) or is out of
#: date: numpy's own calls.
_rng = load_extension("_rng", _RNG_API, fallback="numpy makes the generators and draws (the same values, slower)")

#: Whether the C extension is built (then :func:`integers`, :func:`choice_without_replacement`
#: and :func:`permutation` take the fast path, and :func:`default_rng` too on a little-endian
#: machine, as its words' byte order assumes).
ACCELERATED = _rng is not None
_pcg64_words = _rng.pcg64_words if _rng is not None and sys.byteorder == "little" else None
_integers = _rng.integers if _rng is not None else None
_choice = _rng.choice if _rng is not None else None
_permutation = _rng.permutation if _rng is not None else None


def check_seed(seed: Any, name: str = "seed", *, optional: bool = True) -> None:
    """Raise unless ``seed`` is what ``reset(seed=...)`` takes: None or a non-negative integer
    (Python's or numpy's; a bool or a float is not a seed: ``1.5`` and ``1.7`` would play the
    same game).

    Args:
        seed: the value given.
        name: how the error names it (``"seed"``, ``"eval_seed"``).
        optional: whether None is a seed (a reset's is; a match's, which every game's seed
            is drawn from, is not).

    Raises:
        TypeError: neither None (where ``optional``) nor an integer.
        ValueError: a negative integer.

    Example:
        >>> check_seed(3), check_seed(None), check_seed(np.uint64(2**63))
        (None, None, None)
        >>> check_seed(None, "eval_seed", optional=False)
        Traceback (most recent call last):
        TypeError: eval_seed must be a non-negative integer, got None
    """
    if seed is None and optional:
        return
    if not is_integer(seed):
        raise TypeError(f"{name} must be a non-negative integer{' or None' if optional else ''}, got {describe(seed)}")
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer{' or None' if optional else ''}, got {seed}")


class _SeedSequence(np.random.SeedSequence):
    """numpy's ``SeedSequence(seed)`` for a PCG64 being built: its ``generate_state(4,
    np.uint64)`` (what PCG64 reads) from the words computed in C; everything else (``spawn``,
    ``entropy``, other draws of state) from numpy's own ``SeedSequence(seed)``, made when
    first asked for (its ``__init__`` is the cost this class avoids)."""

    def __init__(self, seed: int, words: bytes) -> None:  # noqa: D107 - numpy's __init__ not called on purpose
        self._seed = seed
        self._words: bytes | None = words
        self._numpy: np.random.SeedSequence | None = None

    def _sequence(self) -> np.random.SeedSequence:
        if self._numpy is None:
            self._numpy = np.random.SeedSequence(self._seed)
        return self._numpy

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        words, self._words = self._words, None
        if words is not None and n_words == 4 and dtype is np.uint64:
            # PCG64's own call, the first: it reads the words (read-only, not copied)
            return np.frombuffer(words, dtype=np.uint64)
        return self._sequence().generate_state(n_words, dtype)

    def spawn(self, n_children: int) -> list[np.random.SeedSequence]:
        return self._sequence().spawn(n_children)

    entropy = property(lambda self: self._sequence().entropy)
    spawn_key = property(lambda self: self._sequence().spawn_key)
    pool_size = property(lambda self: self._sequence().pool_size)
    pool = property(lambda self: self._sequence().pool)
    n_children_spawned = property(lambda self: self._sequence().n_children_spawned)
    state = property(lambda self: self._sequence().state)

    def __repr__(self) -> str:
        return repr(self._sequence())

    def __reduce__(self) -> Any:
        return self._sequence().__reduce__()


def default_rng(seed: Any = None) -> np.random.Generator:
    """``np.random.default_rng(seed)``: the same generator, built in about a quarter of the
    time for an ``int`` seed in ``0 .. 2**64 - 1`` (any other seed is numpy's own path).

    Args:
        seed: what ``np.random.default_rng`` takes (None: fresh OS entropy).

    Returns:
        A ``np.random.Generator`` over ``PCG64`` whose state, draws and spawned children are
        those of ``np.random.default_rng(seed)``.
    """
    if _pcg64_words is not None and type(seed) is int:
        words = _pcg64_words(seed)
        if words is not None:
            return np.random.Generator(np.random.PCG64(_SeedSequence(seed, words)))
    return np.random.default_rng(seed)


def integers(rng: np.random.Generator, high: int) -> int:
    """``int(rng.integers(high))``: a uniform int in ``0 .. high - 1``, numpy's draw.

    Args:
        rng: the generator to draw from (a ``np.random.Generator``; another object is asked
            for ``rng.integers(high)``).
        high: the exclusive upper bound (numpy's errors for a bad one: ``high <= 0``).

    Example:
        >>> integers(np.random.default_rng(0), 6)
        5
    """
    if _integers is not None and type(rng) is np.random.Generator and type(high) is int:
        value = _integers(rng, high)
        if value is not None:
            return value
    return int(rng.integers(high))


def choice_without_replacement(rng: np.random.Generator, n: int, size: int) -> list[int]:
    """``rng.choice(n, size=size, replace=False).tolist()``: ``size`` distinct ints of
    ``0 .. n - 1`` in numpy's order, numpy's draws.

    Example:
        >>> picks = choice_without_replacement(np.random.default_rng(0), 680, 4)
        >>> picks == np.random.default_rng(0).choice(680, size=4, replace=False).tolist()
        True
    """
    if _choice is not None and type(rng) is np.random.Generator and type(n) is int and type(size) is int:
        picks = _choice(rng, n, size)
        if picks is not None:
            return picks
    return rng.choice(n, size=size, replace=False).tolist()


def permutation(rng: np.random.Generator, n: int) -> list[int]:
    """``rng.permutation(n).tolist()``: ``0 .. n - 1`` in numpy's shuffled order, numpy's draws.

    Example:
        >>> permutation(np.random.default_rng(0), 5) == np.random.default_rng(0).permutation(5).tolist()
        True
    """
    if _permutation is not None and type(rng) is np.random.Generator and type(n) is int:
        order = _permutation(rng, n)
        if order is not None:
            return order
    return rng.permutation(n).tolist()
