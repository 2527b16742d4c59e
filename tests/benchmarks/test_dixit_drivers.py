"""DixitWorld's experiment drivers on cheap agents: the round-robin (Table 1, Figures 2-3),
the hand-swap check, the human-evaluation sheet, and the paper preset."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from cluegym.agents import run_match
from cluegym.benchmarks import dixit_handswap, dixit_human_eval, dixit_roundrobin
from cluegym.benchmarks.dixit_paper import paper_agent_spec, preset_options
from cluegym.envs.dixit.seating import swaps_within_agent

SHORT = {"num_rounds": 4}


def test_paper_preset_sets_temperature_and_card_size_only_where_they_apply():
    assert paper_agent_spec("llm") == "llm:temperature=0.7"
    assert paper_agent_spec("llm-cot:backend=openai,model=m") == "llm-cot:backend=openai,model=m,temperature=0.7"
    assert paper_agent_spec("llm:temperature=0") == "llm:temperature=0"  # explicit wins
    assert paper_agent_spec("vision:rank=3") == "vision:rank=3"
    seats, env = preset_options("paper", {"*": "llm"}, {"image_size": "96x64"})
    assert seats == {"*": "llm:temperature=0.7"} and env == {"rules": "dixitworld", "image_size": "96x64"}
    assert preset_options("quick", {"*": "llm"}) == ({"*": "llm"}, {})
    with pytest.raises(ValueError, match="preset"):
        preset_options("fancy", {})


def test_round_robin_plays_every_pair_once_with_cross_agent_swaps(tmp_path: Path, capsys):
    agents = ["random", "random:seed=7"]
    run = dixit_roundrobin.play(agents, seed=3, env=SHORT, progress=False)
    assert [(m["a"], m["b"]) for m in run["matches"]] == dixit_roundrobin.pairings(agents)
    assert len(dixit_roundrobin.pairings(["a", "b", "c", "d", "e", "f"])) == 21  # the paper's 21 matches
    for m in run["matches"]:
        assert len(m["results"]) == 1 and len(m["results"][0]["rounds"]) == 4
        if m["a"] != m["b"]:
            assert swaps_within_agent(m["seats"]) == []
    head = np.array(run["head_to_head"])
    assert head.shape == (2, 2) and np.isfinite(head).all() and (head <= 100).all()
    # the table pools both matches of each agent; every storyteller round lands in one outcome
    assert run["table"]["random"]["matches"] == 2
    for name in agents:
        assert sum(run["outcomes"][name].values()) == pytest.approx(100.0)
    text = dixit_roundrobin.format_tables(run)
    assert "Table 1" in text and "Figure 2" in text and "Figure 3" in text
    assert dixit_roundrobin.plot(run, tmp_path / "rr.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="different agents"):
        dixit_roundrobin.play(["random", "random"], env=SHORT, progress=False)


def test_round_robin_cli_help_and_run(tmp_path: Path, capsys):
    with pytest.raises(SystemExit):
        dixit_roundrobin.main(["--help"])
    assert "21 matches" in capsys.readouterr().out


def test_hand_swap_check_measures_the_gap_between_seatings(tmp_path: Path):
    run = dixit_handswap.check("random", "random:seed=9", deals=2, seed=1, env=SHORT, progress=False)
    for name, _ in dixit_handswap.CONDITIONS:
        c = run["conditions"][name]
        adv = np.array(c["advantage"]["a_first"]) - np.array(c["advantage"]["b_first"])
        assert c["gap"] == pytest.approx(np.abs(adv).tolist()) and c["max_gap"] == max(c["gap"])
        assert len(c["phases"]["a"]) == 2
    assert "gap/game" in dixit_handswap.format_check(run)
    assert dixit_handswap.plot(run, tmp_path / "hs.png").exists()
    with pytest.raises(ValueError, match="two different agents"):
        dixit_handswap.check("random", "random", progress=False)


def test_agent_points_splits_the_phases():
    result = {"rounds": [{"points": [3, 0, 1, 2]}, {"points": [0, 3, 3, 0]}]}
    seats = {"player_0": "a", "player_1": "a", "player_2": "b", "player_3": "b"}
    assert dixit_handswap.agent_points(result, seats, "a") == (3.0, 1.5, 1.5)
    assert dixit_handswap.agent_points(result, seats, "b") == (3.0, 1.5, 1.5)


def test_human_eval_sheet_round_trip(tmp_path: Path, capsys):
    results = tmp_path / "games.jsonl"
    run_match("dixit", {"player_0": "random", "player_1": "random", "player_2": "random:seed=2",
                        "player_3": "random:seed=2"}, games=1, seed=0, env_kwargs=SHORT, results_path=results,
              progress=False)
    sheet = tmp_path / "sheet.csv"
    assert dixit_human_eval.main(["export", "--results", str(results), "--raters", "2", "--out", str(sheet)]) == 0
    rows = list(csv.DictReader(sheet.open()))
    assert len(rows) == 4 and {r["agent"] for r in rows} == {"random", "random:seed=2"}
    for row in rows:
        assert row["candidates"].split()[int(row["target_number"]) - 1] == row["target"]
    # fill: every clue of "random" gets clarity (3, 1) -> median(1, 0) = 0.5 x (1 - 1/2) = 0.25,
    # creativity (5, 3) -> 0.75, and a correct human guess
    for row in rows:
        row.update(clarity_1="3", clarity_2="1", creativity_1="5", creativity_2="3",
                   human_guess=row["target_number"] if row["agent"] == "random" else "")
    with sheet.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    table = dixit_human_eval.score_sheet(sheet)
    assert table["random"]["clarity"] == pytest.approx(0.25)
    assert table["random"]["creativity"] == pytest.approx(0.75)
    assert table["random"]["accuracy"] == 100.0 and "accuracy" not in table["random:seed=2"]
    assert dixit_human_eval.main(["score", "--sheet", str(sheet), "--no-progress"]) == 0
    assert "Clarity" in capsys.readouterr().out
    rows[0]["clarity_1"] = "7"
    with sheet.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(SystemExit, match="integer 1-5"):
        dixit_human_eval.main(["score", "--sheet", str(sheet)])
    with pytest.raises(SystemExit, match="does not exist"):
        dixit_human_eval.main(["export", "--results", str(tmp_path / "none.jsonl")])
    assert json.loads(results.read_text().splitlines()[0])["record"]["game"] in ("dixit", "dixit_v0")


def test_a_sheet_rewrite_stopped_half_way_leaves_the_earlier_sheet(tmp_path, monkeypatch):
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("clue_id,clarity_1\n0:0,5\n")  # raters' work, replaced only with --overwrite

    def stopped(self, rows):
        raise KeyboardInterrupt

    monkeypatch.setattr(dixit_human_eval.csv.DictWriter, "writerows", stopped)
    with pytest.raises(KeyboardInterrupt):
        dixit_human_eval.write_sheet([{"clue_id": "1:0", "clarity_1": ""}], sheet)
    assert sheet.read_text() == "clue_id,clarity_1\n0:0,5\n"
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.csv"]  # no temporary file left
