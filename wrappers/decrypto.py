"""Decrypto for learners: structured features, hint candidates, the shaping potential.

Features (:class:`DecryptoFeatures`), all cosine similarities over a word embedding (GloVe
by default), so a policy sees the same evidence as the embedding baselines:

- Bob: each current hint vs each keyword (``code_length x num_keywords``), and with
  ``history=True`` also vs each keyword's revealed hint history (as Eve);
- Eve: each current hint vs each keyword's hint history (mean and best single hint), as the
  baseline interceptor, which has no keywords;
- Alice: for each candidate hint triple and each digit: similarity to its keyword, the best
  similarity to another keyword (Bob's confusion), and the same against the hint histories
  (what Eve can match);
- Bob and Eve also get, per code, the summed similarity of the hint-keyword pairs the code
  asserts, standardized over the legal codes (one score per code and similarity matrix);
- every seat: hints revealed per keyword, the turn, both token counts, and the legal-choice
  mask, scaled to ``[-1, 1]``.

The per-code scores make the baselines' decision (the code with the best summed similarity,
what their Hungarian assignment finds) one linear read-out away; the policy still has to
learn which evidence to trust when (keywords or history, mean or best hint, early or late
turns), and which of it to discount.

Candidates (:class:`HintCandidates`): Alice's ``n`` choices are hint triples; candidate ``i``
gives each digit the ``i``-th closest valid, unused vocabulary word to its keyword (among
words closer to it than to the other keywords), so the index is a subtlety level.

Example:
    >>> task = seat_task("eve", env=decrypto_v0.raw_env())
    >>> env = SelfPlayEnv("decrypto", "eve", task=task)
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np

from cluegym.agents.encoders.cache import LRUCache
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.data import word_list_option
from cluegym.envs.core.matching import word_forms
from cluegym.envs.core.text import to_charset, tokens
from cluegym.envs.decrypto.rules import all_codes, DecryptoConfig, DecryptoRules
from cluegym.wrappers.candidates import top_order
from cluegym.wrappers.decrypto_scores import code_scores
from cluegym.wrappers.featurizers import Featurizer, LastResult
from cluegym.wrappers.selfplay import SeatTask

__all__ = ["DecryptoFeatures", "HintCandidates", "potential", "seat_task"]


class _Vectors:
    """The unit vectors of one embedding's texts in a plain dict, shared by its featurizers.

    The rows are :meth:`WordEncoder.vector`'s arrays themselves, so a matrix is bit for bit
    the encoder's :meth:`~WordEncoder.matrix`; a lookup here skips the encoder's shared LRU
    (a key tuple and a reordering per text), and a decision looks up ~10-30 texts.
    """

    #: Texts kept per embedding (all of them are dropped when full: hints from free-text
    #: agents are open-ended, the game's own words are a few thousand).
    MAX_TEXTS = 1 << 16

    _shared: dict[str, dict[str, np.ndarray]] = {}

    def __init__(self, words: WordEncoder) -> None:
        self.words = words
        self._vectors = self._shared.setdefault(words.source, {})

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """Stacked unit vectors, one row per text (as :meth:`WordEncoder.matrix`)."""
        if len(texts) == 0:
            return np.zeros((0, self.words.dim), dtype=np.float32)
        vectors = self._vectors
        rows = []
        for text in texts:
            row = vectors.get(text)
            if row is None:
                if len(vectors) >= self.MAX_TEXTS:
                    vectors.clear()
                row = vectors[text] = self.words.vector(text)
            rows.append(row)
        return np.array(rows)


def _unit_mean(vecs: np.ndarray, dim: int) -> np.ndarray:
    """The normalized mean of the rows (zeros for none): ``vecs.mean(axis=0)`` over
    ``np.linalg.norm``, by the same numpy operations without their Python-level dispatch."""
    if not len(vecs):
        return np.zeros(dim, dtype=np.float32)
    mean = np.add.reduce(vecs, axis=0)  # numpy's mean: the sum, divided by the count as intp
    np.true_divide(mean, np.intp(len(vecs)), out=mean, casting="unsafe")
    norm = float(np.sqrt(mean.dot(mean)))  # numpy's 2-norm of a vector
    return mean / norm if norm > 0 else mean


def _keyword_targets(vectors: _Vectors, history: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """One keyword's revealed hints: their unit vectors and their normalized mean (read-only,
    kept per embedding and history: a keyword's history is read by every seat of a turn and
    again at every turn it does not grow)."""
    key = (vectors.words.source, history)
    targets = _TARGETS.get(key)
    if targets is None:
        vecs = vectors.matrix([h for h in history if h])
        mean = _unit_mean(vecs, vectors.words.dim)
        vecs.flags.writeable = mean.flags.writeable = False
        if len(_TARGETS) >= _MAX_TARGETS:
            _TARGETS.pop(next(iter(_TARGETS)))  # the oldest
        targets = _TARGETS[key] = (vecs, mean)
    return targets


#: Entries a featurizer keeps per table (its context features, Alice's indices), least
#: recently used dropped: a game's few dozen keys, of any number of games.
_MAX_KEPT = 4096

#: :func:`_keyword_targets` by (embedding, history), oldest first.
_TARGETS: dict[tuple[str, tuple[str, ...]], tuple[np.ndarray, np.ndarray]] = {}
_MAX_TARGETS = 4096


def _history_targets(vectors: _Vectors, hint_history: Sequence[Sequence[str]]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per keyword: the unit vectors of its revealed hints, and their normalized mean.

    The last result is kept (keyed by the embedding and the history): within a turn every
    seat's featurizer reads the same history (Alice's candidates, then Bob's and Eve's codes).
    The arrays are read-only: they are shared.
    """
    key = (vectors.words.source, tuple(map(tuple, hint_history)))
    kept = _LAST_TARGETS.get(key)
    if kept is not None:
        return kept
    targets = [_keyword_targets(vectors, history) for history in key[1]]
    per_keyword = [vecs for vecs, _ in targets]
    stacked = np.array([mean for _, mean in targets])  # np.stack's rows, at a fifth of its cost
    stacked.flags.writeable = False
    return _LAST_TARGETS.keep(key, (per_keyword, stacked))


#: The last :func:`_history_targets` result, with its key.
_LAST_TARGETS: LastResult[tuple[list[np.ndarray], np.ndarray]] = LastResult()


def _history_sims(vectors: _Vectors, hint_vecs: np.ndarray, hint_history: Sequence[Sequence[str]],
                  out: np.ndarray) -> None:
    """(hints x keywords) similarity to each history's mean, and to its best single hint
    (0 for a keyword without hints), into ``out[0]`` and ``out[1]``."""
    per_keyword, means = _history_targets(vectors, hint_history)
    out[0] = hint_vecs @ means.T
    out[1] = 0.0
    for k, vecs in enumerate(per_keyword):
        if len(vecs):
            out[1, :, k] = (hint_vecs @ vecs.T).max(axis=1)


class DecryptoFeatures(Featurizer):
    """Similarity features of one Decrypto seat (see the module docstring).

    Args:
        seat: ``"alice"``, ``"bob"`` or ``"eve"``.
        embedding: word embedding for the similarities.
        num_keywords, code_length, max_turns: the game's sizes.
        n_candidates: Alice's number of candidates.
        miscommunication_limit, interception_limit: token limits (to scale the counts).
        history: Bob also sees the hint-history similarities (Eve always does; Bob decodes
            from the keywords alone by default, which is all the evidence he needs).
    """

    def __init__(self, seat: str, *, embedding: str = "glove", num_keywords: int = 4, code_length: int = 3,
                 max_turns: int = 8, n_candidates: int = 8, miscommunication_limit: int = 2,
                 interception_limit: int = 2, history: bool = False) -> None:
        if seat not in ("alice", "bob", "eve"):
            raise ValueError(f"decrypto has no seat {seat!r}")
        self.seat = seat
        self.history = bool(history) or seat == "eve"
        self.words = WordEncoder(embedding)
        self.vectors = _Vectors(self.words)
        self.n_keywords, self.code_length, self.max_turns = num_keywords, code_length, max_turns
        self.n_candidates = n_candidates
        self.limits = np.array([miscommunication_limit, interception_limit], dtype=np.float32)

        self.n_codes = len(all_codes(num_keywords, code_length))
        self.code_digits = np.array(all_codes(num_keywords, code_length), dtype=np.int64) - 1
        # what the context features are divided by: hints revealed per keyword, turn, tokens
        self._context_scale = np.array([max_turns] * num_keywords + [max_turns, miscommunication_limit,
                                                                     interception_limit], dtype=np.float64)
        # The context features by (history, turn, tokens); Alice's keyword vectors (one game's
        # keywords); the digit and row indices of her candidates by (code, candidates).
        self._contexts = LRUCache(_MAX_KEPT)
        self._keyword_vectors: LastResult[np.ndarray] = LastResult()
        self._digit_rows = LRUCache(_MAX_KEPT)
        self._n_matrices = (1 if seat == "bob" else 0) + (2 if self.history else 0)
        # Layout [choices x per_choice | context] (see cluegym.training.policies).
        self.per_choice = code_length * 4 + 1 if seat == "alice" else 2 * self._n_matrices + 1
        self.n_choices = n_candidates if seat == "alice" else self.n_codes
        self.context = num_keywords + 1 + 2
        size = self.n_choices * self.per_choice + self.context
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(size,), dtype=np.float32)

    def _vector(self) -> tuple[np.ndarray, np.ndarray]:
        """A zeroed feature vector and its per-choice block (``n_choices x per_choice``)."""
        vector = np.zeros(self.observation_space.shape, dtype=np.float32)
        return vector, vector[: self.n_choices * self.per_choice].reshape(self.n_choices, self.per_choice)

    def _common(self, observation: dict[str, Any], vector: np.ndarray) -> np.ndarray:
        """Write the context features (hints revealed per keyword, turn, tokens) at the end
        of ``vector``; returns it."""
        history, turn, tokens = observation["hint_history"], observation["turn"], observation["tokens"]
        try:
            # Kept per value: every decision of a turn (and every turn a seat's context does
            # not change) reads the same few numbers, and their arrays cost ~20 us to make.
            key = (history, turn, *tokens)
            context = self._contexts.get(key)
        except TypeError:  # an unhashable history (lists): computed, not kept
            key = context = None
        if context is None:
            values = [sum(map(bool, hints)) for hints in history]
            values.append(float(turn))
            values.extend(tokens)
            # Small integers over small integers: the float64 quotient rounds to the float32
            # one (a quotient rounded twice, to 53 then 24 bits, is the quotient rounded once).
            context = (np.array(values, dtype=np.float64) / self._context_scale).astype(np.float32)
            context.flags.writeable = False  # kept and copied into each vector, never changed
            if key is not None:
                self._contexts.put(key, context)
        vector[self.n_choices * self.per_choice:] = context
        return vector

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        history = observation["hint_history"]
        if len(history) != self.n_keywords:
            raise ValueError(f"observation has {len(history)} keywords; the featurizer was built for {self.n_keywords}")
        if self.seat == "alice":
            return self._alice(observation, candidates or [])
        hints = list(observation["hints"])[: self.code_length]
        hints += [""] * (self.code_length - len(hints))
        hint_vecs = self.vectors.matrix(hints)
        # the similarity matrices (hints x keywords): Bob's keywords, then the history's
        matrices = np.empty((self._n_matrices, self.code_length, self.n_keywords), dtype=hint_vecs.dtype)
        if self.seat == "bob":
            matrices[0] = hint_vecs @ self.vectors.matrix(list(observation["keywords"])).T
        if self.history:
            _history_sims(self.vectors, hint_vecs, history, matrices[-2:])
        legal = np.asarray(observation["action_mask"], dtype=bool)
        vector, per_code = self._vector()
        scores, standardized = self._code_scores(matrices, legal)
        per_code[:, 0:-1:2] = scores.T
        per_code[:, 1:-1:2] = standardized.T
        per_code[:, -1] = legal
        return self._common(observation, vector)

    def code_scores(self, sims: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per code, the mean similarity of the hint-keyword pairs it asserts, raw and
        standardized over the legal codes (divided by 3, so +1 is three standard deviations
        above the mean: differences between codes, not cosine levels, carry the evidence)."""
        scores, standardized = self._code_scores(np.asarray(sims)[np.newaxis], legal)
        return scores[0], standardized[0]

    def _code_scores(self, sims: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`code_scores` of a stack of matrices (``matrices x code_length x keywords``):
        ``(matrices x codes)`` raw and standardized scores, each row bit for bit the one
        matrix's (:func:`~cluegym.wrappers.decrypto_scores.code_scores`: typed loops in the
        build, numpy's calls as Python)."""
        return code_scores(sims, self.code_digits, legal)

    def _indices(self, digits: list[int], count: int) -> tuple[np.ndarray, np.ndarray]:
        """``digits`` repeated ``count`` times and the row numbers beside them (int64, read-
        only): where Alice's features read each candidate word's own keyword. Kept: a game
        has 24 codes and a few candidate counts."""
        key = (tuple(digits), count)
        kept = self._digit_rows.get(key)
        if kept is None:
            tiled = np.array(digits * count, dtype=np.int64)  # np.tile's values, without its dispatch
            rows = np.arange(len(tiled))
            tiled.flags.writeable = rows.flags.writeable = False
            kept = (tiled, rows)
            self._digit_rows.put(key, kept)
        return kept

    def _alice(self, observation: dict[str, Any], candidates: Sequence[Sequence[str]]) -> np.ndarray:
        keywords = list(observation["keywords"])
        code = [int(d) - 1 for d in observation["code"]]
        key = tuple(keywords)
        kw_vecs = self._keyword_vectors.get(key)
        if kw_vecs is None:  # the matrix is only read (by the products below)
            kw_vecs = self._keyword_vectors.keep(key, self.vectors.matrix(keywords))
        _, hist_means = _history_targets(self.vectors, observation["hint_history"])
        vector, feats = self._vector()
        triples = [list(triple) for triple in list(candidates)[: self.n_candidates]]
        length = len(triples[0]) if triples else 0
        if triples and length <= len(code) and all(len(triple) == length for triple in triples):
            # Every candidate at once: one matrix of all their words (a word's similarities
            # are its own row, whatever rows surround it).
            vecs = self.vectors.matrix([word for triple in triples for word in triple])
            digits, rows = self._indices(code[:length], len(triples))
            # candidate x digit x (own, best other) per matrix: a view of the features (the
            # last axis split in two, which a reshape does without a copy)
            shape = (len(triples), length)
            block = feats[:len(triples), :4 * length].reshape(*shape, 4)
            for m, sims in enumerate((vecs @ kw_vecs.T, vecs @ hist_means.T)):
                block[..., 2 * m] = sims[rows, digits].reshape(shape)
                sims[rows, digits] = -np.inf  # the best similarity to another keyword
                block[..., 2 * m + 1] = sims.max(axis=1).reshape(shape)
            feats[:len(triples), -1] = 1.0  # a candidate is present at this index
            return self._common(observation, vector)
        for i, triple in enumerate(triples):  # triples of different lengths: one at a time
            vecs = self.vectors.matrix(list(triple))
            kw_sims, hist_sims = vecs @ kw_vecs.T, vecs @ hist_means.T
            for j, digit in enumerate(code[: len(triple)]):
                others = [k for k in range(len(keywords)) if k != digit]
                feats[i, 4 * j:4 * j + 4] = (kw_sims[j, digit], kw_sims[j, others].max(),
                                             hist_sims[j, digit], hist_sims[j, others].max())
            feats[i, -1] = 1.0  # a candidate is present at this index
        return self._common(observation, vector)


class HintCandidates:
    """Alice's candidate hint triples: candidate ``i`` uses each keyword's ``i``-th closest word.

    Only words that are valid hints (the env's own check, :meth:`DecryptoRules.hint_error`,
    under the game's ``hint_rule``), not yet used in this game (read from the observation's
    hint history) and closer to their keyword than to the other keywords are ranked.
    Deterministic given the observation.

    What does not depend on the game is kept across games, per keyword (a game draws 4 of
    the ~700 keywords): its similarity column over the vocabulary, the start of its ranking,
    and the verdicts of the hint rule on the words ranked so far (:class:`_KeywordFacts`);
    per vocabulary word, the forms the hint rule compares (:class:`_HintForms`), so that the
    rule is checked only against the keywords a word shares a form with (:class:`_KeywordGuard`).

    Args:
        n: number of candidates (subtlety levels).
        embedding: word embedding for the ranking.
        vocabulary: hint vocabulary file (None: the shipped ~5,000 nouns).
        stride: rank step between candidates (2 -> ranks 0, 2, 4, ...; wider spread).
        config: the game's config, whose rules judge the hints (None: the default game,
            ``hint_rule="paper"``).
    """

    #: Keywords whose facts are kept (the shipped list has 681: all of them, ~25 kB each).
    MAX_KEYWORDS = 2048

    def __init__(self, n: int = 8, *, embedding: str = "glove", vocabulary: str | None = None, stride: int = 1,
                 config: DecryptoConfig | None = None) -> None:
        if n < 1 or stride < 1:
            raise ValueError(f"n and stride must be >= 1, got n={n}, stride={stride}")
        self.n, self.stride = int(n), int(stride)
        self.words = WordEncoder(embedding)
        self.vocabulary_path = vocabulary
        self._vocab: tuple[list[str], np.ndarray] | None = None
        self._ranked: dict[tuple[str, ...], list[_KeywordRanking]] = {}
        self._facts: OrderedDict[str, _KeywordFacts] = OrderedDict()
        # the env's own hint check: a candidate is exactly a hint the env would accept
        config = config or DecryptoConfig()
        self.hint_error = DecryptoRules(config).hint_error
        self.hint_rule = config.hint_rule
        self._forms: dict[int, _HintForms] = {}  # vocabulary index -> its word forms

    def _vocabulary(self) -> tuple[list[str], np.ndarray]:
        if self._vocab is None:
            words = word_list_option(Path(self.vocabulary_path) if self.vocabulary_path else None,
                                     "cluegym.envs.decrypto", "hint_vocab.txt")
            known = [w for w in words if self.words.vector(w).any()]
            self._vocab = (known, self.words.matrix(known))
        return self._vocab

    @property
    def limit(self) -> int:
        """Words ranked per keyword at most (room for the hints a game uses up)."""
        return 4 * self.n * self.stride + 64

    def _keyword_facts(self, keyword: str) -> _KeywordFacts:
        """The kept facts of ``keyword``, built on its first game.

        Its similarity column is the vocabulary's product with its own vector alone (not a
        column of the game's keywords' product), so it depends on the keyword only: the
        vocabulary and the embedding are this instance's, and reuse is exact by construction
        (a game of other keywords, or an earlier game, cannot change a candidate)."""
        facts = self._facts.get(keyword)
        if facts is None:
            _, matrix = self._vocabulary()
            facts = _KeywordFacts(keyword, matrix @ self.words.vector(keyword), self.limit, self.hint_rule)
            self._facts[keyword] = facts
            if len(self._facts) > self.MAX_KEYWORDS:
                self._facts.popitem(last=False)
        else:
            self._facts.move_to_end(keyword)
        return facts

    def _rankings(self, keywords: tuple[str, ...]) -> list[_KeywordRanking]:
        if keywords not in self._ranked:  # keywords are fixed for a game: keep only this one
            vocab, _ = self._vocabulary()
            # A game's keywords are 4 of ~700: their columns are kept across games (the
            # vocabulary's product with the game's keywords was ~5% of a multi-seat game).
            facts = [self._keyword_facts(keyword) for keyword in keywords]
            self._ranked = {keywords: [_KeywordRanking(vocab, k, facts, self.limit, self.hint_error,
                                                       self._word_forms)
                                       for k in range(len(keywords))]}
        return self._ranked[keywords]

    def _word_forms(self, j: int) -> _HintForms:
        """The forms of vocabulary word ``j`` (kept: the vocabulary is fixed)."""
        forms = self._forms.get(j)
        if forms is None:
            forms = self._forms[j] = _HintForms.of(self._vocabulary()[0][j])
        return forms

    def ranked(self, keywords: tuple[str, ...]) -> list[list[str]]:
        """Per keyword, valid vocabulary words closest first (cached for the current keywords)."""
        return [ranking.extend(self.limit) for ranking in self._rankings(keywords)]

    def __call__(self, observation: dict[str, Any], info: dict[str, Any]) -> list[tuple[str, ...]]:
        keywords = tuple(observation["keywords"])
        used = {h for history in observation["hint_history"] for h in history if h}
        rankings = self._rankings(keywords)
        code = [int(d) - 1 for d in observation["code"]]
        # Candidates read fresh words up to rank (n - 1) * stride: rank only that far (the
        # hint checks of the ranking are the cost), or to the limit when used words eat it.
        needed = (self.n - 1) * self.stride + 1
        fresh = {d: rankings[d].fresh(used, needed) for d in set(code)}
        columns = [fresh[d] for d in code]
        # Ranks 0, stride, 2 * stride, ... while every digit's column has that rank.
        depth = min(map(len, columns)) if columns else self.n * self.stride
        candidates = []
        for rank in range(0, min(self.n * self.stride, depth), self.stride):
            triple = tuple([column[rank] for column in columns])
            if len(set(triple)) == len(triple):
                candidates.append(triple)
        return candidates


class _KeywordFacts:
    """What a keyword's ranking needs that no other keyword changes, kept across games.

    Attributes:
        keyword: the keyword.
        sims: its similarity to every vocabulary word (the vocabulary's product with its vector).
        allowed: vocabulary index -> whether the hint rule accepts the word next to this
            keyword alone (a hint is valid for a game's keywords iff it is valid next to this
            one and next to the others: the rule's form checks do not depend on the keywords,
            its keyword check takes one keyword at a time,
            :func:`~cluegym.envs.core.matching.hint_keyword`).
        guard: what a word must share with this keyword to possibly break the rule with it
            (:class:`_KeywordGuard`), for the checks of other keywords' words against it.
    """

    __slots__ = ("keyword", "sims", "allowed", "guard", "_order")

    def __init__(self, keyword: str, column: np.ndarray, prefix: int, rule: str) -> None:
        self.keyword = keyword
        self.sims = column
        self.allowed: dict[int, bool] = {}
        self.guard = _KeywordGuard.of(keyword, rule)
        # The start of the ranking (closest first): a game ranks ~limit words of ~5,000, so
        # the whole argsort is made only for a game that reads past this prefix.
        self._order = top_order(self.sims, max(1, 4 * prefix))

    def order(self, position: int) -> np.ndarray:
        """The ranking (``np.argsort(-sims, kind="stable")``), at least up to ``position``."""
        if position >= len(self._order) and len(self._order) < len(self.sims):
            self._order = np.argsort(-self.sims, kind="stable")
        return self._order


class _KeywordRanking:
    """One keyword's valid vocabulary words, closest first, ranked only as far as asked.

    Ranking a word costs a hint-rule check against every keyword, so words are ranked on
    demand; the words ranked are always a prefix of the full ranking (of ``limit`` words).
    """

    def __init__(self, vocab: list[str], k: int, facts: Sequence[_KeywordFacts], limit: int,
                 hint_error: Callable[[str, Sequence[str]], str | None],
                 word_forms: Callable[[int], _HintForms]) -> None:
        self.vocab, self.limit, self.hint_error, self.word_forms = vocab, limit, hint_error, word_forms
        self.facts = facts[k]
        self.other_keywords = tuple(f.keyword for i, f in enumerate(facts) if i != k)
        self.other_guards = tuple(f.guard for i, f in enumerate(facts) if i != k)
        # The other keywords' similarity columns, as their facts keep them.
        self.rival_sims = tuple(f.sims for i, f in enumerate(facts) if i != k)
        self.position = 0
        self.words: list[str] = []

    @property
    def complete(self) -> bool:
        return len(self.words) >= self.limit or self.position >= len(self.vocab)

    def _allowed(self, j: int) -> bool:
        """Whether vocabulary word ``j`` is a valid hint for every keyword of the game: its
        verdict next to this ranking's keyword is kept across games (a keyword's close words
        come back in every game that draws it), the other keywords change from game to game."""
        verdict = self.facts.allowed.get(j)
        forms = None
        if verdict is None:
            # A keyword is checked only when the word shares a form with it (the checks are
            # what ranking costs; most words share none): else only the form of a hint.
            forms = self.word_forms(j)
            keywords = () if self.facts.guard.clears(forms) else (self.facts.keyword,)
            verdict = self.facts.allowed[j] = self.hint_error(self.vocab[j], keywords) is None
        if not verdict or not self.other_keywords:
            return verdict
        forms = forms or self.word_forms(j)
        if all(guard.clears(forms) for guard in self.other_guards):
            return True
        return self.hint_error(self.vocab[j], self.other_keywords) is None

    def extend(self, count: int) -> list[str]:
        """Rank until ``count`` words (at most the limit) or the vocabulary's end; the words."""
        count = min(count, self.limit)
        total = len(self.vocab)
        own, rivals = self.facts.sims, self.rival_sims
        order = self.facts.order(self.position)
        # A call looks at a few words (~6 on average): one at a time, in Python, costs less
        # than a numpy batch.
        while len(self.words) < count and self.position < total:
            if self.position >= len(order):
                order = self.facts.order(self.position)
            j = order.item(self.position)
            self.position += 1
            similarity = own.item(j)
            # closer to its keyword than to every other keyword (strictly)
            if all(similarity > rival.item(j) for rival in rivals) and self._allowed(j):
                self.words.append(self.vocab[j])
        return self.words

    def fresh(self, used: set[str], count: int) -> list[str]:
        """The ranked words not in ``used``: at least ``count`` of them, unless the full
        ranking has fewer (then all of them)."""
        while True:
            fresh = [w for w in self.words if w not in used]
            if len(fresh) >= count or self.complete:
                return fresh
            self.extend(len(self.words) + count - len(fresh))


class _HintForms:
    """The word parts of a hint and their forms, as the hint rule compares them.

    The rule (:func:`~cluegym.envs.core.matching.hint_keyword`) splits the hint and the
    keyword into parts (word tokens split at hyphens and apostrophes) and rejects a hint with
    a part that is the keyword, shares its Snowball stem (both longer than 2 letters) or one
    of its WordNet lemmas (:func:`~cluegym.envs.core.matching.same_word`), or, under the
    ``substring`` rule, contains it. Each of those needs a form in common: the part or one of
    its lemmas against the keyword or one of its lemmas, or equal stems. So a hint whose
    forms share none with a one-part keyword's passes that keyword without the check.

    Attributes:
        parts: the hint's parts (lowercase).
        forms: the :func:`~cluegym.envs.core.matching.word_forms` of every part (its lemmas
            and stem), together; None when a part is too long to have kept forms.
    """

    __slots__ = ("parts", "forms")

    def __init__(self, parts: tuple[str, ...], forms: frozenset[str] | None) -> None:
        self.parts, self.forms = parts, forms

    @staticmethod
    def parts_of(text: str) -> tuple[str, ...]:
        """The parts of ``text`` the rule compares (the hint text as the rule cleans it)."""
        return tuple(p for token in tokens(to_charset(text).strip()) for p in token.replace("'", "-").split("-") if p)

    @classmethod
    def of(cls, text: str) -> _HintForms:
        parts = cls.parts_of(text)
        forms = [word_forms(part) for part in parts]
        return cls(parts, None if None in forms else frozenset().union(*forms))


class _KeywordGuard:
    """What a hint must share with one keyword to possibly break the hint rule with it.

    Attributes:
        forms: the forms of the keyword's one part (see :class:`_HintForms`); None when the
            keyword is not one part (a phrase: every hint is checked against it) or the rule
            is not one this guard knows.
        target: the part, which the ``substring`` rule also looks for inside a hint's parts
            (None: the rule is ``paper``, or the part is shorter than 3 letters).
    """

    __slots__ = ("forms", "target")

    def __init__(self, forms: frozenset[str] | None, target: str | None) -> None:
        self.forms, self.target = forms, target

    @classmethod
    def of(cls, keyword: str, rule: str) -> _KeywordGuard:
        parts = _HintForms.parts_of(keyword)
        if len(parts) != 1 or rule not in ("paper", "substring"):
            return cls(None, None)
        part = parts[0]
        return cls(word_forms(part), part if rule == "substring" and len(part) >= 3 else None)

    def clears(self, hint: _HintForms) -> bool:
        """Whether ``hint`` surely passes the rule next to this keyword (False: check it)."""
        if self.forms is None or hint.forms is None or not self.forms.isdisjoint(hint.forms):
            return False
        return self.target is None or not any(self.target in part for part in hint.parts)


def potential(raw_env: Any, seat: str) -> float:
    """The seat's view of the score: turns survived minus tokens, each scaled to [0, 1].

    Encoders (Alice, Bob) gain from surviving turns and lose from miscommunications and
    interceptions; Eve's potential is the negative.
    """
    state, cfg = raw_env.state, raw_env.game_config
    value = (len(state.history) / cfg.max_turns - state.miscommunications / cfg.miscommunication_limit
             - state.interceptions / cfg.interception_limit)
    return -value if seat == "eve" else value


def seat_task(seat: str, env: Any = None, *, embedding: str = "glove", n_candidates: int = 8,
              vocabulary: str | None = None, stride: int = 1, history: bool = False) -> SeatTask:
    """The learner task of a Decrypto seat.

    Args:
        seat: ``"alice"`` (choose among ``n_candidates`` hint triples), ``"bob"`` or ``"eve"``
            (choose one of the 24 codes, masked to the codes that can still occur).
        env: the raw Decrypto env, for its sizes (None: the default game).
        embedding: word embedding of the features and candidates.
        n_candidates, vocabulary, stride: Alice's candidates (see :class:`HintCandidates`).
        history: give Bob the hint-history features too (see :class:`DecryptoFeatures`).
    """

    cfg = env.game_config if env is not None else DecryptoConfig()
    sizes = dict(num_keywords=cfg.num_keywords, code_length=cfg.code_length, max_turns=cfg.max_turns,
                 miscommunication_limit=cfg.miscommunication_limit, interception_limit=cfg.interception_limit)
    features = DecryptoFeatures(seat, embedding=embedding, n_candidates=n_candidates, history=history, **sizes)
    if seat == "alice":
        return SeatTask("decrypto", seat, features, n_candidates,
                        candidates=HintCandidates(n_candidates, embedding=embedding, vocabulary=vocabulary, stride=stride,
                                                  config=cfg),
                        metric=("survival_rate", lambda m, r: m["encoder_win_rate"]), role="alice",
                        lean_observation=True)  # keywords, code, hint history: no prompt
    metric = (("decoding_rate", lambda m, r: 1.0 - m["miscommunication_rate"]) if seat == "bob"
              else ("interception_rate", lambda m, r: m["interception_rate"]))
    return SeatTask("decrypto", seat, features, features.n_codes, metric=metric, role=seat, lean_observation=True)
