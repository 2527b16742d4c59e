"""Training: a short MaskablePPO run measurably improves Eve; saved policies play as agents."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.cli import main as cli_main
from cluegym.agents.random_agent import RandomAgent
from cluegym.training.evaluation import EvaluationError
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


@pytest.mark.parametrize("engine, seats", [("sb3", ["--seat", "eve"]), ("rllib", ["--seats", "eve"])])
def test_train_refuses_an_option_given_twice_before_training(tmp_path, engine, seats):
    # the later one silently won (cluegym run refused it already)
    for flag, first, second in (("--env", "max_turns=4", "max_turns=6"), ("--algo-arg", "gamma=0.9", "gamma=0.99")):
        with pytest.raises(SystemExit) as exited:
            cli_main(["train", "decrypto", *seats, "--engine", engine, flag, first, flag, second,
                      "--out", str(tmp_path / "run")])
        assert f"{flag} name '{first.split('=')[0]}' is given twice" in str(exited.value)
    assert not (tmp_path / "run").exists()


def test_a_rerun_into_an_earlier_runs_folder_is_refused_unless_told_to_replace_it(tmp_path, capsys):
    """A second run into the same folder (the default ``--out`` is the same for every run of a
    game, seat, algorithm and seed) wrote its ``config.json`` over the first run's and left the
    first run's checkpoints beside its own; killed, it left a ``config.json`` that did not
    describe the ``policy.zip`` beside it."""
    out = tmp_path / "run"
    command = ["train", "decrypto", "--seat", "eve", "--steps", "64", "--n-envs", "1", "--eval-games", "2",
               "--opponent", "alice=glove:k=16", "--opponent", "bob=glove", "--algo-arg", "n_steps=64",
               "--out", str(out)]
    assert cli_main(command) == 0
    stale = out / "checkpoints" / "step_999999.zip"
    stale.write_bytes(b"an earlier run's checkpoint")
    (out / "notes.txt").write_text("mine")
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(SystemExit, match="holds an earlier run .*config.json.*policy.zip.*--overwrite"):
        cli_main(command + ["--seed", "1"])
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before

    assert cli_main(command + ["--seed", "1", "--overwrite"]) == 0
    assert not stale.exists() and (out / "notes.txt").read_text() == "mine"
    assert json.loads((out / "config.json").read_text())["seed"] == 1
    assert json.loads((out / "summary.json").read_text())["config"]["seed"] == 1
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_0.json", "step_0.zip", "step_64.json",
                                                                      "step_64.zip"]


def test_a_refused_run_folder_closes_the_subprocess_envs_it_started(tmp_path):
    """The folder was claimed after the envs were built and outside the guard that closes
    them: a refused rerun with ``vec="subproc"`` left its worker processes running."""
    import multiprocessing

    (tmp_path / "config.json").write_text("{}")
    config = TrainConfig("decrypto", "eve", steps=64, n_envs=2, vec="subproc", opponents=EVE_OPPONENTS,
                         eval_games=2, progress=False, out=str(tmp_path))
    running = set(multiprocessing.active_children())  # whatever earlier tests left
    with pytest.raises(FileExistsError, match="holds an earlier run \\(config.json\\)"):
        train(config)
    assert set(multiprocessing.active_children()) == running
    assert sorted(tmp_path.iterdir()) == [tmp_path / "config.json"]


class StopsAfterItsGames(RandomAgent):
    """A random player that plays ``games_left`` games, then raises from every ``reset``: an
    evaluation opponent that plays the step-0 evaluation and breaks the next one."""

    games_left = 2

    def reset(self, seed=None):
        super().reset(seed)
        type(self).games_left -= 1
        if type(self).games_left < 0:
            raise RuntimeError("stopped by the test")


def test_a_run_stopped_by_a_failed_evaluation_keeps_its_curve_and_closes_its_envs(tmp_path, monkeypatch):
    """A run stopped mid-training (here: the step-32 evaluation's games errored) kept its
    checkpoints but not the evaluations that measured them (the curve lived in memory only),
    and with ``vec="subproc"`` left its worker processes running."""
    import multiprocessing

    monkeypatch.setitem(cluegym.agents.AGENTS, "stops", f"{__name__}:StopsAfterItsGames")
    monkeypatch.setattr(StopsAfterItsGames, "games_left", 2)
    config = TrainConfig("decrypto", "eve", steps=128, n_envs=2, vec="subproc", opponents=EVE_OPPONENTS,
                         eval_opponents={"alice": "stops", "bob": "glove"}, eval_every=32, eval_games=2,
                         algo_kwargs={"n_steps": 16}, progress=False, out=str(tmp_path))
    running = set(multiprocessing.active_children())
    with pytest.raises(EvaluationError, match="1 of 2 games errored|2 of 2 games errored") as stopped:
        train(config)
    assert set(multiprocessing.active_children()) == running
    assert stopped.value.__notes__ == [
        f"the run stopped after 32 env steps, before its summary.json; {tmp_path} keeps eval.csv (1 evaluation), "
        "checkpoints/ (the last at step 32); rerunning into it needs --overwrite (overwrite=True)"]
    curve = (tmp_path / "eval.csv").read_text().splitlines()
    assert len(curve) == 2 and curve[0].startswith("steps,train_minutes,") and curve[1].startswith("0,")
    assert not (tmp_path / "summary.json").exists() and not (tmp_path / "policy.zip").exists()


def test_cli_train_interrupted_says_what_the_run_kept_and_exits_130(tmp_path, monkeypatch, capsys):
    """Ctrl-C during a run gave a traceback and lost the curve so far."""
    import cluegym.training.callback

    evaluation_row = cluegym.training.callback.evaluation_row
    evaluated = []

    def evaluation_row_then_ctrl_c(*args, **kwargs):
        if evaluated:
            raise KeyboardInterrupt
        evaluated.append(evaluation_row(*args, **kwargs))
        return evaluated[-1]

    monkeypatch.setattr(cluegym.training.callback, "evaluation_row", evaluation_row_then_ctrl_c)
    out = tmp_path / "run"
    command = ["train", "decrypto", "--seat", "eve", "--steps", "128", "--n-envs", "1", "--eval-games", "2",
               "--eval-every", "64", "--opponent", "alice=glove:k=16", "--opponent", "bob=glove",
               "--algo-arg", "n_steps=64", "--out", str(out)]
    with pytest.raises(SystemExit) as stopped:
        cli_main(command)
    assert stopped.value.code == 130
    printed = capsys.readouterr().err
    assert printed.strip() == (f"cluegym train: interrupted; the run stopped after 64 env steps, before its "
                               f"summary.json; {out} keeps eval.csv (1 evaluation), checkpoints/ (the last at step "
                               "64); rerunning into it needs --overwrite (overwrite=True)")
    assert (out / "eval.csv").read_text().splitlines()[1].startswith("0,")


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


def _policy_parameters(path: Path) -> dict[str, np.ndarray]:
    """A saved policy's network parameters, read from the file itself (no load cache)."""
    from cluegym.training.policy_agent import algorithm_class

    meta = json.loads(path.with_suffix(".json").read_text())
    model = algorithm_class(meta["algo"]).load(str(path), device="cpu")
    return {name: value.cpu().numpy() for name, value in model.policy.state_dict().items()}


def test_cli_train_reports_the_saved_policy_after_its_last_update(tmp_path, capsys):
    """The issue's run in small: --steps 48 is less than one rollout (64 steps) and evaluations
    fall due mid-rollout and on its last step, before its update; the headline must still be
    policy.zip after the last update, with the rounding of the steps said and recorded."""
    from cluegym.training import policy_agent

    out = tmp_path / "run"
    code = cli_main(["train", "decrypto", "--seat", "eve", "--steps", "48", "--eval-every", "32", "--n-envs", "1",
                     "--eval-games", "6", "--eval-seed", "5", "--opponent", "alice=glove:k=16", "--opponent",
                     "bob=glove", "--algo-arg", "n_steps=64", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    # (c) PPO trains whole rollouts: the rounding is printed and recorded, num_timesteps is the truth.
    assert "--steps 48 rounded up to 64 (MaskablePPO rollout = 64 steps x 1 env)" in printed
    assert (summary["steps_requested"], summary["steps_trained"], summary["steps"]) == (48, 64, 64)
    # (a) Every point is measured at an update boundary, the last one after the last update.
    curve = summary["curve"]
    assert [point["steps"] for point in curve] == [0, 64]
    assert summary["final"] == curve[-1]
    last_checkpoint = _policy_parameters(out / "checkpoints" / "step_64.zip")
    saved = _policy_parameters(out / "policy.zip")
    assert last_checkpoint.keys() == saved.keys()
    assert all(np.array_equal(last_checkpoint[name], saved[name]) for name in saved)
    # (b) The headline equals a fresh evaluation of policy.zip as a cluegym agent on the same seeded games.
    policy_agent._LOADED.clear()
    fresh = run_match("decrypto", {"eve": f"ppo:path={out / 'policy.zip'}", "alice": "glove:k=16", "bob": "glove"},
                      games=6, seed=5, progress=False)
    fresh_numbers = {k: v for k, v in fresh["metrics"].items() if isinstance(v, (int, float))}
    assert {k: summary["final"][k] for k in fresh_numbers} == fresh_numbers


def test_evaluations_fall_on_update_boundaries_and_leave_training_alone(tmp_path):
    """Points at 0, 64, 128 for two 64-step rollouts (none mid-rollout), and evaluating
    (which loads a network, drawing from torch's RNG) does not change what is trained."""
    def run(eval_every: int, out: str) -> dict:
        return train(TrainConfig("decrypto", "eve", steps=128, n_envs=1, opponents=EVE_OPPONENTS, eval_every=eval_every,
                                 eval_games=2, eval_seed=5, seed=0, out=str(tmp_path / out), progress=False,
                                 algo_kwargs={"n_steps": 64}))

    often, never = run(32, "often"), run(10_000, "never")
    assert [point["steps"] for point in often["curve"]] == [0, 64, 128]
    assert [point["steps"] for point in never["curve"]] == [0, 128]
    assert often["steps_rounding"] is None and often["steps_trained"] == 128
    first, second = _policy_parameters(Path(often["policy"])), _policy_parameters(Path(never["policy"]))
    assert all(np.array_equal(first[name], second[name]) for name in first)


@pytest.mark.parametrize("mistake, error, message", [
    ({"task_options": {"n_candidate": 4}}, ValueError, "n_candidate"),
    ({"baselines": ["random", "glvoe"]}, ValueError, "glvoe"),
    ({"opponents": {"alice": ["glove:k=16"], "bob": ["glove:kk=3"]}}, ValueError, "kk"),
    ({"eval_opponents": {"alice": "glove", "bob": "randon"}}, ValueError, "randon"),
    ({"algo_kwargs": {"n_epoch": 4}}, ValueError, "MaskablePPO does not take n_epoch; it takes batch_size, .*n_epochs"),
    ({"algo": "dqn", "algo_kwargs": {"n_epochs": 4}}, ValueError, "DQN does not take n_epochs"),
])
def test_a_mistake_in_the_run_fails_before_its_folder_is_touched(tmp_path, mistake, error, message):
    """A misspelt option or agent spec failed after ``config.json`` was written (the baselines'
    after the earlier ones were evaluated): a new folder was left holding only ``config.json``,
    and an earlier run's folder got a ``config.json`` that no longer described its
    ``policy.zip``."""
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "config.json").write_text('{"steps": 1536}')
    for out in (tmp_path / "new", kept):
        config = TrainConfig("decrypto", "eve", steps=64, n_envs=1, eval_games=2, progress=False, out=str(out),
                             **{"opponents": EVE_OPPONENTS, **mistake})
        with pytest.raises(error, match=message):
            train(config)
    assert not (tmp_path / "new").exists()
    assert (kept / "config.json").read_text() == '{"steps": 1536}' and sorted(kept.iterdir()) == [kept / "config.json"]


@pytest.mark.parametrize("algo, name, value, kind", [
    ("maskable_ppo", "gamma", "x", "a number in \\[0, 1\\]"),
    ("maskable_ppo", "gamma", 1.5, "a number in \\[0, 1\\]"),
    ("maskable_ppo", "gae_lambda", 2, "a number in \\[0, 1\\]"),
    ("maskable_ppo", "n_epochs", 0, "an integer >= 1"),
    ("ppo", "batch_size", 0, "an integer >= 1"),
    ("ppo", "n_steps", 8.5, "an integer >= 1"),
    ("ppo", "clip_range", -1, "a number > 0"),
    ("a2c", "ent_coef", "x", "a number >= 0"),
    ("a2c", "learning_rate", 0, "a number > 0"),
    ("dqn", "exploration_fraction", 3, "a number in \\[0, 1\\]"),
    ("dqn", "learning_starts", True, "an integer >= 0"),
])
def test_an_algorithm_value_the_library_would_misuse_is_refused_by_the_config(algo, name, value, kind):
    """SB3 takes these unchecked: ``gamma="x"``, ``n_epochs=0`` or ``batch_size=0`` failed in
    the first update, after the run had claimed its folder and evaluated its baselines;
    ``gamma=1.5``, ``gae_lambda=2`` and ``clip_range=-1`` trained on without a word."""
    with pytest.raises(ValueError, match=f"algo_kwargs \\(--algo-arg\\): {name} must be {kind}, got {value!r}"):
        TrainConfig("decrypto", "eve", algo=algo, algo_kwargs={name: value})
    TrainConfig("decrypto", "eve", algo=algo, algo_kwargs={name: None, "gamma": 1, "learning_rate": lambda _: 1e-3})


@pytest.mark.parametrize("field, value, message", [
    ("seed", -1, "seed must be a non-negative integer, got -1"),
    ("seed", 2**32, "seed must be below 2\\*\\*32"),
    ("eval_seed", -1, "eval_seed must be a non-negative integer, got -1"),
])
def test_a_seed_no_run_can_use_is_refused_by_the_config(field, value, message):
    """``--eval-seed -1`` trained the whole run, then every evaluation game errored and the run
    ended in a KeyError; ``--seed 2**32`` failed in numpy's ``np.random.seed``."""
    with pytest.raises(ValueError, match=message):
        TrainConfig("decrypto", "eve", **{field: value})


class BreaksEveryOtherGame(RandomAgent):
    """A random player whose ``reset`` raises in every game with an odd seed: those games error."""

    def reset(self, seed=None):
        super().reset(seed)
        if seed is not None and seed % 2:
            raise RuntimeError(f"broke in the game seeded {seed}")


def test_an_evaluation_with_errored_games_reports_no_number(monkeypatch):
    """An evaluation reported its metrics over the games that happened to finish: a curve
    point or baseline could stand on 3 of 8 games, and all-errored games gave a KeyError."""
    monkeypatch.setitem(cluegym.agents.AGENTS, "breaks", f"{__name__}:BreaksEveryOtherGame")
    config = TrainConfig("decrypto", "eve", opponents=EVE_OPPONENTS, eval_games=8, progress=False)
    with pytest.raises(EvaluationError, match=r"evaluating breaks in eve: \d of 8 games errored \(game \d+: "
                                              r"RuntimeError: broke in the game seeded"):
        evaluate_agent(config, "breaks")
    assert set(evaluate_agent(config, "random")) >= {"interception_rate"}
