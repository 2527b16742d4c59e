"""A lean HTTP/1.1 client on asyncio streams, for JSON POSTs to one endpoint (the chat backend).

The official ``openai`` client (openai -> httpx -> httpcore -> anyio) costs about 2 ms of CPU
per request on the development machine, most of it in request building, typed response
construction and the connection pool's per-request scan of every pooled connection. At 64
concurrent games that CPU, spent on one event loop, delays every reply in a burst. This
client does only what :class:`~cluegym.agents.llm.backends.openai_http.OpenAIBackend` needs
(one POST, a JSON reply) in about 0.05 ms, with the same failure semantics:

* ``timeout`` bounds connecting, writing the request and *each* read (like httpx), so a
  server that trickles its reply is bounded by the caller's deadline, not by this client;
* keep-alive connections are pooled per event loop; an idle one the server has closed (or
  idle longer than :data:`KEEPALIVE_EXPIRY_S`) is never reused; a connection that failed, timed
  out or was cancelled mid-request is closed (so the server sees the client go away);
* replies with ``Content-Length``, ``Transfer-Encoding: chunked`` or read-to-close bodies,
  ``gzip``/``deflate`` content encodings, ``http`` and ``https`` (certifi's CA bundle when
  installed, as httpx uses; ``SSL_CERT_FILE``/``SSL_CERT_DIR`` win).

Failures raise :class:`HTTPStatusError` (any status >= 400, with its body),
:class:`RequestTimeout` or :class:`ConnectionFailed` (``could_not_connect`` when nobody
answered at all); anything else about the bytes received raises :class:`ProtocolError`.

Example:
    >>> import asyncio, json
    >>> from cluegym.agents.llm.fake_server import FakeChatServer
    >>> with FakeChatServer(reply=lambda request: "Hello!") as server:  # e.g. http://127.0.0.1:8000/v1
    ...     pool = ConnectionPool(server.base_url, timeout=60)
    ...     status, headers, body = asyncio.run(
    ...         pool.post("/chat/completions", b'{"model": "m"}', {"Authorization": "Bearer x"}))
    ...     pool.close()
    >>> status, headers["content-type"], json.loads(body)["choices"][0]["message"]["content"]
    (200, 'application/json', 'Hello!')
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import ssl
import sys
import time
import urllib.parse
import urllib.request
import zlib
from typing import Any, AsyncIterator

__all__ = ["ConnectionPool", "ConnectionFailed", "HTTPStatusError", "ProtocolError", "RequestTimeout",
           "KEEPALIVE_EXPIRY_S", "uses_proxy"]

#: Seconds an idle pooled connection may wait for reuse (httpx's default): servers commonly
#: drop idle keep-alive connections after 5 s, and reusing one they are closing loses a request.
KEEPALIVE_EXPIRY_S = 5.0
#: Longest status line + headers accepted (the stream reader's limit).
MAX_HEAD_BYTES = 64 * 1024
#: Bytes asked for per body read.
READ_CHUNK = 64 * 1024


class ConnectionFailed(Exception):
    """The connection failed or was closed before a whole response arrived.

    Attributes:
        could_not_connect: nobody accepted the connection (refused, unknown host, unreachable).
    """

    def __init__(self, message: str = "Connection error.", *, could_not_connect: bool = False) -> None:
        super().__init__(message)
        self.could_not_connect = could_not_connect


class RequestTimeout(Exception):
    """Connecting, sending, or one read took longer than the pool's timeout."""


class ProtocolError(Exception):
    """The server sent bytes that are not an HTTP/1.1 response."""


class HTTPStatusError(Exception):
    """A response with status >= 400. ``str()`` is ``"Error code: <status>"``, plus
    ``" - <message>"`` when the body is JSON with an ``error.message`` (the openai client's text).

    Attributes:
        status: the HTTP status.
        headers: response headers, lower-case names.
        body: the (decoded) response body.
    """

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        message = f"Error code: {status}"
        with contextlib.suppress(Exception):  # any body: the status alone is the message then
            data = json.loads(body)
            error = data.get("error", data) if isinstance(data, dict) else None
            text = error.get("message") if isinstance(error, dict) else None
            if isinstance(text, str) and text:
                message += f" - {text}"
        super().__init__(message)


def uses_proxy(url: str) -> bool:
    """True when the environment routes ``url`` through a proxy (``HTTPS_PROXY``, ``ALL_PROXY``
    ..., not bypassed by ``NO_PROXY``): this client does not speak to proxies."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass_environment(parts.hostname or "", proxies)


if sys.version_info >= (3, 11):
    _timeout = asyncio.timeout  # a deadline on the current task: no extra task per read
else:  # pragma: no cover - Python 3.10
    @contextlib.asynccontextmanager
    async def _timeout(seconds: float) -> AsyncIterator[None]:
        # asyncio.timeout's behaviour on 3.10: cancel this task when the time is up.
        task = asyncio.current_task()
        assert task is not None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        handle = asyncio.get_running_loop().call_later(seconds, expire)
        try:
            yield
        except asyncio.CancelledError:
            if expired:
                raise TimeoutError from None
            raise
        finally:
            handle.cancel()


class _Connection:
    """One keep-alive connection: its stream pair and when it went idle."""

    __slots__ = ("reader", "writer", "idle_since")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def reusable(self, now: float) -> bool:
        # The loop has already fed the reader whatever the server sent: an idle connection
        # with bytes or EOF waiting was closed (or broken) by the server.
        return (not self.writer.is_closing() and not self.reader.at_eof() and not self.reader._buffer  # noqa: SLF001
                and now - self.idle_since <= KEEPALIVE_EXPIRY_S)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a broken transport may raise; it is gone either way
            self.writer.close()


class ConnectionPool:
    """Keep-alive HTTP/1.1 connections to the host of ``base_url``, for one event loop.

    Args:
        base_url: ``http://host[:port]/prefix`` or ``https://...``; request paths are appended
            to the prefix.
        timeout: seconds for connecting, for sending a request and for each read.
        max_idle: most idle connections kept for reuse (more are closed when released).

    Raises:
        ValueError: a URL that is not http(s) with a host.
    """

    def __init__(self, base_url: str, *, timeout: float, max_idle: int = 100) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL with a host: {base_url!r}")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.prefix = parts.path.rstrip("/")
        self.ssl: ssl.SSLContext | None = _ssl_context() if parts.scheme == "https" else None
        default_port = self.port == (443 if parts.scheme == "https" else 80)
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.host_header = host if default_port else f"{host}:{self.port}"
        self.timeout = float(timeout)
        self.max_idle = int(max_idle)
        self._idle: list[_Connection] = []

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        """POST ``body`` to ``prefix + path``; return ``(status, headers, body)`` of a 2xx/3xx reply.

        Raises:
            HTTPStatusError: status >= 400.
            RequestTimeout: connecting, sending or one read took longer than ``timeout``.
            ConnectionFailed: no connection, or it closed before the whole response came.
            ProtocolError: the reply is not HTTP/1.1 the client can read.
        """
        head = [f"POST {self.prefix}{path} HTTP/1.1", f"Host: {self.host_header}", "Accept: application/json",
                "Accept-Encoding: gzip, deflate", "Content-Type: application/json", f"Content-Length: {len(body)}"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        request = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
        conn = await self._acquire()
        keep = False
        try:
            try:
                async with _timeout(self.timeout):
                    conn.writer.write(request)
                    await conn.writer.drain()
                status, reply_headers, data, keep = await self._read_response(conn.reader)
            except TimeoutError:
                raise RequestTimeout(f"no progress in {self.timeout:g}s") from None
            except (asyncio.IncompleteReadError, ConnectionError, OSError) as exc:
                raise ConnectionFailed() from exc
            except asyncio.LimitOverrunError as exc:
                raise ProtocolError("response head too long") from exc
        finally:
            # Only a connection whose whole response was read goes back to the pool; any other
            # (an error, a timeout, a cancelled request) is closed, so the server sees us leave.
            if keep:
                self._release(conn)
            else:
                conn.close()
        if status >= 400:
            raise HTTPStatusError(status, reply_headers, data)
        return status, reply_headers, data

    async def _acquire(self) -> _Connection:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()  # the most recently used: the least likely to have expired
            if conn.reusable(now):
                return conn
            conn.close()
        try:
            async with _timeout(self.timeout):
                reader, writer = await asyncio.open_connection(
                    self.host, self.port, ssl=self.ssl, server_hostname=self.host if self.ssl else None,
                    limit=MAX_HEAD_BYTES)
        except TimeoutError:
            raise RequestTimeout(f"could not connect in {self.timeout:g}s") from None
        except OSError as exc:  # refused, unknown host, unreachable, TLS handshake failed
            raise ConnectionFailed(could_not_connect=True) from exc
        return _Connection(reader, writer)

    def _release(self, conn: _Connection) -> None:
        if len(self._idle) >= self.max_idle:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        self._idle.append(conn)

    def close(self) -> None:
        """Close the idle connections (requests in flight close theirs when they end)."""
        while self._idle:
            self._idle.pop().close()

    async def _read_response(self, reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes, bool]:
        """Status, headers (lower-case names), decoded body, and whether the connection may be reused."""
        while True:
            async with _timeout(self.timeout):
                head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            version, _, rest = lines[0].partition(" ")
            code = rest[:3]
            if not version.startswith("HTTP/1.") or not code.isdigit():
                raise ProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
            status = int(code)
            headers: dict[str, str] = {}
            for line in lines[1:]:
                if line:
                    name, sep, value = line.partition(":")
                    if not sep:
                        raise ProtocolError(f"malformed header line: {line[:80]!r}")
                    name = name.strip().lower()
                    value = value.strip()
                    headers[name] = f"{headers[name]}, {value}" if name in headers else value
            if 100 <= status < 200:  # 100 Continue and other interim replies: the real one follows
                continue
            break
        connection = headers.get("connection", "").lower()
        keep = "close" not in connection and (version == "HTTP/1.1" or "keep-alive" in connection)
        if "chunked" in headers.get("transfer-encoding", "").lower():
            data = await self._read_chunked(reader)
        elif "content-length" in headers:
            try:
                length = int(headers["content-length"])
            except ValueError:
                raise ProtocolError(f"bad Content-Length {headers['content-length'][:40]!r}") from None
            if length < 0:
                raise ProtocolError(f"bad Content-Length {length}")
            data = await self._read_exactly(reader, length)
        else:  # no framing: the body runs to the end of the connection
            parts = []
            while True:
                async with _timeout(self.timeout):
                    chunk = await reader.read(READ_CHUNK)
                if not chunk:
                    break
                parts.append(chunk)
            data, keep = b"".join(parts), False
        encoding = headers.get("content-encoding", "").lower().strip()
        if encoding in ("gzip", "deflate", "x-gzip"):
            try:
                data = zlib.decompress(data, 47)  # 32 + 15: gzip or zlib header, detected
            except zlib.error:
                if encoding != "deflate":
                    raise ProtocolError("body does not decompress") from None
                data = zlib.decompress(data, -15)  # raw deflate, as some servers send it
        elif encoding not in ("", "identity"):
            raise ProtocolError(f"unsupported Content-Encoding {encoding[:40]!r}")
        return status, headers, data, keep

    async def _read_exactly(self, reader: asyncio.StreamReader, length: int) -> bytes:
        # Read by pieces, each under the timeout: a trickling server is bounded by the caller's
        # deadline, not cut by the per-read timeout while it makes progress.
        parts = []
        while length > 0:
            async with _timeout(self.timeout):
                chunk = await reader.read(min(length, READ_CHUNK))
            if not chunk:
                raise asyncio.IncompleteReadError(b"".join(parts), None)
            parts.append(chunk)
            length -= len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    async def _read_chunked(self, reader: asyncio.StreamReader) -> bytes:
        parts = []
        while True:
            async with _timeout(self.timeout):
                line = await reader.readuntil(b"\r\n")
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ProtocolError(f"bad chunk size {size_text[:20]!r}") from None
            if size == 0:
                while True:  # trailers, up to the empty line
                    async with _timeout(self.timeout):
                        if await reader.readuntil(b"\r\n") == b"\r\n":
                            return b"".join(parts)
            parts.append(await self._read_exactly(reader, size))
            if await self._read_exactly(reader, 2) != b"\r\n":
                raise ProtocolError("chunk not followed by CRLF")


def _ssl_context() -> ssl.SSLContext:
    """The default TLS context, with the CA bundle httpx would use: ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR`` when set, else certifi's when installed, else the system's."""
    cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    if not cafile and not capath:
        with contextlib.suppress(ImportError):
            import certifi

            cafile = certifi.where()
    return ssl.create_default_context(cafile=cafile or None, capath=capath or None)


def json_body(data: Any) -> bytes:
    """``data`` as a compact UTF-8 JSON request body (NaN refused: servers reject it)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
