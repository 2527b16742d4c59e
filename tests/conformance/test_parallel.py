"""The parallel view plays the same games as the AEC env; action masks follow PettingZoo."""

from __future__ import annotations

import hashlib
import importlib
import subprocess
import sys

import numpy as np
import pytest

import cluegym
from cluegym.agents.random_agent import RandomAgent
from cluegym.envs.core.record import digest

GAMES = cluegym.game_ids()


def _decide(game_id: str, env, seat: str, observation: dict, info: dict):
    """A random legal-looking action that depends only on what the seat sees now (its
    observation and retry count), so the AEC and parallel runs get the same actions even
    though the parallel env asks a block member again after another member's retry."""
    view = {key: value for key, value in observation.items() if key != "action_mask"}
    key = f"{seat}|{digest(view)}|{info.get('retries_left')}".encode()
    seed = int.from_bytes(hashlib.sha256(key).digest()[:8], "little")
    return RandomAgent(game_id.rsplit("_v", 1)[0], seat, env.action_space(seat), seed=seed).act(observation, info)


def _aec_record(game_id: str, seed: int) -> dict:
    env = cluegym.env_module(game_id).env()
    env.reset(seed=seed)
    for seat in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else _decide(game_id, env, seat, observation, info))
    return env.unwrapped.game_record()


def _parallel_record(game_id: str, seed: int) -> tuple[dict, int]:
    env = cluegym.env_module(game_id).parallel_env()
    observations, infos = env.reset(seed=seed)
    blocks = 0
    while env.agents:
        acting = [seat for seat in env.agents if infos[seat]["acting"]]
        # the block is in the AEC env's order (Dixit's listeners start after the storyteller)
        assert sorted(acting) == sorted(env.acting()) and acting
        blocks += len(acting) > 1
        actions = {seat: _decide(game_id, env, seat, observations[seat], infos[seat]) for seat in acting}
        observations, _, terminations, _, infos = env.step(actions)
    assert all(terminations.values())
    return env.game_record(), blocks


@pytest.mark.parametrize("game_id", GAMES)
def test_parallel_and_aec_play_the_same_game(game_id):
    simultaneous = 0
    for seed in range(3):
        record, blocks = _parallel_record(game_id, seed)
        assert record == _aec_record(game_id, seed)
        assert record["result"]
        simultaneous += blocks
    if game_id.split("_v")[0] in ("decrypto", "dixit", "undercover"):
        assert simultaneous > 0, "the paper's simultaneous moves should act as blocks"


@pytest.mark.parametrize("game_id", GAMES)
def test_parallel_step_without_an_acting_seat_changes_nothing(game_id):
    env = cluegym.env_module(game_id).parallel_env()
    env.reset(seed=1)
    before = env.game_record()
    with pytest.raises(KeyError, match="no action for acting seat"):
        env.step({})
    assert env.game_record() == before


@pytest.mark.parametrize("game_id", GAMES)
def test_parallel_step_with_an_action_for_no_seat_changes_nothing(game_id):
    """An action for a name that is no seat (a typo) raises before anything is applied; it
    was ignored as a non-acting seat's is. Every seat's action, as PettingZoo's loops send
    them, is still taken."""
    from cluegym.envs.core import UnknownSeatError

    env = cluegym.env_module(game_id).parallel_env()
    observations, infos = env.reset(seed=1)
    before = env.game_record()
    actions = {seat: _decide(game_id, env, seat, observations[seat], infos[seat]) for seat in env.agents}
    with pytest.raises(UnknownSeatError, match=f"{game_id} has no seat 'plyer_0'; seats: "):
        env.step({**actions, "plyer_0": 0})
    assert env.game_record() == before
    # the acting seat's name misspelt: the typo is named, not "no action for acting seat"
    acting = next(seat for seat in env.agents if infos[seat].get("acting", True))
    with pytest.raises(UnknownSeatError, match=f"has no seat '{acting}x'"):
        env.step({f"{acting}x": actions[acting]})
    with pytest.raises(TypeError, match="actions must be a dict of seat -> action, got list"):
        env.step([actions[acting]])
    assert env.game_record() == before
    env.step(actions)  # every seat's action, the acting ones' used
    assert env.game_record() != before


@pytest.mark.parametrize("game_id", GAMES)
def test_action_mask_is_in_the_observation_and_samples(game_id):
    env = cluegym.env_module(game_id).env()
    env.reset(seed=2)
    raw = env.unwrapped
    for seat in env.possible_agents:
        observation = env.observe(seat)
        space = env.observation_space(seat)
        assert space.contains(observation), seat
        if "action_mask" in space.spaces:
            env.action_space(seat).sample(mask=observation["action_mask"])  # the PettingZoo use
    seat = env.agent_selection
    if "action_mask" in env.observation_space(seat).spaces:
        mask = env.observe(seat)["action_mask"]
        legal = raw.rules.legal_mask(raw.state, seat)
        discrete = mask if isinstance(mask, np.ndarray) else {k: v for k, v in mask.items() if k in legal}
        flat = discrete if isinstance(discrete, np.ndarray) else np.concatenate(list(discrete.values()))
        assert flat.any(), "the seat to move has a legal discrete choice"


def test_versioned_modules_import_as_modules():
    code = "import cluegym.envs.decrypto_v0 as m; e = m.parallel_env(); print(type(e).__name__, m.env().metadata['name'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["ParallelClueEnv", "decrypto_v0"]
    from cluegym.envs import undercover_v0

    assert importlib.import_module("cluegym.envs.undercover_v0") is undercover_v0


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("seed", range(3))
def test_simultaneous_blocks_hide_each_others_choices(game_id, seed):
    """Each simultaneous block is the next seats the AEC env asks, in order, and a later
    member's observation does not change when an earlier member acts (Eve never sees Bob's
    guess, no voter sees a vote of its round, no listener another's distractor or vote)."""
    env = cluegym.env_module(game_id).env(max_retries=1)
    env.reset(seed=seed)
    raw = env.unwrapped
    agents = {seat: RandomAgent(game_id.rsplit("_v", 1)[0], seat, env.action_space(seat), seed=seed)
              for seat in env.possible_agents}
    pending: list[str] = []
    waiting: dict[str, str] = {}
    for seat in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            assert not pending and raw.rules.simultaneous(raw.state) == ()
            env.step(None)
            continue
        if not pending:
            pending = list(raw.rules.simultaneous(raw.state))
            waiting = {member: digest(env.observe(member)) for member in pending[1:]}
        assert seat == pending[0] and raw.rules.simultaneous(raw.state) == tuple(pending)
        if seat in waiting:
            assert digest(observation) == waiting[seat], f"{seat} saw an earlier block member's choice"
        env.step(agents[seat].act(observation, info))
        if "events" in raw.game_record()["steps"][-1]:  # accepted (or its fallback applied)
            pending.pop(0)
