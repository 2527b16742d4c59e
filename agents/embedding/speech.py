"""Shared pieces of the free-text baselines (Undercover, Adversarial Taboo).

- :data:`STOPWORDS`: function words dropped before averaging word vectors, so that
  "It has a striped body." is judged by ``striped body``.
- :class:`SpeechEncoder`: unit vectors for words and sentences. GloVe and word2vec average
  the content words' vectors; MiniLM encodes whole sentences with the sentence model
  (``cluegym.agents.embeddings.encode_sentences``) when it is available.
- :class:`Vocabulary`: the words a baseline may say or guess: the embedding's vocabulary,
  in its frequency order, restricted to lowercase alphabetic WordNet lemmas (when WordNet is
  installed) that are not stopwords, with their unit vectors, Snowball stems and
  nearest-neighbour search.

Example:
    >>> encoder = SpeechEncoder("glove", vectors)
    >>> vocab = Vocabulary.for_embedding("glove", vectors)
    >>> vocab.neighbours(encoder.word("bee"), k=5)
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Sequence

import numpy as np

from cluegym.agents.embedding.common import WordVectors
from cluegym.envs.core.text import tokens
from cluegym.envs.core.matching import _wordnet, lemmas, says_word, snowball_stem, wordnet_available

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just like me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves also one ones thing things something someone really maybe
    think see know get got make made much many often usually sometimes people way lot well yes oh""".split()
)


class SpeechEncoder:
    """Unit vectors for words and sentences, from word vectors or the MiniLM sentence model.

    Args:
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"``.
        vectors: the embedding's :class:`WordVectors`.
        sentences: use the sentence model for sentences (MiniLM only; default: when available).
    """

    def __init__(self, embedding: str, vectors: WordVectors, sentences: bool | None = None) -> None:
        self.embedding = embedding
        self.vectors = vectors
        self.dim = vectors.dim
        self._encode_sentences = None
        if embedding == "minilm" and sentences is not False:
            try:
                from cluegym.agents.embeddings import encode_sentences
            except ImportError:
                encode_sentences = None
            self._encode_sentences = encode_sentences
        self._cache: dict[str, np.ndarray] = {}

    def word(self, word: str) -> np.ndarray:
        """The unit vector of a word or short phrase (zeros when unknown)."""
        return self.vectors.vector(word)

    def text(self, text: str) -> np.ndarray:
        """The unit vector of a sentence: the mean of its content words (or the sentence model)."""
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        if self._encode_sentences is not None and len(tokens(text)) > 1:
            vec = np.asarray(self._encode_sentences([text]), dtype=np.float32).reshape(-1)
            norm = float(np.linalg.norm(vec))
            vec = vec / norm if norm > 0 else vec
            if vec.shape[0] != self.dim:  # a sentence model of another width: fall back to words
                vec = self._mean_of_words(text)
        else:
            vec = self._mean_of_words(text)
        self._cache[text] = vec
        return vec

    def _mean_of_words(self, text: str) -> np.ndarray:
        content = [t for t in tokens(text) if t not in STOPWORDS and t.isalpha()]
        return self.vectors.vector(" ".join(content)) if content else np.zeros(self.dim, dtype=np.float32)

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        """Stacked unit vectors, one row per text."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.text(t) for t in texts])


class Vocabulary:
    """Words a baseline may say or guess, with unit vectors and stems (see module docstring).

    Use :meth:`for_embedding` to share one instance per embedding and size in a process.
    """

    def __init__(self, words: Sequence[str], matrix: np.ndarray) -> None:
        self.words = list(words)
        self.matrix = matrix
        self.index = {w: i for i, w in enumerate(self.words)}
        self.stems = [snowball_stem(w) for w in self.words]

    @classmethod
    def for_embedding(cls, embedding: str, vectors: WordVectors, size: int = 20000,
                      words: Sequence[str] | None = None, nouns: bool = False) -> "Vocabulary":
        """The shared vocabulary of ``embedding``: its first ``size`` usable words (only
        WordNet nouns with ``nouns``), or ``words`` (those the embedding knows)."""
        key = (embedding, size, None if words is None else tuple(words), nouns)
        if key not in _VOCABULARIES:
            source: Iterable[str] = words if words is not None else vectors.kv.index_to_key
            picked = _usable(source, vectors, size, filter_lemmas=words is None, nouns=nouns)
            if not picked:
                raise ValueError(f"no usable vocabulary word is known to the {embedding} embedding")
            _VOCABULARIES[key] = cls(picked, vectors.matrix(picked))
        return _VOCABULARIES[key]

    def neighbours(self, vector: np.ndarray, k: int, exclude: Any = None, start: int = 0) -> list[str]:
        """The words ranked ``start .. start + k`` by cosine similarity to ``vector``,
        skipping words for which ``exclude(word)`` is true."""
        if not np.any(vector) or k < 1:
            return []
        scores = self.matrix @ vector
        out: list[str] = []
        skipped = 0
        seen = 0
        depth = min(len(self.words), 4 * (start + k) + 64)
        while True:
            # Rank only the best `depth` words; look deeper only if exclusions ate them all.
            top = np.argpartition(-scores, depth - 1)[:depth] if depth < len(self.words) else np.arange(len(self.words))
            order = top[np.argsort(-scores[top], kind="stable")]
            for i in order[seen:]:
                word = self.words[int(i)]
                if exclude is not None and exclude(word):
                    continue
                if skipped < start:
                    skipped += 1
                    continue
                out.append(word)
                if len(out) == k:
                    return out
            if depth >= len(self.words):
                return out
            seen, depth = len(order), min(len(self.words), depth * 4)

    def scores(self, vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of every word to ``vector``."""
        return self.matrix @ vector


_VOCABULARIES: dict[tuple, Vocabulary] = {}


def _usable(source: Iterable[str], vectors: WordVectors, size: int, filter_lemmas: bool,
            nouns: bool = False) -> list[str]:
    known_lemmas: set[str] | frozenset[str] = set()
    if filter_lemmas and wordnet_available():
        all_lemmas, _ = _wordnet()
        known_lemmas = all_lemmas["noun"] if nouns else set().union(*all_lemmas.values())
    picked: list[str] = []
    seen: set[str] = set()
    for word in source:
        word = str(word)
        if (len(word) < 3 or not word.isalpha() or not word.islower() or word in STOPWORDS or word in seen
                or (known_lemmas and word not in known_lemmas)):
            continue
        if not vectors.vector(word).any():
            continue
        seen.add(word)
        picked.append(word)
        if len(picked) >= size:
            break
    return picked


@functools.lru_cache(maxsize=262144)
def says(text: str, word: str, strict: bool = False) -> bool:
    """Cached :func:`~cluegym.envs.core.matching.says_word` for short vocabulary texts."""
    return says_word(text, word, strict=strict)


@functools.lru_cache(maxsize=65536)
def word_forms(word: str) -> frozenset[str]:
    """Stems and lemmas of a word, to exclude its derivatives from a vocabulary quickly."""
    return frozenset({snowball_stem(word), *lemmas(word)})


class SaidFilter:
    """Fast "is this vocabulary word (a derivative of) something already said?" test.

    Compares Snowball stems and WordNet lemmas, like the env's judge, without calling the
    judge on every (word, token) pair.
    """

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.forms: set[str] = set()
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        for tok in tokens(text):
            for part in tok.replace("'", "-").split("-"):
                if part and part not in STOPWORDS:
                    self.forms |= word_forms(part)

    def __call__(self, word: str) -> bool:
        return bool(word_forms(word) & self.forms)
