"""A tiny OpenAI-compatible chat server on 127.0.0.1, for tests and the concurrency benchmark.

It answers ``POST /v1/chat/completions`` after a fixed delay, with replies from a function,
and can be told to misbehave on chosen requests (429 with ``Retry-After``, 500, a hang past
the client's timeout, a dropped connection, a 200 whose body is not JSON), so retries and
backoff are tested against real HTTP. It is asyncio-based (keep-alive, many connections) and
runs in a background thread (:class:`FakeChatServer`) or as its own process::

    python -m cluegym.agents.llm.fake_server --port 8765 --delay 0.1

Example:
    >>> from cluegym.agents.llm.backends import OpenAIBackend, Sampling
    >>> ask = [{"role": "user", "content": "Your guess?"}]
    >>> with FakeChatServer(reply=lambda req: 'ANSWER: {"guess": "1-2-3"}', delay_s=0.05,
    ...                     script=[429]) as server:  # the first request gets a 429
    ...     backend = OpenAIBackend("fake", base_url=server.base_url)
    ...     completion = asyncio.run(backend.complete(ask, Sampling()))
    >>> completion.text, completion.retries, len(server.requests)
    ('ANSWER: {"guess": "1-2-3"}', 1, 2)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import threading
import time
from typing import Any, Callable, Sequence

#: Failure modes for :attr:`FakeChatServer.script`: an int is an HTTP status, or one of these.
MODES = ("ok", "hang", "drop", "garbage", "empty")


def decrypto_reply(request: dict[str, Any], counter: list[int] | None = None) -> str:
    """A well-formed Decrypto answer for whatever the request asks (hints or a guess),
    varied per request so that codes rarely collide with revealed ones."""
    text = "\n".join(str(m.get("content", "")) for m in request.get("messages", []))
    n = len(text)
    if counter is not None:
        n += counter[0]
        counter[0] += 1
    if '"hints"' in text or '\\"hints\\"' in text:
        words = ("breeze", "lantern", "meadow", "copper", "whisper", "harbor", "velvet", "summit")
        picks = [words[(n + 3 * i) % len(words)] for i in range(3)]
        return f'Thinking step by step... ANSWER: {{"hints": {json.dumps(picks)}}}'
    code = list(itertools.permutations(range(1, 5), 3))[n % 24]
    return 'Let me think. ANSWER: {"guess": "%d-%d-%d"}' % code


class FakeChatServer:
    """An OpenAI-compatible ``/v1/chat/completions`` server in a background thread.

    Args:
        reply: ``request JSON -> reply text`` (default: a Decrypto-shaped answer).
        delay_s: seconds before each answer (the simulated model latency).
        script: failure modes applied to requests 1, 2, ... in order (then "ok"): an HTTP
            status such as 429 or 500, or "hang" (no answer for ``hang_s``), "drop" (close
            the connection), "garbage" (200 with a non-JSON body), "empty" (200, no choices).
        retry_after: ``Retry-After`` seconds sent with a 429.
        hang_s: how long a "hang" stalls (longer than the client's timeout).
        host, port: where to listen (port 0 picks a free one).

    Attributes:
        requests: every request body received, in order.
        max_in_flight: most requests being answered at the same time.
        auth_headers: the ``Authorization`` headers received.
    """

    def __init__(self, reply: Callable[[dict[str, Any]], str] | None = None, *, delay_s: float = 0.0,
                 script: Sequence[int | str] = (), retry_after: float = 0.05, hang_s: float = 5.0,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        counter = [0]
        self.reply = reply or (lambda req: decrypto_reply(req, counter))
        self.delay_s = float(delay_s)
        self.script = list(script)
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.host = host
        self.port = port
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "FakeChatServer":
        self._thread = threading.Thread(target=self._run, name="fake-chat-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake chat server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop may have closed meanwhile
                self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> "FakeChatServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, self.host, self.port, backlog=1024))
        self.port = self._server.sockets[0].getsockname()[1]
        self._started(self._loop)
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

    def _started(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called in the server thread once it listens (subclasses schedule their limits here)."""

    async def serve_forever(self) -> None:
        """Serve in the current event loop until cancelled (the ``python -m`` entry point)."""
        self._server = await asyncio.start_server(self._handle, self.host, self.port, backlog=4096)
        self.port = self._server.sockets[0].getsockname()[1]
        print(f"fake chat server on {self.base_url} (delay {self.delay_s}s)", flush=True)
        async with self._server:
            await self._server.serve_forever()

    # ------------------------------------------------------------------- handling
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = (lines[0].split(" ") + ["", ""])[:3]
                headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                if not await self._respond(method, path, headers, body, reader, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass  # client went away, or the server is stopping
        finally:
            writer.close()

    async def _respond(self, method: str, path: str, headers: dict[str, str], body: bytes,
                       reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False closes the connection."""
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            await self._send(writer, 404, json.dumps({"error": {"message": f"no route {method} {path}"}}))
            return True
        try:
            request = json.loads(body or b"{}")
        except json.JSONDecodeError:
            await self._send(writer, 400, json.dumps({"error": {"message": "body is not JSON"}}))
            return True
        index = len(self.requests)
        self.requests.append(request)
        self.auth_headers.append(headers.get("authorization", ""))
        mode = self.script[index] if index < len(self.script) else "ok"
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if mode == "hang":
                await asyncio.sleep(self.hang_s)
                return False
            if mode == "drop":
                return False
            if isinstance(mode, int):
                extra = {"Retry-After": f"{self.retry_after:g}"} if mode == 429 else {}
                await self._send(writer, mode, json.dumps({"error": {"message": f"scripted {mode}"}}), extra)
                return True
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            if mode == "garbage":
                await self._send(writer, 200, "<html>upstream proxy hiccup</html>", content_type="text/html")
                return True
            if mode == "empty":
                await self._send(writer, 200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}))
                return True
            await self._send(writer, 200, completion_body(request, self.reply(request), index))
            return True
        finally:
            self.in_flight -= 1

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, body: str, extra: dict[str, str] | None = None,
                    content_type: str = "application/json") -> None:
        data = body.encode()
        writer.write(response_head(status, len(data), extra, content_type) + data)
        await writer.drain()


def response_head(status: int, length: int, extra: dict[str, str] | None = None,
                  content_type: str = "application/json") -> bytes:
    """The status line and headers of an HTTP/1.1 response with a body of ``length`` bytes."""
    reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
              429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "Error")
    head = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {content_type}", f"Content-Length: {length}",
            "Connection: keep-alive"]
    head += [f"{k}: {v}" for k, v in (extra or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode()


def completion_body(request: dict[str, Any], text: str, index: int = 0) -> str:
    """The JSON body of a chat completion answering ``request`` with ``text`` (usage counted
    as characters / 4)."""
    prompt_chars = len(json.dumps(request.get("messages", [])))
    payload = {
        "id": f"chatcmpl-{index}", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(text) // 4,
                  "total_tokens": prompt_chars // 4 + len(text) // 4},
    }
    return json.dumps(payload)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible chat server (fixed delay).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--delay", type=float, default=0.1, help="seconds before each answer")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:  # bind() would say it in a traceback
        parser.error(f"--port must be 0-65535 (0: any free port), got {args.port}")
    if not args.delay >= 0:
        parser.error(f"--delay must be >= 0 seconds, got {args.delay}")
    server = FakeChatServer(delay_s=args.delay, host=args.host, port=args.port)
    try:
        asyncio.run(server.serve_forever())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
