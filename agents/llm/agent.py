"""LLM agents: the generalist (the env's own prompt), and the base every specialist builds on.

:class:`LLMAgent` is the generalist of the Decrypto paper: its prompt is the observation's
``"prompt"``, verbatim, for every game (plus the images, for Dixit), and only the answer is
read by code. Specialists (the papers' prompts per role, CoT, CoMet, ToM probes) subclass it
and override :meth:`LLMAgent.decide`, calling :meth:`LLMAgent.ask` once per prompt step.

:meth:`LLMAgent.ask` is where robustness lives:

* the reply is parsed tolerantly; when it cannot be read, the model is re-asked with a
  game-master message saying why (``parse_retries`` times, as the Decrypto harness does);
* when the env rejects an action (``info["error"]``), the next :meth:`act` continues the
  same conversation with the env's reason as a game-master message;
* when the model still gives no usable answer, the agent submits no action (``None``); the
  env rejects it and, after its ``max_retries``, applies its documented fallback;
* every call is logged (prompt, raw reply, parsed value or parse error, latency, tokens,
  cache hit) in :attr:`LLMAgent.calls`; the match harness stores them in the game record
  under ``record["agent_logs"][seat]`` (see :meth:`LLMAgent.drain_log`), and the counters
  (calls, parse failures, re-asks, give-ups, env rejections, backend failures, tokens) are
  reported by :meth:`LLMAgent.stats` next to the match metrics. Nothing is hidden.

Example:
    >>> from cluegym.agents import make_agent
    >>> env = cluegym.make("decrypto"); env.reset(seed=0)
    >>> alice = make_agent("llm:backend=local,max_tokens=128", game="decrypto", seat="alice",
    ...                    action_space=env.action_space("alice"), seed=0)
    >>> obs, _, _, _, info = env.last()
    >>> hints = alice.act(obs, info)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import importlib
import json
import time
from typing import Any, Callable, Sequence

import gymnasium

from cluegym.agents.base import Agent
from cluegym.agents.llm.backends import Backend, BackendError, Message, Sampling, get_backend, strip_images
from cluegym.agents.llm.parsing import ParseError
from cluegym.envs.core.record import to_jsonable

#: Game adapters (prompt building and answer parsing per game). One line per game.
GAME_ADAPTERS: dict[str, str] = {
    "decrypto": "cluegym.agents.llm.prompts.decrypto",
    "undercover": "cluegym.agents.llm.prompts.undercover",
    "taboo": "cluegym.agents.llm.prompts.taboo",
    "dixit": "cluegym.agents.llm.prompts.dixit",
}

PARSE_ERROR_MESSAGE = "GAME MASTER: I could not read your answer: {reason}. Please answer again."
ENV_ERROR_MESSAGE = (
    "GAME MASTER: Your answer was not accepted: {reason}. Please try again and follow the rules of the game."
)


class GiveUp(Exception):
    """No usable answer after the allowed re-asks (or the endpoint failed): submit nothing."""


def game_adapter(game: str):
    """The prompt/parsing module of ``game`` (see :data:`GAME_ADAPTERS`).

    Raises:
        ValueError: the game has no LLM adapter in this installation.
    """
    if game not in GAME_ADAPTERS:
        raise ValueError(f"no LLM prompts for game {game!r}; games: {', '.join(sorted(GAME_ADAPTERS))}")
    try:
        return importlib.import_module(GAME_ADAPTERS[game])
    except ModuleNotFoundError as exc:
        raise ValueError(f"no LLM prompts for game {game!r} in this installation ({exc.name})") from exc


class LLMAgent(Agent):
    """The generalist LLM agent (registered as ``llm``): prompt = the observation's prompt.

    Args:
        backend: ``"local"`` (in-process, default: packaged SmolLM2-135M-Instruct, offline) or
            ``"openai"`` (any OpenAI-compatible endpoint).
        model: model name (openai) or checkpoint folder / ``.gguf`` (local; None = SmolLM2).
        base_url: endpoint, e.g. ``http://127.0.0.1:8000/v1`` (openai; default
            ``$OPENAI_BASE_URL`` or OpenAI's).
        api_key_env: environment variable holding the API key (never logged or recorded).
        temperature: sampling temperature (0 = greedy, the default: reproducible).
        top_p: nucleus sampling mass.
        max_tokens: generation cap per call.
        timeout: seconds per HTTP request (openai).
        max_retries: HTTP retries on 429/5xx/timeouts/unreadable replies (openai).
        max_in_flight: requests in flight at once to the endpoint, shared by all agents using it.
        vision: send images to the endpoint (False describes them as text, for text-only models).
        parse_retries: re-asks with a game-master message after an unreadable reply.
        cache: reply cache: None/"off", "default" (``~/.cache/cluegym/llm_cache.sqlite``) or a path.
        log_messages: store each call's full prompt in the call log (False stores a hash and
            the last message only, for long matches).
        seed: seeds the per-request sampling seeds (see :class:`~cluegym.agents.base.Agent`).

    Attributes:
        calls: the call log of the current game (see :meth:`drain_log`).
    """

    games: tuple[str, ...] = tuple(GAME_ADAPTERS)
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
        timeout: float = 120.0,
        max_retries: int = 6,
        max_in_flight: int = 64,
        vision: bool = True,
        parse_retries: int = 2,
        cache: str | None = None,
        log_messages: bool = True,
    ) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        if temperature < 0 or not 0 < top_p <= 1 or max_tokens < 1 or parse_retries < 0:
            raise ValueError("need temperature >= 0, 0 < top_p <= 1, max_tokens >= 1, parse_retries >= 0")
        self.adapter = game_adapter(game)
        options: dict[str, Any] = {}
        if backend == "openai":
            options = {"base_url": base_url, "api_key_env": api_key_env, "timeout": timeout,
                       "max_retries": max_retries, "max_in_flight": max_in_flight, "vision": vision}
        elif base_url is not None:
            raise ValueError("base_url is an option of backend=openai")
        self.backend: Backend = get_backend(backend, model=model, cache=cache, **options)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_tokens = int(max_tokens)
        self.parse_retries = int(parse_retries)
        self.log_messages = bool(log_messages)
        self.calls: list[dict[str, Any]] = []
        self.counters: dict[str, float] = {}
        self._decision = 0
        self._dialogue: list[Message] | None = None
        self._env_error: str | None = None
        self._gave_up = False

    # ---------------------------------------------------------------------- game loop
    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._dialogue, self._env_error, self._gave_up = None, None, False

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
        error = info.get("error") if isinstance(info, dict) else None
        if error:
            self._count("env_rejections")
            if self._gave_up:
                # Already out of answers for this decision: let the env reach its fallback.
                self._count("fallback_requests")
                return None
        else:
            self._decision += 1
            self._dialogue, self._gave_up = None, False
            self._count("decisions")
        self._env_error = str(error) if error else None
        try:
            return await self.decide(observation, info)
        except GiveUp:
            self._gave_up = True
            self._count("give_ups")
            return None

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The action for this observation. The generalist: the env's prompt, verbatim."""
        messages = self.adapter.generalist_messages(observation, info, self.seat)
        return await self.ask(messages, lambda text: self.adapter.parse_action(text, observation, info, self.seat),
                              step="action")

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
        on_failure: Any = GiveUp,
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
                continues this dialogue with the env's reason, and the dialogue is kept.
            on_failure: value returned when no usable answer comes (default: raise
                :class:`GiveUp`, i.e. submit nothing for this decision).
            extra: JSON fields added to this step's log entries (e.g. ToM probe metadata).
            **sampling: overrides of the agent's sampling (``max_tokens=...``).

        Raises:
            GiveUp: no usable answer and ``on_failure`` is GiveUp.
            BackendError: the endpoint refused the request itself (bad key, unknown model).
        """
        messages = list(messages)
        if final and self._env_error and self._dialogue:
            messages = self._dialogue + [{"role": "user", "content": ENV_ERROR_MESSAGE.format(reason=self._env_error)}]
            self._env_error = None  # told once; later steps of this decision start afresh
            self._count("env_error_reasks")
        for attempt in range(self.parse_retries + 1):
            request = self.sampling(**sampling)
            entry: dict[str, Any] = {
                "seat": self.seat, "style": self.style, "step": step, "decision": self._decision, "attempt": attempt,
                "model": self.backend.model, "backend": self.backend.kind, "messages": self._loggable(messages),
                "sampling": request.as_dict(), **(extra or {}),
            }
            start = time.perf_counter()
            try:
                completion = await self.backend.complete(messages, request)
            except BackendError as exc:
                entry.update(error=str(exc), latency_s=time.perf_counter() - start)
                self.calls.append(entry)
                if not exc.retryable:
                    raise
                self._count("backend_failures")
                if on_failure is GiveUp:
                    raise GiveUp(str(exc)) from None
                return on_failure
            self._count("llm_calls")
            self._count("cached_calls", completion.cached)
            self._count("http_retries", completion.retries)
            self._count("prompt_tokens", completion.prompt_tokens or 0)
            self._count("completion_tokens", completion.completion_tokens or 0)
            self._count("llm_latency_s", completion.latency_s)
            entry.update(
                reply=completion.text, latency_s=round(completion.latency_s, 4), prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens, cached=completion.cached, http_retries=completion.retries,
                finish_reason=completion.finish_reason,
            )
            try:
                value = parse(completion.text)
            except ParseError as exc:
                self._count("parse_failures")
                entry["parse_error"] = str(exc)
                self.calls.append(entry)
                messages = messages + [
                    {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": PARSE_ERROR_MESSAGE.format(reason=exc)},
                ]
                if attempt < self.parse_retries:
                    self._count("reasks")
                continue
            entry["parsed"] = to_jsonable(value)
            self.calls.append(entry)
            if final:
                self._dialogue = messages + [{"role": "assistant", "content": completion.text}]
            return value
        if on_failure is GiveUp:
            raise GiveUp(f"no usable answer for step {step!r}")
        return on_failure

    # ---------------------------------------------------------------------- reporting
    def _loggable(self, messages: list[Message]) -> list[Message]:
        shown = strip_images(messages)
        if self.log_messages:
            return shown
        digest = hashlib.sha1(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]
        return [{"role": "digest", "content": f"sha1:{digest} ({len(shown)} messages)"}, shown[-1]]

    def _count(self, key: str, amount: float = 1.0) -> None:
        self.counters[key] = self.counters.get(key, 0.0) + float(amount)

    def stats(self) -> dict[str, float]:
        """Counters of this agent since it was built: ``decisions``, ``llm_calls``,
        ``parse_failures``, ``reasks``, ``give_ups`` (decisions left to the env fallback),
        ``env_rejections``, ``backend_failures``, ``http_retries``, ``cached_calls``, tokens
        and latency. The match harness sums them over games."""
        keys = ("decisions", "llm_calls", "parse_failures", "reasks", "give_ups", "env_rejections",
                "backend_failures", "http_retries", "cached_calls", "prompt_tokens", "completion_tokens", "llm_latency_s")
        return {k: self.counters.get(k, 0.0) for k in keys} | {k: v for k, v in self.counters.items() if k not in keys}

    def drain_log(self) -> list[dict[str, Any]]:
        """The calls logged since the last drain, removed from the agent (the match harness
        stores them in ``record["agent_logs"][seat]``)."""
        calls, self.calls = self.calls, []
        return calls

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, seat={self.seat!r}, backend={self.backend!r})"


def specialist_class(game: str, seat: str) -> type[LLMAgent]:
    """The papers' prompts for ``game``/``seat`` (registered as ``llm-cot``)."""
    return game_adapter(game).specialist_class(seat)
