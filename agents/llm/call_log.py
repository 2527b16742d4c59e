"""What an LLM agent records about its calls: the call log and the live counters.

:class:`CallAccounting` is mixed into :class:`~cluegym.agents.llm.agent.LLMAgent`: every call
becomes a JSON-safe entry in :attr:`~CallAccounting.calls` (prompt, raw reply, parsed value or
parse error, latency, tokens, cache hit, error) that the match harness drains into the game
record, and the counters behind :meth:`~CallAccounting.stats` are reported with the match
metrics. The API key is in none of it (backends redact it first).
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from cluegym.agents.llm.backends import Message, strip_images

__all__ = ["STAT_KEYS", "MAX_LOGGED_REPLY_CHARS", "CallAccounting"]

#: Longest reply kept in a call log entry (a runaway reply is cut; ``reply_chars`` says how long it was).
MAX_LOGGED_REPLY_CHARS = 100_000
#: Counters every LLM agent reports, in this order (others follow).
STAT_KEYS = ("decisions", "llm_calls", "failed_calls", "http_retries", "parse_failures", "reasks", "forfeits",
             "env_rejections", "last_latency_s", "prompt_tokens", "completion_tokens", "cached_calls",
             "cache_evictions", "llm_latency_s")


class CallAccounting:
    """The call log and counters of an agent; the agent sets the three attributes below.

    Attributes:
        calls: the call log of the current game (see :meth:`drain_log`).
        counters: the live counters behind :meth:`stats`.
        log_messages: store each call's full prompt (False: a hash and the last message).
    """

    calls: list[dict[str, Any]]
    counters: dict[str, float]
    log_messages: bool

    def _count(self, key: str, amount: float = 1.0) -> None:
        self.counters[key] = self.counters.get(key, 0.0) + float(amount)

    def _loggable(self, messages: list[Message]) -> list[Message]:
        """The messages as logged: images stripped, and only a digest + the last message
        unless ``log_messages``."""
        shown = strip_images(messages)
        if self.log_messages:
            return shown
        digest = hashlib.sha1(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]
        return [{"role": "digest", "content": f"sha1:{digest} ({len(shown)} messages)"}, shown[-1]]

    def _failed_call(self, entry: dict[str, Any], error: str, start: float) -> None:
        """Log and count a call that got no completion (``start``: its ``perf_counter``)."""
        latency = time.perf_counter() - start
        self._count("llm_calls")
        self._count("failed_calls")
        self.counters["last_latency_s"] = latency
        entry.update(error=error, latency_s=round(latency, 4))
        self.calls.append(entry)

    def _on_retry(self, reason: str) -> None:
        self._count("http_retries")

    def stats(self) -> dict[str, float]:
        """Live counters of this agent since it was built (updated after every call):

        ``decisions``; ``llm_calls`` (calls finished, failed ones included); ``failed_calls``
        (calls that got no completion: HTTP errors, retries exhausted, cancelled);
        ``http_retries``; ``parse_failures``; ``reasks``; ``forfeits`` (decisions left to the
        env fallback); ``env_rejections``; ``last_latency_s``; ``prompt_tokens``,
        ``completion_tokens``; ``cached_calls``; ``cache_evictions`` (unreadable cached
        replies dropped); ``llm_latency_s`` (summed). The match harness sums them over games.
        """
        return {k: self.counters.get(k, 0.0) for k in STAT_KEYS} | {k: v for k, v in self.counters.items() if k not in STAT_KEYS}

    def drain_log(self) -> list[dict[str, Any]]:
        """The calls logged since the last drain, removed from the agent (the match harness
        stores them in ``record["agent_logs"][seat]``)."""
        calls, self.calls = self.calls, []
        return calls
