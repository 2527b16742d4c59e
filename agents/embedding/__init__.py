"""Embedding baselines for every game, over any gensim ``KeyedVectors``.

The registered agent names ``glove``, ``word2vec`` and ``minilm`` pick the embedding; this
dispatcher picks the game's module (one per game, e.g. :mod:`.decrypto`) and the seat's class.
Each game module exposes ``agent_class(seat: str) -> type[EmbeddingAgent]``.
"""

from __future__ import annotations

import importlib

#: game -> module holding that game's embedding baselines. One line per game.
GAME_MODULES: dict[str, str] = {
    "decrypto": "cluegym.agents.embedding.decrypto",
    "undercover": "cluegym.agents.embedding.undercover",
    "taboo": "cluegym.agents.embedding.taboo",
    "dixit": "cluegym.agents.embedding.dixit",
}


def embedding_agent_class(game: str, seat: str, embedding: str) -> type:
    """The embedding-baseline class for ``game``/``seat``, bound to ``embedding``.

    Raises:
        ValueError: when the game has no embedding baseline.
    """
    if game not in GAME_MODULES:
        raise ValueError(f"no embedding baseline for game {game!r}; games: {', '.join(sorted(GAME_MODULES))}")
    try:
        module = importlib.import_module(GAME_MODULES[game])
    except ModuleNotFoundError as exc:
        raise ValueError(f"no embedding baseline for game {game!r} in this installation") from exc
    base = module.agent_class(seat)
    # A subclass per embedding so specs like "word2vec:k=16" default to the right vectors.
    return type(f"{embedding.capitalize()}{base.__name__}", (base,), {"default_embedding": embedding})
