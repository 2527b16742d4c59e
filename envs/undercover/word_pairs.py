"""Undercover's word pairs: CoMet's 200 shipped pairs (figures 19-20: 100 animal, 100 food
pairs, in ``data/word_pairs.json``) or a list of your own, and the random agent's vocabulary.

Example:
    >>> len(load_word_pairs(themes="animals"))
    100
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Sequence

from cluegym.envs.core.data import read_text_file


@functools.lru_cache(maxsize=None)
def _shipped_pairs() -> dict[str, tuple[tuple[str, str], ...]]:
    """The shipped pairs by theme (read once)."""
    ref = resources.files("cluegym.envs.undercover") / "data" / "word_pairs.json"
    data = json.loads(ref.read_text(encoding="utf-8"))
    return {theme: tuple((a, b) for a, b in pairs) for theme, pairs in data["themes"].items()}


def load_word_pairs(
    value: str | Path | Sequence[Sequence[str]] | None = None, themes: str | Sequence[str] | None = None
) -> tuple[tuple[str, str], ...]:
    """Resolve the ``word_pairs`` option into a tuple of ``(word, word)`` pairs.

    Args:
        value: None for CoMet's 200 shipped pairs; a path to a JSON file (``{"themes": {name:
            [[a, b], ...]}}`` or a plain list of pairs) or a text file with one ``a, b`` pair
            per line (``#`` comments); or a list of pairs.
        themes: restrict the shipped (or JSON) pairs to these themes, e.g. ``"animals"``.

    Raises:
        OSError: the path does not exist or is no readable file. ValueError: a malformed or
            empty list, or a file that is not UTF-8 text.
    """
    by_theme: dict[str, Sequence[Sequence[str]]]
    if value is None:
        by_theme = dict(_shipped_pairs())
    elif isinstance(value, (str, Path)):
        path = Path(value)
        text = read_text_file(path, "word-pair list")
        if path.suffix == ".json":
            data = json.loads(text)
            by_theme = data["themes"] if isinstance(data, dict) else {"all": data}
        else:
            rows = [ln.split(",") for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
            by_theme = {"all": rows}
    else:
        by_theme = {"all": value}
    if themes is not None:
        wanted = [themes] if isinstance(themes, str) else list(themes)
        unknown = sorted(set(wanted) - set(by_theme))
        if unknown:
            raise ValueError(f"unknown theme {', '.join(unknown)}; themes: {', '.join(sorted(by_theme))}")
        by_theme = {t: by_theme[t] for t in wanted}
    pairs: list[tuple[str, str]] = []
    for theme, rows in by_theme.items():
        for row in rows:
            words = [str(w).strip().lower() for w in row]
            if len(words) != 2 or not all(words) or words[0] == words[1]:
                raise ValueError(f"word pair {list(row)!r} in {theme!r} is not two different words")
            pairs.append((words[0], words[1]))
    if not pairs:
        raise ValueError("the word-pair list is empty")
    return tuple(pairs)


def random_vocabulary() -> tuple[str, ...]:
    """Every single word of the shipped pairs (the random agent describes with one of them)."""
    words = {w for pairs in _shipped_pairs().values() for pair in pairs for w in pair if " " not in w}
    return tuple(sorted(words))
