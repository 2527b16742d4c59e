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
    >>> from cluegym.envs import decrypto_v0
    >>> from cluegym.wrappers.selfplay import SelfPlayEnv
    >>> task = seat_task("eve", env=decrypto_v0.raw_env())
    >>> task.metric_name, task.n_actions  # Eve picks one of the 24 codes
    ('interception_rate', 24)
    >>> env = SelfPlayEnv("decrypto", "eve", task=task)
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, int(info["action_mask"].sum())
    ((127,), 24)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import gymnasium
import numpy as np

from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.data import word_list_option
from cluegym.envs.core.matching import word_forms
from cluegym.envs.core.text import to_charset, tokens
from cluegym.envs.decrypto.rules import all_codes, DecryptoConfig, DecryptoRules
from cluegym.wrappers.candidates import top_order
from cluegym.wrappers.decrypto_scores import (alice_vector, code_scores, context_vector, guesser_features,
                                              hint_candidates, scan_ranking)
from cluegym.wrappers.featurizers import Featurizer
from cluegym.wrappers.seat_task import metrics_entry
from cluegym.wrappers.selfplay import SeatTask
from cluegym.wrappers.text_rows import TextRows

__all__ = ["DecryptoFeatures", "HintCandidates", "potential", "seat_task"]


class DecryptoFeatures(Featurizer):
    """Similarity features of one Decrypto seat (see the module docstring).

    The arithmetic is :mod:`cluegym.wrappers.decrypto_scores` (C loops in the compiled
    build, numpy's calls as Python: the same vectors bit for bit), over the word vectors of
    a :class:`~cluegym.wrappers.text_rows.TextRows` shared by every featurizer of the
    embedding. A similarity is the vectors' dot product in double rounded once to float32;
    a hint's similarity to a hint history is its cosine with the history's centroid.

    Args:
        seat: ``"alice"``, ``"bob"`` or ``"eve"``.
        embedding: word embedding for the similarities.
        num_keywords, code_length, max_turns: the game's sizes.
        n_candidates: Alice's number of candidates.
        miscommunication_limit, interception_limit: token limits (to scale the counts).
        history: Bob also sees the hint-history similarities (Eve always does; Bob decodes
            from the keywords alone by default, which is all the evidence he needs).
    """

    #: :meth:`features` returns the vector in the Box (clipped): ``__call__`` hands it on.
    bounded = True

    def __init__(self, seat: str, *, embedding: str = "glove", num_keywords: int = 4, code_length: int = 3,
                 max_turns: int = 8, n_candidates: int = 8, miscommunication_limit: int = 2,
                 interception_limit: int = 2, history: bool = False) -> None:
        if seat not in ("alice", "bob", "eve"):
            raise ValueError(f"decrypto has no seat {seat!r}")
        self.seat = seat
        self.history = bool(history) or seat == "eve"
        self.words = WordEncoder(embedding)
        self.rows = TextRows.of(self.words)
        self.n_keywords, self.code_length, self.max_turns = num_keywords, code_length, max_turns
        self.n_candidates = n_candidates
        self.limits = np.array([miscommunication_limit, interception_limit], dtype=np.float32)
        self._limits = (int(miscommunication_limit), int(interception_limit))

        self.n_codes = len(all_codes(num_keywords, code_length))
        self.code_digits = np.array(all_codes(num_keywords, code_length), dtype=np.int64) - 1
        self._n_matrices = (1 if seat == "bob" else 0) + (2 if self.history else 0)
        # Layout [choices x per_choice | context] (see cluegym.training.policies).
        self.per_choice = code_length * 4 + 1 if seat == "alice" else 2 * self._n_matrices + 1
        self.n_choices = n_candidates if seat == "alice" else self.n_codes
        self.context = num_keywords + 1 + 2
        size = self.n_choices * self.per_choice + self.context
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(size,), dtype=np.float32)

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        history = observation["hint_history"]
        if len(history) != self.n_keywords:
            raise ValueError(f"observation has {len(history)} keywords; the featurizer was built for {self.n_keywords}")
        context = context_vector(history, observation["turn"], observation["tokens"], self.max_turns, *self._limits)
        if self.seat == "alice":
            code = [int(d) - 1 for d in observation["code"]]
            if code and min(code) < 0:  # no code to hint (the observation after the game's end): no choices
                code, candidates = [], []
            return alice_vector(self.rows, candidates or [], code, observation["keywords"], history,
                                self.n_candidates, self.code_length, context)
        return guesser_features(self.rows, observation["hints"], observation["keywords"] if self.seat == "bob" else None,
                                history if self.history else None, self.code_digits, observation["action_mask"],
                                context, self.code_length, self.n_keywords)

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


class HintCandidates:
    """Alice's candidate hint triples: candidate ``i`` uses each keyword's ``i``-th closest word.

    Only words that are valid hints (the env's own check, :meth:`DecryptoRules.hint_error`,
    under the game's ``hint_rule``), not yet used in this game (read from the observation's
    hint history) and closer to their keyword than to the other keywords are ranked.
    Deterministic given the observation.

    What does not depend on the game is kept across games and shared by every instance of
    the same embedding, vocabulary and hint check, per keyword (a game draws 4 of the ~700
    keywords): its similarity to every vocabulary word, the start of its ranking, and the hint
    rule's verdict on each word next to it, found once (:class:`_KeywordTable`); per
    vocabulary word, the forms the hint rule compares (:class:`_HintForms`), so that the rule
    is checked only against the keywords a word shares a form with (:class:`_KeywordGuard`).
    A game's ranking scans them (:func:`~cluegym.wrappers.decrypto_scores.scan_ranking`: C
    loops in the build).

    Args:
        n: number of candidates (subtlety levels).
        embedding: word embedding for the ranking.
        vocabulary: hint vocabulary file (None: the shipped ~5,000 nouns).
        stride: rank step between candidates (2 -> ranks 0, 2, 4, ...; wider spread).
        config: the game's config, whose rules judge the hints (None: the default game,
            ``hint_rule="paper"``).
    """

    def __init__(self, n: int = 8, *, embedding: str = "glove", vocabulary: str | None = None, stride: int = 1,
                 config: DecryptoConfig | None = None) -> None:
        if n < 1 or stride < 1:
            raise ValueError(f"n and stride must be >= 1, got n={n}, stride={stride}")
        self.n, self.stride = int(n), int(stride)
        self.words = WordEncoder(embedding)
        self.vocabulary_path = vocabulary
        # the env's own hint check: a candidate is exactly a hint the env would accept
        self.config = config or DecryptoConfig()
        self.hint_error = DecryptoRules(self.config).hint_error
        self.hint_rule = self.config.hint_rule
        self._table: _KeywordTable | None = None
        # The current game's rankings (keywords are fixed for a game), with their keywords and
        # the table's generation they were made in.
        self._ranked: tuple[tuple[str, ...], int, list[_KeywordRanking]] | None = None

    @property
    def table(self) -> _KeywordTable:
        """The shared :class:`_KeywordTable` of this embedding, vocabulary and hint check."""
        if self._table is None:
            self._table = _KeywordTable.of(self.words, self.vocabulary_path, self.config)
        return self._table

    def _vocabulary(self) -> tuple[list[str], np.ndarray]:
        """The vocabulary words this embedding knows, and their unit vectors."""
        table = self.table
        return table.vocab, table.matrix

    @property
    def limit(self) -> int:
        """Words ranked per keyword at most (room for the hints a game uses up)."""
        return 4 * self.n * self.stride + 64

    def preload(self, keywords: Sequence[str]) -> None:
        """Compute what ``keywords`` need in any game (their rows of the table and the start of
        their rankings) now: what a training run's first games do (``cluegym.benchmarks``
        warms the shipped keywords before timing)."""
        table = self.table
        for keyword in keywords:
            table.row(str(keyword), self.limit)

    def _rankings(self, keywords: tuple[str, ...]) -> list[_KeywordRanking]:
        table = self.table
        ranked = self._ranked
        if ranked is None or ranked[0] != keywords or ranked[1] != table.generation:
            rows = table.rows(keywords, self.limit)
            rankings = [_KeywordRanking(rows[k], [rows[i] for i in range(len(rows)) if i != k])
                        for k in range(len(rows))]
            self._ranked = ranked = (keywords, table.generation, rankings)
        return ranked[2]

    def _extend(self, ranking: _KeywordRanking, count: int) -> list[int]:
        """Rank until ``count`` words (at most the limit) or the vocabulary's end; the words
        (vocabulary indices)."""
        table = self.table
        count = min(count, self.limit)
        total = len(table.vocab)
        while len(ranking.words) < count and ranking.position < total:
            order = table.order(ranking.row, ranking.position)
            ranking.position = scan_ranking(table.sims, table.verdicts, order, ranking.row, ranking.rivals,
                                            ranking.position, count, ranking.words, table.resolve)
        return ranking.words

    def _fresh(self, ranking: _KeywordRanking, used: set[str], count: int) -> list[str]:
        """The ranked words not in ``used``: at least ``count`` of them, unless the full
        ranking has fewer (then all of them)."""
        vocab, limit, total = self.table.vocab, self.limit, len(self.table.vocab)
        while True:
            fresh = [vocab[j] for j in ranking.words if vocab[j] not in used]
            if len(fresh) >= count or len(ranking.words) >= limit or ranking.position >= total:
                return fresh
            self._extend(ranking, len(ranking.words) + count - len(fresh))

    def ranked(self, keywords: tuple[str, ...]) -> list[list[str]]:
        """Per keyword, valid vocabulary words closest first (cached for the current keywords)."""
        vocab = self.table.vocab
        return [[vocab[j] for j in self._extend(ranking, self.limit)] for ranking in self._rankings(tuple(keywords))]

    def __call__(self, observation: dict[str, Any], info: dict[str, Any]) -> list[tuple[str, ...]]:
        keywords = tuple(observation["keywords"])
        used = {h for history in observation["hint_history"] for h in history if h}
        rankings = self._rankings(keywords)
        code = [int(d) - 1 for d in observation["code"]]
        table = self.table
        while True:
            candidates = hint_candidates(table.sims, table.verdicts, table.orders, rankings, code, used, table.vocab,
                                         self.n, self.stride, self.limit, table.resolve)
            if candidates is not None:
                return candidates
            # A ranking reads past its order's kept start: the whole order, then again.
            for d in set(code):
                table.order(rankings[d].row, rankings[d].position)


class _KeywordRanking:
    """One keyword's ranking in one game: its row of the table, the other keywords' rows,
    how far the keyword's order is read, and the valid words found so far (vocabulary
    indices, closest first: always a prefix of the full ranking)."""

    __slots__ = ("row", "rivals", "position", "words")

    def __init__(self, row: int, rivals: list[int]) -> None:
        self.row, self.rivals = row, rivals
        self.position = 0
        self.words: list[int] = []


class _KeywordTable:
    """What ranking a hint vocabulary for a keyword needs that no game changes, per keyword.

    One table per embedding, vocabulary and hint check (:meth:`of`), shared by every
    :class:`HintCandidates` of them: row ``r`` is keyword ``keywords[r]``'s similarity to
    every vocabulary word (``sims``: the vocabulary's product with its own vector alone, so it
    depends on the keyword only and reuse is exact by construction), the hint rule's verdicts
    on the words next to it alone (``verdicts``: 1 valid, 0 not, -1 not checked yet; a hint is
    valid for a game's keywords iff it is valid next to each of them alone: the rule's form
    checks do not depend on the keywords and its keyword check takes one keyword at a time,
    :func:`~cluegym.envs.core.matching.hint_keyword`), the start of its ranking, and its
    :class:`_KeywordGuard`.

    Attributes:
        vocab: the vocabulary words the embedding knows; matrix: their unit vectors.
        generation: counts the times the table started again (full: :attr:`MAX_KEYWORDS`);
            a game's rankings made in another generation are made again.
    """

    #: Keywords kept (the shipped list has 681: all of them, ~25 kB each); when full the
    #: table starts again.
    MAX_KEYWORDS = 2048

    _shared: dict[tuple, _KeywordTable] = {}

    def __init__(self, words: WordEncoder, vocab: list[str], matrix: np.ndarray,
                 hint_error: Any, rule: str) -> None:
        self.words, self.vocab, self.matrix = words, vocab, matrix
        self.hint_error, self.rule = hint_error, rule
        self.generation = 0
        # Per vocabulary word: its forms, and whether it has a hint's form (the rule's checks
        # that no keyword changes). A word that shares no form with a keyword is valid next
        # to it iff it has a hint's form (its guard clears it), so a keyword's row of verdicts
        # starts as that column, with only the words that share a form with it left to check
        # (found through the forms' index: most keywords have none or a few).
        self.forms = [_HintForms.of(word) for word in vocab]
        self.form_ok = np.array([hint_error(word, ()) is None for word in vocab], dtype=np.int8)
        self._by_form: dict[str, list[int]] = {}
        self._formless: list[int] = []
        for j, forms in enumerate(self.forms):
            if forms.forms is None:
                self._formless.append(j)
                continue
            for form in forms.forms:
                self._by_form.setdefault(form, []).append(j)
        self._clear()

    def _clear(self) -> None:
        size = len(self.vocab)
        self.keywords: list[str] = []
        self.index: dict[str, int] = {}
        self.sims = np.zeros((0, size), dtype=np.float32)
        self.verdicts = np.zeros((0, size), dtype=np.int8)
        self.orders: list[np.ndarray] = []
        self.guards: list[_KeywordGuard] = []

    @classmethod
    def of(cls, words: WordEncoder, vocabulary: str | None, config: DecryptoConfig) -> _KeywordTable:
        """The shared table of ``words``' embedding, a vocabulary file (None: the shipped
        one) and the hint check of ``config`` (its rule and hint sizes)."""
        path = str(Path(vocabulary).expanduser().resolve()) if vocabulary else None
        key = (words.source, path, config.hint_rule, config.max_hint_chars, config.max_hint_words)
        table = cls._shared.get(key)
        if table is None:
            listed = word_list_option(Path(path) if path else None, "cluegym.envs.decrypto", "hint_vocab.txt")
            known = [w for w in listed if words.vector(w).any()]
            table = cls._shared[key] = cls(words, known, words.matrix(known), DecryptoRules(config).hint_error,
                                           config.hint_rule)
        return table

    def rows(self, keywords: Sequence[str], prefix: int) -> list[int]:
        """The rows of a game's keywords, made where missing (starting the table again
        first if they would not fit)."""
        missing = [k for k in dict.fromkeys(keywords) if k not in self.index]
        if len(self.keywords) + len(missing) > self.MAX_KEYWORDS:
            self._clear()
            self.generation += 1
        return [self.row(keyword, prefix) for keyword in keywords]

    def row(self, keyword: str, prefix: int) -> int:
        """``keyword``'s row, made on its first use (its ranking's start: ``4 * prefix`` words)."""
        row = self.index.get(keyword)
        if row is not None:
            return row
        if len(self.keywords) >= self.MAX_KEYWORDS:
            self._clear()
            self.generation += 1
        row = len(self.keywords)
        if row >= self.sims.shape[0]:  # grown by doubling: rows are copied, not remade
            capacity = max(16, 2 * self.sims.shape[0])
            sims = np.zeros((capacity, len(self.vocab)), dtype=np.float32)
            verdicts = np.full((capacity, len(self.vocab)), -1, dtype=np.int8)
            sims[:row], verdicts[:row] = self.sims[:row], self.verdicts[:row]
            self.sims, self.verdicts = sims, verdicts
        self.sims[row] = self.matrix @ self.words.vector(keyword)
        guard = _KeywordGuard.of(keyword, self.rule)
        self.verdicts[row] = self._first_verdicts(guard)
        # The start of the ranking (closest first): a game ranks ~limit words of ~5,000, so
        # the whole argsort is made only for a game that reads past this prefix.
        self.orders.append(top_order(self.sims[row], max(1, 4 * prefix)))
        self.guards.append(guard)
        self.keywords.append(keyword)
        self.index[keyword] = row
        return row

    def order(self, row: int, position: int) -> np.ndarray:
        """Row ``row``'s ranking (``np.argsort(-sims, kind="stable")``), at least up to ``position``."""
        order = self.orders[row]
        if position >= len(order) and len(order) < len(self.vocab):
            order = self.orders[row] = np.argsort(-self.sims[row], kind="stable")
        return order

    def _first_verdicts(self, guard: _KeywordGuard) -> np.ndarray:
        """A new keyword's row of verdicts: :attr:`form_ok` where its guard surely clears the
        word (:meth:`_KeywordGuard.clears`), -1 (checked when first read) where it may not."""
        if guard.forms is None:
            return np.full(len(self.vocab), -1, dtype=np.int8)
        verdicts = self.form_ok.copy()
        suspects = set(self._formless)
        for form in guard.forms:
            suspects.update(self._by_form.get(form, ()))
        if guard.target is not None:  # the substring rule: a word with the keyword inside a part
            suspects.update(j for j, forms in enumerate(self.forms) if any(guard.target in p for p in forms.parts))
        if suspects:
            verdicts[sorted(suspects)] = -1
        return verdicts

    def resolve(self, row: int, j: int) -> int:
        """The hint rule's verdict on vocabulary word ``j`` next to row ``row``'s keyword alone,
        found and kept. The keyword is checked only when the word shares a form with it (the
        checks are what ranking costs; most words share none): else only the form of a hint."""
        forms = self.forms[j]
        keywords = () if self.guards[row].clears(forms) else (self.keywords[row],)
        verdict = 1 if self.hint_error(self.vocab[j], keywords) is None else 0
        self.verdicts[row, j] = verdict
        return verdict


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


def _decoding_rate(metrics: dict[str, Any], results: Sequence[dict[str, Any]]) -> float:
    """Bob's task metric: the share of turns he decoded (1 - the miscommunication rate)."""
    return 1.0 - metrics["miscommunication_rate"]


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

    if n_candidates < 1 or stride < 1:  # numpy's "negative dimensions are not allowed" said it before
        raise ValueError(f"n_candidates and stride must be >= 1, got n_candidates={n_candidates}, stride={stride}")
    cfg = env.game_config if env is not None else DecryptoConfig()
    sizes = dict(num_keywords=cfg.num_keywords, code_length=cfg.code_length, max_turns=cfg.max_turns,
                 miscommunication_limit=cfg.miscommunication_limit, interception_limit=cfg.interception_limit)
    features = DecryptoFeatures(seat, embedding=embedding, n_candidates=n_candidates, history=history, **sizes)
    if seat == "alice":
        return SeatTask("decrypto", seat, features, n_candidates,
                        candidates=HintCandidates(n_candidates, embedding=embedding, vocabulary=vocabulary, stride=stride,
                                                  config=cfg),
                        metric=("survival_rate", metrics_entry("decrypto", "encoder_win_rate")), role="alice",
                        lean_observation=True)  # keywords, code, hint history: no prompt
    metric = (("decoding_rate", _decoding_rate) if seat == "bob"
              else ("interception_rate", metrics_entry("decrypto", "interception_rate")))
    return SeatTask("decrypto", seat, features, features.n_codes, metric=metric, role=seat, lean_observation=True)
