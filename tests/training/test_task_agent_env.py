"""A trained seat's agent (ppo, rllib, task-random) refuses an env its learner task cannot read,
before any game: Dixit with its captions hidden failed every decision as an agent error."""

from __future__ import annotations

import pytest
import torch

from cluegym.agents import run_match
from cluegym.training.cli import _play_command
from cluegym.training.config import TrainConfig
from cluegym.wrappers.selfplay import SelfPlayEnv

torch.set_num_threads(1)

LISTENERS = {f"player_{i}": "random" for i in range(1, 4)}


def _untrained_dixit_policy(tmp_path) -> str:
    from sb3_contrib import MaskablePPO  # noqa: PLC0415

    from cluegym.training.policy_agent import save_policy  # noqa: PLC0415

    env = SelfPlayEnv("dixit", "player_0", opponents=LISTENERS, env_kwargs={"num_rounds": 1})
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, device="cpu")
    # what TrainConfig records: the game's learner defaults filled in
    metadata = {"game": "dixit", "seat": "player_0", "algo": "maskable_ppo", "task_options": env.task.options,
                "env_kwargs": {"num_rounds": 1, "reveal_captions": True}}
    return str(save_policy(model, tmp_path / "policy", metadata))


@pytest.mark.parametrize("agent", ["ppo", "task-random"])
def test_a_dixit_task_agent_refuses_hidden_captions_before_any_game(tmp_path, agent):
    spec = f"ppo:path={_untrained_dixit_policy(tmp_path)}" if agent == "ppo" else "task-random"
    with pytest.raises(ValueError, match=f"^player_0: the {agent} agent's learner task needs reveal_captions=True, "
                                         r"the env has False: make the env with it \(cluegym run dixit "
                                         r"--env reveal_captions=true\)"):
        run_match("dixit", {"player_0": spec, **LISTENERS}, games=1, env_kwargs={"num_rounds": 1}, progress=False)
    summary = run_match("dixit", {"player_0": spec, **LISTENERS}, games=1, progress=False,
                        env_kwargs={"num_rounds": 1, "reveal_captions": True})
    assert summary["ok"] and summary["errored_games"]["count"] == 0 and not summary["problems"]


def test_the_play_hint_after_training_plays_the_runs_games():
    # the run's options (its evaluation's games), the learner defaults among them (TrainConfig)
    config = TrainConfig("dixit", "player_0", env_kwargs={"num_rounds": 2})
    assert _play_command("dixit", config.env_kwargs) == "cluegym run dixit --env reveal_captions=true --env num_rounds=2"
    assert _play_command("decrypto", {}) == "cluegym run decrypto"
    assert _play_command("decrypto", {"keywords": ["a", "b"]}) == """cluegym run decrypto --env 'keywords=["a", "b"]'"""
