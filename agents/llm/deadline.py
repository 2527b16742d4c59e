"""One bound on an LLM agent's work: await it, and cancel it (closing its requests) on time.

Example:
    >>> import asyncio
    >>> from cluegym.agents.llm.backends import Sampling, ScriptedBackend
    >>> backend = ScriptedBackend(['ANSWER: {"guess": "1-2-3"}'], delay_s=0.5)  # 0.5 s per reply
    >>> messages = [{"role": "user", "content": "Your guess?"}]
    >>> async def decide(seconds):
    ...     try:
    ...         reply = await run_within_deadline(backend.complete(messages, Sampling()), seconds)
    ...     except DeadlineExpired as error:
    ...         return f"expired after {error}"  # the request in flight was cancelled
    ...     return reply.text
    >>> asyncio.run(decide(30.0))
    'ANSWER: {"guess": "1-2-3"}'
    >>> asyncio.run(decide(0.05))
    'expired after 0.05s'
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, TypeVar

__all__ = ["DeadlineExpired", "run_within_deadline"]

T = TypeVar("T")


class DeadlineExpired(Exception):
    """The decision deadline passed; the work in flight was cancelled."""


async def run_within_deadline(work: Awaitable[T], seconds: float) -> T:
    """Await ``work``, cancelling it (and so closing its HTTP requests) after ``seconds``.

    Raises:
        DeadlineExpired: the time ran out; ``work`` was cancelled.
        asyncio.CancelledError: the caller was cancelled; ``work`` was cancelled too.
    """
    task = asyncio.ensure_future(work)
    if seconds <= 0:
        task.cancel()
    try:
        done, _ = await asyncio.wait({task}, timeout=max(seconds, 0.0))
    except asyncio.CancelledError:
        task.cancel()  # the run stops: stop the requests in flight too
        raise
    if not done:
        task.cancel()
        await asyncio.wait({task})
    if task.cancelled():
        raise DeadlineExpired(f"{seconds:g}s")
    return task.result()
