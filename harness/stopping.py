"""Stopping a run of concurrent games cleanly when one of them raises KeyboardInterrupt or SystemExit.

asyncio re-raises a ``KeyboardInterrupt`` or ``SystemExit`` raised inside a task straight out
of the event loop, past whatever awaits that task (a ``gather``). The task that gathered the
games then ends later, while :func:`asyncio.run` cancels what is left, with the exception set
and never retrieved, and asyncio logs "Task exception was never retrieved" whenever the garbage
collector frees it: a finalizer that formats a traceback at a random later moment (on CPython
3.11 it can even break an ``ast.parse`` running then, with "AST constructor recursion depth
mismatch"). Such a stop comes from an agent's own code or a non-main thread (a Ctrl-C in the main
thread reaches :func:`asyncio.run` as a cancellation, which needs none of this).

:class:`GameSlots` plays the games (at most ``concurrency`` at once) and turns such a stop
into an ordinary exception inside the game's task, so it travels the usual way (``gather`` raises
it, ``finally`` blocks cancel the other games); once any game has raised, no waiting game starts
(a game whose agents never await would otherwise play to its end before the cancellation lands).
:func:`run_carrying_stops` re-raises the original stop once the loop is closed.

Example:
    >>> import asyncio
    >>> played = []
    >>> async def game(i):
    ...     if i == 2:
    ...         raise KeyboardInterrupt
    ...     played.append(i)
    >>> async def games():
    ...     slots = GameSlots(concurrency=1)
    ...     await asyncio.gather(*(slots.play(lambda i=i: game(i)) for i in range(4)))
    >>> try:
    ...     run_carrying_stops(games())
    ... except KeyboardInterrupt:
    ...     print("stopped after", played)
    stopped after [0, 1]
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class CarriedStop(Exception):
    """A KeyboardInterrupt or SystemExit raised in a task, carried as an ordinary exception.

    Attributes:
        stop: the original exception, which :func:`run_carrying_stops` re-raises.
    """

    def __init__(self, stop: BaseException) -> None:
        super().__init__(f"run stopped by {type(stop).__name__}")
        self.stop = stop


class GameSlots:
    """At most ``concurrency`` games at once; none starts once one has raised.

    Args:
        concurrency: games played at once (>= 1).

    Attributes:
        stopping: True once a game raised (a stop, a failure, a cancellation).
    """

    def __init__(self, concurrency: int) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self._semaphore = asyncio.Semaphore(concurrency)
        self.stopping = False

    async def play(self, game: Callable[[], Awaitable[T]]) -> T | None:
        """Await ``game()`` in a free slot; None, without calling it, once the run is stopping.

        Raises:
            CarriedStop: ``game()`` raised KeyboardInterrupt or SystemExit.
        """
        async with self._semaphore:
            if self.stopping:
                return None
            try:
                return await game()
            except (KeyboardInterrupt, SystemExit) as stop:
                self.stopping = True
                raise CarriedStop(stop) from None
            except BaseException:
                self.stopping = True
                raise


def run_carrying_stops(main: Coroutine[Any, Any, T]) -> T:
    """:func:`asyncio.run` ``main``, re-raising the original stop of a :class:`CarriedStop` it ends with."""
    try:
        return asyncio.run(main)
    except CarriedStop as carried:
        raise carried.stop from None
