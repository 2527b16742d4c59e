"""The reply cache: a SQLite store of completions keyed by (backend, model, messages,
sampling), so that a rerun of the same seeded match costs nothing and returns the same
replies; and :func:`cache_dir`, where cluegym keeps derived files.

Example:
    >>> cache = open_cache("llm_cache.sqlite")  # "default": <cache_dir>/llm_cache.sqlite
    >>> key = ResponseCache.key("openai", "gpt-4o-mini", [{"role": "user", "content": "Hi"}], Sampling())
    >>> cache.get(key) is None
    True
    >>> open_cache("llm_cache.sqlite") is cache, open_cache("off")  # one instance per file; none
    (True, None)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Sequence

from cluegym.agents.llm.backends.messages import Completion, Message, Sampling
from cluegym.agents.llm.checks import check_option_file

#: Environment variable that overrides the cache folder (default ``~/.cache/cluegym``).
CACHE_ENV = "CLUEGYM_CACHE"


def cache_dir() -> Path:
    """Where cluegym keeps derived files (``$CLUEGYM_CACHE`` or ``~/.cache/cluegym``)."""
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "cluegym"


class ResponseCache:
    """A SQLite store of replies keyed by (backend, model, messages, sampling).

    Safe to share between threads and agents; several processes may use one file (SQLite
    locks it). Args:
        path: the database file (created with its folder).

    Example:
        >>> cache = ResponseCache("llm.sqlite")
        >>> key = ResponseCache.key("openai", "gpt-4o-mini", [{"role": "user", "content": "Hi"}], Sampling())
        >>> cache.put(key, Completion("ANSWER: ..."))
        >>> cache.get(key).text, cache.get(key).cached, len(cache)
        ('ANSWER: ...', True, 1)
        >>> cache.evict(key), len(cache)
        (True, 0)
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        with self._lock, self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(backend: str, model: str, messages: Sequence[Message], sampling: Sampling) -> str:
        """The cache key: a hash of everything that determines a reply."""
        payload = json.dumps(
            {"backend": backend, "model": model, "messages": list(messages), "sampling": sampling.as_dict()},
            sort_keys=True, ensure_ascii=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        data = json.loads(row[0])
        return Completion(**{**data, "cached": True, "latency_s": 0.0, "retries": 0, "cache_key": key})

    def put(self, key: str, completion: Completion) -> None:
        data = dataclasses.asdict(completion)
        data.pop("cached", None)
        data.pop("cache_key", None)
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO replies (key, value) VALUES (?, ?)", (key, json.dumps(data)))

    def evict(self, key: str) -> bool:
        """Drop the reply stored under ``key`` (True when there was one)."""
        with self._lock, self._db:
            return self._db.execute("DELETE FROM replies WHERE key = ?", (key,)).rowcount > 0

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])


_CACHES: dict[str, ResponseCache] = {}
_CACHES_LOCK = threading.Lock()


def open_cache(spec: str | Path | None) -> ResponseCache | None:
    """The cache named by an agent's ``cache`` option: None/""/"off" for none, "default" or
    "on" for ``<cache_dir>/llm_cache.sqlite``, else a file path (created when missing). One
    instance per file.

    Raises:
        ValueError: one line naming the ``cache=`` file and why it cannot be used (a folder,
            not writable or readable, not an SQLite database).
    """
    if spec is None or str(spec).lower() in ("", "none", "off", "false", "0"):
        return None
    path = cache_dir() / "llm_cache.sqlite" if str(spec).lower() in ("default", "on", "true", "1") else Path(spec)
    path = path.expanduser()
    resolved = str(path.resolve())
    with _CACHES_LOCK:
        if resolved not in _CACHES:
            check_option_file(path, "cache")
            try:
                _CACHES[resolved] = ResponseCache(resolved)
            except sqlite3.DatabaseError as exc:  # OperationalError included (e.g. locked)
                why = "cannot be opened" if isinstance(exc, sqlite3.OperationalError) else "is not an SQLite database"
                raise ValueError(f"the cache= file {path} {why} ({exc})") from None
        return _CACHES[resolved]
