"""The benchmark commands refuse bad arguments with argparse's one-line usage error (exit 2)
before any work: no game played, no server or Ray started, no file written."""

from __future__ import annotations

import json
import sys
import types
from typing import Any, Callable

import pytest

from cluegym.benchmarks import learner_throughput, llm_concurrency, pgo, profile_env, rllib_sampling, throughput
from usage_errors import no_work as _no_work, refused as _refused


@pytest.mark.parametrize(("argv", "message"), [
    (["--seconds", "inf"], "argument --seconds: must be a finite number > 0, got 'inf'"),
    (["--seconds", "nan"], "argument --seconds: must be a finite number > 0, got 'nan'"),
    (["--seconds", "0"], "argument --seconds: must be a finite number > 0"),
    (["--rounds", "0"], "argument --rounds: must be an integer >= 1"),
    (["--games", ","], "--games names no game"),
    (["--games", "taboo,taboo"], "--games names taboo more than once"),
])
def test_throughput_refuses_bad_arguments(monkeypatch, capsys, argv, message):
    monkeypatch.setattr(throughput, "run", _no_work)
    _refused(throughput.main, argv + ["--no-progress"], message, capsys)


def test_throughput_refuses_a_json_path_it_cannot_write_before_the_run(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(throughput, "run", _no_work)
    _refused(throughput.main, ["--games", "taboo", "--json", str(tmp_path)], f"--json {tmp_path} is a directory",
             capsys)


def test_throughput_writes_json_into_a_new_folder(tmp_path, capsys):
    out = tmp_path / "new" / "rows.json"
    assert throughput.main(["--games", "taboo", "--seconds", "0.05", "--rounds", "1", "--no-progress",
                            "--json", str(out)]) == 0
    assert [row["env"] for row in json.loads(out.read_text())["rows"]] == ["taboo", "taboo"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--seconds", "inf"], "argument --seconds: must be a finite number > 0, got 'inf'"),
    (["--seconds", "nan"], "argument --seconds: must be a finite number > 0, got 'nan'"),
    (["--games", "taboo,taboo"], "--games names taboo more than once"),
])
def test_learner_throughput_refuses_bad_arguments(monkeypatch, capsys, argv, message):
    monkeypatch.setattr(learner_throughput, "_measure_rows", _no_work)
    _refused(learner_throughput.main, argv + ["--no-progress"], message, capsys)


@pytest.mark.parametrize(("argv", "message"), [
    (["--seconds", "inf"], "--seconds and --view-seconds must be positive finite numbers"),
    (["--view-seconds", "nan"], "--seconds and --view-seconds must be positive finite numbers"),
    (["--games"], "--games names no game"),
    (["--games", "nosuch"], "unknown game(s) nosuch"),
    (["--games", "taboo", "taboo"], "--games names taboo more than once"),
])
def test_pgo_refuses_bad_arguments(monkeypatch, capsys, argv, message):
    monkeypatch.setattr(pgo, "train", _no_work)
    _refused(pgo.main, argv, message, capsys)


@pytest.mark.parametrize(("argv", "message"), [
    (["taboo", "--games", "-5"], "argument --games: must be an integer >= 1, got '-5'"),
    (["taboo", "--games", "0"], "argument --games: must be an integer >= 1, got '0'"),
    (["taboo", "--top", "0"], "argument --top: must be an integer >= 1, got '0'"),
])
def test_profile_env_refuses_bad_arguments(monkeypatch, capsys, argv, message):
    monkeypatch.setattr(profile_env, "profile", _no_work)
    _refused(profile_env.main, argv, message, capsys)


@pytest.mark.parametrize(("argv", "message"), [
    (["--levels", "0"], "argument --levels: must be an integer >= 1, got '0'"),
    (["--levels", "1", "-3"], "argument --levels: must be an integer >= 1, got '-3'"),
    (["--levels", "2"], "--levels must include 1: efficiency is relative to level 1 (got 2)"),
    (["--levels", "1", "8", "8"], "--levels names 8 more than once"),
    (["--games", "-1"], "argument --games: must be an integer >= 1, got '-1'"),
    (["--games", "0"], "argument --games: must be an integer >= 1, got '0'"),
    (["--max-turns", "0"], "argument --max-turns: must be an integer >= 1, got '0'"),
    (["--max-turns", "1000"], "--max-turns: max_turns must be in 1..24"),
    (["--waves", "0"], "argument --waves: must be an integer >= 1, got '0'"),
    (["--delay", "-1"], "argument --delay: must be a finite number >= 0, got '-1'"),
    (["--delay", "nan"], "argument --delay: must be a finite number >= 0, got 'nan'"),
    (["--delay", "60"], "--delay must be under the agents' 60 s request timeout, got 60.0"),
    (["--delay", "1e9"], "--delay must be under the agents' 60 s request timeout"),
])
def test_llm_concurrency_refuses_bad_arguments_before_the_server_starts(monkeypatch, capsys, argv, message):
    monkeypatch.setattr(llm_concurrency, "start_server", _no_work)
    _refused(llm_concurrency.main, argv, message, capsys)


def test_llm_concurrency_refuses_a_json_path_it_cannot_write_before_the_server_starts(monkeypatch, tmp_path,
                                                                                      capsys):
    monkeypatch.setattr(llm_concurrency, "start_server", _no_work)
    _refused(llm_concurrency.main, ["--json", str(tmp_path)], f"--json {tmp_path} is a directory", capsys)


def test_llm_concurrency_games_per_level_and_efficiency_relative_to_level_one(monkeypatch):
    """Valid levels keep their figures: --games per level, efficiency over level 1."""
    games = []
    monkeypatch.setattr(llm_concurrency, "start_server", lambda delay_s: (types.SimpleNamespace(
        terminate=lambda: None, wait=lambda timeout: None), "http://x"))

    def measure(base_url, concurrency, n, max_turns, seed=0, http_client="auto"):
        games.append(n)
        return {"concurrency": concurrency, "games_per_s": float(concurrency), "requests_per_s": 3.0 * concurrency}

    monkeypatch.setattr(llm_concurrency, "measure", measure)
    rows = llm_concurrency.run(levels=[1, 4], games_per_level=2)
    assert games[1:] == [2, 2] and [r["efficiency"] for r in rows] == [1.0, 1.0]


@pytest.mark.parametrize("levels", [[2, 4], [1, 4, 4]])
def test_llm_concurrency_run_needs_level_one_once(monkeypatch, levels):
    monkeypatch.setattr(llm_concurrency, "start_server", _no_work)
    with pytest.raises(ValueError, match="levels must"):
        llm_concurrency.run(levels=levels)


@pytest.mark.parametrize(("argv", "message"), [
    (["--rounds", "0"], "argument --rounds: must be an integer >= 1, got '0'"),
    (["--steps", "-5"], "argument --steps: must be an integer >= 1, got '-5'"),
    (["--runners", "1,1"], "--runners names 1 more than once"),
    (["--game", "nosuch"], "unknown game 'nosuch'"),
    (["--learners", "nosuch"], "decrypto has no seat(s) ['nosuch']"),
    (["--game", "taboo", "--learners", "all"], "'attacker' has none"),
])
def test_rllib_sampling_refuses_bad_arguments_before_ray_starts(monkeypatch, capsys, argv, message):
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(init=_no_work, shutdown=_no_work))
    monkeypatch.setattr(rllib_sampling, "measure_sampling", _no_work)
    _refused(rllib_sampling.main, argv, message, capsys)


def test_llm_concurrency_run_refuses_a_delay_past_the_request_timeout(monkeypatch):
    monkeypatch.setattr(llm_concurrency, "start_server", _no_work)
    with pytest.raises(ValueError, match="delay_s must be from 0 to under the agents' 60 s request timeout"):
        llm_concurrency.run(delay_s=llm_concurrency.REQUEST_TIMEOUT_S)
