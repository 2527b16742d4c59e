"""Undercover for learners: a voter's features, the shaping potential, the seat task.

The learner task is the **vote** (``Discrete(num_players)``, masked to the living others);
the seat's speeches come from a delegate agent (the GloVe describer by default), so a trained
voter can be compared with a random voter that speaks the same way (the ``task-random`` agent).

Features per player (:class:`VoterFeatures`, laid out per choice for the shared-weight
scorer of :mod:`cluegym.training.policies`), over a word embedding:

- alive, and whether it is the learner itself;
- how well its descriptions fit the learner's own word: mean and latest similarity, raw and
  standardized over the living others;
- how well they fit the rest of the table: similarity of its descriptions to the centroid of
  the other living players' descriptions, raw and standardized (the odd one out);
- votes it has received so far and whether it voted for the learner;

plus context: the round, the share of players alive, and how well the learner's own
descriptions fit the table (a hint that the learner itself may be the odd one out).

Example:
    >>> env = SelfPlayEnv("undercover", "player_0", opponents={"*": "glove"})
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import gymnasium
import numpy as np

from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.matching import mentions_word
from cluegym.envs.core.text import tokens
from cluegym.envs.undercover.rules import CIVILIAN, UndercoverConfig
from cluegym.wrappers.featurizers import Featurizer, LastResult, standardize_list
from cluegym.wrappers.selfplay import SeatTask

__all__ = ["VoterFeatures", "DescriptionCandidates", "potential", "seat_task", "vote_accuracy", "seat_win_rate"]

_PER_PLAYER = 11
_CONTEXT = 4


def _table_fit(sums: np.ndarray, living: Sequence[bool]) -> list[float]:
    """Each speaker's fit to the rest of the living table: the cosine between its centroid
    (the mean of its description vectors) and the mean of the other living speakers' unit
    centroids; 0 for a speaker with nobody else living among the speakers, or whose vectors
    (or whose rest's) sum to zero.

    Args:
        sums: per speaker, the sum of its description vectors (float64).
        living: per speaker, whether it is alive.

    A cosine reads directions only, so every mean is a sum, and the rest of speaker ``p``
    is ``S - living[p] * c_p`` with ``c`` the unit centroids and ``S`` the living ones'
    sum. Its dot with ``c_p`` and its squared norm are then sums over the speakers' Gram
    matrix (one BLAS call on at most a handful of rows), worked out in plain floats.
    """
    gram = (sums @ sums.T).tolist()
    m = len(gram)
    inverse = [1.0 / math.sqrt(gram[i][i]) if gram[i][i] > 0 else 0.0 for i in range(m)]
    weights = [inverse[j] if living[j] else 0.0 for j in range(m)]
    # c_i . S for every speaker, and S . S.
    towards = [inverse[i] * sum(g * w for g, w in zip(gram[i], weights)) for i in range(m)]
    total = sum(towards[i] for i in range(m) if living[i])
    living_speakers = sum(1 for alive in living if alive)
    fit = [0.0] * m
    for p in range(m):
        if living_speakers - (1 if living[p] else 0) == 0:  # nobody else: no rest to fit
            continue
        own = gram[p][p] * inverse[p] * inverse[p] if living[p] else 0.0  # c_p . c_p (1, or 0 for a zero sum)
        dot = towards[p] - own
        square = total - 2.0 * (towards[p] if living[p] else 0.0) + own
        if square > 1e-12:  # a rest that sums to (about) zero has no direction: fit 0
            fit[p] = dot / math.sqrt(square)
    return fit


class VoterFeatures(Featurizer):
    """Per-player evidence for an Undercover vote (see the module docstring).

    Args:
        num_players: players at the table.
        max_rounds: the game's round limit.
        embedding: word embedding of the similarities.
    """

    def __init__(self, num_players: int = 5, max_rounds: int = 10, *, embedding: str = "glove") -> None:
        self.n, self.max_rounds = int(num_players), int(max_rounds)
        self.words = WordEncoder(embedding)
        self.per_choice = _PER_PLAYER
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(self.n * _PER_PLAYER + _CONTEXT,),
                                                      dtype=np.float32)

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        # A handful of players: plain Python floats (each step the same IEEE double operation
        # as numpy's) cost far less than numpy calls on 5-element arrays; the vector is rounded
        # to float32 once at the end, as the float64 layout it replaces was.
        n, me = self.n, int(observation["player"])
        if len(observation["alive"]) != n:
            raise ValueError(f"observation has {len(observation['alive'])} players; features built for {n}")
        alive = np.asarray(observation["alive"], dtype=bool)
        votes = np.asarray(observation["votes"])
        table = self._table(observation, alive, votes)
        word = str(observation["word"])
        fit = table.fits.get(word)
        if fit is None:  # the same for every voter of the round with this word
            fit = table.fits[word] = _fits(table, self.words.vector(word))
        fit_mean, fit_last = fit
        others = list(table.alive)
        others[me] = False
        fit_mean_z = standardize_list(fit_mean, others)
        fit_last_z = standardize_list(fit_last, others)
        table_z = standardize_list(table.fit, others)
        spoke = float(table.spans[me][1] > table.spans[me][0])
        values: list[float] = []
        for p in range(n):
            values += (table.alive[p], p == me, fit_mean[p], fit_mean_z[p], fit_last[p], fit_last_z[p],
                       table.fit[p], table_z[p], table.received[p], (p, me) in table.voted, spoke)
        values += (float(observation["round"]) / self.max_rounds, table.alive_share, table.fit[me],
                   table.fit_z_alive[me])
        return np.array(values, dtype=np.float32)

    def _table(self, observation: dict[str, Any], alive: np.ndarray, votes: np.ndarray) -> "_Round":
        """What every voter of a round reads alike: each player's description vectors, their
        fit to the rest of the table, the votes so far, and the fits per own word (filled by
        :meth:`features`). The last one is shared by every VoterFeatures (keyed by the
        embedding, the descriptions, who is alive and the votes)."""
        n = self.n
        # The env's rows are tuples already (then shared, not copied): the key compares them
        # as they are (a text compares equal to its str).
        descriptions = tuple(map(tuple, observation["descriptions"]))
        key = (self.words.embedding, n, descriptions, alive.tobytes(), votes.shape, votes.tobytes())
        kept = _LAST_TABLE.get(key)
        if kept is not None:
            return kept
        said = [[row[p] for row in descriptions if row[p]] for p in range(n)]
        living = alive.tolist()
        # Every description of the table in one matrix, speaker after speaker: spans[p] is
        # player p's (start, stop) rows in it.
        spans: list[tuple[int, int]] = []
        texts: list[str] = []
        for p in range(n):
            spans.append((len(texts), len(texts) + len(said[p])))
            texts += said[p]
        matrix = self.words.matrix(texts)
        fit = [0.0] * n
        speakers = [p for p in range(n) if said[p]]
        if speakers:
            sums = np.add.reduceat(matrix, [spans[p][0] for p in speakers], axis=0, dtype=np.float64)
            for p, value in zip(speakers, _table_fit(sums, [living[p] for p in speakers])):
                fit[p] = value
        received = [0] * n
        voted: set[tuple[int, int]] = set()
        for row in votes.tolist():
            for p, target in enumerate(row):
                if 0 <= target < n:  # -1: no vote (a round not played yet, a player out)
                    received[target] += 1
                    voted.add((p, target))
        # The votes a player received, over the players (1 at most); who voted whom at least once.
        shares = [min(count / max(1, n), 1.0) for count in received]
        return _LAST_TABLE.keep(key, _Round(matrix, spans, fit, living, sum(living) / n, standardize_list(fit, living),
                                            shares, voted, {}))


@dataclass
class _Round:
    """One round's table as every voter reads it (see :meth:`VoterFeatures._table`); read only."""

    matrix: np.ndarray  # every description's unit vector, player after player
    spans: list[tuple[int, int]]  # each player's (start, stop) rows of ``matrix``
    fit: list[float]  # each player's fit to the rest of the living table
    alive: list[bool]
    alive_share: float
    fit_z_alive: list[float]  # ``fit`` standardized over the living
    received: list[float]  # votes received over the players, at most 1
    voted: set[tuple[int, int]]  # (voter, target) of every vote so far (no -1s)
    fits: dict[str, tuple[list[float], list[float]]]  # own word -> (mean fit, latest fit) per player


def _fits(table: _Round, own: np.ndarray) -> tuple[list[float], list[float]]:
    """Each player's mean and latest similarity of its descriptions to ``own`` (0 without
    descriptions)."""
    similarities = (table.matrix @ own).tolist()
    fit_mean, fit_last = [0.0] * len(table.spans), [0.0] * len(table.spans)
    for p, (start, stop) in enumerate(table.spans):
        if stop > start:
            fit_mean[p] = sum(similarities[start:stop]) / (stop - start)
            fit_last[p] = similarities[stop - 1]
    return fit_mean, fit_last


#: The last :meth:`VoterFeatures._table` result, with its key.
_LAST_TABLE: LastResult[_Round] = LastResult()


class DescriptionCandidates:
    """Candidate descriptions for a speaker: the ``n`` words closest to its own word.

    Words come from the shipped game vocabularies (:func:`cluegym.agents.encoders.vocabulary.game_vocabulary`)
    or a given list; a word that says the speaker's own word (any inflection, the env's rule)
    or was already said in the game is skipped. Candidate ``i`` is the ``i``-th closest, so the
    index trades revealing for blending in. Deterministic given the observation.

    Use with :class:`~cluegym.wrappers.candidates.CandidateActions` and ``key="description"``.

    Args:
        n: number of candidates.
        embedding: word embedding ranking the words.
        vocabulary: words to describe with (None: the shipped game vocabularies).
    """

    def __init__(self, n: int = 8, *, embedding: str = "glove", vocabulary: Sequence[str] | None = None) -> None:
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        self.n = int(n)
        self.words = WordEncoder(embedding)
        self._vocabulary = list(vocabulary) if vocabulary is not None else None
        self._known: tuple[list[str], np.ndarray] | None = None

    def _vocab(self) -> tuple[list[str], np.ndarray]:
        if self._known is None:  # embedded once, on first use
            self._known = self.words.known_words(self._vocabulary)
        return self._known

    def __call__(self, observation: dict[str, Any], info: dict[str, Any]) -> list[str]:

        word = str(observation["word"])
        vocab, matrix = self._vocab()
        said = {t for row in observation["descriptions"] for text in row if text for t in tokens(text)}
        order = np.argsort(-(matrix @ self.words.vector(word)), kind="stable")
        out: list[str] = []
        for j in order:
            candidate = vocab[int(j)]
            if candidate in said or mentions_word(candidate, word) or mentions_word(word, candidate):
                continue
            out.append(candidate)
            if len(out) == self.n:
                break
        return out


def _is_vote(observation: dict[str, Any] | None, info: dict[str, Any]) -> bool:
    # The env's info names the phase (as its observation numbers it): no observation needed.
    phase = info.get("phase")
    return phase == "vote" if phase is not None else int(observation["phase"]) == 1  # type: ignore[index]


def _vote_action(index: int, observation: dict[str, Any], info: dict[str, Any], candidates: Any) -> int:
    return int(index)


def vote_accuracy(results: Sequence[dict[str, Any]], seat: str) -> float:
    """Share of ``seat``'s votes that went to a player of the other team."""
    hits = total = 0
    for result in results:
        roles = result["roles"]
        for round_ in result["history"]:
            target = round_["votes"].get(seat)
            if target is not None:
                total += 1
                hits += roles[target] != roles[seat]
    return hits / total if total else 0.0


def seat_win_rate(results: Sequence[dict[str, Any]], seat: str) -> float:
    """Share of games won by ``seat``'s team."""

    wins = [r["winner"] == ("civilians" if r["roles"][seat] == CIVILIAN else "undercover") for r in results]
    return float(np.mean(wins)) if wins else 0.0


def potential(raw_env: Any, seat: str) -> float:
    """``(opponents eliminated - own team eliminated) / players`` for the seat's (true) team."""
    state = raw_env.state
    me = raw_env.possible_agents.index(seat)
    mine = state.roles[me]
    out = [p for p, alive in enumerate(state.alive) if not alive]
    return (sum(state.roles[p] != mine for p in out) - sum(state.roles[p] == mine for p in out)) / len(state.alive)


def seat_task(seat: str, env: Any = None, *, embedding: str = "glove", speaker: str = "glove:infer=false") -> SeatTask:
    """The voter task of an Undercover seat (every seat has the same role: ``"player"``).

    Args:
        seat: ``player_<i>``.
        env: the raw Undercover env, for its sizes (None: the default game).
        embedding: word embedding of the features.
        speaker: agent spec giving the seat's descriptions (the delegate; default the GloVe
            describer without role inference, which is fast).
    """

    cfg = env.game_config if env is not None else UndercoverConfig()
    features = VoterFeatures(cfg.num_players, cfg.max_rounds, embedding=embedding)
    return SeatTask("undercover", seat, features, cfg.num_players, to_env_action=_vote_action,
                    learner_acts=_is_vote, learner_acts_from_info=True, delegate=speaker, role="player",
                    metric=("vote_accuracy", lambda m, r: vote_accuracy(r, seat)))
