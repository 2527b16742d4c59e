"""Agent options that were accepted and then failed every decision, hung or ate memory are
refused when the agent is built, in one line (an audit's findings)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.agents.llm.agent import LLMAgent
from cluegym.cli import main


def _build(spec: str, game: str, seat: str):
    return make_agent(spec, game=game, seat=seat, action_space=cluegym.make(game).action_space(seat))


def _refused(argv: list[str]) -> str:
    started = time.monotonic()
    with pytest.raises(SystemExit) as exited:
        main(["run", *argv, "--games", "1", "--no-progress", "--no-show"])
    assert exited.value.code == 2 and time.monotonic() - started < 60  # before any game
    message = str(exited.value)
    assert message.startswith("cluegym: error: ") and "\n" not in message
    return message


FAKE = "llm:backend=openai,model=m,base_url=http://127.0.0.1:9/v1"


@pytest.mark.parametrize("argv, problem", [
    (["decrypto", "--agent", f"alice={FAKE},parse_retries=1000000000"], "parse_retries must be an integer from 0 to 20"),
    (["decrypto", "--agent", f"alice={FAKE},max_retries=21"], "max_retries must be an integer from 0 to 20"),
    (["decrypto", "--agent", f"alice=llm-cot:backend=openai,model=m,base_url=http://127.0.0.1:9/v1,"
                             "miscommunication_limit=0"], "miscommunication_limit must be an integer >= 1"),
    (["decrypto", "--agent", "eve=llm-cot:backend=openai,model=m,base_url=http://127.0.0.1:9/v1,"
                             "interception_limit=-1"], "interception_limit must be an integer >= 1"),
    (["decrypto", "--agent", "alice=llm:backend=openai,model=m,base_url=notaurl"],
     "base_url must be an http(s)://host URL, got 'notaurl'"),
    (["decrypto", "--agent", "alice=llm:backend=openai,model=m,base_url=ftp://host/v1"], "base_url must be an http(s)"),
    (["decrypto", "--agent", "alice=llm:backend=openai,model=m,base_url= "], "parameter 'base_url' in"),
    (["decrypto", "--agent", "alice=glove:embedding="], "parameter 'embedding' in 'glove:embedding=' has no value"),
    (["taboo", "--agent", "defender=glove:candidates="], "parameter 'candidates' in"),
    (["decrypto", "--agent", "alice=glove:vectors=,k=3"], "parameter 'vectors' in"),
    (["decrypto", "--agent", "alice=llm:model=/nonexistent/model"],
     "local model '/nonexistent/model' is neither a checkpoint folder nor a .gguf file"),
    (["decrypto", "--agent", "alice=llm:model=/nonexistent/x.gguf"], "is neither a checkpoint folder nor a .gguf file"),
    (["taboo", "--agent", "attacker=comet:backend=openai,model=m,base_url=http://127.0.0.1:9/v1,examples=-1"],
     "examples must be an integer >= 0"),
])
def test_llm_options_out_of_range_are_refused_before_the_first_game(argv, problem):
    assert problem in _refused(argv)


@pytest.mark.parametrize("options, problem", [
    ("timeout=5", "timeout is an option of backend=openai"),
    ("max_retries=5,max_in_flight=2", "max_retries, max_in_flight are options of backend=openai"),
    ("api_key_env=MY_KEY", "api_key_env is an option of backend=openai"),
    ("base_url=http://127.0.0.1:9/v1", "base_url is an option of backend=openai"),
])
def test_an_endpoints_option_with_the_local_backend_is_refused(options, problem):
    # each was ignored without a word: the local model has no requests to time out or retry
    assert problem in _refused(["decrypto", "--agent", f"alice=llm:{options}"])
    assert problem in _refused(["decrypto", "--agent", f"eve=llm-cot:backend=local,{options}"])


def test_an_api_key_variable_named_and_unset_is_refused(monkeypatch):
    monkeypatch.delenv("CLUEGYM_NO_SUCH_KEY", raising=False)
    assert "api_key_env=CLUEGYM_NO_SUCH_KEY: no such environment variable is set" in _refused(
        ["decrypto", "--agent", f"alice={FAKE},api_key_env=CLUEGYM_NO_SUCH_KEY"])
    monkeypatch.setenv("CLUEGYM_NO_SUCH_KEY", "sk-test")
    assert _build(f"{FAKE},api_key_env=CLUEGYM_NO_SUCH_KEY", "decrypto", "alice").backend.api_key_env == "CLUEGYM_NO_SUCH_KEY"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # the default may be unset: a local server needs no key
    assert _build(FAKE, "decrypto", "alice").backend.api_key_env == "OPENAI_API_KEY"


def test_an_empty_local_model_is_refused():
    with pytest.raises(ValueError, match="parameter 'model' in 'llm:model= ' has no value"):
        _build("llm:model= ", "decrypto", "alice")
    with pytest.raises(ValueError, match="model is empty"):  # from Python, the backend says it
        LLMAgent("decrypto", "alice", cluegym.make("decrypto").action_space("alice"), model="")


@pytest.mark.slow  # the embedding agents load their vectors
@pytest.mark.parametrize("argv, problem", [
    (["taboo", "--agent", "defender=glove:avoid=1000000000"], "avoid in 1..100"),
    (["dixit", "--agent", "player_0=vision:rank=1001"], "rank is a label rank, in 1..1000; got 1001"),
    (["dixit", "--env", "reveal_captions=true", "--agent", "player_0=caption:vocab_size=0"],
     "vocab_size must be >= 10, got 0"),
    (["dixit", "--env", "reveal_captions=true", "--agent", "player_0=glove:vocab_size=-5"],
     "vocab_size must be >= 10, got -5"),
])
def test_embedding_options_out_of_range_are_refused_before_the_first_game(argv, problem):
    assert problem in _refused(argv)


@pytest.mark.parametrize("content, problem", [
    ("{", "is not JSON"),
    ("[1, 2]", "is not a JSON object"),
    ("{}", "lacks 'algo', 'game', 'seat'"),
])
def test_a_policy_whose_metadata_is_broken_is_named_in_one_line(tmp_path: Path, content, problem):
    (tmp_path / "p.zip").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    (tmp_path / "p.json").write_text(content)
    message = _refused(["decrypto", "--agent", f"eve=ppo:path={tmp_path / 'p.zip'}"])
    assert f"policy metadata '{tmp_path / 'p.json'}' {problem}" in message


def test_an_rllib_checkpoint_whose_metadata_is_broken_is_named_in_one_line(tmp_path: Path):
    (tmp_path / "cluegym_policies.json").write_text(json.dumps({"game": "decrypto_v0"}))
    message = _refused(["decrypto", "--agent", f"eve=rllib:path={tmp_path}"])
    assert "RLlib policy metadata" in message and "lacks 'policies', 'roles', 'feature_size', 'n_actions'" in message
