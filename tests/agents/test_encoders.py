"""The encoders package: one load per process, bounded LRU caches, one vector whoever asks.

Baselines (``cluegym.agents.embedding``), featurizers (``cluegym.wrappers``) and DixitBench
must read the same models and the same process-wide caches (``cluegym.agents.encoders``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import cluegym
from cluegym.agents import encoders, make_agent
from cluegym.agents.embedding.dixit import SENTENCES
from cluegym.agents.encoders import loaders, sentences, words
from cluegym.agents.encoders.cache import LRUCache
from cluegym.wrappers.decrypto import DecryptoFeatures
from cluegym.wrappers.dixit import ListenerFeatures

ROOT = Path(__file__).resolve().parents[2]


def test_lru_cache_keeps_the_most_recently_used():
    cache = LRUCache(3)
    for key in "abc":
        cache.put(key, np.full(1, ord(key)))
    assert cache.get("a") is not None  # "a" is now the most recent: "b" goes first
    cache.put("d", np.zeros(1))
    assert len(cache) == 3 and "b" not in cache and all(k in cache for k in "acd")
    assert (cache.hits, cache.misses) == (1, 0)
    cache.clear()
    assert len(cache) == 0 and cache.hits == cache.misses == 0


def test_fetch_computes_each_missing_key_once_in_one_call():
    cache = LRUCache(10)
    cache.put("x", np.array([0.0]))
    calls: list[list[int]] = []

    def compute(positions: list[int]) -> list[np.ndarray]:
        calls.append(positions)
        return [np.array([float(i)]) for i in positions]

    rows = cache.fetch(["a", "x", "b", "a", "b"], compute)
    assert calls == [[0, 2]]  # first occurrences of the missing keys, one batch
    assert [float(r[0]) for r in rows] == [0.0, 0.0, 2.0, 0.0, 2.0]
    assert rows[0] is rows[3]
    assert (cache.hits, cache.misses) == (3, 2)  # "x" and the two repeats were not computed
    cache.fetch(["a", "b"], compute)
    assert len(calls) == 1
    with pytest.raises(RuntimeError, match="2 keys"):
        cache.fetch(["p", "q"], lambda positions: [np.zeros(1)])


def test_image_key_tells_pictures_shapes_and_contexts_apart():
    """A picture's cache key is a function of its shape, pixels and context: equal pictures
    (a strided view and its copy too) share one, and any of the three changed gives another."""
    from cluegym.agents.encoders.cache import image_key

    rng = np.random.default_rng(0)
    card = rng.integers(0, 256, size=(24, 16, 3), dtype=np.uint8)
    key = image_key(card, "probabilities", 0)
    assert len(key) == 16 and image_key(card.copy(), "probabilities", 0) == key
    wide = rng.integers(0, 256, size=(24, 32, 3), dtype=np.uint8)
    assert image_key(wide[:, ::2], "features") == image_key(np.ascontiguousarray(wide[:, ::2]), "features")
    changed = card.copy()
    changed[5, 5, 1] ^= 1
    others = {image_key(changed, "probabilities", 0), image_key(card, "probabilities", 3),
              image_key(card, "features"), image_key(card.reshape(16, 24, 3), "probabilities", 0)}
    assert key not in others and len(others) == 4
    assert image_key(card, ["a", "list"]) == image_key(card.copy(), ["a", "list"]) != image_key(card, ["a"])


@pytest.mark.parametrize("kind", ["distinct", "ties", "nan", "inf", "strided"])
def test_top_order_is_the_start_of_the_stable_sort(kind):
    """top_order's bounded partition gives the start of the stable descending sort down to
    the k-th value, ties included, for every k around the sample's bound, with ties, NaNs,
    infinities and a strided column."""
    from cluegym.agents.encoders import vocabulary

    rng = np.random.default_rng(["distinct", "ties", "nan", "inf", "strided"].index(kind))
    for n in (1, 7, 64, 1000, 5003):
        values = {
            "distinct": lambda: rng.normal(size=n).astype(np.float32),
            "ties": lambda: rng.integers(0, 6, size=n).astype(np.float32),
            "nan": lambda: np.where(rng.random(n) < 0.05, np.nan, rng.normal(size=n)),
            "inf": lambda: np.where(rng.random(n) < 0.02, np.inf, rng.normal(size=n)),
            "strided": lambda: rng.normal(size=(n, 3)).astype(np.float32)[:, 1],
        }[kind]()
        bound = len(values[::vocabulary._SAMPLE_STRIDE]) // 2
        for k in sorted({1, 2, 5, bound - 1, bound, bound + 1, n // 2, n - 1, n, n + 4} - {0, -1}):
            if k < 1:
                continue
            stable = np.argsort(-values, kind="stable")
            if k < n:
                threshold = np.partition(values, n - k)[n - k]
                top = np.flatnonzero(values >= threshold)
                expected = top[np.argsort(-values[top], kind="stable")]
            else:
                expected = stable
            np.testing.assert_array_equal(vocabulary.top_order(values, k), expected)


def test_process_caches_have_the_documented_bounds():
    assert encoders.WORD_CACHE.max_items == encoders.WORD_CACHE_SIZE == 100_000
    assert encoders.SENTENCE_CACHE.max_items == encoders.SENTENCE_CACHE_SIZE == 100_000
    assert encoders.IMAGE_CACHE.max_items == encoders.IMAGE_CACHE_SIZE == 20_000
    for name in ("WORD_CACHE", "SENTENCE_CACHE", "IMAGE_CACHE"):
        assert name in encoders.__doc__


def test_word_encoder_stays_within_its_cache_bound(monkeypatch):
    reference = words.WordEncoder("glove").matrix(["apple", "horse", "castle"])
    monkeypatch.setattr(words, "WORD_CACHE", LRUCache(2))
    encoder = words.WordEncoder("glove")
    again = encoder.matrix(["apple", "horse", "castle"])
    assert len(words.WORD_CACHE) == 2 and ("glove", "apple") not in words.WORD_CACHE
    np.testing.assert_array_equal(again, reference)  # evicted words are recomputed, identically


def test_word_models_load_once_and_baselines_share_them_with_featurizers():
    env = cluegym.make("decrypto")
    bob = make_agent("word2vec", game="decrypto", seat="bob", action_space=env.action_space("bob"), seed=0)
    loads = loaders.load_word2vec.cache_info().misses
    features = DecryptoFeatures("bob", embedding="word2vec")
    features.words.vector("saddle")
    make_agent("word2vec", game="decrypto", seat="eve", action_space=env.action_space("eve"), seed=0)
    assert loaders.load_word2vec.cache_info().misses == loads == 1
    assert bob.vectors.kv is features.words.kv is encoders.load_embedding(" Word2Vec ")
    # one phrase, one vector: the baseline's and the featurizer's are the same cached array
    assert bob.vectors.vector("red apple") is features.words.vector("red apple")


def test_unknown_embedding_names_the_valid_ones():
    with pytest.raises(ValueError, match="glove, word2vec, minilm"):
        encoders.WordEncoder("fasttext")


def test_sentence_vectors_are_shared_by_dixit_baselines_featurizers_and_speech(monkeypatch):
    batches: list[list[str]] = []

    def counting_encode(texts, batch_size=64):
        batches.append(list(texts))
        return loaders.encode_sentences(texts, batch_size)

    monkeypatch.setattr(sentences, "encode_sentences", counting_encode)
    caption = "a lighthouse keeper feeds a whale at dawn"
    baseline = SENTENCES.matrix([caption, "a whale", caption])
    featurizer = ListenerFeatures().sentences.vector(caption)
    speech = encoders.SpeechEncoder(encoders.WordEncoder("minilm")).text(caption)
    assert batches == [[caption, "a whale"]]  # one batch, each text once, then served from the cache
    np.testing.assert_array_equal(baseline[0], featurizer)
    np.testing.assert_array_equal(baseline[2], speech)
    assert np.linalg.norm(speech) == pytest.approx(1.0, abs=1e-5)
    assert encoders.SENTENCE_CACHE.get(caption) is not None
    assert loaders.load_minilm.cache_info().misses == 1


def test_speech_without_sentence_model_averages_content_words():
    glove = encoders.WordEncoder("glove")
    speech = encoders.SpeechEncoder(glove)
    assert speech.sentences is None
    assert speech.text("It has a striped body.") is glove.vector("striped body")
    assert not speech.text("It is what it is.").any()  # stopwords only: no signal
    assert encoders.SpeechEncoder(encoders.WordEncoder("minilm"), sentences=False).sentences is None


@pytest.mark.slow
def test_pictures_go_through_the_network_once_per_process():
    rng = np.random.default_rng(12345)
    pictures = rng.integers(0, 256, size=(2, 48, 64, 3), dtype=np.uint8)
    cache = encoders.IMAGE_CACHE
    size, misses = len(cache), cache.misses
    probabilities = encoders.class_probabilities(pictures, grid=1)
    features = encoders.ImageEncoder().matrix(list(pictures))
    assert probabilities.shape == (2, 1000) and features.shape == (2, 1280)
    assert len(cache) == size + 4 and cache.misses == misses + 4  # 2 pictures x (probabilities, features)
    hits = cache.hits
    np.testing.assert_array_equal(encoders.class_probabilities(pictures, grid=1), probabilities)
    np.testing.assert_array_equal(encoders.ImageEncoder().matrix(list(pictures)), features)
    assert cache.hits == hits + 4 and len(cache) == size + 4
    assert loaders.load_efficientnet.cache_info().misses == 1


def test_wordnet_lemmas_are_single_words():
    nouns = encoders.wordnet_lemmas("noun")
    assert {"dog", "lighthouse"} <= nouns and not any("_" in w for w in nouns)
    assert "run" in encoders.wordnet_lemmas("verb")
    with pytest.raises(ValueError, match="noun, verb, adj"):
        encoders.wordnet_lemmas("adv")


@pytest.mark.parametrize("folder", ["agents/encoders", "agents/embedding", "wrappers"])
def test_no_private_name_is_imported_across_packages(folder):
    """Encoders and their users share only public, documented names."""
    crossing = []
    for path in sorted((ROOT / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cluegym"):
                crossing += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert crossing == []


def test_loading_minilm_prints_no_progress_bar_and_restores_transformers_settings():
    """MiniLM loads from its packaged weights without transformers' "Loading weights" bar (it
    went into every run, --no-progress included); the caller's logging settings come back."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from transformers.utils import logging as hf_logging  # noqa: PLC0415

    from cluegym.agents.hf import quiet_transformers  # noqa: PLC0415

    code = "from cluegym.agents.encoders.loaders import load_minilm; print(load_minilm().encode(['a cat']).shape)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert "(1, 384)" in done.stdout
    assert "Loading weights" not in done.stderr, done.stderr[-500:]
    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.enable_progress_bar()
    hf_logging.set_verbosity_info()
    try:
        with quiet_transformers():
            assert not hf_logging.is_progress_bar_enabled()
            assert hf_logging.get_verbosity() == hf_logging.ERROR
        assert hf_logging.is_progress_bar_enabled() and hf_logging.get_verbosity() == hf_logging.INFO
    finally:
        hf_logging.set_verbosity(verbosity)
        if not bars:
            hf_logging.disable_progress_bar()
