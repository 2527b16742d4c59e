"""The OpenAI-compatible chat-completions backend.

It talks to any ``/v1/chat/completions`` server (OpenAI, OpenRouter, vLLM, llama.cpp's
server, Ollama, ``transformers serve``), through a lean HTTP/1.1 client
(:mod:`~cluegym.agents.llm.backends.http11`: about 0.05 ms of CPU per request against the
official ``openai`` client's 2 ms, which at 64 concurrent games delayed every reply of a
burst), or through the official async ``openai`` client where the environment names a proxy
for the endpoint (the lean client speaks to no proxy) or when asked (``http_client="openai"``).
Both behave alike: the same request body, the same retries, errors and messages. The API key is read from an environment variable
and never logged, recorded or shown in an error. Rate limits (429), server errors (5xx),
timeouts (408 and the client's own), dropped connections and unreadable replies are
retried with exponential backoff (``Retry-After`` honoured, capped); other 4xx errors (400
e.g. context length, 401, 403, 404) raise at once. A semaphore bounds the requests in
flight, shared by every agent that uses the same endpoint. Cancelling the awaiting task (a
decision deadline, a stopped run) closes the request's connection, so the server stops
working on it.

Example:
    >>> import asyncio
    >>> from cluegym.agents.llm.fake_server import FakeChatServer
    >>> with FakeChatServer(reply=lambda request: "Hello!") as server:  # a local stand-in endpoint
    ...     backend = OpenAIBackend("gpt-4o-mini", base_url=server.base_url)
    ...     completion = asyncio.run(backend.complete([{"role": "user", "content": "Hi"}], Sampling()))
    >>> completion.text, completion.completion_tokens, completion.retries
    ('Hello!', 1, 0)
    >>> server.requests[0]["model"], server.requests[0]["messages"]
    ('gpt-4o-mini', [{'role': 'user', 'content': 'Hi'}])
    >>> backend = OpenAIBackend("gpt-4o-mini", base_url="https://api.openai.com/v1")  # the real one
    >>> completion = asyncio.run(backend.complete([{"role": "user", "content": "Hi"}], Sampling()))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import math
import os
import socket
import time
import urllib.parse
import weakref
from typing import Any, Callable

import numpy as np

from cluegym.agents.llm.backends.base import Backend
from cluegym.agents.llm.backends.http11 import (
    ConnectionFailed, ConnectionPool, HTTPStatusError, RequestTimeout, json_body, uses_proxy,
)
from cluegym.agents.llm.backends.cache import ResponseCache
from cluegym.agents.llm.backends.messages import BackendError, Completion, Message, Sampling
from cluegym.agents.llm.checks import check_number, check_retries

#: Calls in a row that found nobody listening, after which a call makes one attempt only.
UNREACHABLE_AFTER = 2
#: ``http_client`` values: "auto" (lean unless a proxy applies), "lean", "openai".
HTTP_CLIENTS = ("auto", "lean", "openai")


def retryable_status(status: int) -> bool:
    """HTTP statuses worth retrying: 429 (rate limit), 408 (request timeout) and 5xx."""
    return status in (408, 429) or status >= 500


class OpenAIBackend(Backend):
    """An OpenAI-compatible chat-completions endpoint.

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
        http_client: "auto" (default: the lean client, or the official ``openai`` client when
            the environment routes the endpoint through a proxy or the URL is not http(s)),
            "lean" or "openai".

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
        http_client: str = "auto",
    ) -> None:
        if not model:
            raise ValueError("the openai backend needs a model name (model=...)")
        check_number("timeout", timeout, low=0.0, low_open=True, what="a finite number of seconds > 0")
        check_retries("max_retries", max_retries)
        check_number("max_in_flight", max_in_flight, low=1, integer=True, what="an integer >= 1")
        check_number("backoff_s", backoff_s, low=0.0, what="a finite number of seconds >= 0")
        check_number("backoff_max_s", backoff_max_s, low=0.0, what="a finite number of seconds >= 0")
        if http_client not in HTTP_CLIENTS:
            raise ValueError(f"http_client must be one of {', '.join(HTTP_CLIENTS)}, got {http_client!r}")
        if base_url is not None and not base_url.strip():
            # an empty base_url= fell back to OpenAI's own endpoint, with the API key
            raise ValueError("base_url is empty: give the endpoint (http(s)://host/v1) or leave the option out")
        super().__init__(model, cache)
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        if not _plain_http_url(self.base_url):  # else every call of the match failed after its retries
            where = "base_url" if base_url else "OPENAI_BASE_URL"
            raise ValueError(f"{where} must be an http(s)://host URL, got {self.base_url!r}")
        if http_client == "auto":
            http_client = "openai" if uses_proxy(self.base_url) else "lean"  # base_url is http(s), checked above
        #: "lean" (:mod:`.http11`) or "openai" (the official client), as chosen for this endpoint.
        self.http_client = http_client
        if http_client == "openai":
            # Loaded now (deferred from module import: it is heavy) so that the first
            # decision's deadline does not pay for it.
            importlib.import_module("openai.types.chat")
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.backoff_max_s = float(backoff_max_s)
        self.max_in_flight = int(max_in_flight)
        self.vision = bool(vision)
        self._jitter = np.random.default_rng(seed)
        # The HTTP client and the semaphore of each event loop (see _client).
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
        # The client (its connection pool) and the semaphore belong to one event loop and are
        # shared by every agent and game on it; a new loop (a new asyncio.run) gets its own,
        # so a backend can be reused across matches.
        loop = asyncio.get_running_loop()
        entry = self._per_loop.get(loop)
        if entry is None:
            client: Any
            if self.http_client == "lean":
                # Idle connections kept: as many as can be in flight, so a burst reuses them all.
                client = ConnectionPool(self.base_url, timeout=self.timeout, max_idle=max(self.max_in_flight, 100))
            else:
                from openai import AsyncOpenAI  # deferred: the openai client is heavy to import

                client = AsyncOpenAI(api_key=self._key(), base_url=self.base_url, timeout=self.timeout, max_retries=0)
            entry = (client, asyncio.Semaphore(self.max_in_flight))
            self._per_loop[loop] = entry
        return entry

    def _headers(self) -> dict[str, str]:
        """The lean client's request headers: the key (read now, never stored) and the
        organization/project the official client would send from its environment variables."""
        headers = {"Authorization": f"Bearer {self._key()}", "User-Agent": "cluegym (OpenAI-compatible client)"}
        for header, variable in (("OpenAI-Organization", "OPENAI_ORG_ID"), ("OpenAI-Project", "OPENAI_PROJECT_ID")):
            if os.environ.get(variable):
                headers[header] = os.environ[variable]
        return headers

    async def _post(self, client: Any, params: dict[str, Any], body: bytes | None) -> Any:
        """One request; the parsed JSON reply (dict) or model. Failures raise the
        :mod:`.http11` exceptions, whichever client sent it.

        Raises:
            HTTPStatusError, RequestTimeout, ConnectionFailed: see :mod:`.http11`.
        """
        if isinstance(client, ConnectionPool):
            assert body is not None
            _, headers, data = await client.post("/chat/completions", body, self._headers())
            if headers.get("content-type", "").split(";")[0].strip().endswith("json"):
                return json.loads(data)  # broken JSON is an unreadable reply (the caller retries)
            # Another content type: JSON if it parses, else the text (no choices in it), as the
            # openai client does.
            with contextlib.suppress(ValueError):
                return json.loads(data)
            return data.decode("utf-8", "replace")
        import openai  # deferred: heavy (__init__ has loaded it already)
        from openai.types.chat import ChatCompletion

        try:
            # The client's low-level post skips the typed re-validation of the messages that
            # create() does (~1 ms of CPU per call); request and reply are the same.
            return await client.post("/chat/completions", body=params, cast_to=ChatCompletion)
        except openai.APIStatusError as exc:
            response = exc.response
            raise HTTPStatusError(exc.status_code, {k.lower(): v for k, v in response.headers.items()},
                                  response.content) from None
        except openai.APITimeoutError:
            raise RequestTimeout() from None
        except openai.APIConnectionError as exc:
            raise ConnectionFailed(could_not_connect=_could_not_connect(exc)) from exc

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
        client, semaphore = self._client()
        params: dict[str, Any] = {
            "model": self.model, "messages": messages, "temperature": sampling.temperature,
            "top_p": sampling.top_p, "max_tokens": sampling.max_tokens,
        }
        if sampling.seed is not None:
            params["seed"] = int(sampling.seed) % (2**31)
        # Encoded once for all attempts (the lean client sends bytes).
        body = json_body(params) if isinstance(client, ConnectionPool) else None
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
                    response = await self._post(client, params, body)
                    unreachable = False
                    self.unreachable_streak = 0
                    text, reason = _reply_text(response)
                    usage = _field(response, "usage")
                    return Completion(
                        text=text,
                        prompt_tokens=_token_count(_field(usage, "prompt_tokens")),
                        completion_tokens=_token_count(_field(usage, "completion_tokens")),
                        latency_s=time.perf_counter() - start,
                        retries=attempt,
                        finish_reason=reason,
                    )
                except HTTPStatusError as exc:
                    unreachable = False
                    self.unreachable_streak = 0
                    status = exc.status
                    if not retryable_status(status):
                        raise BackendError(
                            self.redact(f"{self.base_url} answered HTTP {status} for model {self.model!r}: {_short(exc)}"),
                            retryable=False, status=status,
                        ) from None
                    retry_after = exc.headers.get("retry-after")
                    last_error = f"HTTP {status}: {_short(exc)}"
                except RequestTimeout:
                    unreachable = False
                    last_error = f"timeout after {self.timeout:g}s"
                except ConnectionFailed as exc:
                    unreachable = unreachable and exc.could_not_connect
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


def _plain_http_url(url: str) -> bool:
    """An ``http(s)://host...`` URL (what the lean client speaks to)."""
    parts = urllib.parse.urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _field(obj: Any, name: str) -> Any:
    """``obj[name]`` of a JSON object, ``obj.name`` of the openai client's model, else None."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _token_count(value: Any) -> int | None:
    """A usage count when it is a plausible one (a non-negative int below 10**9), else None:
    servers may send NaN, 1e400, strings or nothing, and counters must stay finite."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and 0 <= value < 10**9 else None


def _reply_text(response: Any) -> tuple[str, str | None]:
    """The text and finish reason of a chat completion (a JSON dict, or the openai client's
    model); :class:`_BadReply` when it has none."""
    choices = None if isinstance(response, (str, bytes)) else _field(response, "choices")
    if not isinstance(choices, list) or not choices:
        raise _BadReply("no choices in the reply")
    choice = choices[0]
    message = _field(choice, "message")
    content = _field(message, "content")
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, dict) else getattr(p, "text", None) for p in content]
        if not all(isinstance(p, str) for p in parts):
            raise _BadReply("reply content parts without text")
        content = "".join(parts)
    if not isinstance(content, str):
        raise _BadReply(f"reply message content is {'missing' if content is None else 'a ' + type(content).__name__}")
    reason = _field(choice, "finish_reason")
    return content, reason if isinstance(reason, str) and len(reason) <= 64 else None


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."
