"""Undercover's options (validated with clear errors) and word-pair lists (CoMet's 200
shipped pairs, themes, your own files)."""

from __future__ import annotations

import pytest

from cluegym.envs.undercover.config import UndercoverConfig
from cluegym.envs.undercover.env import raw_env
from cluegym.envs.undercover.word_pairs import load_word_pairs


def test_config_validation_and_word_pairs(tmp_path):
    pairs = load_word_pairs()
    assert len(pairs) == 200 and len(load_word_pairs(themes="animals")) == 100
    assert ("bee", "butterfly") in pairs and ("cow's milk", "goat's milk") in pairs
    with pytest.raises(ValueError, match="num_undercover"):
        UndercoverConfig(num_players=5, num_undercover=3)
    with pytest.raises(ValueError, match="num_players"):
        UndercoverConfig(num_players=2, num_undercover=1)
    with pytest.raises(ValueError, match="timeout_winner"):
        UndercoverConfig(timeout_winner="eve")
    with pytest.raises(ValueError, match="theme"):
        load_word_pairs(themes="cars")
    with pytest.raises(FileNotFoundError):
        raw_env(word_pairs=str(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match="undercover_seats"):
        raw_env(undercover_seats=[0])
    text = tmp_path / "pairs.txt"
    text.write_text("# mine\ncar, truck\nsun, moon\n")
    env = raw_env(word_pairs=str(text), num_players=3, num_undercover=1, undercover_seats=[2])
    env.reset(seed=0)
    assert {env.state.civilian_word, env.state.undercover_word} in ({"car", "truck"}, {"sun", "moon"})
    assert env.state.roles == ("civilian", "civilian", "undercover")
    bad = tmp_path / "bad.txt"
    bad.write_text("car, car\n")
    with pytest.raises(ValueError, match="two different words"):
        raw_env(word_pairs=str(bad))
