"""Lean observations: what the learning views' featurizers read, without the prompt's and the
card images' cost.

``env.unwrapped.lean_observe(seat)`` is ``observe(seat)`` less the game's ``full_only_keys``
(the prompt; Dixit's card images), every other entry the same value; the views hand it to a
task that declares ``lean_observation`` when no delegate that reads observations shares it.
A view plays the same games, with the same features, whichever it hands out.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.benchmarks.learner_throughput import SETUPS
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.selfplay import SelfPlayEnv, make_task

GAMES: dict[str, dict[str, Any]] = {
    "decrypto": {},
    "undercover": {},
    "taboo": {},
    "dixit": {"reveal_captions": True, "num_rounds": 3, "image_size": [16, 16]},
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("lean_first", [True, False], ids=["lean-first", "full-first"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_lean_observation_is_the_full_one_less_the_full_only_keys(game, lean_first):
    """At every step of varied games (random players: rejections, eliminations, fallbacks),
    whether the full observation of the State was built before or not."""
    env = cluegym.make(game, **GAMES[game])
    raw = env.unwrapped
    assert raw.observes_lean and "prompt" in raw.full_only_keys
    players = {seat: make_agent("random", game=game, seat=seat, action_space=env.action_space(seat))
               for seat in env.possible_agents}
    checked = 0
    for seed in range(3 if game == "dixit" else 12):
        env.reset(seed=seed)
        for i, player in enumerate(players.values()):
            player.reset(10 * seed + i)
        for seat in env.agent_iter():
            if lean_first:
                lean, full = raw.lean_observe(seat), env.observe(seat)
            else:
                full, lean = env.observe(seat), raw.lean_observe(seat)
            expected = {key: value for key, value in full.items() if key not in raw.full_only_keys}
            assert _same(lean, expected), f"{game} {seat}: lean observation differs"
            assert set(full) - set(lean) == set(raw.full_only_keys)
            for key, value in lean.items():
                if isinstance(value, np.ndarray):
                    assert not value.flags.writeable, f"{game} {seat}: {key} is writable"
            lean["turn"] = "changed"  # a new dict each call: the env's own is untouched
            assert raw.lean_observe(seat).get("turn") != "changed"
            checked += 1
            obs, _, terminated, truncated, info = env.last()
            env.step(None if terminated or truncated else players[seat].act(obs, info))
    assert checked > 20


def test_a_lean_observation_builds_no_prompt_and_no_card_stack(monkeypatch):
    """The saving is real: Decrypto's prompt is not built, nor Dixit's card images stacked."""
    import cluegym.envs.decrypto.env as decrypto_env

    built = []
    full_prompt = decrypto_env.full_prompt
    monkeypatch.setattr(decrypto_env, "full_prompt", lambda *args: built.append(1) or full_prompt(*args))
    env = cluegym.make("decrypto")
    env.reset(seed=0)
    env.unwrapped.lean_observe("alice")
    assert built == []
    env.observe("alice")
    assert built == [1]  # the full observation does build it (the patch is seen)

    dixit = cluegym.make("dixit", **GAMES["dixit"])
    dixit.reset(seed=0)
    seat = dixit.agent_selection
    hand = tuple(dixit.unwrapped.state.hands[dixit.unwrapped.possible_agents.index(seat)])
    lean = dixit.unwrapped.lean_observe(seat)
    assert "hand" not in lean and "candidates" not in lean
    assert dixit.unwrapped._card_arrays[hand][1] is None  # ids kept, no images stacked
    images = dixit.observe(seat)["hand"]
    assert images.shape[0] == len(hand) and dixit.unwrapped._card_arrays[hand][1] is images


def test_a_game_that_cannot_observe_lean_drops_the_keys_from_the_full_observation():
    """The base class's path for a game of one's own (``observes_lean`` False)."""
    env = cluegym.make("taboo")
    raw = env.unwrapped
    raw.observes_lean = False  # on the instance: the game's hook is then called as a plain one
    env.reset(seed=1)
    lean = raw.lean_observe("attacker")
    assert "prompt" not in lean and _same(lean, {k: v for k, v in env.observe("attacker").items() if k != "prompt"})


def test_the_views_hand_out_lean_observations_only_where_nothing_reads_the_rest():
    taboo = make_task("taboo", "defender", speaker="random")
    raw = cluegym.make("taboo").unwrapped
    assert taboo.lean_observation
    assert taboo.observer(raw) == raw.lean_observe
    reader = make_agent("glove", game="taboo", seat="defender", action_space=raw.action_space("defender"))
    assert reader.reads_observation
    assert taboo.observer(raw, reader) == raw.observe  # the delegate speaks from the same view
    own = dataclasses.replace(taboo, lean_observation=False)  # a task of one's own: full
    assert own.observer(raw) == raw.observe
    env = SelfPlayEnv("taboo", "defender", task_options={"speaker": "glove"}, opponents={"*": "random"})
    env.reset(seed=0)
    assert env._observe_learner == env.raw.observe
    env = SelfPlayEnv("taboo", "defender", task_options={"speaker": "random"}, opponents={"*": "random"})
    env.reset(seed=0)
    assert env._observe_learner == env.raw.lean_observe


def _selfplay_trace(game: str, lean: bool) -> list[Any]:
    setup = SETUPS[game]
    kwargs = {**setup.env_kwargs, **GAMES[game]}
    task = make_task(game, setup.seat, cluegym.make(game, **kwargs).unwrapped, **setup.task_options)
    env = SelfPlayEnv(game, setup.seat, opponents={"*": "random"}, env_kwargs=kwargs,
                      task=dataclasses.replace(task, lean_observation=lean))
    assert (env._observe_learner == env.raw.lean_observe) is lean
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=5)
    trace: list[Any] = [obs.tobytes()]
    for _ in range(300):
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, _, info = env.step(int(rng.choice(legal)))
        trace.append((obs.tobytes(), reward, info["action_mask"].tobytes()))
        if terminated:
            obs, info = env.reset()
            trace.append(obs.tobytes())
    return trace


def _multiseat_trace(game: str, lean: bool) -> list[Any]:
    setup = SETUPS[game]
    env = MultiSeatEnv(game, setup.learners, opponents={"*": "random"}, task_options=setup.task_options,
                       env_kwargs={**setup.env_kwargs, **GAMES[game]})
    if not lean:
        env._observers = {seat: env.game_env.observe for seat in env._observers}
    rng = np.random.default_rng(0)
    trace: list[Any] = []
    env.reset(seed=5)
    for _ in range(300):
        if not env.agents:
            env.reset()
        seat = env.agent_selection
        observation, reward, terminated, truncated, _ = env.last()
        trace.append((seat, observation["observation"].tobytes(), reward))
        legal = np.flatnonzero(observation["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(legal)))
    return trace


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_views_play_the_same_games_with_the_same_features_lean_or_full(game):
    assert _selfplay_trace(game, True) == _selfplay_trace(game, False)
    assert _multiseat_trace(game, True) == _multiseat_trace(game, False)
