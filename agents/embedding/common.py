"""The base class of the embedding baselines: an agent with a named word embedding."""

from __future__ import annotations

from typing import Any

from cluegym.agents.base import Agent
from cluegym.agents.encoders.words import WordEncoder


class EmbeddingAgent(Agent):
    """Base of the embedding baselines: loads the word embedding's encoder at construction.

    Args:
        embedding: ``"glove"``, ``"word2vec"`` or ``"minilm"``; None uses the registered
            name's embedding (``glove:...`` -> GloVe).

    Attributes:
        vectors: the embedding's :class:`~cluegym.agents.encoders.words.WordEncoder` (its
            vectors and cache are shared with every other user of the embedding).
    """

    #: Set by :func:`cluegym.agents.embedding.embedding_agent_class` for each registered name.
    default_embedding: str = "glove"

    def __init__(self, game: str, seat: str, action_space: Any, *, embedding: str | None = None,
                 seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        self.vectors = self.word_encoder(embedding or self.default_embedding)
        #: The embedding's canonical name (``"GloVe"`` -> ``"glove"``).
        self.embedding = self.vectors.embedding

    def word_encoder(self, embedding: str) -> WordEncoder:
        """The loaded encoder this agent embeds with; a subclass may load other vectors
        (the Decrypto baselines' ``vectors=PATH``)."""
        return WordEncoder(embedding).load()
