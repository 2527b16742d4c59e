"""LLM agents on Undercover and Adversarial Taboo (generalist, CoT, CoMet) with scripted
replies through a fake OpenAI-compatible server: answers map to the env actions, CoMet runs
its modules as separate logged steps, reports beliefs, and grows its experience pool."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.agents.llm.backends import ScriptedBackend
from cluegym.agents.llm.comet import CoMetTabooAgent, CoMetUndercoverAgent, ExperiencePool
from cluegym.agents.llm.fake_server import FakeChatServer
from cluegym.agents.llm.parsing import ParseError
from cluegym.agents.llm.adapters import taboo as taboo_prompts
from cluegym.agents.llm.adapters import undercover as undercover_prompts

TARGETS = {"targets": ["apple", "river", "piano"]}


def game_reply(request) -> str:
    """Plausible answers for every prompt step of every Undercover/Taboo agent."""
    last = request["messages"][-1]["content"]
    n = sum(len(str(m["content"])) for m in request["messages"])
    if "(Feature Extractor)" in last:
        return ('ANSWER: {"features": {"player_1": {"category": "mismatch", "feature": "stripes"}, '
                '"player_2": {"category": "detailed", "feature": "mane"}}, "other_word": "tiger"}')
    if "(Hypothesis-based Metaphor Reasoner)" in last:
        return 'ANSWER: {"hypotheses": {"player_1": "H1"}}'
    if "(Belief Mapper)" in last:
        return 'ANSWER: {"beliefs": {"player_1": "opponent", "player_2": "teammate", "player_3": "undecided"}}'
    if "(Self-Monitor)" in last:
        return 'ANSWER: {"identity": "civilian", "confidence": 70, "reason": "the majority shares my word"}'
    if "(Strategy Planner)" in last:
        return 'ANSWER: {"strategy": "stay vague", "describe": "my_word", "reminder": "watch player_1"}'
    if "(Metaphor Generator, step 1)" in last:
        return 'ANSWER: {"feature": "lives in a group", "method": "structural"}'
    if "(Metaphor Generator, step 2)" in last or "(Speaker)" in last:
        return 'ANSWER: {"description": "A crowded house where everyone follows one leader %d."}' % (n % 89)
    if "(Voter)" in last or "voting phase" in last:
        return 'ANSWER: {"vote": "player_%d"}' % (n % 5)
    if '"description"' in last:
        return 'ANSWER: {"description": "It is found on farms %d.", "beliefs": {"self": "civilian"}}' % (n % 89)
    if "<FOCUS>" in last:
        return "<RESPONSE><FOCUS>kitchen</FOCUS><DISTRACT>garden</DISTRACT><DIALOGUE>What did you bake last weekend?</DIALOGUE></RESPONSE>"
    if "<CANDIDATE>" in last:
        return "<RESPONSE><STRATEGY>guess</STRATEGY><CANDIDATE>pie</CANDIDATE><DIALOGUE>I baked bread with my aunt.</DIALOGUE></RESPONSE>"
    if '"utterance"' in last:
        return 'Thinking... ANSWER: {"utterance": "Let us talk about food %d.", "guess": ""}' % (n % 89)
    return "I am not sure."


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(game_reply) as srv:
        yield srv


def spec(name: str, server: FakeChatServer) -> str:
    sep = "," if ":" in name else ":"
    return f"{name}{sep}backend=openai,base_url={server.base_url},model=fake"


def test_undercover_answers_map_to_actions():
    obs = {"phase": 0, "alive": [1] * 5}
    action = undercover_prompts.parse_action(
        'ANSWER: {"description": "It  purrs.", "beliefs": {"self": "civilian", "others": {"player_2": "opponent"}}}', obs, {}, "player_0")
    assert action["description"] == "It purrs." and json.loads(action["beliefs"])["others"] == {"player_2": "opponent"}
    vote = {**obs, "phase": 1}
    assert undercover_prompts.parse_action("ANSWER: {'vote': 'Player 3'}", vote, {}, "player_0") == {"vote": 3}
    assert undercover_prompts.parse_action('ANSWER: {"vote": 4}', vote, {}, "player_0") == {"vote": 4}
    with pytest.raises(ParseError, match="no player_7"):
        undercover_prompts.parse_action('ANSWER: {"vote": "player_7"}', vote, {}, "player_0")
    with pytest.raises(ParseError, match='"vote": "player_X"'):
        undercover_prompts.parse_action('ANSWER: {"description": "x"}', vote, {}, "player_0")


def test_taboo_answers_map_to_actions():
    parse = taboo_prompts.parse_action
    assert parse('ANSWER: {"utterance": "Nice  day."}', {}, {}, "attacker") == {"utterance": "Nice day."}
    assert parse('ANSWER: {"utterance": "", "guess": "apple"}', {}, {}, "defender") == {"utterance": "", "guess": "apple"}
    assert parse("ANSWER: {'utterance': 'Hm.'}", {}, {}, "defender") == {"utterance": "Hm.", "guess": ""}
    with pytest.raises(ParseError):
        parse("Let me think about it.", {}, {}, "defender")


@pytest.mark.parametrize("name", ["llm", "llm-cot", "comet", "comet:ablate=met"])
def test_undercover_plays_with_every_llm_agent(name, server):
    summary = run_match("undercover", {"*": spec(name, server)}, games=1, seed=0, progress=False)
    record = summary["first_game"]
    assert record["result"]["winner"] in ("civilians", "undercover", None)
    logs = record["agent_logs"]
    assert set(logs) == set(record["result"]["roles"])
    steps = {c["step"] for calls in logs.values() for c in calls}
    if name == "comet":
        assert {"feature_extractor", "metaphor_reasoner", "belief_mapper", "self_monitor", "strategy_planner",
                "metaphor_plan", "metaphor_generator", "voter"} <= steps
    if name == "comet:ablate=met":
        assert "speaker" in steps and not steps & {"metaphor_reasoner", "metaphor_plan", "metaphor_generator"}
    if name.startswith("comet"):
        # beliefs travel in the action and feed CoMet's identity metrics
        assert record["result"]["beliefs"]
        assert summary["metrics"]["civilian"]["SIAA"] is not None or summary["metrics"]["undercover"]["SIAA"] is not None
        assert summary["metrics"]["civilian"]["FER"] is not None  # CoMet reports the features it read
    stats = summary["agent_stats"]["player_0"]
    assert stats["llm_calls"] >= stats["decisions"] > 0


@pytest.mark.parametrize("name", ["llm", "llm-cot", "comet"])
def test_taboo_plays_with_every_llm_agent(name, server):
    summary = run_match("taboo", {"*": spec(name, server)}, games=1, seed=0, env_kwargs=TARGETS, progress=False)
    record = summary["first_game"]
    assert record["result"]["end_reason"] and len(record["agent_logs"]["attacker"]) >= 1
    if name == "comet":
        # the defender suspected "pie" twice before guessing (the framework's rule)
        assert record["result"]["guess"] == "pie" and record["result"]["defender_turns"] == 2


def _undercover_obs(env):
    obs, _, _, _, info = env.last()
    return obs, info


def test_comet_modules_are_separate_logged_steps_and_analysis_is_reused():
    env = cluegym.make("undercover")
    env.reset(seed=2)
    seat = env.agent_selection
    agent = make_agent("comet", game="undercover", seat=seat, action_space=env.action_space(seat), seed=0)
    backend = ScriptedBackend(lambda messages: game_reply({"messages": messages}))
    agent.backend = backend
    obs, info = _undercover_obs(env)
    action = agent.act(obs, info)
    assert [c["step"] for c in agent.calls] == [
        "feature_extractor", "metaphor_reasoner", "belief_mapper", "self_monitor", "strategy_planner",
        "metaphor_plan", "metaphor_generator"]
    assert action["description"].startswith("A crowded house")
    beliefs = json.loads(action["beliefs"])
    assert beliefs["self"] == "civilian" and beliefs["other_word"] == "tiger"
    assert beliefs["others"]["player_1"] == "opponent"
    # every module's prompt is its own request with its own task
    tasks = [m[-1]["content"].split("# TASK")[-1][:40] for m in backend.requests]
    assert len(set(tasks)) == len(tasks)
    agent.drain_log()
    agent.act(obs, {})  # same transcript: no re-analysis, straight to planning and speaking
    assert [c["step"] for c in agent.calls] == ["strategy_planner", "metaphor_plan", "metaphor_generator"]


def test_experience_pool_grows_and_feeds_the_generator(tmp_path):
    path = tmp_path / "experience.jsonl"
    pool = ExperiencePool(path)
    pool.add({"game": "undercover", "word": "bee", "method": "structural", "metaphor": "A humming city.", "success": True})
    pool.add({"game": "undercover", "word": "ant", "method": "spatial", "metaphor": "Underground roads.", "success": False})
    pool.add({"game": "taboo", "target": "apple", "utterances": ["pie?"], "success": True})
    assert len(pool) == 3 and [e["metaphor"] for e in pool.examples("undercover", "structural", k=1)] == ["A humming city."]
    assert pool.examples("taboo", k=5)[0]["target"] == "apple"
    with FakeChatServer(game_reply) as srv:
        run_match("undercover", {"*": spec(f"comet:experience={path}", srv)}, games=1, seed=1, progress=False)
        grown = ExperiencePool(path).entries("undercover")
        assert len(grown) > 2
        assert all({"metaphor", "method", "feature", "won", "success", "interpretation"} <= set(e) for e in grown[2:])
        # the stored successful metaphor is shown to the generator as an example
        last = [r["messages"][-1]["content"] for r in srv.requests]
        prompts = [p for p in last if "(Metaphor Generator, step 2)" in p]
        assert prompts and all("A humming city." in p for p in prompts if "structural" in p.split("by using the")[1][:20])


@pytest.mark.parametrize("kind", ["folder", "binary file", "under a file"])
def test_a_bad_experience_path_fails_when_the_agents_are_built(tmp_path, kind):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a folder\n")
    binary = tmp_path / "llm_cache.sqlite"
    binary.write_bytes(b"SQLite format 3\x00\xff\xfe\x00")
    path, why = {"folder": (tmp_path, "is a directory, not a file"),
                 "binary file": (binary, "is not UTF-8 JSONL text"),
                 "under a file": (notes / "experience.jsonl", "is not writable")}[kind]
    with FakeChatServer(game_reply) as srv:
        with pytest.raises(ValueError, match=f"^the experience= file {re.escape(str(path))} {why}"):
            run_match("taboo", {"*": spec(f"comet:experience={path}", srv)}, games=2, seed=0, progress=False)
        assert srv.requests == []  # before any game spent an LLM call


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes any file")
@pytest.mark.parametrize("mode, why", [(0o444, "is not writable"), (0o200, "is not readable")])
def test_an_experience_file_without_permission_is_refused(tmp_path, mode, why):
    path = tmp_path / "experience.jsonl"
    path.write_text('{"game": "taboo", "target": "apple", "success": true}\n')
    path.chmod(mode)
    message = f"^the experience= file {re.escape(str(path))} {why} \\(Permission denied\\)$"
    with pytest.raises(ValueError, match=message):
        ExperiencePool.from_option(str(path))


def test_a_missing_experience_file_is_created(tmp_path):
    path = tmp_path / "new" / "experience.jsonl"
    pool = ExperiencePool.from_option(str(path))
    assert path.read_text() == "" and os.listdir(path.parent) == ["experience.jsonl"]
    assert pool.entries() == []
    pool.add({"game": "taboo", "target": "apple", "success": True})
    assert [e["target"] for e in ExperiencePool.from_option(str(path)).entries("taboo")] == ["apple"]


def test_a_pool_that_is_only_read_needs_no_write_access(tmp_path):
    env = cluegym.make("undercover")
    seat = env.possible_agents[0]

    def build(path: Path) -> CoMetUndercoverAgent:
        return make_agent(f"comet:experience={path},learn=false", game="undercover", seat=seat,
                          action_space=env.action_space(seat))

    missing = tmp_path / "missing.jsonl"
    assert len(build(missing).pool) == 0 and not missing.exists()  # not created: never written
    with pytest.raises(ValueError, match="is a directory, not a file"):
        build(tmp_path)
    shared = tmp_path / "shared.jsonl"
    shared.write_text('{"game": "undercover", "method": "spatial", "success": true}\n')
    shared.chmod(0o444)  # a pool others keep: read, never written
    assert len(build(shared).pool) == 1


def test_comet_taboo_defender_guesses_only_on_a_repeated_suspicion():
    env = cluegym.make("taboo", **TARGETS)
    env.reset(seed=0)
    agent = make_agent("comet", game="taboo", seat="defender", action_space=env.action_space("defender"))
    assert isinstance(agent, CoMetTabooAgent)
    agent.backend = ScriptedBackend([
        "<RESPONSE><STRATEGY>guess</STRATEGY><CANDIDATE>pie</CANDIDATE><DIALOGUE>I like baking.</DIALOGUE></RESPONSE>",
        "<RESPONSE><STRATEGY>guess</STRATEGY><CANDIDATE>cake, pie</CANDIDATE><DIALOGUE>Sweet things.</DIALOGUE></RESPONSE>",
        "<STRATEGY>guess</STRATEGY><CANDIDATE>cake</CANDIDATE>",
    ])
    obs = {"dialogue": ("What do you bake?", "", "", "", "", "", "", "", "", ""), "turn": 0}
    assert agent.act(obs, {}) == {"utterance": "I like baking.", "guess": ""}  # first suspicion: continue
    assert agent.act({**obs, "turn": 1}, {}) == {"utterance": "Sweet things.", "guess": ""}  # changed: continue
    assert agent.act({**obs, "turn": 2}, {}) == {"utterance": "", "guess": "cake"}  # repeated: guess
    assert "Your output in the previous round:\n<STRATEGY>continue</STRATEGY><CANDIDATE>cake</CANDIDATE>" in \
        agent.backend.requests[2][0]["content"]


def test_comet_rejects_unknown_modules_and_games():
    env = cluegym.make("undercover")
    with pytest.raises(ValueError, match="unknown CoMet module 'xyz'"):
        CoMetUndercoverAgent("undercover", "player_0", env.action_space("player_0"), ablate="met+xyz")
    with pytest.raises(ValueError, match="CoMet plays undercover and taboo"):
        make_agent("comet", game="decrypto", seat="bob", action_space=cluegym.make("decrypto", keywords=["a", "b", "c", "d"]).action_space("bob"))


def test_experience_pool_survives_a_line_cut_by_a_kill(tmp_path):
    path = tmp_path / "experience.jsonl"
    pool = ExperiencePool(path)
    pool.add({"game": "taboo", "target": "apple", "success": True})
    path.write_text(path.read_text() + '{"game": "taboo", "tar')  # killed mid-write
    pool.add({"game": "taboo", "target": "pear", "success": False})
    assert [e["target"] for e in ExperiencePool(path).entries("taboo")] == ["apple", "pear"]


def test_comet_taboo_defender_is_not_forced_to_guess_on_its_last_turn():
    env = cluegym.make("taboo", **TARGETS)
    agent = make_agent("comet", game="taboo", seat="defender", action_space=env.action_space("defender"))
    agent.backend = ScriptedBackend([
        "<STRATEGY>continue</STRATEGY><CANDIDATE>pie</CANDIDATE><DIALOGUE>I like baking.</DIALOGUE>",
        "<STRATEGY>guess</STRATEGY><CANDIDATE>cake</CANDIDATE><DIALOGUE>Sweet things.</DIALOGUE>",
    ])
    obs = {"dialogue": ("What do you bake?",) + ("",) * 9, "turn": 3}
    agent.act(obs, {})
    # last turn, a new suspicion: Figure 18 allows no guess, and none is forced
    assert agent.act({**obs, "turn": 4}, {}) == {"utterance": "Sweet things.", "guess": ""}
