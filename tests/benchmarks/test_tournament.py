"""Tournaments (schedule, outcomes, ratings, reports, resume after kill -9) and the leaderboard."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import cluegym.agents
from cluegym.agents import register_agent, registered_agents
from cluegym.agents.random_agent import RandomAgent
from cluegym.benchmarks.leaderboard import build_leaderboard, leaderboard_html, leaderboard_markdown
from cluegym.benchmarks.ratings import GameOutcome, head_to_head, rate_outcomes
from cluegym.benchmarks.tournament import plan_matches, run_tournament, tournament_sides
from cluegym.cli import main


class Blurter(RandomAgent):
    """Says the target word as Taboo's attacker (a rule break: it always loses that role)."""

    def act(self, observation, info):
        if self.seat == "attacker":
            return {"utterance": f"it is {observation['target']}"}
        return super().act(observation, info)


@pytest.fixture
def with_blurter(monkeypatch):
    registered_agents()
    monkeypatch.setattr(cluegym.agents, "AGENTS", dict(cluegym.agents.AGENTS))
    register_agent("blurter", Blurter)


def test_schedule_puts_every_agent_on_every_side_against_every_other():
    matches = plan_matches("decrypto", ["a", "b", "c"], ["alice", "bob", "eve"], {})
    assert len(matches) == 6
    pairs = {(m.agents, m.sides[0].name) for m in matches}
    for x in "abc":
        for y in "abc":
            if x != y:
                assert ((x, y), "encoders") in pairs
    assert matches[0].seats == {"alice": "a", "bob": "a", "eve": "b"}
    (civilians, undercover), extra = tournament_sides("undercover", [f"player_{i}" for i in range(5)], {})
    assert undercover.seats == ("player_3", "player_4") and extra == {"undercover_seats": [3, 4]}
    (even, odd), _ = tournament_sides("dixit", [f"player_{i}" for i in range(4)], {})
    assert even.seats == ("player_0", "player_2") and odd.seats == ("player_1", "player_3")
    with pytest.raises(ValueError, match="undercover_seats"):
        tournament_sides("undercover", ["p0", "p1"], {"undercover_seats": [1]})


def test_ratings_rank_the_winner_first_with_uncertainty():
    outcomes = [GameOutcome(f"m{i % 2}", i, ("strong", "weak") if i % 2 else ("weak", "strong"), ("x", "y"),
                            (1.0, -1.0) if i % 2 else (-1.0, 1.0)) for i in range(20)]
    outcomes.append(GameOutcome("m0", 99, ("weak", "strong"), ("x", "y"), (0.0, 0.0)))
    table = rate_outcomes(outcomes, ["weak", "strong"])["agents"]
    assert [row["agent"] for row in table] == ["strong", "weak"]
    strong, weak = table
    assert strong["wins"] == 20 and strong["draws"] == 1 and weak["losses"] == 20
    assert strong["low"] < strong["mu"] < strong["high"] and strong["sigma"] < 25 / 3
    # a side that always wins: an agent that only ever plays it is not rated above the others
    favoured = [GameOutcome("m", i, pair, ("x", "y"), (1.0, -1.0))
                for i, pair in enumerate([("a", "b"), ("b", "a"), ("only-x", "a"), ("only-x", "b")] * 10)]
    plain = {r["agent"]: r["mu"] for r in rate_outcomes(favoured, ["a", "b", "only-x"], side_adjusted=False)["agents"]}
    adjusted = rate_outcomes(favoured, ["a", "b", "only-x"])
    fair = {r["agent"]: r["mu"] for r in adjusted["agents"]}
    assert plain["only-x"] - plain["a"] > 15  # unadjusted: far above the agents it plays like
    only_x = next(r for r in adjusted["agents"] if r["agent"] == "only-x")
    assert abs(fair["only-x"] - fair["a"]) < only_x["sigma"]  # adjusted: within its uncertainty
    assert [r["side"] for r in adjusted["sides"]] == ["x", "y"] and adjusted["sides"][0]["wins"] == 40
    h2h = head_to_head(outcomes, ["weak", "strong"])
    assert h2h["games"] == [[0, 21], [21, 0]]
    assert h2h["score"][1][0] == pytest.approx(20.5 / 21) and h2h["score"][0][1] == pytest.approx(0.5 / 21)


def test_tournament_writes_reports_and_a_weaker_agent_ranks_last(tmp_path, with_blurter):
    out = tmp_path / "taboo"
    report = run_tournament("taboo", {"rand": "random", "blurt": "blurter"}, games=6, seed=1, out_dir=out,
                            progress=False)
    assert report["ok"] and [r["agent"] for r in report["ratings"]] == ["rand", "blurt"]
    roles = {(r["agent"], r["side"]): r for r in report["per_role"]}
    assert roles[("blurt", "attacker")]["losses"] == 6 and roles[("rand", "defender")]["wins"] == 6
    for name in ("ratings.md", "ratings.json", "head_to_head.csv", "head_to_head.png", "games.jsonl", "tournament.json"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "head_to_head.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.reader((out / "head_to_head.csv").open()))
    assert rows[0] == ["agent \\ opponent", "rand", "blurt"] and rows[1][1] == ""
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(games) == 12 and {g["match"] for g in games} == {"000-rand-vs-blurt", "001-blurt-vs-rand"}
    saved = json.loads((out / "ratings.json").read_text())
    assert saved["head_to_head"]["score"][0][0] is None  # NaN is written as null
    assert "| 1 | rand |" in (out / "ratings.md").read_text()
    # the same tournament again plays nothing and reports the same; more games extend it
    again = run_tournament("taboo", {"rand": "random", "blurt": "blurter"}, games=6, seed=1, out_dir=out,
                           progress=False)
    assert again["ratings"] == report["ratings"]
    with pytest.raises(ValueError, match="other settings .*seed"):
        run_tournament("taboo", {"rand": "random", "blurt": "blurter"}, games=6, seed=2, out_dir=out, progress=False)


def test_undercover_sides_are_its_teams(tmp_path):
    report = run_tournament("undercover", {"r1": "random", "r2": "random"}, games=2, seed=0, out_dir=tmp_path,
                            progress=False)
    assert [s["name"] for s in report["sides"]] == ["civilians", "undercover"]
    for match in report["matches"]:
        assert match["env"]["undercover_seats"] == [3, 4]
    for line in (tmp_path / "matches" / "000-r1-vs-r2.jsonl").read_text().splitlines():
        roles = json.loads(line)["record"]["result"]["roles"]
        assert roles["player_3"] == roles["player_4"] == "undercover"


SLOW_TOURNAMENT = textwrap.dedent("""
    import sys, time
    from cluegym.agents import register_agent
    from cluegym.agents.random_agent import RandomAgent
    from cluegym.benchmarks.tournament import run_tournament

    class Slow(RandomAgent):
        def act(self, observation, info):
            time.sleep(float(sys.argv[2]))
            return super().act(observation, info)

    register_agent("slow", Slow)
    run_tournament("taboo", {"a": "slow", "b": "random", "c": "slow"}, games=5, seed=4, out_dir=sys.argv[1],
                   progress=False)
""")


def test_kill_9_then_rerun_loses_nothing(tmp_path):
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_TOURNAMENT, str(killed), "0.02"])
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            done = sum(len(p.read_text().splitlines()) for p in (killed / "matches").glob("*.jsonl")) \
                if (killed / "matches").is_dir() else 0
            if done >= 8:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert not (killed / "ratings.json").exists(), "the run finished before it was killed"
    subprocess.run([sys.executable, "-c", SLOW_TOURNAMENT, str(killed), "0"], check=True)
    subprocess.run([sys.executable, "-c", SLOW_TOURNAMENT, str(whole), "0"], check=True)
    resumed, uninterrupted = (json.loads((d / "ratings.json").read_text()) for d in (killed, whole))
    assert resumed["ratings"] == uninterrupted["ratings"]
    assert (killed / "games.jsonl").read_text() == (whole / "games.jsonl").read_text()
    assert sum(r["games"] for r in resumed["matches"]) == 30


def test_leaderboard_merges_games(tmp_path, with_blurter):
    run_tournament("taboo", {"rand": "random", "blurt": "blurter"}, games=3, seed=0, out_dir=tmp_path / "t",
                   progress=False)
    run_tournament("undercover", {"rand": "random", "other": "random"}, games=1, seed=0, out_dir=tmp_path / "u",
                   progress=False)
    board = build_leaderboard([tmp_path / "t", tmp_path / "u"])
    assert [g["name"] for g in board["games"]] == ["taboo", "undercover"]
    rows = {row["agent"]: row for row in board["rows"]}
    assert rows["rand"]["games_played"] == 2 and rows["blurt"]["games_played"] == 1
    assert rows["rand"]["per_game"]["taboo"]["rank"] == 1 and rows["blurt"]["rank_score"] == 0.0
    scores = [row["rank_score"] for row in board["rows"]]
    assert scores == sorted(scores, reverse=True) and [row["rank"] for row in board["rows"]] == [1, 2, 3]
    text = leaderboard_markdown(board)
    assert f"| {rows['rand']['rank']} | rand |" in text and "#1/2" in text
    page = leaderboard_html(board)
    assert page.startswith("<!DOCTYPE html>") and "data:image/png;base64," in page and "http" not in page
    with pytest.raises(ValueError, match="not a tournament folder"):
        build_leaderboard([tmp_path])


def test_cli_tournament_and_leaderboard(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "taboo", "--agent", "x=random", "--agent", "y=random", "--games", "2",
                 "--out", str(out), "--no-progress"]) == 0
    assert "## Ratings" in capsys.readouterr().out
    assert main(["leaderboard", str(out), "--out", str(tmp_path / "lb")]) == 0
    assert (tmp_path / "lb" / "leaderboard.html").is_file()
    for argv, message in (
        (["tournament", "taboo", "--agent", "x=random", "--out", str(tmp_path / "v")], "at least two agents"),
        (["tournament", "taboo", "--agent", "x=random", "--agent", "y=nosuch", "--out", str(tmp_path / "v")],
         "unknown agent 'nosuch'"),
        (["tournament", "nogame", "--agent", "x=random", "--agent", "y=random", "--out", str(tmp_path / "v")],
         "nogame"),
        (["leaderboard", str(tmp_path / "missing")], "not a tournament folder"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("cluegym: error:") and message in err and "\n" not in err


def test_a_negative_seed_fails_before_the_folder_is_made(tmp_path):
    """The tournament made its folder and wrote its settings with the seed, then every game
    errored."""
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        run_tournament("taboo", {"a": "random", "b": "random"}, games=2, seed=-1, out_dir=tmp_path / "t",
                       progress=False)
    assert not (tmp_path / "t").exists()
