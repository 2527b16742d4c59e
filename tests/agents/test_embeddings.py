"""Shipped word lists and the embedding loaders (GloVe, WordNet word2vec, MiniLM words).

Each model loads once per module (module-scoped fixtures over the loaders' own caches). MiniLM
is exercised on a handful of words: encoding the whole game vocabulary is the baselines' job.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from cluegym.agents import encoders as embeddings
from cluegym.envs.core.data import shipped_word_list

#: (package, file, minimum size, maximum size)
WORD_LISTS = [
    ("cluegym.envs.decrypto", "keywords.txt", 600, 800),
    ("cluegym.envs.decrypto", "hint_vocab.txt", 4500, 5500),
    ("cluegym.envs.taboo", "targets.txt", 350, 500),
]
ANIMALS = {"cat", "horse", "puppy", "rabbit", "pig", "wolf", "fox", "cow", "sheep", "goat",
           "hound", "pony", "deer", "bear", "monkey", "tiger", "lion", "animal", "pet"}


@pytest.fixture(scope="module")
def glove():
    return embeddings.load_glove()


@pytest.fixture(scope="module")
def word2vec():
    return embeddings.load_word2vec()


@pytest.fixture(scope="module")
def keywords():
    return shipped_word_list("cluegym.envs.decrypto", "keywords.txt")


@pytest.mark.parametrize("package,filename,low,high", WORD_LISTS)
def test_word_list_shape(package, filename, low, high):
    path = resources.files(package) / "data" / filename
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#"), "first line is the header saying how the list was made"
    words = [l for l in lines if not l.startswith("#")]
    assert low <= len(words) <= high
    assert len(set(words)) == len(words), "duplicates"
    assert words == sorted(words)
    for word in words:
        assert word.isascii() and word.isalpha() and word.islower() and len(word) >= 3, word


def test_keywords_are_known_to_glove_and_word2vec(keywords, glove, word2vec):
    assert [w for w in keywords if w not in glove.key_to_index] == []
    assert [w for w in keywords if w not in word2vec.key_to_index] == []


def test_hint_vocabulary_known_to_both(glove, word2vec):
    hints = shipped_word_list("cluegym.envs.decrypto", "hint_vocab.txt")
    targets = shipped_word_list("cluegym.envs.taboo", "targets.txt")
    for word in (*hints, *targets):
        assert word in glove.key_to_index and word in word2vec.key_to_index, word


def test_keywords_avoid_plurals_and_shared_stems(keywords):
    from cluegym.envs.core.matching import snowball_stem as stem

    stems = [stem(w) for w in keywords]
    assert len(set(stems)) == len(stems)
    words = set(keywords)
    assert not [w for w in keywords if w.endswith("s") and w[:-1] in words]


def test_game_vocabulary_is_the_union_of_the_lists(keywords):
    vocab = embeddings.game_vocabulary()
    assert vocab == tuple(sorted(set(vocab)))
    assert set(keywords) <= set(vocab)
    assert set(shipped_word_list("cluegym.envs.taboo", "targets.txt")) <= set(vocab)


def test_glove_loader(glove):
    assert glove.vector_size == 50
    assert 100_000 <= len(glove) <= 101_000  # the top 100k + game words GloVe ranks lower
    assert glove.index_to_key[:3] == ["the", ",", "."]
    neighbours = {w for w, _ in glove.most_similar("dog", topn=20)}
    assert neighbours & ANIMALS
    assert glove.similarity("guitar", "piano") > glove.similarity("guitar", "tomato")
    assert embeddings.load_glove() is glove  # cached


def test_word2vec_loader(word2vec):
    assert word2vec.vector_size == 50
    assert 10_000 < len(word2vec) < 40_000
    assert word2vec.vectors.dtype == np.float32
    neighbours = {w for w, _ in word2vec.most_similar("dog", topn=20)}
    assert neighbours & ANIMALS
    assert word2vec.similarity("bread", "flour") > word2vec.similarity("bread", "missile")


def test_word2vec_file_is_small():
    assert embeddings.WORD2VEC_PATH.stat().st_size < 5_000_000


def test_minilm_words_and_sentences():
    words = ("dog", "cat", "puppy", "guitar", "piano", "violin", "tomato")
    kv = embeddings.load_minilm_words(words)
    assert kv.index_to_key == list(words) and kv.vector_size == 384
    np.testing.assert_allclose(np.linalg.norm(kv.vectors, axis=1), 1.0, atol=1e-5)
    assert kv.most_similar("guitar", topn=2)[0][0] in {"piano", "violin"}
    assert kv.similarity("dog", "puppy") > kv.similarity("dog", "violin")
    sentences = embeddings.encode_sentences(["a dog barks", "a puppy yelps", "stock prices fell"])
    assert sentences.shape == (3, 384) and sentences.dtype == np.float32
    assert sentences[0] @ sentences[1] > sentences[0] @ sentences[2]
    assert embeddings.encode_sentences([]).shape == (0, 384)
    assert embeddings.load_minilm() is embeddings.load_minilm()


def test_load_embedding_dispatch_and_error(glove, word2vec):
    assert embeddings.load_embedding("glove") is glove
    assert embeddings.load_embedding("Word2Vec") is word2vec
    with pytest.raises(ValueError, match="glove, word2vec, minilm"):
        embeddings.load_embedding("fasttext")
