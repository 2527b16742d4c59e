"""Potential-based shaping on the multi-agent learning view: per-seat transitions, unshaped
returns still reported, same games as without shaping."""

from __future__ import annotations

import numpy as np
import pytest

from cluegym.wrappers.multiseat import MultiSeatEnv, MultiSeatParallelEnv
from cluegym.wrappers.shaping import PotentialShaping

LEARNERS = "player_0,player_1,player_2"
OPPONENTS = {"*": "random"}


def play_aec(env: MultiSeatEnv, seed: int) -> tuple[dict[str, list[float]], dict]:
    """One game with seeded random legal choices: each seat's rewards as ``last()`` gives
    them, and the end infos."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    rewards: dict[str, list[float]] = {seat: [] for seat in env.possible_agents}
    end: dict = {}
    for seat in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        rewards[seat].append(reward)
        if terminated or truncated:
            end = info
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return rewards, end


def test_undiscounted_shaping_telescopes_to_the_game_return():
    # gamma = 1: a seat's shaping terms sum to -phi(first decision) = 0 (nobody is out before
    # the first vote), so the shaped return equals the game's, while single steps differ.
    shaped = MultiSeatEnv("undercover", LEARNERS, opponents=OPPONENTS,
                          shaping=PotentialShaping.for_game("undercover", gamma=1.0, scale=1.0))
    plain = MultiSeatEnv("undercover", LEARNERS, opponents=OPPONENTS)
    moved = False
    for seed in range(4):
        shaped_rewards, end = play_aec(shaped, seed)
        plain_rewards, plain_end = play_aec(plain, seed)
        assert end["game_result"] == plain_end["game_result"]  # shaping changes no game
        assert end["game_return"] == plain_end["game_return"]
        for seat in shaped.possible_agents:
            assert sum(shaped_rewards[seat]) == pytest.approx(end["game_return"][seat])
            assert end["shaping_return"][seat] == pytest.approx(0.0)
            moved |= not np.allclose(shaped_rewards[seat], plain_rewards[seat])
    assert moved, "no elimination ever shaped a step reward"
    assert "shaping_return" not in plain_end


def test_discounted_shaping_rewards_eliminating_the_other_team():
    env = MultiSeatEnv("undercover", LEARNERS, opponents=OPPONENTS, shaping=2.0)
    assert env.shaping.scale == 2.0 and env.shaping.gamma == 0.99
    for seed in range(3):
        rewards, end = play_aec(env, seed)
        for seat in env.possible_agents:
            total = sum(rewards[seat])
            assert total == pytest.approx(end["game_return"][seat] + end["shaping_return"][seat])
            # -(1 - gamma) * scale * sum of potentials in [-1, 1]: small against the +-1 outcome.
            assert abs(end["shaping_return"][seat]) <= 2.0 * 0.01 * 10


def test_parallel_view_shapes_the_same_way():
    env = MultiSeatParallelEnv("undercover", LEARNERS, opponents=OPPONENTS,
                               shaping=PotentialShaping.for_game("undercover", gamma=1.0))
    rng = np.random.default_rng(0)
    for seed in range(3):
        observations, _ = env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        infos: dict = {}
        while env.agents:
            actions = {seat: int(rng.choice(np.flatnonzero(obs["action_mask"])))
                       for seat, obs in observations.items() if obs["action_mask"].any()}
            observations, rewards, _, _, infos = env.step(actions)
            for seat, reward in rewards.items():
                totals[seat] += reward
        for seat, total in totals.items():
            assert total == pytest.approx(infos[seat]["game_return"][seat])
            assert infos[seat]["shaping_return"][seat] == pytest.approx(0.0)


def test_bad_shaping_is_refused():
    with pytest.raises(TypeError, match="shaping must be a scale or a PotentialShaping"):
        MultiSeatEnv("undercover", LEARNERS, opponents=OPPONENTS, shaping="strong")
    assert MultiSeatEnv("undercover", LEARNERS, opponents=OPPONENTS, shaping=0.0).shaping is None
