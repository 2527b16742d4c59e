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
    # A subclass per embedding so specs like "word2vec:k=16" default to the right vectors. Made
    # at run time, it cannot be pickled by name: its agents pickle as the call that remakes it.
    return type(f"{embedding.capitalize()}{base.__name__}", (base,),
                {"default_embedding": embedding, "_made_as": (game, seat, embedding), "__reduce_ex__": _reduce_ex})


def _reduce_ex(agent: object, protocol: int) -> tuple:
    return _remade_agent, type(agent)._made_as, dict(agent.__dict__)


def _remade_agent(game: str, seat: str, embedding: str) -> object:
    """An empty agent of the class :func:`embedding_agent_class` makes (unpickling fills it)."""
    cls = embedding_agent_class(game, seat, embedding)
    return cls.__new__(cls)
