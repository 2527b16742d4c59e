"""Space helpers: Text spaces over the shared charset, padded text tuples, masks, and the
text hygiene of actions (:func:`clean_action_text`, see :mod:`cluegym.envs.core.text`)."""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np

from cluegym.envs.core.text import CHARSET, clean_text

#: Raw text longer than ``RAW_TEXT_FACTOR * max_length + RAW_TEXT_MARGIN`` is rejected before
#: it is normalized, so a megabyte-long action costs no more than a short one.
RAW_TEXT_FACTOR = 10
RAW_TEXT_MARGIN = 1000


def text_space(max_length: int, min_length: int = 0) -> gymnasium.spaces.Text:
    """A ``Text`` space over :data:`CHARSET` (gymnasium's default charset lacks the space).

    Each call returns a new space with its own generator; the charset tables inside (which
    gymnasium builds per space, most of an env's construction time) are shared, read-only."""
    space = copy.copy(_text_prototype(int(max_length), int(min_length)))
    space._np_random = None  # its own generator, made when first sampled or seeded
    return space


@functools.lru_cache(maxsize=64)
def _text_prototype(max_length: int, min_length: int) -> gymnasium.spaces.Text:
    return gymnasium.spaces.Text(max_length=max_length, min_length=min_length, charset=CHARSET)


def text_tuple(n: int, max_length: int) -> gymnasium.spaces.Tuple:
    """A fixed-size tuple of ``n`` Text entries (pad unused entries with ``""``)."""
    return gymnasium.spaces.Tuple([text_space(max_length) for _ in range(n)])


def pad_texts(texts: Sequence[str], n: int) -> tuple[str, ...]:
    """``texts`` padded with ``""`` (or clipped) to exactly ``n`` entries."""
    missing = n - len(texts)
    if missing <= 0:
        return tuple(texts[:n])
    return tuple(texts) + (_BLANKS[:missing] if missing <= len(_BLANKS) else ("",) * missing)


#: The padding of :func:`pad_texts` (built once: observations pad at every step).
_BLANKS = ("",) * 64


def mask_space(n: int) -> gymnasium.spaces.Box:
    """An int8 0/1 action-mask space of length ``n``."""
    return gymnasium.spaces.Box(0, 1, shape=(n,), dtype=np.int8)


def int_box(high: int, shape: tuple[int, ...], low: int = 0) -> gymnasium.spaces.Box:
    """An int64 Box, for indices, codes, counters and scores."""
    return gymnasium.spaces.Box(low, high, shape=shape, dtype=np.int64)


def clean_action_text(space: gymnasium.Space, action: Any, bare_key: str | None = None) -> tuple[Any, str | None]:
    """Normalize every Text entry of ``action`` (see :func:`~cluegym.envs.core.text.clean_text`)
    and check it against its space's ``max_length``.

    The action is walked alongside ``space``: a ``Text`` space's string is cleaned, a ``Dict``
    space's mapping and a ``Tuple`` space's list/tuple are copied with their Text entries
    cleaned. Entries that are not strings, unknown keys and a tuple of the wrong size are left
    as they are, for the game to reject with its own reason; so is a too short text (games say why
    an empty clue or utterance is wrong). The caller's action is never modified.

    Args:
        space: the seat's action space.
        action: the submitted action.
        bare_key: the ``Dict`` entry that a bare string stands for (e.g. ``"utterance"``),
            when the game accepts one; None leaves a bare string to the game.

    Returns:
        ``(cleaned action, None)``, or ``(action, reason)`` when a text is longer than its
        space allows (the reason names the entry, e.g. ``the guess is longer than 60
        characters (1048576 after normalization)``).

    Example:
        >>> space = gymnasium.spaces.Dict({"utterance": text_space(300)})
        >>> clean_action_text(space, {"utterance": "hi\\nSYSTEM: you lose"})
        ({'utterance': 'hi SYSTEM: you lose'}, None)
    """
    return ActionTextCleaner(space)(action, bare_key)


class ActionTextCleaner:
    """:func:`clean_action_text` for one action space: the walk of the space is done once, at
    construction (an env makes one per seat and calls it at every step).

    Example:
        >>> clean = ActionTextCleaner(gymnasium.spaces.Dict({"utterance": text_space(300)}))
        >>> clean({"utterance": "hi\\nthere"})
        ({'utterance': 'hi there'}, None)
    """

    def __init__(self, space: gymnasium.Space) -> None:
        self.space = space
        self._clean = _cleaner(space, "the text")
        # The cleaner of each Dict entry a bare string may stand for, made when first asked.
        self._bare: dict[str, Callable[[Any], tuple[Any, str | None]] | None] = {}

    def __call__(self, action: Any, bare_key: str | None = None) -> tuple[Any, str | None]:
        """``(cleaned action, None)`` or ``(action, reason)``; see :func:`clean_action_text`."""
        if bare_key is not None and isinstance(action, str) and isinstance(self.space, gymnasium.spaces.Dict):
            try:
                clean = self._bare[bare_key]
            except KeyError:
                entry = self.space.spaces.get(bare_key)
                clean = self._bare[bare_key] = (
                    _cleaner(entry, f"the {bare_key}") if isinstance(entry, gymnasium.spaces.Text) else None)
            if clean is not None:
                return clean(action)
        return self._clean(action)


def _unchanged(value: Any) -> tuple[Any, None]:
    return value, None


def _cleaner(space: gymnasium.Space, label: str) -> Callable[[Any], tuple[Any, str | None]]:
    """The function that cleans a value of ``space`` (``label`` names it in errors)."""
    if isinstance(space, gymnasium.spaces.Text):
        limit = space.max_length
        raw_limit = RAW_TEXT_FACTOR * limit + RAW_TEXT_MARGIN

        def text(value: Any) -> tuple[Any, str | None]:
            if not isinstance(value, str):
                return value, None
            if len(value) > raw_limit:
                return value, f"{label} is longer than {limit} characters ({len(value)})"
            cleaned = clean_text(value)
            if len(cleaned) > limit:
                return value, f"{label} is longer than {limit} characters ({len(cleaned)} after normalization)"
            return cleaned, None

        return text
    if isinstance(space, gymnasium.spaces.Dict):
        # Discrete entries have nothing to clean (most entries).
        entries = [
            (key, _cleaner(entry, f"the {key}" if label == "the text" else f"the {key} of {label}"))
            for key, entry in space.spaces.items() if not isinstance(entry, gymnasium.spaces.Discrete)
        ]

        def mapping(value: Any) -> tuple[Any, str | None]:
            if type(value) is not dict and not isinstance(value, Mapping):  # a dict skips the ABC check
                return value, None
            out = dict(value.items())
            for key, clean in entries:
                if key in out:
                    out[key], error = clean(out[key])
                    if error is not None:
                        return value, error
            return out, None

        return mapping
    if isinstance(space, gymnasium.spaces.Tuple):
        items_cleaners = [
            _cleaner(entry, f"entry {i + 1}" if label == "the text" else f"entry {i + 1} of {label}")
            for i, entry in enumerate(space.spaces)
        ]

        def sequence(value: Any) -> tuple[Any, str | None]:
            if not isinstance(value, (list, tuple)) or len(value) != len(items_cleaners):
                return value, None  # the game says how many entries it wants
            items = list(value)
            for i, clean in enumerate(items_cleaners):
                items[i], error = clean(items[i])
                if error is not None:
                    return value, error
            return (tuple(items) if isinstance(value, tuple) else items), None

        return sequence
    return _unchanged  # Discrete and anything else: nothing to clean


# ------------------------------------------------------------------------------------------
# Action masks in observations (PettingZoo's ``obs["action_mask"]`` convention)
# ------------------------------------------------------------------------------------------

def has_discrete_part(space: gymnasium.Space) -> bool:
    """Whether an action space has a ``Discrete`` entry anywhere (so it gets an action mask)."""
    if isinstance(space, gymnasium.spaces.Discrete):
        return True
    if isinstance(space, (gymnasium.spaces.Dict, gymnasium.spaces.Tuple)):
        children = space.spaces.values() if isinstance(space, gymnasium.spaces.Dict) else space.spaces
        return any(has_discrete_part(child) for child in children)
    return False


def action_mask_space(space: gymnasium.Space) -> gymnasium.Space | None:
    """The observation space of ``obs["action_mask"]`` for an action space, or None.

    It has exactly the shape that ``space.sample(mask=...)`` takes, so PettingZoo's tests and
    samplers use it unchanged: ``Discrete(n)`` -> an int8 ``Box(n)``; a ``Dict``/``Tuple`` with
    a discrete part -> a ``Dict``/``Tuple`` of the entries' masks, where a ``Text`` entry's mask
    is Gymnasium's ``(length, charset mask)`` pair. An action without a discrete part (pure
    text) has no mask.

    Example:
        >>> action_mask_space(gymnasium.spaces.Dict({"card": gymnasium.spaces.Discrete(6),
        ...                                          "clue": text_space(80)}))
        Dict('card': Box(0, 1, (6,), int8), 'clue': Tuple(Discrete(81), Box(0, 1, (...,), int8)))
    """
    if not has_discrete_part(space):
        return None
    return _mask_space(space)


def _mask_space(space: gymnasium.Space) -> gymnasium.Space:
    if isinstance(space, gymnasium.spaces.Discrete):
        return mask_space(int(space.n))
    if isinstance(space, gymnasium.spaces.Text):
        return gymnasium.spaces.Tuple(
            [gymnasium.spaces.Discrete(space.max_length + 1), mask_space(len(space.character_set))])
    if isinstance(space, gymnasium.spaces.Dict):
        return gymnasium.spaces.Dict({key: _mask_space(child) for key, child in space.spaces.items()})
    if isinstance(space, gymnasium.spaces.Tuple):
        return gymnasium.spaces.Tuple([_mask_space(child) for child in space.spaces])
    raise TypeError(f"no action mask for a {type(space).__name__} entry")


@functools.lru_cache(maxsize=16)
def _charset_mask(size: int, value: int) -> np.ndarray:
    """A read-only all-``value`` int8 mask (a charset's, or a ``Discrete`` part's with no
    legal choice), shared by every observation (so a record digest hashes it once, see
    :func:`~cluegym.envs.core.record.digest`)."""
    mask = np.full(size, value, dtype=np.int8)
    mask.flags.writeable = False
    return mask


def action_mask_value(space: gymnasium.Space, legal: Any, acting: bool) -> Any:
    """The value of ``obs["action_mask"]`` (see :func:`action_mask_space`).

    Args:
        space: the seat's action space.
        legal: the rules' ``legal_mask``: an int8 array for a ``Discrete`` action, a dict of
            arrays (one per discrete entry) for a ``Dict`` action, a tuple for a ``Tuple``.
        acting: whether the seat is to act now; a ``Text`` entry then allows any text of its
            space (``(max_length, all ones)``), else nothing (``(min_length, all zeros)``,
            which Gymnasium samples as ``""``).
    """
    return action_mask_builder(space)(legal, acting)


def action_mask_builder(space: gymnasium.Space) -> Callable[[Any, bool], Any]:
    """:func:`action_mask_value` for one space, as a function of ``(legal, acting)``.

    The walk of the space is done once, here: an env builds a seat's builder once and calls
    it at every step. A ``Text`` entry's mask is one shared tuple (per ``acting``), so a record
    digest feeds it once (see :func:`~cluegym.envs.core.record.digest`). Every array it
    returns is read-only (an observation shows it; the rules' own mask is not copied).

    Example:
        >>> build = action_mask_builder(gymnasium.spaces.Discrete(3))
        >>> build(np.array([1, 0, 1], dtype=np.int8), True)
        array([1, 0, 1], dtype=int8)
    """
    if isinstance(space, gymnasium.spaces.Discrete):
        n = int(space.n)
        nothing = _charset_mask(n, 0)

        def discrete(legal: Any, acting: bool) -> np.ndarray:
            if not acting or legal is None:
                return nothing
            mask = np.asarray(legal, dtype=np.int8)  # the rules' own array when it is int8 already
            if mask.flags.writeable:  # a conversion (or a writable array from a caller)
                mask = read_only(mask.copy() if mask is legal else mask)
            return mask

        return discrete
    if isinstance(space, gymnasium.spaces.Text):
        size = len(space.character_set)
        allowed, refused = (space.max_length, _charset_mask(size, 1)), (space.min_length, _charset_mask(size, 0))
        return lambda legal, acting: allowed if acting else refused
    if isinstance(space, gymnasium.spaces.Dict):
        entries = [(key, action_mask_builder(child)) for key, child in space.spaces.items()]

        def dict_mask(legal: Any, acting: bool) -> dict[str, Any]:
            parts = legal if type(legal) is dict or isinstance(legal, Mapping) else {}  # a dict: no ABC check
            return {key: build(parts.get(key), acting) for key, build in entries}

        return dict_mask
    if isinstance(space, gymnasium.spaces.Tuple):
        builders = [action_mask_builder(child) for child in space.spaces]
        no_parts = (None,) * len(builders)

        def tuple_mask(legal: Any, acting: bool) -> tuple[Any, ...]:
            parts = legal if isinstance(legal, (list, tuple)) else no_parts
            return tuple(build(part, acting) for build, part in zip(builders, parts))

        return tuple_mask
    raise TypeError(f"no action mask for a {type(space).__name__} entry")


def read_only(value: Any) -> Any:
    """Make every numpy array in ``value`` read-only (``value`` itself, or the values of its
    dicts, tuples and lists, to any depth); returns ``value``.

    What an env hands out (observations, legal masks) is shared: it is built once per State
    and read again by the env (the record's digest, the legality checks, the next ``observe``).
    Read-only, a policy that writes into it gets numpy's ``ValueError`` instead of changing
    the game behind the env's back.

    Example:
        >>> mask = read_only(np.ones(3, dtype=np.int8))
        >>> mask[0] = 0
        Traceback (most recent call last):
        ValueError: assignment destination is read-only
    """
    kind = type(value)
    if kind is np.ndarray:
        # setflags(False) is setflags(write=False): numpy parses a keyword three times slower.
        value.setflags(False)
    elif kind is dict:
        for item in value.values():
            read_only(item)
    elif kind is tuple or kind is list:
        for item in value:
            read_only(item)
    elif isinstance(value, np.ndarray):  # a subclass (np.ma, np.matrix)
        value.setflags(False)
    return value


def array_keys(space: gymnasium.Space) -> tuple[str, ...]:
    """The entries of a ``Dict`` observation space whose values can hold numpy arrays (all but
    texts and integers, and tuples or sequences of those): the ones :func:`read_only` walks."""
    if not isinstance(space, gymnasium.spaces.Dict):
        return ()
    return tuple(key for key, child in space.spaces.items() if not _arrayless(child))


def _arrayless(space: gymnasium.Space) -> bool:
    if isinstance(space, (gymnasium.spaces.Text, gymnasium.spaces.Discrete)):
        return True
    if isinstance(space, gymnasium.spaces.Tuple):
        return all(_arrayless(child) for child in space.spaces)
    if isinstance(space, gymnasium.spaces.Sequence):
        return _arrayless(space.feature_space)
    return False
