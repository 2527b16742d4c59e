"""Training: a short MaskablePPO run measurably improves Eve; saved policies play as agents."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.benchmarks.match import run_match
from cluegym.cli import main as cli_main
from cluegym.training.train import TrainConfig, evaluate_agent, train

EVE_OPPONENTS = {"alice": ["glove:k=16"], "bob": ["glove"]}


@pytest.fixture(scope="module")
def eve_run(tmp_path_factory):
    """One short seeded run (about a minute on 2 cores), shared by the tests below."""
    out = tmp_path_factory.mktemp("eve")
    config = TrainConfig("decrypto", "eve", steps=1536, n_envs=2, opponents=EVE_OPPONENTS, eval_every=10_000,
                         eval_games=40, eval_seed=3, baselines=["random"], shaping=1.0, seed=0, out=str(out),
                         progress=False)
    return config, train(config)


@pytest.mark.slow
def test_short_training_run_improves_over_its_untrained_start(eve_run):
    config, summary = eve_run
    untrained, trained = summary["untrained"]["interception_rate"], summary["final"]["interception_rate"]
    print(f"eve interception rate: untrained {untrained:.3f} -> trained {trained:.3f}")
    assert summary["steps"] >= config.steps
    assert trained >= untrained + 0.2, (untrained, trained)
    assert trained >= summary["baselines"]["random"] + 0.2


@pytest.mark.slow
def test_run_folder_has_policy_logs_curve(eve_run):
    config, summary = eve_run
    out = config.out
    for name in ("policy.zip", "policy.json", "curve.png", "eval.csv", "progress.csv", "summary.json", "config.json"):
        assert (Path(out) / name).is_file(), name
    meta = json.loads((Path(out) / "policy.json").read_text())
    assert meta["game"] == "decrypto" and meta["seat"] == "eve" and meta["algo"] == "maskable_ppo"
    progress = (Path(out) / "progress.csv").read_text().splitlines()[0]
    assert "rollout/game_return_mean" in progress  # the unshaped return is always logged


@pytest.mark.slow
def test_saved_policy_plays_any_match_and_is_deterministic(eve_run):
    config, summary = eve_run
    spec = f"ppo:path={summary['policy']}"
    again = evaluate_agent(config, spec, task=None)
    assert again["interception_rate"] == pytest.approx(summary["final"]["interception_rate"])
    result = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove", "eve": spec}, games=3, seed=9, progress=False)
    assert result["metrics"]["invalid_actions"] == 0.0
    with pytest.raises(ValueError, match="plays seat 'eve'"):
        make_agent(spec, game="decrypto", seat="bob", action_space=cluegym.make("decrypto").action_space("bob"))


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_maskless_algorithms_train_save_and_never_pick_illegal_codes(tmp_path, algo):
    config = TrainConfig("decrypto", "eve", algo=algo, steps=300, n_envs=1, opponents=EVE_OPPONENTS,
                         eval_every=10_000, eval_games=4, out=str(tmp_path), progress=False,
                         algo_kwargs={"learning_starts": 50} if algo == "dqn" else {"n_steps": 64})
    summary = train(config)
    env = cluegym.make("decrypto")
    agent = make_agent(f"ppo:path={summary['policy']}", game="decrypto", seat="eve", action_space=env.action_space("eve"))
    rng = np.random.default_rng(0)
    for _ in range(50):  # random masks: the chosen code is always one the mask allows
        env.reset(seed=int(rng.integers(1000)))
        obs = dict(env.observe("eve"))
        mask = (rng.random(24) < 0.3).astype(np.int8)
        mask[rng.integers(24)] = 1
        obs["action_mask"] = mask
        obs["hints"] = ("fruit", "saddle", "tower")
        assert mask[agent.act(obs, {})] == 1


def test_cli_train_writes_a_playable_policy(tmp_path, capsys):
    out = tmp_path / "run"
    code = cli_main(["train", "decrypto", "--seat", "eve", "--steps", "128", "--n-envs", "1", "--eval-games", "3",
                     "--opponent", "alice=glove:k=16", "--opponent", "bob=glove", "--algo-arg", "n_steps=64",
                     "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "interception_rate" in printed and "ppo:path=" in printed
    assert (out / "policy.zip").is_file() and (out / "curve.png").is_file()
    with pytest.raises(SystemExit, match="no seat 'mallory'"):
        cli_main(["train", "decrypto", "--seat", "mallory"])
    with pytest.raises(SystemExit, match="unknown algorithm"):
        cli_main(["train", "decrypto", "--seat", "eve", "--algo", "sac", "--out", str(tmp_path / "x")])


@pytest.mark.slow
def test_selfplay_snapshots_join_the_pool_and_play_other_seats(tmp_path):
    """Undercover players share a role: snapshots of the learner fill the other seats."""
    config = TrainConfig("undercover", "player_0", steps=96, n_envs=1, opponents={f"player_{i}": ["glove:infer=false"] for i in range(1, 5)},
                         selfplay=True, snapshot_every=32, max_snapshots=2, eval_every=10_000, eval_games=2,
                         out=str(tmp_path), progress=False, algo_kwargs={"n_steps": 32})
    summary = train(config)
    snapshots = sorted((tmp_path / "snapshots").glob("*.zip"))
    assert len(snapshots) >= 2
    env = cluegym.make("undercover")
    snap = make_agent(f"ppo:path={snapshots[-1]}", game="undercover", seat="player_3",
                      action_space=env.action_space("player_3"))
    assert snap.task.seat == "player_3" and snap.task.role == "player"
    result = run_match("undercover", {"player_3": f"ppo:path={summary['policy']}", "*": "glove:infer=false"},
                       games=2, seed=1, progress=False)
    assert result["games"] == 2
