"""The RLlib sampling benchmark samples real steps from remote env runners on 127.0.0.1."""

from __future__ import annotations

import pytest

from cluegym.benchmarks.rllib_sampling import main, measure_sampling


def test_runners_sample_the_learning_view():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", configure_logging=False,
             log_to_driver=False)
    try:
        row = measure_sampling("decrypto", "bob,eve", runners=1, steps=40, rounds=1)
    finally:
        ray.shutdown()
    assert row["runners"] == 1 and row["steps"] >= 40 and row["steps_per_s"] > 0


def test_bad_runner_counts_are_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        main(["--runners", "0,x"])
    assert "--runners must be positive whole numbers" in capsys.readouterr().err
