"""Adversarial Taboo for learners: the defender's guess as a choice among candidate words.

The learner task is the **defender's guess**: choice 0 is "no guess yet", choices 1..n-1 are
the vocabulary words closest to what the attacker has said (:class:`GuessCandidates`; later
utterances weigh more, words already said are skipped). The defender's utterance comes from a
delegate (the GloVe defender by default) and the two are combined into one action
(``{"utterance": ..., "guess": ...}``). Guess right: +1; wrong: -1; no guess by the turn
limit: a draw, 0. So the policy learns *when* the evidence is strong enough to guess, and
which word.

Features per choice (:class:`GuessFeatures`, laid out per choice for the shared-weight
scorer): whether it is the no-guess choice, the candidate's similarity to the attacker's
talk, raw and standardized over the candidates, its rank, and whether it is present.
Context: the defender's turn, whether it is the last, and the margin of the best candidate
over the runner-up.

The shaping potential of Taboo is 0: its only score is the outcome.

Example:
    >>> from cluegym.wrappers.selfplay import SelfPlayEnv
    >>> env = SelfPlayEnv("taboo", "defender", opponents={"attacker": "glove"})
    >>> env.observation_space, env.action_space
    (Box(-1.0, 1.0, (43,), float32), Discrete(8))
    >>> observation, info = env.reset(seed=0)
    >>> info["action_mask"]  # no guess yet, or one of the 7 candidate words
    array([ True,  True,  True,  True,  True,  True,  True,  True])
    >>> observation, reward, terminated, truncated, info = env.step(0)  # not guessing yet
    >>> reward, terminated
    (0.0, False)
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Sequence

import gymnasium
import numpy as np

from cluegym.agents.encoders.sentences import SpeechEncoder
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.text import tokens
from cluegym.envs.taboo.rules import TabooConfig
from cluegym.wrappers.candidates import top_order
from cluegym.wrappers.featurizers import Featurizer, mean_deviations
from cluegym.wrappers.selfplay import SeatTask

try:
    import cython
except ImportError:  # no Cython at run time: the declarations do nothing
    from cluegym.envs.core import cython_fallback as cython

if not cython.compiled:  # the build cimports the C loops (taboo.pxd)
    from cluegym.wrappers.similarity import clipped, pairwise_sum

__all__ = ["GuessCandidates", "GuessFeatures", "guess_vector", "potential", "seat_task"]

_PER_CHOICE = 5
_CONTEXT = 3


def _attacker_talk(observation: dict[str, Any]) -> list[str]:
    """The attacker's utterances so far (the dialogue alternates, attacker first)."""
    return [u for u in list(observation["dialogue"])[0::2] if u]


class GuessCandidates:
    """The no-guess choice ``""`` and the ``n - 1`` words closest to the attacker's talk.

    Utterance ``t`` of ``T`` weighs ``t + 1`` (later, more specific hints count more). Words
    already said by either player are skipped. Deterministic given the observation.

    Args:
        n: number of choices (no-guess included).
        embedding: word embedding ranking the words.
        vocabulary: candidate words (None: the shipped game vocabularies, which include the
            Taboo target list).
    """

    #: Talks whose ranking start is kept (a few hundred bytes each).
    MAX_TALKS = 8192
    #: Ranked words kept beyond the ``n - 1`` needed (room for the words already said).
    SPARE = 24

    def __init__(self, n: int = 8, *, embedding: str = "glove", vocabulary: Sequence[str] | None = None) -> None:
        if n < 2:
            raise ValueError(f"n must be >= 2 (no-guess and at least one word), got {n}")
        self.n = int(n)
        self.words = WordEncoder(embedding)
        self._vocabulary = list(vocabulary) if vocabulary is not None else None
        self._known: tuple[list[str], np.ndarray] | None = None
        self._speech_encoder: Any = None
        # The features and the candidates of one decision both score its dialogue: keep the
        # last (its list and the same as a word -> similarity dict).
        self._last: tuple[tuple[str, ...], list[tuple[str, float]], dict[str, float]] | None = None
        # The attacker's talk -> the start of the vocabulary's ranking: the ranking depends on
        # the talk only (the words said are skipped while reading it), and a talk comes back
        # (the same opening hints for the same target, the same random words).
        self._rankings: OrderedDict[tuple[str, ...], tuple[list[int], list[float], bool]] = OrderedDict()

    def _speech(self) -> Any:
        """Utterance vectors as the baselines compute them: the mean of the content words."""
        if self._speech_encoder is None:
            self._speech_encoder = SpeechEncoder(self.words, sentences=False)
        return self._speech_encoder

    def _vocab(self) -> tuple[list[str], np.ndarray]:
        if self._known is None:  # embedded once, on first use
            self._known = self.words.known_words(self._vocabulary)
        return self._known

    def scored(self, observation: dict[str, Any]) -> list[tuple[str, float]]:
        """The ``n - 1`` best words and their similarity to the attacker's talk."""
        return list(self._scored(observation)[1])

    def scores(self, observation: dict[str, Any]) -> dict[str, float]:
        """:meth:`scored` as a word -> similarity dict (shared: do not modify)."""
        return self._scored(observation)[2]

    def _scored(self, observation: dict[str, Any]) -> tuple[tuple[str, ...], list[tuple[str, float]], dict[str, float]]:
        dialogue = tuple(str(u) for u in observation["dialogue"])
        if self._last is None or self._last[0] != dialogue:
            scored = self._score(observation)
            self._last = (dialogue, scored, dict(scored))
        return self._last

    def _score(self, observation: dict[str, Any]) -> list[tuple[str, float]]:
        talk = tuple(_attacker_talk(observation))
        if not talk:
            return []
        said = {t for u in observation["dialogue"] if u for t in tokens(u)}
        ranking = self._rankings.get(talk)
        if ranking is None:
            ranking = self._rank(talk)
            self._rankings[talk] = ranking
            if len(self._rankings) > self.MAX_TALKS:
                self._rankings.popitem(last=False)
        else:
            self._rankings.move_to_end(talk)
        order, values, complete = ranking
        vocab = self._vocab()[0]
        out: list[tuple[str, float]] = []
        for j, value in zip(order, values):
            word = vocab[j]
            if word in said:
                continue
            out.append((word, value))
            if len(out) == self.n - 1:
                return out
        if complete:
            return out
        # The kept start of the ranking was not enough (many of its words were said): all of it.
        sims = self._similarities(talk)
        out = []
        for j in np.argsort(-sims, kind="stable"):
            word = vocab[int(j)]
            if word in said:
                continue
            out.append((word, float(sims[j])))
            if len(out) == self.n - 1:
                break
        return out

    def _similarities(self, talk: tuple[str, ...]) -> np.ndarray | None:
        """Every vocabulary word's similarity to the talk's weighted centre (None when the
        talk has no known word)."""
        vectors = self._speech().texts(list(talk))
        weights = np.arange(1, len(talk) + 1, dtype=np.float32)[:, None]
        centre = (vectors * weights).sum(axis=0)
        norm = float(np.linalg.norm(centre))
        if norm == 0:
            return None
        return self._vocab()[1] @ (centre / norm)

    def _rank(self, talk: tuple[str, ...]) -> tuple[list[int], list[float], bool]:
        """The start of the vocabulary's ranking by similarity to ``talk`` (closest first,
        ties in vocabulary order): indices, similarities, and whether it is the whole ranking
        (also when the talk has no known word: then nothing is ranked)."""
        sims = self._similarities(talk)
        if sims is None:
            return [], [], True
        order = top_order(sims, self.n - 1 + self.SPARE)
        return order.tolist(), sims[order].tolist(), len(order) == len(sims)

    def __call__(self, observation: dict[str, Any], info: dict[str, Any]) -> list[str]:
        return [""] + [w for w, _ in self._scored(observation)[1]]


class GuessFeatures(Featurizer):
    """Per-choice evidence for the defender's guess (see the module docstring).

    Args:
        candidates: the task's :class:`GuessCandidates` (its scores are reused).
        max_turns: the game's turns per player.
    """

    def __init__(self, candidates: GuessCandidates, max_turns: int = 5) -> None:
        self.candidates = candidates
        self.n, self.max_turns = candidates.n, max(1, int(max_turns))
        self.per_choice = _PER_CHOICE
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(self.n * _PER_CHOICE + _CONTEXT,),
                                                      dtype=np.float32)
        # The rank feature of candidate word i (float64 division, rounded to float32 once).
        self._ranks = (np.arange(self.n) / max(1, self.n - 1)).astype(np.float32)

    #: :meth:`features` returns the vector in the Box (clipped): ``__call__`` hands it on.
    bounded = True

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        words = [c for c in (candidates or [])[1:] if c]
        sims: list[float] = []
        if words:  # no candidate word (e.g. the game's last observation): nothing to score
            scored = self.candidates.scores(observation)
            sims = [scored.get(w, 0.0) for w in words]
        return guess_vector(sims, self.n, float(observation["turn"]), self.max_turns, self._ranks)


def guess_vector(sims: list[float], n: int, turn: float, max_turns: int, ranks: np.ndarray) -> np.ndarray:
    """The defender's feature vector (the module docstring's layout) from its candidate words'
    similarities, best first, clipped to ``[-1, 1]``.

    Per candidate word: its similarity, its z-score among the candidates over 3 (numpy's
    float32 ``mean`` and ``std`` of them, ``mean_deviations``; 0 when they do not spread), its
    rank over ``n - 1`` (``ranks``), a 1 for present; the no-guess choice's flags; then the
    turn over ``max_turns``, whether it is the last, and 10x the margin of the best word
    over the next. Compiled (taboo.pxd): C loops with numpy's float32 operations in numpy's
    order (its sums by :func:`~cluegym.wrappers.similarity.pairwise_sum`), the same vector
    bit for bit; as Python, numpy's calls (the definition).
    """
    size = n * _PER_CHOICE + _CONTEXT
    vector_array = np.zeros(size, dtype=np.float32)
    k = len(sims)
    if cython.compiled and 0 < k < n and size <= _MAX_VECTOR:
        vector = vector_array
        rank = ranks
        vector[0] = 1.0  # no guess
        vector[4] = 1.0
        for i in range(k):
            values[i] = sims[i]
        total = pairwise_sum(cython.address(values[0]), 0, k)
        mean = cython.cast(cython.float, cython.cast(cython.double, total) / k)
        for i in range(k):
            deviation = values[i] - mean
            squares[i] = deviation * deviation
        variance = cython.cast(cython.float, cython.cast(cython.double, pairwise_sum(cython.address(squares[0]), 0, k))
                               / k)
        spread = cython.cast(cython.double, sqrtf(variance))
        scale = cython.cast(cython.float, 3.0 * spread)  # a Python float divides a float32 array as a float32
        for i in range(k):
            base = (i + 1) * _PER_CHOICE
            vector[base + 1] = clipped(values[i])
            if spread > 1e-6:
                vector[base + 2] = clipped((values[i] - mean) / scale)
            vector[base + 3] = rank[i]
            vector[base + 4] = 1.0
        margin = cython.cast(cython.double, values[0] - values[1]) if k > 1 else 0.0
        context = n * _PER_CHOICE
        vector[context] = clipped(turn / max_turns)
        vector[context + 1] = 1.0 if turn >= max_turns - 1 else 0.0
        vector[context + 2] = clipped(10.0 * margin)
        return vector_array
    vector_array[0] = 1.0  # no guess
    vector_array[4] = 1.0
    margin = 0.0
    if k:
        values_array = np.array(sims, dtype=np.float32)[: n - 1]
        k = len(values_array)
        _, deviations, spread = mean_deviations(values_array)
        per = vector_array[: n * _PER_CHOICE].reshape(n, _PER_CHOICE)
        per[1:k + 1, 1] = values_array
        if spread > 1e-6:
            per[1:k + 1, 2] = deviations / (3.0 * spread)
        per[1:k + 1, 3] = ranks[:k]
        per[1:k + 1, 4] = 1.0
        if k > 1:
            margin = float(values_array[0] - values_array[1])
    context = n * _PER_CHOICE
    vector_array[context] = turn / max_turns
    vector_array[context + 1] = float(turn >= max_turns - 1)
    vector_array[context + 2] = 10.0 * margin
    return np.clip(vector_array, -1.0, 1.0, out=vector_array)


#: The longest defender's vector :func:`guess_vector`'s loops take (its scratch, on the C
#: stack, holds as many candidates' values): 64 choices.
_MAX_VECTOR = 64 * _PER_CHOICE + _CONTEXT


def _combine(guess: Any, delegate_action: Any) -> dict[str, str]:
    utterance = delegate_action.get("utterance", "") if isinstance(delegate_action, dict) else str(delegate_action)
    if guess and not utterance:
        utterance = "Let me guess."
    return {"utterance": utterance or "Tell me more.", "guess": str(guess or "")}


def potential(raw_env: Any, seat: str) -> float:
    """Taboo has no running score: its only signal is the outcome (potential 0)."""
    return 0.0


def _defender_score(metrics: dict[str, Any], results: Sequence[dict[str, Any]]) -> float:
    """The defender task's metric, its expected reward: right guess +1, wrong -1, draw 0 (the
    win rate alone rewards reckless guessing that loses more than it wins)."""
    return metrics["defender_win_rate"] - metrics["attacker_win_rate"]


def seat_task(seat: str, env: Any = None, *, embedding: str = "glove", n_candidates: int = 8,
              speaker: str = "glove") -> SeatTask:
    """The defender's guess task (Taboo's only learner task).

    Args:
        seat: ``"defender"``.
        env: the raw Taboo env, for its sizes (None: the default game).
        embedding: word embedding of the candidates and features.
        n_candidates: choices, no-guess included.
        speaker: agent spec giving the defender's utterances (its own guesses are ignored).
    """
    if seat != "defender":
        raise ValueError(f"taboo's learner task is the defender's guess; {seat!r} has none")

    cfg = env.game_config if env is not None else TabooConfig()
    candidates = GuessCandidates(n_candidates, embedding=embedding)
    return SeatTask("taboo", seat, GuessFeatures(candidates, cfg.max_turns), n_candidates, candidates=candidates,
                    delegate=speaker, combine=_combine, role="defender", lean_observation=True,
                    metric=("defender_score", _defender_score))
