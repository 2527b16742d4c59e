"""One shared backend per configuration and process (:func:`get_backend`), so that every agent
of a match talks to an endpoint through one client and one in-flight limit.

Example:
    >>> get_backend("openai", model="gpt-4o-mini") is get_backend("openai", model="gpt-4o-mini")
    True
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from cluegym.agents.llm.backends.base import Backend
from cluegym.agents.llm.backends.cache import open_cache
from cluegym.agents.llm.backends.local import LocalBackend
from cluegym.agents.llm.backends.openai_http import OpenAIBackend

#: The ``backend=`` values an LLM agent accepts.
BACKEND_KINDS = ("local", "openai")

_BACKENDS: dict[tuple, Backend] = {}
_BACKENDS_LOCK = threading.Lock()


def get_backend(kind: str = "local", *, model: str | None = None, cache: str | Path | None = None,
                **options: Any) -> Backend:
    """A shared backend for this configuration (one per process), so that every agent of a
    match talks to an endpoint through one client and one in-flight limit.

    Args:
        kind: ``"local"`` (in-process transformers) or ``"openai"`` (any compatible server).
        model: model name (openai) or checkpoint path (local; None = packaged SmolLM2).
        cache: ``None``/``"off"``, ``"default"`` or a SQLite path (see :func:`open_cache`).
        **options: :class:`OpenAIBackend` options (``base_url``, ``api_key_env``, ``timeout``,
            ``max_retries``, ``max_in_flight``, ``vision`` ...).

    Raises:
        ValueError: unknown kind, or options the kind does not take.
    """
    if kind not in BACKEND_KINDS:
        raise ValueError(f"unknown LLM backend {kind!r}; choose from {', '.join(BACKEND_KINDS)}")
    if kind == "local" and options:
        raise ValueError(f"the local backend takes no {', '.join(sorted(options))} option")
    key = (kind, model, str(cache), tuple(sorted(options.items())))
    with _BACKENDS_LOCK:
        if key not in _BACKENDS:
            store = open_cache(cache)
            if kind == "local":
                _BACKENDS[key] = LocalBackend(model, cache=store)
            else:
                _BACKENDS[key] = OpenAIBackend(model or "", cache=store, **options)
        return _BACKENDS[key]
