"""RLlib: PPO with action masking trains on the learning views with zero glue; ``cluegym train
--engine rllib`` trains on a real Ray head on loopback; its checkpoint plays in ``cluegym run``.

Ray runs on this machine only: in-process (2 CPUs, no dashboard, 127.0.0.1) or a head started
with ``ray start --head --block`` on a free loopback port, stopped by signalling that process
(never ``ray stop``, which would stop every Ray on the machine). conftest.py turns usage reports
off and gives the session a random Ray token.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from cluegym.cli import main
from cluegym.wrappers.multiseat import MultiSeatEnv, MultiSeatParallelEnv
from processes import free_port, ray_on_loopback, wait_for_line

ray = pytest.importorskip("ray")

#: A rejected choice costs this much: one in an episode drags its seat's mean return far below
#: the game's own rewards (at most 1 in size), so a mean above -5 means no rejected choice.
PENALTY = -100.0
TINY_PPO = {"train_batch_size_per_learner": 64, "minibatch_size": 32, "num_epochs": 1}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """An in-process Ray of this machine (2 CPUs, loopback, no dashboard) for the module."""
    with ray_on_loopback() as ray:
        yield ray


def masked_ppo(env_name: str, policies: dict[str, str]) -> Any:
    """RLlib's PPO with its action-masking module, one module per policy, tiny batches."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    modules = {pid: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [32]})
               for pid in set(policies.values())}
    return (PPOConfig().environment(env_name)
            .multi_agent(policies=set(modules), policy_mapping_fn=lambda agent_id, *args, **kwargs: policies[agent_id])
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
            .env_runners(num_env_runners=0).training(**TINY_PPO).debugging(seed=0))


def train_two_iterations(config: Any) -> tuple[Any, dict[str, Any]]:
    algo = config.build_algo()
    for _ in range(2):
        result = algo.train()
    return algo, result


def check_trained(result: dict[str, Any], seats: list[str]) -> None:
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 2 * TINY_PPO["train_batch_size_per_learner"]
    assert result["learners"], "no learner update ran"
    returns = runners["agent_episode_returns_mean"]
    assert set(returns) <= set(seats) and returns
    assert all(value > -5 for value in returns.values()), f"a masked (rejected) choice was played: {returns}"


def play_masked(module_of: dict[str, Any], env: MultiSeatEnv, games: int) -> int:
    """Play ``games`` games of the AEC view with the modules' sampled actions; return the
    decisions made (every one must be legal and accepted)."""
    import torch

    decisions = 0
    for game in range(games):
        env.reset(seed=game)
        for seat in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            assert "rejected" not in info
            if terminated or truncated:
                env.step(None)
                continue
            batch = {"obs": {key: torch.as_tensor(value, dtype=torch.float32)[None] for key, value in obs.items()}}
            with torch.no_grad():
                logits = module_of[seat].forward_exploration(batch)["action_dist_inputs"][0].numpy()
            probs = np.exp(logits - logits.max())
            action = int(np.random.default_rng(decisions).choice(len(probs), p=probs / probs.sum()))
            assert obs["action_mask"][action] == 1
            env.step(action)
            decisions += 1
    return decisions


def test_rllib_pettingzoo_env_trains_masked_ppo_with_zero_glue(local_ray):
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    def make(config: dict) -> PettingZooEnv:  # the README's env creator, unchanged
        return PettingZooEnv(MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"},
                                          observation_key="observations", invalid_action_penalty=PENALTY))

    register_env("cluegym_decrypto_aec", make)
    policies = {"bob": "bob", "eve": "eve"}
    algo, result = train_two_iterations(masked_ppo("cluegym_decrypto_aec", policies))
    try:
        check_trained(result, ["bob", "eve"])
        modules = {seat: algo.get_module(pid) for seat, pid in policies.items()}
        env = MultiSeatEnv("decrypto", "bob,eve", opponents={"alice": "random"}, observation_key="observations")
        assert play_masked(modules, env, games=3) > 0
    finally:
        algo.stop()


def test_rllib_parallel_pettingzoo_env_trains_masked_ppo_with_zero_glue(local_ray):
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
    from ray.tune.registry import register_env

    def make(config: dict) -> ParallelPettingZooEnv:
        return ParallelPettingZooEnv(MultiSeatParallelEnv("undercover", "all", observation_key="observations",
                                                          invalid_action_penalty=PENALTY))

    register_env("cluegym_undercover_parallel", make)
    seats = [f"player_{i}" for i in range(5)]
    algo, result = train_two_iterations(masked_ppo("cluegym_undercover_parallel", {s: "shared" for s in seats}))
    try:
        check_trained(result, seats)
    finally:
        algo.stop()


#: The CLI run: Decrypto's Bob and Eve, a policy each, two 64-step iterations.
EVAL = {"games": 4, "seed": 5}


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory) -> dict[str, Any]:
    """``cluegym train decrypto --engine rllib`` on a real Ray head on loopback (stopped after)."""
    ray_cli = Path(sys.executable).with_name("ray")
    if not ray_cli.exists():
        pytest.skip(f"no ray command beside {sys.executable}")
    out = tmp_path_factory.mktemp("rllib") / "run"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token"}
    port = free_port()
    temp_dir = tempfile.mkdtemp(prefix="cg-rl-", dir="/tmp")  # short: Ray's socket paths must fit
    head = subprocess.Popen(
        [str(ray_cli), "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp_dir}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    try:
        wait_for_line(head, "Ray runtime started", timeout=90)
        args = ["train", "decrypto", "--engine", "rllib", "--seats", "bob,eve", "--policies", "per-seat",
                "--opponent", "alice=random", "--steps", "128", "--eval-every", "64", "--eval-games",
                str(EVAL["games"]), "--eval-seed", str(EVAL["seed"]), "--baseline", "random", "--out", out.name,
                "--ray-address", f"127.0.0.1:{port}"]
        for key, value in TINY_PPO.items():
            args += ["--algo-arg", f"{key}={value}"]
        # --out relative to the run's folder, as the docs' runs/...: Ray read a relative
        # checkpoint path as a URI with no scheme, and the run stopped at its first save
        run = subprocess.run([sys.executable, "-m", "cluegym.cli", *args], env=env, capture_output=True, text=True,
                             timeout=300, cwd=out.parent)
    finally:
        head.send_signal(signal.SIGTERM)  # --block: the head stops every process it started
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)  # the group start_new_session made for it
            head.wait()
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-3000:]
    return {"out": out, "stdout": run.stdout, "summary": json.loads((out / "summary.json").read_text())}


@pytest.mark.slow
def test_cli_trains_on_a_ray_head_and_writes_the_run_folder(cli_run):
    out, summary, printed = cli_run["out"], cli_run["summary"], cli_run["stdout"]
    assert summary["steps_trained"] == 128 and summary["steps_rounding"] is None
    assert summary["policies"] == {"bob": "bob", "eve": "eve"}
    assert [row["steps"] for row in summary["curve"]] == [0, 64, 128]
    assert summary["final"] == summary["curve"][-1]
    for name in ("curve.png", "eval.csv", "summary.json", "config.json", "checkpoint/cluegym_policies.json",
                 "checkpoint/learner_group/learner/rl_module/bob/module_state.pkl", "checkpoints/step_64"):
        assert (out / name).exists(), name
    header = (out / "eval.csv").read_text().splitlines()[0].split(",")
    assert {"steps", "train_minutes", "bob:decoding_rate", "eve:interception_rate"} <= set(header)
    assert "bob:decoding_rate" in printed and "--agent bob=rllib:path=" in printed
    assert set(summary["baselines"]) == {"random"}


@pytest.mark.slow
def test_the_checkpoint_plays_in_cluegym_run_as_evaluated(cli_run, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(cli_run["out"].parent)
    checkpoint = Path(cli_run["out"].name, "checkpoint")  # relative, as docs/rllib.md's rllib:path=runs/...
    summary_path = tmp_path / "run.json"
    code = main(["run", "decrypto", "--agent", f"bob=rllib:path={checkpoint}", "--agent",
                 f"eve=rllib:path={checkpoint},policy=eve", "--agent", "alice=random", "--games", str(EVAL["games"]),
                 "--seed", str(EVAL["seed"]), "--summary", str(summary_path), "--no-progress", "--no-show"])
    assert code == 0
    played = json.loads(summary_path.read_text())
    assert played["metrics"]["invalid_actions"] == 0.0
    final = cli_run["summary"]["final"]  # the same seeded games: the same numbers as the run's headline
    assert played["metrics"]["interception_rate"] == pytest.approx(final["eve:interception_rate"])
    assert 1.0 - played["metrics"]["miscommunication_rate"] == pytest.approx(final["bob:decoding_rate"])
    with pytest.raises(SystemExit):
        main(["run", "decrypto", "--agent", f"bob=rllib:path={checkpoint},policy=carol", "--no-progress"])
    assert "has no policy 'carol'" in capsys.readouterr().err


def test_cli_rejects_mixed_engine_options(tmp_path):
    with pytest.raises(SystemExit, match="belong to --engine rllib"):
        main(["train", "decrypto", "--seat", "eve", "--seats", "bob,eve"])
    with pytest.raises(SystemExit, match="belong to the sb3 engine"):
        main(["train", "decrypto", "--engine", "rllib", "--tensorboard"])
    with pytest.raises(SystemExit, match="give --seat SEAT"):
        main(["train", "decrypto"])
    with pytest.raises(SystemExit, match="no seat"):
        main(["train", "decrypto", "--engine", "rllib", "--seats", "bob,mallory", "--out", str(tmp_path / "x")])


@pytest.mark.slow
def test_selfplay_snapshots_join_same_role_pools_and_play(local_ray, tmp_path):
    """Undercover players share a role: the learner's snapshots join the other seats' pools."""
    from cluegym.training.rllib_engine import RLlibTrainConfig, train_rllib
    from cluegym.training.rllib_env import PooledMultiSeatEnv

    out = tmp_path / "uc"
    summary = train_rllib(RLlibTrainConfig(
        "undercover", seats=["player_0"], steps=128, opponents={"*": ["random"]}, selfplay=True, snapshot_every=64,
        max_snapshots=2, eval_every=10_000, eval_games=2, algo_kwargs=TINY_PPO, out=str(out), progress=False))
    assert summary["policies"] == {"player_0": "shared"} and summary["steps_trained"] == 128
    snapshots = sorted(p.name for p in (out / "snapshots").iterdir())
    assert snapshots == ["step_128", "step_64"]  # published whole: no half-written folder left
    from cluegym.training.rllib_agent import load_rllib_module
    from cluegym.training.rllib_scorer import ScorerMaskingTorchRLModule

    # Undercover's voter features are laid out per player: the actor is the shared scorer.
    assert isinstance(load_rllib_module(out / "checkpoint", "shared"), ScorerMaskingTorchRLModule)
    view = PooledMultiSeatEnv("undercover", ["player_0"], opponents={"*": ["random"]},
                              snapshot_dir=str(out / "snapshots"), snapshot_policies={"player_3": "shared"},
                              max_snapshots=1, observation_key="observations")
    drawn = set()
    for seed in range(6):
        view.reset(seed=seed)
        drawn.add(view.opponent_specs["player_3"])
        for _ in view.agent_iter():
            obs, _, terminated, truncated, _ = view.last()
            view.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
        assert view.game_env.game_over
    assert drawn == {"random", f"rllib:path={out / 'snapshots' / 'step_128'},policy=shared"}
    assert view.opponent_specs["player_1"] == "random"  # no snapshot policy named for it


def test_every_spec_of_an_opponent_pool_is_checked_when_the_view_is_built():
    """Only a pool's first spec was built with the view: a misspelt later one failed when a
    game drew it, in an env runner, in the middle of the training."""
    from cluegym.agents import AgentSpecError
    from cluegym.training.rllib_env import PooledMultiSeatEnv

    with pytest.raises(AgentSpecError, match="glvoe"):
        PooledMultiSeatEnv("undercover", ["player_0"], opponents={"*": ["random", "glvoe"]})
    with pytest.raises(AgentSpecError, match="an agent spec must be a str"):
        PooledMultiSeatEnv("undercover", ["player_0"], opponents={"player_1": ["random", 3]})


def test_an_rllib_run_refuses_an_earlier_runs_folder_and_replaces_its_snapshots_when_told(tmp_path):
    """An RLlib self-play run's opponents draw from ``<out>/snapshots``: a rerun into the same
    folder played the earlier run's snapshots (the newest by step, until its own steps passed them) from its
    first game, so the same seed no longer trained the same policy."""
    from cluegym.training.config import claim_run_folder
    from cluegym.training.rllib_engine import RLlibTrainConfig, train_rllib
    from cluegym.training.rllib_env import snapshot_specs

    out = tmp_path / "uc"
    (out / "snapshots" / "step_50000").mkdir(parents=True)
    (out / "config.json").write_text("{}")
    (out / "notes.txt").write_text("mine")
    assert len(snapshot_specs(out / "snapshots", "player", 4)) == 1
    with pytest.raises(FileExistsError, match="holds an earlier run \\(config.json, snapshots\\)"):
        train_rllib(RLlibTrainConfig("undercover", seats=["player_0"], steps=64, selfplay=True, out=str(out),
                                     progress=False))
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "notes.txt", "snapshots"]
    assert (out / "config.json").read_text() == "{}"

    claim_run_folder(out, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert snapshot_specs(out / "snapshots", "player", 4) == []


@pytest.mark.parametrize("mistake, message", [
    ({"baselines": ["random", "glvoe"]}, "glvoe"),
    ({"eval_opponents": {"alice": "randon"}}, "randon"),
    ({"opponents": {"alice": ["glove", "glove:kk=1"]}}, "kk"),
    ({"task_options": {"n_candidate": 4}}, "n_candidate"),
    ({"algo_kwargs": {"learning_rate": 1e-3}}, "RLlib's PPO does not take them: .*'learning_rate'"),
    ({"algo_kwargs": {"lr": "abc"}}, "lr must be a number > 0, got 'abc'"),
    ({"algo_kwargs": {"minibatch_size": 1024}}, "`minibatch_size` \\(1024\\) must be <= `train_batch_size_per_learner`"),
    # RLlib's validate() takes these; each failed in the first iteration or trained on silently.
    ({"algo_kwargs": {"gamma": "x"}}, "gamma must be a number in \\[0, 1\\], got 'x'"),
    ({"algo_kwargs": {"lambda_": 2}}, "lambda_ must be a number in \\[0, 1\\], got 2"),
    ({"algo_kwargs": {"num_epochs": -1}}, "num_epochs must be an integer >= 1, got -1"),
    ({"algo_kwargs": {"train_batch_size_per_learner": "a"}}, "train_batch_size_per_learner must be an integer"),
    ({"algo_kwargs": {"clip_param": -1}}, "clip_param must be a number > 0"),
    ({"algo_kwargs": {"fcnet_hiddens": "64"}}, "fcnet_hiddens must be a list of layer sizes >= 1"),
])
def test_an_rllib_run_with_a_mistake_leaves_its_folder_alone(tmp_path, mistake, message):
    """The RLlib run wrote ``config.json`` before it checked its seats, opponents, options and
    baselines (as the SB3 run did)."""
    from cluegym.training.rllib_engine import RLlibTrainConfig, train_rllib

    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "config.json").write_text("{}")
    for out in (tmp_path / "new", kept):
        with pytest.raises(ValueError, match=message):
            train_rllib(RLlibTrainConfig("decrypto", seats=["bob", "eve"], steps=64, out=str(out), progress=False,
                                         **{"opponents": {"alice": ["glove"]}, **mistake}))
    assert not (tmp_path / "new").exists() and sorted(kept.iterdir()) == [kept / "config.json"]
    assert (kept / "config.json").read_text() == "{}"


@pytest.mark.parametrize("field, value, message", [
    ("seed", -1, "seed must be a non-negative integer, got -1"),
    ("seed", 2**32, "seed must be below 2\\*\\*32"),
    ("eval_seed", -2, "eval_seed must be a non-negative integer, got -2"),
])
def test_an_rllib_config_refuses_a_seed_no_run_can_use(field, value, message):
    from cluegym.training.rllib_engine import RLlibTrainConfig

    with pytest.raises(ValueError, match=message):
        RLlibTrainConfig("decrypto", **{field: value})


def test_an_rllib_evaluation_with_errored_games_reports_no_number(monkeypatch):
    """As the SB3 run's: metrics over only the games that finished were reported as the run's."""
    import cluegym.agents
    from cluegym.training.evaluation import EvaluationError
    from cluegym.training.rllib_engine import RLlibTrainConfig, evaluate_seats
    from cluegym.training.rllib_env import PooledMultiSeatEnv

    monkeypatch.setitem(cluegym.agents.AGENTS, "breaks", "test_train:BreaksEveryOtherGame")
    config = RLlibTrainConfig("decrypto", seats=["bob", "eve"], opponents={"alice": ["random"]}, eval_games=8)
    view = PooledMultiSeatEnv("decrypto", ["bob", "eve"], opponents={"alice": ["random"]})
    with pytest.raises(EvaluationError, match=r"evaluating breaks in bob, random in eve: \d of 8 games errored"):
        evaluate_seats(config, view, {"bob": "breaks", "eve": "random"})
    assert "eve:interception_rate" in evaluate_seats(config, view, {"bob": "random", "eve": "random"})


def test_an_rllib_run_stopped_by_a_failed_evaluation_keeps_its_curve(local_ray, tmp_path, monkeypatch):
    """As the SB3 run's: the evaluations so far lived only in memory when the run stopped."""
    import cluegym.agents
    from cluegym.training.evaluation import EvaluationError
    from cluegym.training.rllib_engine import RLlibTrainConfig, train_rllib
    from test_train import StopsAfterItsGames

    monkeypatch.setitem(cluegym.agents.AGENTS, "stops", "test_train:StopsAfterItsGames")
    monkeypatch.setattr(StopsAfterItsGames, "games_left", 2)
    out = tmp_path / "uc"
    with pytest.raises(EvaluationError, match="of 2 games errored") as stopped:
        train_rllib(RLlibTrainConfig(
            "undercover", seats=["player_0"], steps=256, opponents={"*": ["random"]},
            eval_opponents={"player_1": "stops"}, eval_every=64, eval_games=2, algo_kwargs=TINY_PPO,
            out=str(out), progress=False))
    assert stopped.value.__notes__ == [
        f"the run stopped after 64 env steps, before its summary.json; {out} keeps eval.csv (1 evaluation), "
        "checkpoints/ (the last at step 64); rerunning into it needs --overwrite (overwrite=True)"]
    assert (out / "eval.csv").read_text().splitlines()[1].startswith("0,")
    assert not (out / "summary.json").exists() and not (out / "checkpoint").exists()


def test_shaping_reaches_the_rllib_env_and_is_checked():
    """``shaping`` goes from the run's config to every env runner's view, with PPO's gamma."""
    from cluegym.training.rllib_engine import RLlibTrainConfig
    from cluegym.training.rllib_env import make_rllib_env

    with pytest.raises(ValueError, match="shaping must be a finite scale >= 0"):
        RLlibTrainConfig("undercover", shaping=-1.0)
    env = make_rllib_env({"game": "undercover", "learners": ["player_0"], "opponents": {"*": ["random"]},
                          "shaping": 0.5, "gamma": 0.9})
    assert env.env.shaping.scale == 0.5 and env.env.shaping.gamma == 0.9
    assert make_rllib_env({"game": "undercover", "learners": ["player_0"]}).env.shaping is None


def test_demonstration_driver_table_and_options(tmp_path, capsys):
    """The driver's table names the setup's baseline and random player, bolds the trained row;
    ``--algo-arg`` values parse as JSON."""
    from cluegym.benchmarks.train_rllib import SETUPS, rllib_table
    from cluegym.harness.arguments import parse_options

    summary = {"metric": "listener_accuracy", "config": {"eval_games": 50}, "steps": 6144, "train_minutes": 1.5,
               "untrained": {"listener_accuracy": 0.338}, "final": {"listener_accuracy": 0.651},
               "baselines": {"caption": 0.556, "task-random": 0.337}}
    table = rllib_table(summary, SETUPS["dixit"], 432.0, tmp_path)
    assert "| trained (RLlib PPO, checkpoint reloaded) | **0.651** | 6,144 | 1.5 |" in table
    assert "| embedding baseline (`caption`) | 0.556 | - | - |" in table
    assert "chance 1/3" in table and "(50 eval games)" in table
    assert "7.2 min" in (tmp_path / "table.md").read_text() and "7.2 min" in capsys.readouterr().out
    assert parse_options(["lr=0.0003", "fcnet_hiddens=[128,128]", "name=x"], "--algo-arg") == {
        "lr": 0.0003, "fcnet_hiddens": [128, 128], "name": "x"}  # what --algo-arg gives the config
    with pytest.raises(SystemExit, match="--algo-arg 'lr' must look like KEY=VALUE"):
        parse_options(["lr"], "--algo-arg")
