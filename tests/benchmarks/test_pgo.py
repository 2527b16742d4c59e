"""The training run of the profile-guided build (cluegym.benchmarks.pgo)."""

from __future__ import annotations

import pytest

from cluegym.benchmarks import pgo


def test_the_training_run_plays_every_game_in_both_modes():
    rates = pgo.train(["taboo", "decrypto"], seconds=0.05, views=False, progress=False)
    assert list(rates) == ["taboo (digests)", "taboo (no digests)", "decrypto (digests)", "decrypto (no digests)"]
    assert all(rate > 0 for rate in rates.values())


def test_the_training_run_plays_the_learning_views():
    rates = pgo.train(["taboo"], seconds=0.05, view_seconds=0.05, progress=False)
    assert {"taboo (sb3 view)", "taboo (multi-seat view)"} <= set(rates)
    assert all(rate > 0 for rate in rates.values())


def test_the_command_line_refuses_a_run_of_no_time(capsys):
    with pytest.raises(SystemExit):
        pgo.main(["--seconds", "0"])
    assert "--seconds and --view-seconds must be positive" in capsys.readouterr().err
    assert pgo.main(["--games", "taboo", "--seconds", "0.05", "--no-views", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "taboo (no digests)" in out and "training run:" in out
