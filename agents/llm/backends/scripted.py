"""A backend that answers from a list or a function, with no model: tests and dry runs.

Example:
    >>> backend = ScriptedBackend(['ANSWER: {"guess": "1-2-3"}'])
    >>> asyncio.run(backend.complete([{"role": "user", "content": "Guess"}], Sampling())).text
    'ANSWER: {"guess": "1-2-3"}'
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable, Sequence

from cluegym.agents.llm.backends.base import Backend
from cluegym.agents.llm.backends.cache import ResponseCache
from cluegym.agents.llm.backends.messages import Completion, Message, Sampling


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
