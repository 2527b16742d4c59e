"""The :class:`Backend` base class: ``await complete(messages, sampling)`` -> :class:`Completion`,
through the reply cache when the backend has one.

A subclass implements ``_complete`` (the request itself) and sets ``kind`` (part of the
cache key) and ``vision`` (whether image parts reach the model).

Example:
    >>> import asyncio
    >>> class Echo(Backend):
    ...     kind = "echo"
    ...     async def _complete(self, messages, sampling, on_retry=None):
    ...         return Completion(text=messages[-1]["content"])
    >>> asyncio.run(Echo("echo").complete([{"role": "user", "content": "Hi"}], Sampling())).text
    'Hi'
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from cluegym.agents.llm.backends.cache import ResponseCache
from cluegym.agents.llm.backends.messages import Completion, Message, Sampling, flatten_text


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
