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

from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.data import word_list_option
from cluegym.envs.decrypto.rules import all_codes, DecryptoConfig, DecryptoRules
from cluegym.wrappers.candidates import top_order
from cluegym.wrappers.featurizers import Featurizer
from cluegym.wrappers.selfplay import SeatTask

__all__ = ["DecryptoFeatures", "HintCandidates", "potential", "seat_task"]


def _history_targets(words: WordEncoder, hint_history: Sequence[Sequence[str]]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per keyword: the unit vectors of its revealed hints, and their normalized mean.

    The last result is kept (keyed by the embedding and the history): within a turn every
    seat's featurizer reads the same history (Alice's candidates, then Bob's and Eve's codes).
    The arrays are read-only: they are shared.
    """
    global _LAST_TARGETS
    key = (words.source, tuple(tuple(str(h) for h in history) for history in hint_history))
    if _LAST_TARGETS is not None and _LAST_TARGETS[0] == key:
        return _LAST_TARGETS[1]
    per_keyword = [words.matrix([h for h in history if h]) for history in hint_history]
    means = []
    for vecs in per_keyword:
        mean = vecs.mean(axis=0) if len(vecs) else np.zeros(words.dim, dtype=np.float32)
        norm = float(np.linalg.norm(mean))
        means.append(mean / norm if norm > 0 else mean)
    stacked = np.stack(means)
    for array in (*per_keyword, stacked):
        array.flags.writeable = False
    _LAST_TARGETS = (key, (per_keyword, stacked))
    return per_keyword, stacked


#: The last :func:`_history_targets` result, with its key.
_LAST_TARGETS: tuple[tuple[Any, ...], tuple[list[np.ndarray], np.ndarray]] | None = None


def _history_sims(words: WordEncoder, hints: Sequence[str], hint_history: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """(hints x keywords) similarity to each history's mean, and to its best single hint."""
    per_keyword, means = _history_targets(words, hint_history)
    hint_vecs = words.matrix(list(hints))
    mean_sims = hint_vecs @ means.T
    max_sims = np.zeros_like(mean_sims)
    for k, vecs in enumerate(per_keyword):
        if len(vecs):
            max_sims[:, k] = (hint_vecs @ vecs.T).max(axis=1)
    return mean_sims, max_sims


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
        self.n_keywords, self.code_length, self.max_turns = num_keywords, code_length, max_turns
        self.n_candidates = n_candidates
        self.limits = np.array([miscommunication_limit, interception_limit], dtype=np.float32)

        self.n_codes = len(all_codes(num_keywords, code_length))
        self.code_digits = np.array(all_codes(num_keywords, code_length), dtype=np.int64) - 1
        n_matrices = (1 if seat == "bob" else 0) + (2 if self.history else 0)
        # Layout [choices x per_choice | context] (see cluegym.training.policies).
        self.per_choice = code_length * 4 + 1 if seat == "alice" else 2 * n_matrices + 1
        self.n_choices = n_candidates if seat == "alice" else self.n_codes
        self.context = num_keywords + 1 + 2
        size = self.n_choices * self.per_choice + self.context
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(size,), dtype=np.float32)

    def _common(self, observation: dict[str, Any]) -> list[np.ndarray]:
        counts = np.array([sum(1 for h in history if h) for history in observation["hint_history"]], dtype=np.float32)
        tokens = np.asarray(observation["tokens"], dtype=np.float32) / self.limits
        turn = np.array([float(observation["turn"]) / self.max_turns], dtype=np.float32)
        return [counts / self.max_turns, turn, tokens]

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        history = observation["hint_history"]
        if len(history) != self.n_keywords:
            raise ValueError(f"observation has {len(history)} keywords; the featurizer was built for {self.n_keywords}")
        if self.seat == "alice":
            return self._alice(observation, candidates or [])
        hints = list(observation["hints"])[: self.code_length]
        hints += [""] * (self.code_length - len(hints))
        matrices = list(_history_sims(self.words, hints, history)) if self.history else []
        if self.seat == "bob":
            matrices.insert(0, self.words.similarity(hints, list(observation["keywords"])))
        legal = np.asarray(observation["action_mask"], dtype=bool)
        per_code = [column for m in matrices for column in self.code_scores(m, legal)]
        per_code.append(legal.astype(np.float32))
        return np.concatenate([np.stack(per_code, axis=1).ravel()] + self._common(observation))

    def code_scores(self, sims: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per code, the mean similarity of the hint-keyword pairs it asserts, raw and
        standardized over the legal codes (divided by 3, so +1 is three standard deviations
        above the mean: differences between codes, not cosine levels, carry the evidence)."""
        positions = np.arange(self.code_length)
        scores = sims[positions, self.code_digits].mean(axis=1)
        legal_scores = scores[legal] if legal.any() else scores
        spread = float(legal_scores.std())
        if spread < 1e-6:
            standardized = np.zeros_like(scores)
        else:
            standardized = np.where(legal, (scores - legal_scores.mean()) / (3.0 * spread), -1.0)
        return scores.astype(np.float32), standardized.astype(np.float32)

    def _alice(self, observation: dict[str, Any], candidates: Sequence[Sequence[str]]) -> np.ndarray:
        keywords = list(observation["keywords"])
        code = [int(d) - 1 for d in observation["code"]]
        kw_vecs = self.words.matrix(keywords)
        _, hist_means = _history_targets(self.words, observation["hint_history"])
        feats = np.zeros((self.n_candidates, self.code_length * 4 + 1), dtype=np.float32)
        triples = [list(triple) for triple in list(candidates)[: self.n_candidates]]
        length = len(triples[0]) if triples else 0
        if triples and length <= len(code) and all(len(triple) == length for triple in triples):
            # Every candidate at once: one matrix of all their words (a word's similarities
            # are its own row, whatever rows surround it).
            vecs = self.words.matrix([word for triple in triples for word in triple])
            digits = np.tile(np.asarray(code[:length], dtype=np.int64), len(triples))
            rows = np.arange(len(digits))
            columns = []
            for sims in (vecs @ kw_vecs.T, vecs @ hist_means.T):
                own = sims[rows, digits]
                others = sims.copy()
                others[rows, digits] = -np.inf  # the best similarity to another keyword
                columns += [own, others.max(axis=1)]
            feats[:len(triples), :4 * length] = np.stack(columns, axis=1).reshape(len(triples), 4 * length)
            feats[:len(triples), -1] = 1.0  # a candidate is present at this index
            return np.concatenate([feats.ravel()] + self._common(observation))
        for i, triple in enumerate(triples):  # triples of different lengths: one at a time
            vecs = self.words.matrix(list(triple))
            kw_sims, hist_sims = vecs @ kw_vecs.T, vecs @ hist_means.T
            for j, digit in enumerate(code[: len(triple)]):
                others = [k for k in range(len(keywords)) if k != digit]
                feats[i, 4 * j:4 * j + 4] = (kw_sims[j, digit], kw_sims[j, others].max(),
                                             hist_sims[j, digit], hist_sims[j, others].max())
            feats[i, -1] = 1.0  # a candidate is present at this index
        return np.concatenate([feats.ravel()] + self._common(observation))


class HintCandidates:
    """Alice's candidate hint triples: candidate ``i`` uses each keyword's ``i``-th closest word.

    Only words that are valid hints (the env's own check, :meth:`DecryptoRules.hint_error`,
    under the game's ``hint_rule``), not yet used in this game (read from the observation's
    hint history) and closer to their keyword than to the other keywords are ranked.
    Deterministic given the observation.

    What does not depend on the game is kept across games, per keyword (a game draws 4 of
    the ~700 keywords): its similarity column over the vocabulary, the start of its ranking,
    and the verdicts of the hint rule on the words ranked so far (:class:`_KeywordFacts`).

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
        self.hint_error = DecryptoRules(config or DecryptoConfig()).hint_error

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

    def _keyword_facts(self, keyword: str, column: np.ndarray) -> _KeywordFacts:
        """The kept facts of ``keyword``, rebuilt when its similarity column is not the one
        kept (another vocabulary or embedding: the check makes reuse exact by construction)."""
        facts = self._facts.get(keyword)
        if facts is None or not np.array_equal(facts.sims, column):
            facts = _KeywordFacts(keyword, column, self.limit)
            self._facts[keyword] = facts
            if len(self._facts) > self.MAX_KEYWORDS:
                self._facts.popitem(last=False)
        else:
            self._facts.move_to_end(keyword)
        return facts

    def _rankings(self, keywords: tuple[str, ...]) -> list[_KeywordRanking]:
        if keywords not in self._ranked:  # keywords are fixed for a game: keep only this one
            vocab, matrix = self._vocabulary()
            sims = matrix @ self.words.matrix(list(keywords)).T
            facts = [self._keyword_facts(keyword, sims[:, k]) for k, keyword in enumerate(keywords)]
            self._ranked = {keywords: [_KeywordRanking(vocab, sims, k, facts, self.limit, self.hint_error)
                                       for k in range(len(keywords))]}
        return self._ranked[keywords]

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
        candidates = []
        for i in range(self.n):
            rank = i * self.stride
            if any(rank >= len(fresh[d]) for d in code):
                break
            triple = tuple(fresh[d][rank] for d in code)
            if len(set(triple)) == len(triple):
                candidates.append(triple)
        return candidates


class _KeywordFacts:
    """What a keyword's ranking needs that no other keyword changes, kept across games.

    Attributes:
        keyword: the keyword.
        sims: its similarity to every vocabulary word (the column of the game's matrix).
        allowed: vocabulary index -> whether the hint rule accepts the word next to this
            keyword alone (a hint is valid for a game's keywords iff it is valid next to this
            one and next to the others: the rule's form checks do not depend on the keywords,
            its keyword check takes one keyword at a time,
            :func:`~cluegym.envs.core.matching.hint_keyword`).
    """

    __slots__ = ("keyword", "sims", "allowed", "_order")

    def __init__(self, keyword: str, column: np.ndarray, prefix: int) -> None:
        self.keyword = keyword
        self.sims = np.array(column)  # a contiguous copy: the game's matrix is not kept
        self.allowed: dict[int, bool] = {}
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

    #: Vocabulary words looked at per numpy batch of the "closer to its keyword" test.
    _BATCH = 32

    def __init__(self, vocab: list[str], sims: np.ndarray, k: int, facts: Sequence[_KeywordFacts], limit: int,
                 hint_error: Callable[[str, Sequence[str]], str | None]) -> None:
        self.vocab, self.limit, self.hint_error = vocab, limit, hint_error
        self.facts = facts[k]
        self.other_keywords = tuple(f.keyword for i, f in enumerate(facts) if i != k)
        self.sims, self.k = sims, k
        self.others = [j for j in range(sims.shape[1]) if j != k]
        self.position = 0
        self.words: list[str] = []

    @property
    def complete(self) -> bool:
        return len(self.words) >= self.limit or self.position >= len(self.vocab)

    def _allowed(self, j: int) -> bool:
        """Whether vocabulary word ``j`` is a valid hint for every keyword of the game: its
        verdict next to this ranking's keyword is kept across games (a keyword's close words
        come back in every game that draws it), the other keywords change from game to game."""
        word = self.vocab[j]
        verdict = self.facts.allowed.get(j)
        if verdict is None:
            verdict = self.facts.allowed[j] = self.hint_error(word, (self.facts.keyword,)) is None
        return verdict and (not self.other_keywords or self.hint_error(word, self.other_keywords) is None)

    def extend(self, count: int) -> list[str]:
        """Rank until ``count`` words (at most the limit) or the vocabulary's end; the words."""
        count = min(count, self.limit)
        total = len(self.vocab)
        while len(self.words) < count and self.position < total:
            order = self.facts.order(self.position)
            batch = order[self.position:self.position + self._BATCH]
            rows = self.sims[batch]
            # closer to its keyword than to every other keyword (strictly), a batch at a time
            closer = rows[:, self.k] > rows[:, self.others].max(axis=1) if self.others else np.ones(len(batch), bool)
            for i, j in enumerate(batch.tolist()):
                self.position += 1
                if closer[i] and self._allowed(j):
                    self.words.append(self.vocab[j])
                    if len(self.words) >= count:
                        break
        return self.words

    def fresh(self, used: set[str], count: int) -> list[str]:
        """The ranked words not in ``used``: at least ``count`` of them, unless the full
        ranking has fewer (then all of them)."""
        while True:
            fresh = [w for w in self.words if w not in used]
            if len(fresh) >= count or self.complete:
                return fresh
            self.extend(len(self.words) + count - len(fresh))


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
                        metric=("survival_rate", lambda m, r: m["encoder_win_rate"]), role="alice")
    metric = (("decoding_rate", lambda m, r: 1.0 - m["miscommunication_rate"]) if seat == "bob"
              else ("interception_rate", lambda m, r: m["interception_rate"]))
    return SeatTask("decrypto", seat, features, features.n_codes, metric=metric, role=seat)
