"""The match harness under faults: agents that raise, games that break, stopped runs,
malformed results files and unwritable outputs. No game is lost, the match goes on, the
run says what happened, and a resumed summary equals an uninterrupted one."""

from __future__ import annotations

import gc
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cluegym
import cluegym.agents
from cluegym.agents.base import Forfeit
from cluegym.agents import make_agent, register_agent, registered_agents, run_match
from cluegym.agents.random_agent import RandomAgent
from cluegym.harness import agent_seed, build_agents, play_game
from cluegym.cli import main

#: game index -> where the scripted agent breaks that game: "reset" or "result" (observe_result).
BREAK_GAMES: dict[int, str] = {}
#: game index -> decision number at which the scripted agent raises KeyboardInterrupt.
INTERRUPT_GAMES: dict[int, int] = {}
#: indices of the games whose agents were reset (played or started) in this process.
STARTED: list[int] = []

ARGS = ["--games", "6", "--seed", "5", "--no-progress", "--no-show"]


class ScriptedFaultsAgent(RandomAgent):
    """A random player that raises on chosen decisions and breaks chosen games.

    Decisions 1, 1 + k, 1 + 2k, ... raise a RuntimeError (k = ``raise_every``) or
    :class:`Forfeit` (k = ``forfeit_every``); the module's BREAK_GAMES / INTERRUPT_GAMES say which games
    break (the agent finds its game index from its reset seed and ``match_seed``).
    """

    def __init__(self, game: str, seat: str, action_space: Any, *, seed: int | None = None,
                 match_seed: int = 5, raise_every: int = 0, forfeit_every: int = 0) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        self.match_seed, self.raise_every, self.forfeit_every = match_seed, raise_every, forfeit_every
        self.index = -1
        self.counts = {"decisions": 0.0, "raised": 0.0}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        by_seed = {agent_seed(self.match_seed, i, j): i for i in range(64) for j in range(6)}
        self.index = by_seed.get(seed, -1)
        if self.seat == "alice":
            STARTED.append(self.index)
        if BREAK_GAMES.get(self.index) == "reset":
            raise RuntimeError(f"reset broke in game {self.index}")

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        self.counts["decisions"] += 1
        n = int(self.counts["decisions"])
        if INTERRUPT_GAMES.get(self.index) == n:
            raise KeyboardInterrupt
        if self.raise_every and n % self.raise_every == 1:
            self.counts["raised"] += 1
            raise RuntimeError(f"scripted failure at decision {n}")
        if self.forfeit_every and n % self.forfeit_every == 1:
            self.counts["raised"] += 1
            raise Forfeit(f"cannot decide decision {n}")
        return super().act(observation, info)

    def observe_result(self, record: dict[str, Any]) -> None:
        if BREAK_GAMES.get(self.index) == "result":
            raise ValueError(f"observe_result broke in game {self.index}")

    def stats(self) -> dict[str, float]:
        return dict(self.counts)


@pytest.fixture(autouse=True)
def scripted_agent(monkeypatch):
    monkeypatch.setitem(cluegym.agents.AGENTS, "faulty", f"{__name__}:ScriptedFaultsAgent")
    for state in (BREAK_GAMES, INTERRUPT_GAMES, STARTED):
        state.clear()
    yield
    for state in (BREAK_GAMES, INTERRUPT_GAMES, STARTED):
        state.clear()


AGENTS = {"alice": "faulty:raise_every=3", "bob": "faulty:forfeit_every=4", "eve": "faulty"}


def cli_agents() -> list[str]:
    return [arg for seat, spec in AGENTS.items() for arg in ("--agent", f"{seat}={spec}")]


def comparable(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in ("wall_s", "games_per_s", "first_game")}


def test_agent_exceptions_forfeit_one_decision_with_the_reason():
    env = cluegym.make("decrypto")
    agents = build_agents("decrypto", env, AGENTS, make_agent=make_agent)
    record = play_game(env, agents, seed=3)
    forfeits = [step for step in record["steps"] if "forfeit" in step]
    reasons = {step["agent"]: step["forfeit"] for step in forfeits}
    assert reasons["alice"].startswith("agent error: RuntimeError: scripted failure at decision")
    assert reasons["bob"].startswith("cannot decide decision")
    assert all(step["action"] is None and "fallback" in step for step in forfeits)
    assert record["counters"]["forfeits"] == len(forfeits) >= 2
    assert "result" in record


def test_errored_games_end_only_themselves_and_are_reported(tmp_path, capsys):
    BREAK_GAMES.update({1: "reset", 4: "result"})
    results, out = tmp_path / "games.jsonl", tmp_path / "sub" / "summary.json"
    code = main(["run", "decrypto", *cli_agents(), *ARGS, "--concurrency", "3",
                 "--results", str(results), "--summary", str(out)])
    assert code == 1
    captured = capsys.readouterr()
    assert "cluegym: run failed: 2 of 6 games errored" in captured.err.splitlines()[-1]
    assert "game 1: RuntimeError: reset broke in game 1" in captured.out
    assert "agent_err" in captured.out and "forfeits" in captured.out
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["index"] for r in rows) == list(range(6))
    errored = {r["index"]: r["error"] for r in rows if "error" in r}
    assert errored == {1: "RuntimeError: reset broke in game 1", 4: "ValueError: observe_result broke in game 4"}
    assert all("record" not in r for r in rows if "error" in r)
    summary = json.loads(out.read_text())
    assert summary["ok"] is False and summary["games"] == 4
    assert summary["errored_games"] == {"count": 2, "games": [{"index": i, "error": errored[i]} for i in (1, 4)]}
    # game 4 was played before it broke: its agents' counters are in the row and the sums
    assert next(r for r in rows if r["index"] == 4)["agent_stats"]["alice"]["decisions"] > 0
    assert summary["agent_stats"]["alice"]["decisions"] == sum(r["agent_stats"]["alice"]["decisions"] for r in rows)
    counters = summary["seat_counters"]
    assert counters["alice"]["agent_errors"] == counters["alice"]["forfeits"] > 0
    assert counters["bob"]["forfeits"] > 0 and counters["bob"]["agent_errors"] == 0
    assert counters["eve"]["forfeits"] == 0


def test_rerun_replays_only_the_errored_games_and_matches_an_uninterrupted_run(tmp_path):
    BREAK_GAMES.update({1: "reset", 4: "result"})
    results = tmp_path / "games.jsonl"
    first = run_match("decrypto", AGENTS, games=6, seed=5, concurrency=2, results_path=results, progress=False)
    assert first["errored_games"]["count"] == 2 and not first["ok"]
    BREAK_GAMES.clear()
    STARTED.clear()
    resumed = run_match("decrypto", AGENTS, games=6, seed=5, concurrency=2, results_path=results, progress=False)
    assert sorted(STARTED) == [1, 4]
    assert resumed["ok"] and resumed["errored_games"] == {"count": 0, "games": []}
    whole = run_match("decrypto", AGENTS, games=6, seed=5, concurrency=2, results_path=tmp_path / "whole.jsonl",
                      progress=False)
    assert comparable(resumed) == comparable(whole)
    assert resumed["agent_stats"]["alice"]["raised"] > 0


def test_a_stopped_run_cancels_in_flight_games_and_resumes_to_the_same_summary(tmp_path, caplog):
    results = tmp_path / "games.jsonl"
    INTERRUPT_GAMES[3] = 2
    with caplog.at_level(logging.ERROR, logger="asyncio"), pytest.raises(KeyboardInterrupt):
        run_match("decrypto", AGENTS, games=6, seed=5, results_path=results, progress=False)
    gc.collect()
    # No task is left holding the stop: asyncio would log it whenever it is collected (once in
    # the middle of another test's ast.parse, which CPython 3.11 then failed).
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
    kept = [json.loads(line)["index"] for line in results.read_text().splitlines()]
    assert kept == [0, 1, 2]  # finished games are kept; the stopped one is not recorded as errored
    INTERRUPT_GAMES.clear()
    STARTED.clear()
    resumed = run_match("decrypto", AGENTS, games=6, seed=5, results_path=results, progress=False)
    assert sorted(STARTED) == [3, 4, 5]
    whole = run_match("decrypto", AGENTS, games=6, seed=5, progress=False)
    assert comparable(resumed) == comparable(whole)


def test_old_rows_without_agent_stats_count_as_zeros(tmp_path):
    results = tmp_path / "games.jsonl"
    run_match("decrypto", AGENTS, games=2, seed=5, results_path=results, progress=False)
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    results.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "agent_stats"}) + "\n" for r in rows))
    summary = run_match("decrypto", AGENTS, games=3, seed=5, results_path=results, progress=False)
    assert summary["games"] == 3 and summary["ok"]
    new_row = json.loads(results.read_text().splitlines()[-1])
    assert new_row["index"] == 2
    assert summary["agent_stats"]["alice"] == new_row["agent_stats"]["alice"]


@pytest.mark.parametrize(
    "line, message",
    [
        ("123", "not a game row (a JSON int"),
        ("[]", "not a game row (a JSON list"),
        ("null", "not a game row (a JSON NoneType"),
        ('{"match": MATCH, "index": 1}', "needs a record or an error"),
        ('{"match": MATCH, "index": -1, "error": "x"}', "index must be an integer >= 0"),
        ('{"match": MATCH, "index": "1", "error": "x"}', "index must be an integer >= 0"),
        ('{"match": MATCH, "index": 1, "record": 5}', "record must be a game record"),
        ('{"match": MATCH, "index": 1, "error": "x", "agent_stats": {"alice": {"n": "1"}}}', "agent_stats must map"),
        ('{"match": {"game": "taboo"}, "index": 1, "error": "x"}', "different match (line 2"),
        # Valid JSON rows whose returns miss a seat or are no numbers: a KeyError traceback from
        # the summary (or a tournament's sides) after every missing game had been played.
        ('{"match": MATCH, "index": 1, "record": {"result": {}, "returns": {}}}',
         "the record's returns must give each seat of the match (alice, bob, eve) a number, got {}"),
        ('{"match": MATCH, "index": 1, "record": {"result": {}, "returns": {"alice": 1, "bob": 1, "eve": "x"}}}',
         "a number, got {\"alice\": 1, \"bob\": 1, \"eve\": \"x\"}"),
        # steps the summary's counters and the transcript read: an AttributeError or a KeyError
        # after the missing games had been played
        ('{"match": MATCH, "index": 1, "record": {"result": {}, "returns": {"alice": 1, "bob": 1, "eve": 1}, '
         '"steps": [1]}}', "the record's steps must be a list of step objects, got [1]"),
        ('{"match": MATCH, "index": 1, "record": {"result": {}, "returns": {"alice": 1, "bob": 1, "eve": 1}}}',
         "the record's steps must be a list of step objects, got null"),
        ('{"match": MATCH, "index": 1, "error": "x", "agent_stats": {"zed": {"n": 1}}}',
         "agent_stats names seat(s) 'zed' that the match (alice, bob, eve) lacks"),
    ],
)
def test_malformed_rows_name_the_file_and_line(tmp_path, capsys, line, message):
    results = tmp_path / "games.jsonl"
    main(["run", "decrypto", "--agent", "*=random", "--games", "1", "--seed", "5", "--no-progress", "--no-show",
          "--results", str(results)])
    match = json.dumps(json.loads(results.read_text())["match"])
    results.write_text(results.read_text() + line.replace("MATCH", match) + "\n")
    with pytest.raises(SystemExit) as exc:
        main(["run", "decrypto", "--agent", "*=random", "--games", "2", "--seed", "5", "--no-progress",
              "--results", str(results)])
    assert exc.value.code == 2
    assert message in str(exc.value) and "\n" not in str(exc.value)
    if "different match" not in message:
        assert f"{results}, line 2:" in str(exc.value)
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == str(exc.value) and "Traceback" not in err


def test_a_result_the_games_metrics_cannot_read_is_refused_before_any_game_is_played(tmp_path, capsys):
    """A row edited by hand or written by another tool (``result: {}``) failed only when the
    summary was computed, after the missing games were played, with the game's KeyError."""
    results = tmp_path / "games.jsonl"
    command = ["run", "taboo", "--agent", "*=random", "--seed", "5", "--no-progress", "--results", str(results)]
    main(command + ["--games", "2", "--no-show"])
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    rows[1]["record"]["result"] = {}
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    before = results.read_text()
    with pytest.raises(SystemExit) as exc:
        main(command + ["--games", "4"])
    assert exc.value.code == 2
    assert str(exc.value) == (f"cluegym: error: {results}: the result of game 1 is not one the game's metrics can "
                              "read (ValueError: a result lacks 'winner': taboo's metrics read finished taboo "
                              "games' results (record['result'])); remove that line to replay the game")
    assert results.read_text() == before and "Traceback" not in capsys.readouterr().err


def unwritable_paths(tmp_path: Path) -> list[tuple[str, str, str]]:
    a_file = tmp_path / "a_file.txt"
    a_file.write_text("x")
    (tmp_path / "a_dir").mkdir()
    return [
        ("--summary", str(tmp_path / "a_dir"), "is a directory"),
        ("--summary", str(a_file / "summary.json"), "not writable"),
        ("--results", str(tmp_path / "a_dir"), "is a directory"),
        ("--results", str(a_file / "deeper" / "games.jsonl"), "not writable"),
    ]


def test_unwritable_outputs_fail_before_any_game(tmp_path, capsys):
    for option, path, message in unwritable_paths(tmp_path):
        with pytest.raises(SystemExit) as exc:
            main(["run", "decrypto", *cli_agents(), *ARGS, option, path])
        assert exc.value.code == 2 and option in str(exc.value) and message in str(exc.value), str(exc.value)
        assert STARTED == [], f"{option} {path}: a game was played before the check"
    assert "Traceback" not in capsys.readouterr().err


def test_setup_errors_exit_2_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "decrypto", "--env", "max_turns=99", "--no-progress"])
    assert exc.value.code == 2 and str(exc.value).startswith("cluegym: error:") and "max_turns" in str(exc.value)
    assert capsys.readouterr().err.strip() == str(exc.value)


@pytest.mark.parametrize("seed, error, message", [
    (-3, ValueError, "seed must be a non-negative integer, got -3"),
    (1.5, TypeError, "seed must be a non-negative integer, got 1.5"),
    (True, TypeError, "got True"),
    (None, TypeError, "got None"),
])
def test_a_match_seed_that_is_no_seed_fails_before_any_game(tmp_path, seed, error, message):
    """A negative match seed played no game: each errored at its first draw (numpy's "expected
    non-negative integer"), and the run reported N errored games instead of the mistake."""
    results = tmp_path / "rows.jsonl"
    with pytest.raises(error, match=message):
        run_match("decrypto", AGENTS, games=2, seed=seed, results_path=results, progress=False)
    assert STARTED == [] and not results.exists()


def test_cli_refuses_a_negative_seed_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "decrypto", *cli_agents(), "--games", "2", "--seed", "-3", "--no-progress"])
    assert exc.value.code == 2 and str(exc.value) == "cluegym: error: seed must be a non-negative integer, got -3"
    assert STARTED == []


def test_a_summary_gets_the_permissions_a_plain_open_would_give_it(tmp_path):
    """Files written atomically (summaries, tournament reports, benchmarks) kept the owner-only
    mode of their temporary file: unreadable to the rest of a shared machine."""
    import os

    umask = os.umask(0o022)
    os.umask(umask)
    run_match("taboo", {"*": "random"}, games=1, seed=0, summary_path=tmp_path / "summary.json", progress=False)
    assert (tmp_path / "summary.json").stat().st_mode & 0o777 == 0o666 & ~umask


# -- the EnvChecker hook: an agent refuses an env configuration before any game ------------------

class NeedsLongGames(RandomAgent):
    """A random player that refuses Decrypto games shorter than four turns."""

    def check_env(self, env: Any) -> None:
        if env.unwrapped.game_config.max_turns < 4:
            raise ValueError("needs max_turns >= 4")


def test_an_agent_can_refuse_the_env_before_any_game(monkeypatch, tmp_path):
    registered_agents()
    monkeypatch.setattr(cluegym.agents, "AGENTS", dict(cluegym.agents.AGENTS))
    register_agent("picky", NeedsLongGames)
    results = tmp_path / "results.jsonl"
    with pytest.raises(ValueError, match=r"^eve: needs max_turns >= 4$"):
        run_match("decrypto", {"eve": "picky"}, games=2, seed=0, env_kwargs={"max_turns": 3}, results_path=results,
                  progress=False)
    assert not results.exists()
    env = cluegym.make("decrypto", max_turns=3)
    with pytest.raises(ValueError, match=r"^bob: needs"):
        build_agents("decrypto", env, {"alice": "random", "bob": "picky"}, make_agent=make_agent)
    assert run_match("decrypto", {"eve": "picky"}, games=2, seed=0, env_kwargs={"max_turns": 4}, progress=False)["ok"]


def test_a_learning_view_that_draws_a_refusing_opponent_keeps_its_game(monkeypatch):
    registered_agents()
    monkeypatch.setattr(cluegym.agents, "AGENTS", dict(cluegym.agents.AGENTS))
    register_agent("picky", NeedsLongGames)
    from cluegym.wrappers.selfplay import SelfPlayEnv
    env = SelfPlayEnv("decrypto", "bob", opponents={"alice": "random", "eve": "random"}, env_kwargs={"max_turns": 3})
    env.reset(seed=0)
    state, players = env.aec.unwrapped.state, dict(env._players)
    with pytest.raises(ValueError, match=r"^eve: needs max_turns >= 4$"):
        env.reset(seed=1, options={"opponents": {"eve": "picky"}})
    assert env.aec.unwrapped.state is state and env._players == players  # the last game, as it was
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # and it goes on
