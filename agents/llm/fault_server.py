"""A fault-injecting OpenAI-compatible chat server on 127.0.0.1, for tests.

It serves ``POST /v1/chat/completions`` like :class:`~cluegym.agents.llm.fake_server.FakeChatServer`
(whose structure it reuses), but each request gets a *fault* chosen by a script, so that every
way an endpoint can misbehave is tested against real HTTP and the real openai client.

API (all a test needs)::

    with serve_faults(["ok", "nan", 503, "hang"], hang_s=5) as server:   # cycle of faults
        spec = f"llm:backend=openai,base_url={server.base_url},model=m,timeout=0.5"
        ...                                   # play; str(server) is the base URL too
    server.records                            # one ServedRequest per request, in arrival order
    server.auth_headers                       # the Authorization headers received (the key is sent)
    server.wait_for(lambda s: s.records[0].client_disconnected, timeout=2)

* ``faults``: a sequence, cycled over the requests in arrival order, or a rule
  ``(index, request_json) -> fault`` (see :func:`once` for "these faults, then ok").
* A fault is one of :data:`FAULTS` (reply-text faults, HTTP-body faults, connection faults) or
  an HTTP status (400-599; 429 and 503 carry ``Retry-After: retry_after``).
* ``reply``: ``request_json -> text`` for valid answers; the default, :func:`any_game_reply`,
  answers every prompt step of every game's LLM agents plausibly.
* Bounded: it listens on 127.0.0.1 only, stops itself after ``max_requests`` requests (later
  ones get their connection closed) or ``max_lifetime_s`` seconds, and every wait ends then.
* :class:`ServedRequest` records: arrival index, fault, request body, Authorization header,
  times, outcome, and ``client_disconnected`` (the client closed the connection while the
  server was still working on the request: how a cancelled request shows).

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> env = cluegym.make("decrypto"); env.reset(seed=0)
    >>> obs, _, _, _, info = env.last()
    >>> with serve_faults(once(500, "nan")) as server:  # a 500, then a NaN answer, then ok
    ...     agent = make_agent(f"llm:backend=openai,base_url={server},model=m", game="decrypto", seat="alice",
    ...                        action_space=env.action_space("alice"), seed=0)
    ...     hints = agent.act(obs, info)
    >>> [(record.fault, record.outcome) for record in server.records]
    [(500, 'HTTP 500'), ('nan', 'HTTP 200'), ('ok', 'HTTP 200')]
    >>> hints, agent.stats()["http_retries"], agent.stats()["parse_failures"]
    (('whisper', 'summit', 'meadow'), 1.0, 1.0)
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import json
import re
import time
from typing import Any, Callable, Iterator, Sequence

from cluegym.agents.llm.fake_server import FakeChatServer, completion_body, decrypto_reply, response_head

Fault = str | int
FaultRule = Callable[[int, dict[str, Any]], Fault]

#: The named faults and what the server does for each.
FAULTS: dict[str, str] = {
    "ok": "200, a valid answer from `reply`",
    "slow": "like ok, after `slow_s` seconds",
    "trickle": "like ok, but the body is sent a few bytes every `trickle_s` seconds",
    "nan": 'answer text with NaN for every answer field: ANSWER: {"guess": NaN, ...}',
    "inf": "the same with Infinity",
    "-inf": "the same with -Infinity",
    "1e400": "the same with 1e400 (overflows a float)",
    "hugeint": 'a 5,000-digit integer, and "player_<5000 nines>" as the vote',
    "negative": "-1 for every number",
    "fraction": "2.5 for every number",
    "wrongtype": "objects where strings or numbers belong",
    "deep": "an answer nested 3,000 deep",
    "giant": "`giant_chars` characters of prose, then a valid answer",
    "body_nan": "200 whose JSON body has NaN content and NaN/1e400 usage",
    "body_deep": "200 whose JSON body is nested 3,000 deep",
    "garbage": "200 whose body is not JSON",
    "empty": "200 with no choices",
    "hang": "no answer for `hang_s` seconds, then the connection is closed",
    "drop": "the connection is closed before any byte is sent",
    "drop_mid": "the headers and half the body are sent, then the connection is closed",
}
#: The answer fields of every game's prompts (hostile values go into all of them).
ANSWER_KEYS = ("hints", "guess", "vote", "description", "utterance", "answer", "card", "clue", "keywords", "revision",
               "feature", "features", "beliefs", "identity", "strategy", "hypotheses")
DEEP = 3000


def hostile_reply(fault: str, valid: str = "", giant_chars: int = 2_000_000) -> str:
    """The reply text a reply-text fault serves (``valid`` is the ok answer, for ``giant``)."""
    def answer(value: str, vote: str | None = None) -> str:
        fields = ", ".join(f'"{k}": {vote if k == "vote" and vote else value}' for k in ANSWER_KEYS)
        return "Let me think about it. ANSWER: {" + fields + "}"

    nines = "9" * 5000
    values = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity", "1e400": "1e400", "negative": "-1",
              "fraction": "2.5", "wrongtype": '{"nested": [1, {"x": null}]}'}
    if fault in values:
        return answer(values[fault])
    if fault == "hugeint":
        return answer(nines, vote=f'"player_{nines}"')
    if fault == "deep":
        return answer("[" * DEEP + "1" + "]" * DEEP)
    if fault == "giant":
        prose = "The river bends past the old mill and the wind keeps talking. "
        return (prose * (giant_chars // len(prose) + 1))[:giant_chars] + "\n" + valid
    raise ValueError(f"{fault!r} is not a reply-text fault")


def once(*faults: Fault, then: Fault = "ok") -> FaultRule:
    """A rule serving ``faults`` to the first requests in order, then ``then`` forever."""
    return lambda index, request: faults[index] if index < len(faults) else then


@dataclasses.dataclass
class ServedRequest:
    """One request as the server saw it.

    Attributes:
        index: arrival order, from 0.
        fault: what it was served.
        body: the request JSON (model, messages, sampling).
        authorization: its ``Authorization`` header (where the API key belongs).
        received_s, finished_s: ``time.monotonic()`` at arrival and when the server was done.
        outcome: e.g. ``"HTTP 200"``, ``"HTTP 503"``, ``"hung"``, ``"dropped"``.
        client_disconnected: the client closed the connection before the server finished.
    """

    index: int
    fault: Fault
    body: dict[str, Any]
    authorization: str = dataclasses.field(repr=False)  # the API key: not in reprs or test output
    received_s: float = 0.0
    finished_s: float | None = None
    outcome: str = "in progress"
    client_disconnected: bool = False


class FaultServer(FakeChatServer):
    """The fault-injecting server (see the module docstring); use :func:`serve_faults`.

    Args:
        faults: a sequence of faults cycled over requests, or a rule ``(index, request) -> fault``.
        reply: ``request JSON -> text`` for valid answers (default :func:`any_game_reply`).
        delay_s: seconds before every answer (model latency).
        slow_s, hang_s, trickle_s: durations of the ``slow``, ``hang`` and ``trickle`` faults.
        retry_after: ``Retry-After`` seconds sent with 429 and 503.
        giant_chars: length of the ``giant`` reply.
        max_requests: requests served before the server stops itself.
        max_lifetime_s: seconds before the server stops itself.
        host: a loopback address (only 127.0.0.1/::1 are accepted).
        port: 0 picks a free one.

    Raises:
        ValueError: an unknown fault name, or a host that is not loopback.
    """

    def __init__(self, faults: Sequence[Fault] | FaultRule = ("ok",), *, reply: Callable[[dict[str, Any]], str] | None = None,
                 delay_s: float = 0.0, slow_s: float = 1.0, hang_s: float = 30.0, trickle_s: float = 0.2,
                 retry_after: float = 0.05, giant_chars: int = 2_000_000, max_requests: int = 10_000,
                 max_lifetime_s: float = 300.0, host: str = "127.0.0.1", port: int = 0) -> None:
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"the fault server listens on loopback only, not {host!r}")
        if not callable(faults):
            faults = list(faults)
            for fault in faults:
                check_fault(fault)
            if not faults:
                raise ValueError("give at least one fault (e.g. 'ok')")
        super().__init__(reply or any_game_reply, delay_s=delay_s, retry_after=retry_after, hang_s=hang_s, host=host,
                         port=port)
        self.faults = faults
        self.slow_s, self.trickle_s, self.giant_chars = float(slow_s), float(trickle_s), int(giant_chars)
        self.max_requests, self.max_lifetime_s = int(max_requests), float(max_lifetime_s)
        self.records: list[ServedRequest] = []
        self.stopped = False

    def __str__(self) -> str:
        return self.base_url

    def fault_for(self, index: int, request: dict[str, Any]) -> Fault:
        """The fault request ``index`` gets."""
        fault = self.faults(index, request) if callable(self.faults) else self.faults[index % len(self.faults)]
        return check_fault(fault)

    def wait_for(self, predicate: Callable[["FaultServer"], bool], timeout: float = 5.0) -> bool:
        """Poll ``predicate(server)`` until it holds (True) or ``timeout`` passes (False)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate(self):
                return True
            time.sleep(0.01)
        return bool(predicate(self))

    # ------------------------------------------------------------------ lifecycle
    def _started(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.call_later(self.max_lifetime_s, self._stop_now)

    def _stop_now(self) -> None:
        self.stopped = True
        if self._loop is not None:
            self._loop.stop()

    # ------------------------------------------------------------------- handling
    async def _respond(self, method: str, path: str, headers: dict[str, str], body: bytes,
                       reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            return await super()._respond(method, path, headers, body, reader, writer)
        index = len(self.records)
        if index >= self.max_requests:
            self._stop_now()
            return False
        try:
            request = json.loads(body or b"{}")
        except (json.JSONDecodeError, RecursionError, UnicodeDecodeError):
            request = {}
        fault = self.fault_for(index, request)
        record = ServedRequest(index, fault, request, headers.get("authorization", ""), time.monotonic())
        self.records.append(record)
        self.requests.append(request)
        self.auth_headers.append(record.authorization)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            keep, record.outcome = await self._serve(fault, request, index, reader, writer, record)
            return keep
        except (ConnectionError, asyncio.IncompleteReadError):
            record.client_disconnected, record.outcome = True, "client disconnected"
            return False
        finally:
            record.finished_s = time.monotonic()
            self.in_flight -= 1

    async def _serve(self, fault: Fault, request: dict[str, Any], index: int, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter, record: ServedRequest) -> tuple[bool, str]:
        """Serve ``fault``; (keep the connection open, outcome)."""
        if fault == "hang":
            if await self._wait(reader, self.hang_s, record):
                return False, "client disconnected"
            return False, "hung"
        if fault == "drop":
            return False, "dropped"
        if isinstance(fault, int):
            extra = {"Retry-After": f"{self.retry_after:g}"} if fault in (429, 503) else {}
            await self._send(writer, fault, json.dumps({"error": {"message": f"injected HTTP {fault}",
                                                                  "type": "fault", "code": fault}}), extra)
            return True, f"HTTP {fault}"
        delay = self.delay_s + (self.slow_s if fault == "slow" else 0.0)
        if delay and await self._wait(reader, delay, record):
            return False, "client disconnected"
        if fault == "garbage":
            await self._send(writer, 200, "<html>upstream proxy hiccup</html>", content_type="text/html")
            return True, "HTTP 200 (not JSON)"
        if fault == "empty":
            await self._send(writer, 200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}))
            return True, "HTTP 200 (no choices)"
        if fault == "body_nan":
            body = ('{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": NaN, '
                    '"message": {"role": "assistant", "content": NaN}}], '
                    '"usage": {"prompt_tokens": NaN, "completion_tokens": 1e400}}')
            await self._send(writer, 200, body)
            return True, "HTTP 200 (NaN body)"
        if fault == "body_deep":
            await self._send(writer, 200, '{"choices": ' + "[" * DEEP + "]" * DEEP + "}")
            return True, "HTTP 200 (deep body)"
        valid = self.reply(request)
        text = valid if fault in ("ok", "slow", "trickle", "drop_mid") else hostile_reply(str(fault), valid, self.giant_chars)
        data = completion_body(request, text, index).encode()
        if fault == "drop_mid":
            writer.write(response_head(200, len(data)) + data[: len(data) // 2])
            await writer.drain()
            return False, "dropped mid-response"
        if fault == "trickle":
            writer.write(response_head(200, len(data)))
            for start in range(0, len(data), 16):
                writer.write(data[start:start + 16])
                await writer.drain()
                if await self._wait(reader, self.trickle_s, record):
                    return False, "client disconnected"
            return True, "HTTP 200 (trickled)"
        writer.write(response_head(200, len(data)) + data)
        await writer.drain()
        return True, "HTTP 200"

    @staticmethod
    async def _wait(reader: asyncio.StreamReader, seconds: float, record: ServedRequest) -> bool:
        """Wait up to ``seconds``; True (and recorded) when the client closed the connection."""
        try:
            data = await asyncio.wait_for(reader.read(1), timeout=seconds)
        except asyncio.TimeoutError:
            return False
        if data == b"":
            record.client_disconnected = True
            return True
        return False  # clients do not pipeline; a stray byte is ignored


def check_fault(fault: Fault) -> Fault:
    """``fault`` if it is a known fault name or an HTTP status 400-599.

    Raises:
        ValueError: otherwise (the message lists the faults).
    """
    if isinstance(fault, int) and not isinstance(fault, bool) and 400 <= fault <= 599:
        return fault
    if isinstance(fault, str) and fault in FAULTS:
        return fault
    raise ValueError(f"unknown fault {fault!r}; faults: an HTTP status 400-599 or one of {', '.join(FAULTS)}")


@contextlib.contextmanager
def serve_faults(faults: Sequence[Fault] | FaultRule = ("ok",), **options: Any) -> Iterator[FaultServer]:
    """Run a :class:`FaultServer` for the duration of a ``with`` block.

    Yields the started server: ``server.base_url`` (also ``str(server)``) is what agents take
    as ``base_url``; ``server.records`` what it served. Options as :class:`FaultServer`.

    Example:
        >>> from cluegym.agents import run_match
        >>> with serve_faults([503, "ok"], retry_after=0.01) as server:  # 503 carries Retry-After
        ...     summary = run_match("decrypto", {"*": f"llm:backend=openai,base_url={server},model=m"},
        ...                         games=2, seed=0, progress=False)
        >>> summary["ok"], summary["metrics"]["forfeits"], len(server.records)
        (True, 0.0, 24)
        >>> sorted({record.outcome for record in server.records})
        ['HTTP 200', 'HTTP 503']
    """
    server = FaultServer(faults, **options)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# ----------------------------------------------------------------------- valid replies
def _texts(request: dict[str, Any]) -> list[str]:
    out = []
    for message in request.get("messages", []) if isinstance(request, dict) else []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            out.append("\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"))
        else:
            out.append(str(content or ""))
    return out or [""]


def any_game_reply(request: dict[str, Any]) -> str:
    """A plausible, readable answer for any prompt step of any game's LLM agents (generalist,
    specialists, CoMet modules, ToM probes); varied by the prompt's length. Unknown prompts
    get an unreadable ``"I am not sure."``."""
    texts = _texts(request)
    last, everything = texts[-1], "\n".join(texts)
    n = len(everything)
    seat_options = re.search(r"(?:one of|other than yourself): ((?:player_\d+(?:, )?)+)", last)
    if "(Feature Extractor)" in last:
        return 'ANSWER: {"features": {"player_1": {"category": "broad", "feature": "round"}}, "other_word": "unknown"}'
    if "(Hypothesis-based Metaphor Reasoner)" in last:
        return 'ANSWER: {"hypotheses": {"player_1": "H0"}}'
    if "(Belief Mapper)" in last:
        return 'ANSWER: {"beliefs": {"player_1": "undecided"}}'
    if "(Self-Monitor)" in last:
        return 'ANSWER: {"identity": "civilian", "confidence": 60, "reason": "most players are civilians"}'
    if "(Strategy Planner)" in last:
        return 'ANSWER: {"strategy": "stay vague", "describe": "my_word", "reminder": "listen"}'
    if "(Metaphor Generator, step 1)" in last:
        return 'ANSWER: {"feature": "shape", "method": "spatial"}'
    if "revise this metaphor" in last:
        return 'ANSWER: {"revision": "Make the picture a little more concrete."}'
    if seat_options:
        options = seat_options.group(1).split(", ")
        return 'ANSWER: {"vote": "%s"}' % options[n % len(options)]
    if '"description"' in last:
        return 'ANSWER: {"description": "Something you may meet on an ordinary day, number %d."}' % (n % 97)
    if "<FOCUS>" in last:
        return "<RESPONSE><FOCUS>daily life</FOCUS><DISTRACT>travel</DISTRACT><DIALOGUE>What did you do last weekend?</DIALOGUE></RESPONSE>"
    if "<CANDIDATE>" in last:
        return "<RESPONSE><STRATEGY>continue</STRATEGY><CANDIDATE>walk</CANDIDATE><DIALOGUE>I went for a long walk.</DIALOGUE></RESPONSE>"
    if '"utterance"' in last:
        return 'ANSWER: {"utterance": "Let us talk about an ordinary afternoon, part %d.", "guess": ""}' % (n % 97)
    if '"clue"' in last:
        return '{"reasoning": "a mood", "card": "1", "clue": "a quiet storm"}'
    if "numerical rating" in last:
        return '{"reasoning": "fits", "answer": "%d"}' % (n % 101)
    if "candidate number" in last:
        own = re.search(r"Candidate (\d+)[^\n]*your own", last)
        return '{"reasoning": "best", "answer": "%d"}' % (2 if own and own.group(1) == "1" else 1)
    if "crafted Dixit description" in last:
        return '{"reasoning": "r", "answer": "the lighthouse dreams"}'
    if "card number" in last:
        return '{"reasoning": "r", "answer": "1"}'
    if "prediction of the Interceptor" in last:
        return 'ANSWER: {"guess": "1-2-3"}'
    if re.search(r'\\?"keywords\\?"\s*:', last):
        return 'ANSWER: {"keywords": ["fruit", "water", "music", "fort"]}'
    if "Decrypto" in everything or "Interceptor" in everything:
        # what is asked is in the prompts, not in the model's earlier (possibly hostile) replies
        asked = [m for m in request.get("messages", []) if isinstance(m, dict) and m.get("role") != "assistant"]
        return decrypto_reply({"messages": asked})
    return "I am not sure."

