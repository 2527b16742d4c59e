"""A spec's ``seed=`` in a match: mixed into the per-game seed its agent is reset with, so
``seed=5`` and ``seed=6`` play differently and the same seed plays the same, every game keeps
its own seed, and agents without a seed of their own get the seeds they always got."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cluegym
import cluegym.agents
from cluegym.agents import make_agent, register_agent, registered_agents, run_match
from cluegym.agents.random_agent import RandomAgent
from cluegym.harness import agent_seed, own_seed_of, play_match_game, with_own_seed
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.selfplay import SelfPlayEnv

#: seat -> the seeds its agents were reset with, in order (filled by SeedSpy).
RESETS: dict[str, list[int | None]] = {}
SHORT = {"max_turns": 3}


class SeedSpy(RandomAgent):
    """A random player that notes every seed it is reset with."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        RESETS.setdefault(self.seat, []).append(seed)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int | None]]:
    """``spy`` registered for one test (on a copy of the registry); its resets, cleared."""
    registered_agents()
    monkeypatch.setattr(cluegym.agents, "AGENTS", dict(cluegym.agents.AGENTS))
    register_agent("spy", SeedSpy)
    RESETS.clear()
    return RESETS


def _steps(game: str, spec: str, *, games: int = 3, seed: int = 0) -> list[Any]:
    records: dict[int, dict[str, Any]] = {}
    run_match(game, {"*": spec}, games=games, seed=seed, env_kwargs=SHORT,
              on_game=lambda index, record: records.__setitem__(index, record), progress=False)
    return [records[i]["steps"] for i in range(games)]


def _rows(path: Path) -> list[str]:
    return sorted(path.read_text().splitlines(), key=lambda line: json.loads(line)["index"])


def test_agent_seed_without_an_own_seed_is_the_seed_it_always_was():
    old = [int(np.random.SeedSequence([s, i, 1 + j]).generate_state(1, dtype=np.uint64)[0] % (2**63))
           for s in (0, 7, 2**40) for i in range(4) for j in range(3)]
    assert [agent_seed(s, i, j) for s in (0, 7, 2**40) for i in range(4) for j in range(3)] == old
    assert [agent_seed(s, i, j, None) for s in (0, 7, 2**40) for i in range(4) for j in range(3)] == old
    assert agent_seed(0, 3, 1) == 5638674652679607053  # recorded matches replay


def test_an_own_seed_gives_each_seed_game_and_seat_its_own_agent_seed():
    plain = {agent_seed(0, i, j) for i in range(8) for j in range(4)}
    own = {agent_seed(0, i, j, s) for i in range(8) for j in range(4) for s in (0, 1, 5, 2**32, 2**70)}
    assert len(own) == 8 * 4 * 5 and not own & plain  # seed=0 included: no seed is no own seed
    assert agent_seed(3, 2, 1, 5) == agent_seed(3, 2, 1, np.int64(5)) != agent_seed(4, 2, 1, 5)


def test_own_seed_of_reads_an_integer_seed_attribute_only():
    space = cluegym.make("decrypto").action_space("eve")
    assert own_seed_of(RandomAgent("decrypto", "eve", space, seed=5)) == 5
    assert own_seed_of(RandomAgent("decrypto", "eve", space)) is None

    class Other:
        def __init__(self, seed: Any) -> None:
            self.seed = seed

    assert own_seed_of(Other(np.int64(3))) == 3 and type(own_seed_of(Other(np.int64(3)))) is int
    for value in (None, True, -1, 2.0, "5", lambda s: None):
        assert own_seed_of(Other(value)) is None
    assert own_seed_of(object()) is None


def test_a_match_resets_a_seeded_spec_with_seeds_from_its_seed_and_others_as_before(spy):
    summary = run_match("decrypto", {"alice": "spy:seed=5", "bob": "spy", "eve": "spy:seed=0"}, games=3, seed=4,
                        env_kwargs=SHORT, progress=False)
    assert summary["ok"]
    # the first build of each seat is the match's check of the specs, never reset
    assert spy["alice"] == [agent_seed(4, i, 0, 5) for i in range(3)]
    assert spy["bob"] == [agent_seed(4, i, 1) for i in range(3)]
    assert spy["eve"] == [agent_seed(4, i, 2, 0) for i in range(3)]
    assert len(set(spy["alice"])) == 3  # every game its own seed


@pytest.mark.parametrize("game", ["taboo", "decrypto"])
def test_spec_seeds_s_and_t_play_differently_and_the_same_s_the_same(game):
    five = _steps(game, "random:seed=5")
    assert five != _steps(game, "random:seed=6") and five != _steps(game, "random")
    assert five == _steps(game, "random:seed=5")
    assert five != _steps(game, "random:seed=5", seed=1)  # the match seed still counts


def test_spec_seeded_games_replay_alone_resumed_and_at_any_concurrency(tmp_path):
    seats = {"attacker": "random:seed=5", "defender": "random:seed=9"}
    whole = tmp_path / "whole.jsonl"
    run_match("taboo", seats, games=4, seed=2, results_path=whole, progress=False)
    resumed = tmp_path / "resumed.jsonl"
    run_match("taboo", seats, games=2, seed=2, results_path=resumed, progress=False)
    run_match("taboo", seats, games=4, seed=2, concurrency=3, results_path=resumed, progress=False)
    assert _rows(resumed) == _rows(whole)
    # game 3 alone, as a Ray worker plays it, gives the same row
    signature = json.loads(_rows(whole)[3])["match"]
    _, line = play_match_game("taboo", signature["seats"], 3, seed=2, env_kwargs={}, signature=signature,
                              make_agent=make_agent)
    assert line.strip() == _rows(whole)[3]


# -- the learning views: SelfPlayEnv and the multi-seat view draw their opponents' seeds ---------

def _view_resets(view: str, spec: str, seed: int = 0, games: int = 4) -> list[int | None]:
    """The seeds the Taboo attacker ``spec`` was reset with over ``games`` games of ``view``."""
    RESETS.clear()
    if view == "selfplay":
        env = SelfPlayEnv("taboo", "defender", opponents={"attacker": spec})
        for game in range(games):
            env.reset(seed=seed if game == 0 else None)
    else:
        env = MultiSeatEnv("taboo", ["defender"], opponents={"attacker": spec})
        for game in range(games):
            env.reset(seed=seed if game == 0 else None)
    return list(RESETS["attacker"])


@pytest.mark.parametrize("view", ["selfplay", "multiseat"])
def test_a_learning_view_mixes_a_spec_seed_into_its_opponents_seeds(spy, view):
    plain = _view_resets(view, "spy")
    five = _view_resets(view, "spy:seed=5")
    assert five == [with_own_seed(drawn, 5) for drawn in plain]  # the same draws, the own seed mixed in
    assert five != _view_resets(view, "spy:seed=6") and five == _view_resets(view, "spy:seed=5")
    assert len(set(five)) == len(five) and not set(five) & set(plain)
    assert plain == _view_resets(view, "spy")  # an opponent without a seed: as before


def test_a_learning_view_opponent_with_a_spec_seed_plays_differently():
    def openings(spec: str) -> list[str]:
        env = SelfPlayEnv("taboo", "defender", opponents={"attacker": spec})
        texts = []
        for seed in range(6):
            env.reset(seed=seed)
            texts.append(env.raw.state.dialogue[0].text)
        return texts

    five = openings("random:seed=5")
    assert five == openings("random:seed=5") and five != openings("random:seed=6") and five != openings("random")


def test_explicit_agent_seeds_are_used_as_given(spy):
    env = SelfPlayEnv("taboo", "defender", opponents={"attacker": "spy:seed=5"})
    RESETS.clear()
    env.reset(seed=0, options={"agent_seeds": {"attacker": 77}})
    assert RESETS["attacker"] == [77]


def test_with_own_seed_keeps_a_seed_without_one_and_mixes_one_in():
    assert with_own_seed(123, None) == 123
    mixed = {with_own_seed(d, s) for d in range(5) for s in (0, 1, 5, 2**40)}
    assert len(mixed) == 20 and not mixed & set(range(5))
    assert with_own_seed(9, 5) == with_own_seed(9, np.int64(5)) and 0 <= with_own_seed(9, 5) < 2**63

