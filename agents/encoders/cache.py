"""The one cache policy of the encoders: bounded least-recently-used caches of unit vectors.

Every encoder of :mod:`cluegym.agents.encoders` keeps what it computed in one process-wide
:class:`LRUCache` per kind of input, so a word, sentence or picture is encoded once per
process whoever asks (a baseline agent, a featurizer, DixitBench), and memory stays bounded
in long training runs. The sizes are :data:`WORD_CACHE_SIZE`, :data:`SENTENCE_CACHE_SIZE`
and :data:`IMAGE_CACHE_SIZE`; pictures are keyed by :func:`image_key`, a hash of their
bytes, so equal pictures from different observations share one entry.

Example:
    >>> cache = LRUCache(2)
    >>> cache.put("a", np.zeros(3)); cache.put("b", np.ones(3)); cache.put("c", np.ones(3))
    >>> cache.get("a") is None, len(cache)
    (True, 2)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import xxhash

__all__ = ["IMAGE_CACHE_SIZE", "LRUCache", "SENTENCE_CACHE_SIZE", "WORD_CACHE_SIZE", "image_key", "unit_rows"]

#: Word and phrase vectors kept, all embeddings together (keyed by ``(embedding, text)``).
WORD_CACHE_SIZE = 100_000
#: MiniLM sentence vectors kept (keyed by the text).
SENTENCE_CACHE_SIZE = 100_000
#: Picture results kept, features and class probabilities together (keyed by :func:`image_key`).
IMAGE_CACHE_SIZE = 20_000


class LRUCache:
    """A bounded least-recently-used cache: of arrays for the encoders, of any value that is
    not None for the baselines' kept tables (rankings, labels, clues).

    Args:
        max_items: entries kept; beyond that the least recently used one is dropped.

    Attributes:
        hits: lookups that found their key.
        misses: lookups that did not.

    Raises:
        ValueError: ``max_items`` < 1.
    """

    def __init__(self, max_items: int) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be >= 1, got {max_items}")
        self.max_items = int(max_items)
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> Any:
        """The value of ``key`` (now the most recently used), or None."""
        value = self._data.get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._data.move_to_end(key)
        return value

    def put(self, key: Hashable, value: Any) -> None:
        """Store ``value`` under ``key``, dropping the least recently used entry when full."""
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self.max_items:
            self._data.popitem(last=False)

    def fetch(self, keys: Sequence[Hashable], compute: Callable[[list[int]], Sequence[Any]]) -> list[Any]:
        """The values of ``keys``, in order, computing the missing ones in one call.

        Args:
            keys: one key per requested item (repeats allowed).
            compute: given the positions in ``keys`` of the first occurrence of each missing
                key, returns their values in that order (e.g. one batch through a model).

        A repeated key is looked up once; its repeats count as hits (served without computing).
        """
        found: dict[Hashable, Any] = {}
        missing: dict[Hashable, int] = {}
        for i, key in enumerate(keys):
            if key in found or key in missing:
                self.hits += 1
                continue
            value = self.get(key)
            if value is None:
                missing[key] = i
            else:
                found[key] = value
        if missing:
            values = compute(list(missing.values()))
            if len(values) != len(missing):
                raise RuntimeError(f"compute returned {len(values)} values for {len(missing)} keys")
            for key, value in zip(missing, values):
                self.put(key, value)
                found[key] = value
        return [found[key] for key in keys]

    def __contains__(self, key: Hashable) -> bool:
        """Whether ``key`` is cached (does not count as a use)."""
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        """Drop every entry and reset the counters."""
        self._data.clear()
        self.hits = self.misses = 0


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero).

    Example:
        >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
        [[0.6, 0.8], [0.0, 0.0]]
    """
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def image_key(image: np.ndarray, *context: Any) -> bytes:
    """A digest of a picture's shape, bytes and ``context`` (e.g. what was computed from it):
    16 bytes of XXH3-128, the record digests' hash (a cache key needs no cryptographic hash,
    and XXH3 reads a Dixit card's pixels ~30x faster than SHA-1, which was a quarter of a
    vision agent's turn).

    Example:
        >>> image_key(np.zeros((2, 2, 3), np.uint8), "features") == image_key(np.zeros((2, 2, 3), np.uint8), "features")
        True
    """
    image = np.ascontiguousarray(image)
    key = (image.shape, context)
    try:
        head = _KEY_HEADS.get(key)
    except TypeError:  # an unhashable context: its text is made every time
        key, head = None, None
    if head is None:  # a few kinds of picture and context: the text of each made once
        head = "/".join(map(str, (image.shape, *context))).encode()
        if key is not None:
            if len(_KEY_HEADS) >= 1024:
                _KEY_HEADS.clear()
            _KEY_HEADS[key] = head
    hasher = xxhash.xxh3_128(head)
    hasher.update(image.data)  # the pixels where they are, not a copy
    return hasher.digest()


#: :func:`image_key`'s header bytes by (shape, context).
_KEY_HEADS: dict[tuple[tuple[int, ...], tuple[Any, ...]], bytes] = {}
