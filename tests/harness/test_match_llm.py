"""Matches of LLM agents against local OpenAI-compatible servers: a run killed with SIGKILL
resumes to the summary of an uninterrupted run, Ctrl-C stops it cleanly, a dead endpoint is
an error, the progress bar reports the calls, and 8 concurrent games against the fault
server all finish without showing the API key."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import pytest
from processes import interrupted_run

from cluegym.agents import run_match
from cluegym.agents.llm.fake_server import FakeChatServer, decrypto_reply
from cluegym.agents.llm.fault_server import serve_faults
from cluegym.cli import main

#: Counters that measure time, not play: they differ between any two runs.
TIMINGS = ("wall_s", "games_per_s", "llm_latency_s")


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS and not k.startswith("last_")}
    return value


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_kill_9_then_resume_gives_the_uninterrupted_summary(tmp_path):
    # replies depend on the request only (no counter), so every run plays the same games
    with FakeChatServer(lambda request: decrypto_reply(request), delay_s=0.03) as server:
        spec = f"llm:backend=openai,base_url={server.base_url},model=fake"
        run = ["run", "decrypto", "--agent", f"*={spec}", "--games", "8", "--seed", "4", "--env", "max_turns=3",
               "--no-progress", "--no-show"]
        assert main(run + ["--results", str(tmp_path / "whole.jsonl"), "--summary", str(tmp_path / "whole.json")]) == 0

        results = tmp_path / "killed.jsonl"
        command = [sys.executable, "-m", "cluegym.cli", *run, "--results", str(results),
                   "--summary", str(tmp_path / "resumed.json")]
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if results.exists() and results.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        written = results.read_bytes().count(b"\n")
        assert 2 <= written < 8
        assert not (tmp_path / "resumed.json").exists()

        resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    whole = json.loads((tmp_path / "whole.json").read_text())
    after = json.loads((tmp_path / "resumed.json").read_text())
    assert after["agent_stats"]["bob"]["llm_calls"] > 0
    assert without_timings(after) == without_timings(whole)
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["index"] for r in rows) == list(range(8))


def test_dead_endpoint_is_an_error_not_a_result(tmp_path, capsys):
    out = tmp_path / "summary.json"
    spec = f"llm:backend=openai,base_url=http://127.0.0.1:{closed_port()}/v1,model=fake,max_retries=0,timeout=5"
    code = main(["run", "decrypto", "--agent", f"bob={spec}", "--games", "1", "--no-progress", "--no-show",
                 "--summary", str(out)])
    assert code == 1
    assert "cluegym: run failed: seat bob: all" in capsys.readouterr().err
    summary = json.loads(out.read_text())
    bob = summary["agent_stats"]["bob"]
    assert summary["ok"] is False and summary["games"] == 1 and bob["failed_calls"] == bob["llm_calls"] > 0


def test_progress_bar_reports_llm_calls_and_only_for_llm_runs(capsys):
    with FakeChatServer(delay_s=0.01) as server:
        spec = f"llm:backend=openai,base_url={server.base_url},model=fake"
        summary = run_match("decrypto", {"bob": spec}, games=2, seed=0, env_kwargs={"max_turns": 2}, progress=True)
    bar = capsys.readouterr().err.splitlines()[-1]
    calls = summary["agent_stats"]["bob"]["llm_calls"]
    assert f"calls={calls:.0f}" in bar and "retries=0" in bar and "failed=0" in bar and "last=0.0" in bar
    run_match("decrypto", {"*": "random"}, games=2, seed=0, progress=True)
    assert "calls=" not in capsys.readouterr().err


def test_ctrl_c_stops_the_run_keeps_finished_games_and_says_how_to_resume(tmp_path):
    with FakeChatServer(lambda request: decrypto_reply(request), delay_s=0.03) as server:
        results = tmp_path / "games.jsonl"
        command = [sys.executable, "-m", "cluegym.cli", "run", "decrypto", "--agent",
                   f"*=llm:backend=openai,base_url={server.base_url},model=fake", "--games", "40", "--concurrency", "2",
                   "--env", "max_turns=3", "--no-show", "--results", str(results)]
        returncode, err = interrupted_run(command, results, rows=1)
    assert returncode == 130, err[-2000:]
    assert "Traceback" not in err and f"the finished games are in {results}, rerun to resume" in err
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    # 40 games (the harness plays a game of this server in ~0.15 s): far more than finish
    # between the first saved game and the signal, even on a busy machine.
    assert 1 <= len(rows) < 40 and all("record" in r for r in rows)  # stopped games are not errored ones


#: What the fault server serves, cycled over the requests: reply texts that broke the reply
#: parser (NaN, Infinity, 1e400, nesting 3,000 deep, 5,000-digit integers and player numbers),
#: HTTP errors, a hang past the client timeout, dropped connections and unreadable bodies.
FAULT_CYCLE = ("ok", "nan", "ok", 400, "inf", "ok", 429, "1e400", "ok", 500, "deep", "ok", 503, "hugeint", "ok",
               "hang", "-inf", "ok", "drop", "body_nan", "ok", "drop_mid", "garbage", "ok", "body_deep", "empty")


@pytest.mark.parametrize("game, env_option", [("decrypto", "max_turns=3"), ("undercover", "max_rounds=1")])
def test_eight_concurrent_games_survive_a_faulty_server_and_keep_the_key_secret(tmp_path, game, env_option):
    key = "sk-fault-test-0123456789abcdef"
    results, out = tmp_path / "games.jsonl", tmp_path / "summary.json"
    with serve_faults(FAULT_CYCLE, hang_s=3.0, delay_s=0.01, max_requests=3000, max_lifetime_s=280) as server:
        spec = (f"llm:backend=openai,base_url={server.base_url},model=fake,api_key_env=CLUEGYM_FAULT_KEY,"
                "timeout=1,max_retries=2,decision_timeout=20")
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "cluegym.cli", "run", game, "--agent", f"*={spec}", "--games", "8",
             "--concurrency", "8", "--env", env_option, "--results", str(results), "--summary", str(out)],
            capture_output=True, text=True, timeout=300, env={**os.environ, "CLUEGYM_FAULT_KEY": key},
        )
        wall = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not server.stopped and server.auth_headers[0] == f"Bearer {key}"  # the key was sent ...
    for name, text in (("stdout", proc.stdout), ("stderr", proc.stderr), ("results", results.read_text()),
                       ("summary", out.read_text())):
        assert key not in text, f"the API key leaked into {name}"  # ... and is shown nowhere
    served = {record.fault for record in server.records}
    assert set(FAULT_CYCLE) <= served  # every fault was met
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["index"] for r in rows if "record" in r) == list(range(8))
    summary = json.loads(out.read_text())
    assert summary["ok"] and summary["games"] == 8 and summary["errored_games"]["count"] == 0
    stats = {k: sum(s.get(k, 0.0) for s in summary["agent_stats"].values())
             for k in ("llm_calls", "failed_calls", "http_retries", "parse_failures", "forfeits")}
    assert stats["http_retries"] > 0 and stats["parse_failures"] > 0 and stats["failed_calls"] > 0
    fallbacks = sum(c["fallbacks"] for c in summary["seat_counters"].values())
    print(f"{game}, 8 concurrent games against the fault server: {wall:.1f} s wall, {len(server.records)} requests, "
          f"counters {stats}, fallbacks {fallbacks}")
