"""JSON game records: every step of a game, enough to replay it exactly.

A record holds the game id, its config, the reset seed, and per step: the seat, the action as
submitted (JSON), whether it was rejected (and why), any fallback or forfeit, and a digest of
the observation the seat acted on. :func:`replay` re-runs a record and checks every digest.

Records are strict JSON (``json.dumps(record, allow_nan=False)`` works). Values JSON cannot
hold are tagged, so that an action replays to the same outcome: ``{"$float": "nan"}``,
``{"$int": "0x..."}`` (beyond Python's int-to-text limit), ``{"$tuple": [...]}``,
``{"$set": [...]}``, ``{"$bytes": "<base64>"}``, ``{"$complex": [re, im]}``,
``{"$ndarray": {"dtype", "shape", "data"}}``, ``{"$dict": [[key, value], ...]}`` (non-text or
``$`` keys). An action no tag can rebuild (an arbitrary object, a cycle, nesting deeper than
:data:`MAX_DEPTH`, more than :data:`MAX_NODES` values or :data:`MAX_CHARS` characters) is
recorded by its outcome: ``{"$rejected": {"type", "value", "error"}}`` replays as the same
rejection, ``{"$accepted": <the action the game applied>}`` as the same move.

Example:
    >>> import cluegym
    >>> env = cluegym.make("taboo")
    >>> env.reset(seed=0)
    >>> env.step({"utterance": "A red fruit."}); env.step({"utterance": "", "guess": "apple"})
    >>> record = env.unwrapped.game_record()
    >>> with open("game.json", "w") as file:
    ...     json.dump(record, file, allow_nan=False)
    >>> replay(record) == record
    True
"""

from __future__ import annotations

import base64
import json
import math
import weakref
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
import xxhash

from cluegym.envs.core.extensions import load_extension
from cluegym.envs.core.registry import make
from cluegym.envs.core.text import describe, type_name

#: Deepest nesting an action is recorded faithfully at.
MAX_DEPTH = 64
#: Most values (containers and scalars) in a faithfully recorded action.
MAX_NODES = 10_000
#: Most characters (text and bytes) in a faithfully recorded action.
MAX_CHARS = 100_000
_SCALAR_TYPES = (bool, int, float, complex, str, bytes)
_SMALL_INT = 2**1000
_MINUS_SMALL_INT = -_SMALL_INT
_ARRAY_KINDS = "biufcUS"


@dataclass(frozen=True)
class RecordedRejection:
    """The replay form of a rejected action that JSON cannot hold: rejected with ``error``,
    leaving ``parts`` for the game's fallback (see ``ClueGameEnv._rejected_parts``)."""

    error: str
    type: str = "object"
    value: str = ""
    parts: Any = None


@dataclass(frozen=True)
class RecordedAcceptance:
    """The replay form of an accepted action that JSON cannot hold: ``action`` is what the
    game applied (its normalized action), applied again as is."""

    action: Any


class _Unfaithful(Exception):
    """The value has no faithful JSON form."""


def _finite_or_tag(value: float) -> Any:
    if math.isfinite(value):
        return value
    return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def _int_or_tag(value: int) -> Any:
    if _MINUS_SMALL_INT < value < _SMALL_INT:  # far inside the int-to-text limit: no check needed
        return value
    try:
        int.__repr__(value)
    except ValueError:  # beyond sys.get_int_max_str_digits(): JSON text cannot hold it
        return {"$int": hex(value)}
    return value


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples, sets and nested containers into strict JSON.

    Never raises: non-finite floats and huge integers are tagged (see the module docstring),
    bytes and complex numbers too, anything else becomes a short text (its ``repr``, or a
    description when that fails); a cycle becomes ``"<cycle>"`` and nesting deeper than
    :data:`MAX_DEPTH` ``"<too deep>"``.
    """
    kind = type(value)
    if kind is list or kind is dict:
        try:
            return _flat_plain(value)
        except _NotFlat:
            pass
    try:
        return _plain(value, 0, set())
    except Exception:  # noqa: BLE001 - a record must never fail to be written
        return describe(value)


class _NotFlat(Exception):
    """The value is not one of the shapes :func:`_flat_plain` copies."""


def _is_plain_scalar(value: Any) -> bool:
    """Whether ``value`` is its own JSON form: a text, None, a bool, an int far inside the
    int-to-text limit or a finite float."""
    kind = type(value)
    return (kind is str or (kind is int and _MINUS_SMALL_INT < value < _SMALL_INT) or value is None or kind is bool
            or (kind is float and math.isfinite(value)))


def _flat_plain(value: Any, depth: int = 0) -> Any:
    """The JSON form of a plain JSON tree (a game's events and result, a seat's info): dicts
    with text keys, lists and tuples (as lists), plain scalars (see :func:`_is_plain_scalar`)
    at any depth up to :data:`MAX_DEPTH`. Raises :class:`_NotFlat` for anything else, which
    :func:`_plain` then converts."""
    if depth > MAX_DEPTH:
        raise _NotFlat  # _plain says "<too deep>" (or "<cycle>")
    kind = type(value)
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotFlat
            # _is_plain_scalar, inlined for texts and small ints (most leaves: a call each
            # was a third of a short game's record).
            kind = type(item)
            if kind is str or (kind is int and _MINUS_SMALL_INT < item < _SMALL_INT) or _is_plain_scalar(item):
                out[key] = item
            else:
                out[key] = _flat_plain(item, depth + 1)
        return out
    if kind is list or kind is tuple:
        items = []
        for item in value:
            kind = type(item)
            if kind is str or (kind is int and _MINUS_SMALL_INT < item < _SMALL_INT) or _is_plain_scalar(item):
                items.append(item)
            else:
                items.append(_flat_plain(item, depth + 1))
        return items
    raise _NotFlat


def _plain(value: Any, depth: int, path: set[int]) -> Any:  # noqa: PLR0911, PLR0912
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return _int_or_tag(value)
    if kind is float:
        return _finite_or_tag(value)
    if isinstance(value, np.generic):
        return _plain(value.item(), depth, path)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):  # an int subclass (IntEnum, ...): its plain value
        return _int_or_tag(int.__int__(value))
    if isinstance(value, float):
        return _finite_or_tag(float.__float__(value))
    if isinstance(value, complex):
        return {"$complex": [_finite_or_tag(value.real), _finite_or_tag(value.imag)]}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if depth >= MAX_DEPTH:
        return "<too deep>"
    if id(value) in path:
        return "<cycle>"
    path.add(id(value))
    try:
        if isinstance(value, dict):
            return {_key_text(k): _plain(v, depth + 1, path) for k, v in dict.items(value)}
        if isinstance(value, (list, tuple)):
            return [_plain(v, depth + 1, path) for v in value]
        if isinstance(value, (set, frozenset)):
            items = [_plain(v, depth + 1, path) for v in value]
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        if isinstance(value, np.ndarray):
            return _plain(value.tolist(), depth, path)
    finally:
        path.discard(id(value))
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a raising __repr__ still leaves a trace
        return describe(value)
    return text if isinstance(text, str) and len(text) <= 200 else describe(value)


def _key_text(key: Any) -> str:
    if type(key) is str:
        return key
    plain = _plain(key, MAX_DEPTH - 1, set())
    return plain if isinstance(plain, str) else json.dumps(plain, sort_keys=True)


def encode_action(action: Any, *, top_tuple: bool = False) -> tuple[Any, bool]:
    """The faithful JSON form of an action: ``(json, True)``, or ``(None, False)`` when no
    tag can rebuild it (see the module docstring). :func:`decode_action` inverts it.

    Args:
        action: the submitted action.
        top_tuple: the action space is a ``Tuple``: a top-level tuple is written as a plain
            list (the env's ``action_from_json`` turns it back into a tuple).

    Numpy scalars are written as the Python value they hold (``np.int64(3)`` -> ``3``):
    the envs treat both alike.

    Example:
        >>> encode_action({"guess": float("nan")})
        ({'guess': {'$float': 'nan'}}, True)
    """
    kind = type(action)
    if kind is str and len(action) <= MAX_CHARS:  # most actions: a text, or a choice
        return action, True
    if kind is int:
        return _int_or_tag(action), True
    if kind is dict and len(action) < MAX_NODES and _is_flat_action(action):
        return dict(action), True  # a Dict action of texts and choices (most of them): itself
    if top_tuple and kind is tuple and len(action) < MAX_NODES and _plain_values(action):
        return list(action), True  # a Tuple action of texts and choices (Decrypto's hints)
    budget = [MAX_NODES, MAX_CHARS]
    try:
        if top_tuple and type(action) is tuple:
            return [_faithful(v, 1, set(), budget) for v in action], True
        return _faithful(action, 0, set(), budget), True
    except Exception:  # noqa: BLE001 - _Unfaithful, or a hostile value: no faithful form
        return None, False


def _is_flat_action(action: dict) -> bool:
    """Whether a dict action is its own faithful JSON form: text keys (not ``$`` tags) over
    plain scalars, its texts within :data:`MAX_CHARS` in all."""
    # One pass over the items, texts and small ints (most values) checked inline: folded into
    # a key loop and _plain_values(action.values()) it costs ~330 ns more a Dict action.
    chars = 0
    for key, value in action.items():
        if type(key) is not str or key[:1] == "$":
            return False
        kind = type(value)
        if kind is str:
            chars += len(value)
        elif kind is int:
            if not _MINUS_SMALL_INT < value < _SMALL_INT:
                return False
        elif not _is_plain_scalar(value):
            return False
    return chars <= MAX_CHARS


def _plain_values(values: Iterable[Any]) -> bool:
    """Whether every value is its own JSON form (see :func:`_is_plain_scalar`), the texts
    within :data:`MAX_CHARS` in all: a flat Dict action's values, a Tuple action's parts."""
    chars = 0
    for value in values:
        if type(value) is str:
            chars += len(value)
        elif not _is_plain_scalar(value):
            return False
    return chars <= MAX_CHARS


def _faithful(value: Any, depth: int, path: set[int], budget: list[int]) -> Any:  # noqa: C901, PLR0911, PLR0912
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise _Unfaithful
    if isinstance(value, np.generic):
        value = value.item()
        if type(value) not in _SCALAR_TYPES:
            raise _Unfaithful
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        return _int_or_tag(value)
    if kind is float:
        return _finite_or_tag(value)
    if kind is str:
        budget[1] -= len(value)
        if budget[1] < 0:
            raise _Unfaithful
        return value
    if kind is complex:
        return {"$complex": [_finite_or_tag(value.real), _finite_or_tag(value.imag)]}
    if kind in (bytes, bytearray):
        budget[1] -= len(value)
        if budget[1] < 0:
            raise _Unfaithful
        return {f"${kind.__name__}": base64.b64encode(bytes(value)).decode("ascii")}
    if kind not in (list, tuple, dict, set, frozenset, np.ndarray):
        raise _Unfaithful
    if id(value) in path:
        raise _Unfaithful
    path.add(id(value))
    try:
        if kind is list:
            return [_faithful(v, depth + 1, path, budget) for v in value]
        if kind is tuple:
            return {"$tuple": [_faithful(v, depth + 1, path, budget) for v in value]}
        if kind is dict:
            if all(type(k) is str and not k.startswith("$") for k in value):
                return {k: _faithful(v, depth + 1, path, budget) for k, v in value.items()}
            return {"$dict": [[_faithful(k, depth + 1, path, budget), _faithful(v, depth + 1, path, budget)]
                              for k, v in value.items()]}
        if kind in (set, frozenset):
            items = [_faithful(v, depth + 1, path, budget) for v in value]
            return {f"${kind.__name__}": sorted(items, key=lambda v: json.dumps(v, sort_keys=True))}
        dtype = value.dtype
        if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None or value.size > MAX_NODES:
            raise _Unfaithful
        budget[0] -= int(value.size)
        return {"$ndarray": {"dtype": dtype.str, "shape": [int(d) for d in value.shape],
                             "data": _faithful(value.tolist(), depth + 1, path, budget)}}
    finally:
        path.discard(id(value))


_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def decode_action(data: Any) -> Any:
    """Rebuild an action from its JSON form (inverts :func:`encode_action`; also turns
    ``$rejected``/``$accepted`` entries into :class:`RecordedRejection`/:class:`RecordedAcceptance`).

    Example:
        >>> decode_action({"$set": [1, 2]})
        {1, 2}
    """
    if isinstance(data, list):
        return [decode_action(v) for v in data]
    if not isinstance(data, dict):
        return data
    if len(data) == 1:
        (tag, body), = data.items()
        if tag == "$float" and body in _FLOATS:
            return _FLOATS[body]
        if tag == "$int" and isinstance(body, str):
            return int(body, 16)
        if tag == "$tuple" and isinstance(body, list):
            return tuple(decode_action(v) for v in body)
        if tag in ("$set", "$frozenset") and isinstance(body, list):
            items = (decode_action(v) for v in body)
            return set(items) if tag == "$set" else frozenset(items)
        if tag == "$complex" and isinstance(body, list) and len(body) == 2:
            return complex(decode_action(body[0]), decode_action(body[1]))
        if tag in ("$bytes", "$bytearray") and isinstance(body, str):
            raw = base64.b64decode(body)
            return raw if tag == "$bytes" else bytearray(raw)
        if tag == "$dict" and isinstance(body, list):
            return {decode_action(k): decode_action(v) for k, v in body}
        if tag == "$ndarray" and isinstance(body, dict):
            array = np.array(decode_action(body["data"]), dtype=np.dtype(body["dtype"]))
            return array.reshape(tuple(body["shape"]))
        if tag == "$rejected" and isinstance(body, dict):
            return RecordedRejection(
                str(body.get("error")), str(body.get("type")), str(body.get("value")), decode_action(body.get("parts")),
            )
        if tag == "$accepted":
            return RecordedAcceptance(decode_action(body))
    return {k: decode_action(v) for k, v in data.items()}


def record_action(
    action: Any, normalized: Any, error: str | None, *, top_tuple: bool = False, rejected_parts: Any = None,
) -> Any:
    """The JSON form of a submitted action for a game record (see the module docstring):
    its faithful form, else its outcome (the normalized action, or the rejection with the
    ``rejected_parts`` the game kept for its fallback)."""
    kind = type(action)  # not isinstance(): it may run a hostile value's __class__ property
    if kind is RecordedRejection:
        type_text, value_text = action.type, action.value
    elif kind is not RecordedAcceptance:
        encoded, faithful = encode_action(action, top_tuple=top_tuple)
        if faithful:
            return encoded
        type_text, value_text = type_name(action), describe(action)
    if error is not None:
        body = {"type": type_text, "value": value_text, "error": error}
        if rejected_parts is not None:
            body["parts"] = encode_action(rejected_parts)[0]
        return {"$rejected": body}
    encoded, faithful = encode_action(normalized, top_tuple=top_tuple)
    return {"$accepted": encoded if faithful else to_jsonable(normalized)}


def digest(observation: Any) -> str:
    """A short stable hash of an observation: 16 hex digits of an XXH3-128 over its values.

    XXH3 (the ``xxhash`` package), not a cryptographic hash: a digest checks that a replay
    sees what the game showed, and XXH3 reads the card images of a Dixit hand 30x faster
    than SHA-1.

    Dict keys are sorted; texts, numbers and arrays (dtype, shape and bytes) are fed in
    order, an array larger than 256 bytes as its own hash (:func:`array_digest`; a stack of
    large rows, such as card images, as the hash of its rows' hashes). An array that is
    read-only all the way down (``flags.writeable`` False, and so is every array it views) is
    treated as immutable: its hash is computed once and reused for as long as the array
    lives, so a game that shows the same read-only card images at every step does not rehash
    their pixels; and a new stack of cards whose rows' hashes are known (see
    :func:`keep_stack_digest`) is hashed without reading its pixels.

    The bytes are :func:`digest_bytes`'s (the Python walk, the definition), built by a small C
    extension (``envs/core/_digest.c``, compiled by ``pip install`` where a C compiler is:
    :data:`ACCELERATED`) in a fifth to a third of the time; without it, or with
    ``CLUEGYM_PURE_PYTHON_DIGEST=1`` in the environment, by the Python walk: the same digests.

    Example:
        >>> digest({"prompt": "Your turn.", "hand": np.arange(3)})  # doctest: +SKIP
        '5c1f0e1a2b3c4d5e'
    """
    return xxhash.xxh3_128_hexdigest(_serialize(observation))[:16]


def digest_bytes(observation: Any) -> bytes:
    """The bytes :func:`digest` hashes, from the Python walk (:func:`_feed`): the definition
    that the C accelerator (``cluegym.envs.core._digest``, used by :func:`digest` where it was
    built) reproduces byte for byte."""
    parts: list[bytes] = []
    _feed(observation, parts)
    return b"".join(parts)


def _feed(value: Any, parts: list[bytes]) -> None:  # noqa: C901, PLR0912 - one dispatch on the type
    # A dict's texts, arrays, ints and tuples are fed in its loop, without a call of _feed per
    # entry (most of an observation).
    kind = type(value)
    if kind is dict:
        for key, key_bytes in _key_order(value):
            item = value[key]
            parts.append(key_bytes)
            kind = type(item)
            if kind is str:
                parts.append(b"s" + item.encode() + b"\0")
            elif kind is np.ndarray:
                # _array_part, inlined for the small arrays (masks, indices) of most entries
                if item.nbytes <= _INLINE_ARRAY_BYTES:
                    parts.append(_array_head(item))
                    parts.append(item.tobytes())
                else:
                    parts.append(array_digest(item))
            elif kind is int:
                parts.append(repr(item).encode())
            elif kind is tuple:
                _feed_tuple(item, parts)
            else:
                _feed(item, parts)
    elif kind is str:
        parts.append(b"s" + value.encode() + b"\0")
    elif kind is np.ndarray:
        parts.append(_array_part(value))
    elif kind is tuple:
        _feed_tuple(value, parts)
    elif kind is list:
        _feed_sequence(value, parts)
    elif kind is int or kind is float:
        parts.append(repr(value).encode())
    elif isinstance(value, np.generic) and kind is not np.bool_:
        parts.append(repr(value.item()).encode())
    elif isinstance(value, dict):
        _feed(dict(value), parts)
    elif isinstance(value, (list, tuple)):
        _feed(list(value), parts)
    elif isinstance(value, np.ndarray):
        _feed(np.asarray(value), parts)
    else:
        parts.append(json.dumps(to_jsonable(value)).encode())


def _feed_tuple(value: tuple, parts: list[bytes]) -> None:
    """A tuple's kept bytes (:func:`_tuple_part`), or its items when it may change."""
    part = _tuple_part(value)
    if part is None:
        _feed_sequence(value, parts)
    else:
        parts.append(part)


def _feed_sequence(value: list | tuple, parts: list[bytes]) -> None:
    """A list's (or a mutable tuple's) items between brackets."""
    parts.append(b"[")
    for item in value:
        _feed(item, parts)
    parts.append(b"]")


# A dict's keys in digest order with their bytes, per key set: an observation's keys are the
# same at every step, and sorting and encoding them was a tenth of a digest.
_KEY_ORDERS: dict[tuple, list[tuple[Any, bytes]]] = {}
_KEY_ORDERS_MAX = 1024


def _key_order(value: dict) -> list[tuple[Any, bytes]]:
    keys = tuple(value)
    try:
        order = _KEY_ORDERS.get(keys)
    except TypeError:  # an unhashable key: cannot be kept (cannot be in a dict either)
        order = None
    if order is None:
        order = [(key, key.encode() if type(key) is str else str(key).encode()) for key in sorted(value)]
        if len(_KEY_ORDERS) >= _KEY_ORDERS_MAX:
            _KEY_ORDERS.clear()
        _KEY_ORDERS[keys] = order
    return order


# The digest bytes of immutable tuples (texts, numbers, read-only arrays and such tuples, to
# any depth) by id(), each entry holding its tuple so that the id cannot name another object
# while the entry lives. A game hands out the same tuples step after step (finished rounds'
# descriptions and hints, the Text entries of an action mask), so most are fed once.
_TUPLE_PARTS: dict[int, tuple[tuple, bytes]] = {}
_TUPLE_PARTS_MAX = 4096


def _tuple_part(value: tuple) -> bytes | None:
    """What :func:`digest` feeds of a tuple (``[``, its items' parts, ``]``), kept while the
    tuple is in the cache; None when an item may change (a list, a writable array, an
    object), which the caller then feeds item by item."""
    entry = _TUPLE_PARTS.get(id(value))
    if entry is not None and entry[0] is value:
        return entry[1]
    if value and all(type(item) is str for item in value):
        # The common case, a row of texts, in one encode (the same bytes as item by item).
        part = ("[" + "".join(["s" + item + "\0" for item in value]) + "]").encode()
    else:
        pieces = [b"["]
        for item in value:
            kind = type(item)
            if kind is str:
                pieces.append(b"s" + item.encode() + b"\0")
            elif kind is tuple:
                piece = _tuple_part(item)
                if piece is None:
                    return None
                pieces.append(piece)
            elif kind is int or kind is float:
                pieces.append(repr(item).encode())
            elif kind is np.ndarray and _immutable(item):
                pieces.append(_array_part(item))
            else:
                return None
        pieces.append(b"]")
        part = b"".join(pieces)
    if len(_TUPLE_PARTS) >= _TUPLE_PARTS_MAX:
        _TUPLE_PARTS.clear()
    _TUPLE_PARTS[id(value)] = (value, part)
    return part


# Hashes of immutable arrays by id(), each with a weak reference that proves the id still
# names the same array (the callback drops the entry when the array is freed, before its id
# can be reused).
_ARRAY_DIGESTS: dict[int, tuple[weakref.ref, bytes]] = {}


def _immutable(array: np.ndarray) -> bool:
    """Whether nothing can write ``array``'s bytes: it and every array it views are read-only."""
    while True:
        if array.flags.writeable:
            return False
        base = array.base
        if base is None:
            return True
        if not isinstance(base, np.ndarray):
            # A read-only view of another buffer (bytes, mmap): trusted only when that
            # buffer is immutable bytes.
            return isinstance(base, bytes)
        array = base


#: Arrays up to this many bytes are fed to a digest as their bytes; larger ones as their own
#: hash (cached for an immutable array, see :func:`array_digest`).
_INLINE_ARRAY_BYTES = 256
_ARRAY_HEADS: dict[tuple[np.dtype, tuple[int, ...]], bytes] = {}


def _array_part(array: np.ndarray) -> bytes:
    """What :func:`digest` feeds of an array: a small one's dtype, shape and bytes (masks,
    indices, scores), a larger one's own hash (images; cached for immutable ones)."""
    if array.nbytes <= _INLINE_ARRAY_BYTES:
        return _array_head(array) + array.tobytes()
    return array_digest(array)


def _array_head(array: np.ndarray) -> bytes:
    """The bytes that say an array's dtype and shape (one per kind of array: kept)."""
    key = (array.dtype, array.shape)
    head = _ARRAY_HEADS.get(key)
    if head is None:
        head = _ARRAY_HEADS[key] = f"{array.dtype.str}{array.shape}".encode()
    return head


#: An array whose rows (along its first axis) hold at least this many bytes each is hashed
#: as its rows' hashes (see :func:`array_digest`): a stack of card images.
ROW_HASH_BYTES = 4096
#: An array of at most this many bytes (a small table: votes, histories) is hashed in one
#: call, whatever its shape (see :func:`array_digest`).
_SMALL_TABLE_BYTES = 4096


def array_digest(array: np.ndarray) -> bytes:
    """The 16-byte hash :func:`digest` feeds of an array: the XXH3-128 of its dtype, shape and
    bytes; for an array of at least two dimensions whose rows (along the first axis) hold
    :data:`ROW_HASH_BYTES` bytes or more each (a stack of images), the XXH3-128 of its dtype,
    shape and rows' :func:`row_digest` instead (see :func:`keep_stack_digest`).

    Cached per array object while it lives when the array is immutable (read-only all the
    way down, see :func:`digest`); computed afresh otherwise.
    """
    entry = _ARRAY_DIGESTS.get(id(array))
    if entry is not None and entry[0]() is array:
        return entry[1]
    if array.nbytes <= _SMALL_TABLE_BYTES:  # votes, histories: one call, the same hash
        value = xxhash.xxh3_128_digest(_array_head(array) + array.tobytes())
    elif _hashed_by_rows(array):
        value = stack_digest(array, [row_digest(row) for row in array])
    else:
        hasher = xxhash.xxh3_128(_array_head(array))
        hasher.update(np.ascontiguousarray(array).data)  # no copy of a contiguous array's bytes
        value = hasher.digest()
    if _immutable(array):
        _keep_array_digest(array, value)
    return value


def _hashed_by_rows(array: np.ndarray) -> bool:
    """Whether :func:`array_digest` hashes ``array`` as its rows' hashes (a stack of large rows,
    larger than the tables hashed in one call)."""
    return (array.nbytes > _SMALL_TABLE_BYTES and array.ndim >= 2 and array.shape[0] > 0
            and array.nbytes // array.shape[0] >= ROW_HASH_BYTES)


def row_digest(row: np.ndarray) -> bytes:
    """The 16-byte XXH3-128 of one row's bytes: what :func:`array_digest` hashes of a stack
    of large rows, per row (a card's image hashed once can stand for it in every stack)."""
    return xxhash.xxh3_128_digest(np.ascontiguousarray(row).data)


def stack_digest(array: np.ndarray, row_digests: Iterable[bytes]) -> bytes:
    """:func:`array_digest` of a stack of large rows from its rows' :func:`row_digest`."""
    return xxhash.xxh3_128_digest(_array_head(array) + b"".join(row_digests))


def _keep_array_digest(array: np.ndarray, value: bytes) -> None:
    key = id(array)
    _ARRAY_DIGESTS[key] = (weakref.ref(array, lambda _ref, key=key: _ARRAY_DIGESTS.pop(key, None)), value)


def keep_stack_digest(array: np.ndarray, row_digests: Iterable[bytes]) -> None:
    """Keep :func:`array_digest` of a new immutable stack whose rows' :func:`row_digest` the
    caller knows (a deck's cards, each hashed once), so that no digest reads its bytes.

    The caller vouches for ``row_digests`` (row ``i``'s hash, in order): the same hash that
    :func:`array_digest` computes from the bytes, as the tests check. Nothing is kept for an
    array that can still change or that is not hashed by rows.
    """
    if _hashed_by_rows(array) and _immutable(array):
        _keep_array_digest(array, stack_digest(array, row_digests))


def _accelerated_serializer() -> Any:
    """The C build of :func:`digest_bytes` (``envs/core/_digest.c``), given this module's walk
    and caches; None where it was not built (no C compiler at install) or
    ``CLUEGYM_PURE_PYTHON_DIGEST=1`` asks for the Python walk (to compare the two)."""
    _digest = load_extension(
        "_digest", _DIGEST_API, off_switch="CLUEGYM_PURE_PYTHON_DIGEST",
        fallback="observation digests use the Python walk (the same digests, slower)",
    )
    if _digest is None:
        return None
    _digest.init(
        _feed, _key_order, _KEY_ORDERS, _array_head, array_digest, _ARRAY_DIGESTS, np.ndarray,
        _INLINE_ARRAY_BYTES,
    )
    return _digest.serialize


#: The version of ``_digest.c``'s interface this module calls (its ``API``).
_DIGEST_API = 1
#: What :func:`digest` hashes: the C accelerator where it was built, else the Python walk
#: (the same bytes; the C one 3-5x faster on an observation).
_serialize: Any = _accelerated_serializer() or digest_bytes
#: Whether :func:`digest` runs the C accelerator.
ACCELERATED = _serialize is not digest_bytes


class ReplayMismatch(RuntimeError):
    """A replayed game diverged from its record (different observation or seat)."""


def replay_env(record: dict[str, Any], check_digests: bool = True) -> Any:
    """Replay a game record step by step and return the env in the recorded end state.

    Args:
        record: a record from ``env.unwrapped.game_record()``.
        check_digests: compare each observation digest with the recorded one.

    Raises:
        ReplayMismatch: if the seat to move or an observation differs from the record.
    """
    env = make(record["game"], **record["config"])
    env.reset(seed=record["seed"], options=record.get("options"))
    for i, step in enumerate(record["steps"]):
        agent = env.agent_selection
        if agent != step["agent"]:
            raise ReplayMismatch(f"step {i}: {agent!r} to move, record says {step['agent']!r}")
        if check_digests and step.get("obs") is not None:
            got = digest(env.observe(agent))
            if got != step["obs"]:
                raise ReplayMismatch(f"step {i}: observation of {agent!r} differs from the record")
        if "forfeit" in step:  # the seat gave up this decision: forfeit it again
            env.unwrapped.forfeit(step["forfeit"])
        else:
            env.step(env.unwrapped.action_from_json(agent, step["action"]))
    return env


def replay(record: dict[str, Any], check_digests: bool = True) -> dict[str, Any]:
    """Replay a record (see :func:`replay_env`) and return the replayed game's record."""
    return replay_env(record, check_digests).unwrapped.game_record()


def transcript(record: dict[str, Any]) -> str:
    """The rendered end state of a recorded game (its table as text)."""
    return replay_env(record, check_digests=False).unwrapped._render_text()
