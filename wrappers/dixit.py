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
    >>> from cluegym.wrappers.selfplay import SelfPlayEnv
    >>> env = SelfPlayEnv("dixit", "player_0", env_kwargs={"reveal_captions": True},
    ...                   opponents={"*": "caption"})
    >>> env.task.metric_name, env.action_space
    ('listener_accuracy', Discrete(4))
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, info["action_mask"]  # the candidates player_0 may vote for
    ((26,), array([ True,  True,  True, False]))
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import gymnasium
import numpy as np

from cluegym.agents.encoders.sentences import SentenceEncoder
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.dixit.rules import DixitConfig
from cluegym.wrappers.featurizers import Featurizer, LastResult, standardize_list
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
        # A handful of candidates: plain Python floats (each z-score step one IEEE double
        # operation, see standardize_list) cost far less than numpy calls on 4-6 values; the
        # vector is rounded to float32 once at the end.
        ids = observation["candidate_ids"]
        k = sum(1 for card in (ids.tolist() if isinstance(ids, np.ndarray) else ids) if card >= 0)
        values = [0.0] * (self.n * _PER_CARD)
        clue = str(observation["clue"])
        if k and clue:
            captions = [str(c) for c in list(observation["candidate_captions"])[:k]]
            mask = observation["card_mask"]
            legal = [bool(x) for x in (mask.tolist() if isinstance(mask, np.ndarray) else list(mask))[:k]]
            own = int(observation["own_candidate"])
            sentence, word = self._similarities(clue, captions)
            sentence_z, word_z = standardize_list(sentence, legal), standardize_list(word, legal)
            for i in range(k):
                values[i * _PER_CARD:(i + 1) * _PER_CARD] = (sentence[i], sentence_z[i], word[i], word_z[i],
                                                             i == own, legal[i])
        values += (float(observation["round"]) / self.num_rounds, k / self.n)
        return np.array(values, dtype=np.float32)

    def _similarities(self, clue: str, captions: list[str]) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The clue's MiniLM and word-embedding similarities to each caption (float32 values).

        Every listener of a round sees the same clue and candidates, so the last result is
        kept (keyed by the embedding, the clue and the captions) and the other listeners
        read it; only their own card and legal votes differ."""
        key = (self.words.source, clue, tuple(captions))
        kept = _LAST_SIMILARITIES.get(key)
        if kept is not None:
            return kept
        sentence = (self.sentences.matrix(captions) @ self.sentences.vector(clue)).astype(np.float32)
        word = (self.words.matrix(captions) @ self.words.vector(clue)).astype(np.float32)
        # float32 values as Python floats (exact), in tuples: read-only and shared.
        return _LAST_SIMILARITIES.keep(key, (tuple(sentence.tolist()), tuple(word.tolist())))


#: The last :meth:`ListenerFeatures._similarities` result, with its key.
_LAST_SIMILARITIES: LastResult[tuple[tuple[float, ...], tuple[float, ...]]] = LastResult()


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


def _seat_listener_accuracy(seat: str, metrics: dict[str, Any], results: Sequence[dict[str, Any]]) -> float:
    return listener_accuracy(results, seat)


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
                    delegate=player, role="player", lean_observation=True,  # captions, not images
                    metric=("listener_accuracy", functools.partial(_seat_listener_accuracy, seat)))
