"""Word and short-phrase vectors over a named word embedding: one encoder for every caller.

The embedding baselines (:mod:`cluegym.agents.embedding`) and the learner featurizers
(:mod:`cluegym.wrappers`) both use :class:`WordEncoder`, so a phrase is embedded the same
way, and once per process, whoever asks: every encoder of one embedding reads the same
``KeyedVectors`` (:func:`~cluegym.agents.encoders.loaders.load_embedding`) and the
process-wide :data:`WORD_CACHE`.

Example:
    >>> words = WordEncoder("glove")
    >>> float(words.vector("fruit") @ words.vector("apple"))  # cosine similarity
    0.59...
    >>> words.similarity(["fruit", "wing"], ["apple", "bird"]).shape
    (2, 2)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from cluegym.agents.encoders.cache import WORD_CACHE_SIZE, LRUCache
from cluegym.agents.encoders.loaders import embedding_name, load_embedding, load_vectors
from cluegym.agents.encoders.vocabulary import game_vocabulary
from cluegym.envs.core.text import tokens

if TYPE_CHECKING:  # pragma: no cover - typing only, gensim loads with the vectors
    from gensim.models import KeyedVectors

__all__ = ["WORD_CACHE", "WordEncoder"]

#: Unit vectors of words and phrases, keyed by ``(source, text)`` (``source`` is the embedding
#: name, or name and file for user vectors), for every WordEncoder.
WORD_CACHE = LRUCache(WORD_CACHE_SIZE)


class WordEncoder:
    """Unit vectors of words and short phrases from ``"glove"``, ``"word2vec"`` or ``"minilm"``.

    A phrase is the normalized mean of its in-vocabulary tokens (:func:`cluegym.envs.core.text.tokens`);
    a phrase with none is the zero vector (similarity 0 to everything), so unknown or
    ``(pass)`` hints carry no signal. The embedding loads on first use (:meth:`load`).

    Args:
        embedding: the word embedding's name (case ignored).
        vectors: a word-vectors file to use instead of the packaged model (any format of
            :func:`~cluegym.agents.encoders.loaders.load_vectors`: the paper's Common Crawl
            GloVe, GoogleNews word2vec, ...); ``embedding`` then only names the family.
        limit: with ``vectors``, keep the file's first ``limit`` words.

    Attributes:
        source: what the vectors are: the embedding name, or ``"glove@/abs/path"`` for a
            file (the key of the shared cache, so two files never share vectors).

    Raises:
        ValueError: an unknown embedding name (the message lists the valid ones).

    Example:
        >>> WordEncoder("glove").vector("red apple").shape
        (50,)
        >>> WordEncoder("word2vec", vectors="GoogleNews-vectors-negative300.bin").source
        'word2vec@/.../GoogleNews-vectors-negative300.bin'
    """

    def __init__(self, embedding: str = "glove", vectors: str | Path | None = None,
                 limit: int | None = None) -> None:
        self.embedding = embedding_name(embedding)
        self.vectors_path = Path(vectors).expanduser().resolve() if vectors is not None else None
        self.limit = limit
        self.source = self.embedding if self.vectors_path is None else f"{self.embedding}@{self.vectors_path}"
        if limit is not None:
            self.source += f"[:{int(limit)}]"
        self._kv: KeyedVectors | None = None

    def __getstate__(self) -> dict[str, Any]:
        # The vectors are loaded once per process and shared: a copy (or a pickled env that
        # holds this encoder) loads them again on first use instead of carrying them.
        return {**self.__dict__, "_kv": None}

    @property
    def kv(self) -> "KeyedVectors":
        """The embedding's gensim ``KeyedVectors`` (loaded once per process, shared)."""
        if self._kv is None:
            self._kv = (load_embedding(self.embedding) if self.vectors_path is None
                        else load_vectors(self.vectors_path, limit=self.limit))
        return self._kv

    def load(self) -> "WordEncoder":
        """Load the embedding now (instead of on first use); returns self."""
        self.kv
        return self

    @property
    def dim(self) -> int:
        """Width of the vectors."""
        return int(self.kv.vector_size)

    def __contains__(self, word: str) -> bool:
        """Whether the embedding knows ``word`` as one token."""
        return word in self.kv.key_to_index

    def vector(self, text: str) -> np.ndarray:
        """The unit vector of a word or phrase (zeros when no token is known)."""
        text = str(text)
        key = (self.source, text)
        cached = WORD_CACHE.get(key)
        if cached is not None:
            return cached
        kv = self.kv
        known = [t for t in tokens(text) if t in kv.key_to_index]
        if not known and text.lower() in kv.key_to_index:
            known = [text.lower()]
        vec = np.zeros(int(kv.vector_size), dtype=np.float32)
        if known:
            vec = np.mean([kv.get_vector(t, norm=True) for t in known], axis=0).astype(np.float32)
            norm = float(np.linalg.norm(vec))
            vec = vec / norm if norm > 0 else vec
        WORD_CACHE.put(key, vec)
        return vec

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """Stacked unit vectors, one row per text (shape ``(len(texts), dim)``)."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.array([self.vector(t) for t in texts])  # rows of one shape: np.stack, cheaper

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarities, shape ``(len(a), len(b))``; 0 where either side is unknown."""
        return self.matrix(a) @ self.matrix(b).T

    def known_words(self, vocabulary: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
        """The words of ``vocabulary`` that this embedding knows, and their unit vectors.

        Args:
            vocabulary: words to keep (None: the shipped game vocabularies,
                :func:`~cluegym.agents.encoders.vocabulary.game_vocabulary`).

        Returns:
            ``(words, matrix)`` with one row of ``matrix`` per word, in order.
        """
        if vocabulary is None:
            vocabulary = game_vocabulary()
        words = [w for w in vocabulary if self.vector(w).any()]
        return words, self.matrix(words)

    def __repr__(self) -> str:
        if self.vectors_path is None:
            return f"WordEncoder({self.embedding!r})"
        return f"WordEncoder({self.embedding!r}, vectors={str(self.vectors_path)!r})"
