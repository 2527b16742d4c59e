"""cluegym.envs.core.rng: numpy's default_rng, integers and choice, with numpy's results."""

import pickle
import shutil

import numpy as np
import pytest

import cluegym
from cluegym.envs.core import rng as fast
from cluegym.envs.core.rng import choice_without_replacement, default_rng, integers, permutation
from random_play import random_agents, start_game


def test_the_fast_path_is_built_where_a_compiler_is():
    if not fast.ACCELERATED and (shutil.which("cc") or shutil.which("gcc")):
        pytest.fail("a C compiler is here but cluegym.envs.core._rng was not built (pip install -e .)")


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
    env = cluegym.make(game, **({"num_rounds": 2} if game == "dixit" else {}))
    agents = random_agents(env, game)
    records = []
    for seed in seeds:
        start_game(env, agents, seed)
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
    # and numpy's own draws: rng.py's functions without the extension
    monkeypatch.setattr(fast, "_integers", None)
    monkeypatch.setattr(fast, "_choice", None)
    monkeypatch.setattr(fast, "_permutation", None)
    assert _records(game, seeds) == ours


_HIGHS = [1, 2, 3, 5, 24, 680, 2**16 + 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 3,
          2**62 + 5, 2**63 - 1, 2**63]


def test_integers_are_numpys_draws_and_leave_numpys_state():
    for seed in range(200):
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        for high in _HIGHS:
            for _ in range(3):
                assert integers(ours, high) == int(numpys.integers(high)), (seed, high)
            # other draws in between, some leaving half of a 64-bit word kept for the next
            # 32-bit draw (numpy's has_uint32)
            assert ours.random() == numpys.random()
            if seed % 2:
                assert ours.integers(2**32, dtype=np.uint32) == numpys.integers(2**32, dtype=np.uint32)
        assert ours.bit_generator.state == numpys.bit_generator.state


def test_draws_from_many_generators_in_turn_are_each_generators_own():
    # The extension keeps a few generators' bit generators (a learning view draws from the
    # game's, each agent's and its own in turn): more of them than it keeps, interleaved in
    # changing orders, each still draws numpy's values and is left in numpy's state.
    count = 11
    ours = [default_rng(seed) for seed in range(count)]
    numpys = [np.random.default_rng(seed) for seed in range(count)]
    order = np.random.default_rng(5)
    for _ in range(600):
        i = int(order.integers(count))
        high = int(order.choice([2, 24, 5000, 2**40]))
        assert integers(ours[i], high) == int(numpys[i].integers(high))
    for a, b in zip(ours, numpys):
        assert a.bit_generator.state == b.bit_generator.state


def test_choice_without_replacement_is_numpys():
    cases = [(680, 4), (5, 2), (5, 5), (1, 1), (10, 3), (200, 1), (3000, 2999), (10000, 300),
             (20000, 100), (100000, 2000), (100000, 5000), (7, 7)]
    for seed in range(150):
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        for n, size in cases:
            picks = choice_without_replacement(ours, n, size)
            assert type(picks) is list and all(type(p) is int for p in picks)
            assert picks == numpys.choice(n, size=size, replace=False).tolist(), (seed, n, size)
        assert ours.bit_generator.state == numpys.bit_generator.state


def test_permutation_is_numpys():
    for seed in range(200):
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        for n in (1, 2, 3, 5, 7, 24, 96, 1000, 4096, 5000):
            order = permutation(ours, n)
            assert type(order) is list and all(type(i) is int for i in order)
            assert order == numpys.permutation(n).tolist(), (seed, n)
        assert ours.bit_generator.state == numpys.bit_generator.state


def test_draws_fall_back_to_numpy_for_everything_else():
    class Subclassed(np.random.Generator):
        def integers(self, *args, **kwargs):  # a subclass is asked, not bypassed
            return 4

    assert integers(Subclassed(np.random.PCG64(0)), 10) == 4
    for bad in (0, -3):
        with pytest.raises(ValueError):
            integers(np.random.default_rng(0), bad)
    with pytest.raises(ValueError):  # numpy's error: out of bounds for int64
        integers(np.random.default_rng(0), 2**64)
    assert integers(np.random.default_rng(5), np.int64(9)) == int(np.random.default_rng(5).integers(9))
    with pytest.raises(ValueError):
        choice_without_replacement(np.random.default_rng(0), 3, 4)
    # another bit generator: numpy's algorithm over its own draws
    ours, numpys = np.random.Generator(np.random.MT19937(3)), np.random.Generator(np.random.MT19937(3))
    assert [integers(ours, 1000) for _ in range(20)] == [int(numpys.integers(1000)) for _ in range(20)]
    assert choice_without_replacement(ours, 50, 6) == numpys.choice(50, size=6, replace=False).tolist()
    assert permutation(ours, 9) == numpys.permutation(9).tolist()
    assert permutation(np.random.default_rng(0), 0) == permutation(np.random.default_rng(0), -1) == []


def test_a_generator_locked_by_another_thread_is_left_to_numpy():
    import threading  # noqa: PLC0415

    if fast._integers is None:
        pytest.skip("the C extension is not built")
    generator = np.random.default_rng(11)
    reference = np.random.default_rng(11)
    held, done = threading.Event(), threading.Event()

    def hold():
        with generator.bit_generator.lock:
            held.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(30)
        # the extension does not wait for a lock another thread holds: numpy's call draws
        assert fast._integers(generator, 100) is None and fast._choice(generator, 50, 3) is None
        assert fast._permutation(generator, 5) is None
    finally:
        done.set()
        holder.join(30)
    assert integers(generator, 100) == int(reference.integers(100))
    assert generator.bit_generator.state == reference.bit_generator.state


def test_extensions_are_used_only_at_the_interface_version_their_caller_expects(monkeypatch):
    """load_extension: the built module at the expected API; None, with a warning, for a
    stale build (another API or none); None when its switch turns it off or it was not built.
    Both shipped extensions load at their callers' versions where they were built."""
    import sys  # noqa: PLC0415
    import types  # noqa: PLC0415

    from cluegym.envs.core import record  # noqa: PLC0415
    from cluegym.envs.core.extensions import load_extension  # noqa: PLC0415

    built = types.ModuleType("cluegym.envs.core._probe")
    built.API = 2
    monkeypatch.setitem(sys.modules, "cluegym.envs.core._probe", built)
    assert load_extension("_probe", 2, fallback="Python") is built
    with pytest.warns(RuntimeWarning, match=r"_probe is out of date .*; Python"):
        assert load_extension("_probe", 3, fallback="Python") is None
    del built.API
    with pytest.warns(RuntimeWarning, match="out of date"):
        assert load_extension("_probe", 2, fallback="Python") is None
    built.API = 2
    monkeypatch.setenv("CLUEGYM_PROBE_OFF", "1")
    assert load_extension("_probe", 2, fallback="Python", off_switch="CLUEGYM_PROBE_OFF") is None
    monkeypatch.setenv("CLUEGYM_PROBE_OFF", "0")
    assert load_extension("_probe", 2, fallback="Python", off_switch="CLUEGYM_PROBE_OFF") is built
    assert load_extension("_not_built_anywhere", 1, fallback="Python") is None
    if fast.ACCELERATED:
        assert load_extension("_rng", fast._RNG_API, fallback="numpy") is fast._rng
    if record.ACCELERATED:
        assert load_extension("_digest", record._DIGEST_API, fallback="Python") is not None
