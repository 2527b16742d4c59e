"""What a backend takes and returns: chat messages, sampling parameters, completions, and the
error of a request that failed for good.

Messages are OpenAI-style dicts; a message's ``content`` is a string or a list of parts
(``{"type": "text", ...}`` and ``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``
for VLMs).

Example:
    >>> flatten_text([{"role": "user", "content": [{"type": "text", "text": "Which card?"},
    ...                                            {"type": "image_url", "image_url": {"url": "data:..."}}]}])
    [{'role': 'user', 'content': 'Which card?\\n[image]'}]
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Sequence

#: One chat message: ``{"role": ..., "content": str | list of parts}``.
Message = dict[str, Any]


class BackendError(ValueError):
    """A request that failed for good: a non-retryable status or retries exhausted.

    A ValueError, so that ``cluegym run`` reports a misconfigured endpoint (bad key,
    unknown model) as a one-line error.

    Attributes:
        retryable: True when the failure was transient (retries ran out), False when the
            request itself is wrong (bad key, unknown model, bad request).
        status: the HTTP status, when there was one.
    """

    def __init__(self, message: str, *, retryable: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status


@dataclasses.dataclass(frozen=True)
class Sampling:
    """Sampling parameters of one request (all part of the cache key).

    Attributes:
        temperature: 0 is greedy (the default: reproducible and cache-friendly).
        top_p: nucleus sampling mass.
        max_tokens: cap on generated tokens.
        seed: per-request seed, sent to servers that honour it (OpenAI, vLLM, llama.cpp,
            Ollama) and used for local sampling; agents derive it from their own seed.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Completion:
    """One reply with its accounting (what the game record stores per call)."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    cached: bool = False
    retries: int = 0
    finish_reason: str | None = None
    #: The reply cache's key for this request (None without a cache); never stored.
    cache_key: str | None = None


def strip_images(messages: Sequence[Message]) -> list[Message]:
    """Messages with image parts replaced by a short digest, for logs and records."""
    out: list[Message] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                if part.get("type") == "image_url":
                    url = part.get("image_url", {}).get("url", "")
                    parts.append({"type": "image_url", "image_url": {"url": f"<image sha1:{hashlib.sha1(url.encode()).hexdigest()[:12]} {len(url)} chars>"}})
                else:
                    parts.append(part)
            m = {**m, "content": parts}
        out.append(m)
    return out


def flatten_text(messages: Sequence[Message], image_note: str = "[image]") -> list[Message]:
    """Messages whose list contents are joined into text (images become ``image_note``),
    for text-only models."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            pieces = [p.get("text", "") if p.get("type") == "text" else image_note for p in content]
            m = {**m, "content": "\n".join(pieces)}
        out.append(m)
    return out
