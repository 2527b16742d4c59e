"""Shared pieces of the embedding baselines: phrase vectors over any gensim KeyedVectors."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from cluegym.agents.base import Agent
from cluegym.envs.core.text import tokens


class WordVectors:
    """Unit vectors for words and short phrases from a gensim ``KeyedVectors``.

    A phrase is the normalized mean of its in-vocabulary tokens; a phrase with none is the
    zero vector (similarity 0 to everything), so unknown or ``(pass)`` hints carry no signal.

    Example:
        >>> wv = WordVectors(load_glove())
        >>> float(wv.vector("red apple") @ wv.vector("fruit"))
    """

    def __init__(self, keyed_vectors: Any) -> None:
        self.kv = keyed_vectors
        self.dim = int(keyed_vectors.vector_size)
        self._cache: dict[str, np.ndarray] = {}

    def __contains__(self, word: str) -> bool:
        return word in self.kv.key_to_index

    def vector(self, text: str) -> np.ndarray:
        """The unit vector of ``text`` (zeros when no token is known)."""
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        known = [t for t in tokens(text) if t in self.kv.key_to_index]
        if not known and text.lower() in self.kv.key_to_index:
            known = [text.lower()]
        vec = np.zeros(self.dim, dtype=np.float32)
        if known:
            vec = np.mean([self.kv.get_vector(t, norm=True) for t in known], axis=0).astype(np.float32)
            norm = float(np.linalg.norm(vec))
            vec = vec / norm if norm > 0 else vec
        self._cache[text] = vec
        return vec

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """Stacked unit vectors, one row per text."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vector(t) for t in texts])


class EmbeddingAgent(Agent):
    """Base of the embedding baselines: resolves and caches the word vectors.

    Args:
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"``; None uses the registered
            name's embedding (``glove:...`` -> GloVe).
    """

    #: Set by :func:`cluegym.agents.embedding.embedding_agent_class` for each registered name.
    default_embedding: str = "glove"

    def __init__(self, game: str, seat: str, action_space: Any, *, embedding: str | None = None,
                 seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        self.embedding = embedding or self.default_embedding
        from cluegym.agents.embeddings import load_embedding

        self.vectors = _word_vectors(self.embedding, load_embedding)


_WORD_VECTORS: dict[str, WordVectors] = {}


def _word_vectors(name: str, loader: Any) -> WordVectors:
    # One WordVectors per embedding per process, so phrase caches are shared across games.
    if name not in _WORD_VECTORS:
        _WORD_VECTORS[name] = WordVectors(loader(name))
    return _WORD_VECTORS[name]
