"""Decrypto embedding baselines: valid hints, decoding, interception, random agent."""

from __future__ import annotations

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.envs.core.matching import hint_keyword
from cluegym.envs.decrypto.env import CODES


@pytest.fixture(scope="module")
def env():
    e = cluegym.make("decrypto")
    e.reset(seed=0, options={"keywords": ["guitar", "horse", "castle", "apple"]})
    return e


def agent(spec, seat, env, seed=0):
    return make_agent(spec, game="decrypto", seat=seat, action_space=env.action_space(seat), seed=seed)


def test_encoder_hints_are_valid_related_and_never_reused(env):
    alice = agent("glove:k=1", "alice", env)
    alice.reset(0)
    keywords = ("guitar", "horse", "castle", "apple")
    seen = set()
    for _ in range(6):
        code = np.array([1, 2, 3])
        hints = alice.act({"keywords": keywords, "code": code}, {})
        assert len(hints) == 3
        for hint, kw in zip(hints, keywords[:3]):
            assert hint_keyword(hint, keywords) is None
            assert hint not in seen
            seen.add(hint)
    # K=1 takes the closest unused word: it is closer to its keyword than to the others
    vectors = alice.vectors
    first = alice.act({"keywords": keywords, "code": np.array([4, 1, 2])}, {})[0]
    sims = [float(vectors.vector(first) @ vectors.vector(k)) for k in keywords]
    assert int(np.argmax(sims)) == 3


def test_decoder_recovers_code_from_obvious_hints(env):
    bob = agent("glove", "bob", env)
    obs = {"keywords": ("guitar", "horse", "castle", "apple"), "hints": ("fruit", "piano", "stallion"),
           "action_mask": np.ones(24, dtype=np.int8)}
    assert CODES[bob.act(obs, {})] == (4, 1, 2)
    # the best assignment masked out: the best legal code is returned instead
    mask = np.ones(24, dtype=np.int8)
    mask[CODES.index((4, 1, 2))] = 0
    assert CODES[bob.act({**obs, "action_mask": mask}, {})] != (4, 1, 2)


def test_interceptor_uses_hint_history(env):
    eve = agent("glove", "eve", env)
    history = (("violin", "drums", "", "", "", "", "", ""), ("pony", "", "", "", "", "", "", ""),
               ("fortress", "", "", "", "", "", "", ""), ("banana", "cherry", "", "", "", "", "", ""))
    obs = {"hints": ("piano", "mango", "stallion"), "hint_history": history, "action_mask": np.ones(24, dtype=np.int8)}
    assert CODES[eve.act(obs, {})] == (1, 4, 2)
    # turn 1: no history -> a random legal code, reproducible under the seed
    empty = tuple(("",) * 8 for _ in range(4))
    picks = {agent("glove", "eve", env, seed=s).act({**obs, "hint_history": empty}, {}) for s in range(20)}
    assert len(picks) > 3


@pytest.mark.parametrize("embedding", ["glove", "word2vec", "minilm"])
def test_each_embedding_plays_full_games(embedding):
    summary = run_match("decrypto", {"alice": f"{embedding}:k=8", "bob": embedding, "eve": embedding},
                        games=4, seed=1, progress=False)
    m = summary["metrics"]
    assert m["games"] == 4 and m["invalid_actions"] == 0 and m["fallbacks"] == 0


@pytest.mark.slow
def test_selfplay_decodes_much_better_than_random():
    base = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove", "eve": "random"}, games=24, seed=0,
                     progress=False)["metrics"]
    rand = run_match("decrypto", {"alice": "glove:k=16", "bob": "random", "eve": "random"}, games=24, seed=0,
                     progress=False)["metrics"]
    assert base["miscommunication_rate"] < 0.15 < rand["miscommunication_rate"]
    assert base["avg_turns"] > rand["avg_turns"] + 3


def test_random_agent_is_legal_everywhere():
    summary = run_match("decrypto", {"*": "random"}, games=5, seed=2, progress=False)
    assert summary["metrics"]["fallbacks"] == 0


def _full_ranking(alice, keywords, index):
    """The encoder's ranking by its definition: the whole vocabulary sorted by similarity to
    the keyword (stable), kept where the word is closer to it than to every other keyword."""
    sims = alice.vocab_matrix @ alice.vectors.matrix(keywords).T
    others = np.delete(sims, index, axis=1).max(axis=1)
    return [int(j) for j in np.argsort(-sims[:, index], kind="stable") if sims[j, index] > others[j]]


def test_encoder_ranking_is_the_whole_sorted_vocabulary_read_lazily(env):
    """The encoder sorts only the start of each keyword's ranking (a partition) and the rest
    when a walk reaches it: read in full, it is the whole sorted, filtered vocabulary; and a
    prefix of one word (the rest sorted at once) draws the same hints over whole games."""
    alice = agent("glove:k=16", "alice", env)
    for keywords in [("guitar", "horse", "castle", "apple"), ("river", "bank", "money", "stream")]:
        for index in range(4):
            assert list(alice._ranking(keywords, index)) == _full_ranking(alice, keywords, index)
    hints = {}
    for prefix in (alice.PREFIX, 1):
        player = agent("glove:k=16", "alice", env)
        player.PREFIX = prefix
        drawn = []
        for game in range(3):
            player.reset(game)
            keywords = [("guitar", "horse", "castle", "apple"), ("river", "bank", "money", "stream")][game % 2]
            for turn in range(8):
                drawn.append(player.act({"keywords": keywords, "code": np.array([1 + turn % 4, 1 + (turn + 1) % 4,
                                                                                   1 + (turn + 2) % 4])}, {}))
        hints[prefix] = drawn
    assert hints[alice.PREFIX] == hints[1]
