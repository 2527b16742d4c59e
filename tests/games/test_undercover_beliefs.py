"""Undercover's belief reports (read, scored, recorded, never changing the game) and CoMet's
metrics over finished games, identity accuracies included."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cluegym.envs.undercover.beliefs import parse_beliefs
from cluegym.envs.undercover.env import UndercoverEnv, raw_env
from cluegym.envs.undercover.metrics import metrics

# Civilians player_0, player_1, player_2 ("bee"); undercover player_3, player_4 ("butterfly").
WORDS = ["bee", "butterfly"]
UNDERCOVER = [3, 4]


def new_env(seed: int = 0) -> UndercoverEnv:
    env = raw_env()
    env.reset(seed=seed, options={"words": WORDS, "undercover": UNDERCOVER})
    return env


def test_beliefs_are_recorded_and_never_change_the_game():
    def play(with_beliefs: bool) -> dict:
        env = new_env()
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            me = int(obs["player"])
            beliefs = json.dumps({"self": "civilian", "others": {f"player_{(me + 1) % 5}": "undercover", "player_3": "opponent"},
                                  "other_word": "Butterflies"}) if with_beliefs else ""
            vote = 3 if obs["alive"][3] and me != 3 else int(np.flatnonzero(obs["vote_mask"])[0])
            env.step({"description": "It flies.", "vote": vote, "beliefs": beliefs})
        return env.unwrapped.game_record()["result"]

    with_b, without = play(True), play(False)
    assert {k: v for k, v in with_b.items() if k != "beliefs"} == {k: v for k, v in without.items() if k != "beliefs"}
    assert without["beliefs"] == []
    first = with_b["beliefs"][0]
    assert first["self_correct"] == (first["role"] == "civilian")
    m = metrics([with_b])
    assert m["belief_reports"] == len(with_b["beliefs"])
    assert 0 <= m["civilian"]["SIAA"] <= 1 and 0 <= m["civilian"]["OIAA"] <= 1
    # civilians guessing "Butterflies" for the other word are right (inflection ignored)
    assert all(b["other_word_correct"] == (b["role"] == "civilian") for b in with_b["beliefs"])


def test_unreadable_beliefs_are_recorded_not_rejected():
    env = new_env()
    seat = env.agent_selection
    env.step({"description": "It flies.", "beliefs": "{not json"})
    assert env.agent_selection != seat and "error" not in env.infos[seat]
    assert "not JSON" in env.infos[seat]["beliefs_error"]
    assert env.game_record()["steps"][-1]["events"][-1]["type"] == "beliefs_unreadable"
    assert parse_beliefs('{"self": "spy"}', 5)[1].startswith("beliefs.self")
    assert parse_beliefs('{"others": {"player_9": "civilian"}}', 5)[1].startswith("beliefs.others names")
    assert parse_beliefs('{"others": {"2": "teammate", "player_1": "?"}}', 5)[1] is not None
    assert parse_beliefs('{"others": {"2": "teammate", "player_1": "undecided"}}', 5)[0] == {
        "others": {"2": "teammate", "1": "undecided"}}


def test_metrics_team_and_per_seat():
    def result(winner, undercover, rounds=3):
        roles = {f"player_{i}": "undercover" if i in undercover else "civilian" for i in range(5)}
        return {"winner": winner, "end_reason": "undercover_eliminated" if winner == "civilians" else "one_civilian_left",
                "rounds": rounds, "roles": roles, "eliminated": [], "ties": 1, "beliefs": [],
                "words": {"civilian": "bee", "undercover": "butterfly"}, "history": []}

    results = [result("civilians", [3, 4]), result("civilians", [0, 1]),
               result("undercover", [3, 4]), result("civilians", [2, 3], rounds=5)]
    m = metrics(results)
    assert m["civilian_win_rate"] == 0.75 and m["undercover_win_rate"] == 0.25
    assert "balanced_win_rate" not in m  # the balanced metric is per method, not of one match's two teams
    assert m["avg_rounds"] == 3.5 and m["tie_rate"] == pytest.approx(4 / 14)
    assert m["seat_win_rate_undercover"]["player_3"] == pytest.approx(1 / 3)
    assert m["seat_win_rate_civilian"]["player_0"] == pytest.approx(2 / 3)
    assert m["seat_win_rate_undercover"]["player_0"] == 0.0  # player_0 was undercover once, and lost
    assert m["seat_balanced_win_rate"]["player_0"] == pytest.approx(np.mean([2 / 3, 0]) - np.var([2 / 3, 0]))
    # one agent in every seat: its WR per role is the team's, and balanced across the roles
    assert m["civilian"]["WR"] == 0.75 and m["undercover"]["WR"] == 0.25
    assert m["balanced"]["WR"] == pytest.approx(0.5 - 0.0625)
    assert m["civilian"]["SIAA"] is None  # nobody reported: n/a
    assert metrics([]) == {"games": 0}
