"""The Decrypto paper drivers: Figure 3 (cross-play matrices), Figure 4 (prompt variants) and
Table 1 (replayed hints)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from cluegym.agents import run_match
from cluegym.agents.llm.adapters.decrypto_variants import MODES, system_prompt_variant
from cluegym.agents.llm.fake_server import FakeChatServer
from cluegym.benchmarks import decrypto_figure3, decrypto_figure4, decrypto_table1
from cluegym.benchmarks.decrypto_figure4 import PromptCombo
from cluegym.envs.decrypto.rules import DecryptoConfig


def test_role_specs_and_cell_formulas():
    assert decrypto_figure3.role_specs("glove", 16) == {"alice": "glove:k=16", "bob": "glove", "eve": "glove"}
    assert decrypto_figure3.role_specs("glove:assign=hungarian", 8)["alice"] == "glove:assign=hungarian,k=8"
    assert decrypto_figure3.role_specs("llm-cot:model=x", 16)["alice"] == "llm-cot:model=x"
    # hand-computed: seeds ending 1/4 and 3/4 of games in miscommunication, 4 and 6 turns
    runs = [{"miscommunication_end_rate": 0.25, "interception_end_rate": 0.5, "avg_turns": 4.0},
            {"miscommunication_end_rate": 0.75, "interception_end_rate": 0.0, "avg_turns": 6.0}]
    coop = decrypto_figure3.cell_stats(runs, "cooperative")
    assert coop["event"] == pytest.approx((0.5, 0.25)) and coop["len"] == pytest.approx((5.0, 1.0))
    assert decrypto_figure3.cell_stats(runs, "competitive")["event"] == pytest.approx((0.25, 0.25))


def test_figure3_runs_small_and_writes_png(tmp_path, capsys):
    out = tmp_path / "f3.png"
    code = decrypto_figure3.main(["--agent", "glove", "--agent", "rnd=random", "--games", "2", "--seeds", "1",
                                  "--out", str(out), "--json", str(tmp_path / "f3.json"), "--no-progress"])
    assert code == 0 and out.stat().st_size > 10_000
    text = capsys.readouterr().out
    assert "cooperative" in text and "competitive" in text and "rnd" in text
    table = json.loads((tmp_path / "f3.json").read_text())
    assert set(table["cooperative"]) == {"glove", "rnd"} and len(table["competitive"]["glove"]["rnd"]) == 1


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("t1") / "games.jsonl"
    summary = run_match("decrypto", {"alice": "glove:k=16", "bob": "glove", "eve": "random"}, games=3, seed=0,
                        env_kwargs={"miscommunication_limit": 99, "interception_limit": 99},
                        results_path=str(path), progress=False)
    assert summary["ok"]
    return path


def test_table1_recorded_row_rescores_the_recorded_guesses(recorded):
    games = decrypto_table1.read_games(recorded)
    assert len(games) == 3 and all(len(g["result"]["history"]) == 8 for g in games)
    env = decrypto_table1.make_env(games)
    # rescoring by hand: the game ends at the turn of the 2nd interception, else survives 8
    turns, events = 0, 0
    for g in games:
        hits = [t["interception"] for t in g["result"]["history"]]
        ends = [i + 1 for i in range(8) if sum(hits[: i + 1]) >= 2 and not any(
            (t["miscommunication"]) for t in g["result"]["history"][: i + 1])]
        n = ends[0] if ends else 8
        turns += n
        events += sum(hits[:n])
    row = decrypto_table1.recorded_score(games, "eve", env)
    assert row["avg_length"] == pytest.approx(turns / 3) and row["events"] == events
    assert row["event_rate"] == pytest.approx(events / turns)


def test_table1_new_decoder_sees_only_the_past(recorded, capsys):
    games = decrypto_table1.read_games(recorded)
    env = decrypto_table1.make_env(games)
    seen = []

    class Spy:
        def reset(self, seed=None):
            pass

        def act(self, observation, info):
            seen.append(observation)
            return int(observation["action_mask"].argmax())

    decrypto_table1.replay_game(games[0], "bob", Spy(), env)
    history = games[0]["result"]["history"]
    for i, obs in enumerate(seen):
        assert int(obs["turn"]) == i and tuple(obs["hints"]) == tuple(history[i]["hints"])
        assert obs["code_history"][:i].tolist() == [t["code"] for t in history[:i]]
        assert tuple(obs["keywords"]) == tuple(games[0]["result"]["keywords"])
    assert decrypto_table1.main(["--results", str(recorded), "--role", "decoder", "--agent", "glove",
                                 "--seeds", "1", "--no-progress"]) == 0
    assert "(recorded seat)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        decrypto_table1.main(["--results", str(recorded.parent / "missing.jsonl")])


def test_figure4_combinations_and_classes():
    combos = decrypto_figure4.all_combos()
    classes = [c.match_class for c in combos]
    assert len(set(combos)) == 625
    assert [classes.count(n) for n in decrypto_figure4.MATCH_CLASSES] == [25, 100, 100, 400]
    assert PromptCombo(2, 2, 0, 0).match_class == "both match" and PromptCombo(0, 3, 1, 1).match_class == "user only"
    picked = decrypto_figure4.sample_combos(3, seed=7)
    assert [c.match_class for c in picked] == [n for n in decrypto_figure4.MATCH_CLASSES for _ in range(3)]
    assert picked == decrypto_figure4.sample_combos(3, seed=7) != decrypto_figure4.sample_combos(3, seed=8)
    assert sum(c.match_class == "both match" for c in decrypto_figure4.sample_combos(60)) == 25  # all of a small class
    assert len(decrypto_figure4.sample_combos(None)) == 625
    with pytest.raises(ValueError, match="per_class"):
        decrypto_figure4.sample_combos(0)
    specs = decrypto_figure4.seat_specs("llm-cot:backend=local", PromptCombo(1, 2, 3, 4), "same")
    assert specs == {"alice": "llm-cot:backend=local,system_mode=1,user_mode=3",
                     "bob": "llm-cot:backend=local,system_mode=2,user_mode=4", "eve": "llm-cot:backend=local"}
    assert decrypto_figure4.seat_specs("s", PromptCombo(0, 0, 0, 0), "glove")["eve"] == "glove"


def test_figure4_statistics_by_hand():
    def row(combo, turns, fallbacks=0):
        return {"model": "m", "combo": dataclasses.asdict(combo), "class": combo.match_class, "turns": turns,
                "fallbacks": fallbacks}

    rows = [row(PromptCombo(0, 0, 0, 0), 8), row(PromptCombo(0, 0, 0, 0), 6, 2), row(PromptCombo(1, 1, 0, 0), 2),
            row(PromptCombo(0, 1, 2, 3), 3), row(PromptCombo(0, 4, 2, 3), 5)]
    stats = decrypto_figure4.class_stats(rows)["m"]
    assert set(stats) == {"both match", "neither"}  # classes without games are left out
    both = stats["both match"]
    # turns 8, 6, 2: mean 16/3, sample sd sqrt(28/3), s.e. sqrt(28/9); median 6
    assert both["combos"] == 2 and both["games"] == 3 and both["median"] == 6.0
    assert both["mean"] == pytest.approx(16 / 3) and both["sem"] == pytest.approx((28 / 9) ** 0.5)
    assert both["histogram"] == [0, 1, 0, 0, 0, 1, 0, 1] and both["fallbacks"] == pytest.approx(2 / 3)
    assert stats["neither"]["mean"] == 4.0 and stats["neither"]["histogram"][2:5] == [1, 0, 1]
    effects = decrypto_figure4.mode_effects(rows)["m"]
    assert effects["Alice system"] == [pytest.approx(22 / 4), 2.0, None, None, None]
    assert effects["Bob system"] == [7.0, 2.5, None, None, 5.0]
    text = decrypto_figure4.format_table(rows)
    assert "both match" in text and " 5.33 +- 1.76" in text and "Bob user" in text


def _user_mode(text: str) -> int:
    """Which user-prompt mode a user message is, by a mark only that mode has."""
    marks = ("Interceptions so far.", " of 8. Miscommunications: ", "## Game so far", "Your team holds", "STATUS: turn")
    found = [i for i, mark in enumerate(marks) if mark in text]
    assert len(found) == 1, text
    return found[0]


def test_figure4_plays_the_modes_against_an_openai_endpoint(tmp_path, capsys):
    out, rows_path = tmp_path / "f4.png", tmp_path / "f4.json"
    systems = {(seat, m): system_prompt_variant(DecryptoConfig(), seat, m) for seat in ("alice", "bob", "eve")
               for m in range(MODES if seat != "eve" else 1)}
    with FakeChatServer() as server:
        code = decrypto_figure4.main(["--base-url", server.base_url, "--model", "tiny=fake", "--per-class", "1",
                                      "--games", "1", "--seed", "3", "--out", str(out), "--json", str(rows_path),
                                      "--no-progress"])
        requests = list(server.requests)
    assert code == 0 and out.stat().st_size > 10_000
    text = capsys.readouterr().out
    assert "tiny: turns per game by prompt-match class" in text and "neither" in text and "plot written" in text
    rows = json.loads(rows_path.read_text())
    combos = decrypto_figure4.sample_combos(1, seed=3)
    assert [PromptCombo(**r["combo"]) for r in rows] == combos and all(1 <= r["turns"] <= 8 for r in rows)
    assert all(r["model"] == "tiny" and r["class"] == PromptCombo(**r["combo"]).match_class for r in rows)
    # every request carried the system and user modes its seat was given, and all of them were used
    by_text = {text: seat_mode for seat_mode, text in systems.items()}
    sent = [(by_text[r["messages"][0]["content"]], _user_mode(r["messages"][1]["content"])) for r in requests]
    assert {seat_mode for seat_mode, _ in sent} == ({("alice", c.encoder_system) for c in combos}
                                                    | {("bob", c.decoder_system) for c in combos} | {("eve", 0)})
    assert {(seat, user) for (seat, _), user in sent} == ({("alice", c.encoder_user) for c in combos}
                                                          | {("bob", c.decoder_user) for c in combos} | {("eve", 0)})


def test_figure4_rejects_bad_arguments():
    with pytest.raises(SystemExit):
        decrypto_figure4.main(["--model", "m", "--no-progress"])  # openai without --base-url
    with pytest.raises(SystemExit):
        decrypto_figure4.main(["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--per-class", "0"])
    with pytest.raises(SystemExit):
        decrypto_figure4.main(["--base-url", "http://127.0.0.1:9/v1", "--model", "=m"])
