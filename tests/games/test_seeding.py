"""cluegym.envs.core.seeding.default_rng: numpy's default_rng(seed), built faster."""

import pickle
import shutil

import numpy as np
import pytest

import cluegym
from cluegym.envs.core import seeding
from cluegym.envs.core.seeding import default_rng


def test_the_fast_path_is_built_where_a_compiler_is():
    if not seeding.ACCELERATED and (shutil.which("cc") or shutil.which("gcc")):
        pytest.fail("a C compiler is here but cluegym.envs.core._seeding was not built (pip install -e .)")


def _seeds():
    draws = np.random.default_rng(2024).integers(0, 2**63, 3000, dtype=np.int64).tolist()
    return [0, 1, 2, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**63, 2**64 - 1, *draws]


def test_the_generator_is_numpys_for_every_seed():
    for seed in _seeds():
        ours, numpys = default_rng(seed), np.random.default_rng(seed)
        assert type(ours) is np.random.Generator and type(ours.bit_generator) is np.random.PCG64
        assert ours.bit_generator.state == numpys.bit_generator.state, seed
    ours, numpys = default_rng(99), np.random.default_rng(99)
    assert ours.integers(1000, size=50).tolist() == numpys.integers(1000, size=50).tolist()
    assert ours.random(7).tolist() == numpys.random(7).tolist()


def test_seed_sequence_spawn_and_pickle_are_numpys():
    ours, numpys = default_rng(12345), np.random.default_rng(12345)
    sequence = ours.bit_generator.seed_seq
    assert isinstance(sequence, np.random.SeedSequence)
    assert sequence.entropy == 12345 and sequence.spawn_key == () and sequence.pool_size == 4
    assert sequence.generate_state(4, np.uint64).tolist() == np.random.SeedSequence(12345).generate_state(4, np.uint64).tolist()
    assert sequence.generate_state(3).tolist() == np.random.SeedSequence(12345).generate_state(3).tolist()
    children, numpy_children = ours.spawn(3), numpys.spawn(3)
    assert [c.integers(10**9) for c in children] == [c.integers(10**9) for c in numpy_children]
    assert sequence.n_children_spawned == 3
    copy = pickle.loads(pickle.dumps(ours))
    assert copy.integers(10**9, size=4).tolist() == ours.integers(10**9, size=4).tolist()
    assert pickle.loads(pickle.dumps(sequence)).entropy == 12345


@pytest.mark.parametrize("seed", [None, 2**64, 2**100 + 3, np.int64(5), [1, 2]])
def test_other_seeds_take_numpys_path(seed):
    ours = default_rng(seed)
    if seed is not None:
        assert ours.bit_generator.state == np.random.default_rng(seed).bit_generator.state
    with pytest.raises(ValueError):
        default_rng(-1)


def _records(game, seeds):
    from cluegym.agents import make_agent  # noqa: PLC0415

    env = cluegym.make(game, **({"num_rounds": 2} if game == "dixit" else {}))
    agents = {seat: make_agent("random", game=game, seat=seat, action_space=env.action_space(seat))
              for seat in env.possible_agents}
    records = []
    for seed in seeds:
        env.reset(seed=seed)
        for i, agent in enumerate(agents.values()):
            agent.reset(seed * 10 + i)
        for seat in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            env.step(None if term or trunc else agents[seat].act(obs, info))
        records.append(env.unwrapped.game_record())
    return records


@pytest.mark.parametrize("game", cluegym.registered_games())
def test_games_and_agents_play_as_with_numpys_default_rng(game, monkeypatch):
    # The env's and the agents' generators, ours against numpy's: the same games.
    from cluegym.agents import base as agent_base  # noqa: PLC0415
    from cluegym.envs.core import base as env_base  # noqa: PLC0415

    seeds = (0, 7, 2**63 - 1)
    ours = _records(game, seeds)
    monkeypatch.setattr(env_base, "default_rng", np.random.default_rng)
    monkeypatch.setattr(agent_base, "default_rng", np.random.default_rng)
    assert _records(game, seeds) == ours
