"""The lean HTTP/1.1 client of the OpenAI-compatible backend, against raw asyncio servers on
127.0.0.1: response framings (Content-Length, chunked, read to close), gzip, keep-alive reuse,
connections the server closes, status errors, refused connections, and the proxy fallback."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest

from cluegym.agents.llm.backends import OpenAIBackend
from cluegym.agents.llm.backends.http11 import (
    ConnectionFailed, ConnectionPool, HTTPStatusError, ProtocolError, RequestTimeout, uses_proxy,
)


def serve(respond):
    """Run ``respond(request_bytes, connection_index) -> (bytes, close)`` as an HTTP server
    inside the current loop; returns (start coroutine factory, stats)."""
    stats = {"connections": 0, "requests": []}

    async def handle(reader, writer):
        index = stats["connections"]
        stats["connections"] += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length")), 0)
                body = await reader.readexactly(length)
                stats["requests"].append((head, body))
                data, close = respond(body, index)
                writer.write(data)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def start():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"

    return start, stats


def response(body: bytes, *, status: str = "200 OK", headers: tuple[str, ...] = (), length: bool = True) -> bytes:
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", *headers]
    if length:
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def run(coro):
    return asyncio.run(coro)


def test_framings_and_encodings_are_decoded():
    payload = json.dumps({"ok": True, "text": "x" * 3000}).encode()
    zipped = gzip.compress(payload)
    chunks = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in (zipped[:20], zipped[20:])) + b"0\r\nX-T: 1\r\n\r\n"
    replies = [
        response(payload),
        response(chunks, headers=("Transfer-Encoding: chunked", "Content-Encoding: gzip"), length=False),
        b"HTTP/1.1 100 Continue\r\n\r\n" + response(payload),
        response(payload, headers=("Connection: close",), length=False),
    ]
    start, stats = serve(lambda body, i: (replies[len(stats["requests"]) - 1], len(stats["requests"]) == len(replies)))

    async def main():
        server, url = await start()
        pool = ConnectionPool(url, timeout=2)
        out = [await pool.post("/chat/completions", b"{}", {"Authorization": "Bearer k"}) for _ in replies]
        server.close()
        return out

    out = run(main())
    assert [json.loads(body) for _, _, body in out] == [json.loads(payload)] * 4
    assert [status for status, _, _ in out] == [200] * 4
    head = stats["requests"][0][0].decode()
    assert head.startswith("POST /v1/chat/completions HTTP/1.1\r\n") and "Authorization: Bearer k" in head
    assert "Content-Length: 2" in head
    # one connection served the first three; the read-to-close body ended it
    assert stats["connections"] == 1


def test_keep_alive_reuse_and_server_closed_connections():
    payload = b'{"a": 1}'
    # the server answers, then closes every second connection after its reply
    start, stats = serve(lambda body, i: (response(payload), i % 2 == 1))

    async def main():
        server, url = await start()
        pool = ConnectionPool(url, timeout=2)
        for _ in range(3):
            await pool.post("/x", b"{}", {})
        first = stats["connections"]
        await asyncio.gather(*(pool.post("/x", b"{}", {}) for _ in range(4)))  # a burst: more connections
        await asyncio.sleep(0.05)  # the server closes connection 1 after its reply ...
        for _ in range(4):
            await pool.post("/x", b"{}", {})  # ... and a closed idle connection is never reused
        server.close()
        return first

    assert run(main()) == 1
    assert len(stats["requests"]) == 11


def test_status_errors_carry_the_openai_message_and_headers():
    body = json.dumps({"error": {"message": "slow down", "type": "rate"}}).encode()
    start, _ = serve(lambda b, i: (response(body, status="429 Too Many Requests", headers=("Retry-After: 3",)), False))

    async def main():
        server, url = await start()
        try:
            await ConnectionPool(url, timeout=2).post("/x", b"{}", {})
        finally:
            server.close()

    with pytest.raises(HTTPStatusError) as info:
        run(main())
    assert info.value.status == 429 and info.value.headers["retry-after"] == "3"
    assert str(info.value) == "Error code: 429 - slow down"
    assert str(HTTPStatusError(500, {}, b"<html>")) == "Error code: 500"


def test_broken_replies_timeouts_and_refused_connections():
    replies = {0: b"SPDY/9 200 OK\r\n\r\n", 1: b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 2: b""}
    start, _ = serve(lambda b, i: (replies[i], True))

    async def main():
        server, url = await start()
        pool = ConnectionPool(url, timeout=0.3)
        errors = []
        for _ in range(3):
            try:
                await pool.post("/x", b"{}", {})
            except Exception as exc:  # noqa: BLE001 - collected for the asserts
                errors.append(exc)
        server.close()
        # a server that accepts and never answers: the read times out
        silent = await asyncio.start_server(lambda r, w: asyncio.sleep(5), "127.0.0.1", 0)
        port = silent.sockets[0].getsockname()[1]
        try:
            await ConnectionPool(f"http://127.0.0.1:{port}", timeout=0.2).post("/x", b"{}", {})
        except RequestTimeout as exc:
            errors.append(exc)
        silent.close()
        try:
            await ConnectionPool(f"http://127.0.0.1:{port}", timeout=0.2).post("/x", b"{}", {})
        except ConnectionFailed as exc:
            errors.append(exc)
        return errors

    protocol, cut, dropped, timeout, refused = run(main())
    assert isinstance(protocol, ProtocolError)
    assert isinstance(cut, ConnectionFailed) and not cut.could_not_connect
    assert isinstance(dropped, ConnectionFailed) and not dropped.could_not_connect and str(dropped) == "Connection error."
    assert isinstance(timeout, RequestTimeout)
    assert isinstance(refused, ConnectionFailed) and refused.could_not_connect


def test_proxies_fall_back_to_the_openai_client(monkeypatch):
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert not uses_proxy("https://api.openai.com/v1")
    assert OpenAIBackend("m", base_url="http://127.0.0.1:9/v1").http_client == "lean"
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert uses_proxy("https://api.openai.com/v1") and not uses_proxy("https://127.0.0.1:8000/v1")
    assert OpenAIBackend("m", base_url="https://api.openai.com/v1").http_client == "openai"
    assert OpenAIBackend("m", base_url="https://127.0.0.1:8000/v1").http_client == "lean"
    assert OpenAIBackend("m", base_url="https://api.openai.com/v1", http_client="lean").http_client == "lean"
    with pytest.raises(ValueError, match="http_client"):
        OpenAIBackend("m", http_client="curl")
    with pytest.raises(ValueError, match="not an http"):
        ConnectionPool("ftp://example.com", timeout=1)
