"""LLM agents: the generalist (the env's own prompt), and the base every specialist builds on.

:class:`LLMAgent` is the generalist of the Decrypto paper: its prompt is the observation's
``"prompt"``, verbatim, for every game (plus the images, for Dixit), and only the answer is
read by code: by the adapter the game names in its ``GameSpec.llm_adapter``, or by the generic
adapter (:mod:`cluegym.agents.llm.adapters.generic`) from the seat's action space.
Specialists (the papers' prompts per role, CoT, CoMet, ToM probes) subclass it and override
:meth:`LLMAgent.decide`, calling :meth:`LLMAgent.ask` once per prompt step.

:meth:`LLMAgent.ask` is where robustness lives:

* the reply is parsed tolerantly; whatever it holds, it becomes a parsed value or a counted
  parse failure, and the model is re-asked with a game-master message saying why
  (``parse_retries`` times, as the Decrypto harness does); free text longer than the action
  space allows counts as unreadable too;
* when the env rejects an action (``info["error"]``), the next :meth:`act` continues the
  same conversation with the env's reason as a game-master message;
* when no usable answer comes (re-asks or HTTP retries exhausted, a non-retryable HTTP error
  such as 400/401/403/404, the ``decision_timeout`` passed), the agent raises
  :class:`~cluegym.agents.base.Forfeit` with the reason; the match harness applies the env's
  fallback for that one decision. Expiry of the deadline cancels the request in flight (its
  connection is closed, so the server stops working on it);
* a reply that failed to parse is evicted from the reply cache, so a rerun asks again;
* every call is logged (prompt, raw reply, parsed value or parse error, latency, tokens,
  cache hit, error) in :attr:`LLMAgent.calls`; the match harness stores them in the game
  record under ``record["agent_logs"][seat]`` (see :meth:`LLMAgent.drain_log`), and the live
  counters (:meth:`LLMAgent.stats`) are reported next to the match metrics. Nothing is hidden,
  and the API key is in none of it.

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> from cluegym.agents.llm.fake_server import FakeChatServer
    >>> env = cluegym.make("decrypto"); env.reset(seed=0)
    >>> obs, _, _, _, info = env.last()
    >>> with FakeChatServer() as server:  # an OpenAI-compatible stand-in for a model server
    ...     alice = make_agent(f"llm:backend=openai,base_url={server.base_url},model=fake,max_tokens=128",
    ...                        game="decrypto", seat="alice", action_space=env.action_space("alice"), seed=0)
    ...     hints = alice.act(obs, info)
    >>> hints
    ('summit', 'meadow', 'harbor')
    >>> alice.stats()["llm_calls"], alice.calls[0]["parsed"]
    (1.0, ['summit', 'meadow', 'harbor'])
    >>> # the packaged SmolLM2 runs in-process instead (slow on a CPU):
    >>> local = make_agent("llm:backend=local,max_tokens=128", game="decrypto", seat="alice",
    ...                    action_space=env.action_space("alice"), seed=0)  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import os
import concurrent.futures
import logging
import time
from types import ModuleType
from typing import Any, Awaitable, Callable, Sequence, TypeVar

import gymnasium

from cluegym.agents.base import Agent, Forfeit
from cluegym.agents.llm.adapters.generic import GenericAdapter
from cluegym.agents.llm.backends import Backend, BackendError, Completion, Message, Sampling, get_backend
from cluegym.agents.llm.backends.openai_http import HTTP_CLIENTS
from cluegym.agents.llm.call_log import MAX_LOGGED_REPLY_CHARS, CallAccounting
from cluegym.agents.llm.checks import check_llm_options, json_safe, text_bounds_error
from cluegym.agents.llm.deadline import DeadlineExpired, run_within_deadline
from cluegym.agents.llm.parsing import ParseError
from cluegym.envs.core.registry import game_spec, load_reference

# DeadlineExpired (agents.llm.deadline) and text_bounds_error (agents.llm.checks) are re-exported:
# the adapters, CoMet and tests import them from here.
__all__ = ["LLMAgent", "DeadlineExpired", "PARSE_ERROR_MESSAGE", "ENV_ERROR_MESSAGE", "game_adapter",
           "specialist_class", "text_bounds_error"]

PARSE_ERROR_MESSAGE = "GAME MASTER: I could not read your answer: {reason}. Please answer again."
ENV_ERROR_MESSAGE = (
    "GAME MASTER: Your answer was not accepted: {reason}. Please try again and follow the rules of the game."
)
#: Longest unreadable reply echoed back to the model in a re-ask (its end).
MAX_ECHOED_REPLY_CHARS = 8_000

logger = logging.getLogger(__name__)
T = TypeVar("T")


def game_adapter(game: str) -> ModuleType | None:
    """The LLM adapter module ``game`` declares (its ``GameSpec.llm_adapter``), or None when it
    declares none (the generalist then uses :class:`~cluegym.agents.llm.adapters.generic.GenericAdapter`).

    Raises:
        ValueError: an unknown game, or an adapter missing from this installation.
    """
    reference = game_spec(game).llm_adapter
    if reference is None:
        return None
    try:
        return load_reference(reference)
    except ModuleNotFoundError as exc:
        raise ValueError(f"no LLM adapter for game {game!r} in this installation ({exc.name})") from exc


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


class LLMAgent(CallAccounting, Agent):
    """The generalist LLM agent (registered as ``llm``): prompt = the observation's prompt.

    Args:
        backend: ``"local"`` (in-process, default: packaged SmolLM2-135M-Instruct, offline) or
            ``"openai"`` (any OpenAI-compatible endpoint).
        model: model name (openai) or checkpoint folder / ``.gguf`` (local; None = SmolLM2).
        base_url: endpoint, e.g. ``http://127.0.0.1:8000/v1`` (openai; default
            ``$OPENAI_BASE_URL`` or OpenAI's).
        api_key_env: environment variable holding the API key (never logged or recorded); one
            named other than the default must be set.
        temperature: sampling temperature, 0 to 2 (0 = greedy, the default: reproducible).
        top_p: nucleus sampling mass, in (0, 1].
        max_tokens: generation cap per call.
        timeout: seconds per HTTP request (openai; applied to connecting and to each read).
        max_retries: HTTP retries on 429/5xx/408/timeouts/dropped connections/unreadable
            replies (openai).
        max_in_flight: requests in flight at once to the endpoint, shared by all agents using it.
        http_client: "auto" (the lean HTTP/1.1 client, or the official ``openai`` client where
            a proxy applies), "lean" or "openai" (openai; the same requests, retries and errors).
        vision: send images to the endpoint (False describes them as text, for text-only models).
        parse_retries: re-asks with a game-master message after an unreadable reply.
        decision_timeout: seconds one decision may take in all (every prompt step, re-ask,
            HTTP retry and backoff, and the env's re-asks after a rejection); when it passes,
            the request in flight is cancelled and the agent forfeits the decision.
        cache: reply cache: None/"off", "default" (``~/.cache/cluegym/llm_cache.sqlite``) or a path.
        log_messages: store each call's full prompt in the call log (False stores a hash and
            the last message only, for long matches).
        seed: seeds the per-request sampling seeds (see :class:`~cluegym.agents.base.Agent`).

    Raises:
        ValueError: an option out of range (``temperature=nan``, ``timeout=0`` ...), an
            endpoint's option (``base_url``, ``http_client``, ``api_key_env``, ``timeout``,
            ``max_retries``, ``max_in_flight``) set with ``backend="local"``, or an
            ``api_key_env`` named and unset; one line.

    Attributes:
        calls: the call log of the current game (see :meth:`drain_log`).
        counters: the live counters behind :meth:`stats`.
    """

    games: tuple[str, ...] = ("*",)
    #: Name of the prompting style, recorded with each call.
    style: str = "generalist"

    def __init__(
        self,
        game: str,
        seat: str,
        action_space: gymnasium.Space,
        *,
        seed: int | None = None,
        backend: str = "local",
        model: str | None = None,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int = 512,
        timeout: float = 60.0,
        max_retries: int = 3,
        max_in_flight: int = 64,
        http_client: str = "auto",
        vision: bool = True,
        parse_retries: int = 2,
        decision_timeout: float = 180.0,
        cache: str | None = None,
        log_messages: bool = True,
    ) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        check_llm_options(temperature=temperature, top_p=top_p, max_tokens=max_tokens, timeout=timeout,
                          max_retries=max_retries, max_in_flight=max_in_flight, parse_retries=parse_retries,
                          decision_timeout=decision_timeout)
        self.adapter: Any = game_adapter(game) or GenericAdapter(action_space)
        options: dict[str, Any] = {}
        if http_client not in HTTP_CLIENTS:
            raise ValueError(f"http_client must be one of {', '.join(HTTP_CLIENTS)}, got {http_client!r}")
        if backend == "openai":
            if api_key_env != "OPENAI_API_KEY" and not os.environ.get(api_key_env):
                # the default may be unset (local servers need no key); a variable named on purpose
                # and unset was a typo whose requests went out as "no-key", each refused
                raise ValueError(f"api_key_env={api_key_env}: no such environment variable is set (export it, "
                                 f"or leave api_key_env out for a server that needs no key)")
            options = {"base_url": base_url, "api_key_env": api_key_env, "timeout": float(timeout),
                       "max_retries": int(max_retries), "max_in_flight": int(max_in_flight), "vision": vision,
                       "http_client": http_client}
        else:
            # Options only the endpoint's client reads: the local backend ignored them without a word.
            set_for_endpoint = [name for name, value, default in (
                ("base_url", base_url, None), ("http_client", http_client, "auto"),
                ("api_key_env", api_key_env, "OPENAI_API_KEY"), ("timeout", timeout, 60.0),
                ("max_retries", max_retries, 3), ("max_in_flight", max_in_flight, 64)) if value != default]
            if set_for_endpoint:
                are = "is an option" if len(set_for_endpoint) == 1 else "are options"
                raise ValueError(f"{', '.join(set_for_endpoint)} {are} of backend=openai (the local model "
                                 f"runs in this process)")
        self.backend: Backend = get_backend(backend, model=model, cache=cache, **options)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_tokens = int(max_tokens)
        self.parse_retries = int(parse_retries)
        self.decision_timeout = float(decision_timeout)
        self.log_messages = bool(log_messages)
        self.calls: list[dict[str, Any]] = []
        self.counters: dict[str, float] = {}
        self._decision = 0
        self._deadline: float | None = None  # time.monotonic() when the current decision must end
        self._dialogue: list[Message] | None = None
        self._env_error: str | None = None
        self._forfeited: str | None = None  # the reason, once this decision was forfeited

    # ---------------------------------------------------------------------- game loop
    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._dialogue, self._env_error, self._forfeited, self._deadline = None, None, None, None

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Synchronous :meth:`act_async`. Inside a running event loop (a notebook), the call
        runs on a helper thread with its own loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.act_async(observation, info))
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.act_async(observation, info)).result()

    async def act_async(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The action for this observation.

        Raises:
            Forfeit: no usable answer for this decision (the reason says why); the harness
                applies the env's fallback.
        """
        error = info.get("error") if isinstance(info, dict) else None
        if error and self._deadline is not None:  # the env re-asks: the same decision goes on
            self._count("env_rejections")
            if self._forfeited is not None:
                raise Forfeit(self._forfeited)  # already given up (a harness that re-asks anyway)
        else:
            self._decision += 1
            self._dialogue, self._forfeited = None, None
            self._deadline = time.monotonic() + self.decision_timeout
            self._count("decisions")
            if error:
                self._count("env_rejections")
        self._env_error = str(error) if error else None
        try:
            return await self.within_deadline(self.decide(observation, info), self._deadline - time.monotonic())
        except DeadlineExpired:
            raise self._forfeit(f"decision deadline of {self.decision_timeout:g}s passed; its work in flight "
                                "(requests included) was cancelled") from None
        except Forfeit as exc:
            raise self._forfeit(str(exc)) from exc.__cause__

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The action for this observation. The generalist: the env's prompt, verbatim."""
        messages = self.adapter.generalist_messages(observation, info, self.seat)
        return await self.ask(messages, lambda text: self.adapter.parse_action(text, observation, info, self.seat),
                              step="action")

    async def within_deadline(self, work: Awaitable[T], seconds: float) -> T:
        """Await ``work``, cancelling it (and so closing its HTTP requests) after ``seconds``.

        Also used for the work an agent does outside a decision (ToM probes after a game,
        CoMet's reflections), with ``decision_timeout`` as the bound.

        Raises:
            DeadlineExpired: the time ran out; ``work`` was cancelled.
        """
        return await run_within_deadline(work, seconds)

    # ------------------------------------------------------------------------ asking
    def sampling(self, **overrides: Any) -> Sampling:
        """Sampling for the next call; its seed comes from the agent's generator (only when
        sampling: a greedy request carries no seed, so the cache ignores it)."""
        params = {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens, **overrides}
        seed = int(self.rng.integers(2**31)) if params["temperature"] > 0 else None
        return Sampling(seed=seed, **params)

    async def ask(
        self,
        messages: Sequence[Message],
        parse: Callable[[str], Any] = lambda text: text,
        *,
        step: str = "action",
        final: bool = True,
        on_failure: Any = Forfeit,
        extra: dict[str, Any] | None = None,
        **sampling: Any,
    ) -> Any:
        """Send ``messages``, parse the reply, re-ask with the reason until it parses.

        Args:
            messages: the chat messages of this prompt step.
            parse: ``reply text -> value``; raises :class:`ParseError` with a reason the
                model can act on.
            step: the name of the prompt step (logged).
            final: this step produces the action: an env rejection of the previous action
                continues this dialogue with the env's reason, the dialogue is kept, and
                free text longer than the action space allows counts as unreadable.
            on_failure: value returned when no usable answer comes (default: raise
                :class:`~cluegym.agents.base.Forfeit`, i.e. give up this decision).
            extra: JSON fields added to this step's log entries (e.g. ToM probe metadata).
            **sampling: overrides of the agent's sampling (``max_tokens=...``).

        Raises:
            Forfeit: no usable answer and ``on_failure`` is Forfeit; and always when the
                endpoint refuses the request itself (400, 401, 403, 404 ...) or when the
                backend or the parser fails on what the endpoint sent (a bug: the reason
                names the exception type, and the log entry keeps it).
        """
        messages = list(messages)
        if final and self._env_error and self._dialogue:
            messages = self._dialogue + [{"role": "user", "content": ENV_ERROR_MESSAGE.format(reason=self._env_error)}]
            self._env_error = None  # told once; later steps of this decision start afresh
            self._count("env_error_reasks")
        last_reason = "no attempt made"
        for attempt in range(self.parse_retries + 1):
            request = self.sampling(**sampling)
            entry: dict[str, Any] = {
                "seat": self.seat, "style": self.style, "step": step, "decision": self._decision, "attempt": attempt,
                "model": self.backend.model, "backend": self.backend.kind, "messages": self._loggable(messages),
                "sampling": request.as_dict(), **(extra or {}),
            }
            completion = await self._call(messages, request, entry, step)
            if completion is None:  # retryable failures exhausted: the endpoint gave nothing usable
                if on_failure is Forfeit:
                    raise Forfeit(f"step {step!r}: no reply: {entry['error']}")
                return on_failure
            try:
                value = parse(completion.text)
                bounds = text_bounds_error(value, self.action_space) if final else None
                if bounds:
                    raise ParseError(bounds)
            except ParseError as exc:
                last_reason = self.backend.redact(str(exc))
                self._count("parse_failures")
                entry["parse_error"] = last_reason
                if self.backend.forget(completion):  # a rerun must ask again, not replay this reply
                    entry["cache_evicted"] = True
                    self._count("cache_evictions")
                self.calls.append(entry)
                messages = messages + [
                    {"role": "assistant", "content": completion.text[-MAX_ECHOED_REPLY_CHARS:]},
                    {"role": "user", "content": PARSE_ERROR_MESSAGE.format(reason=exc)},
                ]
                if attempt < self.parse_retries:
                    self._count("reasks")
                continue
            except Exception as exc:  # a parser bug met by this reply: end the decision, keep the evidence
                reason = self.backend.redact(f"{type(exc).__name__}: {_short(exc)}")
                entry["parse_error"] = reason
                self.backend.forget(completion)
                self.calls.append(entry)
                logger.warning("%s/%s: the parser of step %r failed: %s", self.game, self.seat, step, reason)
                raise Forfeit(f"step {step!r}: the parser failed on the reply ({reason})") from exc
            entry["parsed"] = json_safe(value)
            self.calls.append(entry)
            if final:
                self._dialogue = messages + [{"role": "assistant", "content": completion.text}]
            return value
        if on_failure is Forfeit:
            raise Forfeit(f"step {step!r}: no readable answer in {self.parse_retries + 1} replies; last: {last_reason}")
        return on_failure

    async def _call(self, messages: list[Message], request: Sampling, entry: dict[str, Any],
                    step: str) -> Completion | None:
        """One call to the backend, logged and counted. None when retryable failures ran out.

        Raises:
            Forfeit: the endpoint refused the request, or the backend failed on its reply.
        """
        start = time.perf_counter()
        try:
            completion = await self.backend.complete(messages, request, on_retry=self._on_retry)
        except asyncio.CancelledError:
            self._failed_call(entry, "cancelled (the decision deadline passed or the run stopped)", start)
            raise
        except BackendError as exc:
            self._failed_call(entry, self.backend.redact(str(exc)), start)
            if not exc.retryable:
                raise Forfeit(f"step {step!r}: the endpoint refused the request: {entry['error']}") from None
            return None
        except Exception as exc:  # noqa: BLE001 - a backend bug met by what the endpoint sent
            reason = self.backend.redact(f"{type(exc).__name__}: {_short(exc)}")
            self._failed_call(entry, reason, start)
            logger.warning("%s/%s: the %s backend failed: %s", self.game, self.seat, self.backend.kind, reason)
            raise Forfeit(f"step {step!r}: backend error ({reason})") from exc
        latency = float(completion.latency_s)
        self._count("llm_calls")
        self._count("cached_calls", completion.cached)
        self._count("prompt_tokens", completion.prompt_tokens or 0)
        self._count("completion_tokens", completion.completion_tokens or 0)
        self._count("llm_latency_s", latency)
        self.counters["last_latency_s"] = latency
        reply = self.backend.redact(completion.text)
        entry.update(
            reply=reply[:MAX_LOGGED_REPLY_CHARS], latency_s=round(latency, 4), prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens, cached=completion.cached, http_retries=completion.retries,
            finish_reason=completion.finish_reason,
        )
        if len(reply) > MAX_LOGGED_REPLY_CHARS:
            entry["reply_chars"] = len(reply)
        return completion

    def _forfeit(self, reason: str) -> Forfeit:
        """Count this decision as forfeited (once) and return the exception to raise."""
        reason = self.backend.redact(reason)
        if self._forfeited is None:
            self._count("forfeits")
            self._forfeited = reason
        return Forfeit(reason)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, seat={self.seat!r}, backend={self.backend!r})"


def specialist_class(game: str, seat: str) -> type[LLMAgent]:
    """The papers' prompts for ``game``/``seat`` (registered as ``llm-cot``).

    Raises:
        ValueError: the game declares no LLM adapter (the generalist ``llm`` still plays it).
    """
    adapter = game_adapter(game)
    if adapter is None:
        raise ValueError(f"no specialist (llm-cot) prompts for game {game!r}: its GameSpec names no llm_adapter; "
                         "the generalist 'llm' plays it with the generic adapter")
    return adapter.specialist_class(seat)
