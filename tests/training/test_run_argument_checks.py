"""A training run refuses what would make its numbers wrong or fail it later, before it
touches its folder: evaluation opponents in the learner's seat or a seat the game lacks,
baselines that cannot be built, arguments the run sets itself, counts and scales of the
wrong type; and '*' means the same in both engines."""

from __future__ import annotations

import json

import pytest

from cluegym.cli import main as cli_main
from cluegym.training.config import TrainConfig
from cluegym.training.rllib_engine import RLlibTrainConfig
from cluegym.training.train import train

RANDOM = {"alice": "random", "bob": "random"}


@pytest.mark.parametrize("changes, error, message", [
    # the learner's own seat: every evaluation played random there, policy and baselines alike
    ({"eval_opponents": {**RANDOM, "eve": "random"}}, ValueError, "name the learning seat\\(s\\) eve"),
    ({"eval_opponents": {"zed": "random"}}, ValueError, "seat\\(s\\) 'zed' that decrypto lacks"),
    ({"baselines": ["ppo:path=/nonexistent/policy.zip"]}, FileNotFoundError, "does not exist"),
    ({"algo_kwargs": {"seed": 3}}, ValueError, "the run sets seed itself \\(--seed\\)"),
    ({"algo_kwargs": {"policy_kwargs": 3}}, ValueError, "policy_kwargs must be an object of keyword arguments"),
])
def test_a_run_refuses_before_it_touches_its_folder(tmp_path, changes, error, message):
    out = tmp_path / "run"
    with pytest.raises(error, match=message):  # from the config or the run, before the folder
        train(TrainConfig("decrypto", "eve", steps=64, n_envs=1, opponents=RANDOM, out=str(out), progress=False,
                          **changes))
    assert not out.exists()


@pytest.mark.parametrize("field, value, error, message", [
    ("steps", 2.5, TypeError, "steps must be an integer >= 1, got 2.5"),
    ("n_envs", True, TypeError, "n_envs must be an integer >= 1, got True"),
    ("eval_games", 0, ValueError, "eval_games must be >= 1, got 0"),
    ("shaping", float("nan"), ValueError, "shaping must be a finite scale >= 0, got nan"),
    ("shaping", -2.0, ValueError, "shaping must be a finite scale >= 0"),
    ("shaping", "1", TypeError, "shaping must be a scale"),
])
def test_a_config_refuses_counts_and_scales_of_the_wrong_kind(field, value, error, message):
    with pytest.raises(error, match=message):
        TrainConfig("decrypto", "eve", **{field: value})
    if field != "n_envs":
        with pytest.raises(error, match=message):
            RLlibTrainConfig("decrypto", **{field: value})


def test_a_wildcard_opponent_fills_the_seats_not_named_whatever_the_order(tmp_path):
    # the sb3 engine put '*' into every pool: alice's pool was [glove, random] and its
    # evaluations played glove, the first spec, where RLlib (and the views) play random
    for order in (["*=random", "alice=glove"], ["alice=glove", "*=random"]):
        out = tmp_path / "-".join(order).replace("*", "all").replace("=", "_")
        argv = ["train", "decrypto", "--seat", "eve", "--steps", "64", "--n-envs", "1", "--eval-games", "1",
                "--algo-arg", "n_steps=64", "--algo-arg", "batch_size=32", "--out", str(out)]
        for item in order:
            argv += ["--opponent", item]
        assert cli_main(argv) == 0
        assert json.loads((out / "config.json").read_text())["opponents"] == {"alice": ["glove"], "bob": ["random"]}
