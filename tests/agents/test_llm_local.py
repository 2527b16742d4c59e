"""End-to-end Decrypto games with the packaged SmolLM2-135M-Instruct: in-process (local
backend) and through the OpenAI-compatible backend against ``transformers serve`` started on
127.0.0.1 by the test. SmolLM2 plays badly; these tests prove the plumbing, offline."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from cluegym.agents import run_match
from cluegym.agents.llm.backends import LocalBackend, Sampling, load_local_model, smollm2_folder

pytestmark = pytest.mark.slow

KEYWORDS = ["apple", "river", "guitar", "castle", "doctor", "pencil"]
# One short turn; one re-ask allowed; the env falls back at once after a rejection.
ENV = {"keywords": KEYWORDS, "max_turns": 1, "max_retries": 0}
FAST = "max_tokens=24,parse_retries=1"


@pytest.fixture(scope="module")
def smollm2():
    """Build the dequantized checkpoint (first run only) and load it once for this module."""
    return load_local_model()


def check_game(summary: dict) -> None:
    record = summary["first_game"]
    assert summary["games"] == 1 and record["result"]["turns"] == 1
    stats = summary["agent_stats"]
    for seat in ("alice", "bob", "eve"):
        s = stats[seat]
        assert s["llm_calls"] >= 1 and s["completion_tokens"] > 0 and s["prompt_tokens"] > 100
        calls = record["agent_logs"][seat]
        assert len(calls) == s["llm_calls"] and all(c["reply"] is not None and c["latency_s"] > 0 for c in calls)
    # every failure is visible: parse failures in the agent stats, fallbacks in the record
    failures = sum(stats[s]["forfeits"] for s in stats)
    assert record["counters"]["fallbacks"] >= failures


def test_local_backend_is_deterministic_and_offline(smollm2):
    tokenizer, model = smollm2
    assert model.config.model_type == "llama" and tokenizer.chat_template
    assert (smollm2_folder() / "model.safetensors").exists()
    backend = LocalBackend()
    messages = [{"role": "user", "content": "Name one fruit."}]
    first = asyncio.run(backend.complete(messages, Sampling(max_tokens=8)))
    again = asyncio.run(backend.complete(messages, Sampling(max_tokens=8)))
    assert first.text == again.text and first.completion_tokens <= 8 and first.prompt_tokens > 5


def test_local_smollm2_plays_decrypto(smollm2):
    summary = run_match("decrypto", {"*": f"llm:backend=local,{FAST}"}, games=1, seed=0, env_kwargs=ENV, progress=False)
    check_game(summary)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def transformers_server(smollm2):
    """``transformers serve`` on 127.0.0.1 serving the dequantized SmolLM2 folder."""
    cli = shutil.which("transformers", path=str(Path(sys.executable).parent))
    if cli is None:
        pytest.skip("transformers CLI not installed (pip install 'transformers[serving]')")
    folder = str(smollm2_folder())
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    log = open(Path(folder).parent / "transformers-serve-test.log", "w")
    proc = subprocess.Popen(
        [cli, "serve", folder, "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", "--log-level", "warning"],
        stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"transformers serve exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"transformers serve did not come up within 180 s; see {log.name}")
            time.sleep(1)
        yield {"base_url": base + "/v1", "model": folder}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        log.close()


def test_a_cancelled_request_waiting_for_the_model_is_skipped(smollm2):
    gone = threading.Event()
    gone.set()  # its decision was cancelled while it waited for the model lock
    out = LocalBackend()._generate([{"role": "user", "content": "Name one fruit."}], Sampling(max_tokens=8), gone)
    assert out.text == "" and out.finish_reason == "abandoned"


def test_openai_backend_plays_decrypto_against_a_local_server(transformers_server):
    spec = (f"llm-cot:backend=openai,base_url={transformers_server['base_url']},model={transformers_server['model']},"
            "timeout=120,max_retries=1,max_tokens=16,parse_retries=0")  # 3 calls: keep CI time small
    summary = run_match("decrypto", {"*": spec}, games=1, seed=0, env_kwargs=ENV, progress=False)
    check_game(summary)
    first_call = summary["first_game"]["agent_logs"]["alice"][0]
    assert first_call["backend"] == "openai" and first_call["messages"][0]["role"] == "system"
