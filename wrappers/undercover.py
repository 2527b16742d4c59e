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

from typing import Any, Sequence

import gymnasium
import numpy as np

from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.matching import mentions_word
from cluegym.envs.core.text import tokens
from cluegym.envs.undercover.rules import CIVILIAN, UndercoverConfig
from cluegym.wrappers.featurizers import Featurizer, standardize
from cluegym.wrappers.selfplay import SeatTask

__all__ = ["VoterFeatures", "DescriptionCandidates", "potential", "seat_task", "vote_accuracy", "seat_win_rate"]

_PER_PLAYER = 11
_CONTEXT = 4


def _unit(vec: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


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
        n, me = self.n, int(observation["player"])
        if len(observation["alive"]) != n:
            raise ValueError(f"observation has {len(observation['alive'])} players; features built for {n}")
        alive = np.asarray(observation["alive"], dtype=bool)
        others = alive.copy()
        others[me] = False
        own = self.words.vector(str(observation["word"]))
        vectors, table = self._table(observation, alive)
        fit_mean = np.array([float((v @ own).mean()) if len(v) else 0.0 for v in vectors])
        fit_last = np.array([float(v[-1] @ own) if len(v) else 0.0 for v in vectors])
        votes = np.asarray(observation["votes"])
        received = np.array([(votes == p).sum() for p in range(n)], dtype=float) / max(1, n)
        voted_me = np.array([float((votes[:, p] == me).any()) for p in range(n)])
        per = np.stack([
            alive.astype(float), (np.arange(n) == me).astype(float),
            fit_mean, standardize(fit_mean, others), fit_last, standardize(fit_last, others),
            table, standardize(table, others), np.minimum(received, 1.0), voted_me,
            np.full(n, float(len(vectors[me]) > 0)),
        ], axis=1)
        context = np.array([float(observation["round"]) / self.max_rounds, alive.mean(),
                            table[me], standardize(table, alive)[me]])
        return np.concatenate([per.ravel(), context])

    def _table(self, observation: dict[str, Any], alive: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """Each player's description vectors and their fit to the rest of the table. Every
        voter of a round reads the same descriptions, so the last result is shared (keyed by
        the embedding, the descriptions and who is alive) by every VoterFeatures."""
        global _LAST_TABLE
        n = self.n
        descriptions = tuple(tuple(str(text) for text in row) for row in observation["descriptions"])
        key = (self.words.embedding, n, descriptions, alive.tobytes())
        if _LAST_TABLE is not None and _LAST_TABLE[0] == key:
            return _LAST_TABLE[1]
        said = [[row[p] for row in observation["descriptions"] if row[p]] for p in range(n)]
        vectors = [self.words.matrix(texts) for texts in said]
        centroid_of = [_unit(v.mean(axis=0)) if len(v) else np.zeros(self.words.dim, np.float32) for v in vectors]
        table = np.zeros(n)
        for p in range(n):
            rest = [centroid_of[q] for q in range(n) if q != p and alive[q] and len(vectors[q])]
            if len(vectors[p]) and rest:
                table[p] = float(centroid_of[p] @ _unit(np.mean(rest, axis=0)))
        table.flags.writeable = False  # shared between calls: read only
        _LAST_TABLE = (key, (vectors, table))
        return vectors, table


#: The last :meth:`VoterFeatures._table` result, with its key.
_LAST_TABLE: tuple[tuple[Any, ...], tuple[list[np.ndarray], np.ndarray]] | None = None


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


def _is_vote(observation: dict[str, Any], info: dict[str, Any]) -> bool:
    return int(observation["phase"]) == 1


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
                    learner_acts=_is_vote, delegate=speaker, role="player",
                    metric=("vote_accuracy", lambda m, r: vote_accuracy(r, seat)))
