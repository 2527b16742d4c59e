"""Shared pieces of the free-text baselines (Undercover, Adversarial Taboo).

Their utterance vectors come from :class:`~cluegym.agents.encoders.sentences.SpeechEncoder`
(word vectors, or MiniLM sentences with the ``minilm`` embedding); this module holds what
they say and how they avoid repeating themselves:

- :class:`Vocabulary`: the words a baseline may say or guess: the embedding's vocabulary,
  in its frequency order, restricted to lowercase alphabetic WordNet lemmas that are not
  stopwords, with their unit vectors, Snowball stems and
  nearest-neighbour search.
- :class:`SaidFilter`, :func:`says`, :func:`word_forms`: fast tests of "this word (or a
  derivative) was already said", agreeing with the env's word judge.

Example:
    >>> from cluegym.agents.encoders import SpeechEncoder, WordEncoder
    >>> words = WordEncoder("glove")
    >>> vocab = Vocabulary.for_embedding("glove", words)
    >>> vocab.neighbours(SpeechEncoder(words).word("bee"), k=5)
    ['bee', 'rat', 'hen', 'wee', 'eel']
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Sequence

import numpy as np

from cluegym.agents.encoders.cache import LRUCache
from cluegym.agents.encoders.vocabulary import STOPWORDS, top_order, wordnet_lemmas
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.matching import lemmas, says_word, snowball_stem
from cluegym.envs.core.text import tokens


class Vocabulary:
    """Words a baseline may say or guess, with unit vectors and stems (see module docstring).

    Use :meth:`for_embedding` to share one instance per embedding and size in a process.
    """

    #: Rankings kept (see :meth:`_ranked`), least recently used dropped: a few hundred indices each.
    MAX_RANKINGS = 4096
    #: Filtered rankings kept (see :meth:`unsaid_neighbours`): ~1,000 indices each.
    MAX_UNSAID = 256
    #: Similarity vectors kept (see :meth:`_ranked`): one float per vocabulary word each (80 kB
    #: for 20,000 words).
    MAX_SCORES = 32

    def __init__(self, words: Sequence[str], matrix: np.ndarray) -> None:
        self.words = list(words)
        self.matrix = matrix
        self.index = {w: i for i, w in enumerate(self.words)}
        self.stems = [snowball_stem(w) for w in self.words]
        # (the query vector's bytes, dtype, depth) -> the ranked indices.
        self._rankings = LRUCache(self.MAX_RANKINGS)
        # (vector bytes, dtype, depth, word) -> what unsaid_neighbours read of the ranking.
        self._unsaid = LRUCache(self.MAX_UNSAID)
        # (vector bytes, dtype) -> the vocabulary's similarities to it (see _ranked).
        self._scores = LRUCache(self.MAX_SCORES)

    @classmethod
    def for_embedding(cls, embedding: str, vectors: WordEncoder, size: int = 20000,
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
        if k < 1 or not _any(vector):
            return []
        out: list[str] = []
        skipped = 0
        seen = 0
        depth = min(len(self.words), 4 * (start + k) + 64)
        while True:
            # Rank only the best `depth` words; look deeper only if exclusions ate them all.
            order = self._ranked(vector, depth)
            for i in order[seen:].tolist():
                word = self.words[i]
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

    def _ranked(self, vector: np.ndarray, depth: int) -> np.ndarray:
        """The ``depth`` words closest to ``vector``, best first (read-only; kept per vector
        and depth: a baseline asks for the same word's neighbours at every turn of a game,
        and the product with the whole vocabulary and its partition were most of a turn)."""
        vector_key = (vector.tobytes(), vector.dtype.str)
        key = (*vector_key, depth)
        order = self._rankings.get(key)
        if order is None:
            # The similarities of the whole vocabulary are kept per vector too: a player's own
            # word is ranked to two depths (its descriptions' and its inference's candidates).
            scores = self._scores.get(vector_key)
            if scores is None:
                scores = self.matrix @ vector
                scores.flags.writeable = False
                self._scores.put(vector_key, scores)
            order = top_order(scores, depth)
            ranked = scores[order]
            # top_order's ranking is the one below when no two of its scores are equal and
            # none outside ties with its last: then both are the one order by score. Else
            # (ties) the partition below decides, as it always did.
            if len(order) != depth or not np.all(ranked[:-1] > ranked[1:]):
                top = (np.argpartition(-scores, depth - 1)[:depth] if depth < len(self.words)
                       else np.arange(len(self.words)))
                order = top[np.argsort(-scores[top], kind="stable")]
            order.flags.writeable = False
            self._rankings.put(key, order)
        return order

    def unsaid_neighbours(self, vector: np.ndarray, k: int, word: str, said: "SaidFilter") -> list[int]:
        """Vocabulary indices of ``neighbours(vector, k, exclude=lambda w: said(w) or says(w,
        word))``: the same words in the same order, found faster when ``vector`` and ``word``
        come back (a player's own word, asked at every turn of a game).

        The ranking's words that do not say ``word`` are kept, as far as a call has read
        them, with an index from each of their forms to their places: a later call finds the
        kept words that share a form with what was said from the said forms (a few dozen)
        instead of testing every kept word's forms (~300), and reads on only past them."""
        if k < 1 or not _any(vector):
            return []
        depth = min(len(self.words), 4 * k + 64)
        key = (vector.tobytes(), vector.dtype.str, depth, word)
        kept = self._unsaid.get(key)
        if kept is None:
            kept = _UnsaidWalk(self._ranked(vector, depth).tolist())
            self._unsaid.put(key, kept)
        order, read, candidates, places = kept.order, kept.read, kept.candidates, kept.places
        said_forms = said.forms
        # The kept candidates sharing a form with what was said (SaidFilter's test).
        hit: set[int] = set()
        for form in said_forms:
            at = places.get(form)
            if at is not None:
                hit.update(at)
        found: list[int] = []
        start = 0
        for place in sorted(hit):  # the kept candidates between the hits, in order
            found += candidates[start:place]
            start = place + 1
            if len(found) >= k:
                return found[:k]
        found += candidates[start:start + k - len(found)]
        if len(found) == k:
            return found
        words = self.words
        while read < len(order):  # read on: the kept candidates were not enough
            i = order[read]
            read += 1
            if says(words[i], word):
                continue
            forms = word_forms(words[i])
            place = len(candidates)
            candidates.append(i)
            for form in forms:
                places.setdefault(form, []).append(place)
            if forms.isdisjoint(said_forms):
                found.append(i)
                if len(found) == k:
                    break
        kept.read = read
        if len(found) == k or depth >= len(words):
            return found
        # Exclusions ate the whole depth: the general search goes deeper.
        index = self.index
        return [index[w] for w in self.neighbours(vector, k, exclude=lambda w: said(w) or says(w, word))]

    def scores(self, vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of every word to ``vector``."""
        return self.matrix @ vector


_VOCABULARIES: dict[tuple, Vocabulary] = {}


class _UnsaidWalk:
    """What :meth:`Vocabulary.unsaid_neighbours` has read of one ranking (kept per query and
    word, read on in place by later calls).

    Attributes:
        order: the ranking's vocabulary indices, best first.
        read: how many of them have been read.
        candidates: the indices read so far that do not say the word, in ranking order.
        places: each form of those words -> their places in ``candidates``.
    """

    __slots__ = ("order", "read", "candidates", "places")

    def __init__(self, order: list[int]) -> None:
        self.order = order
        self.read = 0
        self.candidates: list[int] = []
        self.places: dict[str, list[int]] = {}


def _any(vector: Any) -> bool:
    """``np.any(vector)``, without its dispatch for an array (asked at every neighbour search)."""
    return bool(vector.any()) if type(vector) is np.ndarray else bool(np.any(vector))


def _usable(source: Iterable[str], vectors: WordEncoder, size: int, filter_lemmas: bool,
            nouns: bool = False) -> list[str]:
    known_lemmas: frozenset[str] | None = None
    if filter_lemmas:
        # WordNet is required (wordnet_lemmas raises WordNetMissingError without it).
        known_lemmas = wordnet_lemmas("noun")
        if not nouns:
            known_lemmas = known_lemmas.union(wordnet_lemmas("verb"), wordnet_lemmas("adj"))
    picked: list[str] = []
    seen: set[str] = set()
    for word in source:
        word = str(word)
        if (len(word) < 3 or not word.isalpha() or not word.islower() or word in STOPWORDS or word in seen
                or (known_lemmas is not None and word not in known_lemmas)):
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


@functools.lru_cache(maxsize=8192)
def text_forms(text: str) -> frozenset[str]:
    """The stems and lemmas of a text's words (stopwords left out), as :class:`SaidFilter`
    compares them. Kept per text: the baselines build a filter of the game's texts at every
    turn, and read the same descriptions and utterances again each time. (8,192 texts: an
    utterance and its forms are ~1.4 kB, and the reuse is within a game's few dozen texts.)"""
    forms: set[str] = set()
    for tok in tokens(text):
        for part in tok.replace("'", "-").split("-"):
            if part and part not in STOPWORDS:
                forms |= word_forms(part)
    return frozenset(forms)


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
        self.forms |= text_forms(text)

    def __call__(self, word: str) -> bool:
        return bool(word_forms(word) & self.forms)
