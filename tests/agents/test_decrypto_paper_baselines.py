"""The paper's baselines (section 4.1): Bob's per-hint argmax, Eve's global assignment, and
any word vectors through ``vectors=PATH`` (tiny vector files written here)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.embedding.decrypto import assign_code
from cluegym.agents.encoders.loaders import load_vectors, vectors_format
from cluegym.envs.decrypto.env import CODES

KEYWORDS = ("guitar", "horse", "castle", "apple")
# 4-d toy vectors: keywords on the axes, hints near them.
TOY = {
    "guitar": [1.0, 0.0, 0.0, 0.0], "horse": [0.0, 1.0, 0.0, 0.0], "castle": [0.0, 0.0, 1.0, 0.0],
    "apple": [0.0, 0.0, 0.0, 1.0], "music": [0.9, 0.1, 0.0, 0.0], "pony": [0.1, 0.9, 0.0, 0.0],
    "tower": [0.0, 0.1, 0.9, 0.0], "fruit": [0.0, 0.1, 0.0, 0.9], "lute": [1.0, 0.95, 0.0, 0.0],
    "banjo": [1.0, 0.0, 0.0, 0.3],
}


def _space():
    return cluegym.make("decrypto").action_space("bob")


def test_greedy_is_per_hint_argmax_and_hungarian_is_global():
    # Hand-computed: hint 1 prefers keyword 1 (0.9) and hint 2 prefers keyword 1 too (0.95).
    # Per-hint argmax in hint order: hint 1 -> 1, hint 2 -> its next best, 2; code 1-2.
    # Hungarian maximises the sum: (1->2, 2->1) = 0.8 + 0.95 = 1.75 > 0.9 + 0.1 = 1.0; code 2-1.
    sims = np.array([[0.9, 0.8, 0.0], [0.95, 0.1, 0.0]])
    assert assign_code(sims, "greedy") == (1, 2)
    assert assign_code(sims, "hungarian") == (2, 1)
    # no repeated argmax: greedy is exactly argmax per row
    sims = np.array([[0.1, 0.7, 0.2, 0.0], [0.9, 0.0, 0.3, 0.1], [0.0, 0.2, 0.1, 0.6]])
    assert assign_code(sims, "greedy") == tuple(int(i) + 1 for i in sims.argmax(axis=1)) == (2, 1, 4)
    with pytest.raises(ValueError, match="greedy, hungarian"):
        assign_code(sims, "auction")


def test_bob_defaults_to_the_papers_argmax_and_hungarian_is_an_option(tmp_path):
    path = tmp_path / "toy.txt"
    path.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in TOY.items()))
    space = _space()
    bob = make_agent(f"glove:vectors={path}", game="decrypto", seat="bob", action_space=space, seed=0)
    hung = make_agent(f"glove:vectors={path},assign=hungarian", game="decrypto", seat="bob", action_space=space, seed=0)
    eve = make_agent(f"glove:vectors={path}", game="decrypto", seat="eve", action_space=space, seed=0)
    assert (bob.assign, hung.assign, eve.assign) == ("greedy", "hungarian", "hungarian")
    # Hand-computed cosines: lute -> guitar 0.725, horse 0.689; banjo -> guitar 0.958, apple
    # 0.287; tower -> castle 0.994. Per-hint argmax: lute -> guitar (1), banjo's argmax guitar
    # is taken -> apple (4), tower -> castle (3): 1-4-3. Hungarian: lute -> horse, banjo ->
    # guitar: 0.689 + 0.958 > 0.725 + 0.287, so 2-1-3.
    obs = {"keywords": KEYWORDS, "hints": ("lute", "banjo", "tower"), "action_mask": np.ones(24, dtype=np.int8)}
    vec = {w: np.array(v) / np.linalg.norm(v) for w, v in TOY.items()}
    sims = np.array([[vec[h] @ vec[k] for k in KEYWORDS] for h in obs["hints"]])
    assert CODES[bob.act(obs, {})] == assign_code(sims, "greedy")
    assert CODES[hung.act(obs, {})] == assign_code(sims, "hungarian")
    assert (assign_code(sims, "greedy"), assign_code(sims, "hungarian")) == ((1, 4, 3), (2, 1, 3))
    with pytest.raises(Exception, match="assign"):
        make_agent("glove:assign=auction", game="decrypto", seat="bob", action_space=space)


def _write(path, kind):
    words, matrix = list(TOY), np.array(list(TOY.values()), dtype=np.float32)
    if kind == "glove-text":
        path.write_text("".join(f"{w} {' '.join(f'{x:.4f}' for x in v)}\n" for w, v in zip(words, matrix)))
    elif kind == "word2vec-text":
        path.write_text(f"{len(words)} 4\n" + "".join(f"{w} {' '.join(f'{x:.4f}' for x in v)}\n"
                                                        for w, v in zip(words, matrix)))
    elif kind == "word2vec-binary":
        with open(path, "wb") as f:
            f.write(f"{len(words)} 4\n".encode())
            for w, v in zip(words, matrix):
                f.write(w.encode() + b" " + v.astype("<f4").tobytes() + b"\n")
    else:
        from gensim.models import KeyedVectors

        kv = KeyedVectors(vector_size=4)
        kv.add_vectors(words, matrix)
        kv.save(str(path))


@pytest.mark.parametrize("kind", ["glove-text", "word2vec-text", "word2vec-binary", "gensim"])
def test_any_vectors_file_plugs_in(tmp_path, kind):
    path = tmp_path / f"vectors.{kind}"
    _write(path, kind)
    assert vectors_format(path) == kind
    kv = load_vectors(path)
    assert kv.vector_size == 4 and set(kv.index_to_key) == set(TOY)
    np.testing.assert_allclose(kv["music"], TOY["music"], atol=1e-4)
    # the encoder's hint vocabulary is filtered to the words the vectors know
    vocab = tmp_path / "hints.txt"
    vocab.write_text("music\npony\ntower\nfruit\nunknownword\n")
    alice = make_agent(f"word2vec:vectors={path},vocabulary={vocab},k=1", game="decrypto", seat="alice",
                       action_space=cluegym.make("decrypto").action_space("alice"), seed=0)
    assert alice.vocabulary == ["music", "pony", "tower", "fruit"]
    assert alice.vectors.source.startswith("word2vec@") and str(path.resolve()) in alice.vectors.source
    assert alice.act({"keywords": KEYWORDS, "code": np.array([1, 2, 3])}, {}) == ("music", "pony", "tower")


def test_gzip_limit_and_bad_files(tmp_path):
    plain = tmp_path / "v.txt"
    _write(plain, "glove-text")
    packed = tmp_path / "v.txt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert vectors_format(packed) == "glove-text"
    assert load_vectors(packed, limit=2).index_to_key == ["guitar", "horse"]
    bad = tmp_path / "notes.txt"
    bad.write_text("hello world\nthis is not vectors\n")
    with pytest.raises(ValueError, match="not a word-vector file"):
        vectors_format(bad)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_vectors(tmp_path / "missing.bin")
    with pytest.raises(ValueError, match="vectors_limit needs vectors"):
        make_agent("glove:vectors_limit=5", game="decrypto", seat="bob", action_space=_space())
