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
    >>> from cluegym.wrappers.selfplay import SelfPlayEnv
    >>> env = SelfPlayEnv("undercover", "player_0", opponents={"*": "glove"})
    >>> env.observation_space, env.action_space  # 11 features per player and 4 of context
    (Box(-1.0, 1.0, (59,), float32), Discrete(5))
    >>> observation, info = env.reset(seed=0)
    >>> info["action_mask"]  # a vote for any living player but itself
    array([False,  True,  True,  True,  True])
"""

from __future__ import annotations

import functools
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
from cluegym.wrappers.similarity import dots_numpy
from cluegym.wrappers.text_rows import TextRows

try:
    import cython
except ImportError:  # no Cython at run time: the declarations do nothing
    from cluegym.envs.core import cython_fallback as cython

if not cython.compiled:  # the build cimports the C loops (undercover.pxd)
    from cluegym.wrappers.similarity import clipped, dot, widened_and_centres

__all__ = ["VoterFeatures", "DescriptionCandidates", "potential", "seat_task", "vote_accuracy", "seat_win_rate"]

_PER_PLAYER = 11
_CONTEXT = 4
#: Own words whose vectors a VoterFeatures keeps (the game's word pairs are a few hundred).
_TARGETS_KEPT = 4096


def _table_fit(sums: np.ndarray, living: list[bool]) -> list[float]:
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
    matrix (one BLAS call on at most a handful of rows), worked out in plain floats (C
    doubles in the build: undercover.pxd types the loops).
    """
    gram = _gram(sums)
    m = len(gram)
    inverse = [0.0] * m  # 1 / |sum| per speaker (0 for a zero sum)
    for i in range(m):
        square = gram[i][i]
        inverse[i] = 1.0 / math.sqrt(square) if square > 0 else 0.0
    # c_i . S for every speaker (left to right, as a sum of products), and S . S.
    towards = [0.0] * m
    total = 0.0
    living_speakers = 0
    for i in range(m):
        row = gram[i]
        dot = 0.0
        for j in range(m):
            dot += row[j] * (inverse[j] if living[j] else 0.0)
        towards[i] = inverse[i] * dot
        if living[i]:
            total += towards[i]
            living_speakers += 1
    fit = [0.0] * m
    for p in range(m):
        alive = bool(living[p])
        if living_speakers - alive == 0:  # nobody else: no rest to fit
            continue
        own = gram[p][p] * inverse[p] * inverse[p] if alive else 0.0  # c_p . c_p (1, or 0 for a zero sum)
        dot = towards[p] - own
        square = total - 2.0 * (towards[p] if alive else 0.0) + own
        if square > 1e-12:  # a rest that sums to (about) zero has no direction: fit 0
            fit[p] = dot / math.sqrt(square)
    return fit


def _gram(sums: np.ndarray) -> list[list[float]]:
    """The speakers' Gram matrix (float64 ``sums``, one row a speaker): each pair's dot product
    as :mod:`cluegym.wrappers.similarity` defines it (double products, numpy's pairwise sum),
    as lists (C loops in the build, numpy's calls as Python: the same values)."""
    if not cython.compiled:
        return dots_numpy(sums, sums).tolist()
    rows = np.ascontiguousarray(sums, dtype=np.float64)
    view = rows
    m, dim = rows.shape[0], rows.shape[1]
    gram = []
    if m == 0:
        return gram
    data = cython.address(view[0, 0])
    for i in range(m):
        row = []
        for j in range(m):
            row.append(dot(data, i * dim, data, j * dim, dim))
        gram.append(row)
    return gram


def _similarities(matrix: np.ndarray, vector: np.ndarray) -> list[float]:
    """Each row of ``matrix``'s similarity to ``vector`` (unit vectors, float32 values
    widened to double; the rows C-contiguous), rounded to float32
    (:mod:`cluegym.wrappers.similarity`), as Python floats.

    Raises:
        ValueError: ``vector`` is not one row of ``matrix``'s width (the build's loop reads
            ``matrix``'s width of it through a raw pointer).
    """
    if np.shape(vector) != (matrix.shape[1],):
        raise ValueError(f"vector of shape {np.shape(vector)} for rows of width {matrix.shape[1]}")
    if not cython.compiled or matrix.shape[0] == 0:
        return dots_numpy(matrix, vector[np.newaxis]).astype(np.float32)[:, 0].tolist()
    rows, target = matrix, np.ascontiguousarray(vector, dtype=np.float64)  # no copy when double already
    dim = matrix.shape[1]
    data, word = cython.address(rows[0, 0]), cython.address(target[0])
    out = []
    for i in range(matrix.shape[0]):
        out.append(cython.cast(cython.float, dot(data, i * dim, word, 0, dim)))
    return out


class VoterFeatures(Featurizer):
    """Per-player evidence for an Undercover vote (see the module docstring).

    Args:
        num_players: players at the table.
        max_rounds: the game's round limit.
        embedding: word embedding of the similarities.
    """

    #: :meth:`features` returns the vector in the Box (clipped): ``__call__`` hands it on.
    bounded = True

    def __init__(self, num_players: int = 5, max_rounds: int = 10, *, embedding: str = "glove") -> None:
        self.n, self.max_rounds = int(num_players), int(max_rounds)
        self.words = WordEncoder(embedding)
        self.rows = TextRows.of(self.words)
        # Own word -> its vector widened to double (exact): a game's few words, asked again
        # at every table (bounded: cleared when full).
        self._targets: dict[str, np.ndarray] = {}
        self.per_choice = _PER_PLAYER
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(self.n * _PER_PLAYER + _CONTEXT,),
                                                      dtype=np.float32)

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        n, me = self.n, int(observation["player"])
        shown = observation["descriptions"], observation["alive"], observation["votes"]
        seen = _LAST_SEEN
        if (seen.table is not None and seen.descriptions is shown[0] and seen.alive is shown[1]
                and seen.votes is shown[2] and seen.embedding == self.words.embedding and seen.n == n):
            table = seen.table  # the objects the table was built from, unchanged (frozen)
        else:
            if len(shown[1]) != n:
                raise ValueError(f"observation has {len(shown[1])} players; features built for {n}")
            table = self._table(observation, np.asarray(shown[1], dtype=bool), np.asarray(shown[2]))
            seen.remember(self.words.embedding, n, shown, table)
        word = str(observation["word"])
        fit = table.fits.get(word)
        if fit is None:  # the same for every voter of the round with this word
            target = self._targets.get(word)
            if target is None:
                if len(self._targets) >= _TARGETS_KEPT:
                    self._targets.clear()
                target = self._targets[word] = self.words.vector(word).astype(np.float64)
            fit = table.fits[word] = _fits(_similarities(table.matrix, target), table.spans)
        return _voter_vector(table, fit[0], fit[1], me, float(observation["round"]) / self.max_rounds)

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
        return _LAST_TABLE.keep(key, _round_table(descriptions, n, alive.tolist(), votes.tolist(), self.rows,
                                                  self.words.dim))


def _round_table(descriptions: tuple, n: int, living: list, votes: list, rows: TextRows, dim: int) -> _Round:
    """:meth:`VoterFeatures._table`'s table of ``descriptions`` (rows of ``n`` texts, ``""``
    where nobody spoke), ``living`` (per player) and ``votes`` (rows of targets, -1 for none),
    the vectors from ``rows`` (``dim`` wide). Loops over C indices in the build."""
    # Every description of the table in one matrix, speaker after speaker: spans[p] is
    # player p's (start, stop) rows in it; starts, the speakers' starts then the end.
    spans: list[tuple[int, int]] = []
    texts: list[str] = []
    speakers: list[int] = []
    starts: list[int] = []
    for p in range(n):
        start = len(texts)
        for row in descriptions:
            text = row[p]
            if text:
                texts.append(text)
        if len(texts) > start:
            speakers.append(p)
            starts.append(start)
        spans.append((start, len(texts)))
    starts.append(len(texts))
    # The rows are looked up first (the lookup may grow the matrix), then read.
    found = rows.rows(texts)
    matrix, sums, _ = widened_and_centres(rows.matrix, found, starts)
    fit = [0.0] * n
    if speakers:
        fits = _table_fit(sums, [living[p] for p in speakers])
        for i in range(len(speakers)):
            fit[speakers[i]] = fits[i]
    received = [0] * n
    voted = [False] * (n * n)  # voted[voter * n + target]: that vote was cast at least once
    for row in votes:
        for p in range(len(row)):
            target = row[p]
            if 0 <= target < n:  # -1: no vote (a round not played yet, a player out)
                received[target] += 1
                voted[p * n + target] = True
    # The votes a player received, over the players (1 at most).
    shares = [min(count / max(1, n), 1.0) for count in received]
    return _Round(matrix, spans, fit, living, sum(living) / n, standardize_list(fit, living), shares, voted, {})


@dataclass
class _Round:
    """One round's table as every voter reads it (see :meth:`VoterFeatures._table`); read only."""

    matrix: np.ndarray  # every description's unit vector (in double), player after player
    spans: list[tuple[int, int]]  # each player's (start, stop) rows of ``matrix``
    fit: list[float]  # each player's fit to the rest of the living table
    alive: list[bool]
    alive_share: float
    fit_z_alive: list[float]  # ``fit`` standardized over the living
    received: list[float]  # votes received over the players, at most 1
    voted: list[bool]  # voted[voter * n + target]: that vote was cast so far
    fits: dict[str, tuple[list[float], list[float]]]  # own word -> (mean fit, latest fit) per player


def _fits(similarities: list[float], spans: list[tuple[int, int]]) -> tuple[list[float], list[float]]:
    """Each player's mean and latest similarity of its descriptions to the own word (0
    without descriptions), from every description's similarity (``spans`` as in
    :class:`_Round`)."""
    m = len(spans)
    fit_mean, fit_last = [0.0] * m, [0.0] * m
    for p in range(m):
        start, stop = spans[p]
        if stop > start:
            total = 0.0
            for row in range(start, stop):
                total += similarities[row]
            fit_mean[p] = total / (stop - start)
            fit_last[p] = similarities[stop - 1]
    return fit_mean, fit_last


def _voter_vector(table: _Round, fit_mean: list[float], fit_last: list[float], me: int,
                  round_share: float) -> np.ndarray:
    """The voter's feature vector (the module docstring's layout): per player, alive, is the
    voter, mean and latest fit to the own word (raw and standardized over the living
    others), fit to the rest of the table (raw and standardized), votes received, voted for
    the voter, whether the voter has spoken; then the context. Written straight into the
    float32 vector (each value clipped to ``[-1, 1]`` and rounded once, as ``np.array(values,
    dtype=np.float32)`` then the Box's clip did)."""
    n = len(table.alive)
    others = list(table.alive)
    others[me] = False
    fit_mean_z = standardize_list(fit_mean, others)
    fit_last_z = standardize_list(fit_last, others)
    table_fit = table.fit
    table_z = standardize_list(table_fit, others)
    alive, received, voted = table.alive, table.received, table.voted
    start, stop = table.spans[me]
    spoke = 1.0 if stop > start else 0.0
    vector = np.empty(n * _PER_PLAYER + _CONTEXT, dtype=np.float32)
    out = vector  # a typed float32 view of it in the build (undercover.pxd)
    k = 0
    for p in range(n):
        out[k] = 1.0 if alive[p] else 0.0
        out[k + 1] = 1.0 if p == me else 0.0
        out[k + 2] = clipped(fit_mean[p])
        out[k + 3] = clipped(fit_mean_z[p])
        out[k + 4] = clipped(fit_last[p])
        out[k + 5] = clipped(fit_last_z[p])
        out[k + 6] = clipped(table_fit[p])
        out[k + 7] = clipped(table_z[p])
        out[k + 8] = clipped(received[p])
        out[k + 9] = 1.0 if voted[p * n + me] else 0.0
        out[k + 10] = spoke
        k += _PER_PLAYER
    out[k] = clipped(round_share)
    out[k + 1] = clipped(table.alive_share)
    out[k + 2] = clipped(table_fit[me])
    out[k + 3] = clipped(table.fit_z_alive[me])
    return vector


#: The last :meth:`VoterFeatures._table` result, with its key.
_LAST_TABLE: LastResult[_Round] = LastResult()


def _frozen(value: Any) -> bool:
    """Whether ``value`` cannot change: a read-only array that owns its data, or a tuple of
    str / tuples of str (the env's observation parts; see ``envs/undercover/view.py``)."""
    if type(value) is np.ndarray:
        return value.base is None and not value.flags.writeable
    if type(value) is not tuple:
        return False
    for row in value:
        if type(row) is tuple:
            for text in row:
                if type(text) is not str:
                    return False
        elif type(row) is not str:
            return False
    return True


class _SeenTable:
    """The objects the last table was built from, held (so their identities stay theirs).

    The env hands every voter of a round the same read-only arrays and tuples of its public
    view (made anew when what they show changes), so the next voter's parts are most often
    the very same objects: then the table is this one, without building and comparing
    :meth:`VoterFeatures._table`'s key (about as much work as the rest of a vote's
    features). Only parts that cannot change are remembered (:func:`_frozen`)."""

    __slots__ = ("embedding", "n", "descriptions", "alive", "votes", "table")

    def __init__(self) -> None:
        self.embedding: str | None = None
        self.n = 0
        self.descriptions: Any = None
        self.alive: Any = None
        self.votes: Any = None
        self.table: _Round | None = None

    def remember(self, embedding: str, n: int, shown: tuple[Any, Any, Any], table: _Round) -> None:
        if _frozen(shown[0]) and _frozen(shown[1]) and _frozen(shown[2]):
            self.embedding, self.n, self.table = embedding, n, table
            self.descriptions, self.alive, self.votes = shown
        else:
            self.table = self.descriptions = self.alive = self.votes = None


_LAST_SEEN = _SeenTable()


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


def _seat_vote_accuracy(seat: str, metrics: dict[str, Any], results: Sequence[dict[str, Any]]) -> float:
    return vote_accuracy(results, seat)


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
                    lean_observation=True,
                    metric=("vote_accuracy", functools.partial(_seat_vote_accuracy, seat)))
