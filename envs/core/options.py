"""Declared options: check and coerce keyword options against a constructor signature.

A game's options are the keyword-only parameters of its env class's ``__init__`` (type hints
and defaults); an agent's parameters are those of its class. One mechanism serves both, so
``cluegym.make("decrypto", max_turns="8")``, ``decrypto_v0.env(max_turn=2)``,
``cluegym run decrypto --env max_turns=abc`` and ``--agent bob=glove:k=many`` all fail (or
convert) the same way, before anything is built, with a one-line :class:`OptionError`:

* an unknown name lists the accepted options and suggests the closest one;
* a value is converted from text where the declared type says how (``"8"`` -> 8,
  ``"true"`` -> True, ``"0.5"`` -> 0.5, ``"none"`` -> None for optional options, a JSON list
  for list options) and otherwise must already have the declared type: a bool is not an
  int, NaN and infinities are not numbers, a ``Literal`` takes only its choices (the rules
  are in :mod:`cluegym.envs.core.hints`).

Range checks (``max_turns=0``) stay with the game, which knows its limits.

Example:
    >>> from cluegym.envs.core.options import check_init_options
    >>> @check_init_options
    ... class Game:
    ...     def __init__(self, *, max_turns: int = 8) -> None:
    ...         self.max_turns = max_turns
    >>> Game(max_turns="6").max_turns
    6
    >>> Game(max_turn=6)
    Traceback (most recent call last):
    cluegym.envs.core.options.OptionError: Game has no option max_turn; accepted: max_turns=8; did you mean max_turns?
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Collection, Mapping, TypeVar, get_type_hints

import numpy as np

from cluegym.envs.core.hints import CoercionError, coerce_value, type_name
from cluegym.envs.core.text import describe

__all__ = [
    "Option", "OptionError", "check_init_options", "check_options", "check_reset_options", "coerce_value",
    "declared_options", "RESET_CALLER_SKIPS", "docstring_args", "type_name",
]

#: Longest ``repr`` of a rejected value shown in an error message.
SHOWN_VALUE_CHARS = 60

_ARG_LINE = re.compile(r"^(\*{0,2}\w+)(?:\s*\([^)]*\))?\s*:\s*(.*)$")
_REST_ROLE = re.compile(r":\w+:`~?([^`]*)`")
_Type = TypeVar("_Type", bound=type)


class OptionError(ValueError):
    """An unknown option, or a value that does not fit the option's declared type."""


@dataclass(frozen=True)
class Option:
    """One declared option.

    Attributes:
        name: the keyword.
        annotation: its resolved type hint (``typing.Any`` when undeclared or unresolvable).
        default: its default, or ``inspect.Parameter.empty`` when it has none.
        description: the one-line description from the class docstring's ``Args:`` section
            ("" when it has none).
    """

    name: str
    annotation: Any = Any
    default: Any = inspect.Parameter.empty
    description: str = ""

    @property
    def required(self) -> bool:
        """True when the option has no default."""
        return self.default is inspect.Parameter.empty

    @property
    def type_name(self) -> str:
        """The declared type as text, e.g. ``"int | None"``."""
        return type_name(self.annotation)

    def listing(self) -> str:
        """``name=default`` (or ``name`` when required), as error messages list options."""
        return self.name if self.required else f"{self.name}={self.default!r}"


# ------------------------------------------------------------------------------------------
# Declarations
# ------------------------------------------------------------------------------------------

def declared_options(cls: type, *, inherited: bool = False) -> dict[str, Option]:
    """The options of ``cls``: the parameters its ``__init__`` takes by keyword, in order.

    Args:
        cls: the class (an env or agent class).
        inherited: collect the keyword-only parameters of every ``__init__`` in the MRO (for
            classes whose ``__init__`` forwards ``**kwargs`` to their base, like agents, whose
            positional ``game, seat, action_space`` are not options). By default (envs, which
            declare every option in their own ``__init__``), the parameters of ``cls.__init__``
            that may be passed by keyword.

    Returns:
        name -> :class:`Option`, with descriptions from the ``Args:`` sections of the class
        docstrings (the class first, then its bases).
    """
    return dict(_declared_options(cls, inherited))


@functools.lru_cache(maxsize=256)
def _declared_options(cls: type, inherited: bool) -> tuple[tuple[str, Option], ...]:
    klasses = [k for k in reversed(cls.__mro__) if "__init__" in k.__dict__] if inherited else [cls]
    descriptions: dict[str, str] = {}
    for klass in reversed(cls.__mro__):  # the class's own docstring wins over its bases'
        descriptions.update(docstring_args(klass.__dict__.get("__doc__")))
    kinds = (inspect.Parameter.KEYWORD_ONLY,) if inherited else (
        inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    found: dict[str, Option] = {}
    for klass in klasses:
        init = klass.__dict__.get("__init__") if inherited else getattr(klass, "__init__", None)
        if init is None or init is object.__init__:
            continue
        init = inspect.unwrap(init)
        hints = _type_hints(init)
        for param in list(inspect.signature(init).parameters.values())[1:]:  # [0] is self
            if param.kind in kinds:
                found.pop(param.name, None)  # a subclass redeclaring it moves it to its place
                found[param.name] = Option(
                    param.name, hints.get(param.name, Any), param.default, descriptions.get(param.name, ""))
    return tuple(found.items())


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    try:
        return get_type_hints(func)
    except Exception:  # noqa: BLE001 - an unresolvable annotation: those options go unchecked (Any)
        return {}


def docstring_args(doc: str | None) -> dict[str, str]:
    """The ``Args:`` entries of a Google-style docstring: name -> one-line description.

    Continuation lines are joined and reST double backticks dropped.

    Example:
        >>> docstring_args('''Game.
        ...
        ... Args:
        ...     max_turns: turns to survive
        ...         (default 8).
        ... ''')
        {'max_turns': 'turns to survive (default 8).'}
    """
    out: dict[str, list[str]] = {}
    section_indent: int | None = None
    entry_indent: int | None = None
    current: str | None = None
    for line in inspect.cleandoc(doc or "").splitlines():
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if section_indent is None:
            if text in ("Args:", "Arguments:", "Parameters:"):
                section_indent, entry_indent, current = indent, None, None
            continue
        if not text:
            continue
        if indent <= section_indent:
            section_indent = None  # the section ended; another Args: section may follow
            continue
        entry_indent = indent if entry_indent is None else entry_indent
        match = _ARG_LINE.match(text)
        if indent == entry_indent and match:
            current = match.group(1).lstrip("*")
            out[current] = [match.group(2)]
        elif current is not None and indent > entry_indent:
            out[current].append(text)
    return {name: _plain(_join_lines(parts)) for name, parts in out.items()}


def _join_lines(parts: list[str]) -> str:
    text = ""
    for part in parts:
        # a word hyphenated across lines ("caption-" / "based") is joined back without a space
        glue = "" if not text or (text.endswith("-") and not text.endswith(" -")) else " "
        text += glue + part
    return text


def _plain(text: str) -> str:
    """reST markup dropped (``:func:`x``` -> ``x``, double backticks), whitespace collapsed."""
    text = _REST_ROLE.sub(r"\1", text).replace("``", "")
    return " ".join(text.split())


# ------------------------------------------------------------------------------------------
# Checking
# ------------------------------------------------------------------------------------------

def check_options(
    given: Mapping[str, Any],
    options: Mapping[str, Option],
    *,
    owner: str,
    noun: str = "option",
    error: type[ValueError] = OptionError,
) -> dict[str, Any]:
    """Check ``given`` against ``options``; return it with every value coerced.

    Args:
        given: name -> value, as passed by a caller (Python values, or text from a command line).
        options: the declared options, e.g. :func:`declared_options` of the class.
        owner: who takes the options, for messages (``"decrypto"``, ``"agent 'glove'"``).
        noun: what an option is called in messages (``"option"``, ``"parameter"``).
        error: the exception class raised (a ValueError subclass).

    Raises:
        OptionError (or ``error``): one line, e.g. ``decrypto has no option max_turn;
            accepted: max_turns=8, ...; did you mean max_turns?`` or ``decrypto option
            max_turns='abc': expected int``.
    """
    unknown = [name for name in given if name not in options]
    if unknown:
        accepted = ", ".join(option.listing() for option in options.values()) or "(none)"
        close = {m for name in unknown for m in difflib.get_close_matches(str(name), list(options), n=1)}
        hint = f"; did you mean {', '.join(sorted(close))}?" if close else ""
        raise error(f"{owner} has no {noun} {', '.join(map(str, unknown))}; accepted: {accepted}{hint}")
    out: dict[str, Any] = {}
    for name, value in given.items():
        annotation = options[name].annotation
        try:
            out[name] = coerce_value(value, annotation)
        except CoercionError:
            finite = " (finite)" if _non_finite(value) and "float" in type_name(annotation) else ""
            raise error(f"{owner} {noun} {name}={_shown(value)}: expected {type_name(annotation)}{finite}") from None
    return out


def check_init_options(cls: _Type) -> _Type:
    """Make ``cls(**options)`` check and coerce its keyword options first (class decorator).

    Wraps the class's own ``__init__`` so that every construction path (``cls(...)``, a
    game's ``raw_env()``/``env()``, :func:`cluegym.make`) fails with a one-line
    :class:`OptionError` on an unknown or mistyped option, before the body runs. Idempotent;
    ``ClueGameEnv`` applies it to every game class. Messages name the game by its
    ``game_id`` without the version (``"decrypto"``), else the class name.
    """
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_checks_options", False):
        return cls
    game_id = getattr(cls, "game_id", "") or ""
    owner = game_id.rsplit("_v", 1)[0] if game_id else cls.__name__

    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(init).parameters.values())

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            options = declared_options(cls)
            if takes_any:  # an __init__ with **kwargs judges the names it does not declare
                kwargs = {**kwargs, **check_options(
                    {k: v for k, v in kwargs.items() if k in options}, options, owner=owner)}
            else:
                kwargs = check_options(kwargs, options, owner=owner)
        init(self, *args, **kwargs)

    __init__._checks_options = True  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]
    return cls


def call_after_init(cls: _Type, method: str) -> _Type:
    """Make the outermost ``__init__`` of ``cls`` (and subclasses that also apply this) end
    by calling ``self.<method>()`` once: subclass inits call their parents' first, so only
    the outermost one may call it, when every attribute it needs is set."""
    init = cls.__dict__.get("__init__")
    if init is None or method in getattr(init, "_calls_after_init", ()):
        return cls

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        depth = self.__dict__.get("_init_depth", 0)
        self.__dict__["_init_depth"] = depth + 1
        try:
            init(self, *args, **kwargs)
        finally:
            self.__dict__["_init_depth"] = depth
        if depth == 0:
            getattr(self, method)()

    __init__._calls_after_init = (*getattr(init, "_calls_after_init", ()), method)  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]
    return cls


#: Modules whose frames a reset warning passes over to name the user's own call: the env, the
#: learning views and the libraries that wrap or drive them.
RESET_CALLER_SKIPS = ("cluegym.envs.", "cluegym.wrappers.", "cluegym.training.", "pettingzoo.", "gymnasium.",
                      "supersuit.", "stable_baselines3.", "sb3_contrib.", "ray.")


def check_reset_options(options: Any, known: Collection[str] | None, who: str) -> Mapping[str, Any]:
    """``reset(options=...)`` checked the one way every env and view checks it.

    Gymnasium and PettingZoo pass ``options`` through untouched, so a key nobody reads is
    taken (their API tests reset with foreign options) but warned of: most likely misspelt,
    it would otherwise play a game the caller did not ask for without a word.

    Args:
        options: what ``reset`` was given.
        known: the option names ``reset`` reads (empty: none; None: not declared, no warning).
        who: the reset's owner as the warning names it (``"decrypto_v0"``, ``"SelfPlayEnv"``).

    The warning names the first caller outside :data:`RESET_CALLER_SKIPS` (the user's
    ``reset`` call, however many wrappers lie between), whether the env is compiled or not.

    Returns:
        ``options`` (an empty dict for None).

    Raises:
        TypeError: ``options`` is neither None nor a mapping.

    Example:
        >>> check_reset_options({"game_sead": 3}, ("game_seed",), "SelfPlayEnv")  # doctest: +SKIP
        UserWarning: SelfPlayEnv does not read the reset option(s) 'game_sead'; its reset options are 'game_seed'
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"options must be a dict (or None), got {describe(options)}")
    if known is not None:
        unknown = [key for key in options if key not in known]
        if unknown:
            # Counted as warnings.warn counts: from the innermost Python frame, which is this
            # function's own only when it runs as Python (compiled code makes no frames).
            frame, stacklevel = sys._getframe(0), 1
            while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith(RESET_CALLER_SKIPS):
                frame, stacklevel = frame.f_back, stacklevel + 1
            warnings.warn(f"{who} does not read the reset option(s) {', '.join(map(describe, unknown))}; "
                          f"its reset options are {', '.join(map(repr, known)) or 'none'}", UserWarning,
                          stacklevel=stacklevel)
    return options


# ------------------------------------------------------------------------------------------
# Matching values to type hints
# ------------------------------------------------------------------------------------------

def _non_finite(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except (ValueError, OverflowError):
            return False
    return isinstance(value, (float, np.floating)) and not math.isfinite(float(value))


def _shown(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr raises is still named
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 3] + "..."
