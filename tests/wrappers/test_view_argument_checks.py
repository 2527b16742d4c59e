"""The learning views refuse what they cannot play, in one line, before any game: empty
opponent entries, shaping scales, learners, render modes, vec-env counts and seeds, task
options of the wrong type, a step with no game in progress."""

from __future__ import annotations

import math

import numpy as np
import pytest

import cluegym
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.seat_task import make_task
from cluegym.wrappers.selfplay import SelfPlayEnv
from cluegym.wrappers.shaping import PotentialShaping
from cluegym.wrappers.vec_env import make_vec_env


@pytest.mark.parametrize("entry", ["", []])
def test_an_empty_opponent_entry_is_refused_not_replaced_by_the_defaults(entry):
    # "or" fell through to the game's default players (glove:k=16) without a word
    with pytest.raises(ValueError, match="opponents\\['alice'\\]: "):
        SelfPlayEnv("decrypto", "eve", opponents={"alice": entry, "bob": "random"})
    with pytest.raises(ValueError, match="empty agent name"):
        MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": ""})


@pytest.mark.parametrize("scale, error", [(math.nan, ValueError), (-1.0, ValueError), (math.inf, ValueError),
                                          ("1", TypeError)])
def test_a_shaping_scale_that_is_no_finite_number_at_least_zero_is_refused(scale, error):
    with pytest.raises(error, match="shaping must be a"):
        SelfPlayEnv("decrypto", "eve", opponents={"*": "random"}, shaping=scale)
    with pytest.raises((ValueError, TypeError), match="shaping must be a"):
        MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"}, shaping=scale)


def test_a_number_is_a_shaping_scale_of_the_sb3_view_as_of_the_multi_seat_view():
    env = SelfPlayEnv("decrypto", "eve", opponents={"*": "random"}, shaping=0.5)
    assert env.shaping.scale == 0.5
    env.reset(seed=0)  # an AttributeError ('float' object has no attribute 'phi') before
    assert SelfPlayEnv("decrypto", "eve", opponents={"*": "random"}, shaping=0).shaping is None
    with pytest.raises(ValueError, match="gamma must be a discount"):
        PotentialShaping.for_game("decrypto", gamma=1.5)


def test_the_multi_seat_view_refuses_its_misuse_in_one_line():
    with pytest.raises(ValueError, match="render_mode 'human' not supported"):
        MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"}, render_mode="human")
    with pytest.raises(TypeError, match="learners must be 'all'"):
        MultiSeatEnv("decrypto", 3)
    env = MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"})
    with pytest.raises(RuntimeError, match="call reset\\(\\)"):  # an AttributeError before
        env.step(0)
    env.reset(seed=0)
    while env.agents:
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="call reset\\(\\)"):  # a KeyError before
        env.step(0)


@pytest.mark.parametrize("kwargs, message", [({"n_envs": 0}, "n_envs must be an int >= 1"),
                                             ({"n_envs": 2.0}, "n_envs must be an int >= 1"),
                                             ({"seed": None}, "seed must be a non-negative integer"),
                                             ({"seed": -1}, "seed must be a non-negative integer")])
def test_make_vec_env_refuses_counts_and_seeds_before_building(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make_vec_env(**{"n_envs": 2, **kwargs}, game="decrypto", seat="eve", opponents={"*": "random"})


def test_task_options_are_read_as_their_declared_types():
    # --task history=False was the string "False": history on, features of another size
    raw = cluegym.env_module("decrypto").raw_env()
    assert make_task("decrypto", "bob", raw, history="False").featurizer.observation_space.shape == \
        make_task("decrypto", "bob", raw).featurizer.observation_space.shape
    assert make_task("decrypto", "alice", raw, n_candidates="4").options == {"n_candidates": 4}
    with pytest.raises(ValueError, match="decrypto's learner task option n_candidates='x': expected int"):
        make_task("decrypto", "alice", raw, n_candidates="x")
    with pytest.raises(ValueError, match="n_candidates and stride must be >= 1"):
        make_task("decrypto", "alice", raw, n_candidates=-3)
