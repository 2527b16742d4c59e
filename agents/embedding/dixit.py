"""Dixit baselines: a caption agent (reads captions) and a vision agent (sees pixels only).

Both place clues and cards in one text space, all-MiniLM-L6-v2 sentence embeddings, so they
can play each other:

- :class:`CaptionAgent` (``caption``; also ``glove``/``word2vec``/``minilm`` on Dixit) needs
  ``reveal_captions=True``. Storyteller: for each hand card, the vocabulary word at rank
  ``rank`` by word-embedding similarity to the card's caption (words of the caption itself
  excluded) is its clue; it plays the card whose clue fits it best relative to its other
  cards. ``rank`` is the Dixit balance knob: 1 is the most telling word, larger ranks are
  vaguer, 0 gives the caption itself. A storyteller does not retell a card it has told while
  it holds untold ones. Listener: the candidate whose caption is most similar to
  the clue (MiniLM); distractor: the hand card whose caption is most similar to the clue.
- :class:`VisionAgent` (``vision``) never reads captions: each picture becomes the
  probability-weighted MiniLM embedding of its ``top_k`` ImageNet labels from the packaged
  EfficientNet-lite0 classifier, run on the whole picture and on ``grid`` x ``grid`` tiles. Storyteller: the clue is the card's label at rank ``rank``
  (1 = most probable); listener and distractor as above, on those picture vectors.

``temperature`` > 0 samples votes and distractors from ``softmax(similarity / temperature)``
instead of taking the best one. For DixitBench's entailment strategy both expose
:meth:`DixitAgent.rate` (0-100 for one candidate).

From the command line::

    cluegym run dixit --agent player_0=vision:rank=2 --env reveal_captions=true \\
        --agent player_1=caption:rank=3 --games 4

Example:
    >>> from cluegym.agents import run_match
    >>> summary = run_match("dixit", {"*": "caption:rank=3"}, games=1, seed=0, progress=False,
    ...                     env_kwargs={"reveal_captions": True, "num_rounds": 1})  # one short game
    >>> summary["ok"], summary["metrics"]["rounds"], summary["metrics"]["listener_accuracy"]
    (True, 1, 100.0)
    >>> # the command above (the vision agent classifies every picture: about a minute per game on a CPU)
    >>> summary = run_match("dixit", {"player_0": "vision:rank=2", "player_1": "caption:rank=3"}, games=4,
    ...                     env_kwargs={"reveal_captions": True}, progress=False)  # doctest: +SKIP
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from cluegym.agents.base import Agent
from cluegym.agents.embedding.common import EmbeddingAgent
from cluegym.agents.encoders.cache import LRUCache
from cluegym.agents.encoders.images import class_probabilities, imagenet_labels, probability_keys
from cluegym.agents.encoders.loaders import load_glove
from cluegym.agents.encoders.sentences import SentenceEncoder
from cluegym.agents.encoders.vocabulary import wordnet_lemmas
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.core.data import read_word_list
from cluegym.envs.core.matching import mentions_word
from cluegym.envs.core.text import tokens
from cluegym.envs.dixit.rules import PHASES

_STOPWORDS = frozenset(
    "a an the of in on over under above below beneath before behind across at by with from into onto to and or "
    "while is are was were be been its it as inside through around against near upon this that these those his "
    "her their our your my who whom which what when where there here than then but not no nor so very can will "
    "just also only some any each every all both few more most other such own same too out off up down about "
    "after again once why how has have had does did doing having being".split()
)
#: GloVe frequency rank from which a caption word counts fully in the clue search.
RARE_WORD_RANK = 30000
#: Captions, clues and ImageNet labels share one MiniLM space (cached per process).
SENTENCES = SentenceEncoder()


def content_words(text: str) -> list[str]:
    """The words of ``text`` without stopwords (``"a tiger on a hill"`` -> tiger, hill)."""
    return [w for w in tokens(text) if w.isalpha() and w not in _STOPWORDS]


class DixitAgent(Agent):
    """Shared play of the Dixit baselines: subclasses embed cards and clues in one space.

    Args:
        rank: the Dixit balance knob (see the module docstring).
        temperature: 0 picks the most similar card; > 0 samples from a softmax.
    """

    games = ("dixit",)

    def __init__(self, game: str, seat: str, action_space: Any, *, rank: int = 1, temperature: float = 0.0,
                 seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        self.configure(rank=rank, temperature=temperature)

    def configure(self, *, rank: int, temperature: float) -> None:
        """Set (and check) the balance knob and the sampling temperature."""
        if rank < 0:
            raise ValueError(f"rank must be >= 0, got {rank}")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        self.rank = int(rank)
        self.temperature = float(temperature)

    # ------------------------------------------------------------ subclass hooks
    def card_vectors(self, observation: dict[str, Any], field: str, count: int) -> np.ndarray:
        """Unit vectors ``(count, d)`` of the first ``count`` cards of ``"hand"``/``"candidates"``."""
        raise NotImplementedError

    def tell(self, observation: dict[str, Any]) -> tuple[int, str]:
        """The storyteller's (hand slot, clue)."""
        raise NotImplementedError

    # -------------------------------------------------------------------- play
    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        phase = PHASES[int(observation["phase"])]
        if phase == "story":
            slot, clue = self.tell(observation)
            clue_space = getattr(self.action_space, "spaces", {}).get("clue")
            return {"card": int(slot), "clue": clue[: clue_space.max_length] if clue_space is not None else clue}
        mask = np.asarray(observation["card_mask"], dtype=bool)
        if phase == "distract":
            count = int((np.asarray(observation["hand_ids"]) >= 0).sum())
            return {"card": self._choose(self.similarities(observation, "hand", count), mask[:count])}
        if phase == "vote":
            count = int((np.asarray(observation["candidate_ids"]) >= 0).sum())
            return {"card": self._choose(self.similarities(observation, "candidates", count), mask[:count])}
        return {"card": 0}

    def similarities(self, observation: dict[str, Any], field: str, count: int) -> np.ndarray:
        """Cosine similarity of the clue to each of the first ``count`` cards of ``field``."""
        clue = SENTENCES.vector(str(observation["clue"]))
        return self.card_vectors(observation, field, count) @ clue

    def rate(self, observation: dict[str, Any], info: dict[str, Any] | None = None) -> float:
        """Entailment score 0-100 of the clue for ``candidates[0]`` (DixitBench)."""
        similarity = float(self.similarities(observation, "candidates", 1)[0])
        return round(50.0 * (1.0 + similarity), 1)

    def _choose(self, scores: np.ndarray, legal: np.ndarray) -> int:
        legal = legal if legal.any() else np.ones_like(legal)
        idx = np.flatnonzero(legal)
        values = scores[idx]
        if self.temperature > 0:
            weights = np.exp((values - values.max()) / self.temperature)
            return int(idx[self.rng.choice(len(idx), p=weights / weights.sum())])
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(idx[best[int(self.rng.integers(len(best)))]])

    @staticmethod
    def untold(observation: dict[str, Any], count: int) -> np.ndarray:
        """Hand slots whose card this seat has not told yet as storyteller (all when every card
        was told): with DixitWorld's fixed hands, retelling a card the listeners have seen
        revealed with its clue would give it away, and deterministic play would repeat rounds."""
        hand = np.asarray(observation["hand_ids"])[:count]
        seat = int(observation.get("seat", -1))
        storytellers = np.asarray(observation.get("history_storytellers", np.zeros(0)))
        played = np.asarray(observation.get("history_played", np.zeros((0, 0))))
        told = {int(played[r, seat]) for r in np.flatnonzero(storytellers == seat)} if seat >= 0 else set()
        fresh = np.array([int(card) not in told for card in hand], dtype=bool)
        return fresh if fresh.any() else np.ones(count, dtype=bool)

    def _best_margin(self, clue_vectors: np.ndarray, card_vectors: np.ndarray, allowed: np.ndarray) -> int:
        """The allowed card whose clue fits it best relative to the other hand cards."""
        sims = clue_vectors @ card_vectors.T  # (cards, cards): clue of card i vs card j
        own = np.diag(sims).copy()
        np.fill_diagonal(sims, -np.inf)
        margins = own - (sims.max(axis=1) if len(own) > 1 else 0.0)
        margins[~allowed] = -np.inf
        best = np.flatnonzero(margins >= margins.max() - 1e-9)
        return int(best[int(self.rng.integers(len(best)))])


# ----------------------------------------------------------------------------- captions

_VOCABULARIES: dict[tuple[str, str | None, int], tuple[tuple[str, ...], np.ndarray]] = {}


def clue_vocabulary(embedding: str, vectors: WordEncoder, path: str | None = None,
                    size: int = 20000) -> tuple[tuple[str, ...], np.ndarray]:
    """Candidate clue words and their unit vectors, cached per process.

    Args:
        embedding: the embedding's name (cache key).
        vectors: its :class:`~cluegym.agents.encoders.words.WordEncoder`.
        path: a word-list file; None -> the embedding's ``size`` most frequent words that are
            WordNet nouns (3-14 letters, no stopwords; WordNet is required, see
            :func:`~cluegym.envs.core.matching.require_wordnet`).
        size: how many of the embedding's words to consider.
    """
    key = (embedding, path, size)
    if key not in _VOCABULARIES:
        if path is not None:
            words = [w.lower() for w in read_word_list(path)]
        else:
            lemmas = wordnet_lemmas("noun")
            words = [
                w for w in vectors.kv.index_to_key[:size]
                if isinstance(w, str) and w.isascii() and w.isalpha() and 3 <= len(w) <= 14
                and w not in _STOPWORDS and w in lemmas
            ]
        words = [w for w in dict.fromkeys(words) if w in vectors]
        if not words:
            raise ValueError(f"no clue word of the vocabulary is known to the {embedding} embedding")
        _VOCABULARIES[key] = (tuple(words), vectors.matrix(words))
    return _VOCABULARIES[key]


def _frequency_rank(word: str) -> int:
    """The word's rank in GloVe's frequency-ordered vocabulary (unknown words count as rare)."""
    return load_glove().key_to_index.get(word, RARE_WORD_RANK)


#: Labels of the packaged ImageNet classifier: the vision agent's ranks and ``top_k`` run to it.
IMAGENET_LABELS = 1000
#: Why the caption agent cannot play an env that hides the captions.
NO_CAPTIONS = ("the caption agent reads captions: make the env with reveal_captions=True "
               "(cluegym run dixit --env reveal_captions=true), or use the vision agent")


class CaptionAgent(EmbeddingAgent, DixitAgent):
    """Plays from the cards' captions (see the module docstring). Needs ``reveal_captions=True``.

    Args:
        rank: clue = the rank-th most similar vocabulary word to the caption (0: the caption).
        embedding: word embedding for the storyteller's clue search: ``"glove"``,
            ``"word2vec"`` or ``"minilm"`` (default: the registered name's, GloVe for ``caption``).
        vocabulary: clue words: a word-list path, or None for the embedding's frequent words.
        vocab_size: how many of the embedding's most frequent words to consider (>= 10).
        temperature: 0 votes for the most similar candidate; > 0 samples.
    """

    games = ("dixit",)

    def __init__(self, game: str, seat: str, action_space: Any, *, rank: int = 1, embedding: str | None = None,
                 vocabulary: str | None = None, vocab_size: int = 20000, temperature: float = 0.0,
                 seed: int | None = None) -> None:
        # EmbeddingAgent.__init__ runs DixitAgent.__init__ (next in the MRO) with its defaults.
        super().__init__(game, seat, action_space, embedding=embedding, seed=seed)
        self.configure(rank=rank, temperature=temperature)
        if vocab_size < 10:  # 0 left no clue word (every story an agent error); -5 meant "all but 5"
            raise ValueError(f"vocab_size must be >= 10, got {vocab_size}")
        self.vocabulary_path = vocabulary
        self.vocab_size = int(vocab_size)

    def check_env(self, env: Any) -> None:
        """Refuse an env that does not show captions, before any game (the harness calls this).

        Raises:
            ValueError: the seat's observations have no captions (``reveal_captions=False``).
        """
        space = env.observation_space(self.seat)
        if "hand_captions" not in getattr(space, "spaces", {}):
            raise ValueError(NO_CAPTIONS)

    @staticmethod
    def _captions(observation: dict[str, Any], field: str, count: int) -> list[str]:
        key = f"{'hand' if field == 'hand' else 'candidate'}_captions"
        if key not in observation:
            raise ValueError(NO_CAPTIONS)
        return [str(c) for c in observation[key][:count]]

    def card_vectors(self, observation: dict[str, Any], field: str, count: int) -> np.ndarray:
        return SENTENCES.matrix(self._captions(observation, field, count))

    def clue_for(self, caption: str) -> str:
        """The word at rank ``rank`` among the vocabulary words closest to ``caption`` that are
        not words of the caption (the caption itself for rank 0)."""
        if self.rank == 0:
            return caption
        # A function of the caption and the options alone: kept per process (a storyteller
        # asks again for every card of its hand at every story; a deck has ~100 captions).
        key = (self.vectors.source, self.vocabulary_path, self.vocab_size, self.rank, caption)
        clue = _CLUES.get(key)
        if clue is None:
            clue = self._search_clue(caption)
            _CLUES.put(key, clue)
        return clue

    def _search_clue(self, caption: str) -> str:
        words, matrix = clue_vocabulary(self.embedding, self.vectors, self.vocabulary_path, self.vocab_size)
        content = [w for w in content_words(caption) if w in self.vectors]
        if not content:
            return caption
        # A clue evokes one thing on the card: score each word by its best match among the
        # caption's words (their mean is dominated by generic words), favouring rare caption
        # words (objects: "daffodil") over frequent ones (colours, "deep") by frequency rank.
        ranks = np.array([_frequency_rank(w) for w in content], dtype=float)
        weights = np.clip(np.log1p(ranks) / np.log(RARE_WORD_RANK), 0.2, 1.0)
        scores = (matrix @ self.vectors.matrix(content).T * weights).max(axis=1)
        order = np.argsort(-scores, kind="stable")
        seen = 0
        for j in order:
            word = words[int(j)]
            if any(mentions_word(word, c, substring=False) or mentions_word(c, word, substring=False) for c in content):
                continue
            seen += 1
            if seen == self.rank:
                return word
        return words[int(order[0])]

    def tell(self, observation: dict[str, Any]) -> tuple[int, str]:
        count = int((np.asarray(observation["hand_ids"]) >= 0).sum())
        captions = self._captions(observation, "hand", count)
        clues = [self.clue_for(c) for c in captions]
        slot = self._best_margin(SENTENCES.matrix(clues), SENTENCES.matrix(captions), self.untold(observation, count))
        return slot, clues[slot]


#: :meth:`CaptionAgent.clue_for` by (embedding source, vocabulary, its size, rank, caption).
_CLUES = LRUCache(4096)


# ------------------------------------------------------------------------------ vision

#: :meth:`VisionAgent.card_vectors` rows by (picture's probability key, top_k).
_CARD_VECTORS = LRUCache(8192)
#: :meth:`VisionAgent._label_ids` by (picture's probability key, rank).
_LABEL_IDS = LRUCache(8192)


@functools.lru_cache(maxsize=1)
def _label_vectors() -> np.ndarray:
    """MiniLM vectors of the 1,000 ImageNet class names, by class id."""
    return SENTENCES.matrix(list(imagenet_labels()))


class VisionAgent(DixitAgent):
    """Plays from the pictures alone, through EfficientNet-lite0's ImageNet labels.

    Args:
        rank: clue = the card's rank-th most probable ImageNet label (1 = the top label; up to 1000).
        top_k: labels pooled, by probability, into a picture's MiniLM vector.
        grid: also classify ``grid`` x ``grid`` tiles of each picture, keeping each label's
            best probability (0: the whole picture only); cards hold several small objects.
        temperature: 0 votes for the most similar candidate; > 0 samples.
    """

    #: The default ``grid``.
    DEFAULT_GRID = 2

    def __init__(self, game: str, seat: str, action_space: Any, *, rank: int = 1, top_k: int = 10,
                 grid: int = DEFAULT_GRID,
                 temperature: float = 0.0, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, rank=rank, temperature=temperature, seed=seed)
        if not 1 <= rank <= IMAGENET_LABELS:  # a rank past the classifier's labels failed every story
            raise ValueError(f"the vision agent's rank is a label rank, in 1..{IMAGENET_LABELS}; got {rank}")
        if not 1 <= top_k <= IMAGENET_LABELS:
            raise ValueError(f"top_k must be in 1..{IMAGENET_LABELS}, got {top_k}")
        if not 0 <= grid <= 4:
            raise ValueError(f"grid must be in 0..4, got {grid}")
        self.top_k = int(top_k)
        self.grid = int(grid)

    def probabilities(self, observation: dict[str, Any], field: str, count: int) -> np.ndarray:
        return class_probabilities(np.asarray(observation[field])[:count], grid=self.grid)

    def card_vectors(self, observation: dict[str, Any], field: str, count: int,
                     keys: list[bytes] | None = None) -> np.ndarray:
        # A card's vector depends on its picture alone: kept per picture (its probabilities'
        # key) and top_k, as the pooling of a batch computes each row on its own (sorting
        # 1,000 probabilities per card and decision was a fifth of a warm game's time).
        # ``keys``: the pictures' probability_keys when the caller has them.
        images = np.asarray(observation[field])[:count]
        if keys is None:
            keys = probability_keys(images, self.grid)
        if not keys:  # no picture: an empty (0, dim) batch
            return self._pooled(class_probabilities(images, grid=self.grid))

        def pooled(missing: list[int]) -> np.ndarray:
            vectors = self._pooled(class_probabilities(images[missing], grid=self.grid,
                                                       keys=[keys[i] for i in missing]))
            vectors.flags.writeable = False
            return vectors

        return np.stack(_CARD_VECTORS.fetch([(key, self.top_k) for key in keys], pooled))

    def _pooled(self, probs: np.ndarray) -> np.ndarray:
        """Each row's MiniLM vector: its top_k labels' vectors weighted by probability."""
        labels = _label_vectors()
        top = np.argsort(-probs, axis=1)[:, : self.top_k]
        weights = np.take_along_axis(probs, top, axis=1)
        weights /= np.maximum(weights.sum(axis=1, keepdims=True), 1e-12)
        vectors = np.einsum("nk,nkd->nd", weights, labels[top])
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def tell(self, observation: dict[str, Any]) -> tuple[int, str]:
        count = int((np.asarray(observation["hand_ids"]) >= 0).sum())
        images = np.asarray(observation["hand"])[:count]
        keys = probability_keys(images, self.grid)  # each picture hashed once for the turn
        label_ids = np.array(self._label_ids(images, keys), dtype=np.intp)
        slot = self._best_margin(_label_vectors()[label_ids], self.card_vectors(observation, "hand", count, keys),
                                 self.untold(observation, count))
        return slot, imagenet_labels()[int(label_ids[slot])]

    def _label_ids(self, images: np.ndarray, keys: list[bytes]) -> list[int]:
        """Each picture's ``rank``-th most probable label, ``np.argsort(-probs)[rank - 1]``
        (kept per picture and rank: a storyteller sorted its whole hand's 1,000 probabilities
        at every story)."""
        def labels(missing: list[int]) -> list[int]:
            probs = class_probabilities(images[missing], grid=self.grid, keys=[keys[i] for i in missing])
            # The same call as for the whole hand: each row is sorted on its own.
            return np.argsort(-probs, axis=1)[:, self.rank - 1].tolist()

        return _LABEL_IDS.fetch([(key, self.rank) for key in keys], labels)


def agent_class(seat: str) -> type:
    """The embedding baseline of a Dixit seat (every seat plays every role): the caption agent."""
    return CaptionAgent


__all__ = ["CaptionAgent", "VisionAgent", "DixitAgent", "SENTENCES", "agent_class", "clue_vocabulary", "content_words"]
