"""Shipped data files: word lists read from a game's ``data/`` folder or a user's file."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Sequence


def read_word_list(path: str | Path) -> list[str]:
    """Words of a text file, one per line; blank lines and ``#`` comments are skipped.

    Raises:
        FileNotFoundError: with the path, when the file does not exist.
        ValueError: when the file holds no words.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"word list {str(path)!r} does not exist")
    words = [
        line.strip() for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not words:
        raise ValueError(f"word list {str(path)!r} is empty")
    return words


@functools.lru_cache(maxsize=None)
def shipped_word_list(package: str, filename: str) -> tuple[str, ...]:
    """A word list shipped in ``<package>/data/<filename>`` (read once, cached)."""
    ref = resources.files(package) / "data" / filename
    with resources.as_file(ref) as path:
        return tuple(read_word_list(path))


def word_list_option(value: str | Path | Sequence[str] | None, package: str, default: str) -> tuple[str, ...]:
    """Resolve a word-list config option: None -> shipped default, a path -> that file, a list -> itself."""
    if value is None:
        return shipped_word_list(package, default)
    if isinstance(value, (str, Path)):
        return tuple(read_word_list(value))
    words = tuple(str(w).strip() for w in value if str(w).strip())
    if not words:
        raise ValueError("the word list is empty")
    return words
