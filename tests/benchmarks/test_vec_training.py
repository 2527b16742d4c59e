"""The vectorisation benchmark: MaskablePPO on SB3 views in one process or in subprocesses."""

from __future__ import annotations

import pytest

from cluegym.benchmarks.vec_training import VecRate, main, measure_training


def test_each_configuration_trains_and_prints_its_rate(capsys):
    assert main(["--games", "decrypto", "--steps", "64", "--n-envs", "2", "--random-opponents",
                 "--worker-threads", "1,default"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("host: ") and lines[1].startswith("build: ") and "against random players" in lines[2]
    rows = [line.split() for line in lines[4:]]
    assert [(r[0], r[1], r[2]) for r in rows] == [("decrypto", "dummy", "-"), ("decrypto", "subproc", "1"),
                                                  ("decrypto", "subproc", "default")]
    for row in rows:
        decisions, seconds, rate = int(row[3]), float(row[4]), float(row[5])
        # whole rollouts: 64 decisions asked of 2 envs of 256 steps round up to one rollout
        assert decisions == 512 and seconds > 0 and rate > 0


def test_a_rate_is_decisions_over_wall_seconds():
    assert VecRate(1024, 2.0).per_second == 512.0


def test_measure_training_times_the_default_opponents_unless_asked(monkeypatch):
    seen = {}

    def fake_make_vec_env(n_envs, **kwargs):
        seen.update(kwargs, n_envs=n_envs)
        raise RuntimeError("stop here")

    monkeypatch.setattr("cluegym.wrappers.vec_env.make_vec_env", fake_make_vec_env)
    with pytest.raises(RuntimeError, match="stop here"):
        measure_training("taboo", "subproc", 64, worker_threads=None)
    assert seen["n_envs"] == 4 and seen["worker_threads"] is None and seen["seat"] == "defender"
    assert "opponents" not in seen  # SelfPlayEnv's defaults: the game's DEFAULT_AGENTS


@pytest.mark.parametrize("argv, message", [
    (["--vec", "threads"], "--vec takes dummy and/or subproc"),
    (["--worker-threads", "0"], "--worker-threads"),
    (["--games", "chess"], "no learner task"),
    (["--steps", "0"], "must be >= 1"),
])
def test_bad_arguments_are_refused_before_anything_runs(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err
