"""Type hints as options use them: how a hint reads (:func:`type_name`) and which values fit
it (:func:`coerce_value`), converting text where the hint says how.

Values of the declared type pass (numpy scalars become Python ones). Text converts to bool
(``true/false/yes/no/on/off/1/0``), int, float, None (``none``/``null`` where None is
allowed), paths, and JSON lists/objects where the hint asks for them. A bool is not an int,
NaN and infinities are not numbers, a ``Literal`` takes only its choices. Unions try every
member without conversion first, so ``Sequence[int] | str`` keeps ``"96x64"`` a string.
``Any``, unresolved names and typing constructs not listed here are not checked.

Example:
    >>> coerce_value("8", int | None), coerce_value("none", int | None), type_name(int | None)
    (8, None, 'int | None')
"""

from __future__ import annotations

import collections.abc
import inspect
import json
import math
import types
import typing
from pathlib import PurePath
from typing import Any, Callable, Literal, Mapping, TypeVar, Union, get_args, get_origin

import numpy as np

from cluegym.envs.core.text import is_integer

__all__ = ["CoercionError", "coerce_value", "is_union", "type_name"]

#: Text read as True / False for a bool option.
TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "0"})
#: Text read as None for an option that may be None.
NONE_WORDS = frozenset({"none", "null"})

_SEQUENCE_ORIGINS = (list, tuple, collections.abc.Sequence, collections.abc.MutableSequence)
_MAPPING_ORIGINS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


class CoercionError(ValueError):
    """A value that does not fit a type hint; the message is ``expected <type>``."""


def type_name(annotation: Any) -> str:
    """A type hint as users read it: ``int``, ``str | Path | Sequence[str] | None``,
    ``'dixitworld' | 'official'`` (a Literal lists its choices)."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        return "any"
    if annotation is None or annotation is type(None):
        return "None"
    if get_origin(annotation) is Literal:
        return " | ".join(repr(choice) for choice in get_args(annotation))
    if is_union(annotation):
        return " | ".join(type_name(arg) for arg in get_args(annotation))
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        if not args:
            return name
        inner = ", ".join("..." if arg is Ellipsis else type_name(arg) for arg in args)
        return f"{name}[{inner}]"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def coerce_value(value: Any, annotation: Any) -> Any:
    """``value`` converted to ``annotation``; raises ValueError when it does not fit.

    Values of the declared type pass (numpy scalars become Python ones); text converts to
    bool, int, float, None, paths, and JSON lists/objects where the type asks for them.
    Unchecked: ``Any`` and types this module does not understand.

    Example:
        >>> coerce_value("8", int | None), coerce_value("none", int | None)
        (8, None)
    """
    matched, result = _match(value, annotation, convert=True)
    if not matched:
        raise CoercionError(f"expected {type_name(annotation)}")
    return result


def is_union(annotation: Any) -> bool:
    """True for ``Union[...]``, ``Optional[...]`` and ``X | Y``."""
    return get_origin(annotation) is Union or isinstance(annotation, types.UnionType)


def _json_text(value: str, kind: type) -> Any:
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, kind) else None


def _match(value: Any, annotation: Any, convert: bool) -> tuple[bool, Any]:  # noqa: PLR0911
    """(True, coerced value) when ``value`` fits ``annotation``, else (False, None).

    With ``convert=False`` only values already of the type fit; with ``convert=True`` text
    (and ints for floats) may be converted. Unions try every member without conversion
    first, so ``Sequence[int] | str`` keeps ``"96x64"`` a string and ``int | float`` keeps 8 an int.
    """
    if annotation is Any or annotation is inspect.Parameter.empty or isinstance(
        annotation, (str, typing.ForwardRef, TypeVar)
    ):
        return True, value
    if annotation is None or annotation is type(None):
        if value is None or (convert and isinstance(value, str) and value.strip().lower() in NONE_WORDS):
            return True, None
        return False, None
    origin, args = get_origin(annotation), get_args(annotation)
    if is_union(annotation):
        if type(None) in args and isinstance(value, str) and value.strip().lower() in NONE_WORDS and convert:
            return True, None
        # Every member as it is first, then converting. A loop with a break, not a conditional
        # between two tuples: Cython refuses that conditional (the module ran as Python).
        for passes_convert in (False, True):
            if passes_convert and not convert:
                break
            for member in args:
                matched, result = _match(value, member, passes_convert)
                if matched:
                    return True, result
        return False, None
    if origin is Literal:
        for choice in args:
            if type(value) is type(choice) and value == choice:
                return True, choice
        if convert and isinstance(value, str):
            for choice in args:
                matched, result = _match(value, type(choice), True)
                if matched and type(result) is type(choice) and result == choice:
                    return True, choice
        return False, None
    if annotation in _SCALARS:
        return _SCALARS[annotation](value, convert)
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        if isinstance(value, annotation):
            return True, value
        if convert and isinstance(value, str) and value.strip():
            return True, annotation(value)
        return False, None
    if origin in _SEQUENCE_ORIGINS or annotation in (list, tuple):
        return _match_sequence(value, annotation, origin or annotation, args, convert)
    if origin in _MAPPING_ORIGINS or annotation is dict:
        if convert and isinstance(value, str):
            value = _json_text(value, dict)
        if not isinstance(value, Mapping):
            return False, None
        key_type, value_type = args if len(args) == 2 else (Any, Any)
        out: dict[Any, Any] = {}
        for key, item in value.items():
            key_ok, key_out = _match(key, key_type, convert)
            item_ok, item_out = _match(item, value_type, convert)
            if not (key_ok and item_ok):
                return False, None
            out[key_out] = item_out
        return True, out
    target = origin if origin is not None else annotation
    if isinstance(target, type):
        try:
            return (True, value) if isinstance(value, target) else (False, None)
        except TypeError:  # e.g. a Protocol that is not runtime-checkable: not checked
            return True, value
    return True, value  # a typing construct this module does not check


def _match_bool(value: Any, convert: bool) -> tuple[bool, Any]:
    if isinstance(value, (bool, np.bool_)):
        return True, bool(value)
    if convert and isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return True, value.strip().lower() in TRUE_WORDS
    if convert and isinstance(value, (int, np.integer)) and value in (0, 1):
        return True, bool(value)
    return False, None


def _match_int(value: Any, convert: bool) -> tuple[bool, Any]:
    if is_integer(value):
        return True, int(value)
    if convert and isinstance(value, str):
        try:
            return True, int(value.strip())
        except ValueError:  # not an integer, or more digits than Python converts
            pass
    return False, None


def _match_float(value: Any, convert: bool) -> tuple[bool, Any]:
    is_int = is_integer(value)
    if not (isinstance(value, (float, np.floating)) or (convert and (is_int or isinstance(value, str)))):
        return False, None
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        return False, None
    return (True, number) if math.isfinite(number) else (False, None)


def _match_str(value: Any, convert: bool) -> tuple[bool, Any]:
    return (True, str(value)) if isinstance(value, str) else (False, None)


_SCALARS: dict[type, Callable[[Any, bool], tuple[bool, Any]]] = {
    bool: _match_bool, int: _match_int, float: _match_float, str: _match_str,
}


def _match_sequence(value: Any, annotation: Any, container: Any, args: tuple[Any, ...],
                    convert: bool) -> tuple[bool, Any]:
    if convert and isinstance(value, str):
        value = _json_text(value, list)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        return False, None
    if container is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        if len(value) != len(args):
            return False, None
        item_types: list[Any] = list(args)
    else:
        item_types = [args[0] if args else Any] * len(value)
    items = [_match(item, item_type, convert) for item, item_type in zip(value, item_types)]
    if not all(ok for ok, _ in items):
        return False, None
    coerced = [v for _, v in items]
    if container is list:
        return True, coerced
    if container is tuple:
        return True, tuple(coerced)
    return True, type(value)(coerced)  # an abstract Sequence keeps the caller's list or tuple
