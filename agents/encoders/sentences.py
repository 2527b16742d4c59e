"""Sentence vectors: all-MiniLM-L6-v2 for captions, speech and features, and utterance vectors.

- :class:`SentenceEncoder`: unit MiniLM vectors of texts, through the process-wide
  :data:`SENTENCE_CACHE` (the uncached texts of a call are encoded in one batch). Used by the
  Dixit baselines and DixitBench (captions, clues, ImageNet labels), the free-text baselines
  and the featurizers.
- :class:`SpeechEncoder`: what the free-text baselines (Undercover, Adversarial Taboo) compare:
  word vectors of single words; for a sentence, the MiniLM sentence vector when the
  embedding is ``"minilm"``, else the mean of its content words (stopwords dropped).

Example:
    >>> sentences = SentenceEncoder()
    >>> sims = sentences.similarity(["a cat sleeps"], ["a kitten naps", "stocks fell"])
    >>> bool(sims[0, 0] > sims[0, 1])
    True
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cluegym.agents.encoders.cache import SENTENCE_CACHE_SIZE, LRUCache, unit_rows
from cluegym.agents.encoders.loaders import MINILM_DIM, encode_sentences
from cluegym.agents.encoders.vocabulary import STOPWORDS
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.text import tokens

__all__ = ["SENTENCE_CACHE", "SentenceEncoder", "SpeechEncoder"]

#: Unit MiniLM vectors of texts, keyed by the text, for every SentenceEncoder.
SENTENCE_CACHE = LRUCache(SENTENCE_CACHE_SIZE)


class SentenceEncoder:
    """Unit all-MiniLM-L6-v2 vectors of sentences (384-d), cached per text for the process.

    Every instance reads and fills the same :data:`SENTENCE_CACHE`; the model loads on the
    first text that is not cached.
    """

    dim = MINILM_DIM

    @property
    def cache(self) -> LRUCache:
        """The process-wide sentence cache."""
        return SENTENCE_CACHE

    def vector(self, text: str) -> np.ndarray:
        """The unit vector of one text."""
        return self.matrix([text])[0]

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """Stacked unit vectors, one row per text; the uncached texts are encoded in one batch."""
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)

        def encode(positions: list[int]) -> np.ndarray:
            missing = [texts[i] for i in positions]
            return unit_rows(np.asarray(encode_sentences(missing), dtype=np.float32).reshape(len(missing), -1))

        return np.array(SENTENCE_CACHE.fetch(texts, encode))  # rows of one shape: np.stack, cheaper

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarities, shape ``(len(a), len(b))``."""
        return self.matrix(a) @ self.matrix(b).T


class SpeechEncoder:
    """Unit vectors of words and sentences for the free-text baselines (see module docstring).

    Args:
        words: the embedding's word encoder.
        sentences: use the MiniLM sentence model for sentences (only with the ``"minilm"``
            embedding, whose word vectors come from the same model; default: yes).

    Example:
        >>> speech = SpeechEncoder(WordEncoder("glove"))
        >>> speech.text("It has a striped body.") is WordEncoder("glove").vector("striped body")
        True
    """

    def __init__(self, words: WordEncoder, sentences: bool | None = None) -> None:
        self.words = words
        self.embedding = words.embedding
        self.sentences = SentenceEncoder() if words.embedding == "minilm" and sentences is not False else None

    @property
    def dim(self) -> int:
        """Width of the vectors (the word embedding's)."""
        return self.words.dim

    def word(self, word: str) -> np.ndarray:
        """The unit vector of a word or short phrase (zeros when unknown)."""
        return self.words.vector(word)

    def text(self, text: str) -> np.ndarray:
        """The unit vector of a sentence: the sentence model's, or the mean of its content words."""
        if self.sentences is not None and len(tokens(text)) > 1:
            return self.sentences.vector(text)
        content = [t for t in tokens(text) if t not in STOPWORDS and t.isalpha()]
        return self.words.vector(" ".join(content)) if content else np.zeros(self.dim, dtype=np.float32)

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        """Stacked unit vectors, one row per text."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.text(t) for t in texts])
