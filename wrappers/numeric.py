"""Generic learner features: the numeric fields of any observation, flattened.

A game whose ``GameSpec`` names no ``learner_task`` still trains (a seat with a ``Discrete``
action, see :func:`cluegym.wrappers.selfplay.generic_task`): its features are the numeric
fields of the seat's ``Dict`` observation, found from the observation space, nested ``Dict``
and ``Tuple`` entries included. Text (the prompt, clues, histories) is skipped.

- ``Discrete`` and ``MultiDiscrete`` fields become one-hot vectors, ``MultiBinary`` fields
  their 0/1 flags;
- ``Box`` fields are flattened and, where both bounds are finite, scaled to ``[0, 1]``
  (unbounded entries stay raw);
- the ``action_mask`` counts as a field like any other (a 0/1 ``Box``): it tells the
  policy what is still possible.

Example:
    >>> import cluegym
    >>> env = cluegym.make("decrypto")
    >>> env.reset(seed=0)
    >>> features = NumericFeatures(env.observation_space("bob"))
    >>> features(env.observe("bob")).shape == features.observation_space.shape
    True
    >>> features.observation_space.shape
    (107,)
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np

from cluegym.wrappers.featurizers import Featurizer

__all__ = ["NumericFeatures", "numeric_fields"]

#: Spaces read as numbers.
NUMERIC_SPACES = (gymnasium.spaces.Box, gymnasium.spaces.Discrete, gymnasium.spaces.MultiBinary,
                  gymnasium.spaces.MultiDiscrete)
Path = tuple[Any, ...]


def numeric_fields(space: gymnasium.Space, path: Path = ()) -> list[tuple[Path, gymnasium.Space]]:
    """``(path, space)`` of every numeric leaf of ``space`` (keys for ``Dict``, indices for
    ``Tuple``), in the space's order; Text and other leaves are skipped."""
    if isinstance(space, NUMERIC_SPACES):
        return [(path, space)]
    if isinstance(space, gymnasium.spaces.Dict):
        return [f for key, sub in space.spaces.items() for f in numeric_fields(sub, (*path, key))]
    if isinstance(space, gymnasium.spaces.Tuple):
        return [f for i, sub in enumerate(space.spaces) for f in numeric_fields(sub, (*path, i))]
    return []


class NumericFeatures(Featurizer):
    """Every numeric field of one seat's observation, one-hot or scaled, in one ``float32`` vector.

    Args:
        observation_space: the seat's observation space.

    Raises:
        ValueError: the space has no numeric field (nothing for a policy to read).
    """

    def __init__(self, observation_space: gymnasium.Space) -> None:
        self.fields = numeric_fields(observation_space)
        if not self.fields:
            raise ValueError(f"the observation space has no numeric field to learn from: {observation_space}")
        lows, highs, self._scales = [], [], []
        for _, space in self.fields:
            flat = gymnasium.spaces.flatten_space(space)
            low, high = flat.low.astype(np.float64), flat.high.astype(np.float64)
            finite = np.isfinite(low) & np.isfinite(high) & (high > low)
            offset, span = np.where(finite, low, 0.0), np.where(finite, high - low, 1.0)
            self._scales.append((offset, span))
            lows.append(np.where(finite, 0.0, low))
            highs.append(np.where(finite, 1.0, high))
        self.observation_space = gymnasium.spaces.Box(
            np.concatenate(lows).astype(np.float32), np.concatenate(highs).astype(np.float32), dtype=np.float32)

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        parts = []
        for (path, space), (offset, span) in zip(self.fields, self._scales):
            value: Any = observation
            for key in path:
                value = value[key]
            flat = np.asarray(gymnasium.spaces.flatten(space, value), dtype=np.float64).reshape(-1)
            parts.append((flat - offset) / span)
        return np.concatenate(parts).astype(np.float32)

    def __repr__(self) -> str:
        names = [".".join(str(k) for k in path) for path, _ in self.fields]
        return f"NumericFeatures({', '.join(names)}; {self.observation_space.shape[0]} features)"
