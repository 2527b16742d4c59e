"""Decrypto's word-embedding baselines (section 4.1 of the Decrypto paper).

- :class:`EmbeddingEncoder` (Alice): for each code digit, samples a hint uniformly from the
  top-K hint-vocabulary words most similar to that digit's keyword, among words more similar
  to it than to the other keywords; never reuses a hint. ``k`` trades safety from Eve (large K,
  subtler hints) for risk of miscommunication with a decoder that uses other embeddings.
- :class:`EmbeddingDecoder` (Bob): cosine similarity of each hint to each keyword; by default
  the paper's per-hint argmax ``argmax_c s(h, k_c)`` (``assign="greedy"``): each hint, in
  hint order, takes its most similar keyword, and a keyword already taken by an earlier hint
  goes to the hint's next best (a code's digits are distinct; the paper's released baseline
  resolves repeats the same way). ``assign="hungarian"`` takes the assignment maximising the
  total similarity instead (scipy's ``linear_sum_assignment``).
- :class:`EmbeddingInterceptor` (Eve): against the mean embedding of each keyword's revealed
  hint history (keywords with no history score 0; random on turn 1), the globally optimal
  assignment (``assign="hungarian"``, the paper's "combinatorially ... globally optimal
  guess"); ``assign="greedy"`` is available too.

A guess whose code was already revealed (codes never recur, so the env refuses it) is replaced
by the legal code of highest total similarity.

Every baseline takes ``vectors=PATH`` to play with any word vectors instead of the packaged
model (word2vec binary or text, GloVe text, gensim ``KeyedVectors``; see
:func:`~cluegym.agents.encoders.loaders.load_vectors`), e.g. the paper's Common Crawl GloVe:
``glove:vectors=glove.840B.300d.txt``; the hint vocabulary is then the shipped nouns that the
vectors know.

From the command line::

    cluegym run decrypto --agent alice=glove:k=16 --agent bob=glove --agent eve=word2vec
    cluegym run decrypto --agent 'bob=word2vec:vectors=GoogleNews-vectors-negative300.bin'

Example:
    >>> from cluegym.agents import run_match
    >>> summary = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove", "eve": "word2vec"},
    ...                     games=4, seed=0, progress=False)
    >>> summary["ok"], summary["metrics"]["avg_turns"], summary["metrics"]["encoder_win_rate"]
    (True, 4.25, 0.0)
    >>> # any word vectors: here a small word2vec binary file cut from the packaged GloVe
    >>> from gensim.models import KeyedVectors
    >>> from cluegym.agents.encoders.loaders import load_embedding
    >>> glove = load_embedding("glove")
    >>> vectors = KeyedVectors(glove.vector_size)
    >>> vectors.add_vectors(glove.index_to_key[:20000], glove.vectors[:20000])
    >>> vectors.save_word2vec_format("vectors.bin", binary=True)
    >>> summary = run_match("decrypto", {"bob": "word2vec:vectors=vectors.bin"}, games=4, seed=0, progress=False)
    >>> summary["seats"], summary["metrics"]["miscommunication_rate"]
    ({'alice': 'glove:k=16', 'bob': 'word2vec:vectors=vectors.bin', 'eve': 'word2vec'}, 0.266...)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Literal

import numpy as np
from scipy.optimize import linear_sum_assignment

from cluegym.agents.embedding.common import EmbeddingAgent
from cluegym.agents.encoders.vocabulary import top_order
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.data import word_list_option
from cluegym.envs.core.matching import hint_keyword
from cluegym.envs.decrypto.rules import all_codes

#: How a guesser turns its hint x keyword similarities into a code.
ASSIGNMENTS: tuple[str, ...] = ("greedy", "hungarian")


class _DecryptoBaseline(EmbeddingAgent):
    """A Decrypto baseline over a packaged embedding or a vectors file (``vectors=PATH``)."""

    games = ("decrypto",)

    def __init__(self, game: str, seat: str, action_space: Any, *, vectors: str | None = None,
                 vectors_limit: int | None = None, embedding: str | None = None, seed: int | None = None) -> None:
        if vectors_limit is not None and vectors is None:
            raise ValueError("vectors_limit needs vectors=PATH")
        self.vectors_file = vectors
        self.vectors_limit = vectors_limit
        super().__init__(game, seat, action_space, embedding=embedding, seed=seed)

    def word_encoder(self, embedding: str) -> WordEncoder:
        """The packaged embedding, or the ``vectors`` file (loaded once per process)."""
        return WordEncoder(embedding, vectors=self.vectors_file, limit=self.vectors_limit).load()


class EmbeddingEncoder(_DecryptoBaseline):
    """Alice: top-K hint sampling (see module docstring).

    Args:
        k: how many of the most similar vocabulary words to sample from (the paper's K).
        vocabulary: hint vocabulary: None for the shipped ~5,000 nouns, or a word-list path.
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"`` (default: the registered name's).
        vectors: a word-vectors file to use instead of the packaged model.
        vectors_limit: keep the vectors file's first N words.
        hint_rule: the env's ``hint_rule`` (hints that break it are never candidates).
    """

    #: Words of a keyword's ranking found without sorting the whole vocabulary (see
    #: :meth:`_ranking`); a walk past them sorts the rest.
    PREFIX = 256

    def __init__(self, game: str, seat: str, action_space: Any, *, k: int = 16,
                 vocabulary: str | None = None, vectors: str | None = None, vectors_limit: int | None = None,
                 hint_rule: Literal["paper", "substring"] = "paper",
                 embedding: str | None = None, seed: int | None = None) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        hint_keyword("probe", (), hint_rule)  # an unknown rule fails here, with the valid ones
        self.hint_rule = hint_rule
        super().__init__(game, seat, action_space, vectors=vectors, vectors_limit=vectors_limit,
                         embedding=embedding, seed=seed)
        self.k = int(k)
        self.vocabulary, self.vocab_matrix = _hint_vocabulary(self.vectors.source, vocabulary, self.vectors)
        self.used: set[str] = set()
        # The current game's keywords, their similarities to the vocabulary (keywords x
        # words), and per keyword: the words closer to it than to the others, the prefix's
        # length, the ranked prefix, the ranked rest (see _ranking).
        self._ranked_keywords: tuple[str, ...] | None = None
        self._sims = np.zeros((0, 0), dtype=np.float32)
        self._ranked: dict[int, tuple[np.ndarray, int, list[int], list[int] | None]] = {}
        self._valid: dict[int, bool] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.used = set()

    def _ranking(self, keywords: tuple[str, ...], index: int) -> Iterator[int]:
        """Keyword ``index``'s vocabulary indices ranked by similarity to it (ties in
        vocabulary order), filtered to words closer to it than to any other keyword.

        A hint is drawn from the first ``k`` valid unused words, which lie within the first
        few dozen of the ~5,000: the ranking's first :attr:`PREFIX` words are found by a
        partition (:func:`~cluegym.agents.encoders.vocabulary.top_order`) and the rest is
        sorted only for a walk that goes past them (a whole sort per keyword and game was
        ~0.3 ms, the largest part of an Eve-training decision against this Alice). Both
        parts are kept for the game's keywords.
        """
        if self._ranked_keywords != keywords:
            self._new_keywords(keywords)
        sims = self._sims
        column = sims[index]
        kept = self._ranked.get(index)
        if kept is None:
            others = (np.delete(sims, index, axis=0).max(axis=0) if len(keywords) > 1
                      else np.full(len(column), -np.inf))
            closer = column > others
            top = top_order(column, self.PREFIX)
            kept = self._ranked[index] = (closer, len(top), top[closer[top]].tolist(), None)
        closer, prefix_length, prefix, rest = kept
        yield from prefix
        if prefix_length < len(column):
            if rest is None:
                order = np.argsort(-column, kind="stable")[prefix_length:]
                rest = order[closer[order]].tolist()
                self._ranked[index] = (closer, prefix_length, prefix, rest)
            yield from rest

    def _new_keywords(self, keywords: tuple[str, ...]) -> None:
        """Forget the last game's rankings and verdicts; the new keywords' similarities."""
        sims = self.vocab_matrix @ self.vectors.matrix(keywords).T  # (vocab, n_keywords)
        # One row per keyword (the same values, laid out for reductions across keywords: a
        # max along the short last axis of ~5,000 rows took ~0.2 ms).
        self._ranked_keywords, self._sims, self._ranked = keywords, np.ascontiguousarray(sims.T), {}
        self._valid = {}

    def _hint_for(self, keyword_index: int, keywords: tuple[str, ...]) -> str:
        if self._ranked_keywords != keywords:
            self._new_keywords(keywords)
        # Whether a word passes the hint rule against this game's keywords, by vocabulary
        # index: every hint walks the same start of its keyword's ranking again.
        valid = self._valid
        pool: list[str] = []
        for j in self._ranking(keywords, keyword_index):
            word = self.vocabulary[j]
            if word in self.used:
                continue
            allowed = valid.get(j)
            if allowed is None:
                allowed = valid[j] = hint_keyword(word, keywords, self.hint_rule) is None
            if not allowed:
                continue
            pool.append(word)
            if len(pool) == self.k:
                break
        if not pool:  # every close word is used up: any unused valid word
            pool = [w for w in self.vocabulary if w not in self.used
                    and hint_keyword(w, keywords, self.hint_rule) is None][: self.k]
        hint = pool[int(self.rng.integers(len(pool)))]
        self.used.add(hint)
        return hint

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> tuple[str, ...]:
        keywords = tuple(observation["keywords"])
        return tuple(self._hint_for(int(d) - 1, keywords) for d in observation["code"])


_VOCABULARIES: dict[tuple[str, str | None], tuple[list[str], np.ndarray]] = {}


def _hint_vocabulary(source: str, path: str | None, vectors: WordEncoder) -> tuple[list[str], np.ndarray]:
    """The hint words the vectors know and their unit vectors (cached per process and source)."""
    key = (source, path)
    if key not in _VOCABULARIES:
        words = word_list_option(Path(path) if path else None, "cluegym.envs.decrypto", "hint_vocab.txt")
        known, matrix = vectors.known_words(words)
        if not known:
            raise ValueError(f"no word of the hint vocabulary is known to the vectors {source}")
        _VOCABULARIES[key] = (known, matrix)
    return _VOCABULARIES[key]


def assign_code(sims: np.ndarray, assign: str = "greedy") -> tuple[int, ...]:
    """The code (digits 1..n) a guesser reads from its hint x keyword similarity matrix.

    Args:
        sims: ``(hints, keywords)`` similarities.
        assign: ``"greedy"``: hint by hint, in order, the most similar keyword not taken by an
            earlier hint (the paper's per-hint argmax; with no repeat among the argmaxes it is
            exactly ``argmax_c s(h, k_c)`` per hint). ``"hungarian"``: the assignment of
            maximal total similarity.

    Raises:
        ValueError: an unknown ``assign``.

    Example:
        >>> sims = np.array([[0.9, 0.8, 0.0], [0.95, 0.1, 0.0]])
        >>> assign_code(sims, "greedy"), assign_code(sims, "hungarian")
        ((1, 2), (2, 1))
    """
    if assign == "greedy":
        taken: list[int] = []
        for row in sims:
            order = np.argsort(-row, kind="stable")
            taken.append(int(next(c for c in order if int(c) not in taken)))
        return tuple(c + 1 for c in taken)
    if assign == "hungarian":
        rows, cols = linear_sum_assignment(-sims)
        return tuple(int(c) + 1 for c in cols[np.argsort(rows)])
    raise ValueError(f"unknown assign {assign!r}; choose one of: {', '.join(ASSIGNMENTS)}")


class _Guesser(_DecryptoBaseline):
    """Shared guessing: similarity matrix -> assignment (:func:`assign_code`) -> legal code.

    Args:
        assign: ``"greedy"`` (per-hint argmax) or ``"hungarian"`` (see :func:`assign_code`);
            None for the seat's paper default (Bob greedy, Eve Hungarian).
        vectors: a word-vectors file to use instead of the packaged model.
        vectors_limit: keep the vectors file's first N words.
    """

    #: The paper's protocol for the seat, used when ``assign`` is None.
    default_assign = "greedy"

    def __init__(self, game: str, seat: str, action_space: Any, *,
                 assign: Literal["greedy", "hungarian"] | None = None, vectors: str | None = None,
                 vectors_limit: int | None = None, embedding: str | None = None, seed: int | None = None) -> None:
        assign = self.default_assign if assign is None else assign
        if assign not in ASSIGNMENTS:
            raise ValueError(f"unknown assign {assign!r}; choose one of: {', '.join(ASSIGNMENTS)}")
        self.assign = assign
        super().__init__(game, seat, action_space, vectors=vectors, vectors_limit=vectors_limit,
                         embedding=embedding, seed=seed)

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
        index = codes.index(assign_code(sims, self.assign))
        if not mask[index]:  # the best assignment was already revealed: best legal code instead
            scores = [sum(sims[j, d - 1] for j, d in enumerate(c)) if mask[i] else -np.inf for i, c in enumerate(codes)]
            index = int(np.argmax(scores))
        return index


class EmbeddingDecoder(_Guesser):
    """Bob: assigns the hints to the keywords (per-hint argmax by default, section 4.1)."""

    default_assign = "greedy"

    def _targets(self, observation: dict[str, Any]) -> np.ndarray:
        return self.vectors.matrix(tuple(observation["keywords"]))


class EmbeddingInterceptor(_Guesser):
    """Eve: assigns the hints to each keyword's revealed hint history (mean embedding),
    globally optimal (Hungarian) by default, as in section 4.1."""

    default_assign = "hungarian"

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
