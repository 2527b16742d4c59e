"""The learning views pickle (and so travel to other processes whole): their tasks' metric
and action functions are module functions or partials of them, not lambdas; an embedding
baseline (a class made per embedding at run time) pickles as the call that remakes it; a word
encoder leaves its shared vectors behind and loads them again on first use."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.encoders.words import WordEncoder
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.selfplay import SelfPlayEnv
from cluegym.wrappers.seat_task import generic_task, metrics_entry


def _same_games(first, second, steps: int = 12) -> None:
    """``first`` and ``second`` play the same moves to the same observations and rewards."""
    obs_a, _ = first.reset(seed=11)
    obs_b, _ = second.reset(seed=11)
    for _ in range(steps):
        np.testing.assert_equal(obs_a, obs_b)
        mask = first.action_masks()
        action = int(np.flatnonzero(mask)[0])
        obs_a, reward_a, done_a, cut_a, _ = first.step(action)
        obs_b, reward_b, done_b, cut_b, _ = second.step(action)
        assert (reward_a, done_a, cut_a) == (reward_b, done_b, cut_b)
        if done_a or cut_a:
            obs_a, _ = first.reset(seed=12)
            obs_b, _ = second.reset(seed=12)


@pytest.mark.parametrize("game, seat", [
    ("taboo", "defender"), ("decrypto", "alice"), ("decrypto", "bob"), ("decrypto", "eve"),
    ("undercover", "player_0"), ("dixit", "player_0"),
])
def test_a_selfplay_env_pickles_and_plays_on_the_same(game, seat):
    env = SelfPlayEnv(game, seat)
    env.reset(seed=3)
    copied = pickle.loads(pickle.dumps(env))
    assert copied.task.metric[0] == env.task.metric[0]
    _same_games(env, copied)


def test_a_multiseat_env_pickles():
    env = MultiSeatEnv("undercover")
    env.reset(seed=3)
    copied = pickle.loads(pickle.dumps(env))
    assert copied.possible_agents == env.possible_agents
    copied.reset(seed=4)
    env.reset(seed=4)
    seat = env.agent_selection
    assert copied.agent_selection == seat
    np.testing.assert_equal(copied.observe(seat), env.observe(seat))


def test_an_embedding_baseline_pickles_as_the_class_of_its_embedding():
    space = cluegym.make("taboo").action_space("defender")
    agent = make_agent("word2vec", game="taboo", seat="defender", action_space=space, seed=1)
    copied = pickle.loads(pickle.dumps(agent))
    assert type(copied).__name__ == type(agent).__name__ and copied.default_embedding == "word2vec"
    assert copied.embedding == "word2vec" and copy.deepcopy(agent).embedding == "word2vec"


def test_a_word_encoder_pickles_without_its_vectors_and_loads_them_again():
    encoder = WordEncoder("glove").load()
    data = pickle.dumps(encoder)
    assert len(data) < 10_000  # the name, not the 100,000 x 50 vectors
    copied = pickle.loads(data)
    np.testing.assert_array_equal(copied.vector("red apple"), encoder.vector("red apple"))


def test_task_functions_pickle():
    task = generic_task("decrypto", "eve", metric="interception_rate")
    name, read = pickle.loads(pickle.dumps(task.metric))
    assert name == "interception_rate" and read({"interception_rate": 0.5}, []) == 0.5
    assert pickle.loads(pickle.dumps(metrics_entry("decrypto", "games")))({"games": 3}, []) == 3
