"""Space helpers: Text spaces over the shared charset, padded text tuples, masks."""

from __future__ import annotations

from typing import Sequence

import gymnasium
import numpy as np

from cluegym.envs.core.text import CHARSET


def text_space(max_length: int, min_length: int = 0) -> gymnasium.spaces.Text:
    """A ``Text`` space over :data:`CHARSET` (gymnasium's default charset lacks the space)."""
    return gymnasium.spaces.Text(max_length=max_length, min_length=min_length, charset=CHARSET)


def text_tuple(n: int, max_length: int) -> gymnasium.spaces.Tuple:
    """A fixed-size tuple of ``n`` Text entries (pad unused entries with ``""``)."""
    return gymnasium.spaces.Tuple([text_space(max_length) for _ in range(n)])


def pad_texts(texts: Sequence[str], n: int) -> tuple[str, ...]:
    """``texts`` padded with ``""`` (or clipped) to exactly ``n`` entries."""
    return tuple(list(texts[:n]) + [""] * max(0, n - len(texts)))


def mask_space(n: int) -> gymnasium.spaces.Box:
    """An int8 0/1 action-mask space of length ``n``."""
    return gymnasium.spaces.Box(0, 1, shape=(n,), dtype=np.int8)


def int_box(high: int, shape: tuple[int, ...], low: int = 0) -> gymnasium.spaces.Box:
    """An int64 Box, for indices, codes, counters and scores."""
    return gymnasium.spaces.Box(low, high, shape=shape, dtype=np.int64)
