"""DixitWorld's metric formulas pinned on hand-computed cases quoted from the paper: eq. 1
under both readings of score_max, Overall (text) vs Table 1, Table 1's pooled Storyteller
Score, appendix D's Clarity, the hand-swap seating and the paper's card size."""

from __future__ import annotations

import numpy as np
import pytest

import cluegym
from cluegym.envs.dixit.config import PAPER_ENV_OPTIONS, PAPER_SEED
from cluegym.envs.dixit.deck_options import parse_image_size
from cluegym.envs.dixit.human_eval import centered_clarity, clue_clarity, clue_creativity, model_scores
from cluegym.envs.dixit.metrics import agent_table, eq1, metrics, role_scores
from cluegym.envs.dixit.seating import pair_seating, swap_partner, swaps_within_agent


def _round(storyteller, votes, target, outcome, points):
    return {"storyteller": storyteller, "votes": votes, "target": target, "outcome": outcome, "points": points,
            "candidates": [target, 90, 91, 92], "target_position": 0}


def _game(scores, max_points=(18, 18, 18, 18)):
    rounds = [
        _round(0, [-1, 5, 5, 90], 5, "partial", [3, 3, 3, 1]),
        _round(1, [6, -1, 6, 6], 6, "all_correct", [3, 0, 3, 3]),
        _round(2, [7, 7, 8, 7], 8, "all_wrong", [3, 2, 0, 2]),
        _round(3, [9, 9, 9, 9], 9, "all_correct", [3, 3, 3, 0]),
    ]
    return {"num_players": 4, "scores": list(scores), "max_points": list(max_points), "rounds": rounds}


def test_eq1_is_the_mean_over_matches_of_attained_over_max():
    # "Score = (1/|N|) sum_i score_i^attained / score_i^max x 100%"
    assert eq1([30, 45], [60, 50]) == pytest.approx(100 * (0.5 + 0.9) / 2)
    assert eq1([], []) == 0.0 and eq1([5], [0]) == 0.0
    with pytest.raises(ValueError, match="one maximum per match"):
        eq1([1, 2], [3])


def test_both_readings_of_score_max_on_one_game():
    m = metrics([_game([12, 9, 9, 6])])
    # table best: each seat over the best score at the table (12)
    assert m["normalized_score"] == pytest.approx(100 * np.mean([12 / 12, 9 / 12, 9 / 12, 6 / 12]))
    # attainable: each seat over the points it could have made (18 each here)
    assert m["normalized_attainable"] == pytest.approx(100 * np.mean([12, 9, 9, 6]) / 18)
    assert m["seat:player_0"]["normalized_score"] == 100.0
    assert m["seat:player_3"]["normalized_score"] == pytest.approx(50.0)


def test_overall_is_the_texts_mean_which_table_1_does_not_follow():
    # the text: "Overall Score, the average of the Storyteller and Listener scores"
    row = role_scores([1, 0, 0, 0], [1, 1, 0], [50.0], [10])
    assert row["overall"] == pytest.approx((25.0 + 100 * 2 / 3) / 2)
    # Table 1, Qwen2.5-VL-7B: Storyteller 14.29, Listener 30.87, Overall 17.39 (not 22.58)
    assert (14.29 + 30.87) / 2 == pytest.approx(22.58) and 17.39 != pytest.approx(22.58, abs=1)


def test_table_1_storyteller_column_is_a_pooled_share_of_84_rounds():
    # 6 models, 21 matches: 5 mixed matches x 12 storyteller rounds + self-play x 24 = 84 rounds
    rounds = 5 * (24 // 4 * 2) + 24
    assert rounds == 84
    for paper, partial in ((14.29, 12), (15.48, 13), (20.24, 17), (32.14, 27), (19.05, 16), (30.95, 26)):
        assert round(100 * partial / rounds, 2) == paper


def test_agent_table_pools_rounds_and_averages_eq1_over_matches():
    mixed = {"player_0": "a", "player_1": "a", "player_2": "b", "player_3": "b"}
    self_play = dict.fromkeys(mixed, "a")
    table = agent_table([([_game([12, 9, 9, 6])], mixed), ([_game([6, 6, 6, 12])], self_play)])
    a = table["a"]
    # pooled: a told rounds 0 and 1 in the mixed match (1 partial), all 4 in self-play (1 partial)
    assert a["story_rounds"] == 6 and a["storyteller_score"] == pytest.approx(100 * 2 / 6)
    # eq. 1: mixed match mean(12/12, 9/12), self-play mean(6/12, 6/12, 6/12, 12/12), then their mean
    assert a["normalized_score"] == pytest.approx(100 * (np.mean([1, 0.75]) + np.mean([0.5, 0.5, 0.5, 1])) / 2)
    assert a["matches"] == 2 and table["b"]["matches"] == 1
    with pytest.raises(ValueError, match="not in the match"):
        agent_table([([_game([1, 1, 1, 1])], {"player_7": "a"})])


def test_clarity_formula_of_appendix_d():
    # "This yields S* = 1.0 for s = 3 (perfect balance), 0.5 for s = 2, 4, and 0.0 for s = 1, 5."
    assert [centered_clarity(s) for s in (1, 2, 3, 4, 5)] == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert clue_clarity([3, 3, 3]) == 1.0
    # the "false middle": half the raters give 1 and half give 5 -> median 0, all votes extreme
    assert clue_clarity([1, 5, 1, 5]) == 0.0
    # median of S* (0, 1, 1, 0) = 0.5, times (1 - 2/4) extreme votes = 0.25
    assert clue_clarity([1, 3, 3, 5]) == pytest.approx(0.25)
    assert clue_clarity([2, 4, 3]) == pytest.approx(0.5)
    assert clue_creativity([3, 5]) == pytest.approx(0.75) and clue_creativity([1]) == 0.0
    with pytest.raises(ValueError, match="1..5"):
        clue_clarity([0, 3])
    with pytest.raises(ValueError, match="at least one"):
        clue_clarity([])
    table = model_scores(clarity={"m": [[3, 3], [1, 3]]}, creativity={"m": [[5, 5]]}, guesses={"m": [True, False]})
    assert table["m"] == {"clarity": pytest.approx(0.625), "clues": 2.0, "creativity": 1.0, "accuracy": 50.0,
                          "guesses": 2.0}


def test_pair_seating_makes_every_hand_swap_cross_agents():
    seats = pair_seating("a", "b")
    assert seats == {"player_0": "a", "player_1": "a", "player_2": "b", "player_3": "b"}
    assert swaps_within_agent(seats) == []
    # the old documented seating (one agent at P1/P3) swaps hands within each agent
    old = {"player_0": "a", "player_2": "a", "player_1": "b", "player_3": "b"}
    assert swaps_within_agent(old) == [("player_0", "player_2"), ("player_1", "player_3")]
    assert swap_partner("player_0") == "player_2" and swap_partner("player_3") == "player_1"
    assert swaps_within_agent(pair_seating("a", "b", 6), 6) == []
    with pytest.raises(ValueError, match="even number"):
        pair_seating("a", "b", 5)
    with pytest.raises(ValueError, match="not a seat"):
        swap_partner("alice")


def test_swap_partner_matches_the_envs_hand_swap():
    env = cluegym.make("dixit", num_rounds=2, image_size="24x16")
    env.reset(seed=PAPER_SEED)
    before = [list(h) for h in env.unwrapped.state.hands]
    for _ in range(2):  # two rounds of first legal choices; the swap comes after round 1
        while env.unwrapped.state.round < 1 and env.agents:
            obs, *_ = env.last()
            legal = int(np.flatnonzero(obs["card_mask"])[0])
            env.step({"card": legal, "clue": "a quiet storm"})
    after = env.unwrapped.state.hands
    for p in range(4):
        partner = int(swap_partner(f"player_{p}")[-1])
        assert sorted(after[partner]) == sorted(before[p])


def test_paper_env_options_use_the_papers_card_size():
    assert parse_image_size("full", (460, 305)) == (460, 305)
    with pytest.raises(ValueError, match="needs a deck"):
        parse_image_size("full")
    env = cluegym.make("dixit", **PAPER_ENV_OPTIONS, num_rounds=2)
    obs, *_ = env.reset(seed=PAPER_SEED) or (None,)
    obs, *_ = env.last()
    # appendix E: "Each image is in PNG format (305 x 460, RGBA ...)": width 305, height 460
    assert obs["hand"].shape == (4, 460, 305, 3)
    assert env.unwrapped.config["image_size"] == [460, 305]
