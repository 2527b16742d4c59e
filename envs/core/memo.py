"""Calling a memoized function when its arguments may not hash.

Games cache the parts of their prompts and views that a State's values determine (finished
turns, per-config texts) with :func:`functools.lru_cache`. A State built by hand may hold a
list where the game keeps a tuple; :func:`cached_call` then computes the value afresh instead
of failing.

Example:
    >>> import functools
    >>> @functools.lru_cache(maxsize=128)
    ... def line(hints): return ", ".join(hints)
    >>> cached_call(line, ("a", "b")), cached_call(line, ["a", "b"])
    ('a, b', 'a, b')
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

T = TypeVar("T")


def cached_call(cached: Callable[..., T], *args: Any) -> T:
    """``cached(*args)`` through its ``lru_cache``, or its undecorated function when an
    argument does not hash."""
    try:
        return cached(*args)
    except TypeError:  # an unhashable argument (e.g. a list in a hand-built state)
        return cached.__wrapped__(*args)
