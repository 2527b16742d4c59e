"""PettingZoo conformance of every registered game: api_test, seed_test, parallel where offered."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

import cluegym

GAMES = sorted(cluegym.ENVS)


@pytest.fixture(autouse=True)
def _quiet_api_warnings():
    # api_test warns about Dict observations and Text spaces, which cluegym uses by design.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("game_id", GAMES)
def test_api(game_id):
    module = cluegym.env_module(game_id)
    api_test(module.env(), num_cycles=60)


@pytest.mark.parametrize("game_id", GAMES)
def test_seed(game_id):
    module = cluegym.env_module(game_id)
    seed_test(module.env, num_cycles=60)


@pytest.mark.parametrize("game_id", GAMES)
def test_parallel_api_where_offered(game_id):
    module = cluegym.env_module(game_id)
    if not hasattr(module, "parallel_env"):
        pytest.skip(f"{game_id} has no parallel view")
    parallel_api_test(module.parallel_env(), num_cycles=60)


@pytest.mark.parametrize("game_id", GAMES)
def test_registry_exposes_game_module_contract(game_id):
    module = cluegym.env_module(game_id)
    for name in ("env", "raw_env", "metrics", "DEFAULT_AGENTS"):
        assert hasattr(module, name), f"{game_id} module lacks {name}"
    env = cluegym.make(game_id.rsplit("_v", 1)[0])
    assert env.metadata["name"] == game_id
    assert set(module.DEFAULT_AGENTS) <= set(env.possible_agents) | {"*"}
