"""PettingZoo conformance of every registered game: api_test, seed_test (AEC and parallel)."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import cluegym
from cluegym.envs.core.seats import seat_name

GAMES = cluegym.game_ids()


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
def test_parallel_api(game_id):
    module = cluegym.env_module(game_id)
    env = module.parallel_env()
    assert env.metadata["is_parallelizable"] and not module.env().metadata["is_parallelizable"]
    parallel_api_test(env, num_cycles=400)


@pytest.mark.parametrize("game_id", GAMES)
def test_parallel_seed(game_id):
    parallel_seed_test(cluegym.env_module(game_id).parallel_env, num_cycles=60)


@pytest.mark.parametrize("game_id", GAMES)
def test_registry_exposes_game_module_contract(game_id):
    module = cluegym.env_module(game_id)
    for name in ("env", "raw_env", "parallel_env", "metrics", "DEFAULT_AGENTS"):
        assert hasattr(module, name), f"{game_id} module lacks {name}"
    env = cluegym.make(game_id.rsplit("_v", 1)[0])
    assert env.metadata["name"] == game_id
    assert set(module.DEFAULT_AGENTS) <= set(env.possible_agents) | {"*"}


@pytest.mark.parametrize("game_id", GAMES)
def test_state_is_the_games_state_in_every_api(game_id):
    # PettingZoo's wrapper calls self.env.state(), which met the raw env's State attribute: a
    # TypeError from env().state(); the parallel env's state() gave the State all along.
    module = cluegym.env_module(game_id)
    wrapped, parallel = module.env(), module.parallel_env()
    assert wrapped.state() is None  # no game before the first reset
    wrapped.reset(seed=3)
    parallel.reset(seed=3)
    assert wrapped.state() is wrapped.unwrapped.state is not None
    assert type(parallel.state()) is type(wrapped.state())


def _forfeit_to_the_end(env) -> dict:
    """Play the current game with every seat's fallback; return its record."""
    raw = env.unwrapped
    while not raw.game_over:
        raw.forfeit("conformance test")
    return raw.game_record()


@pytest.mark.parametrize("game_id", GAMES)
def test_unseeded_resets_continue_the_seeded_generator(game_id):
    # Gymnasium's rule: reset(seed=s) then reset() plays the same games every time.
    runs = []
    for _ in range(2):
        env = cluegym.env_module(game_id).env()
        env.reset(seed=3)
        records = [_forfeit_to_the_end(env)]
        for _ in range(2):
            env.reset()
            records.append(_forfeit_to_the_end(env))
        runs.append(records)
    assert runs[0] == runs[1]
    seeds = [record["seed"] for record in runs[0]]
    assert seeds[0] == 3 and len(set(seeds)) == 3
    replayed = cluegym.env_module(game_id).env()
    replayed.reset(seed=seeds[2])
    assert _forfeit_to_the_end(replayed) == runs[0][2]


@pytest.mark.parametrize("game_id", GAMES)
def test_first_unseeded_reset_draws_entropy(game_id):
    seeds = set()
    for _ in range(2):
        env = cluegym.env_module(game_id).env()
        env.reset()
        seeds.add(env.unwrapped.game_record()["seed"])
    assert len(seeds) == 2


@pytest.mark.parametrize("game", ["dixit", "undercover"])
def test_numbered_seats_follow_the_one_naming_convention(game):
    env = cluegym.make(game)
    assert env.possible_agents == [seat_name(i) for i in range(len(env.possible_agents))]
    assert seat_name(3) == "player_3"


def _mutable_ids(value, found):
    if isinstance(value, (dict, list, set)) or type(value).__module__ == "numpy":
        found.add(id(value))
    if isinstance(value, dict):
        for item in value.values():
            _mutable_ids(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _mutable_ids(item, found)
    return found


@pytest.mark.parametrize("game_id", GAMES)
def test_game_result_is_new_at_every_call(game_id):
    """A finished game's result shares nothing mutable with the env or with another call's
    (the vectorised SB3 env hands it out in infos without a deep copy: wrappers.vec_env)."""
    from cluegym.benchmarks.throughput import play_game

    env = cluegym.make(game_id)
    play_game(env, 0, 0)
    first, second = env.unwrapped.game_result(), env.unwrapped.game_result()
    assert first == second and first == env.unwrapped.game_record()["result"]
    assert not _mutable_ids(first, set()) & _mutable_ids(second, set())
    for value in first.values():  # change every part of one result: the env's stay as they were
        if isinstance(value, (dict, list)):
            value.clear()
    first.clear()
    assert env.unwrapped.game_result() == second
