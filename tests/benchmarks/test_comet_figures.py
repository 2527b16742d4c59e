"""The CoMet Figure 4, Figure 6 and Table 2 drivers through the scripted fake server (their
tables, JSON and PNGs), the metaphor success rate on a hand-computed game, and one-line errors."""

from __future__ import annotations

import json

from comet_replies import TABOO_TARGETS, comet_reply

from cluegym.agents.llm.comet import ExperiencePool
from cluegym.agents.llm.fake_server import FakeChatServer
from cluegym.benchmarks import comet_figure4, comet_figure6, comet_table2
from cluegym.benchmarks.comet_common import metaphor_success

PNG = b"\x89PNG\r\n\x1a\n"


def hand_game() -> dict:
    """player_0..2 civilians ("bee"), player_3 undercover ("butterfly"); one round, order
    2, 0, 3, 1; player_3 votes player_1, everyone else votes player_3 out. Only player_0
    reports beliefs: while speaking (player_2 is a teammate) and while voting (player_3 an
    opponent, player_1 undecided)."""
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
            {"player": "player_0", "round": 0, "phase": "speak", "beliefs": {"self": "civilian", "others": {"2": "teammate"}}},
            {"player": "player_0", "round": 0, "phase": "vote",
             "beliefs": {"self": "civilian", "others": {"3": "opponent", "1": "undecided"}}},
        ],
    }


def test_metaphor_success_by_hand():
    seats = {"player_0": "A", "player_1": "A", "player_2": "B", "player_3": "B"}
    # A: player_0's "wings" succeeds (no teammate doubted it, the opponent voted elsewhere);
    # player_1's "flowers" fails (player_0 left it undecided, the opponent voted for it).
    assert metaphor_success([(hand_game(), seats)], "A") == {
        "metaphors": 2, "successes": 1, "rate": 0.5, "recognized": 0.5, "misled": 0.5}
    # B: player_2's "honey" succeeds (player_0 labelled it a teammate); player_3's "honey too"
    # fails (labelled an opponent and voted out by every opponent).
    b = metaphor_success([(hand_game(), seats)], "B")
    assert (b["metaphors"], b["successes"], b["rate"]) == (2, 1, 0.5)
    assert metaphor_success([(hand_game(), seats)], "C") == {
        "metaphors": 0, "successes": 0, "rate": None, "recognized": None, "misled": None}


def test_figure4_both_panels(tmp_path, capsys):
    png, out = tmp_path / "figure4.png", tmp_path / "figure4.json"
    with FakeChatServer(comet_reply) as server:
        assert comet_figure4.main([
            "--games", "2", "--targets", ",".join(TABOO_TARGETS), "--models", "m1;m2", "--attacker-model", "atk",
            "--base-url", server.base_url, "--model", "main", "--concurrency", "2", "--out", str(png),
            "--json", str(out)]) == 0
        models = {r["model"] for r in server.requests}
    assert models == {"main", "m1", "m2", "atk"}
    figure = json.loads(out.read_text())
    assert list(figure["a"]) == [f"{role} ({m})" for role in ("Attacker", "Defender") for m in ("Naive", "CoT", "CoMet")]
    assert list(figure["b"]) == [f"{model} ({m})" for model in ("m1", "m2") for m in ("Naive", "CoT", "CoMet")]
    for panel in ("a", "b"):
        for row in figure[panel].values():
            assert row["games"] == 2 and abs(row["win"] + row["lose"] + row["draw"] - 1) < 1e-9
    # CoT against CoT is one match: its attacker's wins are its defender's losses
    cot_att, cot_def = figure["a"]["Attacker (CoT)"], figure["a"]["Defender (CoT)"]
    assert (cot_att["win"], cot_att["draw"]) == (cot_def["lose"], cot_def["draw"])
    text = capsys.readouterr().out
    assert "(a) against CoT" in text and "(b) defender against a CoT attacker (atk)" in text
    assert png.read_bytes().startswith(PNG)


def test_figure4_outcomes_by_hand():
    results = [{"winner": "attacker"}, {"winner": "defender"}, {"winner": None}, {"winner": "attacker"}]
    assert comet_figure4.outcomes(results, "attacker") == {"win": 0.5, "lose": 0.25, "draw": 0.25, "games": 4}
    assert comet_figure4.outcomes(results, "defender") == {"win": 0.25, "lose": 0.5, "draw": 0.25, "games": 4}


def test_figure6_reasoning_variants_and_experience_counts(tmp_path, capsys):
    pool, png, out = tmp_path / "pool.jsonl", tmp_path / "figure6.png", tmp_path / "figure6.json"
    with FakeChatServer(comet_reply) as server:
        assert comet_figure6.main([
            "--variants", "DU=comet:reasoning=direct;RR=comet:reasoning=replace", "--experiences", "0,3",
            "--learn-games", "2", "--pool", str(pool), "--pairs", "1", "--base-url", server.base_url,
            "--model", "fake", "--concurrency", "2", "--out", str(png), "--json", str(out)]) == 0
        asked = [r["messages"][-1]["content"] for r in server.requests]
    # each variant's own reasoner prompt reached the model ((b) plays the default, hypothesis-based one)
    assert any("(Direct Metaphor Understanding)" in a for a in asked)
    assert any("(Replace-based Metaphor Reasoner)" in a for a in asked)
    figure = json.loads(out.read_text())
    learned = len(ExperiencePool(pool).entries("undercover"))
    # the pool filled by self-play only (evaluation runs with learn=false adds nothing)
    assert figure["learning"] == {"games": 2, "experiences": learned} and learned >= 3
    assert list(figure["a"]) == ["DU", "RR"] and list(figure["b"]) == ["0", "3"]
    for row in [*figure["a"].values(), *figure["b"].values()]:
        assert row["success"]["metaphors"] > 0 and 0 <= row["success"]["rate"] <= 1
        assert row["FER"] is not None  # CoMet reports the features it read
    text = capsys.readouterr().out
    assert "(a) reasoning methods, against CoT" in text and "3 experiences" in text
    assert png.read_bytes().startswith(PNG)


def test_table2_ablations_reach_the_agent(tmp_path, capsys):
    out = tmp_path / "table2.json"
    with FakeChatServer(comet_reply) as server:
        assert comet_table2.main([
            "--variants", "CoMet w/o Met.&SM=comet:ablate=met+sm", "--pairs", "1", "--base-url", server.base_url,
            "--model", "fake", "--concurrency", "2", "--json", str(out)]) == 0
        asked = [r["messages"][-1]["content"] for r in server.requests]
    assert not any("(Self-Monitor)" in a or "(Metaphor Generator" in a for a in asked)
    assert any("(Belief Mapper)" in a for a in asked)
    row = json.loads(out.read_text())["rows"]["CoMet w/o Met.&SM"]
    assert row["modules"] == {"met": False, "fe": True, "bm": True, "sm": False, "sp": True}
    assert row["WR"] == (row["civilian"] + row["undercover"]) / 2
    text = capsys.readouterr().out
    assert "against CoT" in text and "CoMet w/o Met.&SM       ×     ✓     ✓     ×     ✓" in text
    assert comet_table2.kept_modules("llm-cot") is None


def test_figure_and_table2_errors_are_one_line(capsys):
    assert comet_figure4.main(["--games", "1"]) == 2
    assert "give --base-url and --model" in capsys.readouterr().err
    assert comet_figure4.main(["--methods", "A=glove", "--models", "m1", "--local"]) == 2
    assert "does not combine with --local" in capsys.readouterr().err
    assert comet_figure4.main(["--methods", "CoT=glove", "--opponent", "CoT=random"]) == 2
    assert "another method's spec" in capsys.readouterr().err
    assert comet_figure6.main(["--experiences", "0,x", "--part", "b"]) == 2
    assert "comma-separated list of integers" in capsys.readouterr().err
    assert comet_table2.main(["--variants", "CoT=comet", "--baseline", "CoT=llm-cot"]) == 2
    assert "also a variant" in capsys.readouterr().err
    assert comet_table2.main(["--baseline", "A=llm;B=glove"]) == 2
    assert "one LABEL=SPEC" in capsys.readouterr().err
