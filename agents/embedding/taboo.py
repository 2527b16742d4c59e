"""Adversarial Taboo's embedding baselines (no LLM).

- :class:`EmbeddingTabooAttacker`: each turn, a sentence built from ``words_per_turn``
  unused vocabulary neighbours of the target, never the target or a derivative of it (nor a
  word containing it). It steers from broad to specific: turn ``t`` of ``T`` draws from the
  neighbours ranked around ``k * (T - 1 - t) / T`` among the top ``k``, so the last turns
  use the closest words.
- :class:`EmbeddingTabooDefender`: scores every candidate word by cosine similarity to the
  attacker's utterances (later utterances weigh more) and guesses the best one when its
  margin over the runner-up reaches ``threshold`` and (with ``stable``, CoMet's defender
  rule) it was also the best candidate on its previous turn; otherwise it answers on topic with words
  near the conversation that are *not* among its ``avoid`` best candidates, so that it does
  not say the word it suspects. Candidates: the open vocabulary's nouns (default), every
  vocabulary word, or a closed list (``candidates=targets`` for the shipped target nouns, or
  a word-list path).

From the command line::

    cluegym run taboo --agent attacker=glove:k=30 --agent defender=glove:threshold=0.04

Example:
    >>> from cluegym.agents import run_match
    >>> summary = run_match("taboo", {"attacker": "glove:k=30", "defender": "glove:threshold=0.04"},
    ...                     games=2, seed=0, progress=False)
    >>> summary["ok"], summary["metrics"]["avg_turns"], summary["metrics"]["guess_rate"]
    (True, 10.0, 0.5)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cluegym.agents.embedding.common import EmbeddingAgent
from cluegym.agents.embedding.speech import SaidFilter, Vocabulary, says
from cluegym.agents.encoders.sentences import SpeechEncoder
from cluegym.agents.encoders.vocabulary import top_order
from cluegym.envs.core.data import word_list_option
from cluegym.envs.core.matching import says_word
from cluegym.envs.taboo.rules import SILENCE

#: Sentence frames for the attacker; ``{words}`` is "a, b and c". None names a likely target.
ATTACKER_FRAMES: tuple[str, ...] = (
    "I keep thinking about {words}.",
    "Lately I have been reading about {words}.",
    "My neighbour talks a lot about {words}.",
    "Picture {words} for a moment.",
    "Yesterday my mind kept drifting to {words}.",
    "What comes to mind when you hear {words}?",
)
#: Reply frames for the defender's on-topic answers.
DEFENDER_FRAMES: tuple[str, ...] = (
    "That makes me think of {words}.",
    "I would say it has to do with {words}.",
    "Interesting, it reminds me of {words}.",
    "Hmm, {words} come to mind.",
)
#: Said with a guess (no content, so it cannot say the word by accident).
GUESS_UTTERANCE = "I think I know it."
#: Most best candidates a defender's ``avoid`` may keep out of its answers.
MAX_AVOID = 100


def join_words(words: list[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


class EmbeddingTabooAttacker(EmbeddingAgent):
    """The attacker: sentences from the target's neighbours (see module docstring).

    Args:
        k: neighbours of the target to draw from over the game.
        words_per_turn: neighbours per sentence.
        vocab_size: vocabulary words considered (the embedding's most frequent ones).
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"`` (default: the registered name's).
    """

    games = ("taboo",)

    def __init__(self, game: str, seat: str, action_space: Any, *, k: int = 30, words_per_turn: int = 3,
                 vocab_size: int = 20000, embedding: str | None = None, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, embedding=embedding, seed=seed)
        if k < 1 or words_per_turn < 1 or vocab_size < 10:
            raise ValueError("k and words_per_turn must be >= 1 and vocab_size >= 10")
        self.k, self.words_per_turn = int(k), int(words_per_turn)
        self.encoder = SpeechEncoder(self.vectors)
        self.vocab = Vocabulary.for_embedding(self.embedding, self.vectors, size=int(vocab_size))
        #: The neighbours used in the last utterance.
        self.last_words: list[str] = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, str]:
        target = str(observation["target"])
        dialogue = [str(t) for t in observation["dialogue"] if t]
        turns = len(observation["dialogue"]) // 2
        turn = int(observation["turn"])
        said = SaidFilter([target, *dialogue])
        # Strict check on the words: no derivative and no word containing the target.
        pool = self.vocab.neighbours(
            self.encoder.word(target), self.k, exclude=lambda w: said(w) or says(w, target, True)
        )
        if not pool:
            return {"utterance": "Let us talk about something we both know well."}
        n = min(self.words_per_turn, len(pool))
        start = int(len(pool) * (turns - 1 - turn) / max(turns, 1))
        start = max(0, min(start, len(pool) - n))
        window = pool[start : start + 2 * n]
        picks = [window[int(i)] for i in sorted(self.rng.choice(len(window), size=n, replace=False))]
        self.last_words = picks
        frames = list(ATTACKER_FRAMES)
        first = int(self.rng.integers(len(frames)))
        for frame in frames[first:] + frames[:first]:
            sentence = frame.format(words=join_words(picks))
            if not says_word(sentence, target, strict=True):
                return {"utterance": sentence}
        return {"utterance": join_words(picks) + "."}


class EmbeddingTabooDefender(EmbeddingAgent):
    """The defender: nearest word to the attacker's talk, guessed when confident.

    Args:
        threshold: guess when the best candidate's cosine similarity beats the runner-up's
            by at least this margin (larger: more cautious).
        avoid: in an on-topic answer, never use its this-many best candidates (1-100).
        candidates: ``"nouns"`` (default: the open vocabulary's WordNet nouns, as targets are
            common nouns), ``"vocabulary"`` (every vocabulary word), ``"targets"`` (the
            shipped target list: a closed-set defender), or a path to a word list.
        stable: guess only a candidate that was already the best one on the previous turn
            (CoMet's defender prompt: "apply for guessing if you suspect the same word in both
            this round and the last round").
        guess_on_last_turn: guess the best candidate on the last turn whatever the margin
            (a wrong guess loses, no guess draws).
        vocab_size: vocabulary words considered (the embedding's most frequent ones).
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"`` (default: the registered name's).
    """

    games = ("taboo",)

    def __init__(self, game: str, seat: str, action_space: Any, *, threshold: float = 0.04, avoid: int = 10,
                 candidates: str = "nouns", stable: bool = True, guess_on_last_turn: bool = False,
                 vocab_size: int = 20000,
                 embedding: str | None = None, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, embedding=embedding, seed=seed)
        # avoid is bounded: every reply checks each vocabulary word against the suspects, so
        # the time grows with its square (2,000 took 76 s a game; 10**9 never ended).
        if threshold < 0 or not 1 <= avoid <= MAX_AVOID or vocab_size < 10:
            raise ValueError(f"threshold must be >= 0, avoid in 1..{MAX_AVOID} and vocab_size >= 10; got "
                             f"threshold={threshold}, avoid={avoid}, vocab_size={vocab_size}")
        self.threshold, self.avoid = float(threshold), int(avoid)
        self.guess_on_last_turn, self.stable = bool(guess_on_last_turn), bool(stable)
        self.encoder = SpeechEncoder(self.vectors)
        self.vocab = Vocabulary.for_embedding(self.embedding, self.vectors, size=int(vocab_size))
        if candidates in ("nouns", "vocabulary"):
            self.candidates = Vocabulary.for_embedding(self.embedding, self.vectors, size=int(vocab_size),
                                                       nouns=candidates == "nouns")
        else:
            words = word_list_option(None if candidates == "targets" else Path(candidates),
                                     "cluegym.envs.taboo", "targets.txt")
            self.candidates = Vocabulary.for_embedding(self.embedding, self.vectors, size=len(words),
                                                       words=[w.lower() for w in words])
        self.last_ranking: list[tuple[str, float]] = []
        self.previous_best: str | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.last_ranking, self.previous_best = [], None

    def topic(self, observation: dict[str, Any]) -> np.ndarray:
        """The attacker's talk as one unit vector (later utterances weigh more)."""
        attacker = [str(t) for t in observation["dialogue"][0::2] if t and t != SILENCE]
        if not attacker:
            return np.zeros(self.encoder.dim, dtype=np.float32)
        weights = np.arange(1, len(attacker) + 1, dtype=np.float32)[:, None]
        mean = (self.encoder.texts(attacker) * weights).sum(axis=0)
        norm = float(np.linalg.norm(mean))
        return mean / norm if norm > 0 else mean

    def ranking(self, observation: dict[str, Any], n: int, topic: np.ndarray | None = None) -> list[tuple[str, float]]:
        """The ``n`` best candidates (never a word already said) and their similarities
        (``topic``: the observation's :meth:`topic`, when the caller has it already)."""
        if topic is None:
            topic = self.topic(observation)
        if not np.any(topic):
            return []
        said = SaidFilter([str(t) for t in observation["dialogue"] if t])
        scores = self.candidates.scores(topic)
        words = self.candidates.words
        out: list[tuple[str, float]] = []
        # The start of the ranking by a partition (a sort of all ~20,000 words was most of a
        # turn, and only a few of them are ever said), then the rest if the said words ate
        # it: the same order as sorting all the scores (top_order keeps the sort's ties).
        order, checked = top_order(scores, 4 * n + 64), 0
        while True:
            for i in order[checked:].tolist():
                if not said(words[i]):
                    out.append((words[i], float(scores[i])))
                    if len(out) == n:
                        return out
            if len(order) == len(scores):
                return out
            checked, order = len(order), np.argsort(-scores, kind="stable")

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, str]:
        turns = len(observation["dialogue"]) // 2
        last_turn = int(observation["turn"]) + 1 >= turns
        topic = self.topic(observation)  # read by the ranking and the reply alike
        ranking = self.ranking(observation, max(self.avoid, 2), topic)
        self.last_ranking = ranking
        previous, self.previous_best = self.previous_best, (ranking[0][0] if ranking else None)
        if len(ranking) >= 2:
            confident = ranking[0][1] - ranking[1][1] >= self.threshold
            if self.stable:
                confident = confident and ranking[0][0] == previous
            if confident or (last_turn and self.guess_on_last_turn):
                return {"utterance": GUESS_UTTERANCE, "guess": ranking[0][0]}
        return {"utterance": self._on_topic(observation, [w for w, _ in ranking], topic), "guess": ""}

    def _on_topic(self, observation: dict[str, Any], suspects: list[str], topic: np.ndarray) -> str:
        """A reply about ``topic`` (the observation's) that avoids every suspected word (and
        its derivatives)."""
        avoid = SaidFilter([*suspects, *(str(t) for t in observation["dialogue"] if t)])
        words = self.vocab.neighbours(
            topic, 2, start=self.avoid,
            exclude=lambda w: avoid(w) or any(says(w, s, True) for s in suspects),
        )
        if not words:
            return "I am not sure where this is going."
        frame = DEFENDER_FRAMES[int(self.rng.integers(len(DEFENDER_FRAMES)))]
        return frame.format(words=join_words(words))


_SEATS = {"attacker": EmbeddingTabooAttacker, "defender": EmbeddingTabooDefender}


def agent_class(seat: str) -> type[EmbeddingAgent]:
    """The baseline class for a Taboo seat."""
    if seat not in _SEATS:
        raise ValueError(f"taboo has no seat {seat!r}; seats: {', '.join(_SEATS)}")
    return _SEATS[seat]
