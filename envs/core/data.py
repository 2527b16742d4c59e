"""Shipped data files: word lists read from a game's ``data/`` folder or a user's file."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Callable, Sequence

from cluegym.envs.core.text import to_charset


def require_file(path: str | Path, what: str) -> Path:
    """``path`` as a Path, when it names a regular file; else an error naming ``what`` and why.

    Args:
        path: the file a user named (an option's value).
        what: what the file is, for the message, e.g. ``"word list"``.

    Raises:
        FileNotFoundError: nothing is there.
        IsADirectoryError: a folder is there.
        OSError: something that is no regular file (a device, a socket) is there.

    Example:
        >>> require_file("/tmp", "word list")
        Traceback (most recent call last):
        IsADirectoryError: word list '/tmp' is a directory, not a file
    """
    path = Path(path)
    if path.is_file():
        return path
    if path.is_dir():
        raise IsADirectoryError(f"{what} {str(path)!r} is a directory, not a file")
    if path.exists():
        raise OSError(f"{what} {str(path)!r} is not a regular file")
    raise FileNotFoundError(f"{what} {str(path)!r} does not exist")


def read_text_file(path: str | Path, what: str) -> str:
    """The UTF-8 text of the file ``path`` names, with one-line errors naming ``what``.

    Raises:
        OSError: as :func:`require_file` says, or the file cannot be read.
        ValueError: the file is not UTF-8 text (a binary file, say).
    """
    path = require_file(path, what)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} {str(path)!r} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                         f"offset {exc.start})") from None
    except OSError as exc:
        raise OSError(f"{what} {str(path)!r} is not readable ({exc.strerror or exc})") from None


def read_word_list(path: str | Path) -> list[str]:
    """Words of a text file, one per line; blank lines and ``#`` comments are skipped.

    Raises:
        FileNotFoundError: with the path, when the file does not exist.
        OSError: a folder or other non-file there, or an unreadable file (see :func:`read_text_file`).
        ValueError: when the file holds no words, or is not UTF-8 text.
    """
    words = [
        line.strip() for line in read_text_file(path, "word list").splitlines()
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


@functools.lru_cache(maxsize=32)
def checked_game_words(words: tuple[str, ...], normalize: Callable[[str], str], max_chars: int,
                       what: str) -> tuple[str, ...]:
    """``words`` (a game's word list) as its games use them (``normalize``), each checked
    once per list and process: not empty, at most ``max_chars`` characters, printable ASCII
    (the Text spaces' charset), so that no game drawn from the list fails at its reset or
    shows an observation outside its space (a list that passed the env's construction used to
    fail at the reset of some seeds only).

    Raises:
        ValueError: naming the first such word.

    Example:
        >>> checked_game_words(("Apple", " pear "), str.lower, 40, "keyword")
        ('apple', ' pear ')
        >>> checked_game_words(("x" * 41,), str.lower, 40, "keyword")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ValueError: keyword 'xxx...' is longer than 40 characters
    """
    folded = []
    for word in words:
        used = normalize(word)
        shown = word if len(word) <= 20 else word[:3] + "..."
        if not used.strip():
            raise ValueError(f"{what} {shown!r} is empty once normalized as games use it")
        if len(used) > max_chars:
            raise ValueError(f"{what} {shown!r} is longer than {max_chars} characters")
        if to_charset(used) != used:
            raise ValueError(f"{what} {shown!r} has characters outside printable ASCII (e.g. write cafe for café)")
        folded.append(used)
    return tuple(folded)
