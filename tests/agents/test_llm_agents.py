"""LLM agents on Decrypto with scripted replies and a fake OpenAI-compatible server: prompts,
re-asks with game-master messages, env-rejection feedback, fallbacks, call logs in the game
record, the ToM tables, and concurrent games."""

from __future__ import annotations

import json

import pytest

import cluegym
from cluegym.agents import AgentSpecError, make_agent, run_match
from cluegym.agents.base import Forfeit
from cluegym.agents.llm.agent import LLMAgent
from cluegym.agents.llm.backends import ScriptedBackend
from cluegym.agents.llm.fake_server import FakeChatServer, decrypto_reply
from cluegym.agents.llm.adapters.decrypto import DecryptoPaperAgent, paper_messages
from cluegym.benchmarks.decrypto_tom import run_tom_eval, table3
from cluegym.envs.decrypto.env import CODES

KEYWORDS = ["apple", "river", "guitar", "castle", "doctor", "pencil", "tiger", "cloud"]
FIXED = {"keywords": ["apple", "river", "guitar", "castle"]}


def new_env(**kw):
    env = cluegym.make("decrypto", keywords=KEYWORDS, **kw)
    env.reset(seed=3, options=FIXED)
    return env


def scripted(spec: str, env, seat: str, replies, seed: int = 0):
    agent = make_agent(spec, game="decrypto", seat=seat, action_space=env.action_space(seat), seed=seed)
    agent.backend = ScriptedBackend(replies)
    return agent


def play_turn(env, agents):
    """Play until the next alice move or the end; return the seats that moved."""
    moved = []
    for seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if moved and seat == "alice" and "error" not in info:
            break
        env.step(agents[seat].act(obs, info))
        moved.append(seat)
    return moved


def test_registered_names_resolve():
    env = new_env()
    assert type(make_agent("llm", game="decrypto", seat="bob", action_space=env.action_space("bob"))) is LLMAgent
    assert isinstance(make_agent("llm-cot:tom=true", game="decrypto", seat="eve", action_space=env.action_space("eve")),
                      DecryptoPaperAgent)
    with pytest.raises((AgentSpecError, ValueError), match="decrypto"):
        make_agent("comet", game="decrypto", seat="alice", action_space=env.action_space("alice"))
    with pytest.raises(AgentSpecError, match="no parameter nope"):
        make_agent("llm:nope=1", game="decrypto", seat="bob", action_space=env.action_space("bob"))
    with pytest.raises(ValueError, match="unknown LLM backend"):
        make_agent("llm:backend=magic", game="decrypto", seat="bob", action_space=env.action_space("bob"))


def test_generalist_sends_the_env_prompt_verbatim_and_maps_the_answer():
    env = new_env()
    agents = {
        "alice": scripted("llm", env, "alice", ['ANSWER: {"hints": ["fruit", "stream", "strings"]}']),
        "bob": scripted("llm", env, "bob", ['Thinking... ANSWER: {"guess": "2-1-3"}']),
        "eve": scripted("llm", env, "eve", ["ANSWER: 3-1-2"]),
    }
    obs, *_ = env.last()
    play_turn(env, agents)
    assert agents["alice"].backend.requests[0] == [{"role": "user", "content": obs["prompt"]}]
    record = env.unwrapped.game_record()
    assert [s["action"] for s in record["steps"]] == [["fruit", "stream", "strings"], CODES.index((2, 1, 3)), CODES.index((3, 1, 2))]


def test_specialist_prompt_rebuilds_the_papers_prompt_exactly():
    """The specialist splits system/user and rebuilds both from structured fields only; joined,
    they equal the env's prompt for every seat and turn."""
    env = new_env()
    agents = {s: scripted("llm-cot", env, s, [decrypto_reply({"messages": []})]) for s in ("bob", "eve")}
    agents["alice"] = scripted("llm-cot", env, "alice", ['ANSWER: {"hints": ["fruit", "stream", "strings"]}'])
    for _ in range(3):
        for seat in ("alice", "bob", "eve"):
            if env.agent_selection != seat:
                break
            obs, _, term, _, info = env.last()
            if term:
                break
            config = agents[seat].config_for(obs)
            system, user = paper_messages(obs, seat, config)
            assert system["role"] == "system" and user["role"] == "user"
            assert system["content"] + "\n\n" + user["content"] == obs["prompt"]
            env.step(agents[seat].act(obs, info))


def test_unreadable_reply_is_reasked_with_a_game_master_message():
    env = new_env()
    alice = scripted("llm", env, "alice", ['ANSWER: {"hints": ["fruit", "stream", "strings"]}'])
    env.step(alice.act(*[env.last()[i] for i in (0, 4)]))
    bob = scripted("llm", env, "bob", ["I am not sure, maybe the first one?", 'ANSWER: {"guess": "2-1-3"}'])
    obs, _, _, _, info = env.last()
    assert bob.act(obs, info) == CODES.index((2, 1, 3))
    second = bob.backend.requests[1]
    assert second[-2] == {"role": "assistant", "content": "I am not sure, maybe the first one?"}
    assert second[-1]["content"].startswith("GAME MASTER: I could not read your answer: no code found")
    stats = bob.stats()
    assert stats["parse_failures"] == 1 and stats["reasks"] == 1 and stats["llm_calls"] == 2 and stats["forfeits"] == 0
    log = bob.drain_log()
    assert [c.get("parse_error") is not None for c in log] == [True, False] and log[1]["parsed"] == CODES.index((2, 1, 3))
    assert bob.drain_log() == []


def test_env_rejection_continues_the_dialogue_with_the_reason():
    env = new_env()
    alice = scripted("llm", env, "alice", [
        'ANSWER: {"hints": ["apples", "stream", "strings"]}',  # "apples" contains the keyword apple
        'ANSWER: {"hints": ["orchard", "stream", "strings"]}',
    ])
    obs, _, _, _, info = env.last()
    env.step(alice.act(obs, info))
    obs, _, _, _, info = env.last()
    assert env.agent_selection == "alice" and "keyword 'apple'" in info["error"]
    env.step(alice.act(obs, info))
    assert env.agent_selection == "bob"
    retry = alice.backend.requests[1]
    assert retry[0] == alice.backend.requests[0][0]  # the same conversation, continued
    assert retry[1]["role"] == "assistant" and "apples" in retry[1]["content"]
    assert retry[2]["content"].startswith("GAME MASTER: Your answer was not accepted: hint 1:")
    assert alice.stats()["env_rejections"] == 1 and alice.stats()["decisions"] == 1


def test_forfeit_hands_the_decision_to_the_env_fallback():
    env = new_env(max_retries=2)
    alice = scripted("llm:parse_retries=1", env, "alice", ["no idea"])
    obs, _, _, _, info = env.last()
    with pytest.raises(Forfeit, match="no readable answer in 2 replies; last: no hints found") as caught:
        alice.act(obs, info)
    env.unwrapped.forfeit(str(caught.value))  # what the match harness does
    assert env.agent_selection == "bob"
    record = env.unwrapped.game_record()
    assert record["steps"][-1]["fallback"]["action"] == ["(pass)"] * 3
    assert record["steps"][-1]["forfeit"] == str(caught.value)
    assert record["counters"] == {"invalid_actions": 0, "fallbacks": 1, "forfeits": 1}
    stats = alice.stats()
    assert len(alice.backend.requests) == 2  # one ask + one re-ask, then the env's fallback at once
    assert stats["forfeits"] == 1 and stats["parse_failures"] == 2 and stats["reasks"] == 1
    assert stats["llm_calls"] == 2 and stats["failed_calls"] == 0


def test_match_stores_every_call_in_the_record(monkeypatch):
    monkeypatch.setenv("CLUEGYM_TEST_KEY", "sk-never-in-records-42")
    records = []
    with FakeChatServer(delay_s=0.005) as server:
        spec = f"llm-cot:backend=openai,base_url={server.base_url},model=fake,api_key_env=CLUEGYM_TEST_KEY"
        summary = run_match("decrypto", {"*": spec}, games=2, seed=1, env_kwargs={"keywords": KEYWORDS, "max_turns": 3},
                            progress=False, on_game=lambda i, r: records.append(r))
    assert server.auth_headers[0] == "Bearer sk-never-in-records-42"
    for record in records:
        text = json.dumps(record)
        assert "sk-never-in-records-42" not in text
        logs = record["agent_logs"]
        assert set(logs) == {"alice", "bob", "eve"}
        for call in logs["bob"]:
            assert {"messages", "reply", "parsed", "latency_s", "prompt_tokens", "completion_tokens", "model", "step"} <= set(call)
            assert call["messages"][0]["role"] == "system"
        parsed_calls = sum(1 for seat in logs for c in logs[seat] if c.get("parsed") is not None)
        applied = sum(1 for s in record["steps"] if "events" in s)
        assert parsed_calls >= applied - record["counters"]["fallbacks"]
    stats = summary["agent_stats"]
    assert stats["bob"]["llm_calls"] >= stats["bob"]["decisions"] > 0
    assert "metrics" in summary and summary["metrics"]["games"] == 2


def tom_reply(request):
    last = request["messages"][-1]["content"]
    if "keywords" in last and "ANSWER" in last:
        if "second Interceptor" in last:
            return 'ANSWER: {"keywords": ["fruit", "water", "music", "fort"]}'
        return 'Step by step... ANSWER: {"keywords": ["fruit", "water", "music", "king"]}'
    if "prediction of the Interceptor" in last:
        return 'ANSWER: {"guess": "1-2-3"}'
    return decrypto_reply(request)


def test_tom_probes_fill_tables_2_and_3():
    with FakeChatServer(tom_reply) as server:
        out = run_tom_eval(f"llm-cot:backend=openai,base_url={server.base_url},model=fake", games=3, seed=0,
                           env_kwargs={"keywords": KEYWORDS, "max_turns": 4})
    t2, t3 = out["table2"], out["table3"]
    assert t2["predictions"] == sum(r["result"]["turns"] for r in out["records"])
    assert 0.0 <= t2["total_predict"] <= 1.0
    assert t3["probes"] == sum(r["result"]["turns"] - 1 for r in out["records"])
    assert t3["strong_rc"] == 1.0 and t3["strong_fb"] == 0.0 and t3["weak_rc"] == 1.0 and t3["unreadable"] == 0
    row = out["records"][0]["tom"]["belief_probes"][0]
    assert row["q1"] == ["fruit", "water", "music", "king"] and row["truth"] == out["records"][0]["result"]["keywords"]
    steps = {c["step"] for c in out["records"][0]["agent_logs"]["eve"]}
    assert {"tom_keywords", "tom_q2", "tom_q3", "guess"} <= steps
    truth = ["a", "b", "c", "d"]
    assert table3([{"q1": truth, "q2": truth, "q3": ["x"] * 4, "truth": truth}])["weak_rc"] == 0.0


def test_concurrent_games_overlap_their_requests():
    with FakeChatServer(delay_s=0.05) as server:
        spec = f"llm:backend=openai,base_url={server.base_url},model=fake,max_in_flight=64"
        summary = run_match("decrypto", {"*": spec}, games=8, seed=0, concurrency=8,
                            env_kwargs={"keywords": KEYWORDS, "max_turns": 2}, progress=False)
        calls = sum(s["llm_calls"] for s in summary["agent_stats"].values())
    # Overlap counted at the server (not timed: a busy machine makes any time bound flaky):
    # serial play would never have more than one request in flight.
    assert server.max_in_flight >= 6 and calls >= 8 * 3


def test_call_log_can_store_a_digest_instead_of_the_prompt():
    env = new_env()
    alice = scripted("llm:log_messages=false", env, "alice", ['ANSWER: {"hints": ["fruit", "stream", "strings"]}'])
    obs, _, _, _, info = env.last()
    alice.act(obs, info)
    (call,) = alice.drain_log()
    assert call["messages"][0]["role"] == "digest" and call["messages"][0]["content"].startswith("sha1:")
    assert call["messages"][1]["content"] == obs["prompt"] and call["parsed"] == ["fruit", "stream", "strings"]
