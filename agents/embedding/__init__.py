"""Embedding baselines for every game, over any gensim ``KeyedVectors``.

The registered agent names ``glove``, ``word2vec`` and ``minilm`` pick the embedding; this
dispatcher picks the game's module, the one its ``GameSpec.baselines`` names (e.g.
:mod:`.decrypto`), and the seat's class. Each such module exposes
``agent_class(seat: str) -> type[EmbeddingAgent]``.
"""

from __future__ import annotations

from cluegym.envs.core.registry import game_spec, load_reference, registered_specs


def embedding_agent_class(game: str, seat: str, embedding: str) -> type:
    """The embedding-baseline class for ``game``/``seat``, bound to ``embedding``.

    Raises:
        ValueError: an unknown game, or one without embedding baselines (in this installation).
    """
    reference = game_spec(game).baselines
    if reference is None:
        games = ", ".join(sorted({s.name for s in registered_specs() if s.baselines}))
        raise ValueError(f"no embedding baseline for game {game!r}; games: {games}")
    try:
        module = load_reference(reference)
    except ModuleNotFoundError as exc:
        raise ValueError(f"no embedding baseline for game {game!r} in this installation") from exc
    base = module.agent_class(seat)
    # A subclass per embedding so specs like "word2vec:k=16" default to the right vectors.
    return type(f"{embedding.capitalize()}{base.__name__}", (base,), {"default_embedding": embedding})
