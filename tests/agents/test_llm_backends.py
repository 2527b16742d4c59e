"""The OpenAI-compatible backend against a real HTTP server on 127.0.0.1 that misbehaves:
429 (with Retry-After), 5xx, hangs past the timeout, dropped connections, garbage bodies.
Also: the API key never leaks, the in-flight limit holds, the reply cache works."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import time
from pathlib import Path

import pytest

from cluegym.agents import run_match
from cluegym.agents.llm.backends import (
    BackendError, Completion, OpenAIBackend, ResponseCache, Sampling, ScriptedBackend, get_backend, open_cache,
)
from cluegym.agents.llm.fake_server import FakeChatServer
from cluegym.cli import main

SECRET = "sk-test-SECRET-0123456789"
MESSAGES = [{"role": "user", "content": 'Give "hints" please'}]


@pytest.fixture
def key_env(monkeypatch):
    monkeypatch.setenv("CLUEGYM_TEST_KEY", SECRET)
    return "CLUEGYM_TEST_KEY"


def backend_for(server: FakeChatServer, key_env: str, **kw) -> OpenAIBackend:
    options = {"timeout": 0.5, "max_retries": 8, "backoff_s": 0.01, "backoff_max_s": 0.2, **kw}
    return OpenAIBackend("fake-model", base_url=server.base_url, api_key_env=key_env, **options)


@pytest.mark.parametrize("http_client", ["lean", "openai"])
def test_retries_every_transient_failure_then_succeeds(key_env, http_client):
    script = [429, 500, "garbage", "empty", "drop", "hang", 503]
    with FakeChatServer(script=script, hang_s=2.0, retry_after=0.05) as server:
        backend = backend_for(server, key_env, http_client=http_client)
        reasons: list[str] = []
        start = time.perf_counter()
        completion = asyncio.run(backend.complete(MESSAGES, Sampling(), on_retry=reasons.append))
        elapsed = time.perf_counter() - start
    # both clients give the same reasons, word for word
    assert reasons == ["HTTP 429: Error code: 429 - scripted 429", "HTTP 500: Error code: 500 - scripted 500",
                       "unreadable reply (_BadReply): no choices in the reply",
                       "unreadable reply (_BadReply): no choices in the reply",
                       "connection error: Connection error.", "timeout after 0.5s",
                       "HTTP 503: Error code: 503 - scripted 503"]
    assert '"hints"' in completion.text
    assert completion.retries == len(script)
    assert len(server.requests) == len(script) + 1
    assert completion.prompt_tokens and completion.completion_tokens
    assert elapsed < 5  # backoff is short here, and the hang was cut by the 0.5 s timeout
    assert server.auth_headers[0] == f"Bearer {SECRET}"  # the key is sent ...


def test_backoff_grows_and_honours_retry_after(key_env):
    with FakeChatServer(script=[500, 500, 500]) as server:
        backend = backend_for(server, key_env, backoff_s=0.1, backoff_max_s=1.0)
        start = time.perf_counter()
        asyncio.run(backend.complete(MESSAGES, Sampling()))
        # waits of 0.1, 0.2, 0.4 s scaled by jitter in [0.5, 1]: at least 0.35 s in all
        assert time.perf_counter() - start >= 0.35
    with FakeChatServer(script=[429], retry_after=0.6) as server:
        backend = backend_for(server, key_env, backoff_s=0.01, backoff_max_s=1.0)
        start = time.perf_counter()
        asyncio.run(backend.complete(MESSAGES, Sampling()))
        assert time.perf_counter() - start >= 0.55


@pytest.mark.parametrize("http_client", ["lean", "openai"])
def test_gives_up_after_max_retries_without_leaking_the_key(key_env, http_client):
    with FakeChatServer(script=[500] * 10) as server:
        backend = backend_for(server, key_env, max_retries=2, http_client=http_client)
        with pytest.raises(BackendError) as info:
            asyncio.run(backend.complete(MESSAGES, Sampling()))
    assert info.value.retryable and "failed 3 times" in str(info.value) and "HTTP 500" in str(info.value)
    assert len(server.requests) == 3
    assert SECRET not in str(info.value) and SECRET not in repr(backend) and SECRET not in json.dumps(backend.describe())


@pytest.mark.parametrize("http_client", ["lean", "openai"])
def test_client_errors_are_not_retried(key_env, http_client):
    for status in (400, 401, 404):
        with FakeChatServer(script=[status]) as server:
            backend = backend_for(server, key_env, http_client=http_client)
            with pytest.raises(BackendError) as info:
                asyncio.run(backend.complete(MESSAGES, Sampling()))
        assert not info.value.retryable and info.value.status == status and len(server.requests) == 1
        assert SECRET not in str(info.value) and f"answered HTTP {status} for model 'fake-model': " \
            f"Error code: {status} - scripted {status}" in str(info.value)


def test_sampling_parameters_and_images_reach_the_server(key_env):
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    messages = [{"role": "user", "content": [{"type": "text", "text": "Which card?"}, image]}]
    with FakeChatServer() as server:
        backend = backend_for(server, key_env)
        asyncio.run(backend.complete(messages, Sampling(temperature=0.7, top_p=0.9, max_tokens=77, seed=5)))
        text_only = backend_for(server, key_env, vision=False)
        asyncio.run(text_only.complete(messages, Sampling()))
    sent = server.requests[0]
    assert sent["model"] == "fake-model" and sent["temperature"] == 0.7 and sent["top_p"] == 0.9
    assert sent["max_tokens"] == 77 and sent["seed"] == 5
    assert sent["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert server.requests[1]["messages"][0]["content"] == "Which card?\n[image]"


def test_in_flight_limit_is_shared_and_respected(key_env):
    with FakeChatServer(delay_s=0.1) as server:
        backend = backend_for(server, key_env, max_in_flight=4)

        async def burst():
            return await asyncio.gather(*(backend.complete(MESSAGES, Sampling()) for _ in range(16)))

        start = time.perf_counter()
        replies = asyncio.run(burst())
        elapsed = time.perf_counter() - start
        # a second event loop gets its own client and semaphore (matches run one after another)
        asyncio.run(burst())
    assert len(replies) == 16 and server.max_in_flight == 4 and backend.max_seen_in_flight == 4
    assert elapsed >= 0.35  # 16 requests, 4 at a time, 0.1 s each


def test_response_cache_makes_reruns_free(tmp_path, key_env):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeChatServer() as server:
        backend = backend_for(server, key_env)
        backend.cache = cache
        first = asyncio.run(backend.complete(MESSAGES, Sampling(max_tokens=20)))
        again = asyncio.run(backend.complete(MESSAGES, Sampling(max_tokens=20)))
        other = asyncio.run(backend.complete(MESSAGES, Sampling(max_tokens=21)))  # different params: a miss
    assert len(server.requests) == 2 and again.cached and not first.cached and not other.cached
    assert again.text == first.text and again.completion_tokens == first.completion_tokens
    assert len(cache) == 2 and cache.hits == 1
    key = ResponseCache.key("openai", "m", MESSAGES, Sampling())
    assert key != ResponseCache.key("openai", "m2", MESSAGES, Sampling())
    assert key != ResponseCache.key("local", "m", MESSAGES, Sampling())
    assert open_cache(tmp_path / "x.sqlite") is open_cache(str(tmp_path / "x.sqlite"))
    assert open_cache(None) is None and open_cache("off") is None


def test_scripted_backend_and_registry():
    backend = ScriptedBackend(["a", "b"])
    assert [asyncio.run(backend.complete(MESSAGES, Sampling())).text for _ in range(3)] == ["a", "b", "a"]
    assert isinstance(asyncio.run(ScriptedBackend(lambda m: "x").complete(MESSAGES, Sampling())), Completion)
    shared = get_backend("openai", model="m", base_url="http://127.0.0.1:9/v1")
    assert get_backend("openai", model="m", base_url="http://127.0.0.1:9/v1") is shared
    with pytest.raises(ValueError, match="unknown LLM backend"):
        get_backend("vllm")
    with pytest.raises(ValueError, match="needs a model"):
        OpenAIBackend("")


def llm_spec(server: FakeChatServer, cache: Path) -> str:
    return f"llm:backend=openai,base_url={server.base_url},model=m,cache={cache}"


def bad_cache(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A ``cache=`` path of ``kind`` and the reason its error must give."""
    text = tmp_path / "notes.txt"
    text.write_text("my notes, not a database\n")
    if kind == "text file":
        return text, "is not an SQLite database"
    if kind == "folder":
        return tmp_path, "is a directory, not a file"
    return text / "cache.sqlite", "is not writable"  # its folder would have to be a file


@pytest.mark.parametrize("kind", ["text file", "folder", "under a file"])
def test_a_bad_cache_path_fails_when_the_agents_are_built(tmp_path, kind):
    path, why = bad_cache(tmp_path, kind)
    with FakeChatServer() as server:
        with pytest.raises(ValueError, match=f"^the cache= file {re.escape(str(path))} {why}"):
            run_match("decrypto", {"*": llm_spec(server, path)}, games=2, seed=0, progress=False)
        assert server.requests == []  # before any game asked the model
    assert (tmp_path / "notes.txt").read_text() == "my notes, not a database\n"  # left as it was


def test_cli_reports_a_bad_cache_path_in_one_line(tmp_path, capsys):
    path, why = bad_cache(tmp_path, "text file")
    with FakeChatServer() as server:
        with pytest.raises(SystemExit) as exc:
            main(["run", "decrypto", "--agent", f"*={llm_spec(server, path)}", "--no-progress"])
        assert server.requests == []
    assert exc.value.code == 2
    assert capsys.readouterr().err == f"cluegym: error: the cache= file {path} {why} (file is not a database)\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes any file")
@pytest.mark.parametrize("mode, why", [(0o444, "is not writable"), (0o200, "is not readable")])
def test_a_cache_file_without_permission_is_refused(tmp_path, mode, why):
    path = tmp_path / "cache.sqlite"
    ResponseCache(path)
    path.chmod(mode)
    with pytest.raises(ValueError, match=f"^the cache= file {re.escape(str(path))} {why} \\(Permission denied\\)$"):
        open_cache(path)


def test_an_existing_cache_is_reused_and_a_missing_one_created(tmp_path):
    existing = tmp_path / "old.sqlite"
    key = ResponseCache.key("openai", "m", MESSAGES, Sampling())
    ResponseCache(existing).put(key, Completion("ANSWER: kept"))
    assert open_cache(existing).get(key).text == "ANSWER: kept"
    other = tmp_path / "other.sqlite"  # any SQLite database: the replies table is added to it
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE mine (x)")
    assert len(open_cache(other)) == 0
    missing = tmp_path / "new" / "folder" / "cache.sqlite"
    with FakeChatServer() as server:
        run_match("decrypto", {"*": llm_spec(server, missing)}, games=1, seed=0, progress=False)
        assert server.requests
    assert len(open_cache(missing)) > 0 and os.listdir(missing.parent) == ["cache.sqlite"]


@pytest.mark.parametrize("argv, message", [(["--port", "70000"], "--port must be 0-65535"),
                                           (["--delay", "-1"], "--delay must be >= 0")])
def test_the_fake_server_refuses_a_port_or_delay_out_of_range(argv, message, capsys):
    """``--port 70000`` gave bind()'s OverflowError traceback."""
    from cluegym.agents.llm.fake_server import main as fake_server_main

    with pytest.raises(SystemExit) as exc:
        fake_server_main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err
