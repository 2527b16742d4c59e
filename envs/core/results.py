"""What a game's ``metrics`` is given, checked one way for every game.

A game's ``metrics(results)`` reads finished games' results (``record["result"]``, or
``env.unwrapped.game_result()``). :func:`game_metrics` wraps it so that what users commonly
pass by mistake gets an error that says what to pass instead, not a ``TypeError`` from deep
inside a mean: ``None`` (the result of a game still running), whole game records, a single
result, or results of another game.

Example:
    >>> @game_metrics("coin")
    ... def metrics(results):
    ...     return {"games": len(results), "win_rate": sum(r["won"] for r in results) / len(results)}
    >>> metrics(iter([{"won": True}, {"won": False}]))
    {'games': 2, 'win_rate': 0.5}
    >>> metrics([None])
    Traceback (most recent call last):
    ValueError: results[0] is None: that game had not finished (game_result() is None until it ends)
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Mapping, TypeVar

from cluegym.envs.core.text import describe

_Metrics = TypeVar("_Metrics", bound=Callable[..., Any])


def checked_results(results: Any) -> list[Mapping[str, Any]]:
    """``results`` as a list of finished games' results (any iterable of dicts is taken).

    Raises:
        TypeError: ``results`` is not an iterable of dicts (a dict is one result, not a list of
            them), or holds whole game records instead of their ``"result"``.
        ValueError: it holds ``None``: a game that had not finished.
    """
    if isinstance(results, (str, bytes, Mapping)) or not hasattr(results, "__iter__"):
        raise TypeError(f"metrics take a list of finished games' results (record['result']), "
                        f"got {describe(results)}")
    results = list(results)
    for i, result in enumerate(results):
        if result is None:
            raise ValueError(f"results[{i}] is None: that game had not finished "
                             "(game_result() is None until it ends)")
        if not isinstance(result, Mapping):
            raise TypeError(f"results[{i}] must be a game's result (a dict), got {describe(result)}")
        if "result" in result and "steps" in result:
            raise TypeError(f"results[{i}] is a whole game record; metrics read its result: "
                            "metrics([record['result'] for record in records])")
    return results


def game_metrics(game: str) -> Callable[[_Metrics], _Metrics]:
    """Decorate ``game``'s ``metrics(results, ...)``: its results are checked by
    :func:`checked_results` first, and a result that lacks a key the metrics read is a
    ``ValueError`` naming the key (most likely another game's results), not a ``KeyError``.

    Args:
        game: the game's name, as the error names it.
    """
    def decorate(metrics: _Metrics) -> _Metrics:
        @functools.wraps(metrics)
        def checked(results: Any, *args: Any, **kwargs: Any) -> Any:
            results = checked_results(results)
            try:
                return metrics(results, *args, **kwargs)
            except KeyError as error:
                key = error.args[0] if error.args else None
                if not isinstance(key, str) or not any(key not in result for result in results):
                    raise  # not a result's missing key: a genuine error, as it is
                raise ValueError(f"a result lacks {key!r}: {game}'s metrics read finished {game} games' "
                                 "results (record['result'])") from error
        return checked  # type: ignore[return-value]
    return decorate
