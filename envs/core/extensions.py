"""Loading cluegym's optional C extensions (``envs/core/_digest.c``, ``envs/core/_rng.c``).

Each extension is an exact stand-in for Python or numpy code that stays the definition
(:func:`cluegym.envs.core.record.digest_bytes`, numpy's generator and draws). ``pip install``
builds them where a C compiler is; an editable install keeps the build beside its source, so
a ``.c`` file edited since (``pip install -e .`` rebuilds it) can leave a build whose
interface is not the one the Python side calls. Each extension therefore says its interface
version (its ``API``), and :func:`load_extension` uses a build only when it says the version
its caller expects: a stale build is ignored with a warning, and the caller takes its Python
path (the same results, slower).

Example:
    >>> _rng = load_extension("_rng", 1, fallback="numpy draws")  # None where not built
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType


def load_extension(name: str, api: int, *, fallback: str, off_switch: str | None = None) -> ModuleType | None:
    """The compiled module ``cluegym.envs.core.<name>``, or None to take the Python path.

    Args:
        name: the extension's module name (``"_digest"``, ``"_rng"``).
        api: the interface version the caller expects (the module's ``API``).
        fallback: what runs instead, for the warning about a stale build.
        off_switch: an environment variable that, set to anything but ``""`` or ``"0"``,
            turns the extension off (to compare the two paths); None: none.

    Returns:
        The module; None where it was not built (no C compiler at install), is turned off,
        or is out of date (a ``RuntimeWarning`` says so).
    """
    if off_switch is not None and os.environ.get(off_switch, "") not in ("", "0"):
        return None
    try:
        module = importlib.import_module(f"cluegym.envs.core.{name}")
    except ImportError:
        return None
    if getattr(module, "API", None) != api:  # built from another version of its .c file
        warnings.warn(
            f"cluegym.envs.core.{name} is out of date (rebuild it: pip install -e .); {fallback}",
            RuntimeWarning, stacklevel=3,
        )
        return None
    return module
