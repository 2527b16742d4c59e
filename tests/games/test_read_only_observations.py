"""What an env hands out cannot be changed behind its back: every array of an observation and
of ``infos[seat]["action_mask"]`` is read-only, in every game.

An observation is built once per State and shared (``observe`` returns a new dict over the
same values, the record digests it at the step, the game's checks read the legal mask it
shows). Before they were read-only, a policy that wrote ``obs["action_mask"][:] = 1`` made
Decrypto accept a code already revealed, and one that wrote into ``obs["code_history"]`` left
a record that no longer replayed.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any, Iterator

import numpy as np
import pytest

import cluegym
from cluegym.benchmarks.throughput import scripted_action
from cluegym.envs.core.record import replay
from cluegym.envs.core.spaces import read_only

GAMES: dict[str, dict[str, Any]] = {
    "decrypto": {},
    "undercover": {},
    "taboo": {},
    "dixit": {"num_rounds": 2, "image_size": [16, 16]},
}


def _arrays(value: Any, path: str = "") -> Iterator[tuple[str, np.ndarray]]:
    if isinstance(value, np.ndarray):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _arrays(item, f"{path}/{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _arrays(item, f"{path}/{i}")


def _write_into(array: np.ndarray) -> None:
    array.flat[0] = array.flat[0]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_array_handed_out_is_read_only_and_the_record_replays(game):
    env = cluegym.make(game, **GAMES[game])
    env.reset(seed=3)
    checked = 0
    for step, seat in enumerate(env.agent_iter()):
        obs, _, terminated, truncated, info = env.last()
        shown = list(_arrays(obs, "obs")) + list(_arrays(info.get("action_mask"), "info/action_mask"))
        for path, array in shown:
            assert not array.flags.writeable, f"{game} step {step}: {path} is writable"
            if array.size:
                with pytest.raises(ValueError, match="read-only"):
                    _write_into(array)
                checked += 1
        env.step(None if terminated or truncated else scripted_action(env.action_space(seat), obs, info, step))
    assert checked > 0 or game == "taboo"  # Taboo shows texts only
    record = env.unwrapped.game_record()
    assert replay(record) == record


def test_a_policy_cannot_make_a_revealed_code_legal_again():
    env = cluegym.make("decrypto")
    env.reset(seed=1)
    for seat in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if seat == "alice":
            env.step(("apple", "river", "stone"))
            continue
        mask = obs["action_mask"]
        if (mask == 0).any():
            revealed = int(np.flatnonzero(mask == 0)[0])
            with pytest.raises(ValueError):
                mask[:] = 1
            env.step(revealed)
            assert "already revealed" in env.unwrapped.infos[seat]["error"]
            return
        env.step(int(np.flatnonzero(mask)[0]))
    pytest.fail("no turn with a revealed code")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_copied_env_hands_out_read_only_arrays_too(game):
    env = cluegym.make(game, **GAMES[game])
    env.reset(seed=0)
    for step, seat in enumerate(env.agent_iter()):
        obs, _, terminated, truncated, info = env.last()
        # Copies taken at several points of the game, each of its views and caches copied.
        if step in (0, 7, 15):
            for other in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
                other_obs, *_, other_info = other.last()
                shown = list(_arrays(other_obs)) + list(_arrays(other_info.get("action_mask")))
                assert not any(array.flags.writeable for _, array in shown), (game, step)
        env.step(None if terminated or truncated else scripted_action(env.action_space(seat), obs, info, step))


def test_read_only_walks_dicts_tuples_and_lists():
    value = {"a": np.zeros(2), "b": (np.zeros(1), [np.zeros(3)]), "c": "text", "d": 4}
    assert read_only(value) is value
    assert not any(array.flags.writeable for _, array in _arrays(value))


def test_the_adapter_marks_the_arrays_of_a_game_that_does_not():
    """A game without ``frozen_arrays`` (the default, as a new game starts) returns writable
    arrays from ``_observe`` and ``legal_mask``; what the env hands out is read-only anyway."""
    from cluegym.envs.core import wrap
    from cluegym.envs.decrypto.env import DecryptoEnv

    class PlainDecrypto(DecryptoEnv):
        frozen_arrays = False

        def _observe(self, agent):
            obs = super()._observe(agent)
            return {key: np.array(value) if isinstance(value, np.ndarray) else value for key, value in obs.items()}

    env = PlainDecrypto()
    legal_mask = env.rules.legal_mask
    env.rules.legal_mask = lambda state, seat: None if (mask := legal_mask(state, seat)) is None else np.array(mask)
    env = wrap(env)
    env.reset(seed=2)
    shown = 0
    for step, seat in enumerate(env.agent_iter()):
        obs, _, terminated, truncated, info = env.last()
        for _, array in list(_arrays(obs)) + list(_arrays(info.get("action_mask"))):
            assert not array.flags.writeable
            shown += 1
        env.step(None if terminated or truncated else scripted_action(env.action_space(seat), obs, info, step))
    assert shown > 20


@pytest.mark.parametrize("game", ["undercover", "dixit"])
def test_a_policy_that_sets_a_mask_entry_changes_its_own_copy(game):
    """A ``Dict`` action's ``action_mask`` (in ``infos`` and in the observation) is a dict:
    setting one of its entries changes what the policy holds, not the mask the env keeps (the
    observation built after it, the record's digest)."""
    env = cluegym.make(game, **GAMES[game])
    env.reset(seed=5)
    changed = "changed by the policy"
    for step, seat in enumerate(env.agent_iter()):
        info = env.unwrapped.infos[seat]  # read before the observation is built
        for key in list(info.get("action_mask") or {}):
            info["action_mask"][key] = changed
        obs, _, terminated, truncated, _ = env.last()
        assert changed not in str(obs.get("action_mask"))
        action = None if terminated or truncated else scripted_action(env.action_space(seat), obs, {}, step)
        for key in list(obs.get("action_mask") or {}):
            obs["action_mask"][key] = changed
        assert changed not in str(env.observe(seat).get("action_mask"))
        env.step(action)
    record = env.unwrapped.game_record()
    assert replay(record) == record
