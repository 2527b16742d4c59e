"""Word lists the encoders and baselines share: the games' vocabulary, WordNet lemmas, stopwords.

- :func:`game_vocabulary`: every word of the shipped game word lists, from the ``data/``
  folder each registered game declares (``GameSpec.data``).
- :func:`wordnet_lemmas`: single-word WordNet lemmas of a part of speech, from the env's one
  WordNet reader (:mod:`cluegym.envs.core.matching`; raises ``WordNetMissingError`` with the
  install command when Debian's ``wordnet-base`` is missing).
- :data:`STOPWORDS`: function words the free-text baselines drop before averaging word
  vectors (``"It has a striped body."`` is judged by ``striped body``).
- :func:`top_order`: the start of a vocabulary's ranking by similarity, without sorting all
  of it (baselines and candidate generators read a few dozen words of ~5,000).

Example:
    >>> "guitar" in game_vocabulary()
    True
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any, Iterable

import numpy as np

from cluegym.envs.core.matching import WORDNET_DIR, wordnet_lemmas
from cluegym.envs.core.registry import registered_specs

__all__ = ["STOPWORDS", "WORDNET_DIR", "game_vocabulary", "top_order", "wordnet_lemmas"]

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just like me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves also one ones thing things something someone really maybe
    think see know get got make made much many often usually sometimes people way lot well yes oh""".split()
)

_TOKEN_RE = re.compile(r"[a-z]+")


def _json_strings(node: Any) -> Iterable[str]:
    """Every string inside the lists of a JSON document (dict values that are plain strings,
    such as a ``"source"`` note, are skipped)."""
    if isinstance(node, dict):
        for value in node.values():
            if not isinstance(value, str):
                yield from _json_strings(value)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, str):
                yield item
            else:
                yield from _json_strings(item)


@functools.lru_cache(maxsize=1)
def game_vocabulary() -> tuple[str, ...]:
    """The union of the shipped game word lists, as sorted lowercase single words.

    Reads the ``data/`` folder of every registered game that declares one (``GameSpec.data``):
    ``*.txt`` lists (Decrypto keywords and hint vocabulary, Taboo targets, ...; one entry a
    line, ``#`` comments) and ``word_pairs.json`` (Undercover's pairs). A multi-word entry
    such as ``ice cream`` contributes its words. Computed once per process.
    """
    words: set[str] = set()
    for package in sorted({spec.data for spec in registered_specs() if spec.data}):
        try:
            data = resources.files(package) / "data"
        except ModuleNotFoundError:
            continue
        if not data.is_dir():
            continue
        for entry in data.iterdir():
            if entry.name.endswith(".txt"):
                lines = entry.read_text(encoding="utf-8").splitlines()
                entries: Iterable[str] = (l for l in lines if l.strip() and not l.lstrip().startswith("#"))
            elif entry.name == "word_pairs.json":
                entries = _json_strings(json.loads(entry.read_text(encoding="utf-8")))
            else:
                continue
            for text in entries:
                words.update(_TOKEN_RE.findall(text.lower()))
    return tuple(sorted(words))


def top_order(values: np.ndarray, k: int) -> np.ndarray:
    """The start of ``np.argsort(-values, kind="stable")`` down to its ``k``-th value: every
    index with a value tied with the ``k``-th is kept, so the order is that prefix exactly
    (a partition and a sort of the few, instead of sorting the whole vocabulary).

    The partition runs on the values that can be among the first ``k``: those at least the
    ``k``-th largest of every ``_SAMPLE_STRIDE``-th value (the ``k``-th largest of a part
    is at most the whole's), a few times ``k`` of them, found by one comparison.

    Example:
        >>> top_order(np.array([0.1, 0.9, 0.5, 0.9]), 2).tolist()
        [1, 3]
    """
    n = len(values)
    if k >= n:
        return np.argsort(-values, kind="stable")
    pool: np.ndarray | None = None
    part = values
    sample = values[::_SAMPLE_STRIDE]
    # A NaN or an infinity (a NaN sum) would order apart from the comparisons: all values then.
    if 0 < k <= len(sample) // 2 and np.isfinite(np.add.reduce(values)):
        floor = np.partition(sample, len(sample) - k)[len(sample) - k]
        pool = np.flatnonzero(values >= floor)  # ascending, as flatnonzero below
        part = values[pool]
    threshold = np.partition(part, len(part) - k)[len(part) - k]
    keep = part >= threshold  # ties stay in index order
    top = pool[keep] if pool is not None else np.flatnonzero(keep)
    return top[np.argsort(-values[top], kind="stable")]


#: :func:`top_order` bounds its partition by every this-many-th value's.
_SAMPLE_STRIDE = 8
