"""Featurizers: observations to fixed-size vectors, for policies that cannot read Text.

A :class:`Featurizer` turns one seat's observation into a ``float32`` vector in a fixed
``Box``; game-specific featurizers (e.g. :class:`cluegym.wrappers.decrypto.DecryptoFeatures`)
build structured features, such as the similarity of each hint to each keyword, from the
encoders the baselines use too (:mod:`cluegym.agents.encoders`: ``WordEncoder``,
``SentenceEncoder``, ``ImageEncoder``), so features and baselines share one cache and every
model loads once per process; nothing loads at import.

Example:
    >>> from cluegym.agents.encoders import WordEncoder
    >>> words = WordEncoder("glove")
    >>> words.similarity(["fruit", "wing"], ["apple", "bird"]).shape
    (2, 2)
"""

from __future__ import annotations

import math
from typing import Any, Generic, Sequence, TypeVar

import gymnasium
import numpy as np

__all__ = ["Featurizer", "LastResult", "standardize", "standardize_list", "mean_deviations"]


class Featurizer:
    """Turns one seat's observation (and the step's candidate actions) into a fixed vector.

    Subclasses set :attr:`observation_space` (a ``float32`` ``Box``) and implement
    :meth:`features`. :meth:`__call__` clips into the space, so policies always see valid input.
    """

    observation_space: gymnasium.spaces.Box
    #: Features per choice when the vector is laid out ``[n_choices x per_choice | context]``
    #: (lets :mod:`cluegym.training.policies` score every choice with shared weights); None
    #: for a flat vector.
    per_choice: int | None = None
    #: :meth:`features` itself returns a ``float32`` vector of the space's shape within its
    #: bounds (clipped): :meth:`__call__` then hands it on without its own checks and clip
    #: (~3 us a decision). The shipped featurizers that set it are tested for it.
    bounded: bool = False

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, observation: dict[str, Any], info: dict[str, Any] | None = None,
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        if self.bounded:
            return self.features(observation, info or {}, candidates)
        vec = np.asarray(self.features(observation, info or {}, candidates), dtype=np.float32).reshape(-1)
        space = self.observation_space
        if vec.shape != space.shape:
            raise ValueError(f"{type(self).__name__} produced shape {vec.shape}, expected {space.shape}")
        return vec.clip(space.low, space.high)  # the method: np.clip's dispatch costs twice as much


T = TypeVar("T")


class LastResult(Generic[T]):
    """The last result of a computation, kept with its key, for featurizers that read alike.

    Within a turn or a round every seat's featurizer often asks for the same thing (a round's
    table, a hint history's targets, a clue's similarities): a module keeps one LastResult,
    shared by all of its featurizers, so the first asks and the others read. One entry only:
    a key that changes at every step costs one comparison. The value is shared, so keep it
    read-only.

    Example:
        >>> last = LastResult()
        >>> last.get(("glove", "sailing")) is None
        True
        >>> last.keep(("glove", "sailing"), 0.5)
        0.5
        >>> last.get(("glove", "sailing"))
        0.5
    """

    __slots__ = ("_key", "_value")

    def __init__(self) -> None:
        self._key: Any = None
        self._value: T | None = None

    def get(self, key: Any) -> T | None:
        """The kept value when it was kept under ``key`` (compared with ``==``), else None."""
        return self._value if self._value is not None and self._key == key else None

    def keep(self, key: Any, value: T) -> T:
        """Keep ``value`` under ``key`` (instead of the previous one) and return it."""
        self._key, self._value = key, value
        return value


def standardize(values: np.ndarray, among: np.ndarray) -> np.ndarray:
    """``values`` as z-scores over the entries ``among`` selects, divided by 3 (so most fall in
    [-1, 1]); 0 outside ``among``, and everywhere when fewer than two are selected or they
    do not spread.

    The same arithmetic as ``pool.mean()`` and ``pool.std()`` (sums by ``np.add.reduce`` in the
    values' dtype), written out: numpy's ``std`` costs ~10 us a call in its error-state
    bookkeeping. The features standardize a handful of values with :func:`standardize_list`,
    which calls this from 8 selected values on.

    Example:
        >>> standardize(np.array([1.0, 2.0, 3.0]), np.array([True, True, True]))
        array([-0.40824829,  0.        ,  0.40824829])
    """
    pool = values[among]
    n = pool.size
    if n < 2:
        return np.zeros_like(values)
    mean = np.add.reduce(pool) / n
    deviations = pool - mean
    spread = float(np.sqrt(np.add.reduce(deviations * deviations) / n))
    if spread < 1e-6:
        return np.zeros_like(values)
    return np.where(among, (values - mean) / (3.0 * spread), 0.0)


def standardize_list(values: Sequence[float], among: Sequence[bool]) -> list[float]:
    """:func:`standardize` of a few float64 values as plain Python floats, bit for bit.

    For up to 7 selected values numpy's ``np.add.reduce`` adds them left to right, as the
    loops here do, and every other step is one IEEE double operation, so the floats are
    those of :func:`standardize` (at a fraction of the cost of its numpy calls on a handful
    of values); from 8 on numpy sums pairwise and this calls :func:`standardize` itself.

    Raises:
        ValueError: ``values`` and ``among`` differ in length.

    Example:
        >>> standardize_list([1.0, 2.0, 3.0], [True, True, True])
        [-0.4082482904638631, 0.0, 0.4082482904638631]
    """
    # One pass for the sum, one for the squares: loops over the selected values (C doubles
    # in the build, featurizers.pxd) in numpy's left-to-right order.
    count = len(values)
    if len(among) != count:
        raise ValueError(f"{count} values but {len(among)} selection flags")
    n = 0
    total = 0.0
    for i in range(count):
        if among[i]:
            value = float(values[i])
            total = value if n == 0 else total + value
            n += 1
    if n < 2:
        return [0.0] * count
    if n >= 8:
        return standardize(np.asarray(values, dtype=np.float64), np.asarray(among, dtype=bool)).tolist()
    mean = total / n
    squares = 0.0
    seen = 0
    for i in range(count):
        if among[i]:
            deviation = float(values[i]) - mean
            squares = deviation * deviation if seen == 0 else squares + deviation * deviation
            seen += 1
    spread = math.sqrt(squares / n)
    if spread < 1e-6:
        return [0.0] * count
    scale = 3.0 * spread
    out = [0.0] * count
    for i in range(count):
        if among[i]:
            out[i] = (float(values[i]) - mean) / scale
    return out


def mean_deviations(values: np.ndarray) -> tuple[np.floating, np.ndarray, float]:
    """``values.mean()``, ``values - values.mean()`` and ``float(values.std())``, bit for bit,
    at a third of the cost: numpy's ``mean`` and ``std`` of a few values spend ~14 us in their
    bookkeeping.

    The same operations as numpy's ``_mean`` and ``_var`` (sums by ``np.add.reduce`` in the
    values' dtype, each divided by the count as an ``intp`` and cast back to that dtype; the
    square root in that dtype), for a non-empty 1-D floating array.

    Example:
        >>> mean, deviations, spread = mean_deviations(np.array([1.0, 2.0, 3.0]))
        >>> float(mean), deviations.tolist(), spread
        (2.0, [-1.0, 0.0, 1.0], 0.816496580927726)
    """
    count = np.intp(values.size)
    scalar = values.dtype.type
    mean = scalar(np.add.reduce(values) / count)
    deviations = values - mean
    variance = scalar(np.add.reduce(deviations * deviations) / count)
    return mean, deviations, float(scalar(np.sqrt(variance)))
