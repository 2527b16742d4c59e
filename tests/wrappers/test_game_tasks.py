"""Learner tasks beyond Decrypto: Undercover voter, Dixit listener (check_env, masks, metrics)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env

from cluegym.training.config import TrainConfig
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.selfplay import SelfPlayEnv
from cluegym.wrappers.undercover import seat_win_rate, vote_accuracy

torch.set_num_threads(1)  # MiniLM on shared cores: one thread is ~30x faster than two


def _random_legal_play(env, steps, seed):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    finished = []
    for _ in range(steps):
        mask = env.action_masks()
        obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert "rejected" not in info, info
        if terminated:
            finished.append(info)
            env.reset()
    return finished


def test_undercover_voter_env_checks_and_masks():
    env = SelfPlayEnv("undercover", "player_2", shaping=True,
                      task_options={"speaker": "glove:infer=false"})
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    mask = env.action_masks()
    assert not mask[2] and mask.sum() == 4  # never oneself
    finished = _random_legal_play(env, 40, seed=1)
    assert finished and all(f["game_return"] in (-1.0, 1.0) for f in finished)
    results = [f["game_result"] for f in finished]
    assert 0.0 <= vote_accuracy(results, "player_2") <= 1.0
    assert 0.0 <= seat_win_rate(results, "player_2") <= 1.0


def test_vote_accuracy_counts_votes_for_the_other_team():
    result = {"roles": {"player_0": "civilian", "player_1": "undercover", "player_2": "civilian"},
              "winner": "civilians",
              "history": [{"votes": {"player_0": "player_1"}}, {"votes": {"player_0": "player_2"}},
                          {"votes": {"player_0": None}}]}
    assert vote_accuracy([result], "player_0") == 0.5
    assert seat_win_rate([result], "player_0") == 1.0 and seat_win_rate([result], "player_1") == 0.0


@pytest.mark.slow
def test_dixit_listener_env_checks_and_masks():
    env = SelfPlayEnv("dixit", "player_0", env_kwargs={"reveal_captions": True, "num_rounds": 4},
                      opponents={f"player_{i}": "caption" for i in range(1, 4)},
                      shaping=True)
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    obs = env._pending[0]
    assert obs["phase"] == 2
    mask = env.action_masks()
    assert not mask[int(obs["own_candidate"])] and mask.sum() == 3
    finished = _random_legal_play(env, 12, seed=2)
    assert finished


@pytest.mark.slow
def test_dixit_listeners_of_a_round_share_the_clue_similarities():
    from cluegym.agents.encoders.sentences import SentenceEncoder
    from cluegym.agents.encoders.words import WordEncoder
    from cluegym.wrappers.dixit import ListenerFeatures

    features = ListenerFeatures(4, 4)
    captions = ["a red boat on a lake", "an old clock tower", "two cats asleep", "a storm over the sea"]

    def listener(clue: str, own: int) -> dict:
        mask = np.ones(4, dtype=np.int8)
        mask[own] = 0
        return {"candidate_ids": np.arange(4), "candidate_captions": tuple(captions), "card_mask": mask,
                "own_candidate": own, "clue": clue, "round": 1}

    first, second, other = (features(listener("sailing", 0)), features(listener("sailing", 2)),
                            features(listener("thunder", 1)))
    again = features(listener("sailing", 0))
    per = lambda vector: vector[:24].reshape(4, 6)  # noqa: E731 - candidates x (sentence, z, word, z, own, legal)
    for clue, vector in (("sailing", first), ("sailing", second), ("thunder", other), ("sailing", again)):
        sentence = SentenceEncoder().matrix(captions) @ SentenceEncoder().vector(clue)
        word = WordEncoder("glove").matrix(captions) @ WordEncoder("glove").vector(clue)
        np.testing.assert_array_equal(per(vector)[:, 0], sentence.astype(np.float32))
        np.testing.assert_array_equal(per(vector)[:, 2], word.astype(np.float32))
    np.testing.assert_array_equal(first, again)
    # the same similarities, standardized over each listener's own legal votes
    assert per(first)[0, 4] == 1 and per(second)[2, 4] == 1 and per(first)[0, 1] == 0 != per(second)[0, 1]


def test_dixit_features_need_captions():
    with pytest.raises(ValueError, match="reveal_captions"):
        env = SelfPlayEnv("dixit", "player_0", env_kwargs={"num_rounds": 2, "reveal_captions": False},
                          opponents={f"player_{i}": "random" for i in range(1, 4)}, task_options={"player": "random"})
        env.reset(seed=0)


def test_dixit_learning_views_reveal_captions_unless_told_otherwise():
    # GameSpec.learner_env: without it every Dixit view refused its first reset (the caption
    # delegate and the listener features read captions) until the user named the option.
    env = SelfPlayEnv("dixit", "player_0", env_kwargs={"num_rounds": 2},
                      opponents={f"player_{i}": "random" for i in range(1, 4)}, task_options={"player": "random"})
    observation, info = env.reset(seed=0)
    assert env.raw.reveal_captions and env.env_kwargs == {"num_rounds": 2}
    assert observation.shape == env.observation_space.shape and info["action_mask"].any()
    multi = MultiSeatEnv("dixit", "all", env_kwargs={"num_rounds": 2}, task_options={"player": "random"})
    multi.reset(seed=0)
    assert multi.game_env.reveal_captions and not multi.game_env.record_observations
    config = TrainConfig(game="dixit", seat="player_0", env_kwargs={"num_rounds": 2})
    assert config.env_kwargs == {"reveal_captions": True, "num_rounds": 2}  # what the policy's metadata records
    assert TrainConfig(game="decrypto", seat="eve").env_kwargs == {}


def test_a_learner_default_the_env_refuses_is_named_as_the_views_own(tmp_path):
    from PIL import Image  # noqa: PLC0415

    for i in range(30):
        Image.new("RGB", (8, 12), (i * 8, 40, 90)).save(tmp_path / f"pic{i:02d}.png")
    view = "dixit's learning views default to reveal_captions=True"
    with pytest.raises(ValueError, match=f"has no captions \\({view}"):
        SelfPlayEnv("dixit", "player_0", env_kwargs={"deck": str(tmp_path)})
    with pytest.raises(ValueError, match=f"has no captions \\({view}"):
        MultiSeatEnv("dixit", "all", env_kwargs={"deck": str(tmp_path)})
    with pytest.raises(ValueError, match="has no captions$"):  # the user's own option: the env's message
        SelfPlayEnv("dixit", "player_0", env_kwargs={"deck": str(tmp_path), "reveal_captions": True})
    with pytest.raises(ValueError, match="need 36$"):  # an error about another option: as the env says it
        SelfPlayEnv("dixit", "player_0", env_kwargs={"deck": str(tmp_path), "num_players": 6, "hand_size": 6})


def test_taboo_defender_guess_task_combines_with_the_speaker():
    env = SelfPlayEnv("taboo", "defender", opponents={"attacker": "glove"})
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    obs, info, candidates = env._pending
    assert candidates[0] == "" and len(candidates) == 8 and env.action_masks().all()
    env.step(0)  # no guess: the game goes on, the delegate's utterance was said
    said = env.raw.game_record()["steps"][1]["action"]
    assert said["guess"] == "" and said["utterance"]
    _, _, candidates = env._pending
    _, reward, terminated, _, info = env.step(1)  # guess the best candidate: the game ends
    assert terminated and info["game_result"]["guess"] == candidates[1]
    assert reward == (1.0 if candidates[1] == info["game_result"]["target"] else -1.0)
    with pytest.raises(ValueError, match="defender"):
        SelfPlayEnv("taboo", "attacker")


def test_a_task_never_offers_an_empty_mask_and_a_sampling_agent_plays_through_it():
    """Nothing legal (no candidate; an env mask of zeros) offers every choice, in one place
    (SeatTask.legal): a softmax over an empty mask would be 0/0 and raise in the agent."""
    from cluegym.training.policy_agent import TaskAgent
    from cluegym.wrappers.featurizers import Featurizer
    from cluegym.wrappers.seat_task import SeatTask

    class Constant(Featurizer):
        observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)

        def features(self, observation, info, candidates=None):
            return np.zeros(2, dtype=np.float32)

    with_candidates = SeatTask("taboo", "defender", Constant(), 4, candidates=lambda obs, info: [])
    assert with_candidates.legal({}, {}, []).tolist() == [True] * 4
    assert with_candidates.legal({}, {}, ["a", "b"]).tolist() == [True, True, False, False]
    by_mask = SeatTask("undercover", "player_0", Constant(), 3)
    assert by_mask.legal({"action_mask": np.zeros(3, np.int8)}, {}, None).tolist() == [True] * 3
    assert by_mask.legal({}, {"action_mask": np.array([0, 1, 0], np.int8)}, None).tolist() == [False, True, False]

    class Sampling(TaskAgent):
        greedy = False

        def choice_scores(self, features, mask):
            return np.zeros(mask.size)

    agent = Sampling("undercover", "player_0", None, seed=0)
    agent.play_task(by_mask, None, 0)
    choices = {agent.act({"action_mask": np.zeros(3, np.int8)}, {}) for _ in range(30)}
    assert choices == {0, 1, 2}


def test_rewards_paid_before_the_learners_first_decision_reach_its_first_step():
    # A Dixit storyteller is paid for round 1 before its first vote: the SB3 and parallel views
    # dropped it (their rewards summed 3 below the game's return), the AEC view delivered it.
    from cluegym.wrappers.multiseat import MultiSeatParallelEnv  # noqa: PLC0415

    early = 0
    env = SelfPlayEnv("dixit", "player_0", env_kwargs={"num_rounds": 2}, opponents={"*": "random"},
                      task_options={"player": "random"})
    rng = np.random.default_rng(0)
    for seed in range(8):
        _, info = env.reset(seed=seed)
        early += env._carried_reward != 0  # paid before the first decision
        total, done = 0.0, False
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            total += info["unshaped_reward"]
        assert total == info["game_return"], seed
    assert early  # the seeds hold such a game
    parallel = MultiSeatParallelEnv("dixit", ["player_0"], opponents={"*": "random"}, env_kwargs={"num_rounds": 2},
                                    task_options={"player": "random"})
    for seed in range(8):
        observations, _ = parallel.reset(seed=seed)
        total = 0.0
        while parallel.agents:
            mask = observations["player_0"]["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0
            observations, rewards, _, _, infos = parallel.step({"player_0": action})
            total += rewards["player_0"]
        assert total == infos["player_0"]["game_return"]["player_0"], seed
