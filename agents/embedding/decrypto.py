"""Decrypto's word-embedding baselines (section 4.1 of the Decrypto paper).

- :class:`EmbeddingEncoder` (Alice): for each code digit, samples a hint uniformly from the
  top-K hint-vocabulary words most similar to that digit's keyword, among words more similar
  to it than to the other keywords; never reuses a hint. ``k`` trades safety from Eve (large K,
  subtler hints) for risk of miscommunication with a decoder that uses other embeddings.
- :class:`EmbeddingDecoder` (Bob): cosine similarity of each hint to each keyword; the guess is
  the optimal assignment (Hungarian algorithm, scipy).
- :class:`EmbeddingInterceptor` (Eve): the same, against the mean embedding of each keyword's
  revealed hint history (keywords with no history score 0); random on turn 1.

Example:
    >>> cluegym run decrypto --agent alice=glove:k=16 --agent bob=glove --agent eve=word2vec
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from cluegym.agents.embedding.common import EmbeddingAgent
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.data import word_list_option
from cluegym.envs.core.matching import mentions_word
from cluegym.envs.decrypto.rules import all_codes


class EmbeddingEncoder(EmbeddingAgent):
    """Alice: top-K hint sampling (see module docstring).

    Args:
        k: how many of the most similar vocabulary words to sample from (the paper's K).
        vocabulary: hint vocabulary: None for the shipped ~5,000 nouns, or a word-list path.
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"`` (default: the registered name's).
    """

    games = ("decrypto",)

    def __init__(self, game: str, seat: str, action_space: Any, *, k: int = 16,
                 vocabulary: str | None = None, embedding: str | None = None,
                 seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, embedding=embedding, seed=seed)
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.k = int(k)
        self.vocabulary, self.vocab_matrix = _hint_vocabulary(self.embedding, vocabulary, self.vectors)
        self.used: set[str] = set()
        self._ranked: dict[tuple[str, ...], list[list[int]]] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.used = set()

    def _candidates(self, keywords: tuple[str, ...]) -> list[list[int]]:
        """Per keyword, vocabulary indices ranked by similarity, filtered to words closer to it
        than to any other keyword and not mentioning any keyword."""
        if keywords not in self._ranked:
            sims = self.vocab_matrix @ self.vectors.matrix(keywords).T  # (vocab, n_keywords)
            ranked = []
            for i in range(len(keywords)):
                others = (np.delete(sims, i, axis=1).max(axis=1) if len(keywords) > 1
                          else np.full(len(sims), -np.inf))
                closer = sims[:, i] > others
                order = np.argsort(-sims[:, i], kind="stable")
                ranked.append([int(j) for j in order if closer[j]])
            self._ranked = {keywords: ranked}  # keywords are fixed for a game: keep only this one
        return self._ranked[keywords]

    def _hint_for(self, keyword_index: int, keywords: tuple[str, ...]) -> str:
        ranked = self._candidates(keywords)[keyword_index]
        pool: list[str] = []
        for j in ranked:
            word = self.vocabulary[j]
            if word in self.used or any(mentions_word(word, kw) for kw in keywords):
                continue
            pool.append(word)
            if len(pool) == self.k:
                break
        if not pool:  # every close word is used up: any unused valid word
            pool = [w for w in self.vocabulary if w not in self.used
                    and not any(mentions_word(w, kw) for kw in keywords)][: self.k]
        hint = pool[int(self.rng.integers(len(pool)))]
        self.used.add(hint)
        return hint

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> tuple[str, ...]:
        keywords = tuple(observation["keywords"])
        return tuple(self._hint_for(int(d) - 1, keywords) for d in observation["code"])


_VOCABULARIES: dict[tuple[str, str | None], tuple[list[str], np.ndarray]] = {}


def _hint_vocabulary(embedding: str, path: str | None, vectors: WordEncoder) -> tuple[list[str], np.ndarray]:
    """The hint words the embedding knows and their unit vectors (cached per process)."""
    key = (embedding, path)
    if key not in _VOCABULARIES:
        words = word_list_option(Path(path) if path else None, "cluegym.envs.decrypto", "hint_vocab.txt")
        known, matrix = vectors.known_words(words)
        if not known:
            raise ValueError(f"no word of the hint vocabulary is known to the {embedding} embedding")
        _VOCABULARIES[key] = (known, matrix)
    return _VOCABULARIES[key]


class _Guesser(EmbeddingAgent):
    """Shared guessing: similarity matrix -> Hungarian assignment -> legal code."""

    games = ("decrypto",)

    def _targets(self, observation: dict[str, Any]) -> np.ndarray:
        """One unit vector (or zeros) per keyword digit."""
        raise NotImplementedError

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        hints = [h for h in observation["hints"] if h]
        mask = np.asarray(observation["action_mask"], dtype=bool)
        targets = self._targets(observation)
        n_keywords, code_length = targets.shape[0], len(hints)
        codes = all_codes(n_keywords, code_length)
        sims = self.vectors.matrix(hints) @ targets.T  # (hints, keywords)
        if not np.any(sims):
            legal = np.flatnonzero(mask)
            return int(legal[int(self.rng.integers(len(legal)))])
        # Tiny noise breaks ties between equally (un)informative keywords at random.
        sims = sims + self.rng.normal(0.0, 1e-6, size=sims.shape)
        rows, cols = linear_sum_assignment(-sims)
        guess = tuple(int(c) + 1 for c in cols[np.argsort(rows)])
        index = codes.index(guess)
        if not mask[index]:  # the best assignment was already revealed: best legal code instead
            scores = [sum(sims[j, d - 1] for j, d in enumerate(c)) if mask[i] else -np.inf for i, c in enumerate(codes)]
            index = int(np.argmax(scores))
        return index


class EmbeddingDecoder(_Guesser):
    """Bob: assigns the hints to the keywords (Hungarian on cosine similarity)."""

    def _targets(self, observation: dict[str, Any]) -> np.ndarray:
        return self.vectors.matrix(tuple(observation["keywords"]))


class EmbeddingInterceptor(_Guesser):
    """Eve: assigns the hints to each keyword's revealed hint history (mean embedding)."""

    def _targets(self, observation: dict[str, Any]) -> np.ndarray:
        rows = []
        for history in observation["hint_history"]:
            vecs = self.vectors.matrix([h for h in history if h])
            mean = vecs.mean(axis=0) if len(vecs) else np.zeros(self.vectors.dim, dtype=np.float32)
            norm = float(np.linalg.norm(mean))
            rows.append(mean / norm if norm > 0 else mean)
        return np.stack(rows)


_SEATS = {"alice": EmbeddingEncoder, "bob": EmbeddingDecoder, "eve": EmbeddingInterceptor}


def agent_class(seat: str) -> type[EmbeddingAgent]:
    """The baseline class for a Decrypto seat."""
    if seat not in _SEATS:
        raise ValueError(f"decrypto has no seat {seat!r}; seats: {', '.join(_SEATS)}")
    return _SEATS[seat]
