"""Undercover's embedding baseline (no LLM): describe, infer the other word, vote.

One class plays every seat (:class:`EmbeddingUndercoverPlayer`); it sees what the seat sees
(its word, the public transcript) and never its role.

- **Describe**: a word sampled uniformly from the top-``k`` vocabulary neighbours of the
  word it describes (``k`` trades revealing for blending in, as K in Decrypto), never a word
  that says its own word (the env's rule), and never one already said in the game.
- **Infer teams, role and the other word** (CoMet's Belief Mapper / Self-Monitor, embedding
  version): each player who has spoken is the mean vector of its descriptions, itself is its
  word; the table is split into two teams of the known sizes so that each team is as tight as
  possible (see :meth:`EmbeddingUndercoverPlayer.beliefs`). In the smaller team it believes it
  is undercover; the other word is the neighbour of its own word closest to the other team.
- **Camouflage** (CoMet's strategy for the undercover): from round ``camouflage_round`` on,
  a player that believes it is undercover describes the civilians' word instead of its own,
  to blend in: its description is drawn from the neighbours of the other team's talk (the
  centroid of their descriptions), still never saying its own word.
- **Vote** for the living other player whose descriptions fit its own word least (mean
  cosine similarity). The same rule serves both roles: a civilian votes out an odd one, an
  undercover player votes out a civilian.
- **Beliefs**: with ``report_beliefs`` it attaches ``{"self", "others", "other_word"}`` to its
  actions, so the CoMet identity metrics (SIAA, OIAA) are measured for the baseline too.

From the command line::

    cluegym run undercover --agent '*=glove:k=8' --games 100

Example:
    >>> from cluegym.agents import run_match
    >>> summary = run_match("undercover", {"*": "glove:k=8"}, games=2, seed=0, progress=False)
    >>> summary["ok"], summary["metrics"]["avg_rounds"], summary["metrics"]["belief_reports"]
    (True, 2.5, 40)
"""

from __future__ import annotations

import functools
import itertools
import json
from typing import Any

import numpy as np

from cluegym.agents.embedding.common import EmbeddingAgent
from cluegym.agents.embedding.speech import SaidFilter, Vocabulary, says
from cluegym.agents.encoders.cache import LRUCache
from cluegym.agents.encoders.sentences import SpeechEncoder
from cluegym.envs.undercover.rules import SILENCE

#: :meth:`EmbeddingUndercoverPlayer._point` by (embedding, sentence model, descriptions).
_POINTS = LRUCache(4096)
#: A speaker's fit in :meth:`EmbeddingUndercoverPlayer._fits` by (embedding, sentence model,
#: descriptions, own word).
_FITS = LRUCache(8192)

#: The last descriptions table :meth:`EmbeddingUndercoverPlayer._said_by` read (hashable:
#: immutable all through), and what it read of it.
_SAID_BY: list[Any] = [None, None]

#: Said when no vocabulary word can describe the word (e.g. the embedding does not know it).
VAGUE_DESCRIPTION = "It is hard to put into words."


def _split_scores(points: np.ndarray, size: int) -> tuple[list[tuple[int, ...]], list[float]]:
    """Every split of the points' rows into ``size`` of them (a minority, in
    ``itertools.combinations`` order) and the rest, with its score ``|sum of the minority| +
    |sum of the rest|``: each bit for bit ``np.linalg.norm(points[mask].sum(axis=0)) +
    np.linalg.norm(points[~mask].sum(axis=0))``, computed for every split at once (the rows
    gathered in the same order and summed along the same kind of axis; each norm the square
    root of the row's dot product with itself, as ``norm`` takes it)."""
    splits, minority, rest = _splits(len(points), size)
    scores = _norms(points[minority].sum(axis=1)) + _norms(points[rest].sum(axis=1))
    return list(splits), scores.tolist()


@functools.lru_cache(maxsize=256)
def _splits(n: int, size: int) -> tuple[tuple[tuple[int, ...], ...], np.ndarray, np.ndarray]:
    """The splits of ``n`` rows into ``size`` of them (``itertools.combinations`` order) and
    the rest: the splits, and both sides as index arrays (read-only; kept: a table has a
    handful of sizes, and every belief of every player reads them)."""
    splits = tuple(itertools.combinations(range(n), size))
    minority = np.array(splits)
    rest = np.array([[i for i in range(n) if i not in split] for split in splits])
    minority.flags.writeable = rest.flags.writeable = False
    return splits, minority, rest


def _norms(rows: np.ndarray) -> np.ndarray:
    """Each row's 2-norm as ``np.linalg.norm(row)`` gives it: ``sqrt(row.dot(row))`` (matmul
    of a row by a column takes the same dot product)."""
    return np.sqrt(np.matmul(rows[:, np.newaxis, :], rows[:, :, np.newaxis])[:, 0, 0])


class EmbeddingUndercoverPlayer(EmbeddingAgent):
    """Any Undercover seat: describer, other-word inference, voter (see module docstring).

    Args:
        k: sample each description from this many nearest vocabulary words (larger: vaguer).
        infer: infer the other word and its own role (else always a civilian describer).
        camouflage_round: from this round (1-based) on, describe the inferred civilians'
            word when it believes it is undercover; 0 never camouflages.
        candidates: how many neighbours of its own word are candidates for the other word.
        vocab_size: vocabulary words considered (the embedding's most frequent ones).
        report_beliefs: attach belief reports to its actions.
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"`` (default: the registered name's).
    """

    games = ("undercover",)

    def __init__(self, game: str, seat: str, action_space: Any, *, k: int = 8, infer: bool = True,
                 camouflage_round: int = 2, candidates: int = 300, vocab_size: int = 20000,
                 report_beliefs: bool = True, embedding: str | None = None, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, embedding=embedding, seed=seed)
        if k < 1 or candidates < 1 or vocab_size < 10 or camouflage_round < 0:
            raise ValueError("k and candidates must be >= 1, vocab_size >= 10, camouflage_round >= 0")
        self.k, self.infer, self.camouflage_round = int(k), bool(infer), int(camouflage_round)
        self.num_candidates, self.report_beliefs = int(candidates), bool(report_beliefs)
        self.encoder = SpeechEncoder(self.vectors)
        self.vocab = Vocabulary.for_embedding(self.embedding, self.vectors, size=int(vocab_size))
        self.last_belief: dict[str, Any] | None = None
        #: The mean description vector of the team it is not in (set by :meth:`beliefs`).
        self.other_team_centroid: np.ndarray | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.last_belief, self.other_team_centroid = None, None

    # ------------------------------------------------------------- reading
    @staticmethod
    def _said_by(observation: dict[str, Any]) -> dict[int, list[str]]:
        """Each player's real descriptions so far (silences dropped). Shared: read it, do not
        change it (the last table's is kept: every player reads the same table at a step,
        once for its beliefs and once more for its vote)."""
        rows = observation["descriptions"]
        table = type(rows) is tuple  # the env's (an array or lists are read, never kept)
        if table:
            kept_rows, kept = _SAID_BY
            if kept is not None and (kept_rows is rows or kept_rows == rows):
                return kept
        out: dict[int, list[str]] = {}
        for row in rows:
            for player, text in enumerate(row):
                if text and text != SILENCE:
                    out.setdefault(player, []).append(str(text))
        if table:
            try:
                hash(rows)  # kept only when nothing in it can change (no lists inside)
            except TypeError:
                return out
            _SAID_BY[:] = [rows, out]
        return out

    def _fits(self, said: dict[int, list[str]], me: int, word: str) -> dict[int, float]:
        """Mean cosine similarity of each other player's descriptions to ``word``'s vector.

        Each speaker's fit is kept per process (:data:`_FITS`): the players who share a word
        (the civilians) vote on the same descriptions, so all but the first of them read it."""
        source = (self.vectors.source, self.encoder.sentences is not None)
        vector: np.ndarray | None = None
        fits: dict[int, float] = {}
        for p, texts in said.items():
            if p == me:
                continue
            key = (*source, tuple(texts), word)
            fit = _FITS.get(key)
            if fit is None:
                if vector is None:
                    vector = self.encoder.word(word)
                fit = float(np.mean(self.encoder.texts(texts) @ vector))
                _FITS.put(key, fit)
            fits[p] = fit
        return fits

    def beliefs(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        """Infer teammates, own role and the other word from the transcript (None: no data yet).

        Every player who has spoken is a point (the mean of its description vectors; this
        player's point is its own word). The points are split into the two teams with the
        known sizes (civilians, undercover) so that each team is as tight as possible: the
        split maximizing ``|sum of team A| + |sum of team B|`` over unit vectors (the summed
        cosine similarity of members to their team's centroid). Its own team's size gives its
        role; the other word is the neighbour of its own word closest to the other team's
        centroid, among words nobody has said.
        """
        me, word = int(observation["player"]), str(observation["word"])
        said = {p: t for p, t in self._said_by(observation).items() if p != me}
        own = self.encoder.word(word)
        self.other_team_centroid = None
        if not said or not own.any():
            return None
        players = [me, *sorted(said)]
        # np.stack's rows (one dtype and length), without its Python-level checks
        points = np.array([own, *[self._point(said[p]) for p in players[1:]]])
        civilians, undercover = (int(x) for x in observation["team_sizes"])
        best: tuple[float, tuple[int, ...]] | None = None
        n = len(players)
        for size in range(1, undercover + 1):
            if n - size > civilians or size > n - 1:
                continue
            splits, scores = _split_scores(points, size)
            for minority, score in zip(splits, scores):
                # prefer complete teams: a split of the full table beats a partial one
                if best is None or score > best[0] + 1e-9:
                    best = (score, minority)
        if best is None:
            return None
        minority = set(best[1])
        mine = [i for i in range(n) if (i in minority) == (0 in minority)]
        other_team = [i for i in range(n) if i not in mine]
        me_undercover = 0 in minority and len(minority) < n - len(minority)
        teammates = {players[i] for i in mine if i != 0}
        other, self.other_team_centroid = None, None
        if other_team:
            centroid = self._unit(points[other_team].sum(axis=0))
            self.other_team_centroid = centroid
            excluded = SaidFilter([word, *(t for texts in said.values() for t in texts)])
            pool = self.vocab.unsaid_neighbours(own, self.num_candidates, word, excluded)
            if pool:
                # matrix[pool]'s rows, gathered from an index array (a list index costs twice)
                sims = self.vocab.matrix.take(np.array(pool, dtype=np.intp), axis=0) @ centroid
                other = self.vocab.words[pool[int(np.argmax(sims))]]
        belief: dict[str, Any] = {
            "self": "undercover" if me_undercover else "civilian",
            "others": {str(p): ("teammate" if p in teammates else "opponent") for p in players[1:]},
        }
        if other is not None:
            belief["other_word"] = other
        return belief

    def _point(self, texts: list[str]) -> np.ndarray:
        """A speaker's point: the unit mean of its description vectors (read-only; kept per
        process: every player's beliefs read every other speaker's point at every turn)."""
        key = (self.vectors.source, self.encoder.sentences is not None, tuple(texts))
        point = _POINTS.get(key)
        if point is None:
            point = self._unit(self.encoder.texts(texts).mean(axis=0))
            point.flags.writeable = False
            _POINTS.put(key, point)
        return point

    @staticmethod
    def _unit(v: np.ndarray) -> np.ndarray:
        flat = v.ravel(order="K")
        n = float(np.sqrt(flat.dot(flat)))  # np.linalg.norm(v)'s own steps, without its dispatch
        return v / n if n > 0 else v

    # ---------------------------------------------------------------- acting
    def describe(self, observation: dict[str, Any], belief: dict[str, Any] | None) -> str:
        """One description of its word, or, when camouflaging, of what the other team talks
        about (the centroid of its descriptions: the civilians' word as they describe it)."""
        word = str(observation["word"])
        round_number = int(observation["round"]) + 1
        subject = self.encoder.word(word)
        if (belief is not None and belief["self"] == "undercover" and self.other_team_centroid is not None
                and self.camouflage_round and round_number >= self.camouflage_round):
            subject = self.other_team_centroid
        said = SaidFilter([word, *(t for row in observation["descriptions"] for t in row if t)])
        pool = self.vocab.neighbours(subject, self.k, exclude=lambda w: said(w) or says(w, word))
        if not pool:
            return VAGUE_DESCRIPTION
        return pool[int(self.rng.integers(len(pool)))]

    def vote(self, observation: dict[str, Any]) -> int:
        """The living other player whose descriptions fit its own word least."""
        me = int(observation["player"])
        mask = np.asarray(observation["vote_mask"], dtype=bool)
        legal = [int(p) for p in np.flatnonzero(mask)]
        fits = self._fits(self._said_by(observation), me, str(observation["word"]))
        # Tiny noise breaks ties at random; a player who said nothing fits nothing (0).
        scores = [fits.get(p, 0.0) + float(self.rng.normal(0.0, 1e-6)) for p in legal]
        return legal[int(np.argmin(scores))]

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        belief = self.beliefs(observation) if self.infer else None
        self.last_belief = belief
        phase = int(observation["phase"])
        action: dict[str, Any] = {"description": "", "vote": 0, "beliefs": ""}
        if phase == 0:
            action["description"] = self.describe(observation, belief)
        else:
            action["vote"] = self.vote(observation)
        if self.report_beliefs and belief is not None:
            action["beliefs"] = json.dumps(belief)
        return action


def agent_class(seat: str) -> type[EmbeddingAgent]:
    """The baseline class for an Undercover seat (the same for every seat)."""
    if not seat.startswith("player_"):
        raise ValueError(f"undercover seats are player_0, player_1, ...; got {seat!r}")
    return EmbeddingUndercoverPlayer
