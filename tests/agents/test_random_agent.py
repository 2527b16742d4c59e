"""The random agent decides from ``info`` when given no observation, with the same draws, and
the learning views build it none."""

from __future__ import annotations

import json

import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.random_agent import RandomAgent
from cluegym.envs.core.registry import registered_games
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.selfplay import SelfPlayEnv


def _random_game(game: str, seed: int, observe: bool) -> str:
    """A seeded game of random players, each given its observation or not; its record."""
    env = cluegym.make(game)
    env.reset(seed=seed)
    players = {seat: make_agent("random", game=game, seat=seat, action_space=env.action_space(seat))
               for seat in env.possible_agents}
    for i, player in enumerate(players.values()):
        player.reset(seed * 10 + i)
    for seat in env.agent_iter():
        observation, _, terminated, truncated, info = env.last(observe=observe)
        env.step(None if terminated or truncated else players[seat].act(observation, info))
    return json.dumps(env.unwrapped.game_record())


@pytest.mark.parametrize("game", registered_games())
def test_random_games_are_the_same_without_observations(game):
    for seed in range(3):
        assert _random_game(game, seed, observe=False) == _random_game(game, seed, observe=True)


def test_a_subclass_that_acts_itself_gets_observations():
    class Reader(RandomAgent):
        def act(self, observation, info):
            return super().act(observation, info)

    class SaysSo(RandomAgent):
        reads_observation = False

        def act(self, observation, info):
            return super().act(observation, info)

    class Inherits(RandomAgent):
        pass

    assert RandomAgent.reads_observation is False
    assert Reader.reads_observation is True
    assert SaysSo.reads_observation is False
    assert Inherits.reads_observation is False


def _observed_seats(game_env) -> list[str]:
    """Record the seats whose observation ``game_env`` builds (its ``_observe`` hook)."""
    seats: list[str] = []
    build = game_env._observe

    def observe(seat, *lean):  # lean: the lean_observe flag (see ClueGameEnv.observes_lean)
        seats.append(seat)
        return build(seat, *lean)

    game_env._observe = observe
    return seats


@pytest.mark.parametrize(("game", "seat"), [("decrypto", "eve"), ("undercover", "player_0")])
def test_the_sb3_view_builds_no_observation_for_random_opponents(game, seat):
    env = SelfPlayEnv(game, seat, opponents={"*": "random"})
    seats = _observed_seats(env.raw)
    env.reset(seed=0)
    for _ in range(40):
        _, _, terminated, _, _ = env.step(_first_legal(env))
        if terminated:
            env.reset()
    assert seats and set(seats) == {seat}


def test_the_sb3_view_gives_observations_to_opponents_that_read_them():
    env = SelfPlayEnv("decrypto", "eve", opponents={"alice": "glove:k=16", "bob": "random"})
    seats = _observed_seats(env.raw)
    env.reset(seed=0)
    env.step(_first_legal(env))
    assert "alice" in seats and "bob" not in seats


def test_the_multi_seat_view_builds_no_observation_for_random_opponents():
    env = MultiSeatEnv("decrypto", "eve", opponents={"*": "random"})
    seats = _observed_seats(env.game_env.unwrapped)
    env.reset(seed=0)
    for agent in env.agent_iter(max_iter=60):
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(observation["action_mask"].argmax()))
        if not env.agents:
            env.reset()
    assert seats and set(seats) == {"eve"}


def _first_legal(env: SelfPlayEnv) -> int:
    """The first legal choice of the view's pending decision."""
    return int(env.action_masks().argmax())


@pytest.mark.parametrize("game", ["undercover", "dixit"])
def test_a_task_that_decides_from_info_builds_observations_only_for_its_readers(game):
    # Undercover's and Dixit's learners take the votes; their seats' other decisions
    # (speeches, stories, distractors) go to the delegate, here the random agent.
    kwargs = {"env_kwargs": {"reveal_captions": True}} if game == "dixit" else {}
    env = MultiSeatEnv(game, "all", opponents={"*": "random"},
                       task_options={"speaker" if game == "undercover" else "player": "random"}, **kwargs)
    assert all(task.learner_acts_from_info for task in env.tasks.values())
    phases: list[str] = []
    build = env.game_env.unwrapped._observe

    def observe(seat, *lean):  # lean: the lean_observe flag (see ClueGameEnv.observes_lean)
        phases.append(env.game_env.unwrapped.state.phase)
        return build(seat, *lean)

    env.game_env.unwrapped._observe = observe
    env.reset(seed=0)
    decisions = 0
    for _ in env.agent_iter(max_iter=200):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(observation["action_mask"].argmax()))
        decisions += 1
        if not env.agents:
            env.reset()
    # observations of the learners' votes (and of the game's end) only
    assert decisions and phases and set(phases) <= {"vote", "over"}
    # The same task with a delegate that reads observations gets them at every decision.
    task = env.tasks[env.possible_agents[0]]
    built: list[int] = []
    reader = make_agent("glove" if game == "undercover" else "caption", game=game, seat=env.possible_agents[0],
                        action_space=env.game_env.action_space(env.possible_agents[0]))
    learner, observation = task.route({"phase": "speak" if game == "undercover" else "story"},
                                      lambda: built.append(1) or {"phase": 0}, reader)
    assert not learner and observation == {"phase": 0} and built == [1]
    learner, observation = task.route({"phase": "vote"}, lambda: built.append(1) or {"phase": 1})
    assert learner and observation == {"phase": 1} and built == [1, 1]
