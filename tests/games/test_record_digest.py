"""The observation digest of game records: what it covers, and its cache of immutable arrays."""

import shutil

import numpy as np
import pytest
import xxhash

import cluegym
from cluegym.envs.core.record import (
    _ARRAY_DIGESTS, _TUPLE_PARTS, array_digest, digest, digest_bytes, replay, to_jsonable,
)


def _readonly(array):
    array.flags.writeable = False
    return array


def test_digest_covers_every_value_and_key():
    base = {"prompt": "Your turn.", "hints": ("a", "b", ""), "scores": np.array([1, 2]), "round": 3}
    variants = [
        {**base, "prompt": "Your turn!"},
        {**base, "hints": ("a", "b", "c")},
        {**base, "hints": ("a", "b")},
        {**base, "scores": np.array([1, 3])},
        {**base, "scores": np.array([1, 2], dtype=np.int8)},
        {**base, "scores": np.array([[1, 2]])},
        {**base, "round": 4},
        {**base, "extra": None},
        {k if k != "round" else "turn": v for k, v in base.items()},
    ]
    seen = {digest(base)}
    for variant in variants:
        value = digest(variant)
        assert value not in seen, variant
        seen.add(value)
    assert digest(dict(reversed(list(base.items())))) == digest(base)  # key order does not matter
    # A tuple of texts takes the fast path; a mixed one item by item: the same bytes.
    assert digest({"t": ("x", 1)}) != digest({"t": ("x", "1")})
    # Rows of texts take another fast path; a text among the rows is not read as its letters.
    assert digest({"t": (("a", "b"), "cd")}) != digest({"t": (("a", "b"), ("c", "d"))})
    assert digest({"t": (("a", "b"), ("c",))}) == digest({"t": [["a", "b"], ["c"]]})


def test_readonly_arrays_are_hashed_once_and_writeable_ones_every_time():
    image = _readonly(np.arange(12, dtype=np.uint8).reshape(2, 2, 3).copy())
    first = array_digest(image)
    assert id(image) in _ARRAY_DIGESTS and array_digest(image) == first
    key = id(image)
    del image
    assert key not in _ARRAY_DIGESTS  # freed with its array: an id reused later is not confused

    writeable = np.zeros(4)
    before = digest({"a": writeable})
    writeable[0] = 1
    assert digest({"a": writeable}) != before and id(writeable) not in _ARRAY_DIGESTS

    # A read-only view of a writeable array can still change: never cached.
    base = np.zeros(4)
    view = _readonly(base[:])
    before = digest({"a": view})
    base[1] = 5
    assert digest({"a": view}) != before and id(view) not in _ARRAY_DIGESTS
    # The cached digest of an array equals a fresh one of an equal writeable copy.
    frozen = _readonly(np.arange(5))
    assert array_digest(frozen) == array_digest(np.arange(5))


def test_a_stack_of_large_rows_is_hashed_as_its_rows_hashes_and_kept_from_known_row_hashes():
    from cluegym.envs.core.record import ROW_HASH_BYTES, keep_stack_digest, row_digest, stack_digest  # noqa: PLC0415

    rng = np.random.default_rng(0)
    stack = rng.integers(0, 256, (3, 48, 32, 3), dtype=np.uint8)  # rows of 4,608 bytes: by rows
    assert stack[0].nbytes >= ROW_HASH_BYTES
    rows = [row_digest(row) for row in stack]
    assert rows[0] == xxhash.xxh3_128_digest(stack[0].tobytes())
    expected = xxhash.xxh3_128_digest(b"|u1(3, 48, 32, 3)" + b"".join(rows))
    assert array_digest(stack) == stack_digest(stack, rows) == expected
    # Every row counts, and so do the dtype and shape.
    changed = stack.copy()
    changed[2, 47, 31, 2] ^= 1
    assert array_digest(changed) != expected
    assert array_digest(stack.reshape(3, 48, 96)) != expected
    # A non-contiguous stack: the same hash as its contiguous copy.
    wide = np.zeros((3, 48, 64, 3), dtype=np.uint8)
    wide[:, :, ::2] = stack
    assert array_digest(wide[:, :, ::2]) == expected
    # Small rows (a single image's pixel lines, a table) are hashed whole, as before.
    image = stack[0]
    assert array_digest(image) == xxhash.xxh3_128_digest(b"|u1(48, 32, 3)" + image.tobytes())

    # A new read-only stack whose rows' hashes are known is kept without reading its bytes:
    # the caller vouches for them, so a wrong one shows (here, on purpose) ...
    frozen = _readonly(stack.copy())
    keep_stack_digest(frozen, [b"\0" * 16] * 3)
    assert array_digest(frozen) != expected
    # ... and the right ones give the hash of the bytes.
    frozen = _readonly(stack.copy())
    keep_stack_digest(frozen, rows)
    assert id(frozen) in _ARRAY_DIGESTS and array_digest(frozen) == expected
    # Nothing is kept for an array that can still change, or one not hashed by rows.
    writeable = stack.copy()
    keep_stack_digest(writeable, [b"\0" * 16] * 3)
    assert id(writeable) not in _ARRAY_DIGESTS and array_digest(writeable) == expected
    small = _readonly(np.zeros((3, 8), dtype=np.uint8))
    keep_stack_digest(small, [b"\0" * 16] * 3)
    assert id(small) not in _ARRAY_DIGESTS


def test_dixit_digests_of_kept_card_stacks_equal_digests_of_copies():
    # The env keeps each new hand's and candidates' digest from the deck's per-card hashes:
    # every seat's observation digest must be that of the same values built afresh.
    import copy  # noqa: PLC0415

    from cluegym.benchmarks.throughput import scripted_action  # noqa: PLC0415

    env = cluegym.make("dixit", num_rounds=3)
    checked = kept = 0
    for seed in range(2):
        env.reset(seed=seed)
        for step, seat in enumerate(env.agent_iter()):
            for other in list(env.agents):
                observation = env.unwrapped._built_observation(other)
                kept += id(observation["hand"]) in _ARRAY_DIGESTS
                assert digest(observation) == digest(copy.deepcopy(observation)), (seed, step, other)
                checked += 1
            obs, _, term, trunc, info = env.last()
            env.step(None if term or trunc else scripted_action(env.action_space(seat), obs, info, step))
    assert checked > 50 and kept == checked


def test_immutable_tuples_are_fed_once_and_tuples_that_can_change_every_time():
    # The Python walk's cache (the C accelerator writes tuples afresh: the same bytes).
    digest = digest_bytes
    rows = (("a", "b"), ("c", ""), (1, 2.5))
    first = digest({"t": rows})
    assert id(rows) in _TUPLE_PARTS and digest({"t": rows}) == first
    # An equal tuple built afresh (not the cached object) has the same digest.
    assert digest({"t": tuple(tuple(row) for row in rows)}) == first
    # The bytes are those of the same values item by item (a list is never cached).
    assert digest({"t": [list(row) for row in rows]}) == first

    # A tuple holding something that can change is fed item by item at every digest.
    scores = np.zeros(3)
    holder = ("x", scores)
    before = digest({"t": holder})
    scores[0] = 1
    assert digest({"t": holder}) != before and id(holder) not in _TUPLE_PARTS
    words = ["a"]
    nested = (("k",), words)
    before = digest({"t": nested})
    words.append("b")
    assert digest({"t": nested}) != before and id(nested) not in _TUPLE_PARTS
    # Read-only arrays and bools inside a tuple: fed as their own digest would have them.
    frozen = _readonly(np.arange(3))
    assert digest({"t": (frozen, True)}) == digest({"t": [np.arange(3), True]})


@pytest.mark.parametrize("game", cluegym.registered_games())
def test_records_replay_with_their_digests(game):
    env = cluegym.make(game)
    env.reset(seed=11)
    for seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        action = None if term or trunc else env.action_space(seat).sample(mask=obs.get("action_mask"))
        env.step(action)
        if len(env.unwrapped.game_record()["steps"]) > 60:
            break
    record = env.unwrapped.game_record()
    assert all(step["obs"] for step in record["steps"])
    assert replay(record)["steps"] == record["steps"]


def test_each_record_gets_its_own_config_and_follows_a_changed_config():
    env = cluegym.make("dixit", num_rounds=2, image_size=[16, 16])
    env.reset(seed=0)
    first = env.unwrapped.game_record()["config"]
    assert first == to_jsonable(env.unwrapped.config) and first["image_size"] == [16, 16]
    first["image_size"].append(99)  # a consumer editing its record touches no other record
    first["num_rounds"] = 7
    second = env.unwrapped.game_record()["config"]
    assert second["image_size"] == [16, 16] and second["num_rounds"] == 2
    assert second["image_size"] is not env.unwrapped.game_record()["config"]["image_size"]
    env.unwrapped.config["image_size"][0] = 32  # the env's own options changed in place
    assert env.unwrapped.game_record()["config"]["image_size"] == [32, 16]


@pytest.mark.parametrize("game", cluegym.registered_games())
def test_game_result_is_the_records_result_without_the_rest(game):
    from cluegym.benchmarks.throughput import scripted_action  # noqa: PLC0415

    env = cluegym.make(game, record_observations=False, **({"num_rounds": 2, "image_size": [16, 16]} if game == "dixit" else {}))
    env.reset(seed=4)
    assert env.unwrapped.game_result() is None
    for step, seat in enumerate(env.agent_iter()):
        obs, _, term, trunc, info = env.last()
        if not (term or trunc):
            assert env.unwrapped.game_result() is None
        env.step(None if term or trunc else scripted_action(env.action_space(seat), obs, info, step))
    result = env.unwrapped.game_result()
    assert result is not None and result == env.unwrapped.game_record()["result"]
    assert result is not env.unwrapped.game_result()  # each call its own dict


# ---------------------------------------------------------------- the C accelerator
# record.digest hashes the bytes of envs/core/_digest.c where setup.py could build it; the
# Python walk (record.digest_bytes) is the definition it must reproduce byte for byte.

def _c_serialize():
    from cluegym.envs.core import record  # noqa: PLC0415

    if not record.ACCELERATED:
        if shutil.which("cc") or shutil.which("gcc"):
            pytest.fail("a C compiler is here but cluegym.envs.core._digest was not built "
                        "(pip install -e . builds it; CLUEGYM_PURE_PYTHON_DIGEST=1 turns it off)")
        pytest.skip("no C compiler: the digest runs its Python walk")
    return record._serialize


class _Dict(dict):
    pass


class _Str(str):
    pass


class _Tuple(tuple):
    pass


def _odd_values():
    frozen_big = _readonly(np.arange(100, dtype=np.float32))
    base = np.arange(12)
    return [
        {"f": 1.5, "nan": float("nan"), "inf": float("-inf"), "zero": -0.0},
        {"b": True, "n": None, "t": (True, False, None)},
        {"ints": (0, -1, 7, -(2**63), 2**63 - 1, 2**63, -(2**64) - 5, 10**40)},
        {"np": np.int64(3), "np8": np.uint8(250), "npf": np.float32(0.25), "npb": np.bool_(True)},
        {"sub": _Dict(a=1), "s": _Str("x"), "st": _Tuple(("a", "b"))},
        {1: "a", 2: ("b", 1), 0: [1, 2]},
        {"text": "caf\u00e9 \u2603 \U0001f600", "empty": "", "nul": "a\0b"},
        {"strided": base[::2], "t2": base.reshape(3, 4).T, "zero_d": np.array(5), "empty": np.zeros((0, 3))},
        {"big": np.arange(300), "frozen_big": frozen_big, "again": frozen_big},
        {"be": np.arange(4, dtype=">i4"), "rec": np.zeros(2, dtype=[("a", "i4"), ("b", "f8")]),
         "u": np.array(["ab", "c"]), "s": np.array([b"x", b"yz"]), "bool": np.array([True, False])},
        {"obj": np.array([1, "a", None], dtype=object), "dt": np.array(["2024-01-01"], dtype="datetime64[D]")},
        {"nested": {"deeper": {"deepest": ("a", ("b", ("c", 1.25)), [np.arange(2), {"k": "v"}])}}},
        {"table": (("a", "b"), ("c", ""), (1, 2.5)), "rows": [("x",), ["y"]], "mixed": ("x", np.arange(2))},
        {"ro_rows": (_readonly(np.arange(3)), _readonly(np.arange(3))), "set": {1, 2}, "bytes": b"\x00\xff"},
        ["a", 1, ("b",)], ("top", "tuple"), "top text", 42, 2.0, np.arange(3), None, True,
        {},
        {"a": {}}, (), [],
    ]


@pytest.mark.parametrize("index", range(len(_odd_values())))
def test_c_digest_bytes_equal_the_python_walk_on_odd_values(index):
    from cluegym.envs.core.record import digest_bytes  # noqa: PLC0415

    serialize = _c_serialize()
    value = _odd_values()[index]
    assert serialize(value) == digest_bytes(value)
    assert serialize(value) == serialize(value)  # again, with the caches filled


def test_c_digest_raises_where_the_python_walk_raises():
    from cluegym.envs.core.record import digest_bytes  # noqa: PLC0415

    serialize = _c_serialize()
    for value in ({"x": "\ud800"}, {1: "a", "b": 2}):  # a lone surrogate; keys that cannot sort
        with pytest.raises(Exception) as from_python:
            digest_bytes(value)
        with pytest.raises(Exception) as from_c:
            serialize(value)
        assert type(from_c.value) is type(from_python.value)
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(RecursionError):
        serialize(deep)


def test_c_digest_sees_a_changed_array_and_a_changed_tuple_member():
    serialize = _c_serialize()
    scores = np.zeros(3)
    words = ["a"]
    observation = {"scores": scores, "holder": ("x", scores), "nested": (("k",), words)}
    before = serialize(observation)
    scores[1] = 2
    after = serialize(observation)
    assert after != before
    words.append("b")
    assert serialize(observation) != after
    from cluegym.envs.core.record import digest_bytes  # noqa: PLC0415

    assert serialize(observation) == digest_bytes(observation)


@pytest.mark.parametrize("game", cluegym.registered_games())
def test_c_digest_bytes_equal_the_python_walk_on_every_seats_observations(game):
    from cluegym.benchmarks.throughput import scripted_action  # noqa: PLC0415
    from cluegym.envs.core.record import digest_bytes  # noqa: PLC0415

    serialize = _c_serialize()
    options = {"num_rounds": 3} if game == "dixit" else {}
    env = cluegym.make(game, **options)
    checked = 0
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for step, seat in enumerate(env.agent_iter()):
            for other in list(env.agents):
                observation = env.unwrapped._built_observation(other)
                assert serialize(observation) == digest_bytes(observation), (game, seed, step, other)
                # digest() in one C call: the hash of the same bytes
                assert digest(observation) == xxhash.xxh3_128_hexdigest(digest_bytes(observation))[:16]
                checked += 1
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                action = None
            elif rng.random() < 0.2:  # a rejected action now and then: the retry's observation
                action = "not an action"
            else:
                action = scripted_action(env.action_space(seat), obs, info, step)
            env.step(action)
    assert checked > 20


def test_pure_python_digest_on_request_gives_the_same_record_digests():
    # CLUEGYM_PURE_PYTHON_DIGEST=1 runs the Python walk: a record's digests are the same.
    import json  # noqa: PLC0415
    import os  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = (
        "import json, cluegym\n"
        "from cluegym.agents import make_agent\n"
        "from cluegym.envs.core import record\n"
        "env = cluegym.make('undercover'); env.reset(seed=5)\n"
        "agents = {s: make_agent('random', game='undercover', seat=s, action_space=env.action_space(s))\n"
        "          for s in env.possible_agents}\n"
        "for i, agent in enumerate(agents.values()):\n"
        "    agent.reset(i)\n"
        "for seat in env.agent_iter():\n"
        "    obs, _, term, trunc, info = env.last()\n"
        "    env.step(None if term or trunc else agents[seat].act(obs, info))\n"
        "print(json.dumps([record.ACCELERATED, [s['obs'] for s in env.unwrapped.game_record()['steps']]]))\n"
    )
    runs = {}
    for flag in ("1", "0"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "CLUEGYM_PURE_PYTHON_DIGEST": flag}, check=True)
        runs[flag] = json.loads(done.stdout.strip().splitlines()[-1])
    assert runs["1"][0] is False
    assert runs["1"][1] == runs["0"][1] and len(runs["1"][1]) > 10
