"""CoMet's six Undercover metrics (appendix E) pinned on hand-computed games, the balanced metric
per method, the WordNet judge, the every-pair schedule, CoMet's metaphor feedback, and env
prompts free of CoMet's strategy."""

from __future__ import annotations

import pytest

import cluegym
from cluegym.agents import run_match
from cluegym.agents.llm.comet.feedback import metaphor_feedback
from cluegym.envs.undercover.judge import WordNetJudge
from cluegym.envs.undercover.metrics import balanced, method_metrics, metrics
from cluegym.envs.undercover.speech_metrics import seat_counts


class StubJudge:
    """A judge by substrings, so that every count below can be checked by hand."""

    def feature_valid(self, feature: str, description: str, speaker_word: str) -> bool:
        return feature in description

    def leaks(self, description: str, own_word: str, other_word: str) -> bool:
        return "honey" in description

    def inconsistent(self, description: str, own_word: str, other_word: str) -> bool:
        return "too" in description


def report(player: int, phase: str, beliefs: dict, rnd: int = 0) -> dict:
    return {"player": f"player_{player}", "round": rnd, "phase": phase, "beliefs": beliefs}


def game() -> dict:
    """player_0..2 civilians ("bee"), player_3 undercover ("butterfly"); one round, order 2, 0, 3, 1;
    everyone votes player_3 out. player_0 reports while speaking and while voting."""
    return {
        "winner": "civilians", "end_reason": "undercover_eliminated", "rounds": 1, "ties": 0,
        "words": {"civilian": "bee", "undercover": "butterfly"},
        "roles": {"player_0": "civilian", "player_1": "civilian", "player_2": "civilian", "player_3": "undercover"},
        "eliminated": [{"player": "player_3", "round": 0, "role": "undercover"}],
        "history": [{
            "round": 0, "order": [2, 0, 3, 1],
            "descriptions": {"player_2": "honey", "player_0": "wings", "player_3": "honey too", "player_1": "flowers"},
            "votes": {"player_0": "player_3", "player_1": "player_3", "player_2": "player_3", "player_3": "player_1"},
            "eliminated": "player_3",
        }],
        "beliefs": [
            report(0, "speak", {"self": "civilian", "others": {"2": "teammate"}, "features": {"2": "honey"}}),
            report(0, "vote", {"self": "civilian", "others": {"3": "opponent", "1": "undecided"},
                               "features": {"3": "nothing", "1": "flowers"}}),
        ],
    }


def test_seat_counts_follow_appendix_e_by_hand():
    c = seat_counts(game(), "player_0", StubJudge())
    # heard player_2 (answered by the speaking report), player_3 and player_1 (by the vote report)
    assert (c.received, c.features_valid, c.judged_correct) == (3, 2, 2)  # "nothing" is not in "honey too"; undecided is wrong
    assert (c.self_attempts, c.self_correct, c.speeches, c.leaked, c.inconsistent) == (2, 2, 1, 0, 0)
    u = seat_counts(game(), "player_3", StubJudge())
    assert (u.won, u.speeches, u.leaked, u.inconsistent) == (False, 1, 1, 1)
    assert not (u.reports_features or u.reports_others or u.reports_self)


def test_method_metrics_and_balanced_by_hand():
    rows = method_metrics([(game(), {f"player_{i}": "m" for i in range(4)})], StubJudge())["m"]
    civ, und = rows["civilian"], rows["undercover"]
    # civilians: 3 speeches, player_2's "honey" leaks; 9 speeches heard, 2 valid features, 2 right labels
    assert civ["WR"] == 1.0 and civ["PPC"] == pytest.approx(2 / 3) and civ["IISC"] == 0.0
    assert civ["FER"] == pytest.approx(2 / 9) and civ["OIAA"] == pytest.approx(2 / 9) and civ["SIAA"] == 1.0
    # the undercover player reported nothing: n/a, never 0
    assert und["WR"] == 0.0 and und["PPC"] == 0.0 and und["IISC"] == 1.0
    assert und["FER"] is None and und["SIAA"] is None and und["OIAA"] is None
    assert rows["balanced"]["WR"] == pytest.approx(0.5 - 0.25) and rows["balanced"]["FER"] is None
    assert rows["balanced"]["PPC"] == pytest.approx(balanced(2 / 3, 0.0))
    assert balanced(0.8, 0.2) == pytest.approx(0.5 - 0.09) and balanced(None, 0.3) is None


def test_metrics_per_role_and_per_agent():
    m = metrics([game()], agents={"player_0": "a", "player_1": "a", "player_2": "b", "player_3": "b"}, judge=StubJudge())
    assert m["civilian_win_rate"] == 1.0 and m["civilian"]["FER"] == pytest.approx(2 / 9)
    assert "balanced" not in m  # different agents: the balanced metric is per agent
    assert m["by_agent"]["a"]["civilian"]["PPC"] == 1.0 and m["by_agent"]["b"]["civilian"]["PPC"] == 0.0
    assert m["by_agent"]["a"]["undercover"]["WR"] is None  # a never played undercover
    assert metrics([]) == {"games": 0}


def test_wordnet_judge_reads_glosses():
    judge = WordNetJudge()
    assert judge.leaks("It makes honey in a hive.", "bee", "butterfly")
    assert judge.inconsistent("It makes honey in a hive.", "butterfly", "bee")
    assert not judge.leaks("It is found outside.", "bee", "butterfly")
    assert judge.feature_valid("stripes", "It has stripes.", "tiger") and not judge.feature_valid("unknown", "x", "tiger")


def test_every_pair_schedule_plays_each_pair_in_turn():
    pairs = [["bee", "butterfly"], ["wolf", "tiger"]]
    env = cluegym.make("undercover", word_pairs=pairs, pair_schedule="every_pair", episodes_per_pair=2)
    seen = []
    for index in range(5):
        env.reset(seed=index, options=env.unwrapped.match_game_options(index))
        seen.append({env.unwrapped.state.civilian_word, env.unwrapped.state.undercover_word})
    assert seen == [{"bee", "butterfly"}] * 2 + [{"wolf", "tiger"}] * 2 + [{"bee", "butterfly"}]
    with pytest.raises(ValueError, match="needs the game's index"):
        env.reset(seed=0)
    with pytest.raises(ValueError, match="pair_schedule"):
        cluegym.make("undercover", pair_schedule="sometimes")
    # the match harness passes the index: a 4-game match plays each pair twice
    words = []
    run_match("undercover", {"*": "random"}, games=4, seed=0, progress=False,
              env_kwargs={"word_pairs": pairs, "pair_schedule": "every_pair", "episodes_per_pair": 2},
              on_game=lambda i, rec: words.append((i, frozenset(rec["result"]["words"].values()))))
    assert sorted(words) == [(0, {"bee", "butterfly"}), (1, {"bee", "butterfly"}), (2, {"wolf", "tiger"}),
                             (3, {"wolf", "tiger"})]


def test_metaphor_feedback_success_rule():
    result = game()
    # player_0's "wings": teammates did not vote for it, the opponent did not see through it
    ok = metaphor_feedback(result, "player_0", 0)
    assert ok["recognized"] and ok["misled"] and ok["success"] and ok["won"]
    # player_3's "honey too": player_0 labelled it an opponent and everyone voted it out
    bad = metaphor_feedback(result, "player_3", 0)
    assert not bad["misled"] and not bad["success"]
    by_player = {i["player"]: i for i in bad["interpretations"]}
    assert by_player["player_0"]["feature"] == "nothing" and by_player["player_0"]["label_correct"] is True
    assert metaphor_feedback(result, "player_3", 5)["description"] is None


def test_env_prompts_hold_no_comet_strategy():
    env = cluegym.make("undercover")
    env.reset(seed=0)
    prompt = env.observe(env.agent_selection)["prompt"]
    assert "opponents cannot" not in prompt and "devise corresponding strategies" not in prompt
    taboo = cluegym.make("taboo", targets=["apple"])
    taboo.reset(seed=0)
    for seat in ("attacker", "defender"):
        text = taboo.observe(seat)["prompt"]
        assert "metaphor" not in text.lower() and "same word in this round" not in text and "last turn" not in text
