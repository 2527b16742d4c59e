"""Dixit for learners: a listener's caption features, the shaping potential, the seat task.

The learner task is the **listener's vote**: pick the storyteller's card among the candidates
(``Discrete(max(hand_size, players))``, masked to the candidates other than one's own). The
seat's other decisions (telling a story, playing a distractor) come from a delegate agent
(the ``caption`` baseline by default). The features need the game option
``reveal_captions=True`` (the cards' captions in the observation; no joint image-text model is
packaged, so the clue is matched to the candidates through their captions).

Features per candidate (:class:`ListenerFeatures`, laid out per choice for the shared-weight
scorer of :mod:`cluegym.training.policies`): MiniLM sentence similarity of the clue to the
caption and GloVe similarity of their words, each raw and standardized over the votable
candidates; whether it is the learner's own card; whether it may be voted for. Context: the
round and the number of candidates.

Example:
    >>> env = SelfPlayEnv("dixit", "player_0", env_kwargs={"reveal_captions": True},
    ...                   opponents={"*": "caption"})
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np

from cluegym.agents.encoders.sentences import SentenceEncoder
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.dixit.rules import DixitConfig
from cluegym.wrappers.featurizers import Featurizer, LastResult, standardize
from cluegym.wrappers.selfplay import SeatTask

__all__ = ["ListenerFeatures", "potential", "seat_task", "listener_accuracy"]

_PER_CARD = 6
_CONTEXT = 2


class ListenerFeatures(Featurizer):
    """Clue-caption evidence per candidate card (see the module docstring).

    Args:
        n_choices: size of the card action (``max(hand_size, players)``).
        num_rounds: the game's rounds (to scale the round).
        embedding: word embedding of the word-level similarity.
    """

    def __init__(self, n_choices: int = 4, num_rounds: int = 24, *, embedding: str = "glove") -> None:
        self.n, self.num_rounds = int(n_choices), max(1, int(num_rounds))
        self.sentences = SentenceEncoder()
        self.words = WordEncoder(embedding)
        self.per_choice = _PER_CARD
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(self.n * _PER_CARD + _CONTEXT,),
                                                      dtype=np.float32)

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None = None) -> np.ndarray:
        if "candidate_captions" not in observation:
            raise ValueError("Dixit listener features need the game option reveal_captions=True")
        ids = np.asarray(observation["candidate_ids"])
        present = ids >= 0
        k = int(present.sum())
        per = np.zeros((self.n, _PER_CARD), dtype=np.float32)
        clue = str(observation["clue"])
        if k and clue:
            captions = [str(c) for c in list(observation["candidate_captions"])[:k]]
            legal = np.asarray(observation["card_mask"], dtype=bool)[:k]
            own = np.zeros(k, dtype=bool)
            if int(observation["own_candidate"]) >= 0:
                own[int(observation["own_candidate"])] = True
            sentence, word = self._similarities(clue, captions)
            for column, value in enumerate((sentence, standardize(sentence, legal), word, standardize(word, legal),
                                            own, legal)):
                per[:k, column] = value
        context = np.array([float(observation["round"]) / self.num_rounds, k / self.n], dtype=np.float32)
        return np.concatenate([per.ravel(), context])

    def _similarities(self, clue: str, captions: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The clue's MiniLM and word-embedding similarities to each caption (read-only).

        Every listener of a round sees the same clue and candidates, so the last result is
        kept (keyed by the embedding, the clue and the captions) and the other listeners
        read it; only their own card and legal votes differ."""
        key = (self.words.source, clue, tuple(captions))
        kept = _LAST_SIMILARITIES.get(key)
        if kept is not None:
            return kept
        sentence = (self.sentences.matrix(captions) @ self.sentences.vector(clue)).astype(np.float32)
        word = (self.words.matrix(captions) @ self.words.vector(clue)).astype(np.float32)
        sentence.flags.writeable = word.flags.writeable = False
        return _LAST_SIMILARITIES.keep(key, (sentence, word))


#: The last :meth:`ListenerFeatures._similarities` result, with its key.
_LAST_SIMILARITIES: LastResult[tuple[np.ndarray, np.ndarray]] = LastResult()


def _is_vote(observation: dict[str, Any] | None, info: dict[str, Any]) -> bool:
    # The env's info names the phase (as its observation numbers it): no observation needed.
    phase = info.get("phase")
    return phase == "vote" if phase is not None else int(observation["phase"]) == 2  # type: ignore[index]


def _card_action(index: int, observation: dict[str, Any], info: dict[str, Any], candidates: Any) -> dict[str, Any]:
    return {"card": int(index)}


def listener_accuracy(results: Sequence[dict[str, Any]], seat: str) -> float:
    """Share of ``seat``'s listener votes that found the storyteller's card."""
    p = int(seat.rsplit("_", 1)[1])
    hits = [r["votes"][p] == r["target"] for result in results for r in result["rounds"] if r["storyteller"] != p]
    return float(np.mean(hits)) if hits else 0.0


def potential(raw_env: Any, seat: str) -> float:
    """The seat's score minus the others' mean, over the most a player can score (3 a round)."""
    scores = np.asarray(raw_env.state.scores, dtype=float)
    p = raw_env.possible_agents.index(seat)
    others = np.delete(scores, p)
    return float(scores[p] - others.mean()) / (3.0 * raw_env.game_config.num_rounds)


def seat_task(seat: str, env: Any = None, *, embedding: str = "glove", player: str = "caption") -> SeatTask:
    """The listener task of a Dixit seat (every seat has the same role: ``"player"``).

    Args:
        seat: ``player_<i>``.
        env: the raw Dixit env, for its sizes (None: the default game).
        embedding: word embedding of the word-level similarity.
        player: agent spec for the seat's story and distractor decisions (the delegate).
    """

    cfg = env.game_config if env is not None else DixitConfig()
    n_choices = max(cfg.hand_size, cfg.num_players)
    features = ListenerFeatures(n_choices, cfg.num_rounds, embedding=embedding)
    return SeatTask("dixit", seat, features, n_choices, to_env_action=_card_action, learner_acts=_is_vote,
                    learner_acts_from_info=True,
                    delegate=player, role="player",
                    metric=("listener_accuracy", lambda m, r: listener_accuracy(r, seat)))
