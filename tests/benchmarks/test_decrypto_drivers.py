"""The Decrypto paper drivers: Figure 3 (cross-play matrices) and Table 1 (replayed hints)."""

from __future__ import annotations

import json

import pytest

from cluegym.agents import run_match
from cluegym.benchmarks import decrypto_figure3, decrypto_table1


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
