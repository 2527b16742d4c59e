"""What the typed game modules use of Cython's ``cython`` module, for when Cython is absent.

A few game modules declare C types for the compiled build (Cython's pure Python mode:
``@cython.cclass``, ``@cython.locals``, ``cython.dataclasses``; see setup.py). Cython is a
build requirement, not a runtime one, so those modules import this instead when it is not
installed; every declaration is then a no-op and the module runs as plain Python::

    try:
        import cython
    except ImportError:  # no Cython at run time: the declarations do nothing
        from cluegym.envs.core import cython_fallback as cython
"""

from __future__ import annotations

import dataclasses as _dataclasses
from types import SimpleNamespace
from typing import Any, Callable, TypeVar

__all__ = ["cclass", "locals", "boundscheck", "wraparound", "dataclasses", "compiled"]

_T = TypeVar("_T")


def cclass(cls: _T) -> _T:
    """Cython's extension-type marker: the class unchanged."""
    return cls


def locals(**types: Any) -> Callable[[_T], _T]:  # noqa: A001 - Cython's name
    """Cython's local-type declaration: the function unchanged."""
    return lambda function: function


def boundscheck(flag: bool) -> Callable[[_T], _T]:
    """Cython's bounds-check directive for one function: the function unchanged."""
    return lambda function: function


def wraparound(flag: bool) -> Callable[[_T], _T]:
    """Cython's negative-index directive for one function: the function unchanged."""
    return lambda function: function


#: Cython's dataclasses: the standard library's.
dataclasses = SimpleNamespace(dataclass=_dataclasses.dataclass, field=_dataclasses.field)

#: Cython's "running compiled" flag: False here (a module choosing its typed path by it runs
#: its Python path).
compiled = False
