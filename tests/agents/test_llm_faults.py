"""One LLM decision against every fault of the fault-injecting server (real HTTP, the real
openai client): each ends parsed or in a Forfeit with its reason, the counters say what
happened, hangs are bounded by the timeout and the decision deadline, cancelled requests are
disconnected, unreadable cached replies are not replayed, and the API key is sent but is in
no log, record, reason or counter."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from typing import Any

import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.base import Forfeit
from cluegym.agents.llm.agent import LLMAgent
from cluegym.agents.llm.fault_server import FaultServer, once, serve_faults

KEY = "sk-fault-test-SECRET-0123456789"
KEY_ENV = "CLUEGYM_FAULT_TEST_KEY"
KEYWORDS = ["apple", "river", "guitar", "castle", "doctor", "pencil"]
FIXED = {"keywords": ["apple", "river", "guitar", "castle"]}
FAST = {"timeout": 0.5, "max_retries": 2, "parse_retries": 1, "decision_timeout": 5}


@pytest.fixture(autouse=True)
def api_key(monkeypatch, caplog):
    monkeypatch.setenv(KEY_ENV, KEY)
    caplog.set_level(logging.DEBUG)
    yield
    assert KEY not in caplog.text  # in no log line either


def bob_to_move():
    env = cluegym.make("decrypto", keywords=KEYWORDS)
    env.reset(seed=3, options=FIXED)
    env.step(("fruit", "stream", "strings"))
    obs, _, _, _, info = env.last()
    assert env.agent_selection == "bob"
    return env, obs, info


def agent_for(server: FaultServer | str, env, **options: Any) -> LLMAgent:
    opts = {**FAST, **options}
    spec = (f"llm:backend=openai,model=fake,api_key_env={KEY_ENV},base_url={server},"
            + ",".join(f"{k}={v}" for k, v in opts.items()))
    agent = make_agent(spec, game="decrypto", seat="bob", action_space=env.action_space("bob"), seed=0)
    agent.backend.backoff_s, agent.backend.backoff_max_s = 0.01, 0.05  # fast backoff for tests
    return agent


def decide(agent: LLMAgent, obs, info) -> tuple[Any, float]:
    """(the action or the Forfeit, seconds taken)."""
    start = time.perf_counter()
    try:
        outcome = asyncio.run(agent.act_async(obs, info))
    except Forfeit as exc:
        outcome = exc
    return outcome, time.perf_counter() - start


def check_no_key(agent: LLMAgent, server: FaultServer, *texts: str) -> None:
    assert server.auth_headers and all(h == f"Bearer {KEY}" for h in server.auth_headers)  # the key is sent ...
    logged = json.dumps(agent.calls, allow_nan=False)  # ... strict JSON ...
    assert KEY not in logged + json.dumps(agent.stats()) + repr(agent) + "".join(texts)  # ... and shown nowhere


def counts(agent: LLMAgent, *keys: str) -> tuple[float, ...]:
    stats = agent.stats()
    return tuple(stats[k] for k in keys)


# ------------------------------------------------------------------------ reply faults
@pytest.mark.parametrize("fault", ["nan", "inf", "-inf", "1e400", "hugeint", "negative", "fraction", "wrongtype", "deep"])
def test_unreadable_reply_is_reasked_then_parsed(fault):
    env, obs, info = bob_to_move()
    with serve_faults(once(fault)) as server:
        agent = agent_for(server, env)
        action, _ = decide(agent, obs, info)
    assert isinstance(action, int) and obs["action_mask"][action]
    assert counts(agent, "llm_calls", "parse_failures", "reasks", "failed_calls", "forfeits") == (2, 1, 1, 0, 0)
    assert agent.calls[0]["parse_error"] and agent.calls[1]["parsed"] == action
    assert server.records[1].body["messages"][-1]["content"].startswith("GAME MASTER: I could not read your answer")
    check_no_key(agent, server)
    env.step(action)
    assert "error" not in env.last()[4]


def test_giant_reply_is_read_from_its_end_and_logged_cut():
    env, obs, info = bob_to_move()
    with serve_faults(["giant"], giant_chars=1_500_000) as server:
        agent = agent_for(server, env)
        action, took = decide(agent, obs, info)
    assert isinstance(action, int) and took < 5
    (call,) = agent.calls
    assert call["reply_chars"] > 1_500_000 and len(call["reply"]) == 100_000
    check_no_key(agent, server)


def test_replies_that_never_parse_forfeit_to_the_env_fallback():
    env, obs, info = bob_to_move()
    with serve_faults(["nan"]) as server:
        agent = agent_for(server, env)
        forfeit, _ = decide(agent, obs, info)
    assert isinstance(forfeit, Forfeit) and "no readable answer in 2 replies" in str(forfeit)
    assert counts(agent, "llm_calls", "parse_failures", "reasks", "forfeits") == (2, 2, 1, 1)
    env.unwrapped.forfeit(str(forfeit))  # what the harness does
    record = env.unwrapped.game_record()
    assert record["steps"][-1]["forfeit"] == str(forfeit) and record["counters"]["forfeits"] == 1
    check_no_key(agent, server, json.dumps(record, allow_nan=False))


# ------------------------------------------------------------------------- HTTP faults
@pytest.mark.parametrize("fault", [429, 500, 503, "drop", "drop_mid", "garbage", "empty", "body_nan", "body_deep", "hang"])
def test_transient_fault_is_retried_then_parsed(fault):
    env, obs, info = bob_to_move()
    with serve_faults(once(fault), hang_s=10) as server:
        agent = agent_for(server, env)
        action, took = decide(agent, obs, info)
        if fault == "hang":  # the client timed out and closed the connection
            assert server.wait_for(lambda s: s.records[0].client_disconnected, timeout=3)
    assert isinstance(action, int), action
    assert counts(agent, "llm_calls", "http_retries", "failed_calls", "parse_failures", "forfeits") == (1, 1, 0, 0, 0)
    assert len(server.records) == 2 and took < 4
    check_no_key(agent, server)


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_error_forfeits_at_once(status):
    env, obs, info = bob_to_move()
    with serve_faults([status]) as server:
        agent = agent_for(server, env)
        forfeit, _ = decide(agent, obs, info)
    assert isinstance(forfeit, Forfeit) and f"HTTP {status}" in str(forfeit) and "refused" in str(forfeit)
    assert len(server.records) == 1
    assert counts(agent, "llm_calls", "failed_calls", "http_retries", "forfeits") == (1, 1, 0, 1)
    assert agent.calls[0]["error"]
    check_no_key(agent, server, str(forfeit))


def test_retries_run_out_then_forfeit():
    env, obs, info = bob_to_move()
    with serve_faults([503]) as server:
        agent = agent_for(server, env, max_retries=2)
        forfeit, _ = decide(agent, obs, info)
    assert isinstance(forfeit, Forfeit) and "failed 3 times" in str(forfeit) and "HTTP 503" in str(forfeit)
    assert len(server.records) == 3
    assert counts(agent, "llm_calls", "failed_calls", "http_retries", "forfeits") == (1, 1, 2, 1)
    check_no_key(agent, server, str(forfeit))


def test_hang_is_bounded_by_the_request_timeout():
    env, obs, info = bob_to_move()
    with serve_faults(["hang"], hang_s=30) as server:
        agent = agent_for(server, env, max_retries=1)
        forfeit, took = decide(agent, obs, info)
        assert server.wait_for(lambda s: len(s.records) == 2 and all(r.client_disconnected for r in s.records), 3)
    assert isinstance(forfeit, Forfeit) and "timeout after 0.5s" in str(forfeit)
    assert took < 4


def test_decision_deadline_cancels_the_request_in_flight():
    env, obs, info = bob_to_move()
    with serve_faults(["hang"], hang_s=30) as server:
        agent = agent_for(server, env, timeout=30, decision_timeout=0.5)
        forfeit, took = decide(agent, obs, info)
        # the server sees the client go away: it stops working on the abandoned request
        assert server.wait_for(lambda s: s.records and s.records[0].client_disconnected, timeout=3)
    assert isinstance(forfeit, Forfeit) and "decision deadline of 0.5s passed" in str(forfeit)
    assert 0.4 < took < 2.5
    assert counts(agent, "llm_calls", "failed_calls", "forfeits") == (1, 1, 1)
    assert agent.calls[0]["error"].startswith("cancelled")


def test_trickling_reply_is_bounded_by_the_deadline_not_the_timeout():
    env, obs, info = bob_to_move()
    # every 16-byte chunk arrives within the 1 s read timeout, so only the deadline ends it
    with serve_faults(["trickle"], trickle_s=0.25) as server:
        agent = agent_for(server, env, timeout=1, decision_timeout=1.5)
        forfeit, took = decide(agent, obs, info)
        assert server.wait_for(lambda s: s.records and s.records[0].client_disconnected, timeout=3)
    assert isinstance(forfeit, Forfeit) and "deadline" in str(forfeit) and took < 3.5


def test_env_rejections_share_the_decision_deadline():
    env, obs, info = bob_to_move()
    with serve_faults(["ok"]) as server:
        agent = agent_for(server, env, decision_timeout=0.3)
        action, _ = decide(agent, obs, info)
        time.sleep(0.35)
        forfeit, took = decide(agent, obs, {**info, "error": "that code is not accepted"})
    assert isinstance(action, int) and isinstance(forfeit, Forfeit) and "deadline" in str(forfeit) and took < 0.3
    assert len(server.records) == 1 and counts(agent, "decisions", "env_rejections", "forfeits") == (1, 1, 1)


def test_slow_reply_within_the_timeout_is_waited_for():
    env, obs, info = bob_to_move()
    with serve_faults(["slow"], slow_s=0.3) as server:
        agent = agent_for(server, env, timeout=2)
        action, _ = decide(agent, obs, info)
    assert isinstance(action, int) and agent.stats()["last_latency_s"] >= 0.3


def test_stopping_the_run_cancels_the_request_in_flight():
    env, obs, info = bob_to_move()

    async def stop_after(seconds: float) -> None:
        task = asyncio.ensure_future(agent.act_async(obs, info))
        await asyncio.sleep(seconds)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with serve_faults(["hang"], hang_s=30) as server:
        agent = agent_for(server, env, timeout=30, decision_timeout=30)
        asyncio.run(stop_after(0.3))
        assert server.wait_for(lambda s: s.records and s.records[0].client_disconnected, timeout=3)
    assert counts(agent, "failed_calls", "forfeits") == (1, 0)  # cancelled, not forfeited


def test_counters_are_live_while_a_decision_runs():
    env, obs, info = bob_to_move()
    seen: list[dict[str, float]] = []

    async def watch() -> Any:
        task = asyncio.ensure_future(agent.act_async(obs, info))
        while not task.done():
            seen.append(agent.stats())
            await asyncio.sleep(0.02)
        return task.result()

    with serve_faults(once(503, "slow"), slow_s=0.5) as server:
        agent = agent_for(server, env, timeout=2)
        action = asyncio.run(watch())
    assert isinstance(action, int)
    assert any(s["http_retries"] == 1 and s["llm_calls"] == 0 for s in seen)  # the retry shows before the reply
    assert agent.stats()["llm_calls"] == 1


def test_dead_endpoint_fails_fast_after_two_calls():
    env, obs, info = bob_to_move()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    agent = agent_for(dead, env, max_retries=3)
    reasons = []
    for _ in range(4):
        forfeit, took = decide(agent, obs, info)
        assert isinstance(forfeit, Forfeit) and "connection error" in str(forfeit)
        reasons.append((str(forfeit), took))
    assert agent.stats()["http_retries"] == 6  # 3 retries for each of the first two calls, none after
    assert counts(agent, "llm_calls", "failed_calls", "forfeits") == (4, 4, 4)
    assert "failed 1 time" in reasons[-1][0]


def test_dropping_server_is_not_taken_for_a_dead_one():
    env, obs, info = bob_to_move()
    with serve_faults(["drop"]) as server:
        agent = agent_for(server, env, max_retries=1)
        for _ in range(3):
            assert isinstance(decide(agent, obs, info)[0], Forfeit)
    assert len(server.records) == 6 and agent.stats()["http_retries"] == 3  # every call still retried


# ------------------------------------------------------------------------------- cache
def test_unreadable_cached_reply_is_evicted_so_a_rerun_asks_again(tmp_path):
    env, obs, info = bob_to_move()
    cache = tmp_path / "replies.sqlite"
    with serve_faults(once("nan")) as server:
        first = agent_for(server, env, cache=cache)
        action, _ = decide(first, obs, info)
        assert len(server.records) == 2 and first.stats()["cache_evictions"] == 1
        rerun = agent_for(server, env, cache=cache)  # the same match again, same cache
        again, _ = decide(rerun, obs, info)
    # the unreadable first reply was not replayed: the rerun asked the server again (and
    # got a readable answer), instead of replaying "NaN" and re-asking forever
    assert len(server.records) == 3 and rerun.calls[0]["cached"] is False and "parsed" in rerun.calls[0]
    assert isinstance(action, int) and isinstance(again, int) and rerun.stats()["parse_failures"] == 0


# ------------------------------------------------------------------------------ options
@pytest.mark.parametrize("option,value", [
    ("temperature", "nan"), ("temperature", "inf"), ("temperature", -0.1), ("temperature", 2.5), ("top_p", 0),
    ("top_p", 1.5), ("max_tokens", 0), ("timeout", 0), ("timeout", "inf"), ("max_retries", -1), ("parse_retries", -1),
    ("decision_timeout", 0), ("decision_timeout", "nan"), ("max_in_flight", 0),
])
def test_options_out_of_range_are_one_line_errors(option, value):
    env = cluegym.make("decrypto")
    with pytest.raises(ValueError, match=option) as info:
        LLMAgent("decrypto", "bob", env.action_space("bob"), backend="openai", model="m",
                 **{option: float(value) if isinstance(value, str) else value})
    assert "\n" not in str(info.value)


def test_defaults_bound_a_hung_decision():
    env = cluegym.make("decrypto")
    agent = LLMAgent("decrypto", "bob", env.action_space("bob"), backend="openai", model="m",
                     base_url="http://127.0.0.1:9/v1")
    assert agent.decision_timeout == 180 and agent.backend.timeout == 60 and agent.backend.max_retries == 3


# ------------------------------------------------------------------------- the server
def test_fault_server_is_bounded_and_checked():
    with serve_faults(["ok"], max_requests=1) as server:
        env, obs, info = bob_to_move()
        agent = agent_for(server, env, max_retries=0, parse_retries=0)
        assert isinstance(decide(agent, obs, info)[0], int)
        assert isinstance(decide(agent, obs, info)[0], Forfeit)  # the second request: the server stopped
        assert server.wait_for(lambda s: s.stopped, 2)
    with serve_faults(["ok"], max_lifetime_s=0.2) as server:
        assert server.wait_for(lambda s: s.stopped, 3)
    with pytest.raises(ValueError, match="loopback"):
        FaultServer(host="0.0.0.0")
    with pytest.raises(ValueError, match="unknown fault 'explode'"):
        FaultServer(["ok", "explode"])
    rule = once(500, "nan")
    assert [rule(i, {}) for i in range(4)] == [500, "nan", "ok", "ok"]
